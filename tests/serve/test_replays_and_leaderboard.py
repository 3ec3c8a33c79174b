"""Replays (uploads, played games, tournament records) and the leaderboard's index over --runs;
nothing outside --runs is ever read."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from starlette.testclient import TestClient  # noqa: E402

import serve.leaderboard  # noqa: E402
from allfours_env import Game, Rules, replay  # noqa: E402
from evaluate import run_tournament  # noqa: E402
from evaluate.report import save  # noqa: E402
from serve.app import create_app  # noqa: E402
from serve.paths import PathError, inside  # noqa: E402
from serve.replays import MAX_RECORD_BYTES  # noqa: E402
from serve.view import table  # noqa: E402

pytest_plugins = ["serve_fixtures"]


def finished_record(preset="seven_up", players=2, seed=2) -> dict:
    game = Game(Rules.make(preset, players), seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return game.record()


def upload(client, data) -> dict:
    response = client.post("/api/replays", content=data)
    assert response.status_code == 201, response.text
    return response.json()


def test_an_uploaded_record_steps_back_and_forth_as_any_seat_or_all_open(client):
    record = finished_record("auction_pitch", 4)
    made = upload(client, json.dumps(record, indent=1))
    assert made["url"] == f"/replay?id={made['id']}"
    steps = len(record["decisions"])
    for step, seat in [(0, "all"), (7, "2"), (steps // 2, "all"), (steps, "1"), (7, "2")]:
        state = client.get(f"/api/replays/{made['id']}", params={"step": step, "seat": seat}).json()
        observer = None if seat == "all" else int(seat)
        expected = table(replay(record, steps=step), observer)
        assert {k: state[k] for k in expected} == json.loads(json.dumps(expected))
        assert state["step"] == step and state["steps"] == steps
        shown = [s["cards"] is not None for s in state["seats"]]
        assert shown == [observer is None or s == observer for s in range(4)]
    final = client.get(f"/api/replays/{made['id']}").json()  # no step: the end
    assert final["over"] and final["scores"] == record["scores"]
    assert sum(len(h["awards"]) for h in final["hands_played"]) == len(record["awards"])
    assert client.get(f"/api/replays/{made['id']}/record").json() == record


@pytest.mark.parametrize("params, message", [
    ({"step": 99999}, "step must be 0.."), ({"step": -1}, "step must be 0.."),
    ({"step": "x"}, "whole number"),
    ({"seat": 5}, "seat must be 0..1"), ({"seat": "me"}, "whole number"),
])
def test_a_bad_step_or_seat_is_a_400(client, params, message):
    made = upload(client, json.dumps(finished_record()))
    response = client.get(f"/api/replays/{made['id']}", params=params)
    assert response.status_code == 400 and message in response.json()["error"]


def test_bad_uploads_are_a_clear_400_and_nothing_is_kept(client):
    record = finished_record()
    tampered = dict(record, scores=[0, 0])
    line = {"game": 0, "seats": ["a", "b"], "record": record}
    cases = [
        (b"\x80\x81binary", 400, "not UTF-8"),
        (b"{not json", 400, "invalid JSON"),
        (b"[1, 2]", 400, "JSON object"),
        (json.dumps(tampered).encode(), 400, "does not replay"),
        (json.dumps({"format": "other"}).encode(), 400, "not a game record this version reads"),
        ((json.dumps(line) + "\n" + json.dumps(line)).encode(), 400, "several lines"),
        (b"[" * 100_000, 400, "nested too deeply"),
        (b" " * (MAX_RECORD_BYTES + 1), 413, "allowed"),
    ]
    for data, status, message in cases:
        response = client.post("/api/replays", content=data)
        assert response.status_code == status, message
        assert message in response.json()["error"]
    assert len(client.app.state.replays._records) == 0
    assert upload(client, json.dumps(line))["id"]  # a records.jsonl line is a record too
    assert client.get("/api/replays/unknown").status_code == 404


def test_a_played_game_becomes_a_shareable_replay(client, play_until):
    state = client.post("/api/games", json={"seed": 1, "opponents": "random"}).json()
    state = play_until(client, state, lambda s: len(s["hands_played"]) >= 1)
    made = client.post(f"/api/games/{state['id']}/replay")
    assert made.status_code == 201
    other_browser = TestClient(client.app)
    shared = other_browser.get(f"/api/replays/{made.json()['id']}").json()
    assert shared["hands_played"] == state["hands_played"]


def test_the_leaderboard_indexes_the_tournaments_under_runs(client, runs):
    boards = client.get("/api/leaderboard").json()["boards"]
    assert [(b["preset"], b["players"]) for b in boards] == [("seven_up", 2)]
    board = boards[0]
    results = json.loads((runs / "tournaments" / "small" / "results.json").read_text())
    agents = {a["agent"]: a for a in results["statistics"]["agents"]}
    (tournament,) = board["tournaments"]
    assert tournament["path"] == "tournaments/small" and tournament["records"]
    for row in tournament["ratings"]:
        assert [row["rating_low"], row["rating_high"]] == agents[row["agent"]]["rating_ci"]
    for row in board["ratings"]:  # one tournament: the pooled fit is its fit
        assert row["rating"] == pytest.approx(agents[row["agent"]]["rating"], abs=1e-6)
        assert row["rating_low"] < row["rating"] < row["rating_high"]
    pairing = {p["agent"]: p for p in tournament["pairings"]}
    assert pairing["heuristic"]["opponents"] == ["random"]
    assert pairing["heuristic"]["margin"] == pytest.approx(-pairing["random"]["margin"])
    games = client.get("/api/leaderboard/games", params={"path": "tournaments/small"}).json()
    assert len(games["games"]) == results["statistics"]["games_used"] and games["records"]
    record = client.get("/api/runs/record", params={"path": "tournaments/small", "game": 2}).json()
    assert replay(record).scores == games["games"][2]["scores"]
    state = client.get("/api/runs/replay", params={"path": "tournaments/small", "game": 2, "step": 3}).json()
    assert state["step"] == 3 and state["seats_agents"] == games["games"][2]["sides"]


def test_the_index_is_rebuilt_when_a_tournament_folder_appears(client, runs, monkeypatch):
    monkeypatch.setattr(serve.leaderboard, "RECHECK_SECONDS", 0.0)
    assert len(client.get("/api/leaderboard").json()["boards"]) == 1
    result = run_tournament(["random", "heuristic"], preset="auction_pitch", players=4, games=2, seed=0,
                            workers=1)
    save(result, runs / "later" / "pitch", plot=False)
    try:
        boards = client.get("/api/leaderboard").json()["boards"]
        assert {(b["preset"], b["players"]) for b in boards} == {("seven_up", 2), ("auction_pitch", 4)}
        pitch = next(b for b in boards if b["preset"] == "auction_pitch")
        assert not pitch["tournaments"][0]["records"]
        missing = client.get("/api/runs/record", params={"path": "later/pitch", "game": 0})
        assert missing.status_code == 404 and "saved no records" in missing.json()["error"]
    finally:
        import shutil
        shutil.rmtree(runs / "later")
    assert len(client.get("/api/leaderboard").json()["boards"]) == 1


@pytest.mark.parametrize("path", ["../", "..", "/etc", "tournaments/small/../../..", "tournaments/../../x",
                                  "notes.txt", "tournaments", "%2e%2e/%2e%2e/etc"])
def test_no_page_reads_a_file_outside_runs(client, path):
    for url in ("/api/runs/record", "/api/runs/replay", "/api/leaderboard/games"):
        response = client.get(url, params={"path": path, "game": 0})
        assert response.status_code == 404, (url, path)
        assert "no tournament" in response.json()["error"]


def test_static_files_do_not_leave_their_folder(client):
    for url in ("/static/../app.py", "/static/..%2fapp.py", "/static/%2e%2e/%2e%2e/pyproject.toml"):
        response = client.get(url)
        assert response.status_code == 404, url


def test_inside_refuses_every_way_out_of_the_folder(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "ok.txt").write_text("x")
    (tmp_path / "secret.txt").write_text("x")
    (tmp_path / "in" / "link.txt").symlink_to(tmp_path / "secret.txt")
    assert inside(tmp_path / "in", "ok.txt", must_exist=True) == (tmp_path / "in" / "ok.txt").resolve()
    for bad in ("../secret.txt", str(tmp_path / "secret.txt"), "link.txt", "a/../../secret.txt", "", "x\x00"):
        with pytest.raises(PathError):
            inside(tmp_path / "in", bad, must_exist=True)
    with pytest.raises(PathError, match="not a file"):
        inside(tmp_path / "in", "missing.txt", must_exist=True)


def test_without_runs_the_leaderboard_says_how_to_get_one():
    client = TestClient(create_app())
    response = client.get("/api/leaderboard")
    assert response.status_code == 404 and "--runs" in response.json()["error"]
    assert client.get("/api/runs/replay", params={"path": "x", "game": 0}).status_code == 404


def test_a_loopback_server_answers_only_its_own_host_names(runs, tmp_path):
    app = create_app(runs, tmp_path / "i.sqlite", allowed_hosts=["localhost", "127.0.0.1"])
    assert TestClient(app, base_url="http://127.0.0.1:8000").get("/api/options").status_code == 200
    assert TestClient(app, base_url="http://evil.example").get("/api/options").status_code == 400


def test_an_index_made_before_is_reused(runs, tmp_path):
    from serve.leaderboard import Leaderboard

    index = tmp_path / "index.sqlite"
    first = Leaderboard(runs, index)
    boards = first.boards()
    first.close()
    again = Leaderboard(runs, index)
    assert not again.refresh()  # nothing changed under runs: not rebuilt
    assert again.boards() == boards
    again.close()


class Payload:
    """Unpickling this creates the file ``marker`` (what an attacker would run instead)."""

    def __init__(self, marker) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_pickled_files_are_never_unpickled(runs, tmp_path):
    import io
    import pickle
    import shutil

    import numpy as np

    from serve.specs import POLICIES

    marker = tmp_path / "unpickled"
    client = TestClient(create_app(runs, tmp_path / "i.sqlite"))
    response = client.post("/api/replays", content=pickle.dumps(Payload(marker)))
    assert response.status_code == 400
    buffer = io.BytesIO()
    np.savez(buffer, **{"action_net.weight": np.array([Payload(marker)], dtype=object)})
    (runs / "evil.npz").write_bytes(buffer.getvalue())
    shutil.copy(POLICIES / "seven_up_2p.json", runs / "evil.json")
    try:
        response = client.post("/api/games", json={"opponents": "ppo:evil.npz"})
        assert response.status_code == 400 and "cannot build the bots" in response.json()["error"]
    finally:
        (runs / "evil.npz").unlink()
        (runs / "evil.json").unlink()
    assert not marker.exists()


@pytest.mark.parametrize("url, params, message", [
    ("/api/leaderboard/games", {}, "give the query parameter path"),
    ("/api/runs/record", {"path": "tournaments/small"}, "give the query parameter game"),
    ("/api/runs/record", {"path": "tournaments/small", "game": "two"}, "game must be a whole number"),
    ("/api/runs/replay", {"path": "tournaments/small", "game": 0, "step": 10**6}, "step must be 0.."),
])
def test_missing_or_bad_query_parameters_are_a_400(client, url, params, message):
    response = client.get(url, params=params)
    assert response.status_code == 400 and message in response.json()["error"]


def test_a_game_missing_from_the_records_is_a_404(client):
    response = client.get("/api/runs/record", params={"path": "tournaments/small", "game": 999})
    assert response.status_code == 404 and "no record of game 999" in response.json()["error"]


def test_a_tournament_file_linked_from_outside_runs_is_not_read(runs, tmp_path, monkeypatch):
    monkeypatch.setattr(serve.leaderboard, "RECHECK_SECONDS", 0.0)
    outside = tmp_path / "elsewhere"
    result = run_tournament(["random", "heuristic"], preset="all_fours", games=2, seed=0, workers=1)
    save(result, outside, plot=False)
    (runs / "linked").mkdir()
    (runs / "linked" / "results.json").symlink_to(outside / "results.json")
    (runs / "folder-link").symlink_to(outside, target_is_directory=True)
    try:
        client = TestClient(create_app(runs, tmp_path / "i.sqlite"))
        boards = client.get("/api/leaderboard").json()["boards"]
        assert [(b["preset"], b["players"]) for b in boards] == [("seven_up", 2)]
    finally:
        (runs / "linked" / "results.json").unlink()
        (runs / "linked").rmdir()
        (runs / "folder-link").unlink()
