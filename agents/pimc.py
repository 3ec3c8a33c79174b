"""Perfect-Information Monte-Carlo search (PIMC), the strong baseline.

For every decision with more than one legal action the agent draws ``samples`` deals consistent
with what its seat knows (:meth:`~allfours_env.knowledge.SeatView.resample`: other hands, others'
discards and the stock drawn uniformly, voids respected), values each legal action in each deal
with full information, and plays the action with the best average value for its side. A sampled
deal's log names the sampled hidden cards (:meth:`~allfours_env.engine.Game.with_hidden_cards`), so
a bot playing another seat in a rollout knows only what that seat would know in that deal.

**What the others' decisions tell** (``beliefs="model"``): in the beg-and-run presets a stand, a beg
and a gift say something about the cards behind them — eldest stands on a strong trump, the dealer
gives when the proposed suit suits it. Each sampled deal is weighted by how well it explains the
other seats' stand/beg and gift/run decisions of the hand: the hand is dealt again from the sampled
cards, the decisions replayed, and every one the heuristic bot (the model of the other players, as
in the rollouts) would not have made from its sampled hand multiplies the deal's weight by
:data:`DECISION_MISMATCH` — a soft model, so players unlike the heuristic bot leave every deal some
weight. Once the cards were run, the hands as dealt are gone and the deals keep equal weights.
``beliefs="uniform"`` weights every deal alike.

**What the others' cards tell** (``beliefs="plays"``; no stock): the same soft model extended to
the card play — every card another seat played with a choice (and its stand/beg, gift/run before a
run) that the heuristic bot would not have played from its sampled cards multiplies the deal's
weight by :data:`DECISION_MISMATCH`. The hand is dealt again from the cards each seat received
(after a run: its dealt cards and packets in any split, the turn-ups where they came) and replayed
to the decision. Such weights soon differ by powers of four, so :data:`CANDIDATES` times the deals
are drawn and ``samples`` of them kept by systematic resampling (each kept deal then weighs 1).

``beliefs="opponents"``: as ``"plays"``, but a partner's cards played do not count (its stand/beg and
gift/run still do). A partner is most often this bot itself, whose searched card play leaves the
heuristic bot's choice in about four decisions of ten: read as the heuristic bot's, each such card
would cut the weight of the real deal by :data:`DECISION_MISMATCH` and skew the belief about the
partner's hand, the one hand this seat plays with.

``beliefs="auto"`` (the default, :data:`AUTO_BELIEFS`): ``"plays"`` where four players play each
alone (auction_pitch, pitch_with_joker), where reading the cards played won more against the
heuristic bot; ``"model"`` with two sides (two players, partnerships: in trinidad 4p ``"plays"``
gained nothing in games) and with three players, where it is not measured (docs/bots.md).

* **Trick play**: the rest of the hand is solved exactly by :class:`~agents.solver.HandSolver`
  (scoring by the rules and the target). With two sides (two players, partnerships) by alpha-beta.
  With more sides (three or four players, each alone) by max-n (``opponents="max_n"``, the
  default): every seat plays the card best for its own side, instead of the other seats being
  assumed to play together against this one (``opponents="paranoid"``, the coalition of the older
  search; it fears sacrifices no real opponent makes).
* **Beg / stand** (eldest): standing is valued by solving the hand with the proposed trump; begging
  by what the dealer is expected to do. With ``gift_belief=None`` the dealer is modelled as
  choosing, across the sampled deals, whichever of gift and run is worse for eldest on average (a
  rational dealer); a number ``p`` instead expects a gift with probability ``p`` (real dealers, bots
  included, give more often than the worst case assumes); ``gift_belief="model"`` lets the dealer of
  each sampled deal answer as the heuristic bot would from its sampled hand, so a beg is worth what
  that answer brings in that deal.
* **Gift / run** (dealer): the gift is valued by its points plus the solved hand; the run by
  running the cards of each sampled deal (new turn-ups, their points, a thrown-in hand), letting
  every player discard by :func:`~agents.heuristic.discard_keep`, then solving.
* **Discards**: one card at a time, the card with the lowest
  :func:`~agents.heuristic.discard_keep` — the heuristic bot's static evaluation (high trumps, the
  jack, tens and aces are kept; a lone low card goes first).
* **Blind All Fours' first lead, the auction's pitch**: every candidate lead is valued by playing it
  (its suit becomes trump, P8, RD16) and playing the hand out.
* **Bids** (the auction presets): ``bids="search"`` values every legal bid (``pass``, ``bid k``, the
  dealer's ``hold``) in each sampled deal by making it, letting the later bidders bid and the pitcher
  pitch as the heuristic bot would, and playing the hand out with heuristic rollouts to its end (a
  perfect-information solve would overrate a contract), scored with the contract: the pitcher's
  points first or the setback (RD18). The deals are weighted by how well they explain the bids
  already made (the heuristic bot as the model of every bidder, :data:`BID_MISMATCH`). The best of a
  few noisy averages is biased upwards, so the heuristic's bid stays unless another beats it over the
  same deals by :data:`EVIDENCE` standard errors of the paired difference. ``bids="heuristic"`` is
  the heuristic bot's bid, :func:`~agents.heuristic.auction_bid`. ``bids="auto"`` (the default,
  :data:`AUTO_BIDS`) searches the bids with 2 players, where that won more games against the
  heuristic bot, and bids as the heuristic bot with 3 and 4, where searching gained nothing
  (auction_pitch 4p: 49.4% against 52.0% with the heuristic's bids on the same 504 games,
  docs/bots.md). The pitch and the card play are searched either way.
* **The stock** (california_jack, shasta_sam): the sampled deal fixes the stock's order (below a
  face-up top card, which stays), so each candidate card is valued by heuristic rollouts of every
  seat — 26 tricks are too deep to solve — until the stock is empty, then the last six tricks are
  solved exactly (at most twelve cards). Over a face-down stock (shasta_sam) the unknown order of
  the draws makes these values too noisy for a plain argmax with 8 deals, so there the heuristic's
  card stays unless another beats it by :data:`EVIDENCE` standard errors, as with the bids; with a
  face-up stock (california_jack) the plain argmax is played. ``hidden_stock="argmax"`` plays the
  plain argmax over a face-down stock too.

**One kind of decision at a time** (options ``beg``, ``gift``, ``pitch`` — the first lead that
fixes trump — and ``play``, the other cards): ``"search"`` plays the best average over the deals,
as above; ``"heuristic"`` leaves that kind of decision to the heuristic bot (an ablation: what the
search of that kind is worth); ``"guarded"`` keeps the heuristic bot's choice unless another action
beats it over the same deals by :data:`EVIDENCE` standard errors of the paired difference.

Values are points for the agent's side minus the other sides' mean, scored in ``scoring_order``
from the current scores: a deal where a side reaches the target is worth ±10 (win or loss), so the
search plays for the game, not just the hand.

Options: ``bids`` (the auction's bids only, ``"auto"``, ``"heuristic"`` or ``"search"``, see above; stand/beg
and gift/run follow the ``beg`` and ``gift`` options); ``beliefs`` (see above); ``samples``
(deals per decision) and ``gift_belief`` (see above), both ``"auto"`` by default,
which means :func:`auto_settings`: for the beg-and-run presets the settings of :data:`AUTO_SETTINGS`
for the game's number of players — 40 samples and the heuristic dealer's answer (``"model"``) with 2
players, 20 samples and 0.25 with 3 and 4 players, where a decision already takes longer; for a
stock or an auction :data:`AUTO_SAMPLES` (a rollout costs more than a solve, so fewer deals keep a
decision near 100 ms). ``max_nodes`` (node budget
per solve, default 40,000; past it the search deepens trick by trick and estimates the frontier),
``exact_cards`` (positions with at most this many cards in all hands are solved exactly, bigger
ones start with heuristic rollouts; ``"auto"``: :data:`EXACT_CARDS` (14) with alpha-beta, and
:data:`MAX_N_TRICKS` (3) tricks' cards with max-n — 12 at four players, 9 at three — since max-n
cannot prune and a 14-card max-n solve costs about six times the alpha-beta one), ``time_budget``
(seconds per decision; stops sampling early — results then depend on the machine's speed, so leave
it ``None`` for reproducible runs); ``opponents`` (``"max_n"`` or ``"paranoid"``, see trick play).
Deterministic for a given seed otherwise.

The measurements behind these choices (the settings, the bids, the guard over a face-down stock)
are in ``docs/training-notes.md``.
"""

