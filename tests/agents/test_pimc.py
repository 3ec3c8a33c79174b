"""The PIMC bot: legal play everywhere, no peeking, determinism, tactics, and its options."""

import math
import random

import pytest

import agents.pimc as pimc_module
from agents import AgentError, make_agent
from agents.arena import play_game
from agents.pimc import AUTO_SAMPLES, AUTO_SETTINGS
from allfours_env import Game, Rules, str_to_action
from allfours_env.engine import stack_deck
from allfours_env.events import Phase
from allfours_env.knowledge import SeatView
from conftest import ALL_PRESET_PLAYERS, play, stacked_game

FAST = dict(samples=2, max_nodes=400)


@pytest.mark.parametrize("preset, num_players", ALL_PRESET_PLAYERS)
def test_pimc_plays_only_legal_actions_in_every_preset(preset, num_players):
    rules = Rules.make(preset, num_players, target_points=3)
    pimc = make_agent("pimc", seed=0, **FAST)
    rand = make_agent("random", seed=1)
    for seed in range(3):
        seats = [pimc if s % 2 == seed % 2 else rand for s in range(num_players)]
        game = play_game(rules, seats, seed=seed)  # play_game raises on any illegal action
        assert game.is_over


@pytest.mark.parametrize("preset, num_players", ALL_PRESET_PLAYERS)
def test_pimc_picks_a_legal_action_in_random_positions(preset, num_players):
    """Positions reached by random play in every phase (beg, gift/run, discard, play): PIMC's choice
    is always one of the engine's legal actions (whole games above cover fewer positions)."""
    rules = Rules.make(preset, num_players)
    pimc = make_agent("pimc", seed=0, **FAST)
    rng = random.Random(f"{preset}{num_players}")
    checked = 0
    # a turn-up or first-lead game needs whole games to meet every phase; two hands do elsewhere
    hands = 10**6 if rules.plan.turnup or rules.plan.trump_by_first_lead else 2
    for seed in range(4):
        game = Game(rules, seed=seed)
        while not game.is_over and game.hand_number < hands:
            legal = game.legal_actions()
            if len(legal) > 1 and rng.random() < 0.2:
                assert pimc.act(None, SeatView(game, game.current_player)) in legal
                checked += 1
            game.apply(rng.choice(legal))
    assert checked > 10


def test_pimc_decides_the_same_when_only_hidden_cards_differ():
    mine = "KC 4C AD KH 5S 3D".split()
    others = [c for c in (r + s for s in "CDHS" for r in "23456789TJQKA") if c not in mine + ["8C"]]
    rng = random.Random(0)
    decisions = []
    for _ in range(2):
        rng.shuffle(others)
        deck = stack_deck(2, 1, [mine, others[:6]], "8C", rest=others[6:])
        game = Game(Rules.make(), dealer=1, decks=[deck])
        agent = make_agent("pimc", seed=5, samples=6)
        choices = [agent.act(None, SeatView(game, 0))]
        game.apply(str_to_action("stand"))
        choices.append(agent.act(None, SeatView(game, 0)))
        decisions.append(choices)
    assert decisions[0] == decisions[1]


def test_pimc_bids_the_same_when_only_hidden_cards_differ_and_weights_deals_by_the_bids():
    """auction_pitch, 3 players: player_2 deals; player_0 and player_1 have bid; player_2's bid
    (and the weights of its sampled deals) depend on its hand and the public bids only."""
    from agents.pimc import BID_MISMATCH, PIMCAgent

    mine = "AH KH QH 2C 3D 4S".split()
    others = [c for c in (r + s for s in "CDHS" for r in "23456789TJQKA") if c not in mine]
    rng = random.Random(1)
    decisions, weights = [], []
    for _ in range(2):
        rng.shuffle(others)
        deck = stack_deck(3, 2, [others[:6], others[6:12], mine], rest=others[12:])
        game = Game(Rules.make("auction_pitch", 3), dealer=2, decks=[deck])
        game.apply(str_to_action("bid 2"))
        game.apply(str_to_action("pass"))
        view = SeatView(game, 2)
        decisions.append(make_agent("pimc", seed=5, samples=6, bids="search").act(None, view))
        worlds = [view.resample(random.Random(k)) for k in range(6)]
        weights.append([PIMCAgent._bids_weight(world, view) for world in worlds])
    assert decisions[0] == decisions[1]
    assert weights[0] == weights[1]  # the same resampled deals: only public facts shape the weights
    assert set(weights[0]) <= {1.0, BID_MISMATCH, BID_MISMATCH**2}


