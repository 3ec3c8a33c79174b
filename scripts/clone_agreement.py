"""Where a policy's choices part from a teacher bot's: agreement by kind of decision.

    python scripts/clone_agreement.py runs/tri_imi/model.npz
    python scripts/clone_agreement.py agents/policies/don_2p.npz --teacher heuristic --games 1000

A warm start clones a teacher, and its held-out accuracy is one number for every decision. This
tool says where the disagreements lie. It records ``--games`` games of the teacher against
``--opponent`` (seed ``--seed``, the data of the imitation pipeline, so the positions are the
teacher's own), lets the policy choose at each of the teacher's decisions that had more than one
legal action (its masked argmax), and prints the share of agreement by phase and, for the card play,
by place in the trick (leading or following) and by trick number. A clone that agrees in the first
tricks and not in the last lacks what the teacher reads from the hand's history; one that agrees
when following and not when leading misses the teacher's plan. The game defaults to the one the
policy was trained for (its knobs included); another one plays with the one-line warning that
``evaluate`` prints.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import make_agent  # noqa: E402
from agents.base import AgentError  # noqa: E402
from agents.policy import NumpyActor, load_policy, warn_unfit  # noqa: E402
from allfours_env import Rules  # noqa: E402
from allfours_env.cards import NUM_CARD_IDS  # noqa: E402
from allfours_env.events import Phase  # noqa: E402
from allfours_env.observation import MAX_TRICKS, PHASE, TRICK, TRICKS  # noqa: E402

LAST_TRICK_ROW = 6  #: tricks from the sixth on share a row


def groups(observations: np.ndarray, masks: np.ndarray) -> dict[str, np.ndarray]:
    """Boolean row selections, by label, of the decisions with a choice: each phase present, then the
    card play by place in the trick and by trick number."""
    choice = masks.sum(axis=1) > 1
    phase = observations[:, PHASE:PHASE + len(Phase)].argmax(axis=1)
    selections = {f"phase {Phase(p).label}": choice & (phase == p) for p in np.unique(phase[choice])}
    play = choice & (phase == Phase.PLAY)
    in_trick = observations[:, TRICK * NUM_CARD_IDS:(TRICK + 1) * NUM_CARD_IDS].sum(axis=1).round()
    selections["play, leading"] = play & (in_trick == 0)
    for place in range(1, int(in_trick.max(initial=0)) + 1):
        selections[f"play, card {place + 1} of the trick"] = play & (in_trick == place)
    trick = np.minimum((observations[:, TRICKS] * MAX_TRICKS).round() + 1, LAST_TRICK_ROW)
    for number in range(1, LAST_TRICK_ROW + 1):
        label = f"play, trick {number}" if number < LAST_TRICK_ROW else f"play, trick {number} on"
        selections[label] = play & (trick == number)
    return {label: rows for label, rows in selections.items() if rows.any()}


def agreement(actor: NumpyActor, data: dict[str, np.ndarray]) -> list[tuple[str, int, float]]:
    """(label, decisions, share of them where ``actor``'s masked argmax is the recorded action) for
    every decision with a choice, then for each of :func:`groups`."""
    observations = np.asarray(data["observations"], np.float32)
    masks = np.asarray(data["masks"], bool)
    chosen = np.where(masks, actor.logits(observations), -np.inf).argmax(axis=1)
    agrees = chosen == data["actions"]
    selections = {"every decision with a choice": masks.sum(axis=1) > 1, **groups(observations, masks)}
    return [(label, int(rows.sum()), float(agrees[rows].mean())) for label, rows in selections.items()]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("policy", type=Path, help="a policy file (.npz) or a training checkpoint")
    parser.add_argument("--teacher", default="heuristic", help="the bot whose decisions are compared")
    parser.add_argument("--opponent", default="heuristic", help="the teacher's opponents (default heuristic)")
    parser.add_argument("--preset", help="default: the policy's own")
    parser.add_argument("--players", type=int, help="default: the policy's own")
    parser.add_argument("--games", type=int, default=600, help="games recorded (default 600)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 1:
        parser.error(f"--games and --workers must be >= 1, got {args.games} and {args.workers}")
    try:
        actor, meta = load_policy(args.policy)
        game = meta["trained_for"]
        if args.preset or args.players:
            rules = Rules.make(args.preset or game["preset"], args.players or game["num_players"])
        else:
            rules = Rules.make(game["preset"], game["num_players"], **(game.get("knobs") or {}))
        for spec in (args.teacher, args.opponent):
            make_agent(spec)
    except (AgentError, ValueError) as error:
        parser.error(str(error))
    warn_unfit([make_agent(f"ppo:{args.policy}")], rules)
    from train.imitation import collect

    data = collect(args.teacher, args.opponent, rules, args.games, seed=args.seed, workers=args.workers)
    print(f"{args.policy} against {args.teacher}'s choices, {args.games} games of {rules.preset} "
          f"{rules.num_players}p (seed {args.seed})\n")
    print("| decisions | count | agreement |\n| --- | ---: | ---: |")
    for label, count, share in agreement(actor, data):
        print(f"| {label} | {count:,} | {share:.1%} |")


if __name__ == "__main__":
    main()
