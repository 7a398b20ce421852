"""Policies (strict / report), findings with hints, the noop ceiling, pre-solved tasks, incidental writes, and
which gate a rejection is attributed to."""

from __future__ import annotations

import orjson
import pytest
from support.validate_base import check_of, sound_spec, steps

from coworkenv.validate import (
    Candidate,
    ValidationConfig,
    accepted_table,
    rejected_table,
    validate_and_repair,
    validate_spec,
)


def with_credit_for_doing_nothing(spec: dict) -> dict:  # type: ignore[type-arg]
    """Three completion checks that hold whatever the agent does: a partial-credit leak."""
    for i in range(3):
        spec["checks"].append({"id": f"ops2-open-{i}", "weight": 2, "rule": {"kind": "field", "target": {
            "app": "tickets", "table": "tickets", "id": "OPS-2", "field": "status"}, "value": "open"}})
    return spec


def test_strict_rejects_a_defect_and_report_accepts_it_listing_every_finding_with_a_hint() -> None:
    spec = sound_spec()
    check_of(spec, "nothing-else")["rule"]["allow"][0] = {"app": "tickets", "table": "tickets"}
    strict = validate_spec(spec, policy="strict")
    report = validate_spec(spec, policy="report")
    assert not strict.passed and strict.findings == []
    assert report.passed and report.policy == "report"
    assert {f.code for f in report.findings} == {e.code for e in strict.errors()} == {"harm_unguarded"}
    assert all(f.hint for f in report.findings)
    assert report.report()["findings"][0]["hint"].startswith("add a frame check")


def test_report_runs_every_gate_even_after_a_failed_stage() -> None:
    spec = sound_spec()
    spec["context"] = "Hint: the check 'announced-after' wants the update first."  # a leak: stage coherent fails
    spec = with_credit_for_doing_nothing(spec)
    strict = validate_spec(spec)
    report = validate_spec(spec, policy="report")
    assert strict.gate("noop") is None and not strict.passed
    assert report.passed
    assert {"check_id_in_prompt", "noop_partial_score", "unexercised_check"} <= {f.code for f in report.findings}


def test_report_still_refuses_a_spec_the_runtime_cannot_build_and_unknown_policies_are_errors() -> None:
    spec = sound_spec()
    spec["world"]["apps"]["tickets"]["tickets"][0]["priority"] = "urgent"
    assert not validate_spec(spec, policy="report").passed
    with pytest.raises(ValueError, match="unknown validation policy 'lenient'"):
        validate_spec(sound_spec(), policy="lenient")


def test_noop_partial_credit_above_the_ceiling_is_rejected_and_the_ceiling_is_configurable() -> None:
    spec = with_credit_for_doing_nothing(sound_spec())
    v = validate_spec(spec)
    noop = v.gate("noop")
    assert noop is not None and not noop.passed
    assert {e.code for e in noop.errors} == {"noop_partial_score"}
    assert noop.details["noop_task_credit"] == pytest.approx(6 / 10)
    loose = validate_spec(spec, config=ValidationConfig(noop_score_ceiling=0.7)).gate("noop")
    assert loose is not None and loose.passed


def test_a_presolved_task_behind_a_process_check_is_rejected() -> None:
    spec = sound_spec()
    ops1 = spec["world"]["apps"]["tickets"]["tickets"][0]
    ops1["priority"], ops1["assignee"] = "p1", "u-jon"  # already done
    spec["checks"] = [c for c in spec["checks"] if c["id"] not in ("announced", "announced-after")]
    spec["checks"].append({"id": "looked-5-times", "rule": {"kind": "called", "call": {"tool": "tickets_get"},
                                                            "min_times": 5}})
    steps(spec)[0:1] = [{"call": {"name": "tickets_get", "arguments": {"ticket_id": "OPS-1"}}}] * 5
    del steps(spec)[6]  # no announcement
    v = validate_spec(spec, policy="report")
    assert "presolved" in {f.code for f in v.findings}
    assert "presolved" not in {e.code for e in validate_spec(sound_spec()).errors()}
    # A reply check failing on the untouched state (no reply yet) does not make the world need work either.
    spec["checks"].append({"id": "said", "rule": {"kind": "text", "scope": "final", "all_of": ["Jon"]}})
    assert "presolved" in {f.code for f in validate_spec(spec, policy="report").findings}