def test_pimc_keeps_the_heuristic_bid_unless_another_beats_it_by_the_evidence_margin():
    """The best of several noisy averages is biased upwards (pimc then overbids and is set back):
    another bid replaces the heuristic's only when its paired advantage over the same deals exceeds
    EVIDENCE standard errors."""
    from agents.heuristic import auction_bid
    from agents.pimc import PIMCAgent

    game = Game(Rules.make("auction_pitch", 2), seed=3)
    view = SeatView(game, game.current_player)
    legal = view.legal_actions()
    default = auction_bid(view, legal, view.high_bid)
    other = next(a for a in legal if a != default)

    def deals(gains):  # every deal weighted 1; ``other`` gains ``gain`` over the default there
        return [(1.0, {a: (gain if a == other else 0.0) for a in legal}) for gain in gains]

    choose = PIMCAgent._guarded_choice
    assert choose(default, legal, deals([3.0, -2.0, 2.5, -1.5, 1.0, -0.5])) == default  # noisy: +0.42
    assert choose(default, legal, deals([1.0, 1.2, 0.8, 1.1, 0.9, 1.0])) == other  # consistent: +1.0
    assert choose(default, legal, deals([-1.0] * 6)) == default


@pytest.mark.parametrize("seed", range(6))
def test_pimc_bids_as_the_heuristic_by_default(seed):
    from agents.heuristic import auction_bid

    game = Game(Rules.make("auction_pitch", 3), seed=seed)
    rng = random.Random(seed)
    while game.phase_name == "bid":
        view = SeatView(game, game.current_player)
        legal = view.legal_actions()
        assert make_agent("pimc", seed=seed).act(None, view) == auction_bid(view, legal, view.high_bid)
        game.apply(rng.choice(legal))


@pytest.mark.parametrize("seed", range(3))
def test_pimc_searches_the_bids_by_default_with_two_players(seed):
    """``bids="auto"``: with 2 players the bids are searched (the same decision as ``bids=search``),
    with 3 and 4 they are the heuristic bot's (the test above)."""
    game = Game(Rules.make("auction_pitch", 2), seed=seed)
    view = SeatView(game, game.current_player)
    assert make_agent("pimc").bid_mode(game.rules) == "search"
    assert make_agent("pimc").bid_mode(Rules.make("auction_pitch", 4)) == "heuristic"
    searched = make_agent("pimc", seed=seed, samples=6, bids="search").act(None, view)
    assert make_agent("pimc", seed=seed, samples=6).act(None, view) == searched


def test_pimc_rejects_an_unknown_bids_mode():
    with pytest.raises(ValueError, match="bids must be one of auto, heuristic, search, got 'magic'"):
        make_agent("pimc:bids=magic")


@pytest.mark.parametrize("preset, guarded", [("shasta_sam", True), ("california_jack", False)])
def test_pimc_guards_its_card_play_only_over_a_face_down_stock(preset, guarded):
    """With a face-down stock the rollouts' values are too noisy for a plain argmax (over 300
    shasta_sam games it lost to heuristic); the face-up stock keeps the plain argmax (71% won)."""
    from agents.pimc import PIMCAgent

    game = Game(Rules.make(preset, 2), seed=4)
    view = SeatView(game, game.current_player)
    assert view.phase_name == "play" and view.stock_size() > 0
    assert PIMCAgent._hidden_stock(view) is guarded


@pytest.mark.parametrize("mode, guarded", [("guarded", True), ("argmax", False)])
def test_pimc_hidden_stock_option_chooses_the_guard_or_the_plain_argmax(mode, guarded, monkeypatch):
    from agents.pimc import PIMCAgent

    calls = []
    choose = PIMCAgent._guarded_choice
    monkeypatch.setattr(PIMCAgent, "_guarded_choice",
                        staticmethod(lambda *args: calls.append(1) or choose(*args)))
    game = Game(Rules.make("shasta_sam", 2), seed=4)
    view = SeatView(game, game.current_player)
    action = make_agent(f"pimc:samples=2,hidden_stock={mode}", seed=1).act(None, view)
    assert action in view.legal_actions() and bool(calls) is guarded


