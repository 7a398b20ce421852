"""The defect corpus (tests/defects) against the gates under the `strict` policy: how many defects they reject,
overall and per class, and how many sound twins they accept.

Printed: classes, defects / capabilities per class, rejection rate per class and overall, twins accepted, the
witnesses that prove each defect real (an agent behaviour the defect and its twin judge differently), wall
time; then every defect the gates miss and every twin they reject, with the gate codes. Targets: >= 95% of the
defects rejected, 100% of the twins accepted. `--markdown PATH` also writes that report as Markdown (the
corpus status file the gate authors work from); `--gaps` rewrites tests/defects/known_gaps.py (the strict
xfails of tests/test_defects.py) from this run.

    python benchmarks/bench_defects.py [--class NAME ...] [--json] [--markdown PATH] [--gaps]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a plain script from anywhere
    sys.path.insert(0, str(ROOT))

from coworkenv.atomic import atomic_write_bytes  # noqa: E402
from tests.defects import CLASSES, DETECTION, Defect, has_policy, judge, witness_holds  # noqa: E402


def _codes(v: Any) -> list[str]:
    return sorted({f"{e.gate}/{e.code}" for e in v.errors()})


def run(classes: list[str]) -> dict[str, Any]:
    """Judge every defect and every distinct twin of the chosen classes; gather the figures."""
    started = time.perf_counter()
    twins: dict[bytes, tuple[Defect, Any]] = {}
    per_class: dict[str, dict[str, Any]] = {}
    missed, misattributed, false_witness = [], [], []
    timings: list[tuple[float, str]] = []
    for name in classes:
        defects = CLASSES[name]
        rejected = 0
        for d in defects:
            tick = time.perf_counter()
            v = judge(d.defect_spec())
            timings.append((time.perf_counter() - tick, d.id))
            ok = not v.passed
            failed = [v.first_failed_gate] if d.cls == "funnel_attribution" else v.failed_gates()
            if ok and d.gate is not None and d.gate not in failed:
                misattributed.append({"id": d.id, "expected": d.gate, "got": v.first_failed_gate,
                                      "codes": _codes(v)})
            if ok and d.code is not None and not any(d.code in e.code for e in v.errors()
                                                     if d.gate is None or e.gate == d.gate):
                misattributed.append({"id": d.id, "expected": d.code, "got": v.first_failed_gate,
                                      "codes": _codes(v)})
            rejected += ok
            if not ok:
                missed.append({"id": d.id, "capability": d.capability, "gets_away_with": d.gets_away_with})
            if d.witness is not None and not witness_holds(d)[0]:
                false_witness.append(d.id)
            key = orjson.dumps(d.twin_spec(), option=orjson.OPT_SORT_KEYS)
            if key not in twins:
                twins[key] = (d, judge(orjson.loads(key)))
        per_class[name] = {"defects": len(defects), "capabilities": len({d.capability for d in defects}),
                           "rejected": rejected, "rejection_rate": rejected / len(defects)}
    total = sum(c["defects"] for c in per_class.values())
    rejected = sum(c["rejected"] for c in per_class.values())
    twin_rejects = [{"twin_of": d.id, "capability": d.capability, "codes": _codes(v)}
                    for d, v in twins.values() if not v.passed]
    return {
        "policy": "strict" if has_policy() else "default",
        "classes": len(per_class), "defects": total, "rejected": rejected,
        "rejection_rate": rejected / total if total else 0.0,
        "twins": len(twins), "twins_accepted": len(twins) - len(twin_rejects),
        "twin_acceptance": (len(twins) - len(twin_rejects)) / len(twins) if twins else 0.0,
        "witnessed": sum(d.witness is not None for n in classes for d in CLASSES[n]),
        "false_witnesses": false_witness, "per_class": per_class, "missed": missed,
        "misattributed": misattributed, "twins_rejected": twin_rejects,
        "seconds": round(time.perf_counter() - started, 1),
        "slowest": [{"id": i, "seconds": round(t, 2)} for t, i in sorted(timings, reverse=True)[:8]],
    }


def markdown(r: dict[str, Any]) -> str:
    """The report as Markdown (the corpus status file)."""
    out = [f"# Defect corpus status ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})", "",
           f"Policy `{r['policy']}`: **{r['rejected']}/{r['defects']} defects rejected "
           f"({r['rejection_rate']:.1%})**, **{r['twins_accepted']}/{r['twins']} twins accepted "
           f"({r['twin_acceptance']:.1%})**; {r['classes']} classes; {r['seconds']} s.",
           "Command: `PYTHONPATH=. python benchmarks/bench_defects.py --markdown <this file>`", "",
           "| class | defects | capabilities | rejected |", "|---|---|---|---|"]
    out += [f"| {n} | {c['defects']} | {c['capabilities']} | {c['rejected']}/{c['defects']} |"
            for n, c in r["per_class"].items()]
    out += ["", "## Defects the gates miss (the defect, then how a program can detect its class)", ""]
    by_class: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for m in r["missed"]:
        by_class[m["id"].split("/")[0]].append(m)
    for name, missed in by_class.items():
        out.append(f"- **{name}** (detect: {DETECTION[name]})")
        out += [f"  - `{m['id']}` ({m['capability']}): {m['gets_away_with']}" for m in missed]
    if not r["missed"]:
        out.append("- none")
    out += ["", "## Rejected, but not by the expected gate/code", ""]
    out += [f"- `{m['id']}`: expected {m['expected']}, got {m['got']} {m['codes']}" for m in r["misattributed"]] \
        or ["- none"]
    out += ["", "## Sound twins the gates reject", ""]
    out += [f"- twin of `{t['twin_of']}` ({t['capability']}): {', '.join(t['codes'])}" for t in r["twins_rejected"]] \
        or ["- none"]
    out += ["", "## Slowest defects to validate (strict)", ""]
    out += [f"- `{x['id']}`: {x['seconds']} s" for x in r["slowest"]]
    if r["false_witnesses"]:
        out += ["", "## Witnesses that no longer separate defect and twin (corpus bug)", ""]
        out += [f"- `{i}`" for i in r["false_witnesses"]]
    return "\n".join(out) + "\n"


GAPS_MODULE = ROOT / "tests" / "defects" / "known_gaps.py"


def known_gaps(r: dict[str, Any]) -> str:
    """The known-gaps module (strict xfails) for this run's misses, misattributions and rejected twins."""
    missed = {m["id"]: "gates accept it; the defect: " + m["gets_away_with"] for m in r["missed"]}
    for m in r["misattributed"]:
        missed.setdefault(m["id"], f"rejected, but not by {m['expected']} (got {m['got']})")
    twins = {t["twin_of"]: "rejected: " + ", ".join(t["codes"]) for t in r["twins_rejected"]}

    def literal(entries: dict[str, str]) -> str:
        if not entries:
            return "{}"
        rows = "".join(f"    {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},\n" for k, v in sorted(entries.items()))
        return "{\n" + rows + "}"

    return (
        '"""What today\'s gates get wrong on the corpus: strict xfails in tests/test_defects.py.\n\n'
        "MISSED: defects the gates accept (or reject by another gate than the one that should). TWINS_REJECTED: sound\n"
        "twins the gates reject (named after the first defect made from them). Written by\n"
        "`python benchmarks/bench_defects.py --gaps`; a gate fix turns an entry into an XPASS failure until it is\n"
        f"removed. Measured: {r['rejected']}/{r['defects']} defects rejected, {r['twins_accepted']}/{r['twins']} twins "
        'accepted.\n"""\n\n'
        f"MISSED: dict[str, str] = {literal(missed)}\n\nTWINS_REJECTED: dict[str, str] = {literal(twins)}\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--class", dest="classes", action="append", choices=sorted(CLASSES),
                        help="only this defect class (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--markdown", type=Path, help="also write the report as Markdown to this file")
    parser.add_argument("--gaps", action="store_true", help="rewrite tests/defects/known_gaps.py from this run")
    args = parser.parse_args()
    if args.gaps and args.classes:
        parser.error("--gaps needs the whole corpus (no --class)")
    r = run(args.classes or list(CLASSES))
    if args.markdown is not None:
        atomic_write_bytes(args.markdown, markdown(r).encode())
    if args.gaps:
        atomic_write_bytes(GAPS_MODULE, known_gaps(r).encode())
    if args.json:
        print(json.dumps(r, indent=2))
        return
    print(f"policy: {r['policy']}   classes: {r['classes']}   defects: {r['defects']}   "
          f"witnessed: {r['witnessed']}   time: {r['seconds']} s")
    print(f"{'class':22} {'defects':>7} {'caps':>5} {'rejected':>9} {'rate':>7}")
    for name, c in r["per_class"].items():
        print(f"{name:22} {c['defects']:7d} {c['capabilities']:5d} {c['rejected']:9d} {c['rejection_rate']:7.1%}")
    print(f"defects rejected: {r['rejected']}/{r['defects']} = {r['rejection_rate']:.1%}   (target >= 95%)")
    print(f"twins accepted:   {r['twins_accepted']}/{r['twins']} = {r['twin_acceptance']:.1%}   (target 100%)")
    for m in r["missed"]:
        print(f"  missed   {m['id']}: {m['gets_away_with']}")
    for m in r["misattributed"]:
        print(f"  misattr. {m['id']}: expected {m['expected']}, got {m['got']} {m['codes']}")
    for t in r["twins_rejected"]:
        print(f"  twin rejected (twin of {t['twin_of']}): {', '.join(t['codes'])}")
    for i in r["false_witnesses"]:
        print(f"  witness no longer holds: {i}")
    print("slowest: " + ", ".join(f"{x['id']} {x['seconds']} s" for x in r["slowest"][:4]))


if __name__ == "__main__":
    main()
