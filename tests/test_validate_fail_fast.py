"""`validate_spec(spec, until=...)` and `coworkenv validate --fail-fast`: a validation stops at the error asked for.

A stopped validation reports fewer errors than one run to the end, never others: each it reports is the full
validation's (gate, code, path, message), whether it came from a gate that read the spec, from a probe of a Python check,
or from a mutant played in the last chunk (the sandbox gate plays the mutants in chunks, `GateContext.stop`). It is
partial: it never passes, and no accepted env, funnel count or repair is made of it. Where no error is picked, the
validation runs to the end and is the full one, mutants played in chunks included.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from coworkenv.examples import load_example
from coworkenv.validate import AcceptedEnv, SpecValidation, validate_spec
from coworkenv.validate import gates as gates_module
from coworkenv.validate.gates import GateError
from tests.defects import Defect, all_defects
from tests.test_validate_gate_selection import _python, app  # the validate command as the CLI has it


def _sample() -> list[Defect]:
    """The first defect naming each gate and a code (no Python check where one exists), and the first Python-check
    defect of the sandbox and mutations gates (the probes' findings, the mutations gate's replays; not one whose check
    is made to cost near the sandbox's limits: its runs time out or not, a full validation's too)."""
    named = [d for d in all_defects() if d.gate is not None and d.code is not None and d.cls != "funnel_attribution"]
    picked: dict[str, Defect] = {}
    python: dict[str, Defect] = {}
    for defect in named:
        if defect.code != "cost_near_limit":
            (python if _python(defect.defect_spec()) else picked).setdefault(defect.gate, defect)  # type: ignore[arg-type]
    return [*picked.values(), *(d for g, d in python.items() if g in ("sandbox", "mutations"))]


SAMPLE = _sample()


def _as_found(errors: list[GateError]) -> list[tuple[str, str, str, str]]:
    return [(e.gate, e.code, e.path, e.message) for e in errors]


def _same_as_far_as_found(full: SpecValidation, fast: SpecValidation, wanted: Any) -> None:
    """`fast` found what it was asked for, reports only errors `full` reports, and passes nothing."""
    found = _as_found(fast.errors())
    assert any(wanted(e) for e in fast.errors()), found
    assert set(found) <= set(_as_found(full.errors())), set(found) - set(_as_found(full.errors()))
    assert not fast.passed and not fast.selection_passed


def _judging_gates(defect: Defect) -> tuple[str, ...] | None:
    return None if defect.gate is None else (defect.gate,)


def test_sample_covers_the_gates_and_python_checks() -> None:
    assert {"references", "oracle", "mutations", "sandbox"} <= {d.gate for d in SAMPLE}
    assert sum(_python(d.defect_spec()) for d in SAMPLE) == 2


@pytest.mark.parametrize("defect", SAMPLE, ids=[d.id for d in SAMPLE])
def test_a_defect_stopped_at_its_code_reports_what_the_full_validation_reports(defect: Defect) -> None:
    gate, code = defect.gate, defect.code
    assert gate is not None and code is not None

    def wanted(e: GateError) -> bool:
        return e.gate == gate and code in e.code

    full = validate_spec(defect.defect_spec(), gates=_judging_gates(defect))
    fast = validate_spec(defect.defect_spec(), gates=_judging_gates(defect), until=wanted)
    _same_as_far_as_found(full, fast, wanted)
    assert fast.stopped


def _crashing_late(spec: dict[str, Any]) -> dict[str, Any]:
    """incident_rollback with two Python checks that crash only on late mutants: one where the audit is shorter than
    the reference's and longer than none (the mutant that leaves turn 1 undone), one where a deploy was made (the
    harmful actions and the guard probe, the last mutants played)."""
    spec = json.loads(json.dumps(spec))
    calls = sum(1 for t in spec["reference"] for s in t["steps"] if s.get("call"))
    spec["checks"] += [
        {"id": "audit-not-cut", "rule": {"kind": "python", "entrypoint": "check", "apps": [], "code": (
            "def check(state, audit, messages):\n"
            f"    if 0 < len(audit) < {calls - 2}:\n"
            "        raise ValueError('an audit cut short: ' + str(len(audit)))\n"
            "    return True\n")}},
        {"id": "no-deploy-seen", "rule": {"kind": "python", "entrypoint": "check", "apps": [], "code": (
            "def check(state, audit, messages):\n"
            "    if any(e['tool'] == 'services_deploy' for e in audit):\n"
            "        raise ValueError('a deploy in the audit')\n"
            "    return True\n")}},
    ]
    return spec


@cache
def _late_crashes() -> tuple[dict[str, Any], SpecValidation]:
    """The spec of `_crashing_late` and its sandbox gate run to the end (shared: each validation plays 73 mutants)."""
    spec = _crashing_late(load_example("incident_rollback").model_dump(mode="json", by_alias=True))
    return spec, validate_spec(spec, gates=("sandbox",))


def test_a_crash_on_a_late_mutant_stops_the_sandbox_gate_as_the_full_validation_reports_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """One mutant a chunk: the validation stops at every chunk's end, and the crash comes from the 69th of 73."""
    spec, full = _late_crashes()
    crashes = [e for e in full.errors() if e.code == "python_crash"]
    assert [e.message.split(":")[0] for e in crashes] == [
        "on the mutant leave turn 1 undone", "on the mutant extra services_deploy {'service'"], _as_found(full.errors())
    last = crashes[-1]

    def wanted(e: GateError) -> bool:
        return e.path == last.path

    monkeypatch.setattr(gates_module, "MUTANT_CHUNK", 1)
    fast = validate_spec(spec, gates=("sandbox",), until=wanted)
    _same_as_far_as_found(full, fast, wanted)
    assert fast.stopped and fast.gate("sandbox").details["stopped"]  # type: ignore[union-attr]  # mutants left
    assert crashes[0] in fast.errors()  # the earlier chunk's crash, as the full validation reports it


