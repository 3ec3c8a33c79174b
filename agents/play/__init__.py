"""Play All Fours in the terminal against the bots.

    python -m agents.play --preset seven_up --players 2 --opponent pimc
    allfours-play --preset trinidad --players 4 --opponent heuristic --partner pimc:samples=8

You play one seat (``--seat``, default 0); every other seat is played by an agent spec: one spec for
all of them (``--opponent heuristic``) or one per opponent seat in turn order
(``--opponent random,pimc`` or ``--opponent random --opponent pimc``); with four players in
partnerships your partner is played by ``--partner`` (default: the first opponent spec).

You see only what your seat may see: your hand, the turn-ups, the current trick, trump, scores,
everyone's card counts, the bids, the stock's size and — face up, in california_jack — its top card,
and the public history of the hand (the draws you may see) — never another player's cards, discards
or face-down draws, nor the stock below its top. At each decision the legal moves are listed with
numbers: type the number, or the move as text (``play AS``, ``AS``, ``a♠``, ``10h``, ``JK``, ``beg``,
``run``, ``pass``, ``bid 2``, ``hold``). ``h`` or ``?`` shows
help, ``t`` the table, ``l`` the hand so far, ``q`` quits. At the end the game record can be saved
to a new file (``--save-record game.json`` saves it without asking); :func:`allfours_env.replay`
replays it.

Modules: :mod:`~agents.play.moves` (what a typed line means), :mod:`~agents.play.ui` (the screen and
the turn loop: :class:`TerminalGame`), :mod:`~agents.play.bots` (the bots' moves, shared with the
browser app), :mod:`~agents.play.cli` (the options, setting up a game, saving its record). For
scripts and tests, :func:`main` takes ``input_fn`` (called with the prompt, returns a line;
``EOFError`` quits) and ``output`` (a text stream), and :class:`TerminalGame` can be driven directly.
"""

from agents.play.cli import build_parser, main, new_file_problem, play, seat_specs, setup, split_specs
from agents.play.moves import legal_moves, parse_card_text, parse_move
from agents.play.ui import Quit, TerminalGame

__all__ = [
    "Quit",
    "TerminalGame",
    "build_parser",
    "legal_moves",
    "main",
    "new_file_problem",
    "parse_card_text",
    "parse_move",
    "play",
    "seat_specs",
    "setup",
    "split_specs",
]
