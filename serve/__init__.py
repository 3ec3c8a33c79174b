"""allfours in the browser: play against the bots, replay any game, a leaderboard — one command.

    allfours-serve                      # http://127.0.0.1:8000
    python -m serve --runs runs --port 8080

Pages: ``/play`` (a game against any agent spec, seen from your seat), ``/replay`` (a record stepped
decision by decision, from any seat or with every hand open), ``/leaderboard`` (the tournaments under
``--runs``). The JSON API under them is listed in docs/browser.md.

Modules: :mod:`~serve.view` (a game as JSON, as one observer sees it), :mod:`~serve.games` (the live
games of each browser session), :mod:`~serve.replays` (records to step through),
:mod:`~serve.leaderboard` (the SQLite index of the tournaments), :mod:`~serve.specs` and
:mod:`~serve.paths` (what a page may name), :mod:`~serve.app` (the routes), :mod:`~serve.cli` (the
command). Needs the ``web`` extra (Starlette, uvicorn); nothing else imports this package.
"""
