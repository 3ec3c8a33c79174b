"""The terminal game (agents.play): scripted full games, quitting, saving records, bad arguments, and
that nothing printed to the human ever names a card their seat cannot know."""

from __future__ import annotations

import io
import random
import re

import numpy as np
import pytest

from agents import Agent, make_agent
from agents import play as play_cli
from allfours_env import Game, Rules, load_record, replay, str_to_action
from allfours_env.actions import DISCARD_BASE, PLAY_BASE, action_card
from allfours_env.cards import FULL_PACK, NUM_CARDS, card_str
from allfours_env.knowledge import played_cards
from allfours_env.observation import OBS_SIZE
from allfours_env.render import pretty_action, pretty_card, render_table

CARD_FORMS = {c: (pretty_card(c), re.compile(rf"\b{card_str(c)}\b")) for c in range(NUM_CARDS)}


def knowable(game, seat: int) -> int:
    """Bit set of the cards ``seat`` may know now: its hand and discards, the turn-ups and the cards
    played this hand."""
    known = game.hands[seat] | game.discards[seat]
    for card in game.turnups:
        known |= 1 << card
    for cards in played_cards(game):
        known |= cards
    return known


def public_cards(events, seat: int) -> int:
    """Cards that ``events`` show to ``seat``: turn-ups, cards played, its own discards."""
    known = 0
    for kind, who, value in events:
        if kind == "turnup":
            known |= 1 << value
        elif kind == "act" and (value >= PLAY_BASE or (value >= DISCARD_BASE and who == seat)):
            known |= 1 << action_card(value)
    return known


class Watcher(io.StringIO):
    """The output stream of a session: every write is checked against the engine state of that
    moment. A card is hidden from the human when it is neither knowable now nor revealed by the
    move just made (the move that ends a hand also deals the next one, so the last trick's cards
    are printed while the engine is already in the next hand); hidden cards must not appear, by
    symbol (``10♥``) or by text (``TH``)."""

    def __init__(self) -> None:
        super().__init__()
        self.session = None
        self.checked = 0
        self._mark_log = 0
        self._mark_hand = 0

    def mark(self) -> None:
        """Called just before every move is applied (a bot decides or the human types)."""
        game = self.session.game
        self._mark_log = len(game.log)
        self._mark_hand = game.hands[self.session.seat]

    def write(self, text: str) -> int:
        if self.session is not None:
            game, seat = self.session.game, self.session.seat
            known = knowable(game, seat) | self._mark_hand | public_cards(game.log[self._mark_log:], seat)
            hidden = FULL_PACK & ~known
            for card in range(NUM_CARDS):
                if hidden >> card & 1:
                    symbol, text_form = CARD_FORMS[card]
                    assert symbol not in text and not text_form.search(text), (
                        f"hidden card {card_str(card)} shown to player_{seat}: {text!r}\n{game!r}"
                    )
            self.checked += 1
        return super().write(text)


class Driver:
    """Scripted input: first the lines of ``script``, then a legal move chosen with a seeded
    generator, typed alternately by number and as text in varied forms; ``save`` answers the
    offer to save the record."""

    def __init__(self, script=(), save: str = "", seed: int = 0, watcher: Watcher | None = None,
                 quit_after: int | None = None) -> None:
        self.script = list(script)
        self.save = save
        self.rng = random.Random(seed)
        self.watcher = watcher
        self.session = None
        self.moves = 0
        self.quit_after = quit_after
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.watcher is not None and self.watcher.session is not None:
            self.watcher.mark()
        if prompt.startswith("save"):
            return self.save
        if self.script:
            return self.script.pop(0)
        if self.quit_after is not None and self.moves >= self.quit_after:
            return "q"
        self.moves += 1
        moves = self.session.moves()
        index = self.rng.randrange(len(moves))
        action = moves[index]
        if self.moves % 2:
            return str(index + 1)
        card = action_card(action)
        if card is None or self.moves % 4 == 0:
            return pretty_action(action)  # "play 10♥", "beg"
        text = card_str(card)
        return self.rng.choice([text, text.lower(), pretty_card(card).lower(), " " + text + " "])


def run_session(argv, driver: Driver, watcher: Watcher | None = None):
    """Set up a session as the CLI does, watch its output, and play it."""
    output = watcher if watcher is not None else io.StringIO()
    args = play_cli.build_parser().parse_args(argv)
    session = play_cli.setup(args, input_fn=driver, output=output)
    driver.session = session
    if watcher is not None:
        watcher.session = session
        for agent in session.bots.values():
            decide = agent.act

            def act(observation, view, decide=decide):
                watcher.mark()
                return decide(observation, view)

            agent.act = act
    status = play_cli.play(session, args.save_record, driver)
    return status, session, output.getvalue()


