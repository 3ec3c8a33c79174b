"""What a rules configuration means for play, derived once: :class:`RulePlan` (``rules.plan``).

:class:`~allfours_env.rules.Rules` holds the knobs as the user set them; the engine, the bots, the
observation, the renderers and the statistics need what follows from them — is a card turned up, is
there a stock and is it face down, may a follower under-trump, which cards score to their captor, in
which order a hand is scored. Each of those is decided here, once, so that no other module reads a
knob's value to work it out again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from allfours_env.rules import (
    SUITS_BY_LETTER,
    Direction,
    DiscardAfterRun,
    ExhaustedDeckRule,
    GiftRecipients,
    JokerRank,
    PointKind,
    PointRule,
    RunTurnupScoring,
    TrumpSelection,
    Undertrump,
)

if TYPE_CHECKING:
    from allfours_env.rules import Rules

#: The lowest score a side may start from: 0, or no floor where a setback can take it below (RD2).
NO_FLOOR = -(10**9)


@dataclass(frozen=True)
class RulePlan:
    """The consequences of one :class:`~allfours_env.rules.Rules` for play (build it with
    ``rules.plan``; every field is read-only)."""

    #: How trump is chosen (K4).
    trump_selection: TrumpSelection
    #: A card is turned up for trump: the beg, the gift and the run exist (P1–P5).
    turnup: bool
    #: The first card led fixes trump (blind all fours, the joker presets' first lead; P8).
    trump_by_first_lead: bool
    #: There is a stock the trick's winner and loser draw from (RD4–RD6).
    stock: bool
    #: The stock's top card is face down: nobody sees it before it is drawn (RD10).
    stock_face_down: bool
    #: Trump and the contract are chosen by an auction (RD13).
    auction: bool
    #: Play passes clockwise (K3).
    clockwise: bool
    #: A follower may not play a trump lower than the trick's best trump unless he has no choice (K15).
    undertrump_banned: bool
    #: Every card turned up while running scores for the dealer, not only one that sets trump (K6).
    every_turnup_scores: bool
    #: The gift scores for the beggar's side only (K7), not for every opponent of the dealer.
    gift_to_beggar_side: bool
    #: After a run every player discards down to the hand size (K10).
    discard_after_run: bool
    #: A deal that runs out while running is void and its points are lost (K9).
    void_when_exhausted: bool
    #: The hand's points after its last trick, in scoring order (R10), each with whether it goes to
    #: the side that captured its card (K11 ``captured``; the jack, nine and joker are their own rules).
    scoring: tuple[tuple[PointKind, bool], ...]
    #: High and Low score for their captor, not their holder (K11).
    high_by_captor: bool
    low_by_captor: bool
    #: The nine of trumps (RD28) and the joker (RD25) are points of the hand.
    scores_nine: bool
    scores_joker: bool
    #: The pack has the joker (RD21), which then ranks lowest of the trumps (RD22) or second highest.
    joker: bool
    joker_rank: JokerRank
    joker_ranks_lowest: bool
    #: The suit the joker makes trump when it is the first card of a hand (RD23).
    joker_lead_suit: int
    #: The lowest starting score of a side (0, or :data:`NO_FLOOR` where setbacks exist, RD2).
    score_floor: int

    @classmethod
    def of(cls, rules: Rules) -> RulePlan:
        """The plan of ``rules`` (``rules.plan`` caches it)."""
        selection = rules.trump_selection
        stock = selection is TrumpSelection.STOCK_TOP
        auction = selection is TrumpSelection.AUCTION
        captured = {PointKind.HIGH: rules.high_rule is PointRule.CAPTURED,
                    PointKind.LOW: rules.low_rule is PointRule.CAPTURED}
        return cls(
            trump_selection=selection,
            turnup=selection is TrumpSelection.TURNUP,
            trump_by_first_lead=selection is TrumpSelection.FIRST_LEAD,
            stock=stock,
            stock_face_down=stock and not rules.stock_face_up,
            auction=auction,
            clockwise=rules.direction is Direction.CW,
            undertrump_banned=rules.undertrump is Undertrump.BANNED_UNLESS_NO_CHOICE,
            every_turnup_scores=rules.run_turnup_scoring is RunTurnupScoring.EVERY_TURNUP,
            gift_to_beggar_side=rules.gift_recipients is GiftRecipients.BEGGAR_SIDE,
            discard_after_run=rules.discard_after_run is DiscardAfterRun.TO_HAND_SIZE,
            void_when_exhausted=rules.exhausted_deck_rule is ExhaustedDeckRule.REDEAL_VOID,
            scoring=tuple((kind, captured.get(kind, False)) for kind in rules.scoring_order),
            high_by_captor=captured[PointKind.HIGH],
            low_by_captor=captured[PointKind.LOW],
            scores_nine=PointKind.NINE in rules.scoring_order,
            scores_joker=PointKind.JOKER in rules.scoring_order,
            joker=rules.joker,
            joker_rank=rules.joker_rank,
            joker_ranks_lowest=rules.joker and rules.joker_rank is JokerRank.LOWEST,
            joker_lead_suit=SUITS_BY_LETTER[rules.joker_lead_trump],
            score_floor=NO_FLOOR if auction else 0,
        )
