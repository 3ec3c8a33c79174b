"""The rules configuration: presets by name, knob overrides, validation (docs/rules.md §4).

``Rules.make("seven_up", num_players=3, target_points=11)`` returns a frozen, validated
configuration. Every knob K1–K16 of docs/rules.md §4 (plus ``hand_size`` of R11 and ``scoring_order`` of
R10) can be overridden by keyword. Anything the engine could not play faithfully is rejected with a
``RulesError`` that names the problem and the allowed values; nothing is silently coerced.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from allfours_env.actions import MAX_BID
from allfours_env.cards import RANKS
from allfours_env.values import is_whole

if TYPE_CHECKING:
    from allfours_env.plan import RulePlan


class RulesError(ValueError):
    """A preset, knob or player count that the rules do not allow."""


# The values of the knobs that choose among named rules (docs/rules.md §4). Each member equals its
# text (``Direction.CW == "cw"``), which is what records, configs and keyword overrides hold; code
# compares members, so that a misspelt value is an AttributeError, never a silent False.


class RuleValue(StrEnum):
    """A value that names a rule (a knob's value, a kind of point): it equals, prints and reprs as
    its text, so that records, configs and printed awards read as they always did."""

    def __repr__(self) -> str:
        return repr(self.value)


class Direction(RuleValue):
    """K3: the way the deal, the bidding and the play pass around the table."""

    CW = "cw"
    CCW = "ccw"


class TrumpSelection(RuleValue):
    """K4: how trump is chosen — a turned-up card (beg and run), the first card led, the top card of
    the stock, or an auction."""

    TURNUP = "turnup"
    FIRST_LEAD = "first_lead"
    STOCK_TOP = "stock_top"
    AUCTION = "auction"


class RunTurnupScoring(RuleValue):
    """K6: which cards turned up while running score for the dealer."""

    ONLY_IF_SETS_TRUMP = "only_if_sets_trump"
    EVERY_TURNUP = "every_turnup"


class GiftRecipients(RuleValue):
    """K7: who scores the gift."""

    ALL_DEALER_OPPONENTS = "all_dealer_opponents"
    BEGGAR_SIDE = "beggar_side"


class GiftBlock(RuleValue):
    """K8: when the dealer may not gift and must run."""

    NON_BEGGAR_3P = "non_beggar_3p"
    ANY_RECIPIENT_WOULD_WIN = "any_recipient_would_win"
    NONE = "none"


class ExhaustedDeckRule(RuleValue):
    """K9: what a deal that runs out of cards while running does."""

    REDEAL_KEEP = "redeal_keep"
    REDEAL_VOID = "redeal_void"


class DiscardAfterRun(RuleValue):
    """K10: whether the players discard down to the hand size after a run."""

    TO_HAND_SIZE = "to_hand_size"
    NONE = "none"


class PointRule(RuleValue):
    """K11: whether High (or Low) scores for the side that held it or the side that captured it."""

    HELD = "held"
    CAPTURED = "captured"


class GameTieRule(RuleValue):
    """K13: who scores Game when the card points tie."""

    SEVEN_UP = "seven_up"
    NOBODY = "nobody"
    NON_DEALER = "non_dealer"


class Undertrump(RuleValue):
    """K15: whether a follower may play a trump lower than the trick's best trump."""

    ALLOWED = "allowed"
    BANNED_UNLESS_NO_CHOICE = "banned_unless_no_choice"


class JokerRank(RuleValue):
    """RD22: where the joker ranks among the trumps."""

    SECOND_HIGHEST = "second_highest"
    LOWEST = "lowest"


class PointKind(RuleValue):
    """Every kind of point an award can be (docs/rules.md §8): the turn-up and the gift (P1, P3),
    the hand's points after its last trick (R7–R9, RD25, RD28), a voided hand (K9) and a setback
    (RD18)."""

    TURNUP = "turnup"
    GIFT = "gift"
    HIGH = "high"
    LOW = "low"
    JACK = "jack"
    HANG_JACK = "hang_jack"
    NINE = "nine"
    JOKER = "joker"
    GAME = "game"
    VOID = "void"
    SETBACK = "setback"


#: The kinds of point a hand scores after its last trick, in the order of ``scoring_order`` (R10):
#: High, Low, Jack and Game always; ``nine`` (don, RD28) and ``joker`` (with the joker, RD25) where
#: the preset scores them.
SCORING_KINDS = (PointKind.HIGH, PointKind.LOW, PointKind.JACK, PointKind.GAME)
OPTIONAL_SCORING_KINDS = (PointKind.NINE, PointKind.JOKER)
#: Every kind of point in the order tables of results list them (the tournaments' numbers, the terminal
#: game's result): the hand's four points (R7–R9); the turn-up, the gift and a voided hand's (P1, P3,
#: K9); the kinds only some presets score (:data:`SCORED_WHERE_SCORED`); and the hang jack (K10), which
#: the tables also count within the Jack, last.
POINT_KIND_ORDER: tuple[PointKind, ...] = (
    PointKind.HIGH, PointKind.LOW, PointKind.JACK, PointKind.GAME, PointKind.TURNUP, PointKind.GIFT,
    PointKind.VOID, PointKind.JOKER, PointKind.NINE, PointKind.SETBACK, PointKind.HANG_JACK)
#: The kinds of point only some presets score — the joker (RD25), the nine (RD28), the setback of an
#: auction (RD18): the tournaments' numbers list them only where scored, every other kind always.
SCORED_WHERE_SCORED = frozenset({PointKind.JOKER, PointKind.NINE, PointKind.SETBACK})
#: The kinds of point other than the hand's (``scoring_order``) that each way of choosing trump can award
#: (the reports' columns): the turn-up, the gift and a voided hand's where cards are turned up, the
#: setback in an auction.
EXTRA_POINT_KINDS: Mapping[TrumpSelection, tuple[PointKind, ...]] = MappingProxyType({
    TrumpSelection.TURNUP: (PointKind.TURNUP, PointKind.GIFT, PointKind.VOID),
    TrumpSelection.AUCTION: (PointKind.SETBACK,),
})
#: Each kind of point's title in tables: the hand's points capitalised, the others in words.
POINT_KIND_TITLES: Mapping[PointKind, str] = MappingProxyType({
    PointKind.HIGH: "High", PointKind.LOW: "Low", PointKind.JACK: "Jack", PointKind.NINE: "Nine",
    PointKind.JOKER: "Joker", PointKind.GAME: "Game", PointKind.TURNUP: "turn-up", PointKind.GIFT: "gift",
    PointKind.VOID: "void", PointKind.SETBACK: "setback", PointKind.HANG_JACK: "hang jack",
})
SUITS_BY_LETTER = {"C": 0, "D": 1, "H": 2, "S": 3}

#: The type of each knob whose value names a rule.
KNOB_TYPES: Mapping[str, type[StrEnum]] = MappingProxyType(
    {
        "direction": Direction,
        "trump_selection": TrumpSelection,
        "run_turnup_scoring": RunTurnupScoring,
        "gift_recipients": GiftRecipients,
        "gift_block": GiftBlock,
        "exhausted_deck_rule": ExhaustedDeckRule,
        "discard_after_run": DiscardAfterRun,
        "high_rule": PointRule,
        "low_rule": PointRule,
        "game_tie_rule": GameTieRule,
        "undertrump": Undertrump,
        "joker_rank": JokerRank,
    }
)

#: Knob values the engine implements, by knob (docs/rules.md §4), as text.
CHOICES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {name: tuple(member.value for member in kind) for name, kind in KNOB_TYPES.items()}
    | {"joker_lead_trump": tuple(SUITS_BY_LETTER)}
)

