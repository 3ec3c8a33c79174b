"""The information-state observation: one fixed-size float32 vector per seat, updated incrementally.

The vector is the same size (:data:`OBS_SIZE` = 749) for every preset and player count, so one
network can play all of them. It is **seat-relative** (relative seat ``k`` is the seat ``k`` places
after the observer in turn order; relative side ``k`` is the side of relative seat ``k`` — with four
players in partnerships relative side 0 is the observer's partnership and 1 the other) and has
**perfect recall** of the current hand: which card each seat played and in which trick, the
turn-ups, the bidding, the observer's own discards, the captured cards, and the voids play revealed.
It never holds what the seat cannot know: other hands, other players' discards, the stock order.

Card planes: 12 planes of 53 entries (card ids of :mod:`allfours_env.cards`, the last for the joker
of later presets), index ``plane * 53 + card``:

=======  ===========  ==================================================================
plane    indices      1 where the card …
=======  ===========  ==================================================================
0        0–52         is in my hand
1–4      53–264       was played to a trick this hand by relative seat 0..3 (0 = me)
5        265–317      is in the current, unfinished trick
6        318–370      was turned up this hand (never in play, R5)
7        371–423      was discarded by me this hand
8–10     424–582      was in a trick won by relative side 0..2 (0 = mine)
11       583–635      was played: value (trick number + 1) / 21, else 0
=======  ===========  ==================================================================

Scalars (all in [0, 1]):

=======  =====  ====================================================================
index    size   meaning
=======  =====  ====================================================================
636      7      phase one-hot: beg, gift_or_run, discard, play, game_over, hand_over, bid (reserved)
643      5      trump suit one-hot C D H S, then "no trump yet"
648      4      proposed trump suit one-hot (the suit of the last turn-up)
652      4      rejected suit one-hot (the suit eldest begged away from, once a run happened)
656      4      stood, begged, dealer gave, dealer ran
660      1      number of runs / 5
661      4      dealer, relative seat one-hot
665      4      eldest, relative seat one-hot
669      4      leader of the current trick (or next leader), relative seat one-hot
673      4      seat to move, relative seat one-hot (all 0 when nobody is to move)
677      3      score / target, relative side 0..2
680      3      points still needed / target, relative side 0..2
683      3      card points (R4) captured this hand / 80, relative side 0..2
686      4      cards in hand / 21, relative seat 0..3
690      4      cards discarded this hand / 15, relative seat 0..3
694      16     known void: relative seat ``k`` has no card of suit ``s`` (index 694 + 4k + s)
710      1      tricks completed this hand / 21
711      38     the rules (constant for an environment), see :func:`rules_features`
=======  =====  ====================================================================

Unused seats and sides (fewer than 4 players, partnerships) stay 0.
"""

from __future__ import annotations

import numpy as np

from allfours_env.actions import BEG, DISCARD_BASE, GIFT, PLAY_BASE, RUN, STAND
from allfours_env.cards import NUM_CARD_IDS, NUM_RANKS, RANKS
from allfours_env.engine import Game
from allfours_env.events import EventKind
from allfours_env.rules import Rules

MAX_TRICKS = 21  # 2 players, 6 cards + five runs of 3, no discarding (trinidad)
CARD_PLANES = 12
HAND, PLAYED_BY, TRICK, TURNUP, MY_DISCARD, CAPTURED, PLAY_ORDER = 0, 1, 5, 6, 7, 8, 11

PHASE = CARD_PLANES * NUM_CARD_IDS  # 636
TRUMP = PHASE + 7
PROPOSED = TRUMP + 5
REJECTED = PROPOSED + 4
BIDDING = REJECTED + 4
RUNS = BIDDING + 4
DEALER = RUNS + 1
ELDEST = DEALER + 4
LEADER = ELDEST + 4
TO_MOVE = LEADER + 4
SCORE = TO_MOVE + 4
NEEDED = SCORE + 3
CARD_POINTS = NEEDED + 3
HAND_SIZE = CARD_POINTS + 3
DISCARDS = HAND_SIZE + 4
VOIDS = DISCARDS + 4
TRICKS = VOIDS + 16
RULES = TRICKS + 1
RULES_SIZE = 38
OBS_SIZE = RULES + RULES_SIZE  # 749

_BIDDING_FLAG = {STAND: 0, BEG: 1, GIFT: 2, RUN: 3}
_ACT, _TRICK, _AWARD, _TURNUP, _TRUMP = (
    EventKind.ACT, EventKind.TRICK, EventKind.AWARD, EventKind.TURNUP, EventKind.TRUMP)
_PLAYED_BY_BASE = PLAYED_BY * NUM_CARD_IDS
_TRICK_BASE = TRICK * NUM_CARD_IDS
_ORDER_BASE = PLAY_ORDER * NUM_CARD_IDS
_MY_DISCARD_BASE = MY_DISCARD * NUM_CARD_IDS


