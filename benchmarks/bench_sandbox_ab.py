"""Sandboxed calls per second of two checkouts, alternated at the same load: this one against a base (e.g. main).

Each round runs one worker process per checkout, one after the other (base first in odd rounds, this one first in
even rounds), each worker a warmed-up host that times `--calls` sequential sandboxed calls of two checks with
every layer this machine allows: a trivial check (`return n + 1`) and a typical corpus check
(`tests/sandbox_corpus/stdlib_stack_formatting_above_the_code.py`: imports inspect, logging, traceback, warnings and
formats the stack). Printed per checkout and check: the median over rounds of runs/s (wall) and of CPU ms per call
(host + child, user + system, which other load barely moves), and the ratio this/base. Wall figures move with the
machine's load: only the alternated pairs compare.

    python benchmarks/bench_sandbox_ab.py --base /work/main [--rounds 5] [--calls 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPUS_CHECK = "tests/sandbox_corpus/stdlib_stack_formatting_above_the_code.py"
WORKER = r'''
import json, resource, sys, time
from coworkenv import sandbox

def cpu():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

calls, corpus = int(sys.argv[1]), open(sys.argv[2], encoding="utf-8").read()
checks = {"trivial": ("def check(n):\n    return n + 1\n", lambda n: {"n": n}, lambda n: n + 1),
          "corpus": (corpus, lambda n: {}, lambda n: 1)}
sandbox.isolation_layers()  # warm-up: what a long-lived host compiles once
report = {}
for name, (code, payload, expected) in checks.items():
    wall0, cpu0 = time.perf_counter(), cpu()
    for n in range(calls):
        outcome = sandbox._execute(code, "check", payload(n), sandbox.SandboxLimits())
        assert outcome.result.value == expected(n), outcome
    wall, spent = time.perf_counter() - wall0, cpu() - cpu0
    report[name] = {"runs_per_s": calls / wall, "cpu_ms": spent / calls * 1000}
print(json.dumps(report))
'''


def _worker(checkout: Path, calls: int) -> dict[str, dict[str, float]]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, "-c", WORKER, str(calls), str(REPO_ROOT / CORPUS_CHECK)], cwd=checkout,
                          env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the worker for {checkout} failed:\n{done.stderr[-2000:]}")
    result: dict[str, dict[str, float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the checkout to compare with (e.g. /work/main)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    trees = {"base": args.base.resolve(), "this": REPO_ROOT}
    samples: dict[str, list[dict[str, dict[str, float]]]] = {"base": [], "this": []}
    for round_ in range(args.rounds):
        order = ("base", "this") if round_ % 2 == 0 else ("this", "base")
        for which in order:
            samples[which].append(_worker(trees[which], args.calls))
    report: dict[str, dict[str, dict[str, float]]] = {}
    for which, runs in samples.items():
        report[which] = {check: {metric: round(statistics.median(run[check][metric] for run in runs), 2)
                                 for metric in ("runs_per_s", "cpu_ms")} for check in runs[0]}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for check in report["this"]:
        base, this = report["base"][check], report["this"][check]
        print(f"{check:8s} base {base['runs_per_s']:6.1f} runs/s {base['cpu_ms']:5.1f} ms CPU | this "
              f"{this['runs_per_s']:6.1f} runs/s {this['cpu_ms']:5.1f} ms CPU | x{this['runs_per_s'] / base['runs_per_s']:.2f}"
              f" runs/s, CPU {this['cpu_ms'] / base['cpu_ms']:.2f}")


if __name__ == "__main__":
    main()