#: Knobs that only mean something when a card is turned up (trump_selection = turnup, P1–P5).
TURNUP_ONLY_KNOBS = frozenset(
    {
        "turnup_scores",
        "run_turnup_scoring",
        "gift_points",
        "gift_recipients",
        "gift_block",
        "exhausted_deck_rule",
        "discard_after_run",
    }
)
#: Knobs used by one trump selection only (K4), and the joker's knobs (used only with ``joker``):
#: overriding one where it has no effect is an error (docs/rules.md D12).
KNOBS_BY_TRUMP_SELECTION = MappingProxyType(
    {
        TrumpSelection.TURNUP: TURNUP_ONLY_KNOBS,
        TrumpSelection.STOCK_TOP: frozenset({"stock_face_up"}),
        TrumpSelection.AUCTION: frozenset({"bid_max", "dealer_may_hold"}),
    }
)
JOKER_ONLY_KNOBS = frozenset({"joker_rank", "joker_lead_trump"})

_SEVEN_UP: dict[str, Any] = {
    "players": (2, 3, 4),  # K1
    "partnerships": True,  # K2
    "direction": "cw",  # K3
    "trump_selection": "turnup",  # K4
    "turnup_scores": {"J": 1},  # K5
    "run_turnup_scoring": "only_if_sets_trump",  # K6
    "gift_points": 1,  # K7
    "gift_recipients": "all_dealer_opponents",  # K7
    "gift_block": "non_beggar_3p",  # K8
    "exhausted_deck_rule": "redeal_keep",  # K9
    "discard_after_run": "to_hand_size",  # K10
    "high_rule": "held",  # K11
    "low_rule": "held",  # K11
    "jack_points": 1,  # K12
    "hang_jack_points": 1,  # K12
    "game_points": 1,  # K13
    "game_tie_rule": "seven_up",  # K13
    "target_points": 7,  # K14
    "undertrump": "allowed",  # K15
    "discards_in_play": False,  # K16
    "hand_size": 6,  # R11
    "scoring_order": SCORING_KINDS,  # R10
    "stock_face_up": True,  # stock_top only (RD10)
    "bid_max": 4,  # auction only (RD13)
    "dealer_may_hold": True,  # auction only (RD14)
    "joker": False,  # a 53-card pack (RD21)
    "joker_rank": "second_highest",  # joker only (RD22)
    "joker_lead_trump": "S",  # joker only (RD23)
}

