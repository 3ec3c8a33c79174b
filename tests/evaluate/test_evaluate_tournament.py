"""evaluate's duplicate schedule, checked from the games actually played; determinism across worker
counts; interruption; the Python API."""

from __future__ import annotations

import random
import sys
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.base import Agent
from allfours_env import Game, Rules, replay, str_to_action
from conftest import FailingAgent
from evaluate import Tournament, TournamentError, run_tournament
from evaluate.games import GroupPlayer, contracts_of
from evaluate.report import game_rows
from evaluate.schedule import deal_group, first_copies, make_tables, seatings


class FirstLegal(Agent):
    """Always the lowest legal action id: recognisable in a record."""

    name = "first"

    def act(self, observation, view):
        return min(view.legal_actions())


class LastLegal(Agent):
    """Always the highest legal action id."""

    name = "last"

    def act(self, observation, view):
        return max(view.legal_actions())


def test_seatings_cover_every_side_equally():
    assert seatings((0, 1), 2) == [(0, 1), (1, 0)]
    assert len(seatings((0, 1, 2), 3)) == 6  # every permutation
    two_at_three = seatings((0, 1), 3)
    assert len(two_at_three) == 6  # AAB ABA BAA ABB BAB BBA
    for seats in (two_at_three, seatings((0, 1, 2), 3), seatings((0, 1), 4)):
        agents = sorted(set(seats[0]))
        for side in range(len(seats[0])):
            counts = Counter(s[side] for s in seats)
            assert len({counts[a] for a in agents}) == 1


def test_copies_of_one_agent_are_seated_once_per_arrangement():
    """A candidate against three copies of one bot at four sides plays 4 seatings (itself at each
    side), not the 24 permutations of four distinct agents: swapping two copies replays the game."""
    first = first_copies(["ppo:m.npz", "heuristic", "heuristic", "heuristic"], 4)
    assert first == (0, 1, 1, 1)
    seats = seatings((0, 1, 2, 3), 4, first)
    assert [seating.index(0) for seating in seats] == [0, 1, 2, 3]
    assert len(seatings((0, 1, 2, 3), 4)) == 24  # four different agents
    assert len(seatings((0, 1, 2), 3, first_copies(["a", "b", "b"], 3))) == 3  # ABB BAB BBA
    # a pairing of copies (is the noise as small as it should be?) and agent objects keep their seats
    assert first_copies(["random", "random"], 2) == (0, 1)
    assert first_copies(["<SnapshotAgent learner>", "<SnapshotAgent learner>", "random"], 3) == (0, 1, 2)


def test_a_candidate_against_copies_plays_different_games():
    """Every game of a deal group seats the candidate at another side; none is a replay."""
    result = run_tournament(["heuristic", "random", "random", "random"], preset="auction_pitch", players=4,
                            games=8, seed=2)
    assert [len(table.seatings) for table in result.tables] == [4] and len(result.games) == 8
    for group in (0, 1):
        games = [g for g in result.games if g.group == group]
        assert sorted(g.sides.index(0) for g in games) == [0, 1, 2, 3]


def test_tables_games_and_numbering():
    tables = make_tables(3, 2, games=5, table_size=2)
    assert [t.agents for t in tables] == [(0, 1), (0, 2), (1, 2)]
    assert [t.games for t in tables] == [6, 6, 6]  # rounded up to whole deal groups
    assert [t.first_game for t in tables] == [0, 6, 12]
    assert tables[1].game_index(2, 1) == 11
    focus = make_tables(3, 2, games=4, table_size=2, schedule="first-vs-rest")
    assert [t.agents for t in focus] == [(0, 1), (0, 2)]


def test_deal_group_extends_without_changing_its_start():
    dealer, short = deal_group(7, 3, 4, 2)
    dealer_again, long = deal_group(7, 3, 4, 5)
    assert dealer == dealer_again and long[:2] == short
    assert deal_group(7, 4, 4, 2)[1] != short


@pytest.mark.parametrize(("players", "agents", "per_group"), [(2, 2, 2), (4, 2, 2), (3, 2, 6), (3, 3, 6)])
def test_seat_rotation_on_the_same_deals(players, agents, per_group):
    """From the records: within a deal group every game has the same packs and first dealer, and
    every agent sits in every seat equally often; each seat is played by its scheduled agent."""
    bots = [FirstLegal(), LastLegal(), FirstLegal()][:agents]
    if agents == 3:
        bots[2].name = "first-b"
    result = run_tournament(bots, players=players, games=2 * per_group, seed=3, records=True)
    rules = result.rules
    assert len(result.games) == result.planned_games == 2 * per_group * len(result.tables)
    seat_counts: Counter = Counter()
    by_group: dict = {}
    for game in result.games:
        record = game.record
        seats = [game.sides[rules.side_of(s)] for s in range(players)]
        for seat, agent in enumerate(seats):
            seat_counts[agent, seat] += 1
        if players == 4:
            assert seats[0] == seats[2] and seats[1] == seats[3]  # partners: one agent, both seats
        key = (game.table, game.group)
        decks = [d["deck"] for d in record["deals"]]
        first = by_group.setdefault(key, (record["first_dealer"], decks))
        assert record["first_dealer"] == first[0]
        common = min(len(decks), len(first[1]))
        assert decks[:common] == first[1][:common]
        _check_decisions(record, seats, [bot.name for bot in bots], result.labels)
        assert replay(record).scores == list(game.scores)
    assert all(len([g for g in result.games if (g.table, g.group) == k]) == per_group for k in by_group)
    for agent in range(agents):
        counts = {seat_counts[agent, seat] for seat in range(players)}
        assert len(counts) == 1 and counts != {0}