def test_an_incidental_write_is_trimmed_from_the_reference_under_strict_and_listed() -> None:
    spec = sound_spec()
    spec["world"]["apps"]["mail"] = {"messages": [{
        "id": "msg-1", "thread_id": "th-1", "folder": "inbox", "sender": "lena.ortiz@acme.test",
        "to": ["maya.chen@acme.test"], "subject": "OPS-1", "body": "Can you bump OPS-1?", "read": False}]}
    spec["tools"].append("mail_mark_read")
    steps(spec).insert(0, {"call": {"name": "mail_mark_read", "arguments": {"message_ids": ["msg-1"]}}})
    check_of(spec, "nothing-else")["rule"]["allow"].append({"app": "mail", "table": "messages", "id": "msg-1"})
    v = validate_spec(spec)
    assert v.passed, [str(e) for e in v.errors()]
    assert [(f.code, f.path) for f in v.findings] == [("incidental_write", "reference[0].steps[0]")]
    assert v.spec is not None and all(
        s.call is None or s.call.name != "mail_mark_read" for s in v.spec.reference[0].steps)
    kept = validate_spec(spec, config=ValidationConfig(minimise_reference=False))
    assert kept.passed and kept.findings == []
    assert kept.gate("mutations").details["incidental"] == ["reference[0].steps[0]"]  # type: ignore[union-attr]


def test_a_dropped_write_a_check_reads_but_does_not_pin_is_a_defect_not_incidental() -> None:
    spec = sound_spec()
    check_of(spec, "assigned")["rule"].update(op="in", value=["u-jon", "u-lena"])
    check_of(spec, "raised")["rule"].update(op="in", value=["p1", "p3"])
    spec["checks"] = [c for c in spec["checks"] if c["rule"]["kind"] != "order"]
    v = validate_spec(spec)
    assert not v.passed and any(e.code == "mutant_survived" and e.path == "reference[0].steps[1]"
                                for e in v.errors())
    assert v.gate("mutations").details["incidental"] == [] and v.findings == []  # type: ignore[union-attr]


def test_an_unreachable_follow_up_is_attributed_to_turns_reachable_not_oracle() -> None:
    spec = sound_spec()
    spec["turns"].append({"content": "Also lower OPS-2 to p4.", "condition": {
        "kind": "after_call", "call": {"tool": "tickets_update", "args": {"ticket_id": "OPS-9"}}}})
    spec["reference"].append({"steps": [
        {"call": {"name": "tickets_update", "arguments": {"ticket_id": "OPS-2", "priority": "p4"}}},
        {"say": "OPS-2 is p4."}]})
    spec["checks"].append({"id": "lowered", "rule": {"kind": "field", "target": {
        "app": "tickets", "table": "tickets", "id": "OPS-2", "field": "priority"}, "value": "p4"}})
    v = validate_spec(spec)
    assert v.first_failed_gate == "turns_reachable"
    oracle = v.gate("oracle")
    assert oracle is not None and "oracle_check_failed" not in {e.code for e in oracle.errors}


def test_tables_carry_policy_findings_and_hints() -> None:
    good = sound_spec()
    bad = sound_spec()
    bad["checks"] = [c for c in bad["checks"] if c["rule"]["kind"] != "order"]
    run = validate_and_repair([Candidate("ticket_triage_update", orjson.dumps(s).decode(), origin=str(i))
                               for i, s in enumerate((good, bad))])
    assert [a.origin for a in run.accepted] == ["0"]
    assert run.rejected[0].gate == "mutations"
    assert run.rejected[0].errors[0]["code"] == "order_unchecked" and run.rejected[0].errors[0]["hint"]
    row = accepted_table(run).to_pylist()[0]
    assert row["policy"] == "strict" and orjson.loads(row["findings_json"]) == []
    assert "order check" in orjson.loads(rejected_table(run).to_pylist()[0]["errors_json"])[0]["hint"]
    report = validate_and_repair([Candidate("ticket_triage_update", orjson.dumps(bad).decode())], policy="report")
    row = accepted_table(report).to_pylist()[0]
    assert row["policy"] == "report"
    assert [f["code"] for f in orjson.loads(row["findings_json"])] == ["order_unchecked"]