_ALL_FOURS: dict[str, Any] = _SEVEN_UP | {
    "run_turnup_scoring": "every_turnup",
    "gift_recipients": "beggar_side",
    "gift_block": "none",
    "exhausted_deck_rule": "redeal_void",
    "game_tie_rule": "nobody",
    "target_points": 11,
}
#: The stock and auction presets' common ground: no turn-up, so none of K5–K10 (docs/rules.md §4).
_NO_TURNUP = {"turnup_scores": {}}
_CALIFORNIA_JACK: dict[str, Any] = _SEVEN_UP | _NO_TURNUP | {
    "players": (2,),
    "trump_selection": "stock_top",
    "high_rule": "captured",
    "low_rule": "captured",
    "target_points": 10,
}
_AUCTION_PITCH: dict[str, Any] = _SEVEN_UP | _NO_TURNUP | {
    "partnerships": False,  # RD3: everyone alone
    "trump_selection": "auction",
    "game_tie_rule": "nobody",
}

#: The presets by name (docs/rules.md §4), each a complete configuration. A new preset is one more
#: entry here (and its section of docs/rules.md): every other module reads the table through
#: :data:`PRESETS` and the rules through ``Rules.make(...).plan`` (docs/architecture.md).
_PRESET_TABLE: dict[str, Mapping[str, Any]] = {
    "seven_up": MappingProxyType(_SEVEN_UP),
    "all_fours": MappingProxyType(_ALL_FOURS),
    "trinidad": MappingProxyType(
        _SEVEN_UP
        | {
            "players": (2, 4),
            "direction": "ccw",
            "turnup_scores": {"A": 1, "6": 2, "J": 3},
            "run_turnup_scoring": "every_turnup",
            "gift_recipients": "beggar_side",
            "gift_block": "none",
            "discard_after_run": "none",
            "hang_jack_points": 3,
            "game_tie_rule": "nobody",
            "target_points": 14,
        }
    ),
    "blind_all_fours": MappingProxyType(
        _SEVEN_UP
        | {
            "trump_selection": "first_lead",
            "turnup_scores": {},
            "game_tie_rule": "nobody",
        }
    ),
    # A stock, an auction, the joker, the nine (docs/rules.md §4, RD1–RD30).
    "california_jack": MappingProxyType(_CALIFORNIA_JACK),
    "shasta_sam": MappingProxyType(_CALIFORNIA_JACK | {"stock_face_up": False}),
    "auction_pitch": MappingProxyType(_AUCTION_PITCH),
    "pitch_with_joker": MappingProxyType(
        _AUCTION_PITCH
        | {
            "players": (3, 4),
            "bid_max": 5,  # RD27
            "joker": True,
            "target_points": 10,
            "scoring_order": ("high", "low", "jack", "joker", "game"),
        }
    ),
    "don": MappingProxyType(_ALL_FOURS | {"scoring_order": ("high", "low", "jack", "nine", "game")}),
}
PRESETS: Mapping[str, Mapping[str, Any]] = MappingProxyType(_PRESET_TABLE)

