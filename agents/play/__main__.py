"""``python -m agents.play``: the terminal game (see :mod:`agents.play`)."""

from agents.play.cli import main

raise SystemExit(main())
