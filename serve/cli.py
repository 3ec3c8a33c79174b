"""The command line of the web app: ``allfours-serve`` (also ``python -m serve``).

Every argument is checked before the server starts — the port is free, ``--runs`` is a folder,
the index file's folder can be made — and a bad one is one line on stderr
(``allfours-serve: error: ...``) with exit status 2.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.cli import OneLineParser, count

PROG = "allfours-serve"
#: The Host names a server on 127.0.0.1 answers (against DNS rebinding: another name is refused).
LOOPBACK_NAMES = ["localhost", "127.0.0.1"]


def build_parser() -> OneLineParser:
    """The options (usage errors are one line: :class:`agents.cli.OneLineParser`)."""
    parser = OneLineParser(
        prog=PROG,
        description="Play All Fours against the bots, replay games and browse tournament results in "
                    "the browser. Serves on 127.0.0.1 (this machine only) unless --host says otherwise.",
    )
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 "
                             "lets other machines in — the pages have no login)")
    parser.add_argument("--port", type=count(1, 65535), default=8000, help="port (default 8000)")
    parser.add_argument("--runs", metavar="DIR",
                        help="folder of tournament results (allfours-evaluate --out) and policies the "
                             "pages may read; nothing outside it is read")
    parser.add_argument("--index", metavar="FILE",
                        help="the leaderboard's SQLite index (default: one per --runs folder in "
                             "~/.cache/allfours)")
    return parser


def check(args) -> tuple[Path | None, Path | None]:
    """The checked ``--runs`` folder and index file (raises ValueError naming a bad argument)."""
    runs = index = None
    if args.runs is not None:
        runs = Path(args.runs)
        if not runs.is_dir():
            raise ValueError(f"--runs {args.runs} is not a folder: give the folder that holds your "
                             f"tournament results")
        from serve.leaderboard import default_index, index_problem

        index = Path(args.index) if args.index else default_index(runs)
        problem = index_problem(index)
        if problem:
            raise ValueError(f"--index {problem}")
        try:
            index.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ValueError(f"--index {index}: cannot create its folder ({err.strerror or err})") from None
    elif args.index is not None:
        raise ValueError("--index needs --runs DIR (it indexes the tournaments there)")
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((args.host, args.port))
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            raise ValueError(f"port {args.port} is in use: give another with --port") from None
        raise ValueError(f"cannot listen on {args.host}:{args.port}: {err.strerror or err}") from None
    return runs, index


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    """Run the server until interrupted; return the exit status (2: bad arguments)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        import uvicorn

        from serve.app import create_app
    except ImportError as err:
        print(f"{PROG}: error: the web extra is not installed ({err.name} is missing): "
              f"pip install 'allfours[web]'", file=sys.stderr)
        return 2
    try:
        runs, index = check(args)
    except ValueError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    # a server on 127.0.0.1 answers only its own names (an IPv6 address is not checked: Starlette's
    # check reads the Host header up to its first colon)
    hosts = LOOPBACK_NAMES if is_loopback(args.host) and ":" not in args.host else None
    app = create_app(runs, index, allowed_hosts=hosts)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"{PROG}: http://{shown}:{args.port}/  (play, /replay, /leaderboard; Ctrl-C stops)",
          file=sys.stderr)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