def test_full_game_with_scripted_input_and_mistakes(tmp_path):
    script = ["", "foo", "99", "0", "h", "?", "t", "l", "play ZZ", "discard", "KX"]
    watcher = Watcher()
    driver = Driver(script, save=str(tmp_path / "game.json"), seed=1, watcher=watcher)
    status, session, text = run_session(
        ["--preset", "seven_up", "--players", "2", "--opponent", "heuristic", "--seed", "0"],
        driver, watcher,
    )
    assert status == 0
    game = session.game
    assert game.is_over
    assert "You won" in text or "You lost" in text
    assert "points by kind" in text
    # Every bad entry re-prompted with help; help and the other keys worked.
    assert text.count("is not a move") >= 4
    assert "there is no move 99" in text and "there is no move 0" in text
    assert "Other keys: h or ? this help" in text
    assert text.count("Type a move's number") >= 3  # the help, twice, plus the intro
    # The bots' moves appear as lines; the human's own moves as well.
    assert re.search(r"^player_1: (play|discard|beg|stand|gift|run)", text, re.M)
    assert re.search(r"^player_0: ", text, re.M)
    # Moves were typed both by number and as text (forms of both kinds reached the engine).
    assert driver.moves > 10
    assert watcher.checked > 100
    # The record was offered and saved, and it replays.
    assert "game record saved to" in text
    replayed = replay(load_record(tmp_path / "game.json"))
    assert replayed.scores == game.scores and replayed.winner == game.winner


@pytest.mark.parametrize(
    "argv",
    [
        ["--preset", "seven_up", "--players", "3", "--seat", "1", "--opponent", "random,heuristic"],
        ["--preset", "all_fours", "--players", "2", "--seat", "1", "--opponent", "random"],
        ["--preset", "trinidad", "--players", "4", "--seat", "2", "--opponent", "heuristic",
         "--partner", "random", "--target", "7"],
        ["--preset", "blind_all_fours", "--players", "4", "--opponent", "random", "--opponent", "heuristic"],
        ["--preset", "seven_up", "--players", "2", "--opponent", "pimc:samples=2,max_nodes=2000",
         "--target", "3"],
    ],
)
def test_human_never_sees_a_hidden_card(argv):
    for seed in (1, 2):
        watcher = Watcher()
        driver = Driver(["h", "l", "t"], seed=seed, watcher=watcher)
        status, session, text = run_session([*argv, "--seed", str(seed)], driver, watcher)
        assert status == 0 and session.game.is_over
        assert watcher.checked > 50


def test_the_watcher_catches_a_leak():
    """The leak check is not vacuous: the god's-eye table, printed once, is caught."""
    watcher = Watcher()
    driver = Driver(seed=0, watcher=watcher)
    args = play_cli.build_parser().parse_args(["--opponent", "random", "--seed", "0"])
    session = play_cli.setup(args, input_fn=driver, output=watcher)
    watcher.session = session
    with pytest.raises(AssertionError, match="hidden card"):
        session.write(render_table(session.game))
    session.write(render_table(session.game, seat=session.seat))  # the seat's own view is fine


def test_quit_mid_game_with_q():
    output = io.StringIO()
    driver = Driver(seed=3, quit_after=5)
    driver.session = None

    def input_fn(prompt):
        return driver(prompt)

    args = ["--opponent", "heuristic", "--seed", "3"]
    parsed = play_cli.build_parser().parse_args(args)
    session = play_cli.setup(parsed, input_fn=input_fn, output=output)
    driver.session = session
    assert play_cli.play(session, None, input_fn) == 0
    assert not session.game.is_over
    assert "You quit; the game was not finished" in output.getvalue()
    assert not any(p.startswith("save") for p in driver.prompts)  # no offer after quitting


def test_main_quits_on_q_and_on_end_of_input():
    lines = iter(["h", "q"])
    output = io.StringIO()
    assert play_cli.main(["--opponent", "random", "--seed", "5"], input_fn=lambda _: next(lines),
                         output=output) == 0
    assert "You quit" in output.getvalue()

    def eof(_prompt):
        raise EOFError

    output = io.StringIO()
    assert play_cli.main(["--opponent", "random", "--seed", "5"], input_fn=eof, output=output) == 0
    assert "You quit" in output.getvalue()


