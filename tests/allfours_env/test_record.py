"""Game records replay exactly; bad input raises errors that name the problem."""

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allfours_env import Game, IllegalActionError, RecordError, Rules, replay, str_to_action
from allfours_env.record import load_record, save_record
from conftest import PRESET_PLAYERS


def random_game(preset="seven_up", num_players=2, seed=0) -> Game:
    game = Game(Rules.make(preset, num_players), seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize("preset, num_players", PRESET_PLAYERS)
def test_record_is_json_and_replays_to_the_same_result(preset, num_players, tmp_path):
    game = random_game(preset, num_players, seed=11)
    record = game.record()
    path = tmp_path / "game.json"
    save_record(record, path)
    loaded = load_record(path)
    assert loaded == json.loads(json.dumps(record))
    again = replay(loaded)
    assert again.scores == game.scores and again.winner == game.winner
    assert again.record() == record
    assert sum(award.points for award in game.awards) == sum(game.scores)


def test_record_holds_every_deal_decision_and_award():
    game = random_game(seed=3)
    record = game.record()
    assert len(record["deals"]) == len(game.decks)
    assert all(len(deal["deck"]) == 52 for deal in record["deals"])
    assert len(record["decisions"]) == sum(1 for kind, _, _ in game.log if kind == "act")
    assert record["winner"] == game.winner and record["scores"] == game.scores
    assert {a["kind"] for a in record["awards"]} <= {"turnup", "gift", "high", "low", "jack", "hang_jack",
                                                    "game", "void"}


def test_tampered_record_does_not_replay():
    record = random_game(seed=4).record()
    record["scores"] = [s + 1 for s in record["scores"]]
    with pytest.raises(RecordError, match="scores"):
        replay(record)


def test_record_with_a_swapped_deck_fails_with_a_clear_error():
    record = random_game(seed=5).record()
    deck = record["deals"][0]["deck"]
    deck[0], deck[20] = deck[20], deck[0]
    with pytest.raises(RecordError):
        replay(record)


@pytest.mark.parametrize("mutate, message", [
    (lambda r: r.pop("decisions"), "lacks decisions"),
    (lambda r: r.update(format="other/9"), "format"),
    (lambda r: r["decisions"].__setitem__(0, [0, "fly"]), "malformed"),
    (lambda r: r["rules"].update(target_points=0), "cannot be set up"),
    (lambda r: r["deals"][0]["deck"].pop(), "cannot be set up"),
])
def test_malformed_records_raise_record_error(mutate, message):
    record = random_game(seed=6).record()
    mutate(record)
    with pytest.raises(RecordError, match=message):
        replay(record)


@pytest.mark.parametrize("value", [[5], None, 1.5, True, "x", {}])
@pytest.mark.parametrize("field", ["decisions", "deals", "awards", "scores", "first_dealer", "rules"])
def test_a_field_of_the_wrong_type_is_a_record_error_naming_it(field, value):
    record = random_game(seed=6).record()
    record[field] = value
    with pytest.raises(RecordError, match=field):
        replay(record)


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-3, 60) | st.floats(allow_nan=False)
                           | st.text(max_size=4), lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)
RECORD = random_game(seed=6).record()


def _places(record: dict) -> list[tuple]:
    """Every place of ``record`` a mutation may replace: each field, each item of its lists, each
    deal's dealer and deck, each seat and action of a decision, each card of the first deck."""
    places = [(key,) for key in record]
    for key in ("deals", "decisions", "awards", "scores", "initial_scores"):
        places += [(key, i) for i in range(len(record[key]))]
    places += [("deals", i, part) for i in range(len(record["deals"])) for part in ("dealer", "deck")]
    places += [("decisions", i, j) for i in range(0, len(record["decisions"]), 7) for j in (0, 1)]
    places += [("deals", 0, "deck", i) for i in range(len(record["deals"][0]["deck"]))]
    return places


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(place=st.sampled_from(_places(RECORD)), value=JSON_VALUES)
def test_any_mutated_record_replays_or_is_one_record_error(place, value):
    """Whatever JSON value replaces whatever part of a record, replay returns a game or raises
    RecordError: never another exception."""
    record = copy.deepcopy(RECORD)
    node = record
    for step in place[:-1]:
        node = node[step]
    node[place[-1]] = value
    try:
        replay(record)
    except RecordError:
        pass


def test_a_deeply_nested_record_file_or_line_is_a_record_error(tmp_path):
    nested = "[" * 100_000 + "]" * 100_000
    path = tmp_path / "deep.json"
    path.write_text(nested)
    with pytest.raises(RecordError, match="nested too deeply"):
        replay(path)
    with pytest.raises(RecordError, match="nested too deeply"):
        replay('{"record": ' * 50_000 + "{}" + "}" * 50_000)


def test_save_record_writes_only_a_new_file_unless_told_to_overwrite(tmp_path):
    path = tmp_path / "game.json"
    path.write_text("my notes\n")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        save_record(RECORD, path)
    assert path.read_text() == "my notes\n"
    save_record(RECORD, path, overwrite=True)
    assert replay(path).record() == RECORD


