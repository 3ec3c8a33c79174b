"""A policy with the end of its hands searched (``ppo:FILE,endgame=N``, agents/endgame.py): which
decisions are the search's, that those are pimc's exact solves and the rest the network's, that the
policy file's own setting is read, and that bad settings are refused in one line."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from agents import Agent, AgentError, make_agent
from agents.arena import play_game
from agents.endgame import in_endgame
from agents.pimc import PIMCAgent
from agents.policy import choose
from allfours_env import Rules
from allfours_env.engine import Game
from allfours_env.events import Phase
from allfours_env.knowledge import SeatView

POLICY = Path(__file__).resolve().parents[2] / "agents" / "policies" / "seven_up_2p.npz"
SAMPLES_MESSAGE = "endgame samples must be 'auto' or a whole number of deals >= 1"


def played_views(preset: str, players: int, seed: int):
    """(game, view) at every decision of one game of random play."""
    rules, rng = Rules.make(preset, players), random.Random(seed)
    game = Game(rules, seed=seed)
    while not game.is_over and game.hand_number < 6:
        yield game, SeatView(game, game.current_player)
        game.apply(rng.choice(game.legal_actions()))


@pytest.mark.parametrize(("preset", "players", "cards"), [
    ("seven_up", 2, 8), ("california_jack", 2, 12), ("auction_pitch", 4, 12), ("blind_all_fours", 2, 6),
])
def test_the_search_takes_exactly_the_cards_played_with_few_cards_left_and_no_stock(preset, players, cards):
    seen = {True: 0, False: 0}
    for game, view in played_views(preset, players, seed=3):
        left = sum(h.bit_count() for h in game.hands)
        stock_left = game.rules.plan.stock and view.stock_size() > 0
        expected = game.phase == Phase.PLAY and game.trump >= 0 and left <= cards and not stock_left
        assert in_endgame(view, cards) == expected
        seen[expected] += 1
    assert seen[True] > 10 and seen[False] > 10


class Checked(Agent):
    """``ppo:POLICY,endgame=8``, checking each decision against pimc's and the bare network's."""

    needs_observation = True

    def __init__(self) -> None:
        super().__init__(0)
        self.agent = make_agent(f"ppo:{POLICY},endgame=8", seed=11)
        self.bare = make_agent(f"ppo:{POLICY},endgame=0")
        self.search = PIMCAgent(seed=11, exact_cards=8)
        self.counts = {True: 0, False: 0}

    def reset(self, seed=None) -> None:
        super().reset(seed)
        for part in (self.agent, self.bare, self.search):
            part.reset(seed)

    def act(self, observation, view):
        action = self.agent.act(observation, view)
        searched = in_endgame(view, 8)
        if searched:
            assert action == self.search.act(None, view)
        else:
            assert action == self.bare.act(observation, view) == choose(self.agent.actor, observation,
                                                                        True, None)
        self.counts[searched] += 1
        return action


def test_endgame_decisions_are_pimcs_exact_solve_and_the_others_the_networks():
    """In whole games against heuristic: every decision with at most 8 cards left is the one
    ``PIMCAgent(exact_cards=8)`` makes with the same seed, every other one the network's argmax."""
    checked = Checked()
    for seed in range(2):
        play_game(Rules.make("seven_up", 2), [checked, make_agent("heuristic")], seed=seed)
    assert checked.counts[True] > 5 and checked.counts[False] > 5


def copy_policy(tmp_path: Path, play) -> Path:
    """The seven_up policy copied to ``tmp_path`` with ``"play"`` set in its metadata."""
    target = tmp_path / "policy.npz"
    shutil.copyfile(POLICY, target)
    meta = json.loads(POLICY.with_suffix(".json").read_text())
    meta["play"] = play
    target.with_suffix(".json").write_text(json.dumps(meta))
    return target


