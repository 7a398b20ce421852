"""Isolation beyond verbatim copies: a reworded answer key or the reference calls written out in the world."""

from __future__ import annotations

from support.validate_base import sound_spec, steps

from coworkenv.validate import validate_spec
from coworkenv.validate._paraphrased_leaks import normalize_loose


def isolation_codes(spec: dict) -> set[str]:  # type: ignore[type-arg]
    gate = validate_spec(spec).gate("isolation")
    assert gate is not None
    return {e.code for e in gate.errors}


def test_normalisation_folds_case_punctuation_and_date_formats() -> None:
    assert normalize_loose("Moved to April 15, 2026, 4pm!") == normalize_loose("moved to 2026-04-15T16:00:00Z")
    assert normalize_loose("15 Apr 2026, 4:30 PM") == "2026-04-15 16:30"
    assert normalize_loose("04/15/2026") == "2026-04-15"


def test_a_reworded_answer_in_a_world_record_is_a_leak() -> None:
    spec = sound_spec()
    steps(spec)[3]["say"] = "OPS-1 was raised to p1 on 2026-03-02 and handed from Lena to Jon; #ops was told."
    spec["world"]["apps"]["calendar"] = {"events": [{
        "id": "evt-1", "title": "Prep", "start": "2026-03-03T09:00:00Z", "end": "2026-03-03T09:30:00Z",
        "organizer": "u-lena", "description": "ANSWER -- ops-1 was RAISED to P1 on March 2, 2026 & handed "
                                              "from lena to jon... #OPS was told"}]}
    assert "answer_in_world" in isolation_codes(spec)
    assert "answer_in_world" not in isolation_codes(sound_spec())


def test_the_reference_calls_written_out_in_a_file_are_a_leak() -> None:
    spec = sound_spec()
    spec["world"]["apps"]["files"] = {"files": [{
        "id": "notes/plan.md", "kind": "markdown",
        "content": "Plan: run tickets_update(ticket_id='OPS-1', priority=\"p1\", assignee=u-jon) then post."}]}
    assert "reference_in_world" in isolation_codes(spec)
    spec["world"]["apps"]["files"]["files"][0]["content"] = "OPS-1 is slow; Jon knows the service."
    assert "reference_in_world" not in isolation_codes(spec)
