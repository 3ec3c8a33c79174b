"""Game records: a JSON-serialisable account of a whole game, and exact replay from it.

A record holds the rules, the first dealer, the pack of every deal (``deck[0]`` the top card,
thrown-in deals included), every decision in order, every point awarded with its kind and side, the
final scores and the winner::

    {
      "format": "allfours-record/2",
      "rules": {...every knob...},
      "seed": 7,
      "first_dealer": 1,
      "initial_scores": [0, 0],
      "deals": [{"dealer": 1, "deck": ["QH", "2C", ...]}, ...],
      "decisions": [[0, "beg"], [1, "run"], [0, "discard 4C"], ..., [1, "play AS"]],
      "awards": [{"deal": 0, "kind": "turnup", "side": 1, "points": 1}, ...],
      "scores": [7, 4],
      "winner": 0
    }

:func:`replay` rebuilds the game from the decks and decisions alone and checks that it reaches the
same awards, scores and winner, so a record is also a test case. Researchers keep these as data sets.

One call replays a record in any of the forms it is kept in::

    replay(record)                      # the dict (game.record(), env.unwrapped.record)
    replay("game.json")                 # a file written by save_record / agents.play (str or Path)
    for line in open("records.jsonl"):  # evaluate --records: one game per line,
        replay(line)                    # as text or parsed ({"game": ..., "seats": ..., "record": {...}})

A file that cannot be read as a record (missing, a folder, binary, not JSON, several records) raises
:class:`RecordError` naming the file and the problem; records are JSON and are never unpickled.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from allfours_env.actions import action_to_str, str_to_action
from allfours_env.cards import card_str
from allfours_env.engine import Game, IllegalActionError
from allfours_env.events import EventKind
from allfours_env.rules import Rules, RulesError
from allfours_env.values import is_whole

RECORD_FORMAT = "allfours-record/2"
#: Formats :func:`replay` reads: version 1 lacks the knobs of the stock, the auction and the joker in
#: ``rules``, which replay reads as the preset's values (the presets of that version do not use them).
READ_FORMATS = ("allfours-record/1", RECORD_FORMAT)


class RecordError(ValueError):
    """A record that is malformed, or that does not replay to what it says."""


def make_record(game: Game) -> dict[str, Any]:
    """Return the record of ``game`` so far (complete once the game is over)."""
    dealers = [who for kind, who, _ in game.log if kind == EventKind.DEAL]
    return {
        "format": RECORD_FORMAT,
        "rules": game.rules.to_dict(),
        "seed": game.seed,
        "first_dealer": game.first_dealer,
        "initial_scores": list(game.initial_scores),
        "deals": [
            {"dealer": dealer, "deck": [card_str(c) for c in deck]}
            for dealer, deck in zip(dealers, game.decks)
        ],
        "decisions": [[who, action_to_str(value)] for kind, who, value in game.log if kind == EventKind.ACT],
        "awards": [
            {"deal": award.deal, "kind": award.kind, "side": award.side, "points": award.points}
            for award in game.awards
        ],
        "scores": list(game.scores),
        "winner": game.winner,
    }


RecordSource = Mapping[str, Any] | str | os.PathLike


def replay(record: RecordSource, *, steps: int | None = None) -> Game:
    """Replay a game record and return the game in its final state.

    ``record`` is the record dict, a line of an ``evaluate --records`` file (``records.jsonl``; the
    line's text or its parsed dict, whose ``"record"`` is the game record), or the path of a record
    file (``str`` or :class:`~pathlib.Path`; see :func:`load_record`). Raises :class:`RecordError`
    if it cannot be read, is malformed, or replays to other awards, scores or winner than it states.
    ``steps`` stops after that many decisions (0 ... the number of decisions) and returns the game
    part-way, for stepping through a game; the results are then not compared.
    """
    record = as_record(record)
    if record.get("format") not in READ_FORMATS:
        raise RecordError(
            f"not a game record this version reads: format is {record.get('format')!r}, "
            f"expected one of {', '.join(map(repr, READ_FORMATS))}"
        )
    check_fields(record)
    try:
        rules = Rules.from_dict(record["rules"])
        decks = [deal["deck"] for deal in record["deals"]]
        game = Game(
            rules,
            seed=record.get("seed"),
            dealer=record["first_dealer"],
            decks=decks,
            scores=record.get("initial_scores"),
        )
    except (RulesError, ValueError, TypeError, KeyError) as err:
        raise RecordError(f"game record cannot be set up: {err}") from None
    decisions = record["decisions"]
    if steps is not None:
        if not is_whole(steps) or not 0 <= steps <= len(decisions):
            raise RecordError(f"steps must be 0..{len(decisions)} (the record's decisions), got {steps!r}")
        decisions = decisions[:steps]
    for step, item in enumerate(decisions):
        try:
            seat, text = item
            action = str_to_action(text)
        except (TypeError, ValueError) as err:
            raise RecordError(f"decision {step} ({item!r}) is malformed: {err}") from None
        if seat != game.current_player:
            raise RecordError(
                f"decision {step} is made by player_{seat}, but player_{game.current_player} is to move"
            )
        try:
            game.apply(action)
        except IllegalActionError as err:
            raise RecordError(f"decision {step} ({text!r}) does not replay: {err}") from None
    if steps is not None:
        return game
    if len(game.decks) != len(record["deals"]):
        raise RecordError(
            f"record lists {len(record['deals'])} deals but its decisions reach {len(game.decks)}"
        )
    replayed = make_record(game)
    for key in ("awards", "scores", "winner"):
        if replayed[key] != record[key]:
            raise RecordError(
                f"record does not replay: its {key} are {record[key]!r}, replay gives {replayed[key]!r}"
            )
    return game


def _is_list(test):
    return lambda value: isinstance(value, list) and all(test(item) for item in value)


#: Each field of a record, whether it may be null, the test of its value and what that value is.
_FIELDS: dict[str, tuple[bool, Any, str]] = {
    "rules": (False, lambda v: isinstance(v, Mapping), "an object of knobs"),
    "seed": (True, is_whole, "an integer or null"),
    "first_dealer": (False, is_whole, "a seat number"),
    "initial_scores": (True, _is_list(is_whole), "a list of integers or null"),
    "deals": (False, _is_list(lambda d: isinstance(d, Mapping) and isinstance(d.get("deck"), list)),
              'a list of {"dealer": ..., "deck": [...]} objects'),
    "decisions": (False, _is_list(lambda d: isinstance(d, list) and len(d) == 2 and is_whole(d[0])
                                  and isinstance(d[1], str)), 'a list of [seat, "action"] pairs'),
    "awards": (False, _is_list(lambda a: isinstance(a, Mapping)), "a list of award objects"),
    "scores": (False, _is_list(is_whole), "a list of integers"),
    "winner": (True, is_whole, "a side number or null"),
}


def check_fields(record: Mapping[str, Any]) -> None:
    """Raise :class:`RecordError` unless ``record`` has every field a game record needs, each of
    the type it must have (before anything is replayed from it)."""
    optional = {"seed", "initial_scores"}
    missing = [key for key in _FIELDS if key not in record and key not in optional]
    if missing:
        raise RecordError(f"game record lacks {', '.join(missing)}")
    for key, (nullable, test, what) in _FIELDS.items():
        value = record.get(key)
        if (value is None and (nullable or key not in record)) or (value is not None and test(value)):
            continue
        shown = repr(value) if len(repr(value)) <= 40 else f"{repr(value)[:37]}..."
        raise RecordError(f"game record's {key} must be {what}, got {shown}")


def as_record(source: RecordSource) -> Mapping[str, Any]:
    """The game record that ``source`` holds or names (the forms :func:`replay` takes), not yet
    checked: a record dict as it is, a ``records.jsonl`` line (text or dict) unwrapped to its
    ``"record"``, a path read by :func:`load_record`."""
    if isinstance(source, str) and source.lstrip().startswith("{"):
        try:
            source = json.loads(source)
        except json.JSONDecodeError as err:
            raise RecordError(f"a records.jsonl line must be one JSON object: {err}") from None
        except RecursionError:
            raise RecordError("a records.jsonl line is nested too deeply to be a game record") from None
    elif isinstance(source, str | os.PathLike):
        return load_record(source)
    if not isinstance(source, Mapping):
        raise RecordError(
            f"a game record is a dict, a records.jsonl line or the path of a record file, "
            f"got {type(source).__name__}"
        )
    if "format" not in source and isinstance(source.get("record"), Mapping):
        return source["record"]  # a line of evaluate's records.jsonl: game, table, seats, record
    return source


def save_record(record: Mapping[str, Any], path: str | Path, *, overwrite: bool = False) -> None:
    """Write a record as JSON, as a new file: ``FileExistsError`` if ``path`` exists, unless
    ``overwrite=True`` says to replace it."""
    text = json.dumps(record, indent=1) + "\n"  # before the file is opened: a bad record writes nothing
    try:
        with open(path, "w" if overwrite else "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        raise FileExistsError(f"{path} already exists: save_record writes only a new file; "
                              f"pass overwrite=True to replace it") from None


def load_record(path: str | os.PathLike) -> dict[str, Any]:
    """Read the record in the JSON file ``path`` (written by :func:`save_record`, or holding one
    ``records.jsonl`` line); not replayed: :func:`replay` does that. A file that is missing, a folder,
    not UTF-8 text, not JSON or not one record raises :class:`RecordError` naming it."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except IsADirectoryError:
        raise RecordError(f"{path} is a folder, not a record file") from None
    except FileNotFoundError:
        raise RecordError(f"record file {path} not found") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not a record file: it is not UTF-8 text (a record is JSON)") from None
    except OSError as err:
        raise RecordError(f"cannot read record file {path}: {err.strerror or err}") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise RecordError(f"{path} is not a game record: its JSON is nested too deeply") from None
    except json.JSONDecodeError as err:
        if err.msg == "Extra data":
            raise RecordError(
                f"{path} holds several JSON values (a records.jsonl file?): replay its lines one at a "
                f"time, e.g. for line in open(path): replay(line)"
            ) from None
        raise RecordError(f"{path} is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise RecordError(f"{path} does not hold a game record object")
    record = as_record(data)
    return dict(record)
