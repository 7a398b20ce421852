"""Verifier benchmark: honest scores and speed.

Prints, per capability, the mean and max score of the do-nothing agent and the oracle's mean over N generated
specs (the noop must score about 0, the oracle 1), then uncached verifications per second on the shipped
examples (every check evaluated from the world, the audit log and the text; `Env.score()` caches, this does
not).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_verifier.py [--specs 20] [--seconds 0.3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from coworkenv import Env, NoopPolicy, OraclePolicy, run_episode
from coworkenv.examples import example_names, load_example
from coworkenv.synth import generate_spec, load_taxonomy

ROOT = Path(__file__).resolve().parents[1]


def honest_scores(n: int) -> float:
    """Print noop/oracle scores per capability; return the mean noop score over every capability."""
    taxonomy = load_taxonomy(ROOT / "taxonomy")
    print(f"{'capability':34} {'noop mean':>9} {'noop max':>9} {'oracle mean':>11}  (over {n} specs each)")
    means = []
    for cap_id in sorted(taxonomy.capabilities):
        noop, oracle = [], []
        for seed in range(n):
            spec = generate_spec(taxonomy[cap_id], seed)
            noop.append(run_episode(Env(spec), NoopPolicy()).result.score)
            oracle.append(run_episode(Env(spec), OraclePolicy(spec)).result.score)
        means.append(statistics.mean(noop))
        print(f"{cap_id:34} {means[-1]:9.3f} {max(noop):9.3f} {statistics.mean(oracle):11.3f}")
    overall = statistics.mean(means)
    print(f"{'all capabilities':34} {overall:9.3f}")
    return overall


def verification_rate(seconds: float) -> None:
    """Print uncached verifications/s after the reference episode of each example (best of 5)."""
    print(f"\n{'example':22} {'checks':>6} {'verifications/s':>16}")
    for name in example_names():
        spec = load_example(name)
        env = Env(spec)
        run_episode(env, OraclePolicy(spec))
        best = 0.0
        for _ in range(5):
            start, k = time.process_time(), 0
            while time.process_time() - start < seconds:
                env.verifier.score(env.state, env.audit, env.replies, env.notes)
                k += 1
            best = max(best, k / (time.process_time() - start))
        print(f"{name:22} {len(spec.checks):6} {best:16.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--specs", type=int, default=20, help="generated specs per capability")
    parser.add_argument("--seconds", type=float, default=0.3, help="timing window per round")
    args = parser.parse_args()
    honest_scores(args.specs)
    verification_rate(args.seconds)


if __name__ == "__main__":
    main()
