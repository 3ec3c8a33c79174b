"""What one configuration of the rules means for the batched core, as Python constants.

:func:`spec_of` reads ``rules.plan`` (:mod:`allfours_env.plan`) and the reference tables of
:mod:`allfours_env.scoring`, :mod:`allfours_env.cards` and :mod:`allfours_env.observation` once, at
``batched.make`` time; the jitted functions close over the result, so every rule flag is a constant
baked into the compiled code (no rule is looked up at run time). numpy only: no JAX here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from allfours_env.cards import (
    CARD_GAME_POINTS,
    JOKER,
    NUM_CARD_IDS,
    NUM_CARDS,
    RANK_OF,
    RANKS,
    SUIT_MASKS,
    SUIT_OF,
    jack_of,
    make_card,
)
from allfours_env.observation import MAX_TRICKS, rules_features, selection_and_pack_features
from allfours_env.rules import GameTieRule, GiftBlock, PointKind, Rules, TrumpSelection
from allfours_env.scoring import NINE_RANK, gift_recipients, strength_table, suit_orders

# How trump is chosen (K4), as small ints (the engine's numbering).
TURNUP, FIRST_LEAD, STOCK_TOP, AUCTION = range(4)
_SELECTIONS = {TrumpSelection.TURNUP: TURNUP, TrumpSelection.FIRST_LEAD: FIRST_LEAD,
               TrumpSelection.STOCK_TOP: STOCK_TOP, TrumpSelection.AUCTION: AUCTION}
# The hand's points after its last trick (R10), as small ints.
HIGH, LOW, JACK, GAME, NINE, JOKER_POINT = range(6)
_KINDS = {PointKind.HIGH: HIGH, PointKind.LOW: LOW, PointKind.JACK: JACK, PointKind.GAME: GAME,
          PointKind.NINE: NINE, PointKind.JOKER: JOKER_POINT}
# K13, K8 as small ints.
TIE_SEVEN_UP, TIE_NOBODY, TIE_NON_DEALER = range(3)
_TIES = {GameTieRule.SEVEN_UP: TIE_SEVEN_UP, GameTieRule.NOBODY: TIE_NOBODY,
         GameTieRule.NON_DEALER: TIE_NON_DEALER}
BLOCK_NONE, BLOCK_NON_BEGGAR_3P, BLOCK_ANY = range(3)
_BLOCKS = {GiftBlock.NONE: BLOCK_NONE, GiftBlock.NON_BEGGAR_3P: BLOCK_NON_BEGGAR_3P,
           GiftBlock.ANY_RECIPIENT_WOULD_WIN: BLOCK_ANY}

EPISODES = ("game",)
REWARDS = ("win", "points")


@dataclass(frozen=True, eq=False)
class Spec:
    """The constants of one configuration (see the module docstring). Arrays are numpy."""

    rules: Rules
    n: int
    num_sides: int
    sides: tuple[int, ...]
    target: int
    hand_size: int
    pack: int  # 52, or 53 with the joker (RD21)
    selection: int  # K4
    turnup_points: np.ndarray  # int32[53]: K5 by card
    every_turnup_scores: bool  # K6
    gift_points: int  # K7
    gift_recipients: tuple[tuple[int, ...], ...]  # K7, by dealer, in award order
    gift_block: int  # K8
    void_when_exhausted: bool  # K9
    discard_after_run: bool  # K10
    undertrump_banned: bool  # K15
    discards_in_play: bool  # K16
    scoring: tuple[tuple[int, bool], ...]  # R10, K11: (kind, to the captor)
    jack_points: int  # K12
    hang_jack_points: int  # K12
    game_points: int  # K13
    game_tie_rule: int  # K13
    joker: bool  # RD21
    joker_lead_suit: int  # RD23
    stock_face_up: bool  # RD10
    bid_max: int  # RD13
    dealer_may_hold: bool  # RD14
    reward_points: bool  # the AEC env's reward="points" (else "win")
    points_share: float  # with "win": the share of each award also paid as "points" pays it (training)
    max_hands: int | None  # the AEC env's hand cap
    loser_share: float
    strength: np.ndarray  # int32[4 trump, 4 led, 53]: R1, R2, RD22
    above: np.ndarray  # bool[5 trump + 1, 53, 53]: [t + 1, c, d] where d is of c's suit and ranks above it
    in_suit: np.ndarray  # bool[5 trump + 1, 53]: the cards that belong to a suit (the joker not before trump)
    rules_block: np.ndarray  # float32[38]
    rules2_block: np.ndarray  # float32[15]

    @property
    def partnerships(self) -> bool:
        return self.num_sides == 2 and self.n == 4


def spec_of(rules: Rules, *, reward: str, max_hands: int | None, points_share: float = 0.0) -> Spec:
    """The :class:`Spec` of ``rules`` with the AEC env's ``reward`` and ``max_hands`` (and the
    training's ``points_share``, :class:`~allfours_env.batched.env.Env`)."""
    plan = rules.plan
    n = rules.num_players
    sides = tuple(rules.side_of(s) for s in range(n))
    points_by_rank = rules.turnup_points
    turnup_points = np.array([points_by_rank.get(RANKS[RANK_OF[c]], 0) if c < NUM_CARDS else 0
                              for c in range(NUM_CARD_IDS)], dtype=np.int32)
    strength = np.array([[strength_table(trump, led, rules.joker_rank) for led in range(4)]
                         for trump in range(4)], dtype=np.int32)
    above_tables = _suit_order_tables(rules)
    above = above_tables[0]
    return Spec(
        rules=rules,
        n=n,
        num_sides=rules.num_sides,
        sides=sides,
        target=rules.target_points,
        hand_size=rules.hand_size,
        pack=NUM_CARD_IDS if rules.joker else NUM_CARDS,
        selection=_SELECTIONS[plan.trump_selection],
        turnup_points=turnup_points,
        every_turnup_scores=plan.every_turnup_scores,
        gift_points=rules.gift_points,
        gift_recipients=tuple(tuple(gift_recipients(rules, sides, d)) for d in range(n)),
        gift_block=_BLOCKS[rules.gift_block],
        void_when_exhausted=plan.void_when_exhausted,
        discard_after_run=plan.discard_after_run,
        undertrump_banned=plan.undertrump_banned,
        discards_in_play=rules.discards_in_play,
        scoring=tuple((_KINDS[kind], by_captor) for kind, by_captor in plan.scoring),
        jack_points=rules.jack_points,
        hang_jack_points=rules.hang_jack_points,
        game_points=rules.game_points,
        game_tie_rule=_TIES[rules.game_tie_rule],
        joker=rules.joker,
        joker_lead_suit=plan.joker_lead_suit,
        stock_face_up=plan.stock and not plan.stock_face_down,
        bid_max=rules.bid_max,
        dealer_may_hold=rules.dealer_may_hold,
        reward_points=reward == "points",
        points_share=float(points_share),
        max_hands=max_hands,
        loser_share=1.0 / (rules.num_sides - 1),
        strength=strength,
        above=above,
        in_suit=above_tables[1],
        rules_block=np.asarray(rules_features(rules), dtype=np.float32),
        rules2_block=np.asarray(selection_and_pack_features(rules), dtype=np.float32),
    )


