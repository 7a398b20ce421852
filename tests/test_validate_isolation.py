"""Isolation beyond verbatim copies: a reworded answer key or the reference calls written out in the world."""

from __future__ import annotations

from support.validate_base import check_of, sound_spec, steps

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


def test_an_answer_key_pairing_several_checked_records_with_their_values_is_a_leak() -> None:
    spec = sound_spec()
    spec["checks"].append({"id": "ops2-raised", "rule": {"kind": "field", "target": {
        "app": "tickets", "table": "tickets", "id": "OPS-2", "field": "priority"}, "value": "p2"}})
    spec["world"]["apps"]["calendar"] = {"events": [{
        "id": "evt-1", "title": "Prep", "start": "2026-03-03T09:00:00Z", "end": "2026-03-03T09:30:00Z",
        "organizer": "u-lena", "description": "Outcome we expect: OPS-1 -> Jon Park; OPS-2 -> p2"}]}
    assert "answer_in_world" in isolation_codes(spec)
    spec["world"]["apps"]["calendar"]["events"][0]["description"] = "OPS-1 is slow since 08:10; p2 at most."
    assert "answer_in_world" not in isolation_codes(spec)


def test_rows_the_reference_computes_written_in_the_prompt_and_expected_values_in_the_context_leak() -> None:
    spec = sound_spec()
    spec["tools"].append("files_write_file")
    steps(spec).insert(2, {"call": {"name": "files_write_file", "arguments": {
        "path": "reports/prio.csv", "content": "ticket,priority\nOPS-1,p1\nOPS-2,p3\n"}}})
    spec["checks"].append({"id": "report", "rule": {"kind": "records", "app": "files", "table": "files", "where": [
        {"field": "id", "value": "reports/prio.csv"}, {"field": "content", "op": "contains", "value": "OPS-1,p1"}]}})
    clean = isolation_codes(spec)
    spec["turns"][0]["content"] += " (It should come out as: OPS-1,p1; OPS-2,p3.)"
    assert "reference_in_prompt" in isolation_codes(spec) - clean
    spec = sound_spec()
    spec["checks"].append({"id": "due", "rule": {"kind": "field", "target": {
        "app": "tickets", "table": "tickets", "id": "OPS-1", "field": "updated_at"}, "op": "gte",
        "value": "2026-03-02T09:00:00Z"}})
    spec["context"] += " Hint: the update lands at 2026-03-02 09:00 UTC."
    assert "verifier_in_prompt" in isolation_codes(spec)


def test_an_expected_date_time_written_out_in_a_message_is_a_leak() -> None:
    spec = sound_spec()
    spec["checks"].append({"id": "updated-at", "rule": {"kind": "field", "target": {
        "app": "tickets", "table": "tickets", "id": "OPS-1", "field": "updated_at"}, "op": "gte",
        "value": "2026-03-02T09:00:00Z"}})
    spec["world"]["apps"]["chat"]["messages"] = [{"id": "chat-0", "channel": "c-random", "sender": "u-lena",
                                                   "ts": "2026-03-01T10:00:00Z", "text": "standup moved"}]
    check_of(spec, "nothing-else")["rule"]["allow"][1]["id"] = "chat-1"
    clean = isolation_codes(spec)
    spec["world"]["apps"]["chat"]["messages"][0]["text"] = "note: it lands Monday 2 March, 09:00 UTC"
    assert "verifier_in_world" in isolation_codes(spec) - clean


def test_a_text_the_reference_writes_already_in_the_world_is_a_leak() -> None:
    spec = sound_spec()
    text = "OPS-1 is now p1 and Jon Park owns it; the checkout latency work continues in #ops today."
    steps(spec)[2]["call"]["arguments"]["text"] = text
    assert "reference_in_world" not in isolation_codes(spec)
    spec["world"]["apps"]["files"] = {"files": [{"id": "tmp/scratch.md", "kind": "markdown", "content": text}]}
    assert "reference_in_world" in isolation_codes(spec)


def test_a_lookup_answer_restating_the_record_the_reference_reads_is_not_a_leak() -> None:
    # A recall task (an outside benchmark's "find the stored note and answer"): the answer restates the record the
    # work leads to. Held in a record the reference never reads it is a shortcut; read by the reference, the task.
    spec = sound_spec()
    spec["world"]["apps"]["tickets"]["tickets"][1]["description"] = (
        "Root cause: the payments cache evicts checkout sessions; Raj flushes it hourly until Friday's fix.")
    steps(spec)[3]["say"] = ("OPS-1 is p1 with Jon. Root cause: payments cache evicts checkout sessions; "
                             "Raj flushes it hourly until Friday's fix.")
    assert "answer_in_world" in isolation_codes(spec)
    steps(spec).insert(1, {"call": {"name": "tickets_get", "arguments": {"ticket_id": "OPS-2"}}})
    assert "answer_in_world" not in isolation_codes(spec)