def test_the_policy_file_names_its_endgame_and_the_option_overrides_it(tmp_path):
    path = copy_policy(tmp_path, {"endgame": 6})
    assert make_agent(f"ppo:{path}").endgame.cards == 6
    assert make_agent(f"ppo:{path},endgame=10").endgame.cards == 10
    assert make_agent(f"ppo:{path},endgame=0").endgame is None
    assert make_agent(f"ppo:{copy_policy(tmp_path, {})}").endgame is None  # no setting: the network alone


def test_the_policy_file_names_its_searched_deals_and_the_option_overrides_them(tmp_path):
    path = copy_policy(tmp_path, {"endgame": 8, "samples": 7})
    assert make_agent(f"ppo:{path}").endgame.samples == 7
    assert make_agent(f"ppo:{path},endgame_samples=9").endgame.samples == 9
    assert make_agent(f"ppo:{path},endgame=6").endgame.samples == 7  # the count and the deals apart
    assert make_agent(f"ppo:{copy_policy(tmp_path, {'endgame': 8})}").endgame.samples == "auto"


def test_the_searched_deals_are_the_ones_pimc_draws_with_that_sample_count():
    """``endgame_samples=5`` plays what ``PIMCAgent(exact_cards=8, samples=5)`` plays with the same
    seed, and on some position a different card than with pimc's own count (the option reaches the
    search)."""
    fewer = make_agent(f"ppo:{POLICY},endgame=8,endgame_samples=1", seed=4)
    search = PIMCAgent(seed=4, exact_cards=8, samples=1)
    default = make_agent(f"ppo:{POLICY},endgame=8", seed=4)
    checked = differ = 0
    for seed in range(6):
        for _game, view in played_views("seven_up", 2, seed=seed):
            if in_endgame(view, 8) and len(view.legal_actions()) > 1:
                for agent in (fewer, search, default):
                    agent.reset(seed)
                card = fewer.endgame.act(view)
                assert card == search.act(None, view)
                differ += card != default.endgame.act(view)
                checked += 1
    assert checked > 10 and differ > 0


@pytest.mark.parametrize(("spec", "message"), [
    ("ppo:{path},endgame=1", "endgame must be 0 (off) or a whole number of cards >= 2, got 1"),
    ("ppo:{path},endgame=true", "endgame must be 0 (off) or a whole number of cards >= 2, got True"),
    ("ppo:{path},path=other.npz", "names the policy file twice"),
    ("ppo:{path},endgame_samples=0", f"{SAMPLES_MESSAGE}, got 0"),
    ("ppo:{path},endgame_samples=2.5", f"{SAMPLES_MESSAGE}, got 2.5"),
    ("ppo:,endgame=8", "a trained policy needs its file"),
])
def test_bad_endgame_options_are_refused_in_one_line(spec, message):
    with pytest.raises(AgentError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        make_agent(spec.format(path=POLICY))
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("play", [{"endgame": 1}, {"endgame": "8"}, [8], {"endgame": 8, "samples": 0},
                                  {"endgame": 8, "sample": 40}])
def test_a_policy_file_with_a_bad_play_setting_is_refused(tmp_path, play):
    path = copy_policy(tmp_path, play)
    with pytest.raises(AgentError, match="policy.json") as err:
        make_agent(f"ppo:{path}")
    assert "\n" not in str(err.value)


def test_the_search_decides_the_same_whatever_the_hidden_cards():
    """Redraw every card hidden from the deciding seat: the endgame search's card is the same."""
    agent = make_agent(f"ppo:{POLICY},endgame=8", seed=2)
    rng = random.Random(5)
    checked = 0
    for _game, view in played_views("seven_up", 2, seed=8):
        if in_endgame(view, 8) and len(view.legal_actions()) > 1:
            other = view.resample(rng)
            seat = view.seat
            agent.reset(9)
            first = agent.endgame.act(view)
            agent.reset(9)
            assert agent.endgame.act(SeatView(other, seat)) == first
            checked += 1
    assert checked > 3
