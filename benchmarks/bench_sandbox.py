"""Per-call cost of a sandboxed Python check, with every layer this machine allows and in degraded mode.

Figures: wall time of `run_sandboxed` on a trivial check (spawn, isolation, audit hook, result, cleanup), as
median and 10th/90th percentiles over `--calls` sequential calls, for the full layer set and for the degraded set
(no namespaces, no memory cgroup, no uid drop: what an unprivileged container leaves), and the CPU time (user +
system) the child and the host spent per call, which other load on the machine barely changes. Also the bare
interpreter start (`python -I -S -B -c pass`), which the sandbox cannot go below. Wall times include whatever else
the machine is doing: compare figures taken back to back.

    python benchmarks/bench_sandbox.py [--calls 40] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a plain script from anywhere
    sys.path.insert(0, str(REPO_ROOT))

from coworkenv import sandbox  # noqa: E402

CHECK = "def check(state):\n    return state['n'] + 1\n"
DEGRADED = frozenset({"netns", "timens", "pidns", "mountns", "cgroup", "uid"})


def _summary(durations: list[float]) -> dict[str, float]:
    ordered = sorted(durations)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"median_ms": round(statistics.median(ordered) * 1000, 1), "p10_ms": round(pick(0.1) * 1000, 1),
            "p90_ms": round(pick(0.9) * 1000, 1)}


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _time_calls(calls: int, disable: frozenset[str]) -> tuple[dict[str, float], tuple[str, ...]]:
    durations, layers = [], ()
    cpu_start = _cpu_seconds()
    for n in range(calls):
        start = time.perf_counter()
        outcome = sandbox._execute(CHECK, "check", {"state": {"n": n}}, sandbox.SandboxLimits(), disable=disable)
        durations.append(time.perf_counter() - start)
        assert outcome.result.value == n + 1, outcome
        layers = outcome.layers
    cpu_ms = round((_cpu_seconds() - cpu_start) / calls * 1000, 1)
    return {**_summary(durations), "cpu_ms": cpu_ms}, layers


def _time_bare_interpreter(calls: int) -> dict[str, float]:
    durations = []
    cpu_start = _cpu_seconds()
    for _ in range(calls):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-S", "-B", "-c", "pass"], check=True)
        durations.append(time.perf_counter() - start)
    return {**_summary(durations), "cpu_ms": round((_cpu_seconds() - cpu_start) / calls * 1000, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sandbox.isolation_layers()  # warm-up: compiles the child's modules once, as a long-lived host would
    full, full_layers = _time_calls(args.calls, frozenset())
    degraded, degraded_layers = _time_calls(args.calls, DEGRADED)
    bare = _time_bare_interpreter(args.calls)
    report = {"full": {**full, "layers": list(full_layers)},
              "degraded": {**degraded, "layers": list(degraded_layers)},
              "bare_interpreter": bare, "missing": sandbox.isolation_report()}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for name in ("full", "degraded"):
        row = report[name]
        print(f"{name:9s} median {row['median_ms']:6.1f} ms  p10 {row['p10_ms']:6.1f}  p90 {row['p90_ms']:6.1f}  "
              f"cpu {row['cpu_ms']:5.1f} ms  layers: {', '.join(row['layers'])}")
    print(f"bare python -I -S -B: median {bare['median_ms']:.1f} ms  p10 {bare['p10_ms']:.1f}  p90 {bare['p90_ms']:.1f}  "
          f"cpu {bare['cpu_ms']:.1f} ms")
    for layer, why in report["missing"].items():
        print(f"missing {layer}: {why}")


if __name__ == "__main__":
    main()
