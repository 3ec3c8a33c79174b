"""Fixtures and helpers of the web app's tests (a plugin of its test modules: ``pytest_plugins``):
a small tournament folder made once with the evaluate API, the app on it, and playing through the
JSON API."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from evaluate import run_tournament
from evaluate.report import save
from serve.app import create_app


@pytest.fixture(scope="session")
def runs(tmp_path_factory) -> Path:
    """A --runs folder holding one seven_up 2p tournament of 4 games with their records."""
    root = tmp_path_factory.mktemp("runs")
    result = run_tournament(["random", "heuristic"], games=4, seed=1, workers=1, records=True)
    save(result, root / "tournaments" / "small", plot=False)
    (root / "notes.txt").write_text("not a tournament")
    return root


@pytest.fixture
def client(runs, tmp_path) -> TestClient:
    return TestClient(create_app(runs, tmp_path / "index.sqlite"))


@pytest.fixture
def play_until():
    """:func:`play_through`, as a fixture."""
    return play_through


def play_through(client: TestClient, state: dict, stop, limit: int = 2000) -> dict:
    """Play a game through the API — the person's first legal move, the bots', the next hands —
    until ``stop(state)`` or the game is over; checks at each step that the person sees only their
    own cards."""
    game_id = state["id"]
    for _ in range(limit):
        assert all(s["cards"] is None for s in state["seats"] if s["seat"] != state["seat"])
        if stop(state) or state["over"]:
            return state
        waiting = state["waiting_for"]
        if waiting == "you":
            assert state["moves"]
            response = client.post(f"/api/games/{game_id}/act", json={"move": state["moves"][0]["action"]})
            state = response.json()
        elif waiting == "bot":
            assert state["moves"] == []
            state = client.post(f"/api/games/{game_id}/bot").json()["state"]
        else:
            assert waiting == "next_hand"
            state = client.post(f"/api/games/{game_id}/next-hand").json()
    raise AssertionError("the game did not end")
