"""The repair loop with a scripted reviser: broken specs get fixed or rejected with reasons; the funnel adds up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa

from coworkenv.examples import load_example
from coworkenv.llm import LLMError
from coworkenv.store.stages import ENVS_SCHEMA as ACCEPTED_SCHEMA
from coworkenv.store.stages import REJECTED_SCHEMA
from coworkenv.validate import (
    GATES,
    Candidate,
    Funnel,
    SpecReviser,
    accepted_table,
    rejected_table,
    validate_and_repair,
)

EXAMPLE = Path(__file__).resolve().parents[1] / "coworkenv" / "examples" / "incident_rollback.json"
CAP = "incident_investigation_and_fix"


def example(**metadata: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(EXAMPLE.read_text())
    data["metadata"].update(metadata)
    return data


def missing_record(**metadata: Any) -> dict[str, Any]:
    """The example with a check pointing at a record that does not exist."""
    spec = example(**metadata)
    spec["checks"][0]["rule"]["target"]["id"] = "svc-missing"
    return spec


def vacuous(**metadata: Any) -> dict[str, Any]:
    """The example plus a check that no state can falsify."""
    spec = example(**metadata)
    spec["checks"].append({"id": "always", "rule": {"kind": "called", "call": {"tool": "logs_search"},
                                                    "min_times": 0}})
    return spec


class ScriptedReviser:
    """Answers each revise call with the next scripted payload (or raises a scripted LLMError)."""

    def __init__(self, answers: list[dict[str, Any] | LLMError], tokens: int = 100) -> None:
        self.answers = list(answers)
        self.tokens = tokens
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    def revise(self, capability: str, payload: str, report: dict[str, Any]) -> tuple[str, int]:
        self.calls.append((capability, payload, report))
        answer = self.answers.pop(0)
        if isinstance(answer, LLMError):
            raise answer
        return json.dumps(answer), self.tokens


def candidate(spec: dict[str, Any], origin: str = "", tokens: int = 50) -> Candidate:
    return Candidate(CAP, json.dumps(spec), "scripted-model", tokens, origin=origin)


def test_a_broken_spec_is_fixed_in_one_round_and_accepted() -> None:
    reviser = ScriptedReviser([example()])
    assert isinstance(reviser, SpecReviser)
    run = validate_and_repair([candidate(missing_record(), "c1")], reviser, max_rounds=3)
    assert len(run.accepted) == 1 and not run.rejected
    accepted = run.accepted[0]
    assert accepted.repair_rounds == 1 and accepted.tokens == 150 and accepted.origin == "c1"
    assert accepted.validation.mutation_score == 1.0
    (capability, payload, report), = reviser.calls
    assert capability == CAP and json.loads(payload)["checks"][0]["rule"]["target"]["id"] == "svc-missing"
    assert report["failed_gates"][0]["gate"] == "references"
    assert report["failed_gates"][0]["errors"][0]["code"] == "missing_record"
    f = run.funnel.as_dict()
    stages = ("generated", "schema_valid", "coherent", "solvable", "sound", "accepted")
    assert {k: f[k] for k in stages} == dict.fromkeys(stages, 1)
    assert f["acceptance_rate"] == 1.0 and f["mutation_score"] == 1.0
    assert f["repair_rounds"] == {"1": 1} and f["rejected_by_gate"] == {}
    assert f["tokens_total"] == 150 and f["tokens_per_accepted"] == 150


def test_a_vacuous_check_is_sent_back_and_the_fix_accepted() -> None:
    reviser = ScriptedReviser([example()])
    run = validate_and_repair([candidate(vacuous())], reviser)
    assert [a.repair_rounds for a in run.accepted] == [1]
    report = reviser.calls[0][2]
    assert report["stage_reached"] == "solvable"
    assert report["failed_gates"] == [{"gate": "reads_state", "errors": [{
        "gate": "reads_state", "code": "vacuous_check", "path": f"checks[{len(example()['checks'])}]",
        "message": "check 'always' can never fail: min_times 0: holds even when the call never happens",
        "hint": "the check can never fail; compare with a value the wrong state does not have"}]}]


def test_a_spec_that_stays_broken_is_rejected_after_the_last_round_with_reasons() -> None:
    broken = missing_record()
    reviser = ScriptedReviser([broken, broken, vacuous()])
    run = validate_and_repair([candidate(broken, "c7")], reviser, max_rounds=3)
    assert not run.accepted and len(reviser.calls) == 3
    (rejection,) = run.rejected
    assert rejection.gate == "reads_state" and rejection.repair_rounds == 3 and rejection.origin == "c7"
    assert any("vacuous_check" in reason for reason in rejection.reasons)
    assert json.loads(rejection.last_payload)["checks"][-1]["id"] == "always"
    f = run.funnel.as_dict()
    assert (f["generated"], f["solvable"], f["sound"], f["accepted"]) == (1, 1, 0, 0)
    assert f["rejected_by_gate"] == {"reads_state": 1} and f["acceptance_rate"] == 0.0


def test_without_a_reviser_failures_are_rejected_at_once_and_duplicates_dropped() -> None:
    good = load_example("incident_rollback")
    run = validate_and_repair([
        Candidate(CAP, good, origin="a"),
        Candidate(CAP, good.to_json(), origin="b"),  # the same spec again
        Candidate(CAP, '{"capability": ', origin="c"),
        Candidate("meeting_scheduling", load_example("meeting_reschedule"), origin="d"),
    ])
    assert [a.origin for a in run.accepted] == ["a", "d"]
    assert [(r.origin, r.gate) for r in run.rejected] == [("b", "duplicate"), ("c", "schema")]
    f = run.funnel.as_dict()
    assert (f["generated"], f["schema_valid"], f["sound"], f["accepted"]) == (4, 3, 3, 2)
    assert sum(f["rejected_by_gate"].values()) == f["generated"] - f["accepted"]
    assert f["repair_rounds"] == {"0": 2}
    assert f["by_capability"]["meeting_scheduling"]["accepted"] == 1
    assert f["by_capability"][CAP]["rejected_by_gate"] == {"duplicate": 1, "schema": 1}


def test_llm_failures_are_counted_and_never_lose_a_spec() -> None:
    reviser = ScriptedReviser([LLMError("rate_limited", "HTTP 429"), example()])
    failed_generation = Candidate(CAP, "", "scripted-model", 0, error="timeout", error_message="no answer",
                                  origin="g")
    run = validate_and_repair([failed_generation, candidate(missing_record(), "r")], reviser)
    assert [(a.origin, a.repair_rounds) for a in run.accepted] == [("r", 2)]
    assert [(r.origin, r.gate) for r in run.rejected] == [("g", "generation")]
    f = run.funnel.as_dict()
    assert f["llm_failures"] == {"rate_limited": 1, "timeout": 1}
    assert f["generated"] == 1 and f["accepted"] == 1 and f["repair_rounds"] == {"2": 1}


def test_accepted_and_rejected_tables() -> None:
    run = validate_and_repair([candidate(example(), "ok"), candidate(missing_record(), "bad")])
    accepted, rejected = accepted_table(run), rejected_table(run)
    assert accepted.schema == ACCEPTED_SCHEMA and rejected.schema == REJECTED_SCHEMA
    assert accepted.num_rows == 1 and rejected.num_rows == 1
    row = accepted.to_pylist()[0]
    assert row["env_id"] == run.accepted[0].spec.id and row["mutation_score"] == 1.0
    assert [g["gate"] for g in json.loads(row["gates_json"])] == list(GATES)
    bad = rejected.to_pylist()[0]
    assert bad["gate"] == "references" and bad["origin"] == "bad" and bad["spec_id"]
    assert json.loads(bad["errors_json"])[0]["code"] == "missing_record"
    assert pa.Table.from_pylist([], schema=REJECTED_SCHEMA).num_rows == 0


def test_funnels_merge_across_partitions() -> None:
    a = validate_and_repair([candidate(example(), "a")]).funnel
    b = validate_and_repair([candidate(missing_record(), "b")]).funnel
    merged = a.merge(b).as_dict()
    assert (merged["generated"], merged["accepted"], merged["acceptance_rate"]) == (2, 1, 0.5)
    assert merged["by_capability"][CAP]["generated"] == 2
    assert isinstance(Funnel().as_dict()["mutation_score"], type(None))
