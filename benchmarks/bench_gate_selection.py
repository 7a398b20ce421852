"""A gate run alone against the same gate in a full validation: equal errors, and the CPU each took.

For each chosen defect of the corpus (tests/defects) that names its gate, the defect spec is validated twice under
`strict`: by its gate alone (`validate_spec(spec, gates=(gate,))`, with the episode gates a full validation runs
before it; what tests/test_defects.py's `test_gates_reject_defect` now does) and by all ten. The gate's errors (gate, code, path, message) must be the same in
both; a full validation that stopped before the gate's stage (an earlier stage failed) is counted `not_reached`.
`--every-gate` also runs each other gate the full validation ran alone and compares it (for twins and cheap specs).
CPU is user+sys of this process and of its sandboxed children, per validation.

    python benchmarks/bench_gate_selection.py [--python GATE ...] [--python-max N] [--plain N] [--twins N]
        [--seed S] [--every-gate] [--json PATH]

`--python GATE`: every Python-check defect naming GATE (at most `--python-max`, drawn); `--plain N`: N defects
without Python checks, drawn with `--seed` from all that name a gate; `--twins N`: N twins (every gate alone against
the full run).
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from coworkenv.validate import GATES, SpecValidation, validate_spec  # noqa: E402
from tests.defects import Defect, all_defects  # noqa: E402


def _cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _timed(spec: dict[str, Any], gates: tuple[str, ...] | None) -> tuple[SpecValidation, float]:
    started = _cpu()
    verdict = validate_spec(spec, gates=gates)
    return verdict, _cpu() - started


def _errors(verdict: SpecValidation, gate: str) -> list[tuple[str, ...]] | None:
    result = verdict.gate(gate)
    return None if result is None else [(e.gate, e.code, e.path, e.message) for e in result.errors]


def _python(spec: dict[str, Any]) -> bool:
    return any(c["rule"]["kind"] == "python" for c in spec["checks"])


def compare(name: str, spec: dict[str, Any], gates: list[str], every_gate: bool) -> dict[str, Any]:
    """The gates of `gates` (and, with `every_gate`, each gate the full run ran) alone against the full run."""
    alone: dict[str, tuple[SpecValidation, float]] = {g: _timed(spec, (g,)) for g in gates}
    full, full_cpu = _timed(spec, None)
    if every_gate:
        alone |= {r.gate: _timed(spec, (r.gate,)) for r in full.gates if r.gate not in alone and r.gate != "schema"}
    outcome: dict[str, str] = {}
    for gate, (verdict, _) in alone.items():
        want = _errors(full, gate)
        outcome[gate] = "not_reached" if want is None else ("equal" if _errors(verdict, gate) == want else "differ")
        if outcome[gate] == "differ":
            print(f"DIFFER {name} {gate}: alone {_errors(verdict, gate)} full {want}", flush=True)
    return {"name": name, "python": _python(spec), "full_cpu": full_cpu, "outcome": outcome,
            "alone_cpu": {g: cpu for g, (_, cpu) in alone.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", nargs="*", default=[], metavar="GATE")
    parser.add_argument("--python-max", type=int, default=0, help="at most this many per gate (drawn), 0: all")
    parser.add_argument("--plain", type=int, default=0)
    parser.add_argument("--twins", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--every-gate", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    defects = [d for d in all_defects() if d.gate is not None and d.cls != "funnel_attribution"]
    draw = random.Random(args.seed)
    chosen: list[Defect] = []
    for gate in args.python:
        named = [d for d in defects if d.gate == gate and _python(d.defect_spec())]
        chosen += draw.sample(named, args.python_max) if 0 < args.python_max < len(named) else named
    plain = [d for d in defects if not _python(d.defect_spec())]
    chosen += draw.sample(plain, min(args.plain, len(plain)))
    rows = []
    for defect in chosen:
        assert defect.gate is not None
        rows.append(compare(defect.id, defect.defect_spec(), [defect.gate], args.every_gate))
        print(orjson.dumps(rows[-1]).decode(), flush=True)
    twins = {orjson.dumps(d.twin_spec(), option=orjson.OPT_SORT_KEYS): d for d in all_defects()}
    for key in draw.sample(sorted(twins), min(args.twins, len(twins))):
        rows.append(compare(f"{twins[key].id}#twin", orjson.loads(key), [], True))
        print(orjson.dumps(rows[-1]).decode(), flush=True)
    outcomes = Counter(o for r in rows for o in r["outcome"].values())
    print(f"\n{len(rows)} specs; gate comparisons: {dict(outcomes)}")
    for python in (True, False):
        part = [r for r in rows if r["python"] is python and not r["name"].endswith("#twin")]
        if part:
            full = sum(r["full_cpu"] for r in part)
            alone = sum(sum(r["alone_cpu"].values()) for r in part)
            print(f"{'python' if python else 'plain'} defects {len(part)}: full {full:.1f} s CPU, named gate alone "
                  f"{alone:.1f} s ({alone / full:.0%})")
    by_gate: dict[str, list[float]] = {}
    for r in rows:
        if not r["name"].endswith("#twin"):
            for g in r["alone_cpu"]:
                by_gate.setdefault(f"{g}{'/py' if r['python'] else ''}", [0.0, 0.0, 0])
                by_gate[f"{g}{'/py' if r['python'] else ''}"][0] += r["full_cpu"]
                by_gate[f"{g}{'/py' if r['python'] else ''}"][1] += r["alone_cpu"][g]
                by_gate[f"{g}{'/py' if r['python'] else ''}"][2] += 1
    for g, (full, alone, n) in sorted(by_gate.items()):
        print(f"  {g}: {n} defects, full {full:.1f} s, alone {alone:.1f} s")
    assert set(GATES) >= {g.split("/")[0] for g in by_gate}
    if args.json:
        args.json.write_bytes(orjson.dumps(rows, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
