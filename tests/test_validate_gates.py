"""The ten validation gates: the shipped examples pass all of them; each gate alone rejects a spec broken for it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coworkenv.examples import load_example
from coworkenv.validate import GATES, STAGES, SpecValidation, validate_spec

EXAMPLE = Path(__file__).resolve().parents[1] / "coworkenv" / "examples" / "incident_rollback.json"


def example() -> dict[str, Any]:
    """A fresh, editable copy of the incident example."""
    data: dict[str, Any] = json.loads(EXAMPLE.read_text())
    return data


def check_index(spec: dict[str, Any], check_id: str) -> int:
    return next(i for i, c in enumerate(spec["checks"]) if c["id"] == check_id)


def failed(v: SpecValidation) -> set[str]:
    return set(v.failed_gates())


def codes(v: SpecValidation, gate: str) -> set[str]:
    result = v.gate(gate)
    assert result is not None, f"gate {gate} did not run"
    return {e.code for e in result.errors}


@pytest.mark.parametrize("name", ["incident_rollback", "meeting_reschedule", "report_from_files"])
def test_shipped_examples_pass_all_ten_gates_with_full_mutation_score(name: str) -> None:
    v = validate_spec(load_example(name))
    assert [g.gate for g in v.gates] == list(GATES)
    assert all(g.passed for g in v.gates), [str(e) for e in v.errors()]
    assert v.passed and v.stage == "sound"
    assert v.mutation_score == 1.0
    mutations = v.gate("mutations")
    assert mutations is not None and mutations.details["total"] >= 10


def test_the_example_exercises_every_mutation_kind() -> None:
    details = validate_spec(example()).gate("mutations").details  # type: ignore[union-attr]
    assert set(details["by_kind"]) == {"drop_write", "change_arg", "wrong_recipient", "swap_order", "stop_early",
                                       "text_drop", "text_alter", "swap_dependent", "harmful_action", "duplicate_write",
                                       "wrong_route", "created_instead"}
    assert all(k["killed"] == k["total"] for k in details["by_kind"].values())


def test_gate_1_schema_rejects_a_missing_field_and_bad_json() -> None:
    spec = example()
    del spec["capability"]
    v = validate_spec(spec)
    assert failed(v) == {"schema"} and v.stage == "generated" and v.spec is None
    assert [(e.code, e.path) for e in v.errors()] == [("missing_field", "capability")]
    assert codes(validate_spec('{"capability": '), "schema") == {"invalid_json"}
    assert codes(validate_spec("[1, 2]"), "schema") == {"not_an_object"}


def test_gate_2_references_rejects_a_check_on_a_missing_record() -> None:
    spec = example()
    i = check_index(spec, "config-rolled-back")
    spec["checks"][i]["rule"]["target"]["id"] = "svc-missing"
    v = validate_spec(spec)
    assert failed(v) == {"references"} and v.stage == "schema_valid"
    assert [(e.code, e.path) for e in v.errors()] == [("missing_record", f"checks[{i}].rule.target.id")]


def test_gate_2_references_rejects_duplicate_record_ids() -> None:
    spec = example()
    people = spec["world"]["apps"]["directory"]["people"]
    people.append(dict(people[1], name="Jon Parker"))
    v = validate_spec(spec)
    assert failed(v) == {"references"}
    assert codes(v, "references") == {"duplicate_id"}


def test_gate_3_exposed_tools_rejects_a_reference_using_an_unexposed_tool() -> None:
    spec = example()
    spec["tools"].remove("tickets_comment")
    v = validate_spec(spec)
    assert failed(v) == {"exposed_tools"}
    assert codes(v, "exposed_tools") == {"reference_tool_not_exposed", "check_tool_not_exposed"}
    paths = {e.path for e in v.errors()}
    assert "reference[1].steps[2].call.name" in paths


def test_gate_4_oracle_rejects_a_check_the_reference_fails() -> None:
    spec = example()
    i = check_index(spec, "incident-ticket")
    spec["checks"][i]["rule"]["where"][1]["value"] = "p2"
    v = validate_spec(spec)
    assert failed(v) == {"oracle"} and v.stage == "coherent"
    assert [(e.code, e.path) for e in v.errors()] == [("oracle_check_failed", f"checks[{i}]")]


def _graded_reply_check(facts: list[str]) -> dict[str, Any]:
    """A grader over the replies: the share of `facts` they state, passed from 0.75 (Claw-Eval's bar), its verdict
    returned as the imported graders return it."""
    code = (f"FACTS = {facts!r}\n\ndef check(state, audit, messages):\n"
            "    text = ' '.join(m['text'] for m in messages).lower()\n"
            "    score = sum(f in text for f in FACTS) / len(FACTS)\n"
            "    return {'score': score, 'passed': score >= 0.75}\n")
    return {"id": "graded-reply", "weight": 1.0, "pass_score": 0.75, "rule": {"kind": "python", "code": code}}


def test_gate_4_oracle_names_a_graded_check_the_reference_passes_with_part_of_its_score() -> None:
    # An outside grader (Claw-Eval's T099) scores five facts and passes from 0.75: a fact pinned to a wording the
    # reference does not write costs it a fifth and the check still passes, so nothing saw the broken fact.
    from support.validate_base import sound_spec

    from coworkenv import load_spec
    from coworkenv.validate import ValidationConfig
    from coworkenv.validate.episode_gates import oracle_gate
    from coworkenv.validate.gates import GateContext

    def oracle_codes(facts: list[str]) -> set[str]:
        spec = sound_spec()
        spec["checks"].append(_graded_reply_check(facts))
        config = ValidationConfig(python_repeats=1, clock_offsets_s=(366 * 86_400,))
        return {e.code for e in oracle_gate(GateContext(load_spec(spec), config=config)).errors}

    assert oracle_codes(["ops-1", "p1", "jon", "raised to priority one"]) == {"oracle_partial_credit"}
    assert oracle_codes(["ops-1", "p1", "jon", "#ops"]) == set()


def test_gate_4_oracle_names_the_reference_call_that_fails() -> None:
    spec = example()
    spec["reference"][0]["steps"][2]["call"]["arguments"]["service"] = "svc-nope"
    v = validate_spec(spec)
    assert failed(v) == {"oracle"}
    assert ("reference_call_failed", "reference[0].steps[2]") in {(e.code, e.path) for e in v.errors()}


def test_gate_5_noop_rejects_a_task_that_doing_nothing_passes() -> None:
    spec = example()
    spec["tools"].append("services_set_flag")
    spec["turns"] = [{"content": "Please turn the new_checkout flag of payments off and on again."}]
    spec["dynamics"] = {}
    flag = {"service": "svc-payments", "flag": "new_checkout"}
    spec["reference"] = [{"steps": [
        {"call": {"name": "services_set_flag", "arguments": {**flag, "enabled": False}}},
        {"call": {"name": "services_set_flag", "arguments": {**flag, "enabled": True}}},
        {"say": "Done: new_checkout was switched off and back on for svc-payments."},
    ]}]
    spec["checks"] = [
        {"id": "flag-on", "rule": {"kind": "field", "op": "equals", "value": True, "target": {
            "app": "services", "table": "services", "id": "svc-payments", "field": "flags.new_checkout"}}},
        {"id": "only-payments", "rule": {"kind": "frame", "allow": [
            {"app": "services", "table": "services", "id": "svc-payments"}, {"app": "logs"}]}},
    ]
    v = validate_spec(spec)
    assert failed(v) == {"noop"}, [str(e) for e in v.errors()]
    assert codes(v, "noop") == {"noop_passes", "initial_state_passes"}


def test_gate_6_mutations_rejects_a_write_no_check_covers() -> None:
    spec = example()
    spec["checks"].pop(check_index(spec, "ticket-noted"))
    v = validate_spec(spec)
    assert failed(v) == {"mutations"} and v.stage == "solvable"
    survivors = {e.path for e in v.errors()}
    assert survivors == {"reference[1].steps[2]", "reference[1].steps[2].call.arguments.body"}
    assert codes(v, "mutations") == {"mutant_survived", "content_unchecked"}
    assert v.mutation_score is not None and 0 < v.mutation_score < 1


def test_gate_7_reads_state_rejects_a_check_that_can_never_fail() -> None:
    spec = example()
    spec["checks"].append({"id": "version-not-99", "rule": {
        "kind": "field", "op": "not_equals", "value": 99,  # a version no play reaches
        "target": {"app": "services", "table": "services", "id": "svc-payments", "field": "config_version"}}})
    v = validate_spec(spec)
    assert failed(v) == {"reads_state"}
    assert [(e.code, e.path) for e in v.errors()] == [("unexercised_check", f"checks[{len(spec['checks']) - 1}]")]


def test_gate_2_references_rejects_a_value_the_field_never_holds() -> None:
    """The same check with "3" (text) for an int field is constant whatever is played: named before any episode."""
    spec = example()
    spec["checks"].append({"id": "version-not-three", "rule": {
        "kind": "field", "op": "not_equals", "value": "3",
        "target": {"app": "services", "table": "services", "id": "svc-payments", "field": "config_version"}}})
    v = validate_spec(spec)
    assert failed(v) == {"references"}
    assert [(e.code, e.path) for e in v.errors()] == [("value_never_held",
                                                      f"checks[{len(spec['checks']) - 1}].rule.value")]


def test_gate_7_reads_state_rejects_reply_only_checks() -> None:
    spec = example()
    spec["turns"] = [{"content": "Which request failed first at checkout? Tell me its id."}]
    spec["tools"] = ["logs_search"]  # read-only: nothing to guard
    spec["dynamics"] = {}
    spec["reference"] = [{"steps": [
        {"call": {"name": "logs_search", "arguments": {"service": "svc-payments", "min_level": "ERROR"}}},
        {"say": "The first failing checkout request was req-7f3a91 (db pool exhausted at 08:15:31 UTC)."},
    ]}]
    spec["checks"] = [{"id": "names-request", "rule": {"kind": "reply_states", "source": {
        "app": "logs", "table": "lines", "id": "log-3", "field": "request_id"}}}]
    v = validate_spec(spec)
    assert failed(v) == {"reads_state"}, [str(e) for e in v.errors()]
    assert codes(v, "reads_state") == {"reply_only_checks"}


def test_gate_7_flags_min_times_zero_and_impossible_record_conditions() -> None:
    spec = example()
    spec["checks"] += [
        {"id": "zero-calls", "rule": {"kind": "called", "call": {"tool": "logs_search"}, "min_times": 0}},
        {"id": "no-such-tickets", "rule": {"kind": "records", "app": "tickets", "table": "tickets",
                                           "where": [{"field": "title", "value": "no ticket has this title"}],
                                           "count_op": "equals", "count": 0}},
    ]
    v = validate_spec(spec)
    assert "reads_state" in failed(v)  # (holding everywhere, they also leak credit to the noop)
    n = len(spec["checks"])
    assert {e.path for e in v.gate("reads_state").errors} == {  # type: ignore[union-attr]
        f"checks[{n - 2}]", f"checks[{n - 1}]"}
    # A priority no ticket can hold (`p9`) is named earlier, by the references gate, without playing an episode.
    spec["checks"][-1]["rule"]["where"] = [{"field": "priority", "value": "p9"}]
    v = validate_spec(spec)
    assert failed(v) == {"references"} and codes(v, "references") == {"value_never_held"}


def test_gate_8_isolation_rejects_checks_readable_in_a_file() -> None:
    spec = example()
    leaked = json.dumps(spec["checks"], indent=2)
    spec["world"]["apps"]["files"]["files"] = [{"id": "ops/grading.json", "kind": "json", "content": leaked}]
    v = validate_spec(spec)
    assert failed(v) == {"isolation"} and v.stage == "schema_valid"
    # The order and call checks spell out the reference's calls too.
    assert "verifier_in_world" in codes(v, "isolation") <= {"verifier_in_world", "reference_in_world",
                                                           "answer_in_world"}


def test_gate_8_isolation_rejects_a_check_id_in_the_user_turn() -> None:
    spec = example()
    spec["turns"][0]["content"] += " (graded by config-rolled-back)"
    v = validate_spec(spec)
    assert failed(v) == {"isolation"}
    assert [(e.code, e.path) for e in v.errors()] == [("check_id_in_prompt", "checks[0].id")]


def test_gate_9_turns_reachable_rejects_a_follow_up_the_reference_never_triggers() -> None:
    spec = example()
    spec["turns"][1]["condition"] = {"kind": "after_call", "call": {"tool": "services_deploy",
                                                                   "args": {"service": "svc-payments"}}}
    for check_id in ("regression-fixed", "ticket-noted"):
        spec["checks"].pop(check_index(spec, check_id))
    v = validate_spec(spec)
    assert failed(v) == {"turns_reachable"}, [str(e) for e in v.errors()]
    assert [(e.code, e.path) for e in v.errors()] == [("turn_not_reached", "turns[1].condition")]


def test_gate_10_sandbox_rejects_a_python_check_that_crashes() -> None:
    pytest.importorskip("coworkenv.sandbox")
    spec = example()
    spec["checks"].append({"id": "custom", "required": False, "rule": {
        "kind": "python", "apps": ["services"],
        "code": "def check(state, audit, messages):\n    raise RuntimeError('broken check')\n"}})
    v = validate_spec(spec)
    assert failed(v) == {"sandbox"}, [str(e) for e in v.errors()]
    assert codes(v, "sandbox") == {"python_crash"}
    assert {e.path for e in v.errors()} == {f"checks[{len(spec['checks']) - 1}].rule.code"}


def test_stages_stop_at_the_first_failing_stage() -> None:
    spec = example()
    spec["tools"].remove("tickets_comment")  # coherent fails: nothing of solvable or sound runs
    v = validate_spec(spec)
    ran = {g.gate for g in v.gates}
    assert ran == {"schema", *STAGES[1][1]}


def test_the_report_is_machine_readable() -> None:
    spec = example()
    spec["checks"][0]["rule"]["target"]["id"] = "svc-missing"
    report = validate_spec(spec).report()
    json.dumps(report)
    assert report["passed"] is False and report["stage_reached"] == "schema_valid"
    assert report["failed_gates"] == [{"gate": "references", "errors": [{
        "gate": "references", "code": "missing_record", "path": "checks[0].rule.target.id",
        "message": "no record 'svc-missing' in services.services",
        "hint": "the id names no record: use an id that exists in the world, or one the reference creates"}]}]
    assert report["first_failed_gate"] == "references" and report["findings"] == []


def test_validation_is_deterministic() -> None:
    assert validate_spec(example()).as_dict() == validate_spec(example()).as_dict()


def _leaf_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _leaf_paths(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _leaf_paths(v, (*path, i))] or [path]
    return [path]


LEAVES = _leaf_paths(example())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(LEAVES), st.one_of(st.none(), st.booleans(), st.integers(-3, 9), st.text(max_size=12),
                                          st.sampled_from(["svc-gateway", "u-raj", "#payments", "OPS-101", "p2"])))
def test_any_corrupted_field_is_judged_never_crashes_a_gate(path: tuple[Any, ...], value: Any) -> None:
    spec = example()
    node = spec
    for key in path[:-1]:
        node = node[key]
    if path:
        node[path[-1]] = value
    v = validate_spec(spec)
    assert all(e.gate in GATES and e.code != "internal_error" for e in v.errors()), [str(e) for e in v.errors()]
    assert v.passed == (not v.errors())