def _check_decisions(record, seats, names, labels):
    """Replay ``record`` and check every decision is the one its scheduled agent makes."""
    game = Game(Rules.from_dict(record["rules"]), seed=0, dealer=record["first_dealer"],
                decks=[d["deck"] for d in record["deals"]])
    for seat, text in record["decisions"]:
        legal = game.legal_actions()
        kind = labels[seats[seat]]
        expected = max(legal) if kind == "last" else min(legal)
        assert str_to_action(text) == expected
        game.apply(expected)


@pytest.mark.parametrize(("players", "games", "table_size"), [(3, 12, 3), (2, 40, 2), (3, 24, 2)])
def test_same_results_whatever_the_number_of_workers(players, games, table_size):
    kwargs = dict(preset="seven_up", players=players, games=games, seed=11, table_size=table_size)
    one = run_tournament(["random", LastLegal(), "random"], workers=1, **kwargs)
    two = run_tournament(["random", LastLegal(), "random"], workers=2, **kwargs)
    assert two.workers == 2 and len(one.games) == one.planned_games
    assert one.summary() == two.summary()
    assert game_rows(one) == game_rows(two)


def test_game_results_do_not_depend_on_packs_offered():
    """A game that runs out of the packs it was handed is replayed with more: same result."""
    rules = Rules.make("all_fours", 3)
    tables = make_tables(2, 3, games=6, table_size=2)
    tight = GroupPlayer(rules, ["random", "random"], 5, tables)
    tight._decks_hint = 1
    roomy = GroupPlayer(rules, ["random", "random"], 5, tables)
    roomy._decks_hint = 40
    for group in range(3):
        assert tight.play_group(0, group) == roomy.play_group(0, group)


def test_ctrl_c_keeps_finished_deal_groups():
    result = run_tournament([FailingAgent(stop=5, error=KeyboardInterrupt), "random"], games=20, seed=0)
    assert result.interrupted
    # games 1-5 finished; the 6th completed no deal group, so groups 0 and 1 (4 games) are used
    assert len(result.games) == 4 and [g.index for g in result.games] == [0, 1, 2, 3]
    summary = result.summary()
    assert summary["games_used"] == 4 and summary["deal_groups_used"] == 2
    assert result.to_dict()["run"]["interrupted"] is True


def test_a_failing_game_raises_naming_the_game():
    with pytest.raises(RuntimeError, match="agent crashed") as caught:
        run_tournament([FailingAgent(stop=5), "random"], games=20, seed=3)
    assert caught.value.__notes__ == ["in game 5: table 0, deal group 2, seating 1, tournament seed 3"]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_game_can_stop_the_run_keeping_finished_deal_groups(workers):
    tournament = Tournament([FailingAgent(stop=5), "random"], games=20, seed=3)
    result = tournament.run(workers=workers, on_error="stop")
    assert result.error.startswith("RuntimeError: agent crashed (in game ") and not result.interrupted
    if workers == 1:  # one agent object plays the games in order: games 0-4 finish, 5 fails
        assert result.error.endswith("(in game 5: table 0, deal group 2, seating 1, tournament seed 3)")
        assert [g.index for g in result.games] == [0, 1, 2, 3]
    groups = {g.group for g in result.games}
    assert result.summary()["deal_groups_used"] == len(groups) < 10
    assert result.to_dict()["run"]["error"] == result.error


def test_on_error_is_checked():
    with pytest.raises(TournamentError, match="unknown on_error 'ignore': choose one of raise, stop"):
        Tournament(["random", "random"], games=2).run(on_error="ignore")


def test_api_accepts_labels_and_agent_objects():
    result = run_tournament({"mine": LastLegal(), "rand": "random"}, games=6, seed=1)
    assert result.labels == ["mine", "rand"]
    assert result.result_for("mine", "rand")["games"] == 6
    assert result.win_rate("mine", "rand") + result.win_rate("rand", "mine") == pytest.approx(1)
    with pytest.raises(KeyError):
        result.win_rate("mine", "nobody")