def test_pimc_rejects_an_unknown_hidden_stock_mode():
    with pytest.raises(ValueError, match="hidden_stock must be one of guarded, argmax, got 'maybe'"):
        make_agent("pimc:hidden_stock=maybe")


def test_pimc_is_deterministic_for_a_seed():
    rules = Rules.make("seven_up", 3)
    records = []
    for _ in range(2):
        players = [make_agent("pimc", seed=3, **FAST), make_agent("random", seed=4),
                   make_agent("random", seed=5)]
        records.append(play_game(rules, players, seed=8).record())
    assert records[0] == records[1]


def test_pimc_captures_the_jack_when_it_can():
    game = stacked_game(hands=("KC 4C AD KH 5S 3D", "JC 2C TD TH AS QH"), turnup="8C")
    play(game, "1:stand", "1:play JC")
    choice = make_agent("pimc", seed=0, samples=8).act(None, SeatView(game, 0))
    assert choice == str_to_action("play KC")


def test_pimc_does_not_trump_its_partners_winning_ace():
    # 4 players, clubs trump. player_1 (my partner) leads AH; player_2 follows with a heart;
    # I (player_3) have no heart: I should throw a small card, not a trump.
    hands = ("9H 8D 7D 6S 5S 4S", "AH 2C 3D 4D 5D 6D", "2H 3S 7S 8S 9S TS", "QC 9C 2S 9D TD JD")
    game = stacked_game("seven_up", 4, hands=hands, turnup="5C")
    play(game, "1:stand", "1:play AH", "2:play 2H")
    choice = make_agent("pimc", seed=0, samples=8).act(None, SeatView(game, 3))
    assert choice not in (str_to_action("play QC"), str_to_action("play 9C"))


def test_pimc_rejects_bad_options():
    with pytest.raises(ValueError, match="samples"):
        make_agent("pimc", samples=0)
    with pytest.raises(ValueError, match="max_nodes"):
        make_agent("pimc", max_nodes=3)
    with pytest.raises(ValueError, match="time_budget"):
        make_agent("pimc", time_budget=-1)
    with pytest.raises(AgentError, match="does not take"):
        make_agent("pimc", depth=3)
    for belief in (1.5, -0.1, "sometimes", True):
        with pytest.raises(ValueError, match="gift_belief"):
            make_agent("pimc", gift_belief=belief)
    assert make_agent("pimc:samples=4,max_nodes=1000").samples == 4


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pimc_auto_settings_follow_the_player_count_and_explicit_options_win(players):
    rules = Rules.make("seven_up", players)
    auto_samples, auto_belief = AUTO_SETTINGS[players]
    assert make_agent("pimc").settings(rules) == (auto_samples, auto_belief)
    assert make_agent("pimc:samples=7").settings(rules) == (7, auto_belief)
    assert make_agent("pimc:gift_belief=none").settings(rules) == (auto_samples, None)
    auction = Rules.make("auction_pitch", players)
    assert make_agent("pimc").settings(auction)[0] == AUTO_SAMPLES["auction"][players]
    assert make_agent("pimc").settings(Rules.make("california_jack", 2))[0] == AUTO_SAMPLES["stock_top"][2]


def test_pimc_rejects_an_unknown_opponents_model():
    with pytest.raises(ValueError, match="opponents must be one of max_n, paranoid, got 'coalition'"):
        make_agent("pimc:opponents=coalition")
    with pytest.raises(ValueError, match="exact_cards"):
        make_agent("pimc", exact_cards=1)


@pytest.mark.parametrize("preset, players, opponents, max_n, exact", [
    ("auction_pitch", 4, "max_n", True, 12), ("auction_pitch", 3, "max_n", True, 9),
    ("auction_pitch", 4, "paranoid", False, 14), ("seven_up", 4, "max_n", False, 14),
    ("seven_up", 2, "max_n", False, 14)])
def test_pimc_solves_by_max_n_only_where_every_player_is_alone(preset, players, opponents, max_n, exact,
                                                               monkeypatch):
    """Max-n (each seat for itself) where there are more than two sides; alpha-beta with two sides
    (two players, partnerships), where it is the same; the paranoid coalition when asked for."""
    made = []
    real = pimc_module.HandSolver

    def spy(game, side, **options):
        made.append(options["max_n"])
        return real(game, side, **options)

    monkeypatch.setattr(pimc_module, "HandSolver", spy)
    agent = make_agent("pimc", seed=1, samples=2, opponents=opponents)
    game = Game(Rules.make(preset, players), seed=2, stop_after_hand=True)
    while not game.is_over and game.phase_name != "hand_over":  # one hand, pimc in every seat
        game.apply(agent.act(None, SeatView(game, game.current_player)))
    assert made and set(made) == {max_n}
    assert agent._exact_cards(Game(Rules.make(preset, players), seed=0)) == exact