def test_a_validation_that_finds_nothing_asked_for_is_the_full_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every mutant played one chunk at a time to the end: the verdict is the full validation's."""
    spec, full = _late_crashes()
    monkeypatch.setattr(gates_module, "MUTANT_CHUNK", 1)
    unstopped = validate_spec(spec, gates=("sandbox",), until=lambda e: False)
    assert not unstopped.stopped and unstopped.selection == full.selection
    assert _as_found(unstopped.errors()) == _as_found(full.errors())
    assert (unstopped.selection_passed, unstopped.stage) == (full.selection_passed, full.stage)


def test_a_stopped_validation_never_passes() -> None:
    spec = load_example("incident_rollback").model_dump(mode="json", by_alias=True)
    spec["checks"][0]["rule"]["target"]["id"] = "svc-missing"
    full = validate_spec(spec)
    fast = validate_spec(spec, until=("references", "missing_record"))
    _same_as_far_as_found(full, fast, lambda e: e.code == "missing_record")
    assert [g.gate for g in fast.gates] == ["schema", "references"]  # the rest of its stage not run
    report = fast.report()
    assert (report["passed"], report["partial"], report["stopped"], report["selection_passed"]) == (
        False, True, True, False)
    assert "stopped" not in full.report() and "partial" not in full.as_dict()
    with pytest.raises(ValueError, match="stopped at the error asked for cannot pass"):
        SpecValidation(True, "sound", fast.gates, None, fast.spec, stopped=True)
    with pytest.raises(ValueError, match="stopped at the error asked for"):
        AcceptedEnv(fast.spec, fast, 0, 0, "incident")  # type: ignore[arg-type]
    sound = load_example("incident_rollback")
    assert validate_spec(sound, until=("oracle", "oracle_check_failed")).passed  # nothing to stop at: the full one


def test_until_is_a_predicate_or_a_gate_and_code() -> None:
    spec = load_example("incident_rollback")
    with pytest.raises(ValueError, match="unknown gate 'refs'"):
        validate_spec(spec, until=("refs", "missing_record"))
    with pytest.raises(ValueError, match=r"a predicate on GateError or a \(gate, code\) pair"):
        validate_spec(spec, until="references")  # type: ignore[arg-type]


def test_cli_fail_fast_stops_each_spec_at_its_first_blocking_error(tmp_path: Path) -> None:
    good = load_example("incident_rollback").to_json()
    broken = json.loads(good)
    broken["checks"][0]["rule"]["target"]["id"] = "svc-missing"
    (tmp_path / "specs").mkdir()
    pq.write_table(pa.table({"spec_json": [good, json.dumps(broken)]}), tmp_path / "specs" / "part-0.parquet")
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["validate", str(tmp_path / "specs"), "--out", str(out), "--fail-fast"])
    assert result.exit_code == 0, result.output
    assert ("part-0.parquet#1: failed the gates that ran (schema, references, stopped at its first blocking error)"
            in result.output)
    assert "references/missing_record at checks[0].rule.target.id" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["gates.json"]  # nothing accepted
    reports = json.loads((out / "gates.json").read_text())
    assert [(r["passed"], r.get("stopped", False)) for r in reports] == [(True, False), (False, True)]
    (tmp_path / "broken").mkdir()
    pq.write_table(pa.table({"spec_json": [json.dumps(broken)]}), tmp_path / "broken" / "part-0.parquet")
    report = CliRunner().invoke(app, ["validate", str(tmp_path / "broken"), "--out", str(tmp_path / "report"),
                                      "--fail-fast", "--policy", "report"])  # a missing record does not block there
    assert report.exit_code == 0 and "stopped at its first" not in report.output, report.output
    repair = CliRunner().invoke(app, ["validate", str(tmp_path / "specs"), "--out", str(out), "--fail-fast",
                                      "--llm", "http://127.0.0.1:9/v1"])
    assert repair.exit_code == 2 and "leave out --fail-fast" in repair.output
