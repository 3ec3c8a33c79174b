"""``python -m serve``: the web app (see :mod:`serve`)."""

from serve.cli import main

raise SystemExit(main())