def test_main_save_record_replays(tmp_path):
    path = tmp_path / "record.json"
    driver = Driver(seed=4)
    output = io.StringIO()
    parsed = play_cli.build_parser().parse_args(
        ["--preset", "trinidad", "--players", "2", "--opponent", "random", "--seed", "4",
         "--save-record", str(path)])
    session = play_cli.setup(parsed, input_fn=driver, output=output)
    driver.session = session
    assert play_cli.play(session, parsed.save_record, driver) == 0
    assert not any(p.startswith("save") for p in driver.prompts)  # --save-record: no question
    game = replay(load_record(path))
    assert game.is_over and game.scores == session.game.scores
    assert f"saved to {path}" in output.getvalue()


def test_main_runs_a_whole_game_from_argv(tmp_path):
    """main() itself, with moves typed as numbers only."""
    path = tmp_path / "g.json"
    output = io.StringIO()
    status = play_cli.main(["--opponent", "random", "--seed", "6", "--target", "3"],
                           input_fn=lambda prompt: str(path) if prompt.startswith("save") else "1",
                           output=output)
    assert status == 0
    text = output.getvalue()
    assert "You won" in text or "You lost" in text
    assert replay(load_record(path)).is_over


def test_unfinished_game_record_is_saved_on_quit(tmp_path):
    path = tmp_path / "partial.json"
    lines = iter(["1", "1", "q"])
    output = io.StringIO()
    assert play_cli.main(["--opponent", "random", "--seed", "2", "--save-record", str(path)],
                         input_fn=lambda _: next(lines), output=output) == 0
    game = replay(load_record(path))
    assert not game.is_over


def test_illegal_card_explains_why():
    output = io.StringIO()
    driver = Driver()
    parsed = play_cli.build_parser().parse_args(["--opponent", "random", "--seed", "0"])
    session = play_cli.setup(parsed, input_fn=driver, output=output)
    game = session.game
    # Play on (random moves for every seat) until the human must follow suit with a card in hand
    # that it may not play.
    rng = random.Random(0)
    while not game.is_over:
        if game.current_player == session.seat and game.phase_name == "play" and game.trick_cards:
            illegal = [c for c in range(NUM_CARDS) if game.hands[session.seat] >> c & 1
                       and PLAY_BASE + c not in game.legal_actions()]
            if illegal:
                action, why = session.parse_move(card_str(illegal[0]))
                assert action is None and "cannot be played now" in why and "R3" in why
                action, why = session.parse_move("AS" if not game.hands[session.seat] >> 51 & 1 else "2C")
                assert action is None
                return
        game.apply(rng.choice(game.legal_actions()))
    pytest.fail("no position with an illegal card came up")


def test_move_parsing_forms():
    output = io.StringIO()
    parsed = play_cli.build_parser().parse_args(["--opponent", "random", "--seed", "0", "--seat", "1"])
    session = play_cli.setup(parsed, input_fn=Driver(), output=output)
    game = session.game
    rng = random.Random(1)
    while game.current_player != session.seat or game.phase_name != "play":
        game.apply(rng.choice(game.legal_actions()))
    action = session.moves()[0]
    card = action_card(action)
    text = card_str(card)
    forms = [text, text.lower(), pretty_card(card), pretty_card(card).lower(), "play " + text,
             "p " + text.lower(), pretty_action(action), "1"]
    if text[0] == "T":
        forms.append("10" + text[1].lower())
    for form in forms:
        assert session.parse_move(form) == (action, ""), form
    assert session.parse_move("discard " + text)[0] is None
    assert session.parse_move("beg")[0] is None


def test_specs_and_seats():
    assert play_cli.split_specs(["pimc:samples=8,max_nodes=500,random"]) == [
        "pimc:samples=8,max_nodes=500", "random"]
    assert play_cli.split_specs(["random", "heuristic,pimc"]) == ["random", "heuristic", "pimc"]
    rules = Rules.make("seven_up", 4)
    assert play_cli.seat_specs(rules, 0, ["pimc"], "random") == {1: "pimc", 3: "pimc", 2: "random"}
    assert play_cli.seat_specs(rules, 1, ["random", "heuristic"], None) == {
        2: "random", 0: "heuristic", 3: "random"}
    rules3 = Rules.make("seven_up", 3)
    assert play_cli.seat_specs(rules3, 2, ["random", "heuristic"], None) == {0: "random", 1: "heuristic"}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--opponent", "nosuchbot"], "unknown agent"),
        (["--opponent", "ppo:/nonexistent/model.zip"], "no policy file"),
        (["--preset", "trinidad", "--players", "3"], "trinidad"),
        (["--players", "3", "--opponent", "random,random,random"], "3 opponent specs"),
        (["--seat", "2"], "--seat"),
    ],
)
def test_bad_arguments_exit_2(argv, message, capsys):
    output = io.StringIO()
    assert play_cli.main(argv, input_fn=lambda _: "q", output=output) == 2
    assert message in capsys.readouterr().err


