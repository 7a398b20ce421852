"""How many sandboxed runs one validation of a Python-check spec makes, and where they come from.

Over the Python-check specs of the defect corpus (tests/test_defects.py: each defect spec with a python rule, and each
distinct twin with one), every `run_sandboxed` call of a validation is counted by its source:

- `episodes`: the verifier's runs in the initial state, reference, noop and other non-mutant episodes;
- `mutants_ahead`: the runs the dry pass of the mutants starts (`SpecEpisodes.play_ahead`, `RunMemo.start`);
- `mutants_late`: mutant runs the dry pass did not start (run when the mutant is played);
- `probes`: the sandbox gate's probes (`python_probes.run_check`: repeats, seeds, pins, clocks, paraphrases).

For the mutant runs it also counts runs of a job already run once (`same_exact`: code, entrypoint, whole payload), and
runs of an untrusted or judged check (`untrusted`: never reused); `reused` is the runs the memo answered
(`RunMemo.reused`: no sandboxed run made).

    python benchmarks/bench_validation_runs.py [--every N] [--only ID ...] [--json PATH] [--verdicts PATH]

`--verdicts PATH` writes each spec's verdict (passed, failed gates, error codes) as JSON lines, as it is judged:
compare two runs (main against a branch) for verdict identity. CPU (user+sys of this process and its children) is printed at the end.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import coworkenv.sandbox as sandbox  # noqa: E402
from coworkenv.validate import _run_memo, python_probes  # noqa: E402

_local = threading.local()
_counts: Counter[str] = Counter()
_jobs: list[tuple[str, Any, str, dict[str, Any]]] = []  # (source, memo, code, payload) of mutant runs
_lock = threading.Lock()
_memos: list[Any] = []  # the run memos of the validation under way


def _source(memo_flags: tuple[bool, bool]) -> str:
    if getattr(_local, "probe", False):
        return "probes"
    if threading.current_thread().name.startswith("sandbox-ahead"):
        return "mutants_ahead"
    return "mutants_late" if memo_flags[1] else "episodes"


def _install() -> None:
    real = sandbox.run_sandboxed
    memos = _memos
    init = _run_memo.RunMemo.__init__

    def tracked_init(self: Any) -> None:
        init(self)
        memos.append(self)

    _run_memo.RunMemo.__init__ = tracked_init  # type: ignore[method-assign]

    def counted(code: str, entrypoint: str, payload: dict[str, Any], **kwargs: Any) -> Any:
        memo = memos[-1] if memos else None
        flags = (memo.collecting, memo.replaying) if memo is not None else (False, False)
        src = _source(flags)
        with _lock:
            _counts[src] += 1
            if src.startswith("mutants"):
                _jobs.append((src, memo, code, orjson.loads(orjson.dumps(payload))))
        return real(code, entrypoint, payload, **kwargs)

    def probed(code: str, entrypoint: str, payload: dict[str, Any], **kwargs: Any) -> Any:
        _local.probe = True
        try:
            return counted(code, entrypoint, payload, **kwargs)
        finally:
            _local.probe = False

    sandbox.run_sandboxed = counted  # type: ignore[assignment]
    python_probes.run_sandboxed = probed  # type: ignore[assignment]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--every", type=int, default=1, help="validate every Nth spec only")
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--verdicts", type=Path)
    args = ap.parse_args()
    _install()
    from tests.defects import judge
    from tests.test_defects import DEFECTS, TWINS, _python_checks

    specs: list[tuple[str, dict[str, Any]]] = []
    for d in DEFECTS:
        spec = d.defect_spec()
        if _python_checks(spec):
            specs.append((d.id, spec))
    for key, d in TWINS.items():
        spec = orjson.loads(key)
        if _python_checks(spec):
            specs.append((f"{d.id}#twin", spec))
    if args.only:
        specs = [s for s in specs if s[0] in args.only]
    specs = specs[args.offset::args.every]
    if args.verdicts:
        args.verdicts.write_bytes(b"")
    print(f"{len(specs)} Python-check specs", flush=True)
    totals: Counter[str] = Counter()
    per_spec = []
    verdicts = []
    start_cpu = _cpu()
    started = time.perf_counter()
    for name, spec in specs:
        _counts.clear()
        _jobs.clear()
        v = judge(spec)
        verdicts.append({"id": name, "passed": v.passed, "failed": v.failed_gates(),
                         "errors": sorted({f"{e.gate}/{e.code}" for e in v.errors()})})
        if args.verdicts:  # as each spec is judged: a run cut short still compares
            with args.verdicts.open("ab") as out:
                out.write(orjson.dumps(verdicts[-1]) + b"\n")
        row: dict[str, Any] = {"id": name, **_counts, "total": sum(_counts.values())}
        exact: set[bytes] = set()
        for _src, memo, code, payload in _jobs:
            e = orjson.dumps([code, payload])
            if e in exact:
                row["same_exact"] = row.get("same_exact", 0) + 1
            exact.add(e)
            if memo is None or code not in memo.trusted:
                row["untrusted"] = row.get("untrusted", 0) + 1
        row["reused"] = sum(m.reused for m in _memos)
        _memos.clear()
        totals.update({k: v for k, v in row.items() if isinstance(v, int)})
        per_spec.append(row)
        print(orjson.dumps(row).decode(), flush=True)
    cpu = _cpu() - start_cpu
    n = max(len(specs), 1)
    print(f"\n{len(specs)} specs, {time.perf_counter() - started:.0f} s wall, {cpu:.0f} s CPU (user+sys, children "
          f"included), runs {totals['total']} ({totals['total'] / n:.1f} a validation)")
    for k, v in sorted(totals.items()):
        print(f"  {k:16} {v:6}  {v / n:6.1f} a validation")
    if args.json:
        args.json.write_bytes(orjson.dumps({"totals": totals, "specs": per_spec, "cpu_s": cpu}))


def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