def rules_features(rules: Rules) -> list[float]:
    """The 38 rule features: player count one-hot (2, 3, 4), partnerships, first-lead trump,
    target / 20, turn-up points by rank 2..A (13, / 3), every_turnup, gift points / 3, gift to the
    beggar's side only, gift block one-hot (non_beggar_3p, any_recipient_would_win, none), redeal
    void, no discarding, high captured, low captured, jack points / 3, hang jack points / 3, game
    points / 3, game tie one-hot (seven_up, nobody, non_dealer), under-trump banned,
    discards in play, hand size / 9. Values are clipped to 1."""
    turnup = rules.turnup_points

    def scaled(value: int, top: float) -> float:
        return min(value / top, 1.0)

    out = [float(rules.num_players == k) for k in (2, 3, 4)]
    out += [float(rules.partnerships), float(rules.trump_selection == "first_lead"),
            scaled(rules.target_points, 20)]
    out += [scaled(turnup.get(rank, 0), 3) for rank in RANKS]
    out += [float(rules.run_turnup_scoring == "every_turnup"), scaled(rules.gift_points, 3),
            float(rules.gift_recipients == "beggar_side")]
    out += [float(rules.gift_block == b) for b in ("non_beggar_3p", "any_recipient_would_win", "none")]
    out += [float(rules.exhausted_deck_rule == "redeal_void"), float(rules.discard_after_run == "none"),
            float(rules.high_rule == "captured"), float(rules.low_rule == "captured"),
            scaled(rules.jack_points, 3), scaled(rules.hang_jack_points, 3), scaled(rules.game_points, 3)]
    out += [float(rules.game_tie_rule == t) for t in ("seven_up", "nobody", "non_dealer")]
    out += [float(rules.undertrump == "banned_unless_no_choice"), float(rules.discards_in_play),
            scaled(rules.hand_size, 9)]
    return out


