"""`validate_spec(spec, gates=...)` and `coworkenv validate --gates`: only the chosen gates run, each finds what it
finds in a full validation, and a partial validation can never pass for an accepted spec.

The independence tests validate corpus defects and twins (tests/defects) by all ten gates and by each gate the
full validation ran, alone (with the episode gates a full validation runs before it: `check_gates`): its errors
must be the same. The sample covers every gate a defect names, the
first defect of the corpus naming it (a Python-check one for sandbox, and one for mutations, whose mutants run
there without the trust the probes give a full validation's run memo: `RunMemo.trust`), and twins, which every gate
passes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import typer
from typer.testing import CliRunner

from coworkenv.cli.validate import validate_command
from coworkenv.examples import load_example
from coworkenv.validate import GATES, AcceptedEnv, SpecValidation, validate_spec
from coworkenv.validate.gates import check_gates
from tests.defects import CLASSES, Defect, all_defects

app = typer.Typer()
app.command("validate")(validate_command)
app.command("unused")(lambda: None)  # two commands keep `validate` a named sub-command, as in the real CLI


def _python(spec: dict[str, Any]) -> bool:
    return any(c["rule"]["kind"] == "python" for c in spec["checks"])


def _sample() -> list[Defect]:
    """The first defect naming each gate (no Python check where one exists), the first Python-check mutations defect,
    the first sandbox defect whose check is not made to cost near the sandbox's limits, and a funnel_attribution
    defect (turns_reachable)."""
    named = [d for d in all_defects() if d.gate is not None and d.cls != "funnel_attribution"]
    picked: dict[str, Defect] = {}
    for defect in named:
        if defect.gate not in picked and not _python(defect.defect_spec()):
            picked[defect.gate] = defect  # type: ignore[index]
    python = [d for d in named if _python(d.defect_spec())]
    # Its mutations gate run with no episode before it drew another record's name the oracle's and the noop's
    # episodes had not left, and the near miss was killed: the gates a chosen one runs after (`check_gates`).
    drawn = next(d for d in CLASSES["written_name_unchanged"] if d.name == "paused-entry-version-14")
    return [*picked.values(), drawn, next(d for d in python if d.gate == "mutations"),
            next(d for d in python if d.gate == "sandbox" and d.code != "cost_near_limit"),
            CLASSES["funnel_attribution"][0]]


SAMPLE = _sample()


def _errors(verdict: SpecValidation, gate: str) -> list[tuple[str, ...]] | None:
    result = verdict.gate(gate)
    return None if result is None else [(e.gate, e.code, e.path, e.message) for e in result.errors]


def _same_alone(spec: dict[str, Any], gates: list[str]) -> None:
    full = validate_spec(spec)
    ran = [r.gate for r in full.gates if r.gate != "schema"]
    assert set(gates) <= set(ran), f"the full validation did not run {set(gates) - set(ran)}"
    for gate in gates or ran:
        alone = validate_spec(spec, gates=(gate,))
        assert gate in [r.gate for r in alone.gates] and set(alone.selection) < set(GATES)
        for result in alone.gates:  # the gate, and the episode gates it runs after, as in the full validation
            assert _errors(alone, result.gate) == _errors(full, result.gate), (gate, result.gate)
        assert not alone.passed and alone.partial


def test_sample_covers_every_gate_a_defect_names() -> None:
    named = {d.gate for d in all_defects() if d.gate is not None}
    assert named <= {d.gate for d in SAMPLE}, named - {d.gate for d in SAMPLE}


@pytest.mark.parametrize("defect", [d for d in SAMPLE if not _python(d.defect_spec())], ids=lambda d: d.id)
def test_every_gate_alone_finds_what_the_full_validation_finds(defect: Defect) -> None:
    _same_alone(defect.defect_spec(), [])


@pytest.mark.slow
@pytest.mark.parametrize("defect", [d for d in SAMPLE if _python(d.defect_spec())], ids=lambda d: d.id)
def test_a_python_check_gate_alone_finds_what_the_full_validation_finds(defect: Defect) -> None:
    assert defect.gate is not None
    _same_alone(defect.defect_spec(), [defect.gate])


@pytest.mark.parametrize("defect", [d for d in SAMPLE if not _python(d.twin_spec())][:3], ids=lambda d: f"{d.id}#twin")
def test_every_gate_alone_passes_a_twin(defect: Defect) -> None:
    spec = defect.twin_spec()
    assert validate_spec(spec).passed
    _same_alone(spec, [])


def test_a_selection_names_known_gates() -> None:
    assert check_gates(None) == GATES
    assert check_gates("references, exposed_tools") == ("schema", "references", "exposed_tools")  # GATES order
    assert check_gates("sandbox, references") == ("schema", "references", "oracle", "isolation", "turns_reachable",
                                                  "sandbox")  # the episode gates a full validation runs first
    assert check_gates(["mutations"]) == ("schema", "oracle", "noop", "mutations", "isolation", "turns_reachable",
                                          "sandbox")
    with pytest.raises(ValueError, match=r"unknown gate 'sandbx'.*the gates are schema, references.*or none"):
        check_gates(["sandbx"])
    with pytest.raises(ValueError, match="names no gate"):
        check_gates([])
    with pytest.raises(ValueError, match="unknown gate 'sandbx'"):
        validate_spec(load_example("incident_rollback"), gates="sandbx")


def test_a_partial_validation_never_passes() -> None:
    spec = load_example("incident_rollback")
    full = validate_spec(spec)
    alone = validate_spec(spec, gates=("references", "isolation"))
    assert full.passed and full.selection_passed and not full.partial
    assert (alone.passed, alone.selection_passed, alone.partial) == (False, True, True)
    assert [g.gate for g in alone.gates] == ["schema", "references", "isolation"]
    assert alone.stage == "schema_valid"  # coherent has a gate that did not run: no stage is reached past the schema
    report = alone.report()
    assert (report["passed"], report["partial"], report["selection_passed"]) == (False, True, True)
    assert report["gates_skipped"] == ["exposed_tools", "oracle", "noop", "mutations", "reads_state",
                                       "turns_reachable", "sandbox"]
    assert "partial" not in full.report() and "partial" not in full.as_dict()  # a full report is as it was
    with pytest.raises(ValueError, match="cannot pass"):
        SpecValidation(True, "sound", alone.gates, None, alone.spec, selection=alone.selection)
    with pytest.raises(ValueError, match=r"partial validation.*without `gates`"):
        AcceptedEnv(spec, alone, 0, 0, "incident")  # the datasets' rows are made of accepted envs
    assert validate_spec(spec, policy="report", gates="oracle").passed is False


def test_under_strict_a_failed_stage_stops_the_chosen_gates_after_it() -> None:
    spec = json.loads(load_example("incident_rollback").to_json())
    spec["checks"][0]["rule"]["target"]["id"] = "svc-missing"
    strict = validate_spec(spec, gates="references,sandbox")
    assert [g.gate for g in strict.gates] == ["schema", "references", "isolation"] and not strict.selection_passed
    report = validate_spec(spec, policy="report", gates="references,turns_reachable")
    assert [g.gate for g in report.gates] == ["schema", "references", "oracle", "isolation", "turns_reachable"]


def test_cli_gates_prints_errors_and_writes_no_dataset(tmp_path: Path) -> None:
    good = load_example("incident_rollback").to_json()
    broken = json.loads(good)
    broken["checks"][0]["rule"]["target"]["id"] = "svc-missing"
    (tmp_path / "specs").mkdir()
    pq.write_table(pa.table({"spec_json": [good, json.dumps(broken)]}), tmp_path / "specs" / "part-0.parquet")
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["validate", str(tmp_path / "specs"), "--out", str(out), "--gates", "references"])
    assert result.exit_code == 0, result.output
    assert "part-0.parquet#1: failed the gates that ran (schema, references)" in result.output
    assert "references/missing_record at checks[0].rule.target.id" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["gates.json"]
    reports = json.loads((out / "gates.json").read_text())
    assert [(r["passed"], r["selection_passed"], r["gates_selected"]) for r in reports] == [
        (False, True, ["schema", "references"]), (False, False, ["schema", "references"])]
    unknown = CliRunner().invoke(app, ["validate", str(tmp_path / "specs"), "--out", str(out), "--gates", "refs"])
    assert unknown.exit_code == 2 and "--gates refs: unknown gate 'refs'" in unknown.output
    repair = CliRunner().invoke(app, ["validate", str(tmp_path / "specs"), "--out", str(out), "--gates", "references",
                                      "--llm", "http://127.0.0.1:9/v1"])
    assert repair.exit_code == 2 and "repairs nothing" in repair.output
