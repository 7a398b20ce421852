"""What the one episode loop costs the validation gates: `run_episode` against a bare `Env.step` loop, in one process.

Every gate episode runs through `coworkenv.rollout.agent_loop` (the loop the teachers, RL and evaluation use); this
measures its overhead where it matters most, the ~20 episodes per spec of validation. Procedural specs (`--n` per
capability) are validated with each loop in turn, alternating the order per spec, pinned to one core; the figure is
the per-spec best of `--rounds` in CPU time, so machine load does not decide it. Also printed: the oracle teacher's
recorded episodes per CPU second (`run_agent`, target >= 200 as in bench_rollout.py).

    python benchmarks/bench_episode_loop.py [--n 5] [--rounds 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import coworkenv.validate._episodes as gate_episodes  # noqa: E402
from coworkenv.agents import Policy  # noqa: E402
from coworkenv.env import Env  # noqa: E402
from coworkenv.examples import example_names, load_example  # noqa: E402
from coworkenv.rollout import Episode, OracleTeacher, run_episode  # noqa: E402
from coworkenv.spec import EnvSpec  # noqa: E402
from coworkenv.synth.generate import GeneratorError, generate_specs  # noqa: E402
from coworkenv.synth.taxonomy import load_taxonomy  # noqa: E402
from coworkenv.validate import validate_spec  # noqa: E402

Loop = Callable[[Env, Policy], Episode]


def bare_loop(env: Env, policy: Policy) -> Episode:
    """The baseline: step the Env until it is done, nothing else (what the gates did before the one loop)."""
    env.reset()
    while not env.done:
        env.step(policy.act(env))
    report = env.robustness_report()
    return Episode(env.spec.id, policy.name, env.score(), env.steps, env.truncated, env.state.content_hash(),
                   report.figure, report.injected)


def procedural_specs(n: int) -> list[EnvSpec]:
    specs: list[EnvSpec] = []
    for capability in load_taxonomy(REPO_ROOT / "taxonomy").capabilities.values():
        try:
            specs += generate_specs(capability, n, 0)
        except GeneratorError:
            continue  # an LLM-only capability
    return specs


def gate_rates(specs: list[EnvSpec], rounds: int) -> dict[str, dict[str, float]]:
    """Per loop: validation specs/s and ms of episodes per spec (per-spec best of `rounds`, CPU time)."""
    loops: dict[str, Loop] = {"bare Env.step loop": bare_loop, "run_episode (the one loop)": run_episode}
    spent = [0.0]

    def timed(loop: Loop) -> Loop:
        def run(env: Env, policy: Policy) -> Episode:
            started = time.process_time()
            try:
                return loop(env, policy)
            finally:
                spent[0] += time.process_time() - started
        return run

    best = {name: [(float("inf"), float("inf"))] * len(specs) for name in loops}
    original = gate_episodes.run_episode
    try:
        for round_ in range(rounds):
            for i, spec in enumerate(specs):
                order = list(loops.items()) if (round_ + i) % 2 == 0 else list(loops.items())[::-1]
                for name, loop in order:
                    gate_episodes.run_episode = timed(loop)  # type: ignore[assignment]
                    spent[0] = 0.0
                    started = time.process_time()
                    if not validate_spec(spec).passed:
                        raise SystemExit(f"{spec.id} failed validation with the {name}")
                    whole = time.process_time() - started
                    best[name][i] = (min(best[name][i][0], whole), min(best[name][i][1], spent[0]))
    finally:
        gate_episodes.run_episode = original
    return {name: {"validate_specs_per_s": round(len(specs) / sum(w for w, _ in b), 1),
                   "episode_ms_per_spec": round(1000 * sum(e for _, e in b) / len(specs), 3)}
            for name, b in best.items()}


def oracle_teacher_rate(rounds: int) -> float:
    specs = [load_example(name) for name in example_names()]
    teacher = OracleTeacher(0)
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        for spec in specs:
            teacher.run(spec)
        best = min(best, time.process_time() - started)
    return round(len(specs) / best, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=5, help="specs per capability")
    parser.add_argument("--rounds", type=int, default=5, help="keep each spec's fastest round")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    specs = procedural_specs(args.n)
    rates = gate_rates(specs, args.rounds)
    bare, one = rates.values()
    figures = {"specs": len(specs), "rounds": args.rounds, **rates,
               "loop_overhead_pct": round(100 * (one["episode_ms_per_spec"] / bare["episode_ms_per_spec"] - 1), 1),
               "oracle_teacher_episodes_per_cpu_s": oracle_teacher_rate(3 * args.rounds)}
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"bench_episode_loop: {len(specs)} procedural specs, per-spec best of {args.rounds} rounds, CPU time, one core")
    for name, rate in rates.items():
        print(f"  {name}: validation {rate['validate_specs_per_s']} specs/s, episodes {rate['episode_ms_per_spec']} "
              "ms/spec")
    print(f"  the one loop costs the gates' episodes {figures['loop_overhead_pct']}% over the bare loop")
    print(f"oracle teacher (run_agent, recorded): {figures['oracle_teacher_episodes_per_cpu_s']} episodes per CPU second"
          " -- target >= 200")


if __name__ == "__main__":
    main()