def test_pimc_rejects_an_unknown_decision_mode():
    for option in ("beg", "gift", "pitch", "play"):
        with pytest.raises(ValueError, match=f"{option} must be one of search, guarded, heuristic, got 'x'"):
            make_agent(f"pimc:{option}=x")


@pytest.mark.parametrize("preset", ["seven_up", "blind_all_fours", "auction_pitch"])
def test_pimc_leaves_the_decisions_of_the_kinds_set_to_heuristic_to_the_heuristic(preset):
    """``beg=heuristic`` (and ``gift``, ``pitch``, ``play``): that kind of decision is the heuristic
    bot's own, for every position the kind covers — an ablation that swaps one kind at a time."""
    from agents.heuristic import HeuristicAgent

    heuristic = HeuristicAgent(seed=0)
    agent = make_agent("pimc:beg=heuristic,gift=heuristic,pitch=heuristic,play=heuristic", seed=0)
    checked = 0
    for seed in range(3):
        game = Game(Rules.make(preset, 2), seed=seed)
        rng = random.Random(seed)
        while not game.is_over and game.hand_number < 2:
            view = SeatView(game, game.current_player)
            legal = view.legal_actions()
            if len(legal) > 1 and view.phase_name in ("beg", "gift_or_run", "play"):
                assert agent.act(None, view) == heuristic.act(None, view)
                checked += 1
            game.apply(rng.choice(legal))
    assert checked > 20


def test_pimc_guarded_play_keeps_the_heuristic_card_unless_the_deals_clearly_favour_another(monkeypatch):
    """``play=guarded``: the heuristic's card stays unless another beats it over the same sampled
    deals by EVIDENCE standard errors of the paired difference; with ``play=search`` the plain
    argmax of the averages is played."""
    from agents.heuristic import HeuristicAgent
    from agents.pimc import PIMCAgent

    game = stacked_game(hands=("KC 4C AD KH 5S 3D", "JC 2C TD TH AS QH"), turnup="8C")
    play(game, "1:stand")
    view = SeatView(game, 1)
    legal = view.legal_actions()
    default = HeuristicAgent(seed=0).act(None, view)
    other = next(a for a in legal if a != default)
    gains = iter([])

    def deal_values(self, world, view, legal, side, gift_belief):  # ``other`` gains the next gain
        gain = next(gains)
        return {a: (gain if a == other else 0.0) for a in legal}

    monkeypatch.setattr(PIMCAgent, "_deal_values", deal_values)
    noisy, steady = [3.0, -2.0, 2.5, -1.5, 1.0, -0.5], [1.0, 1.2, 0.8, 1.1, 0.9, 1.0]
    for mode, values, expected in [("guarded", noisy, default), ("guarded", steady, other),
                                   ("search", noisy, other)]:
        gains = iter(values)
        assert make_agent(f"pimc:samples=6,play={mode}", seed=0).act(None, view) == expected


def _eldest_holding(game, cards):
    """``game`` with eldest (player_1) holding ``cards`` (text) instead, swapped with the stock."""
    from allfours_env.cards import cards_of, mask_of, parse_cards

    eldest = mask_of(parse_cards(cards))
    pool = game.hands[1] | mask_of(game.deck[game.pos:])
    assert eldest & pool == eldest
    return game.with_hidden_cards({1: eldest}, {1: 0}, cards_of(pool & ~eldest), seed=0)


@pytest.mark.parametrize("move, strong_weight, weak_weight", [
    ("stand", 1.0, "mismatch"), ("beg", "mismatch", 1.0)])