def test_duplicate_labels_are_numbered():
    result = run_tournament(["random", "random"], games=2, seed=0)
    assert result.labels == ["random", "random#2"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(agents=["random"]), "at least two agents"),
        (dict(agents=["random", "nosuch"]), "unknown agent 'nosuch'"),
        (dict(agents=["random", "ppo:nope.zip"]), "model file 'nope.zip' not found"),
        (dict(agents=["random", "random"], games=0), "games must be"),
        (dict(agents=["random", "random"], preset="trinidad", players=3), "not 3"),
        (dict(agents=["random", "random"], workers=0), "workers must be"),
        (dict(agents=["random", "random", "random"], players=3, table_size=4), "table size"),
        (dict(agents=["random", "random"], knobs={"target_points": 0}), "target_points"),
    ],
)
def test_bad_input_raises_one_clear_error(kwargs, message):
    agents = kwargs.pop("agents")
    with pytest.raises(TournamentError, match=message):
        run_tournament(agents, **kwargs)


def test_unpicklable_agent_object_needs_one_worker():
    agent = LastLegal()
    agent.hook = lambda: None  # lambdas do not pickle
    with pytest.raises(TournamentError, match="cannot be sent to worker processes"):
        run_tournament([agent, "random"], games=4, workers=2)
    assert len(run_tournament([agent, "random"], games=4, workers=1).games) == 4


def test_a_billion_games_are_streamed_not_listed():
    """The schedule of a huge tournament is generated as it is played: starting one holds a few
    tables, not a list of its deal groups (the memory peak stays far below one entry per group)."""
    import tracemalloc

    tracemalloc.start()
    try:
        result = run_tournament([FailingAgent(stop=5, error=KeyboardInterrupt), "random"],
                                games=1_000_000_000, seed=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.interrupted and result.planned_games == 1_000_000_000
    assert [g.index for g in result.games] == [0, 1, 2, 3]
    assert peak < 20_000_000  # bytes; a list of 500 million groups would need tens of gigabytes


def test_worker_pool_takes_deal_groups_from_the_stream_as_it_hands_them_out():
    import itertools

    from evaluate.parallel import run_in_pool

    rules = Rules.make("seven_up", 2)
    tables = make_tables(2, 2, games=2 * 10**12, table_size=2)
    taken = []

    def stream():
        for group in itertools.count():
            taken.append(group)
            yield 0, group

    def on_games(games):
        raise KeyboardInterrupt  # stop at the first chunk back, as Ctrl-C would

    interrupted = run_in_pool((rules, ["random", "random"], 0, tables, False), stream(), tables[0].groups,
                              2, on_games)
    assert interrupted and 0 < len(taken) <= 8  # the first chunks only: nothing listed up front


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       preset_players=st.sampled_from([("auction_pitch", 2), ("auction_pitch", 4), ("pitch_with_joker", 3)]))
def test_contracts_agree_with_the_engines_own_pitcher_contract_and_setbacks(seed, preset_players):
    """contracts_of reads the auctions back from the log; the engine's live state says the same."""
    preset, players = preset_players
    rules = Rules.make(preset, players)
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    contracts = {}  # deal -> (pitcher's side, contract), as the engine held them during play
    while not game.is_over and game.hand_number < 12:
        if game.phase_name == "play":
            contracts[len(game.decks) - 1] = (rules.side_of(game.pitcher), game.contract)
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    set_back = {(award.deal, award.side) for award in game.awards if award.kind == "setback"}
    expected = [[0, 0, 0] for _ in range(rules.num_sides)]
    for deal, (side, contract) in contracts.items():
        if contract:
            expected[side][0] += 1
            expected[side][1] += (deal, side) not in set_back
            expected[side][2] += contract
    assert contracts_of(game) == tuple(map(tuple, expected))
    assert sum(won for won, _, _ in contracts_of(game)) > 0


def test_contracts_are_zeros_without_an_auction():
    game = Game(Rules.make("all_fours", 2), seed=0)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    assert contracts_of(game) == ((0, 0, 0), (0, 0, 0))


def test_chunks_back_before_a_failure_are_kept():
    from queue import SimpleQueue

    from evaluate.parallel import _keep_finished

    player = GroupPlayer(Rules.make("seven_up", 2), ["random", "random"], 0, make_tables(2, 2, 4, 2))
    finished = [game.to_tuple() for game in player.play_group(0, 1)]
    done = SimpleQueue()
    for reply in (RuntimeError("another worker's failure"), (finished, 0.1, 1)):
        done.put(reply)
    kept = []
    _keep_finished(done, kept.extend)
    assert [game.to_tuple() for game in kept] == finished and done.empty()


@pytest.mark.parametrize("library", ["torch", "jax"])
def test_workers_are_spawned_not_forked_once_a_threaded_library_is_loaded(monkeypatch, library):
    """Forking a process whose torch or JAX thread pools run can hang the child: spawn then."""
    import multiprocessing
    import types

    from evaluate.parallel import pool_context

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform")
    for name in ("torch", "jax"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    assert pool_context().get_start_method() == "fork"
    monkeypatch.setitem(sys.modules, library, types.ModuleType(library))
    assert pool_context().get_start_method() == "spawn"
