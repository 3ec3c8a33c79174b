"""The web app: the pages (play, replay, leaderboard) and the JSON API under them.

:func:`create_app` builds a Starlette application; ``allfours-serve`` (:mod:`serve.cli`) runs it on
uvicorn. The API (docs/browser.md lists it) answers JSON; every refusal is ``{"error": "..."}`` with
a 4xx status (a failing agent 502), never a trace. A browser session is a random cookie; the games
it plays are its own.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from allfours_env.rules import PRESETS
from serve import replays
from serve.errors import RequestError
from serve.games import GameStore, LiveGame
from serve.leaderboard import Leaderboard
from serve.specs import offered_agents

STATIC = Path(__file__).resolve().parent / "static"
SESSION_COOKIE = "allfours_session"
#: The largest JSON body of a request other than an upload.
MAX_JSON_BYTES = 16 << 10
#: What the pages may load: their own files only (no CDN, nothing inline).
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
log = logging.getLogger("allfours.serve")


def create_app(runs: Path | None = None, index: Path | None = None, *,
               allowed_hosts: list[str] | None = None, games: GameStore | None = None,
               replay_store: replays.ReplayStore | None = None) -> Starlette:
    """The app; ``runs`` is the folder of tournaments (and policies) pages may read, ``index`` the
    SQLite file of its leaderboard, ``allowed_hosts`` the Host names served (None: any)."""
    games = GameStore(runs) if games is None else games
    replay_store = replays.ReplayStore() if replay_store is None else replay_store
    board = Leaderboard(runs, index) if runs is not None and index is not None else None

    async def options(request: Request) -> Response:
        return JSONResponse({
            "presets": {name: list(PRESETS[name]["players"]) for name in sorted(PRESETS)},
            "agents": offered_agents(), "runs": runs is not None,
            "limits": {"record_bytes": replays.MAX_RECORD_BYTES, "games_per_session": games.per_session},
        })

    async def new_game(request: Request) -> Response:
        owner = request.cookies.get(SESSION_COOKIE) or secrets.token_urlsafe(24)
        body = await _json(request)
        live = await run_in_threadpool(games.create, owner, body)
        response = JSONResponse(await _state(live), status_code=201)
        response.set_cookie(SESSION_COOKIE, owner, httponly=True, samesite="strict")
        return response

    def live_game(request: Request) -> LiveGame:
        return games.get(request.cookies.get(SESSION_COOKIE, ""), request.path_params["game_id"])

    async def game_state(request: Request) -> Response:
        return JSONResponse(await _state(live_game(request)))

    async def game_moves(request: Request) -> Response:
        state = await _state(live_game(request))
        return JSONResponse({"to_move": state["to_move"], "waiting_for": state["waiting_for"],
                             "moves": state["moves"]})

    async def act(request: Request) -> Response:
        live = live_game(request)
        body = await _json(request)
        if set(body) != {"move"}:
            raise RequestError('give {"move": <action id or text such as "play AS">}')
        await run_in_threadpool(live.act, body["move"])
        return JSONResponse(await _state(live))

    async def bot(request: Request) -> Response:
        live = live_game(request)
        moved = await run_in_threadpool(live.bot_step)
        return JSONResponse({"moved": moved, "state": await _state(live)})

    async def next_hand(request: Request) -> Response:
        live = live_game(request)
        await run_in_threadpool(live.next_hand)
        return JSONResponse(await _state(live))

    async def game_record(request: Request) -> Response:
        live = live_game(request)
        record = await run_in_threadpool(live.record)
        name = f"allfours-{live.game.rules.preset}-{live.game.n}p-seed{live.game.seed}.json"
        return Response(json.dumps(record, indent=1) + "\n", media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def game_replay(request: Request) -> Response:
        live = live_game(request)
        record = await run_in_threadpool(live.record)
        replay_id = replay_store.add(await run_in_threadpool(replays.checked, record))
        return JSONResponse({"id": replay_id, "url": f"/replay?id={replay_id}"}, status_code=201)

    async def upload(request: Request) -> Response:
        data = await _body(request, replays.MAX_RECORD_BYTES)
        record = await run_in_threadpool(replays.parse_record, data)
        replay_id = replay_store.add(record)
        return JSONResponse({"id": replay_id, "url": f"/replay?id={replay_id}"}, status_code=201)

    async def replay_state(request: Request) -> Response:
        record = replay_store.get(request.path_params["replay_id"])
        return JSONResponse(await _replay_state(request, record))

    async def replay_record(request: Request) -> Response:
        return JSONResponse(replay_store.get(request.path_params["replay_id"]))

    def leaderboard_of() -> Leaderboard:
        if board is None:
            raise RequestError("no tournaments: start the server with --runs DIR", 404)
        return board

    async def leaderboard(request: Request) -> Response:
        return JSONResponse({"boards": await run_in_threadpool(leaderboard_of().boards)})

    async def tournament_games(request: Request) -> Response:
        path = _param(request, "path")
        return JSONResponse(await run_in_threadpool(leaderboard_of().games, path))

    async def run_line(request: Request) -> dict[str, Any]:
        path, game = _param(request, "path"), _int_param(request, "game", None)
        line = await run_in_threadpool(leaderboard_of().record_line, path, game)
        return line

    async def run_record(request: Request) -> Response:
        line = await run_line(request)
        return JSONResponse(await run_in_threadpool(replays.checked, line))

    async def run_replay(request: Request) -> Response:
        line = await run_line(request)
        record = await run_in_threadpool(replays.checked, line)
        return JSONResponse(await _replay_state(request, record) | {"seats_agents": line.get("seats")})

    def page(name: str):
        async def endpoint(request: Request) -> Response:
            return FileResponse(STATIC / name)
        return endpoint

    async def home(request: Request) -> Response:
        return RedirectResponse("/play")

    routes = [
        Route("/", home),
        Route("/play", page("play.html")),
        Route("/replay", page("replay.html")),
        Route("/leaderboard", page("leaderboard.html")),
        Route("/api/options", options),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", game_state),
        Route("/api/games/{game_id}/moves", game_moves),
        Route("/api/games/{game_id}/act", act, methods=["POST"]),
        Route("/api/games/{game_id}/bot", bot, methods=["POST"]),
        Route("/api/games/{game_id}/next-hand", next_hand, methods=["POST"]),
        Route("/api/games/{game_id}/record", game_record),
        Route("/api/games/{game_id}/replay", game_replay, methods=["POST"]),
        Route("/api/replays", upload, methods=["POST"]),
        Route("/api/replays/{replay_id}", replay_state),
        Route("/api/replays/{replay_id}/record", replay_record),
        Route("/api/leaderboard", leaderboard),
        Route("/api/leaderboard/games", tournament_games),
        Route("/api/runs/record", run_record),
        Route("/api/runs/replay", run_replay),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(SecurityHeaders)]
    if allowed_hosts:
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts))
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={
        RequestError: _refused, HTTPException: _http_error, Exception: _failed})
    app.state.games, app.state.replays, app.state.leaderboard = games, replay_store, board
    return app


class SecurityHeaders:
    """ASGI middleware: every response carries :data:`SECURITY_HEADERS`."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                extra = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _state(live: LiveGame) -> dict[str, Any]:
    return await run_in_threadpool(live.state)


