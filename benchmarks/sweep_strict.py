"""The strict sweep: every capability's procedural specs of seeds 1..N and the shipped examples, each through
strict validation, the way a verifier change is held to "no sound spec newly rejected".

Prints each rejected spec with its failed gates and error codes, then the count and the time. On main (2026-12-05)
the 690 procedural specs of seeds 1-30 and the 5 examples reject only `schedule_meeting_timezones@27`
(`content_unchecked`: a near miss of its reply passes every required check, the answer only repeating the request;
26 s on a quiet machine). Compare a branch's output with main's: a spec newly
rejected is a sound spec a gate change refuses (or a generator fault the change found: say which).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/sweep_strict.py [--seeds 30] [--capability ID ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coworkenv.examples import example_names, load_example  # noqa: E402
from coworkenv.spec import EnvSpec  # noqa: E402
from coworkenv.synth import generate_spec, load_taxonomy  # noqa: E402
from coworkenv.validate import validate_spec  # noqa: E402


def sweep_specs(seeds: int, capabilities: list[str] | None) -> Iterator[tuple[str, Callable[[], EnvSpec]]]:
    """(name, a maker of the spec) for the shipped examples, then each capability's seeds 1..`seeds`."""
    taxonomy = load_taxonomy(ROOT / "taxonomy")
    chosen = sorted(taxonomy.capabilities) if capabilities is None else capabilities
    unknown = sorted(set(chosen) - set(taxonomy.capabilities))
    if unknown:
        raise SystemExit(f"error: no capability {', '.join(unknown)} in {ROOT / 'taxonomy'}; "
                         f"choose among {', '.join(sorted(taxonomy.capabilities))}")
    if capabilities is None:
        for name in example_names():
            yield f"example:{name}", lambda name=name: load_example(name)
    for cap_id in chosen:
        for seed in range(1, seeds + 1):
            yield f"{cap_id}@{seed}", lambda cap_id=cap_id, seed=seed: generate_spec(taxonomy[cap_id], seed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=30, help="seeds 1..N of each capability (default 30)")
    parser.add_argument("--capability", action="append", help="only this capability (repeatable; no examples then)")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    specs = list(sweep_specs(args.seeds, args.capability))
    started, rejected = time.monotonic(), []
    for n, (name, make) in enumerate(specs, 1):
        verdict = validate_spec(make().model_dump(mode="json", by_alias=True), policy="strict")
        if not verdict.passed:
            rejected.append(name)
            codes = sorted({error.code for error in verdict.errors()})
            print(f"REJECTED {name}: gates {verdict.failed_gates()}, codes {codes}", flush=True)
        if n % 50 == 0:
            print(f"... {n}/{len(specs)} specs, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    print(f"specs {len(specs)}, rejected {len(rejected)}: {', '.join(rejected) or 'none'}; "
          f"{time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