def test_load_record_reports_invalid_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    with pytest.raises(RecordError, match="not valid JSON"):
        load_record(path)


def snapshot(game: Game):
    return (repr(game), game.record(), list(game.log), game.phase, game.current_player,
            list(game.hands), list(game.scores), game.legal_actions())


@pytest.mark.parametrize("preset, num_players", PRESET_PLAYERS)
def test_illegal_actions_raise_and_leave_the_state_unchanged(preset, num_players):
    game = Game(Rules.make(preset, num_players), seed=2)
    rng = random.Random(2)
    checked = 0
    while not game.is_over:
        legal = set(game.legal_actions())
        illegal = [a for a in range(117) if a not in legal]
        before = snapshot(game)
        for action in rng.sample(illegal, 3):
            with pytest.raises(IllegalActionError, match="not legal"):
                game.apply(action)
            checked += 1
        assert snapshot(game) == before
        game.apply(rng.choice(sorted(legal)))
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(0)
    assert checked > 30


def test_illegal_action_message_names_the_action_and_the_legal_ones():
    game = Game(Rules.make(), seed=0)
    with pytest.raises(IllegalActionError, match=r"'play AS'.*legal actions: stand, beg"):
        game.apply(str_to_action("play AS"))


def test_non_integer_actions_are_rejected():
    game = Game(Rules.make(), seed=0)
    for bad in ("stand", 1.0, None, True):
        with pytest.raises(TypeError):
            game.apply(bad)


def test_numpy_integer_actions_are_accepted():
    np = pytest.importorskip("numpy")
    game = Game(Rules.make(), seed=0)
    game.apply(np.int64(0))
    assert game.phase_name == "play"


@pytest.mark.parametrize("kwargs, message", [
    (dict(dealer=2), "dealer must be a seat number 0..1"),
    (dict(dealer=True), "dealer"),
    (dict(scores=(7, 0)), "scores"),
    (dict(scores=(1, 2, 3)), "scores"),
    (dict(decks=[["AS"] * 52]), "AS twice"),
])
def test_bad_game_arguments_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Game(Rules.make(), **kwargs)


def test_rules_must_be_a_rules_object():
    with pytest.raises(TypeError, match="Rules.make"):
        Game("seven_up")


def test_one_call_replays_a_record_dict_a_records_jsonl_line_and_a_record_file(tmp_path):
    game = random_game(seed=8)
    record = game.record()
    line = json.dumps({"game": 0, "table": 0, "group": 0, "seating": 0, "seats": ["a", "b"],
                       "record": record}) + "\n"  # a line of evaluate --records' records.jsonl
    path = tmp_path / "game.json"
    save_record(record, path)
    single_line = tmp_path / "line.json"
    single_line.write_text(line)
    sources = [record, line, json.loads(line), path, str(path), single_line]
    for source in sources:
        again = replay(source)
        assert again.record() == record, type(source).__name__
    assert load_record(single_line) == json.loads(json.dumps(record))


def test_replay_of_something_that_is_no_record_is_a_record_error():
    with pytest.raises(RecordError, match="a game record is a dict, a records.jsonl line or the path"):
        replay(42)
    with pytest.raises(RecordError, match="records.jsonl line must be one JSON object"):
        replay('{"record": ')


@pytest.mark.parametrize("kind, message", [
    ("binary", "not UTF-8 text"),
    ("folder", "is a folder, not a record file"),
    ("missing", "not found"),
    ("jsonl", "several JSON values .* one at a time"),
    ("list", "does not hold a game record object"),
])
def test_unreadable_record_files_are_one_record_error(tmp_path, kind, message):
    path = tmp_path / "record.json"
    if kind == "binary":
        path.write_bytes(bytes(range(128, 256)) * 4)
    elif kind == "folder":
        path.mkdir()
    elif kind == "jsonl":
        line = json.dumps({"seats": ["a", "b"], "record": random_game(seed=9).record()})
        path.write_text(line + "\n" + line + "\n")
    elif kind == "list":
        path.write_text("[1, 2]")
    for read in (load_record, replay):
        with pytest.raises(RecordError, match=message) as caught:
            read(path)
        assert str(path) in str(caught.value)


@pytest.mark.parametrize("preset, num_players", [("seven_up", 2), ("auction_pitch", 4)])
def test_replay_of_the_first_steps_is_the_game_after_that_many_decisions(preset, num_players):
    game = Game(Rules.make(preset, num_players), seed=5)
    rng = random.Random(5)
    states = [game.record()]
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
        states.append(game.record())
    record = game.record()
    for steps in (0, 1, len(states) // 2, len(states) - 1):
        part = replay(record, steps=steps)
        assert part.record()["decisions"] == states[steps]["decisions"]
        assert part.scores == states[steps]["scores"]
    with pytest.raises(RecordError, match="steps must be 0"):
        replay(record, steps=len(states))