from __future__ import annotations

import time

import numpy as np

from agents.base import Agent
from agents.heuristic import HeuristicAgent, auction_bid, discard_keep
from agents.solver import WIN, HandSolver
from allfours_env.actions import (
    BEG,
    DISCARDED_CARD,
    GIFT,
    PLAYED_CARD,
    RUN,
    STAND,
    discard_action,
    is_play,
    play_action,
)
from allfours_env.cards import card_str, cards_of
from allfours_env.engine import Game, stack_deck
from allfours_env.events import EventKind, Phase
from allfours_env.knowledge import SeatView
from allfours_env.rules import Rules, TrumpSelection
from allfours_env.scoring import high_bid_after, legal_bids

_MAX_STEPS = 500
AUTO = "auto"
MODEL = "model"  # gift_belief: in each sampled deal the dealer answers a beg as the heuristic bot would
# (samples, gift_belief) by number of players, for the options left at "auto" (module docstring).
AUTO_SETTINGS = {2: (40, MODEL), 3: (20, 0.25), 4: (20, 0.25)}
# Samples by trump selection and number of players where the game has no beg (a stock, an auction).
AUTO_SAMPLES = {TrumpSelection.STOCK_TOP: {2: 8}, TrumpSelection.AUCTION: {2: 20, 3: 16, 4: 16}}
BID_MISMATCH = 0.25  # weight of a sampled deal per bid the bidder model would not have made
#: Weight of a sampled deal per stand/beg, gift/run (or, with beliefs="plays", card) of another seat
#: that the model would not have made.
DECISION_MISMATCH = 0.25
#: The values of the ``beliefs`` option: how the sampled deals are weighted (module docstring).
BELIEF_MODES = (AUTO, "uniform", "model", "plays", "opponents")
#: The ``beliefs`` modes that read the cards played (module docstring).
PLAY_BELIEFS = ("plays", "opponents")
#: ``beliefs="auto"``: how the sampled deals are weighted, by number of sides (module docstring).
AUTO_BELIEFS = {2: "model", 3: "model", 4: "plays"}
HAND_DECISIONS = (STAND, BEG, GIFT, RUN)
#: ``beliefs="plays"``: deals drawn per deal kept, before the resampling by weight.
CANDIDATES = 3
EVIDENCE = 2.0  # standard errors by which an action must beat the heuristic's to replace it
BID_MODES = (AUTO, "heuristic", "search")  # the values of the ``bids`` option (module docstring)
#: ``bids="auto"``: how the auction's bids are made, by number of players (module docstring).
AUTO_BIDS = {2: "search", 3: "heuristic", 4: "heuristic"}
#: The values of the ``hidden_stock`` option: the card play over a face-down stock (module docstring).
HIDDEN_STOCK_MODES = ("guarded", "argmax")
#: The values of the ``opponents`` option: how the solver models the other sides where there are more
#: than two (module docstring); with two sides both are alpha-beta.
OPPONENT_MODELS = ("max_n", "paranoid")
#: The values of the ``beg``, ``gift``, ``pitch`` and ``play`` options: how a decision of that kind is
#: made (module docstring).
DECISION_MODES = ("search", "guarded", "heuristic")
#: ``exact_cards="auto"``: solve exactly from this many cards in all hands with alpha-beta, from this
#: many tricks (12 cards at four players, 9 at three) with max-n (module docstring).
EXACT_CARDS = 14
MAX_N_TRICKS = 3