class SeatEncoder:
    """Keeps one seat's observation up to date by reading only the game-log events it has not yet
    seen, never rebuilding the vector from scratch: each event writes the few entries it changes."""

    __slots__ = ("seat", "n", "obs", "_mv", "_game", "_rules_block", "_rel_side", "_synced", "_hand",
                 "_phase", "_turn", "_trump_slot", "_led", "_trick_count", "_held", "_dropped", "_proposed",
                 "_rejected")

    def __init__(self, rules: Rules, seat: int) -> None:
        self.seat = seat
        self.n = rules.num_players
        self.obs = np.zeros(OBS_SIZE, dtype=np.float32)
        self._mv = memoryview(self.obs)  # item writes through a memoryview are cheaper than numpy's
        self._rules_block = np.asarray(rules_features(rules), dtype=np.float32)
        sides = [rules.side_of(s) for s in range(self.n)]
        order: list[int] = []  # absolute sides in the order of the relative seats that hold them
        for k in range(self.n):
            side = sides[(seat + k) % self.n]
            if side not in order:
                order.append(side)
        self._rel_side = [order.index(side) for side in sides]  # relative side of each seat
        self._game: Game | None = None

    def reset(self, game: Game) -> None:
        """Start following a new game."""
        self._game = game
        self.obs[:] = 0.0
        self.obs[RULES:] = self._rules_block
        self._synced = 0
        self._phase = -1
        self._turn = -1  # relative seat to move + 4 * relative leader, -1 for nobody
        self._new_hand(game.dealer)

    def _new_hand(self, dealer: int) -> None:
        obs, mv, n = self.obs, self._mv, self.n
        obs[:PHASE] = 0.0
        obs[TRUMP:RUNS + 1] = 0.0
        obs[DEALER:LEADER] = 0.0
        obs[CARD_POINTS:TRICKS + 1] = 0.0
        mv[TRUMP + 4] = 1.0
        mv[DEALER + (dealer - self.seat) % n] = 1.0
        mv[ELDEST + (dealer + 1 - self.seat) % n] = 1.0
        self._hand = 0
        self._led = -1
        self._trick_count = 0
        self._trump_slot = 4
        self._held = [0] * n
        self._dropped = [0] * n
        self._proposed = -1  # the suit in PROPOSED, -1 for none
        self._rejected = False  # whether REJECTED holds the first rejected suit

    def update(self) -> np.ndarray:
        """Bring the observation up to date with the game and return it (not a copy)."""
        game = self._game
        log = game.log
        start = self._synced
        end = len(log)
        if start == end:
            return self.obs
        sizes_dirty = scores_dirty = False
        if game.hand_log_start >= start:  # a new deal: only the events from it on matter
            start = game.hand_log_start
            self._new_hand(log[start][1])
            start += 1
            sizes_dirty = scores_dirty = True
        mv = self._mv
        seat, n = self.seat, self.n
        held = self._held
        for kind, who, value in log[start:end]:
            if kind == _ACT:
                rel = (who - seat) % n
                if value >= PLAY_BASE:  # a card played (P6): public
                    card = value - PLAY_BASE
                    mv[_PLAYED_BY_BASE + rel * NUM_CARD_IDS + card] = 1.0
                    mv[_TRICK_BASE + card] = 1.0
                    mv[_ORDER_BASE + card] = (self._trick_count + 1) / MAX_TRICKS
                    held[rel] -= 1
                    mv[HAND_SIZE + rel] = held[rel] / MAX_TRICKS
                    suit = card // NUM_RANKS
                    if self._led < 0:
                        self._led = suit
                    elif suit != self._led and suit != self._trump_slot:
                        # R3: neither followed nor trumped: void in the suit led
                        mv[VOIDS + 4 * rel + self._led] = 1.0
                elif value >= DISCARD_BASE:  # a discard (P5): only its count is public
                    if rel == 0:
                        mv[_MY_DISCARD_BASE + value - DISCARD_BASE] = 1.0
                    held[rel] -= 1
                    self._dropped[rel] += 1
                    mv[HAND_SIZE + rel] = held[rel] / MAX_TRICKS
                    mv[DISCARDS + rel] = self._dropped[rel] / 15
                else:
                    mv[BIDDING + _BIDDING_FLAG[value]] = 1.0
            elif kind == _TRICK:
                self._on_trick(who, value)
                mv[CARD_POINTS + self._rel_side[who]] = game.captured_points[game.sides[who]] / 80
            elif kind == _AWARD:
                scores_dirty = True
            elif kind == _TURNUP:
                self._on_turnup(value)
                sizes_dirty = True
            elif kind == _TRUMP:
                mv[TRUMP + self._trump_slot] = 0.0
                mv[TRUMP + value] = 1.0
                self._trump_slot = value
        self._synced = end
        self._sync_state(game, sizes_dirty, scores_dirty)
        return self.obs

    def _on_trick(self, winner: int, cards: int) -> None:
        mv = self._mv
        captured = (CAPTURED + self._rel_side[winner]) * NUM_CARD_IDS
        trick = TRICK * NUM_CARD_IDS
        while cards:
            low = cards & -cards
            card = low.bit_length() - 1
            mv[captured + card] = 1.0
            mv[trick + card] = 0.0
            cards ^= low
        self._trick_count += 1
        self._led = -1
        mv[TRICKS] = self._trick_count / MAX_TRICKS

    def _on_turnup(self, card: int) -> None:
        mv = self._mv
        mv[TURNUP * NUM_CARD_IDS + card] = 1.0
        proposed = self._proposed
        if proposed >= 0:  # a run's turn-up (P4)
            mv[RUNS] = mv[RUNS] + 0.2
            if not self._rejected:
                mv[REJECTED + proposed] = 1.0
                self._rejected = True
            mv[PROPOSED + proposed] = 0.0
        self._proposed = card // NUM_RANKS
        mv[PROPOSED + self._proposed] = 1.0

    def _sync_state(self, game: Game, sizes_dirty: bool, scores_dirty: bool) -> None:
        """Refresh what is read from the current state: own hand, phase, turn, and (when events
        said they changed) card counts and scores."""
        mv = self._mv
        seat, n = self.seat, self.n
        hand = game.hands[seat]
        diff = hand ^ self._hand
        while diff:
            low = diff & -diff
            mv[low.bit_length() - 1] = 1.0 if hand & low else 0.0
            diff ^= low
        self._hand = hand
        phase = game.phase
        if phase != self._phase:
            if self._phase >= 0:
                mv[PHASE + self._phase] = 0.0
            mv[PHASE + phase] = 1.0
            self._phase = phase
        mover = game.current_player
        turn = -1 if mover < 0 else (mover - seat) % n + 4 * ((mover - len(game.trick_cards) - seat) % n)
        if turn != self._turn:
            if self._turn >= 0:
                mv[TO_MOVE + self._turn % 4] = 0.0
                mv[LEADER + self._turn // 4] = 0.0
            if turn >= 0:
                mv[TO_MOVE + turn % 4] = 1.0
                mv[LEADER + turn // 4] = 1.0
            self._turn = turn
        if sizes_dirty:
            for k in range(n):
                other = (seat + k) % n
                self._held[k] = game.hands[other].bit_count()
                self._dropped[k] = game.discards[other].bit_count()
                mv[HAND_SIZE + k] = self._held[k] / MAX_TRICKS
                mv[DISCARDS + k] = self._dropped[k] / 15
        if scores_dirty:
            target = game.target
            for k in range(n):  # write each relative side once, from the first seat holding it
                side = game.sides[(seat + k) % n]
                rel = self._rel_side[(seat + k) % n]
                score = game.scores[side]
                mv[SCORE + rel] = min(score / target, 1.0)
                mv[NEEDED + rel] = max(target - score, 0) / target
                mv[CARD_POINTS + rel] = game.captured_points[side] / 80