DEFAULT_PRESET = "seven_up"
KNOBS = tuple(_SEVEN_UP)
#: The knobs that records of format ``allfours-record/1`` do not hold: read back, they take the
#: preset's values (none of those presets uses them).
_KNOBS_AFTER_RECORD_FORMAT_1 = ("stock_face_up", "bid_max", "dealer_may_hold", "joker", "joker_rank",
                                "joker_lead_trump")


@dataclasses.dataclass(frozen=True)
class Rules:
    """A complete, validated rules configuration for one game.

    Build it with :meth:`Rules.make`; the fields are the knobs of docs/rules.md §4 (the comment on each
    gives its id). ``players`` (K1) is the set of player counts the configuration allows and
    ``num_players`` the count of this game.
    """

    preset: str
    num_players: int
    players: tuple[int, ...]  # K1
    partnerships: bool  # K2
    direction: Direction  # K3
    trump_selection: TrumpSelection  # K4
    turnup_scores: tuple[tuple[str, int], ...]  # K5, as (rank, points) pairs
    run_turnup_scoring: RunTurnupScoring  # K6
    gift_points: int  # K7
    gift_recipients: GiftRecipients  # K7
    gift_block: GiftBlock  # K8
    exhausted_deck_rule: ExhaustedDeckRule  # K9
    discard_after_run: DiscardAfterRun  # K10
    high_rule: PointRule  # K11
    low_rule: PointRule  # K11
    jack_points: int  # K12
    hang_jack_points: int  # K12
    game_points: int  # K13
    game_tie_rule: GameTieRule  # K13
    target_points: int  # K14
    undertrump: Undertrump  # K15
    discards_in_play: bool  # K16
    hand_size: int  # R11
    scoring_order: tuple[PointKind, ...]  # R10
    stock_face_up: bool  # RD10 (stock_top)
    bid_max: int  # RD13 (auction)
    dealer_may_hold: bool  # RD14 (auction)
    joker: bool  # RD21
    joker_rank: JokerRank  # RD22
    joker_lead_trump: str  # RD23, a suit letter

    @classmethod
    def make(cls, preset: str = DEFAULT_PRESET, num_players: int = 2, **overrides: Any) -> Rules:
        """Return the rules of ``preset`` for ``num_players``, with knobs overridden by keyword."""
        if not isinstance(preset, str) or preset not in PRESETS:
            raise RulesError(
                f"unknown preset {preset!r}: choose one of {', '.join(sorted(PRESETS))}"
            )
        values = _with_overrides(dict(PRESETS[preset]), overrides, num_players)
        return cls(preset=preset, num_players=num_players, **_normalise(values))

    def __post_init__(self) -> None:
        _validate(self)
        for name, kind in KNOB_TYPES.items():  # the text a caller passed, as the member it names
            object.__setattr__(self, name, kind(getattr(self, name)))
        object.__setattr__(self, "scoring_order", tuple(PointKind(k) for k in self.scoring_order))

    def replace(self, **overrides: Any) -> Rules:
        """Return a copy with some knobs (or ``num_players``) changed, validated again."""
        values = self.to_dict()
        preset = values.pop("preset")
        num_players = overrides.pop("num_players", values.pop("num_players"))
        values = _with_overrides(values, overrides, num_players)
        return Rules(preset=preset, num_players=num_players, **_normalise(values))

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable dict of every knob (``turnup_scores`` as a dict)."""
        out = dataclasses.asdict(self)
        for name in KNOB_TYPES:
            out[name] = out[name].value
        out["turnup_scores"] = dict(self.turnup_scores)
        out["players"] = list(self.players)
        out["scoring_order"] = [kind.value for kind in self.scoring_order]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Rebuild rules from :meth:`to_dict`'s output (e.g. a game record); validates everything."""
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be a mapping of knob values, got {type(data).__name__}")
        fields = {f.name for f in dataclasses.fields(cls)}
        if data.get("preset") in PRESETS:  # a record of format 1 lacks the later knobs: their defaults
            data = {k: v for k, v in PRESETS[data["preset"]].items()
                    if k in _KNOBS_AFTER_RECORD_FORMAT_1} | dict(data)
        missing = sorted(fields - set(data))
        extra = sorted(set(data) - fields)
        if missing or extra:
            raise RulesError(
                f"rules dict does not match this version: missing {missing or 'nothing'}, "
                f"unknown {extra or 'nothing'}"
            )
        values = dict(data)
        preset, num_players = values.pop("preset"), values.pop("num_players")
        if preset not in PRESETS:
            raise RulesError(f"unknown preset {preset!r}: choose one of {', '.join(sorted(PRESETS))}")
        return cls(preset=preset, num_players=num_players, **_normalise(values))

    # Derived values the engine and the environment use.

    @property
    def num_sides(self) -> int:
        """How many sides score: the player count, or 2 with four players in partnerships (§1)."""
        return 2 if self.num_players == 4 and self.partnerships else self.num_players

    def side_of(self, seat: int) -> int:
        """The side of ``seat``: ``seat % 2`` in a 4-player partnership game, else the seat (§1)."""
        return seat % 2 if self.num_sides == 2 and self.num_players == 4 else seat

    @property
    def turnup_points(self) -> dict[str, int]:
        """K5 as a dict rank -> points."""
        return dict(self.turnup_scores)

    @functools.cached_property
    def plan(self) -> RulePlan:
        """What these rules mean for every consumer, derived once (:class:`allfours_env.plan.RulePlan`)."""
        from allfours_env.plan import RulePlan

        return RulePlan.of(self)