def side_value(scores_before: list[int], game: Game, side: int) -> float:
    """The points ``side`` gained minus the others' mean since ``scores_before``, or ±WIN."""
    if game.phase == Phase.GAME_OVER:
        return WIN if game.winner == side else -WIN
    gained = [after - before for after, before in zip(game.scores, scores_before)]
    others = sum(gained) - gained[side]
    return gained[side] - others / (game.num_sides - 1)


def solve_position(game: Game, side: int, max_nodes: int,
                   max_n: bool | None = None) -> tuple[HandSolver, tuple]:
    """A solver for ``game`` (in trick play) and the current position in its terms. ``max_n``: a
    max-n search (every side for itself); ``None`` means max-n exactly where there are more than
    two sides (with two, max-n and alpha-beta agree and alpha-beta is faster)."""
    if max_n is None:
        max_n = game.num_sides > 2
    solver = HandSolver(game, side, max_nodes=max_nodes, max_n=max_n)
    n = game.n
    leader = game.trick_leader
    trick = [((leader + i) % n, card) for i, card in enumerate(game.trick_cards)]
    position = (list(game.hands), game.current_player, trick, list(game.captured),
                list(game.captured_points))
    return solver, position


def auto_settings(rules: Rules) -> tuple[int, float | str]:
    """The (samples, gift_belief) of the options left at ``"auto"`` (see the module docstring)."""
    samples, belief = AUTO_SETTINGS[rules.num_players]
    by_players = AUTO_SAMPLES.get(rules.trump_selection)
    if by_players is not None:
        samples = by_players.get(rules.num_players, min(by_players.values()))
    return samples, belief


