"""Procedural synthesis plus all ten validation gates (near-miss mutations included): specs validated per second.

One core: the process is pinned to one CPU where the OS allows, and rates use this process's CPU time, so other
load on the machine does not count against them. For every capability of the taxonomy that has a procedural
generator, `--n` specs are generated (seeds `--seed`..) and validated; the figure is specs / (synthesis +
validation CPU seconds), best of `--rounds`. Also printed: the acceptance rate, mean mutation score, episodes
per spec, CPU time per gate, and the same figure for the shipped hand-written examples, alone and inside a
workspace of tau2-retail size (bench_env's ~5,000 mails and ~20,000 log lines: building that world, scanning it for
leaks and indexing it are O(world) once per spec; episodes stay O(records touched)). Target: >= 50 specs/s.

    python benchmarks/bench_validate.py [--n 10] [--seed 0] [--rounds 3] [--taxonomy taxonomy] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a plain script from anywhere
    sys.path.insert(0, str(REPO_ROOT))

from bench_env import large_workspace, with_workspace  # noqa: E402  (a sibling script: the workspace generator)

from coworkenv.examples import example_names, load_example  # noqa: E402
from coworkenv.spec import EnvSpec  # noqa: E402
from coworkenv.synth.generate import GeneratorError, generate_specs  # noqa: E402
from coworkenv.synth.taxonomy import Capability, load_taxonomy  # noqa: E402
from coworkenv.validate import GATES, SpecValidation, validate_spec  # noqa: E402

TARGET_SPECS_PER_S = 50.0


def pin_to_one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    return "not pinned (no sched_setaffinity on this OS)"


def synthesize(caps: list[Capability], n: int, seed: int) -> tuple[list[EnvSpec], list[str]]:
    specs: list[EnvSpec] = []
    skipped = []
    for cap in caps:
        try:
            specs += generate_specs(cap, n, seed)
        except GeneratorError:
            skipped.append(cap.id)  # no procedural generator: an LLM-only capability
    return specs, skipped


def one_round(caps: list[Capability], n: int, seed: int) -> dict[str, Any]:
    gc.collect()
    started = time.process_time()
    specs, skipped = synthesize(caps, n, seed)
    synth_s = time.process_time() - started
    timings: dict[str, float] = {}
    started = time.process_time()
    results = [validate_spec(s, timings=timings) for s in specs]
    validate_s = time.process_time() - started
    return {"specs": specs, "results": results, "skipped": skipped, "synth_s": synth_s,
            "validate_s": validate_s, "timings": timings}


def examples_rate(rounds: int, large: bool = False, repeats: int = 5) -> float:
    specs = [load_example(name) for name in example_names()]
    if large:
        bulk = large_workspace()
        specs = [with_workspace(spec, bulk) for spec in specs]
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        for _ in range(repeats):
            for spec in specs:
                validate_spec(spec)
        best = min(best, time.process_time() - started)
    return repeats * len(specs) / best


def summary(specs: list[EnvSpec], results: list[SpecValidation]) -> dict[str, Any]:
    accepted = [v for v in results if v.passed]
    scores = [v.mutation_score for v in accepted if v.mutation_score is not None]
    gates = [v.gate("mutations") for v in results]
    mutants = [g.details.get("total", 0) for g in gates if g is not None]
    failed: dict[str, int] = {}
    for v in results:
        if v.first_failed_gate:
            failed[v.first_failed_gate] = failed.get(v.first_failed_gate, 0) + 1
    return {
        "specs": len(specs),
        "accepted": len(accepted),
        "acceptance_rate": round(len(accepted) / len(specs), 4) if specs else 0.0,
        "mean_mutation_score": round(sum(scores) / len(scores), 4) if scores else None,
        "mean_mutants_per_spec": round(sum(mutants) / len(mutants), 2) if mutants else 0.0,
        "rejected_by_gate": failed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10, help="specs per capability")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3, help="repeat and keep the fastest round")
    parser.add_argument("--taxonomy", type=Path, default=REPO_ROOT / "taxonomy")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    pinned = pin_to_one_core()
    caps = list(load_taxonomy(args.taxonomy).capabilities.values())
    rounds = [one_round(caps, args.n, args.seed) for _ in range(max(1, args.rounds))]
    best = min(rounds, key=lambda r: r["synth_s"] + r["validate_s"])
    n_specs = len(best["specs"])
    total_s = best["synth_s"] + best["validate_s"]
    figures = {
        "cpu": pinned,
        "capabilities": len(caps) - len(best["skipped"]),
        "skipped_capabilities": best["skipped"],
        **summary(best["specs"], best["results"]),
        "specs_per_s_per_core": round(n_specs / total_s, 1) if total_s else None,
        "validate_only_specs_per_s": round(n_specs / best["validate_s"], 1) if best["validate_s"] else None,
        "synth_ms_per_spec": round(1000 * best["synth_s"] / n_specs, 2) if n_specs else None,
        "gate_ms_per_spec": {g: round(1000 * best["timings"].get(g, 0.0) / n_specs, 3) for g in GATES if n_specs},
        "examples_specs_per_s": round(examples_rate(args.rounds), 1),
        "examples_in_large_workspace_specs_per_s": round(examples_rate(1, large=True, repeats=1), 2),
        "target_specs_per_s": TARGET_SPECS_PER_S,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"bench_validate ({pinned}; CPU time, best of {len(rounds)} rounds)")
    print(f"  {figures['specs']} procedural specs from {figures['capabilities']} capabilities "
          f"({args.n} each; skipped, no generator: {', '.join(best['skipped']) or 'none'})")
    print(f"  accepted {figures['accepted']} ({figures['acceptance_rate']:.1%}), mean mutation score "
          f"{figures['mean_mutation_score']}, {figures['mean_mutants_per_spec']} mutants per spec, "
          f"rejected by gate {figures['rejected_by_gate'] or '{}'}")
    print(f"  synthesis {figures['synth_ms_per_spec']} ms/spec; gates (ms/spec): "
          + ", ".join(f"{g} {ms}" for g, ms in figures["gate_ms_per_spec"].items()))
    print(f"  validation only: {figures['validate_only_specs_per_s']} specs/s; shipped examples: "
          f"{figures['examples_specs_per_s']} specs/s, in a tau2-retail-size workspace: "
          f"{figures['examples_in_large_workspace_specs_per_s']} specs/s")
    verdict = "meets" if (figures["specs_per_s_per_core"] or 0) >= TARGET_SPECS_PER_S else "BELOW"
    print(f"synthesis + all gates: {figures['specs_per_s_per_core']} specs/s per core "
          f"({verdict} the target of >= {TARGET_SPECS_PER_S:g})")


if __name__ == "__main__":
    main()