def _with_overrides(values: dict[str, Any], overrides: Mapping[str, Any], num_players: Any) -> dict[str, Any]:
    """``values`` (a complete configuration) with ``overrides`` applied, after checking that every
    override names a knob and changes something the configuration of ``num_players`` uses
    (docs/rules.md D12)."""
    unknown = sorted(set(overrides) - set(KNOBS))
    if unknown:
        raise RulesError(
            f"unknown knob{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}: "
            f"the knobs are {', '.join(KNOBS)}"
        )
    values = values | dict(overrides)
    selection = values["trump_selection"]
    for owner, knobs in KNOBS_BY_TRUMP_SELECTION.items():
        idle = sorted(knobs & set(overrides)) if selection != owner else []
        if idle:
            raise RulesError(
                f"knob {', '.join(idle)} has no effect with trump_selection={selection!r} "
                f"({_WHY_IDLE[owner]}): remove the override"
            )
    if "partnerships" in overrides and num_players in (2, 3):
        raise RulesError(f"knob partnerships has no effect with {num_players} players (only 4 players can "
                         f"play as two sides of partners, K2): remove the override")
    idle = sorted(JOKER_ONLY_KNOBS & set(overrides)) if values["joker"] is False else []
    if idle:
        raise RulesError(f"knob {', '.join(idle)} has no effect without the joker (joker=False): "
                         f"remove the override or set joker=True")
    return values


_WHY_IDLE = {
    TrumpSelection.TURNUP: "there is no turn-up, beg, gift or run",
    TrumpSelection.STOCK_TOP: "there is no stock to draw from",
    TrumpSelection.AUCTION: "there is no auction",
}


def _normalise(values: dict[str, Any]) -> dict[str, Any]:
    """Turn the friendly forms callers pass (dicts, lists) into the frozen field types."""
    out = dict(values)
    scores = out.get("turnup_scores")
    if isinstance(scores, Mapping):
        out["turnup_scores"] = tuple(sorted(scores.items(), key=lambda kv: RANKS.find(str(kv[0]))))
    for name in ("players", "scoring_order"):
        if isinstance(out.get(name), list):
            out[name] = tuple(out[name])
    return out


