"""The JSON API: every endpoint, what it answers and how it refuses (a message and a 4xx status,
never a trace); what a seat sees; games kept apart per browser session."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from starlette.testclient import TestClient  # noqa: E402

from allfours_env import replay  # noqa: E402
from serve.app import create_app  # noqa: E402
from serve.games import GameStore  # noqa: E402
from serve.view import cards  # noqa: E402

pytest_plugins = ["serve_fixtures"]


def new_game(client, **options):
    response = client.post("/api/games", json={"opponents": "heuristic", "seed": 3} | options)
    assert response.status_code == 201, response.text
    return response.json()


def test_options_list_presets_players_and_agents(client):
    options = client.get("/api/options").json()
    assert options["presets"]["seven_up"] == [2, 3, 4] and options["presets"]["pitch_with_joker"] == [3, 4]
    assert {"heuristic", "pimc", "random", "ppo:agents/policies/seven_up_2p.npz"} <= set(options["agents"])


def test_pages_and_static_files_are_served_with_a_strict_content_policy(client):
    for page in ("/play", "/replay", "/leaderboard", "/static/common.js", "/static/app.css"):
        response = client.get(page)
        assert response.status_code == 200, page
        assert response.headers["content-security-policy"].startswith("default-src 'self'")
    assert client.get("/", follow_redirects=False).headers["location"] == "/play"
    html = client.get("/play").text
    assert "http://" not in html and "https://" not in html  # no CDN


@pytest.mark.parametrize("preset, players, seat", [("seven_up", 2, 0), ("auction_pitch", 4, 2),
                                                    ("california_jack", 2, 1)])
def test_a_whole_game_through_the_api_shows_only_the_seats_view(client, preset, players, seat, play_until):
    state = new_game(client, preset=preset, players=players, seat=seat, opponents="random")
    assert state["seat"] == seat and len(state["seats"]) == players
    assert state["seats"][seat]["cards"] is not None
    hands = set()

    def check(state):
        hands.update(h["hand"] for h in state["hands_played"])
        return False

    final = play_until(client, state, check)
    assert final["over"] and final["winner_name"] and final["waiting_for"] is None
    assert max(final["scores"]) >= final["target"]
    assert hands and all(h["awards"] is not None for h in final["hands_played"])
    game = replay(client.get(f"/api/games/{final['id']}/record").json())
    assert game.scores == final["scores"]


def test_the_stock_top_card_is_seen_where_it_lies_face_up_only(client):
    face_up = new_game(client, preset="california_jack", players=2)
    face_down = new_game(client, preset="shasta_sam", players=2)
    assert face_up["stock"]["top"] is not None
    assert face_down["stock"]["left"] > 0 and face_down["stock"]["top"] is None


def test_moves_act_and_refusals(client, play_until):
    state = new_game(client, seat=1)  # seat 1: whoever is eldest, a bot may move first
    game_id = state["id"]
    state = play_until(client, state, lambda s: s["waiting_for"] == "you")
    moves = client.get(f"/api/games/{game_id}/moves").json()
    assert moves["waiting_for"] == "you" and moves["moves"] == state["moves"]
    legal = {m["action"] for m in state["moves"]}
    illegal = next(a for a in range(117) if a not in legal)
    for body, message in [({"move": illegal}, "illegal move"), ({"move": "fly away"}, "not a move"),
                          ({"move": 500}, "out of range"), ({"move": True}, "not a move"),
                          ({"mv": 1}, '{"move"'), ({"move": 1, "x": 2}, '{"move"')]:
        response = client.post(f"/api/games/{game_id}/act", json=body)
        assert response.status_code == 400 and message in response.json()["error"], body
    assert client.post(f"/api/games/{game_id}/bot").status_code == 409
    assert "hand is not over" in client.post(f"/api/games/{game_id}/next-hand").json()["error"]
    by_text = client.post(f"/api/games/{game_id}/act", json={"move": state["moves"][0]["text"]})
    assert by_text.status_code == 200
    after = by_text.json()
    if after["waiting_for"] == "bot":
        assert client.post(f"/api/games/{game_id}/act", json={"move": 0}).status_code == 409


@pytest.mark.parametrize("body, status, message", [
    ({"preset": "nonsense"}, 400, "preset"),
    ({"players": 7}, 400, "players"),
    ({"players": "2"}, 400, "players must be a whole number"),
    ({"seat": 2}, 400, "seat must be 0..1"),
    ({"opponents": "wizard"}, 400, "unknown agent 'wizard'"),
    ({"opponents": ["random", "random"]}, 400, "opponent specs"),
    ({"opponents": "pimc:bogus=1"}, 400, "bogus"),
    ({"opponents": "ppo:/etc/passwd"}, 400, "absolute path"),
    ({"opponents": "ppo:agents/policies/../../../etc/passwd"}, 400, "no shipped policy"),
    ({"opponents": "split:bid=ppo:/etc/passwd,play=random"}, 400, "absolute path"),
    ({"opponents": "ppo:../../etc/passwd"}, 400, "outside the folder"),
    ({"seed": -1}, 400, "seed"),
    ({"seed": 1.5}, 400, "seed"),
    ({"colour": "red"}, 400, "unknown option"),
])
def test_a_bad_new_game_is_a_400_naming_the_problem(client, body, status, message):
    response = client.post("/api/games", json=body)
    assert response.status_code == status
    assert message in response.json()["error"]
    assert "Traceback" not in response.text


def test_a_body_that_is_no_json_object_or_too_large_is_refused(client):
    assert "not JSON" in client.post("/api/games", content=b"{no").json()["error"]
    assert "JSON object" in client.post("/api/games", json=[1, 2]).json()["error"]
    response = client.post("/api/games", content=b" " * (17 << 10))
    assert response.status_code == 413


def test_policies_under_runs_are_allowed_and_outside_refused(runs, tmp_path):
    import shutil

    from serve.specs import POLICIES
    shutil.copy(POLICIES / "seven_up_2p.npz", runs / "mine.npz")
    shutil.copy(POLICIES / "seven_up_2p.json", runs / "mine.json")
    (runs / "escape.npz").symlink_to(POLICIES / "seven_up_2p.npz")
    client = TestClient(create_app(runs, tmp_path / "i.sqlite"))
    assert client.post("/api/games", json={"opponents": "ppo:mine.npz"}).status_code == 201
    for spec in ("ppo:escape.npz", "ppo:../mine.npz", "ppo:nothing.npz"):
        response = client.post("/api/games", json={"opponents": spec})
        assert response.status_code == 400 and "policy" in response.json()["error"], spec
    no_runs = TestClient(create_app())
    assert "--runs" in no_runs.post("/api/games", json={"opponents": "ppo:mine.npz"}).json()["error"]


def test_games_belong_to_their_browser_session(client):
    state = new_game(client)
    assert len(state["id"]) >= 24
    assert client.get(f"/api/games/{state['id']}").status_code == 200
    other = TestClient(client.app)  # another browser: no cookie, then a cookie of its own
    for _ in range(2):
        response = other.get(f"/api/games/{state['id']}")
        assert response.status_code == 404 and "no such game" in response.json()["error"]
        assert other.post(f"/api/games/{state['id']}/bot").status_code == 404
        assert other.get(f"/api/games/{state['id']}/record").status_code == 404
        new_game(other)
    assert client.cookies.get("allfours_session") != other.cookies.get("allfours_session")
    assert client.get("/api/games/not-a-game").status_code == 404


def test_games_are_bounded_per_session_and_in_all_and_expire():
    now = [0.0]
    store = GameStore(None, per_session=2, max_games=3, idle_seconds=100, clock=lambda: now[0])
    client = TestClient(create_app(games=store))
    first, second, third = (new_game(client)["id"] for _ in range(3))
    assert client.get(f"/api/games/{first}").status_code == 404  # the oldest of the session went
    assert client.get(f"/api/games/{third}").status_code == 200
    new_game(TestClient(client.app))
    refused = TestClient(client.app).post("/api/games", json={})
    assert refused.status_code == 503 and "most" in refused.json()["error"]
    now[0] = 150.0
    assert client.get(f"/api/games/{second}").status_code == 404  # expired
    assert TestClient(client.app).post("/api/games", json={}).status_code == 201


def test_a_failing_bot_is_a_message_not_a_trace(client, play_until):
    state = new_game(client, seat=0)
    state = play_until(client, state, lambda s: s["waiting_for"] == "bot")
    live = client.app.state.games.get(client.cookies.get("allfours_session"), state["id"])

    def broken(seat):
        raise RuntimeError("the model file vanished")

    live.bots.act = broken
    response = client.post(f"/api/games/{state['id']}/bot")
    assert response.status_code == 502
    assert response.json()["error"] == (f"player_{state['to_move']}'s agent (heuristic) failed: "
                                        f"RuntimeError: the model file vanished")


def test_an_unexpected_failure_is_a_500_without_a_trace(runs, tmp_path, monkeypatch):
    client = TestClient(create_app(runs, tmp_path / "x.sqlite"), raise_server_exceptions=False)
    monkeypatch.setattr("serve.games.LiveGame.state", lambda self: 1 / 0)
    response = client.post("/api/games", json={})
    assert response.status_code == 500
    assert response.json() == {"error": "the server failed (ZeroDivisionError); its log has the details"}


def test_the_record_saved_after_a_hand_replays_and_holds_the_next_deal(client, play_until):
    state = play_until(client, new_game(client), lambda s: s["waiting_for"] == "next_hand")
    response = client.get(f"/api/games/{state['id']}/record")
    assert response.headers["content-disposition"].startswith("attachment;")
    record = response.json()
    game = replay(record)
    assert game.scores == state["scores"]
    after = client.post(f"/api/games/{state['id']}/next-hand").json()
    seat = after["seat"]
    assert after["seats"][seat]["cards"] == cards(game.hands[seat])  # the record holds the deal made


def test_opponents_in_turn_order_and_a_partner(client):
    state = new_game(client, preset="seven_up", players=4, seat=1, opponents="heuristic", partner="random")
    assert state["agents"] == {"0": "heuristic", "2": "heuristic", "3": "random"}
    state = new_game(client, preset="auction_pitch", players=3, seat=0, opponents=["random", "heuristic"])
    assert state["agents"] == {"1": "random", "2": "heuristic"}
    state = new_game(client, preset="auction_pitch", players=3, seat=0, opponents="random,heuristic")
    assert state["agents"] == {"1": "random", "2": "heuristic"}
