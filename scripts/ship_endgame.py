"""Score a shipped policy with the end of its hands searched, and write that play into its file.

    python scripts/ship_endgame.py seven_up_2p --endgame 8
    python scripts/ship_endgame.py auction_pitch_4p --endgame 12 --seeds 1 2 3 4
    python scripts/ship_endgame.py seven_up_2p --endgame 8 --samples 160

A shipped policy (``agents/policies/NAME.npz``) may play the last cards of each hand by search
(:mod:`agents.endgame`): its ``.json`` then says ``"play": {"endgame": N}``, and ``ppo:`` plays it so
unless told ``ppo:...,endgame=0``. This plays the publication tables of ``scripts/ship_policy.py``
(and the heuristic row on ``--seeds``) with ``ppo:agents/policies/NAME.npz,endgame=N`` and writes the
file's ``play`` (with ``"samples"`` when ``--samples`` names the deals a searched decision
draws), its ``evaluation`` (these tables, with the bar) and ``evaluation_network`` (the
tables of the network alone, as they stood, their commands now with ``endgame=0``). The weights are
not touched. ``--endgame 0`` returns a policy to its network alone (no games are played).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.base import AgentError  # noqa: E402
from agents.endgame import check_cards, check_samples  # noqa: E402
from agents.pimc import AUTO  # noqa: E402
from agents.policy_file import read_metadata  # noqa: E402

_SPEC = importlib.util.spec_from_file_location("ship_policy", ROOT / "scripts" / "ship_policy.py")
ship_policy = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(ship_policy)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ship_endgame.py", description=__doc__.split("\n\n")[0])
    p.add_argument("name", help="the shipped policy, e.g. seven_up_2p (agents/policies/NAME.npz)")
    p.add_argument("--endgame", type=int, required=True,
                   help="cards left in all hands from which the search plays (0: the network alone)")
    p.add_argument("--samples", type=int, default=None,
                   help="deals drawn for each searched decision (default: pimc's for the game)")
    p.add_argument("--seeds", type=int, nargs="*", default=[1, 2, 3], help="other deal sets (default: 1 2 3)")
    p.add_argument("--games", type=int, default=2000, help="games per opponent (default: 2000)")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default: 2)")
    p.add_argument("--dest", type=Path, default=ROOT / "agents" / "policies",
                   help="where shipped policies live")
    return p


def network_evaluation(meta: dict[str, Any], name: str) -> dict[str, Any]:
    """The network-alone tables of ``meta``: kept from a previous endgame, else its evaluation with
    commands that say ``endgame=0``."""
    if "evaluation_network" in meta:
        return meta["evaluation_network"]
    evaluation = dict(meta["evaluation"])
    agent = f"ppo:agents/policies/{name}.npz"
    evaluation["commands"] = [line.replace(f"{agent} ", f"{agent},endgame=0 ", 1)
                              for line in evaluation["commands"]]
    return evaluation


def with_endgame(meta: dict[str, Any], name: str, cards: int, scored: dict[str, Any] | None,
                 args: argparse.Namespace) -> dict[str, Any]:
    """The policy's metadata playing with an endgame of ``cards`` (``scored``: its tables; the deals
    a decision draws: ``args.samples``, ``None`` for pimc's), or, with 0, the network alone again."""
    network = network_evaluation(meta, name)
    shipped = {key: value for key, value in meta.items() if key not in ("play", "evaluation_network")}
    if not cards:
        shipped["evaluation"] = {**network, "commands": [
            line.replace(",endgame=0 ", " ", 1) for line in network["commands"]]}
        return shipped
    game = meta["trained_for"]
    rows, others = scored["rows"], scored["others"]
    sets = [rows["heuristic"]["win_rate"], *others.values()]
    shipped["play"] = {"endgame": cards} | ({} if args.samples is None else {"samples": args.samples})
    shipped["evaluation"] = {
        "commands": ship_policy.commands(f"ppo:agents/policies/{name}.npz", None, game, args.games,
                                         args.workers),
        "note": f"the network plays until all hands hold {cards} cards, then the search "
                f"(agents/endgame.py{searched_deals(args.samples)}); the network alone: evaluation_network",
        **rows,
        "other_deal_sets": {"note": f"the heuristic row of the same tables with --seed "
                                    f"{', '.join(map(str, args.seeds))}", "heuristic": others},
        "bar": ship_policy.bar_text(rows, sum(sets) / len(sets), len(sets), scored["heuristic_vs_random"],
                                    game, args.games),
    }
    shipped["evaluation_network"] = network
    return shipped


def searched_deals(samples: int | None) -> str:
    """How many deals a searched decision draws, for the evaluation note ('' for pimc's own)."""
    return "" if samples is None else f", {samples} deals a decision"


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    path = args.dest / f"{args.name}.npz"
    try:
        cards = check_cards(args.endgame, "--endgame")
        if args.samples is not None:
            check_samples(args.samples, "--samples")
            if not cards:
                raise AgentError("--samples needs an --endgame of at least 2 cards")
        if not path.is_file():
            raise AgentError(f"{path} not found: name a shipped policy (agents/policies/NAME.npz, "
                             f"without .npz)")
        if args.games < 2 or 0 in args.seeds:
            raise AgentError("--games must be at least 2 and --seeds must not repeat seed 0 "
                             "(the publication deals)")
        meta = read_metadata(path)
    except AgentError as err:
        print(f"ship_endgame.py: error: {err}", file=sys.stderr)
        return 2
    label = f"ppo:agents/policies/{args.name}.npz"
    scored = None
    if cards:
        samples = AUTO if args.samples is None else args.samples  # not the file's own, which is replaced
        scored = ship_policy.score(args, label, meta["trained_for"],
                                   f"ppo:{path},endgame={cards},endgame_samples={samples}")
    shipped = with_endgame(meta, args.name, cards, scored, args)
    path.with_suffix(".json").write_text(json.dumps(shipped, indent=1) + "\n")
    print(json.dumps(shipped["evaluation"], indent=1))
    print(f"wrote {path.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