def _validate(rules: Rules) -> None:
    """Raise ``RulesError`` for the first knob value the engine cannot play (docs/rules.md §4)."""
    for name, allowed in CHOICES.items():
        value = getattr(rules, name)
        if value not in allowed:
            raise RulesError(
                f"{name}={value!r} is not allowed: choose one of {', '.join(map(repr, allowed))}"
            )
    players = rules.players
    if (
        not isinstance(players, tuple)
        or not players
        or not all(is_whole(p) and 2 <= p <= 4 for p in players)
    ):
        raise RulesError(f"players={players!r} must be a non-empty list of player counts from 2 to 4")
    if not is_whole(rules.num_players) or rules.num_players not in players:
        stock = rules.trump_selection == TrumpSelection.STOCK_TOP
        widen = ("a game with a stock is for 2 players only: the winner of a trick draws, then the loser, RD6"
                 if stock else "the knob players, K1, allows other counts")
        raise RulesError(
            f"preset {rules.preset!r} is played by {', '.join(map(str, players))} players, "
            f"not {rules.num_players!r} ({widen})"
        )
    for name in ("partnerships", "discards_in_play"):
        if not isinstance(getattr(rules, name), bool):
            raise RulesError(f"{name} must be True or False, got {getattr(rules, name)!r}")
    for name in ("gift_points", "jack_points", "hang_jack_points", "game_points"):
        value = getattr(rules, name)
        if not is_whole(value) or value < 0:
            raise RulesError(f"{name} must be a whole number of points >= 0, got {value!r}")
    if not is_whole(rules.target_points) or rules.target_points < 1:
        raise RulesError(f"target_points must be a whole number >= 1, got {rules.target_points!r}")
    if not isinstance(rules.turnup_scores, tuple) or not all(
        isinstance(pair, tuple)
        and len(pair) == 2
        and pair[0] in RANKS
        and len(pair[0]) == 1
        and is_whole(pair[1])
        and pair[1] > 0
        for pair in rules.turnup_scores
    ):
        raise RulesError(
            f"turnup_scores must map ranks ({' '.join(RANKS)}) to points > 0, e.g. {{'J': 1}}, "
            f"got {rules.turnup_scores!r}"
        )
    if len({rank for rank, _ in rules.turnup_scores}) != len(rules.turnup_scores):
        raise RulesError(f"turnup_scores names a rank twice: {rules.turnup_scores!r}")
    if not is_whole(rules.hand_size) or rules.hand_size not in (3, 6, 9):
        raise RulesError(
            f"hand_size must be 3, 6 or 9 (dealt in packets of 3, R11), got {rules.hand_size!r}"
        )
    order = rules.scoring_order
    kinds = SCORING_KINDS + OPTIONAL_SCORING_KINDS
    if (
        not isinstance(order, tuple)
        or len(set(order)) != len(order)
        or not set(SCORING_KINDS) <= set(order) <= set(kinds)
    ):
        raise RulesError(
            f"scoring_order must list each of {', '.join(SCORING_KINDS)} exactly once, and may add "
            f"{' and '.join(OPTIONAL_SCORING_KINDS)}; got {order!r}"
        )
    for name in ("stock_face_up", "dealer_may_hold", "joker"):
        if not isinstance(getattr(rules, name), bool):
            raise RulesError(f"{name} must be True or False, got {getattr(rules, name)!r}")
    if not is_whole(rules.bid_max) or not 1 <= rules.bid_max <= MAX_BID:
        raise RulesError(f"bid_max must be a whole number from 1 to {MAX_BID} (the bid actions), "
                         f"got {rules.bid_max!r}")
    if rules.joker and rules.trump_selection not in (TrumpSelection.AUCTION, TrumpSelection.FIRST_LEAD):
        raise RulesError(
            f"joker=True needs trump_selection 'auction' or 'first_lead' (the first card led fixes "
            f"trump), not {rules.trump_selection!r}"
        )
    if ("joker" in order) != rules.joker:
        raise RulesError(
            "scoring_order lists 'joker' exactly when the pack has the joker (joker=True): "
            f"joker={rules.joker}, scoring_order={order!r}"
        )
    if rules.trump_selection == TrumpSelection.STOCK_TOP and rules.num_players != 2:
        raise RulesError(
            f"trump_selection='stock_top' is played by 2 players (the winner of a trick draws, then "
            f"the loser, RD6), not {rules.num_players}"
        )
