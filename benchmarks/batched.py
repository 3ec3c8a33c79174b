"""Speed of the batched JAX core: random play inside ``jit``, decisions/s by batch size.

    python benchmarks/batched.py                                  # every preset, batch 1 … 16,384
    python benchmarks/batched.py --preset seven_up --batch-sizes 1,4096 --steps 200

For each preset (at its first player count; ``--players`` for another) and batch size, one jitted
function plays ``--steps`` decisions in every game of the batch: the action is drawn from the legal mask
inside ``jit`` (``batched.random_action``: one random integer per game; ``--draw categorical`` for
``jax.random.categorical`` over the masked logits, which draws 117 random numbers per game), games that
end are dealt again at once (``batched.auto_reset``), and every decision computes the observation
(float32[1251]) and the mask of the seat to move. The compile time of that function is printed, then the
median decisions/s of ``--repeats`` timed runs, each from the state after ``--warmup`` decisions per
game (games dealt at once end their hands together; after a few hundred decisions they are spread as in
training). In the same run, as references: the AEC ``raw_env`` (observation + mask, benchmarks/aec.py's
loop), OpenSpiel's C++ trick-taking games (benchmarks/engine.py's loop, no observation) where
``open_spiel`` is installed, and pgx's ``leduc_holdem`` and ``kuhn_poker`` (the same jitted loop) where
``pgx`` is installed (``pip install -e '.[bench]'``). Ratios are printed against ``raw_env``. Machines
are shared and noisy: read the figures as rough.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import allfours_env  # noqa: E402
from allfours_env import PRESETS, batched  # noqa: E402

BATCH_SIZES = (1, 64, 1024, 4096, 16384)


def categorical_action(key, mask):
    """A random legal action per mask by ``jax.random.categorical`` over the masked logits."""
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf)).astype(jnp.int32)


DRAWS = {"uniform": batched.random_action, "categorical": categorical_action}


def random_play(step, batch: int, steps: int, draw=batched.random_action):
    """A jitted ``(state, key) -> state`` playing ``steps`` random legal decisions in each of
    ``batch`` games; ``step`` is an auto-resetting ``(state, action, key) -> (state, ...)``;
    ``draw(key, masks)`` the actions."""
    vstep = jax.vmap(step)

    def play(state, key):
        def body(i, carry):
            state, key = carry
            key, choose_key, step_key = jax.random.split(key, 3)
            action = draw(choose_key, state.legal_action_mask)
            state = vstep(state, action, jax.random.split(step_key, batch))[0]
            return state, key

        return jax.lax.fori_loop(0, steps, body, (state, key))[0]

    return jax.jit(play)


def measure(init, step, batch: int, steps: int, repeats: int, warmup: int = 0,
            draw=batched.random_action) -> tuple[float, float]:
    """(compile seconds, median decisions/s) of :func:`random_play` at ``batch``, timed from the
    state after ``warmup`` decisions per game (rounded up to a multiple of ``steps``): games dealt
    at once reach their hands' ends together, so the first decisions of a fresh batch come in
    bursts of deals; after a few hundred the games are spread over their hands as in training."""
    state = jax.jit(jax.vmap(init))(jax.random.split(jax.random.PRNGKey(0), batch))
    play = random_play(step, batch, steps, draw)
    start = time.perf_counter()
    compiled = play.lower(state, jax.random.PRNGKey(1)).compile()
    compile_s = time.perf_counter() - start
    warmed = jax.block_until_ready(compiled(state, jax.random.PRNGKey(2)))
    if warmup > 0:
        state = warmed
        for r in range(-(-warmup // steps) - 1):
            state = compiled(state, jax.random.PRNGKey(1000 + r))
        jax.block_until_ready(state)
    rates = []
    for r in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(compiled(state, jax.random.PRNGKey(3 + r)))
        rates.append(batch * steps / (time.perf_counter() - start))
    return compile_s, statistics.median(rates)


def _row(name: str, batch: int, compile_s: float, rate: float, raw: float) -> str:
    return f"{name:<30}{batch:>7}{compile_s:>11.1f}{rate:>14,.0f}{rate / raw:>11.2f}"


def pgx_step(env):
    """pgx's env as an auto-resetting ``(state, action, key) -> (state,)``."""
    from pgx.experimental import auto_reset

    stepper = auto_reset(env.step, env.init)
    return lambda state, action, key: (stepper(state, action, key),)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", action="append", choices=sorted(PRESETS), help="only these presets")
    parser.add_argument("--players", type=int, help="player count (default: each preset's first)")
    parser.add_argument("--batch-sizes", default=",".join(map(str, BATCH_SIZES)))
    parser.add_argument("--steps", type=int, default=100, help="decisions per game per timed run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs; the median is reported")
    parser.add_argument("--warmup", type=int, default=200,
                        help="decisions per game played before the timed runs (0: time a fresh batch)")
    parser.add_argument("--draw", choices=sorted(DRAWS), default="uniform",
                        help="how the random actions are drawn (default: batched.random_action)")
    parser.add_argument("--reference-steps", type=int, default=20_000, help="raw_env / OpenSpiel decisions")
    args = parser.parse_args(argv)
    sizes = [int(b) for b in args.batch_sizes.split(",")]
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}; random play, {args.steps} decisions per "
          f"game per run, median of {args.repeats} runs after {args.warmup} warm-up decisions; observation + "
          f"mask at every decision; actions drawn by {args.draw}")
    draw = DRAWS[args.draw]

    from aec import steps_per_second

    raw = statistics.median(steps_per_second(allfours_env.raw_env("seven_up", 2), args.reference_steps, r)
                            for r in range(args.repeats))
    print(f"{'reference: raw_env seven_up 2p (obs + mask)':<48}{raw:>14,.0f} decisions/s")
    try:
        import pyspiel  # noqa: F401
        from engine import OPENSPIEL_GAMES, bench_openspiel
    except ImportError:
        print("(OpenSpiel not installed: pip install -e '.[bench]' to compare in the same run)")
    else:
        for name in OPENSPIEL_GAMES:
            rate = statistics.median(bench_openspiel(name, 200, r)[0] for r in range(args.repeats))
            print(f"{f'reference: openspiel {name} (no obs)':<48}{rate:>14,.0f} decisions/s")

    header = f"{'game':<30}{'batch':>7}{'compile s':>11}{'decisions/s':>14}{'x raw_env':>11}"
    print(header)
    rows = []
    for preset in args.preset or list(PRESETS):
        players = args.players or PRESETS[preset]["players"][0]
        env = batched.make(preset, players)
        step = batched.auto_reset(env)
        for batch in sizes:
            compile_s, rate = measure(env.init, step, batch, args.steps, args.repeats, args.warmup, draw)
            rows.append((f"allfours {preset} {players}p", batch, compile_s, rate))
            print(_row(rows[-1][0], batch, compile_s, rate, raw), flush=True)
    try:
        import pgx
    except ImportError:
        print("(pgx not installed: pip install -e '.[bench]' to compare in the same run)")
        return
    for name in ("leduc_holdem", "kuhn_poker"):
        env = pgx.make(name)
        for batch in sizes:
            compile_s, rate = measure(env.init, pgx_step(env), batch, args.steps, args.repeats, args.warmup,
                                     draw)
            print(_row(f"pgx {name}", batch, compile_s, rate, raw), flush=True)


if __name__ == "__main__":
    main()