def test_help_exits_0(capsys):
    assert play_cli.main(["--help"], input_fn=lambda _: "q", output=io.StringIO()) == 0
    assert "--opponent" in capsys.readouterr().out


class MaskReader(Agent):
    """A bot that reads the AEC observation (as a PPO policy does) and checks it."""

    needs_observation = True

    def act(self, observation, view):
        assert observation["observation"].shape == (OBS_SIZE,)
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        assert legal == sorted(view.legal_actions())
        return legal[-1]


def test_bots_that_read_the_observation_get_it():
    game = Game(Rules.make("seven_up", 3), seed=3)
    bots = {1: MaskReader(seed=1), 2: make_agent("random", seed=2)}
    driver = Driver(seed=3)
    session = play_cli.TerminalGame(game, 0, bots, input_fn=driver, output=io.StringIO())
    driver.session = session
    assert session.run() and game.is_over


def test_blocked_gift_is_explained():
    """K8 (seven_up, 3 players): no gift when the player who did not beg needs one point."""
    game = Game(Rules.make("seven_up", 3), seed=0, dealer=0, scores=[0, 0, 6])
    session = play_cli.TerminalGame(game, 0, {1: make_agent("random"), 2: make_agent("random")},
                                    input_fn=Driver(), output=io.StringIO())
    assert game.phase_name == "beg" and game.current_player == 1
    game.apply(str_to_action("beg"))
    assert session.moves() == [str_to_action("run")]
    action, why = session.parse_move("gift")
    assert action is None and "not allowed" in why
    assert session.parse_move("run")[0] == str_to_action("run")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--players", "x"], r"argument --players: invalid int value: 'x' \(see --help\)"),
        (["--delay", "nan"], "--delay must be a number of seconds >= 0, got nan"),
        (["--delay", "-1"], "--delay must be a number of seconds >= 0"),
        (["--save-record", "{tmp}/old.json"], "old.json exists and a game record is never written over"),
        (["--save-record", "{tmp}/nowhere/g.json"], "the folder .*nowhere does not exist"),
        (["--save-record", "{tmp}"], "is a folder: give a file name"),
        (["--opponent", "ppo:{tmp}/old.json"], "old.json"),  # not a policy file
    ],
)
def test_bad_arguments_are_one_line_before_the_game(argv, message, capsys, tmp_path):
    old = tmp_path / "old.json"
    old.write_text("my notes")
    asked = []
    argv = [a.format(tmp=tmp_path) for a in argv]
    assert play_cli.main(argv, input_fn=asked.append, output=io.StringIO()) == 2
    captured = capsys.readouterr()
    assert re.search(message, captured.err), captured.err
    assert captured.err.startswith("allfours-play: error: ") and len(captured.err.strip().splitlines()) == 1
    assert "Traceback" not in captured.err and captured.out == ""
    assert asked == [] and old.read_text() == "my notes"  # nothing played, nothing written


def test_the_save_offer_never_writes_over_a_file(tmp_path):
    taken = tmp_path / "taken.json"
    taken.write_text("my notes")
    fresh = tmp_path / "fresh.json"
    answers = iter([str(taken), str(tmp_path), str(fresh)])
    output = io.StringIO()
    status = play_cli.main(["--opponent", "random", "--seed", "6", "--target", "3"],
                           input_fn=lambda prompt: next(answers) if prompt.startswith("save") else "1",
                           output=output)
    text = output.getvalue()
    assert status == 0 and "taken.json exists and a game record is never written over a file" in text
    assert "is a folder" in text
    assert taken.read_text() == "my notes"
    assert replay(fresh).is_over


def test_table_labels_come_from_the_renderer():
    game = Game(Rules.make("trinidad", 4), seed=0)
    session = play_cli.TerminalGame(game, 1, {s: make_agent("random") for s in (0, 2, 3)},
                                    input_fn=Driver(), output=io.StringIO())
    assert session.table() == render_table(game, seat=1, labels={1: "you", 3: "partner"})
    rows = [line for line in session.table().splitlines() if "player_" in line and ":" in line][-4:]
    assert [row.split(":")[0].strip(" →") for row in rows] == [
        "player_0", "player_1 (you)", "player_2", "player_3 (partner)"]