class PIMCAgent(Agent):
    """Perfect-Information Monte-Carlo search (see the module docstring)."""

    name = "pimc"

    def __init__(
        self,
        seed: int | None = None,
        samples: int | str = AUTO,
        max_nodes: int = 40_000,
        time_budget: float | None = None,
        exact_cards: int | str = AUTO,
        gift_belief: float | str | None = AUTO,
        bids: str = AUTO,
        hidden_stock: str = "guarded",
        opponents: str = "max_n",
        beg: str = "search",
        gift: str = "search",
        pitch: str = "search",
        play: str = "search",
        beliefs: str = AUTO,
    ) -> None:
        super().__init__(seed)
        if beliefs not in BELIEF_MODES:
            raise ValueError(f"beliefs must be one of {', '.join(BELIEF_MODES)}, got {beliefs!r}")
        for option, mode in (("beg", beg), ("gift", gift), ("pitch", pitch), ("play", play)):
            if mode not in DECISION_MODES:
                raise ValueError(f"{option} must be one of {', '.join(DECISION_MODES)}, got {mode!r}")
        if bids not in BID_MODES:
            raise ValueError(f"bids must be one of {', '.join(BID_MODES)}, got {bids!r}")
        if hidden_stock not in HIDDEN_STOCK_MODES:
            raise ValueError(
                f"hidden_stock must be one of {', '.join(HIDDEN_STOCK_MODES)}, got {hidden_stock!r}")
        if opponents not in OPPONENT_MODELS:
            raise ValueError(
                f"opponents must be one of {', '.join(OPPONENT_MODELS)}, got {opponents!r}")
        if samples != AUTO and (not isinstance(samples, int) or samples < 1):
            raise ValueError(f"samples must be 'auto' or a whole number >= 1, got {samples!r}")
        if not isinstance(max_nodes, int) or max_nodes < 100:
            raise ValueError(f"max_nodes must be a whole number >= 100, got {max_nodes!r}")
        if time_budget is not None and not time_budget > 0:
            raise ValueError(f"time_budget must be None or seconds > 0, got {time_budget!r}")
        probability = isinstance(gift_belief, (int, float)) and not isinstance(gift_belief, bool)
        if gift_belief not in (AUTO, None, MODEL) and not (probability and 0.0 <= gift_belief <= 1.0):
            raise ValueError(
                "gift_belief must be 'auto', None (a rational dealer), 'model' (the dealer answers as "
                f"the heuristic bot would) or a probability 0..1, got {gift_belief!r}"
            )
        if exact_cards != AUTO and (not isinstance(exact_cards, int) or exact_cards < 2):
            raise ValueError(f"exact_cards must be 'auto' or a whole number >= 2, got {exact_cards!r}")
        self.samples = samples
        self.max_nodes = max_nodes
        self.time_budget = time_budget
        self.exact_cards = exact_cards
        self.gift_belief = gift_belief
        self.bids = bids
        self.hidden_stock = hidden_stock
        self.opponents = opponents
        self.beg, self.gift, self.pitch, self.play = beg, gift, pitch, play
        self.beliefs = beliefs
        self._rollout = HeuristicAgent(seed=seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._rollout.reset(seed)

    # ------------------------------------------------------------------ decisions

    def act(self, observation: dict[str, np.ndarray] | None, view: SeatView) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if view.phase == Phase.DISCARD:
            return self._discard(view, legal)
        if view.phase == Phase.BID and self.bid_mode(view.rules) == "heuristic":
            return auction_bid(view, legal, view.high_bid)
        mode = self._mode(view)
        if mode == "heuristic":
            return self._rollout.act(None, view)
        samples, gift_belief = self.settings(view.rules)
        side = view.rules.side_of(view.seat)
        deadline = None if self.time_budget is None else time.perf_counter() + self.time_budget
        per_deal: list[tuple[float, dict[int, float]]] = []  # (deal weight, value of each action)
        for weight, world in self._deals(view, samples):
            per_deal.append((weight, self._deal_values(world, view, legal, side, gift_belief)))
            if deadline is not None and time.perf_counter() > deadline:
                break
        if view.phase == Phase.BEG:
            per_deal = self._beg_deals(per_deal, gift_belief)
        if mode == "guarded":
            return self._guarded_choice(self._rollout.act(None, view), legal, per_deal)
        worlds, totals = 0.0, dict.fromkeys(legal, 0.0)
        for weight, values in per_deal:
            worlds += weight
            for action, value in values.items():
                totals[action] += weight * value
        best = max(round(totals[a] / worlds, 9) for a in legal)
        ties = [a for a in legal if round(totals[a] / worlds, 9) == best]
        return min(ties, key=lambda a: self._cost(a, view))

    def _deals(self, view: SeatView, samples: int) -> list[tuple[float, Game]]:
        """``samples`` sampled deals for this decision with their weights (``beliefs``, module
        docstring). With ``beliefs="plays"`` :data:`CANDIDATES` times as many deals are drawn and
        weighted, and ``samples`` of them are kept by systematic resampling, each weight 1."""
        others_bid = any(seat != view.seat for seat, _ in view.bids)
        beliefs = self.belief_mode(view.rules)
        plays = beliefs in PLAY_BELIEFS and not view.rules.plan.stock  # draws: no hand to deal again
        replay = plays or (beliefs == "model" and bool(self._hand_decisions(view)))
        deals = []
        for _ in range(samples * CANDIDATES if plays else samples):
            world = view.resample(self.rng)
            weight = self._bids_weight(world, view) if others_bid else 1.0
            if replay:
                weight *= self._replay_weight(world, view.seat, plays,
                                              partner_plays=beliefs != "opponents")
            deals.append((weight, world))
        if not plays:
            return deals
        step = sum(weight for weight, _ in deals) / samples
        point, reached, i, kept = self.rng.random() * step, deals[0][0], 0, []
        for _ in range(samples):
            while reached < point and i + 1 < len(deals):
                i += 1
                reached += deals[i][0]
            kept.append((1.0, deals[i][1]))
            point += step
        return kept

    def _mode(self, view: SeatView) -> str:
        """How this decision is made, one of :data:`DECISION_MODES`: the option of its kind (the
        ``beg``, ``gift``, ``pitch`` and ``play`` options; the searched bids and, with
        ``hidden_stock="guarded"``, a card over a face-down stock are guarded)."""
        phase = view.phase
        if phase == Phase.BID:
            return "guarded"
        if phase == Phase.BEG:
            return self.beg
        if phase == Phase.GIFT_OR_RUN:
            return self.gift
        if view.trump < 0:
            return self.pitch
        if self.play == "search" and self.hidden_stock == "guarded" and self._hidden_stock(view):
            return "guarded"
        return self.play

    def _deal_values(self, world: Game, view: SeatView, legal: tuple[int, ...], side: int,
                     gift_belief: float | str | None = None) -> dict[int, float]:
        """The value for ``side`` of each legal action in the sampled deal ``world``; at the beg, of
        standing and of each answer the dealer may give (:meth:`_beg_deals` makes the beg's), or with
        ``gift_belief="model"`` of begging, answered as the heuristic bot would in this deal."""
        if view.phase == Phase.PLAY and world.trump >= 0 and self._small(world):
            solver, position = self._solve_position(world, side)
            return {play_action(card): value for card, value in solver.solve(*position).items()}
        if view.phase == Phase.BEG:
            values = {STAND: self._value_after(world, [STAND], side)}
            if gift_belief == MODEL:
                begged = world.copy()
                begged.apply(BEG)
                answer = self._rollout.act(None, SeatView(begged, begged.current_player))
                values[BEG] = self._value_after(world, [BEG, answer], side)
                return values
            answers = [RUN] if view.gift_blocked_after_beg() else [GIFT, RUN]
            for answer in answers:
                values[answer] = self._value_after(world, [BEG, answer], side)
            return values
        solve = view.phase != Phase.BID  # a contract is played out by rollouts (module docstring)
        return {action: self._value_after(world, [action], side, solve=solve) for action in legal}

    @staticmethod
    def _beg_deals(per_deal: list[tuple[float, dict[int, float]]],
                   gift_belief: float | str | None) -> list[tuple[float, dict[int, float]]]:
        """Eldest's values of standing and begging in each deal, given how the dealer is expected to
        answer a beg (see ``gift_belief``); a blocked gift (K8) leaves only the run. A rational
        dealer (``None``) gives the answer worse for eldest over all the deals; with ``"model"`` each
        deal's value of begging is already there."""
        if gift_belief == MODEL:
            return per_deal
        answers = [a for a in (GIFT, RUN) if a in per_deal[0][1]]
        if len(answers) == 1:
            weights = {answers[0]: 1.0}
        elif gift_belief is None:
            worst = min(answers, key=lambda a: (sum(w * v[a] for w, v in per_deal), a))
            weights = {worst: 1.0}
        else:
            weights = {GIFT: gift_belief, RUN: 1.0 - gift_belief}
        return [(weight, {STAND: values[STAND],
                          BEG: sum(p * values[answer] for answer, p in weights.items())})
                for weight, values in per_deal]

    @staticmethod
    def _hidden_stock(view: SeatView) -> bool:
        """Whether this is a card to play while a face-down stock is left (shasta_sam): its values
        come from rollouts over the stock's unknown order, too noisy with a few deals for a plain
        argmax (module docstring)."""
        return view.phase == Phase.PLAY and view.rules.plan.stock_face_down and view.stock_size() > 0

    @staticmethod
    def _guarded_choice(default: int, legal: tuple[int, ...],
                        per_deal: list[tuple[float, dict[int, float]]]) -> int:
        """``default`` (the heuristic's action), unless another legal action beats it over the
        sampled deals by ``EVIDENCE`` standard errors of the weighted paired difference (the one
        with the best mean difference among those that do)."""
        weights = np.array([weight for weight, _ in per_deal])
        total = weights.sum()
        effective = total * total / float(np.square(weights).sum())  # Kish's effective sample size
        best, best_gain = default, 0.0
        for action in legal:
            if action == default:
                continue
            diff = np.array([values[action] - values[default] for _, values in per_deal])
            mean = float(weights @ diff) / total
            spread = float(weights @ np.square(diff - mean)) / total
            error = (spread / effective) ** 0.5
            if mean - EVIDENCE * error > 0 and mean > best_gain:
                best, best_gain = action, mean
        return best

    @staticmethod
    def _bids_weight(world: Game, view: SeatView) -> float:
        """How well a sampled deal explains the other players' bids (RD13): each bid that
        :func:`~agents.heuristic.auction_bid` would have made from the sampled hand counts 1, each
        other ``BID_MISMATCH`` — a soft model, so that bidders unlike the heuristic bot still leave
        every deal some weight."""
        rules, weight, high = view.rules, 1.0, 0
        for seat, action in view.bids:
            if seat != view.seat:
                legal = legal_bids(rules, high, seat == view.dealer)
                if auction_bid(SeatView(world, seat), legal, high) != action:
                    weight *= BID_MISMATCH
            high = high_bid_after(high, action)
        return weight

    @staticmethod
    def _hand_decisions(view: SeatView) -> list[tuple[int, int]]:
        """The stand/beg and gift/run decisions (seat, action) of this hand so far, if another seat
        made one of them and the cards were not run (after a run the hands as dealt, on which those
        decisions were made, are no longer known to a sampled deal); else ``[]``."""
        decisions = [(seat, action) for kind, seat, action in view.history()
                     if kind == EventKind.ACT and action in HAND_DECISIONS]
        if any(action == RUN for _, action in decisions):
            return []
        return decisions if any(seat != view.seat for seat, _ in decisions) else []

    def _replay_weight(self, world: Game, seat: int, plays: bool,
                       partner_plays: bool = True) -> float:
        """How well a sampled deal explains the other seats' decisions this hand: the hand is dealt
        again from the sampled cards (:meth:`_dealt_again`) and its decisions replayed, and each
        decision of another seat with a choice that the heuristic bot would not have made from its
        sampled cards multiplies the weight by :data:`DECISION_MISMATCH` — a soft model, as for the
        bids. The stand/beg and gift/run decisions count unless the cards were run (the hands they
        were made on are then gone: a sampled deal fixes only the cards each seat received); with
        ``plays`` (``beliefs="plays"``) the cards played count too, else the replay stops at them;
        without ``partner_plays`` (``beliefs="opponents"``) not those of this seat's partners."""
        past = self._dealt_again(world)
        side_of = world.rules.side_of
        side = side_of(seat)
        ran = len(world.turnups) > 1
        mismatches = 0
        for kind, who, action in world.hand_log():
            if kind != EventKind.ACT:
                continue
            decision = action in HAND_DECISIONS
            if not (plays or decision):
                break
            card_read = plays and is_play(action) and (partner_plays or side_of(who) != side)
            counted = card_read or (decision and not ran)
            if who != seat and counted and len(past.legal_actions()) > 1 \
                    and self._rollout.act(None, SeatView(past, who)) != action:
                mismatches += 1
            past.apply(action)
        return DECISION_MISMATCH ** mismatches

    @staticmethod
    def _dealt_again(world: Game) -> Game:
        """The current hand of ``world`` (no stock) dealt again from its cards, at the scores it was
        dealt at: each seat's cards received (in hand, played, discarded) split into the dealt hand and
        a packet of three per run (in card order: which were dealt first is not in the deal), the
        turn-ups where they came."""
        held = world.hands if world.start_hands is None else world.start_hands
        received = [[card_str(c) for c in cards_of(h | d)] for h, d in zip(held, world.discards)]
        size = world.rules.hand_size
        turnups = [card_str(c) for c in world.turnups]
        runs = [([cards[size + 3 * k: size + 3 * k + 3] for cards in received], turnup)
                for k, turnup in enumerate(turnups[1:])]
        scores = list(world.scores)
        for _, _, side, points in world.awards[world.hand_award_start:]:
            scores[side] -= points  # the scores when the hand was dealt
        deck = stack_deck(world.n, world.dealer, [cards[:size] for cards in received],
                          turnup=turnups[0] if turnups else None, runs=runs, joker=world.rules.joker)
        return Game(world.rules, dealer=world.dealer, decks=[deck], scores=scores)

    def settings(self, rules: Rules) -> tuple[int, float | str | None]:
        """The (samples, gift_belief) this agent uses in a game under ``rules``: its options, with
        those left at ``"auto"`` taken from :func:`auto_settings`."""
        auto_samples, auto_belief = auto_settings(rules)
        samples = auto_samples if self.samples == AUTO else self.samples
        belief = auto_belief if self.gift_belief == AUTO else self.gift_belief
        return samples, belief

    def bid_mode(self, rules: Rules) -> str:
        """How this agent bids in a game under ``rules``: its ``bids`` option, ``"auto"`` taken from
        :data:`AUTO_BIDS`."""
        return AUTO_BIDS[rules.num_players] if self.bids == AUTO else self.bids

    def belief_mode(self, rules: Rules) -> str:
        """How this agent weights its sampled deals in a game under ``rules``: its ``beliefs``
        option, ``"auto"`` taken from :data:`AUTO_BELIEFS` by the number of sides."""
        return AUTO_BELIEFS[rules.num_sides] if self.beliefs == AUTO else self.beliefs

    @staticmethod
    def _cost(action: int, view: SeatView) -> tuple[float, int]:
        """Among equally good actions prefer the cheapest: the card least worth keeping."""
        if is_play(action):
            return discard_keep(PLAYED_CARD[action], view.hand, view.trump), action
        return 0.0, action

    def _discard(self, view: SeatView, legal: tuple[int, ...]) -> int:
        hand, trump = view.hand, view.trump
        return min(legal, key=lambda a: (discard_keep(DISCARDED_CARD[a], hand, trump), a))

    # ------------------------------------------------------------------ valuing a deal

    def _solve_position(self, game: Game, side: int) -> tuple[HandSolver, tuple]:
        """:func:`solve_position` with this agent's node budget and model of the other sides."""
        return solve_position(game, side, self.max_nodes, max_n=self._max_n(game))

    def _small(self, game: Game) -> bool:
        """Whether the rest of the hand is small enough to solve exactly (all hands together; with a
        stock, once it is empty: the solver plays no draws)."""
        if game.pos < len(game.deck) and game.rules.plan.stock:
            return False
        return sum(h.bit_count() for h in game.hands) <= self._exact_cards(game)

    def _max_n(self, game: Game) -> bool:
        """Whether this agent solves ``game`` by max-n: more than two sides and ``opponents="max_n"``."""
        return game.num_sides > 2 and self.opponents == "max_n"

    def _exact_cards(self, game: Game) -> int:
        """The ``exact_cards`` option, or where it is ``"auto"``: :data:`EXACT_CARDS` for alpha-beta,
        :data:`MAX_N_TRICKS` tricks' cards for max-n (it cannot prune, so it starts later)."""
        if self.exact_cards != AUTO:
            return self.exact_cards
        return MAX_N_TRICKS * game.n if self._max_n(game) else EXACT_CARDS

    def _value_after(self, world: Game, actions: list[int], side: int, solve: bool = True) -> float:
        """Value for ``side`` of making ``actions`` in ``world``, then playing the hand out: discards
        by :func:`~agents.heuristic.discard_keep`; trick play by the heuristic bot for every seat
        until the hand is small enough, then solved exactly (with ``solve``; else played out by the
        heuristic bot to the end)."""
        game = world.copy()
        before = list(game.scores)
        deal = len(game.decks)
        for action in actions:
            game.apply(action)
        for _ in range(_MAX_STEPS):
            if game.phase in (Phase.GAME_OVER, Phase.HAND_OVER) or len(game.decks) != deal:
                return side_value(before, game, side)  # over, or thrown in (P4): no more to gain
            seat = game.current_player
            if game.phase == Phase.DISCARD:
                hand, trump = game.hands[seat], game.trump
                card = min(cards_of(hand), key=lambda c: (discard_keep(c, hand, trump), c))
                game.apply(discard_action(card))
            elif solve and game.phase == Phase.PLAY and game.trump >= 0 and self._small(game):
                scored = side_value(before, game, side)
                if abs(scored) >= WIN:
                    return scored
                solver, position = self._solve_position(game, side)
                value = solver.value(*position)
                return value if abs(value) >= WIN else scored + value
            elif game.phase in (Phase.PLAY, Phase.BID):  # the rest of the auction, the pitch, the tricks
                game.apply(self._rollout.act(None, SeatView(game, seat)))
            else:  # another decision before trick play: the gift/run of a beg we did not model
                raise AssertionError(f"unexpected phase {game.phase_name} while valuing a deal")
        raise AssertionError("valuing a deal did not finish the hand")