async def _replay_state(request: Request, record: Mapping[str, Any]) -> dict[str, Any]:
    step = _int_param(request, "step", len(record["decisions"]))
    seat_text = request.query_params.get("seat", "all")
    seat = None if seat_text == "all" else _int_param(request, "seat", None)
    return await run_in_threadpool(replays.state, record, step, seat)


def _param(request: Request, name: str) -> str:
    value = request.query_params.get(name)
    if not value:
        raise RequestError(f"give the query parameter {name}")
    return value


def _int_param(request: Request, name: str, default: int | None) -> int:
    text = request.query_params.get(name)
    if text is None and default is not None:
        return default
    text = _param(request, name)
    try:
        return int(text)
    except ValueError:
        raise RequestError(f"{name} must be a whole number, got {text!r}") from None


async def _body(request: Request, limit: int) -> bytes:
    """The request's body, refused (413) beyond ``limit`` bytes before more is read."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise RequestError(f"the body is {int(declared):,} bytes, more than the {limit:,} allowed", 413)
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise RequestError(f"the body is more than the {limit:,} bytes allowed", 413)
    return bytes(data)


async def _json(request: Request) -> dict[str, Any]:
    data = await _body(request, MAX_JSON_BYTES)
    try:
        body = json.loads(data or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise RequestError(f"the body is not JSON: {err}") from None
    if not isinstance(body, dict):
        raise RequestError("the body must be a JSON object")
    return body


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestError)
    return JSONResponse({"error": str(exc)}, status_code=exc.status)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code)


async def _failed(request: Request, exc: Exception) -> Response:
    log.error("request %s %s failed", request.method, request.url.path, exc_info=exc)
    return JSONResponse({"error": f"the server failed ({type(exc).__name__}); its log has the details"},
                        status_code=500)