def check_options(episode: Any, reward: Any, max_hands: Any) -> str:
    """The AEC env's ``episode``, ``reward`` and ``max_hands``, checked; returns the reward mode.
    Raises ``ValueError`` with one line naming what is not supported."""
    if episode not in EPISODES:
        raise ValueError(f"episode={episode!r} is not supported by the batched core: use 'game' "
                         f"(one episode per game; 'hand' episodes need the AEC env, allfours_env.env)")
    if reward is None:
        reward = "win"
    if reward not in REWARDS:
        raise ValueError(f"reward={reward!r} is not allowed: use 'win' or 'points'")
    if max_hands is not None and (not isinstance(max_hands, int) or isinstance(max_hands, bool)
                                  or max_hands < 1):
        raise ValueError(f"max_hands must be None or a whole number >= 1, got {max_hands!r}")
    return reward


# ---------------------------------------------------------------- card tables shared by all configurations

SUIT = np.array(SUIT_OF, dtype=np.int32)  # -1 for the joker
SUIT_OR_4 = np.where(SUIT < 0, 4, SUIT).astype(np.int32)  # the joker in a fifth "suit" of its own
CARD_POINTS = np.array(CARD_GAME_POINTS, dtype=np.int32)  # R4
SUIT_MEMBER = np.array([[(mask >> c) & 1 for c in range(NUM_CARD_IDS)] for mask in SUIT_MASKS], dtype=bool)
JACKS = np.array([jack_of(s) for s in range(4)], dtype=np.int32)
NINES = np.array([make_card(NINE_RANK, s) for s in range(4)], dtype=np.int32)
JOKER_ID = JOKER
#: PLAY_ORDER's value (observation plane 11) of a card played in trick ``k`` (0-based), as the
#: encoder writes it (float64 then float32).
ORDER_VALUE = np.array([min((k + 1) / MAX_TRICKS, 1.0) for k in range(32)], dtype=np.float32)


def _suit_order_tables(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~allfours_env.scoring.suit_orders` as tables by trump (-1 … 3, at index trump + 1):
    which cards rank above each card in its suit, and which cards belong to a suit."""
    above = np.zeros((5, NUM_CARD_IDS, NUM_CARD_IDS), bool)
    in_suit = np.zeros((5, NUM_CARD_IDS), bool)
    for trump in range(-1, 4):
        for order in suit_orders(trump, rules.joker, rules.joker_rank):
            for i, card in enumerate(order):
                above[trump + 1, card, list(order[:i])] = True
                in_suit[trump + 1, card] = True
    return above, in_suit


def ratios(denominator: int, size: int) -> np.ndarray:
    """float32[size]: ``k / denominator`` for ``k = 0 … size-1`` as the encoder writes it (Python's
    float64 division, then float32) — XLA's float32 division may differ in the last bit."""
    return (np.arange(size, dtype=np.float64) / denominator).astype(np.float32)


def runs_values(count: int = 16) -> np.ndarray:
    """The RUNS entry after ``k`` runs, as the encoder accumulates it (float32 plus 0.2, k times)."""
    out = np.zeros(count, dtype=np.float32)
    value = np.float32(0.0)
    for k in range(1, count):
        value = np.float32(float(value) + 0.2)
        out[k] = value
    return out


RUNS_VALUE = runs_values()