def test_pimc_model_beliefs_weight_a_deal_by_how_well_it_explains_eldests_stand_or_beg(
        move, strong_weight, weak_weight):
    """``beliefs=model``: eldest's stand (or beg) is evidence about eldest's cards. From the dealer's
    seat, a sampled deal in which the heuristic bot as eldest would have decided the same keeps its
    weight; one in which it would not is weighted DECISION_MISMATCH — a hand with the ace of trumps
    explains a stand, a hand without trumps a beg."""
    from agents.pimc import DECISION_MISMATCH, PIMCAgent

    game = stacked_game(hands=("KC 4C AD KH 5S 3D", "JC 2C TD TH AS QH"), turnup="8C")
    play(game, f"1:{move}")
    if move == "beg":
        play(game, "0:gift")
    agent = PIMCAgent(seed=0, beliefs="model")
    decisions = agent._hand_decisions(SeatView(game, 0))
    assert decisions == [(1, str_to_action(move))] + ([(0, str_to_action("gift"))] if move == "beg" else [])
    expected = {1.0: 1.0, "mismatch": DECISION_MISMATCH}
    strong = _eldest_holding(game, "AC JC QC 2C AS AH")
    weak = _eldest_holding(game, "3H 4H 5H 6S 7S 9S")
    assert agent._replay_weight(strong, 0, plays=False) == expected[strong_weight]
    assert agent._replay_weight(weak, 0, plays=False) == expected[weak_weight]
    assert agent._hand_decisions(SeatView(game, 1)) == ([] if move == "stand" else decisions)


def test_pimc_model_beliefs_ignore_the_decisions_of_a_hand_whose_cards_were_run():
    from agents.pimc import PIMCAgent

    game = stacked_game(hands=("KC 4C AD KH 5S 3D", "JC 2C TD TH AS QH"), turnup="8C",
                        runs=[(("2D 3H 4H", "5D 6D 7D"), "9H")])
    play(game, "1:beg", "0:run")
    assert PIMCAgent._hand_decisions(SeatView(game, 0)) == []


@pytest.mark.parametrize("preset, num_players", [
    ("auction_pitch", 4), ("pitch_with_joker", 4), ("trinidad", 4), ("seven_up", 3), ("all_fours", 2),
    ("blind_all_fours", 2)])
def test_pimc_play_beliefs_replay_the_hand_and_weigh_the_deal_by_the_plays_it_explains(
        preset, num_players):
    """``beliefs=plays``: a sampled deal is dealt again (runs and discards included) and the hand's
    decisions replayed — every one legal, so the deal is consistent with all the play. Against
    heuristic players the real deal explains every decision (weight 1); sampled deals that would
    have made a heuristic player play otherwise weigh DECISION_MISMATCH per such play."""
    from agents.heuristic import HeuristicAgent
    from agents.pimc import DECISION_MISMATCH, PIMCAgent

    rules = Rules.make(preset, num_players)
    agent, bot = PIMCAgent(seed=0, beliefs="plays"), HeuristicAgent(seed=0)
    rng = random.Random(preset)
    checked = lighter = 0
    for seed in range(2):
        game = Game(rules, seed=seed)
        while not game.is_over:
            view = SeatView(game, game.current_player)
            if game.trump >= 0 and game.hand_log() and rng.random() < 0.3:
                assert agent._replay_weight(game, view.seat, plays=True) == 1.0
                weight = agent._replay_weight(view.resample(rng), view.seat, plays=True)
                mismatches = round(math.log(weight) / math.log(DECISION_MISMATCH))
                assert weight == pytest.approx(DECISION_MISMATCH ** mismatches)
                checked += 1
                lighter += weight < 1.0
            game.apply(bot.act(None, view))
    assert checked > 20 and lighter > 0


def test_pimc_play_beliefs_keep_the_sampled_deals_that_explain_the_play(monkeypatch):
    """``beliefs=plays`` draws CANDIDATES deals per deal kept and keeps ``samples`` of them in
    proportion to their weights, each weighing 1: deals the heuristic players' cards rule out are
    kept less often than drawn."""
    from agents.heuristic import HeuristicAgent
    from agents.pimc import CANDIDATES, PIMCAgent

    rules = Rules.make("auction_pitch", 4)
    game, bot = Game(rules, seed=3), HeuristicAgent(seed=0)
    while len(game.trick_cards) != 3 or game.captured_points == [0] * 4:  # a trick or more played
        game.apply(bot.act(None, SeatView(game, game.current_player)))
    view = SeatView(game, game.current_player)
    agent = PIMCAgent(seed=0, beliefs="plays")
    weights = []
    real = PIMCAgent._replay_weight

    def spy(self, world, seat, plays, partner_plays=True):
        weights.append(real(self, world, seat, plays, partner_plays))
        return weights[-1]

    monkeypatch.setattr(PIMCAgent, "_replay_weight", spy)
    deals = agent._deals(view, 16)
    assert len(weights) == 16 * CANDIDATES and [w for w, _ in deals] == [1.0] * 16
    kept = [real(agent, world, view.seat, True) for _, world in deals]
    assert sum(kept) / len(kept) > sum(weights) / len(weights)


