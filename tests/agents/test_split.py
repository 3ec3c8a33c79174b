"""The split agent: each kind of decision (bid, discard, play) goes to the agent named for it."""

import numpy as np
import pytest

from agents import AgentError, make_agent
from agents.arena import play_game
from agents.split import SplitAgent, decision_kind
from allfours_env.actions import BEG, DISCARD_BASE, NUM_ACTIONS, PASS, PLAY_BASE, STAND
from allfours_env.rules import Rules


def mask_of(actions):
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[list(actions)] = 1
    return mask


def test_decision_kind_reads_the_legal_actions():
    assert decision_kind(mask_of([STAND, BEG])) == "bid"
    assert decision_kind(mask_of([PASS, PASS + 1])) == "bid"
    assert decision_kind(mask_of([DISCARD_BASE, DISCARD_BASE + 7])) == "discard"
    assert decision_kind(mask_of([PLAY_BASE + 3, PLAY_BASE + 9])) == "play"


class Counting:
    """Wraps an agent and counts the kinds of decisions it was asked for."""

    def __init__(self, agent, seen):
        self.agent, self.seen = agent, seen

    def reset(self, seed=None):
        self.agent.reset(seed)

    def act(self, observation, view):
        self.seen.append(decision_kind(observation["action_mask"]))
        return self.agent.act(observation, view)


@pytest.mark.parametrize("preset, players", [("seven_up", 2), ("all_fours", 3)])
def test_every_decision_goes_to_the_agent_of_its_kind(preset, players):
    agent = make_agent("split:bid=random,play=heuristic", seed=3)
    seen = {kind: [] for kind in agent.parts}
    for kind in agent.parts:
        agent.parts[kind] = Counting(agent.parts[kind], seen[kind])
    rules = Rules.make(preset, players)
    for seed in range(4):
        play_game(rules, [agent] + [make_agent("random", seed=s) for s in range(players - 1)], seed=seed)
    assert seen["bid"] and seen["play"]
    for kind, kinds in seen.items():
        assert set(kinds) <= {kind}


def test_split_with_the_same_agent_everywhere_plays_like_it():
    rules = Rules.make("seven_up", 2)
    for seed in range(3):
        split = play_game(rules, [SplitAgent(seed=1, bid="heuristic", play="heuristic"),
                                  make_agent("random", seed=2)], seed=seed)
        plain = play_game(rules, [make_agent("heuristic", seed=1), make_agent("random", seed=2)], seed=seed)
        assert split.log == plain.log


def test_split_parts_must_be_known_agent_names():
    with pytest.raises(AgentError, match="unknown agent"):
        make_agent("split:bid=wizard")
    with pytest.raises(AgentError, match="does not take"):
        make_agent("split:bid=pimc:wizardry=4")
    assert make_agent("split:bid=pimc:samples=4").parts["bid"].name == "pimc:samples=4"
