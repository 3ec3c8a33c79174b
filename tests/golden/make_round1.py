"""Generate the golden records and the tournament table of tests/test_golden.py (run from the
repository root: ``python tests/golden/make_round1.py``). First written by the round-1 code; run again
when a bot's play changes on purpose. The table leaves out the auction statistics and the fair share, as
the test does (no game of these presets has an auction; every pairing's fair share is one half)."""
import json

from agents import make_agent
from agents.arena import play_game
from allfours_env import Rules
from evaluate import run_tournament

cases = [("seven_up", 2), ("seven_up", 3), ("seven_up", 4), ("all_fours", 2), ("all_fours", 3),
         ("all_fours", 4), ("trinidad", 2), ("trinidad", 4), ("blind_all_fours", 2),
         ("blind_all_fours", 3), ("blind_all_fours", 4)]
with open("tests/golden/round1_records.jsonl", "w") as f:
    for preset, n in cases:
        for seed in range(3):
            for lineup in (("heuristic", "random"), ("pimc:samples=4", "heuristic")):
                if n > 2 and lineup[0].startswith("pimc") and seed > 0:
                    continue
                players = [make_agent(lineup[s % 2]) for s in range(n)]
                game = play_game(Rules.make(preset, n), players, seed=seed)
                f.write(json.dumps({"preset": preset, "players": n, "seed": seed, "agents": list(lineup),
                                    "record": game.record()}) + "\n")
res = run_tournament(["heuristic", "random", "pimc:samples=4"], games=40, seed=0)
s = json.loads(json.dumps(res.summary(), sort_keys=True, default=str))
for numbers in [*s["agents"], *(r for t in s["tables"] for r in t["results"])]:
    for kind in ("pass", "bid", "hold"):
        numbers["decisions"].pop(kind)
    for key in ("contracts", "bid_rate", "contract_rate", "made_rate", "mean_contract", "fair_share"):
        numbers.pop(key)
json.dump(s, open("tests/golden/round1_tournament.json", "w"), indent=1, sort_keys=True, default=str)