def test_pimc_opponent_beliefs_leave_out_the_partners_cards():
    """``beliefs=opponents``: a partner who plays unlike the heuristic bot (here at random) does not
    make the real deal lighter, as it does with ``beliefs=plays``; the opponents' cards still count —
    sampled deals that would have made a heuristic opponent play otherwise weigh less."""
    from agents.heuristic import HeuristicAgent
    from agents.pimc import PIMCAgent

    rules = Rules.make("trinidad", 4)
    agent, bot, seat = PIMCAgent(seed=0, beliefs="opponents"), HeuristicAgent(seed=0), 0
    partner = next(s for s in range(4) if s != seat and rules.side_of(s) == rules.side_of(seat))
    sampled = []
    for seed in range(3):
        game, rng = Game(rules, seed=seed), random.Random(seed)
        while not (game.phase == Phase.PLAY and game.current_player == seat and not game.trick_cards
                   and game.hand_log() and sum(h.bit_count() for h in game.hands) <= 16):
            if game.current_player == partner and game.phase == Phase.PLAY:
                game.apply(rng.choice(game.legal_actions()))
            else:
                game.apply(bot.act(None, SeatView(game, game.current_player)))
        assert agent._replay_weight(game, seat, plays=True, partner_plays=False) == 1.0
        assert agent._replay_weight(game, seat, plays=True) < 1.0
        view = SeatView(game, seat)
        sampled += [agent._replay_weight(view.resample(rng), seat, plays=True, partner_plays=False)
                    for _ in range(10)]
    assert sum(weight < 1.0 for weight in sampled) > len(sampled) / 2


def test_pimc_rejects_an_unknown_beliefs_mode():
    expected = "beliefs must be one of auto, uniform, model, plays, opponents, got 'psychic'"
    with pytest.raises(ValueError, match=expected):
        make_agent("pimc:beliefs=psychic")


@pytest.mark.parametrize(("preset", "players", "expected"), [
    ("seven_up", 2, "model"), ("seven_up", 3, "model"), ("auction_pitch", 3, "model"),
    ("trinidad", 4, "model"), ("don", 4, "model"),
    ("auction_pitch", 4, "plays"), ("pitch_with_joker", 4, "plays"),
])
def test_pimc_auto_beliefs_read_the_cards_played_where_four_play_alone(preset, players, expected):
    """``beliefs="auto"`` (the default) weighs the deals by the cards played where four players
    play each alone, by the stand/beg and gift/run with two sides (partnerships included) and three
    players; a named mode is kept in every game."""
    rules = Rules.make(preset, players)
    assert make_agent("pimc").belief_mode(rules) == expected
    assert make_agent("pimc:beliefs=uniform").belief_mode(rules) == "uniform"


def test_pimc_model_gift_belief_values_a_beg_by_the_answer_the_heuristic_dealer_gives_in_each_deal(
        monkeypatch):
    """``gift_belief=model``: in each sampled deal, begging is worth what the dealer's answer there —
    the heuristic bot's gift or run from the sampled dealer's hand — brings; no fixed probability."""
    from agents.heuristic import HeuristicAgent
    from agents.pimc import PIMCAgent

    calls = []
    real = PIMCAgent._value_after

    def spy(self, world, actions, side, solve=True):
        calls.append((world, list(actions)))
        return real(self, world, actions, side, solve)

    monkeypatch.setattr(PIMCAgent, "_value_after", spy)
    game = stacked_game(hands=("KC 4C AD KH 5S 3D", "JC 2C TD TH AS QH"), turnup="8C")
    make_agent("pimc:samples=16,gift_belief=model", seed=0).act(None, SeatView(game, 1))
    begs = [(world, actions[1]) for world, actions in calls if actions[0] == str_to_action("beg")]
    assert len(begs) == 16 and len(calls) == 32  # one stand and one answered beg per deal
    answers = set()
    for world, answer in begs:
        begged = world.copy()
        begged.apply(str_to_action("beg"))
        assert answer == HeuristicAgent(seed=0).act(None, SeatView(begged, 0))
        answers.add(answer)
    assert len(answers) == 2  # the sampled dealers differ: some give, some run
