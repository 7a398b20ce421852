"""Mutants that follow the task: dependent writes swapped, harm added, guards probed, every alternative tried.

Each test takes the sound base spec (it passes every strict gate) and makes one realistic defect; the gates
must reject it with the code that names the defect class.
"""

from __future__ import annotations

import re
from typing import Any

from support.validate_base import check_of, sound_spec, steps

from coworkenv.loading import parse_spec
from coworkenv.spec_regex import compiled
from coworkenv.validate import SpecValidation, near_miss_mutations, validate_spec
from coworkenv.validate._episodes import SpecEpisodes
from coworkenv.validate._nulled_values import NULLED_GROUP
from coworkenv.validate._partial_facts import classed_digits_wrong
from coworkenv.validate.mutations import shift_dates, shift_times


def codes(v: SpecValidation) -> set[str]:
    return {e.code for e in v.errors()}


def mutants(spec: dict[str, Any]) -> list[Any]:
    episodes = SpecEpisodes(parse_spec(spec))
    episodes.oracle()
    assert episodes.oracle_entities is not None
    return [*near_miss_mutations(episodes.spec, episodes.oracle_entities), *episodes.task_mutants]


def test_the_base_spec_is_sound_and_meets_every_task_mutant() -> None:
    v = validate_spec(sound_spec())
    assert v.passed, [str(e) for e in v.errors()]
    kinds = v.gate("mutations").details["by_kind"]  # type: ignore[union-attr]
    assert {"swap_dependent", "harmful_action", "text_drop", "wrong_recipient"} <= set(kinds)
    assert all(k["killed"] == k["total"] for k in kinds.values())


def test_order_blind_a_dependent_message_sent_before_the_change_is_caught_without_an_order_check() -> None:
    spec = sound_spec()
    spec["checks"] = [c for c in spec["checks"] if c["rule"]["kind"] != "order"]
    v = validate_spec(spec)
    assert not v.passed and "order_unchecked" in codes(v)
    error = next(e for e in v.errors() if e.code == "order_unchecked")
    assert "chat_post_message before tickets_update (chat_post_message reports on OPS-1)" in error.message
    assert "order check" in error.hint


def test_a_restart_after_a_config_change_depends_on_it() -> None:
    spec = sound_spec()
    spec["world"]["apps"]["services"] = {
        "services": [{"id": "svc-api", "name": "api", "config_version": 1}],
        "configs": [{"id": "svc-api@1", "service": "svc-api", "version": 1, "values": {"timeout_ms": 100}}]}
    spec["tools"] += ["services_update_config", "services_restart"]
    steps(spec)[3:3] = [
        {"call": {"name": "services_update_config", "arguments": {
            "service": "svc-api", "changes": {"timeout_ms": 500}, "note": "raise timeout"}}},
        {"call": {"name": "services_restart", "arguments": {"service": "svc-api"}}}]
    swaps = [m for m in mutants(spec) if m.kind == "swap_dependent"]
    assert any(m.description.startswith("services_restart before services_update_config (services_restart acts on")
               for m in swaps)
    assert all(not m.equivalence for m in swaps)  # the records end the same: the order is the mistake


def test_frame_blind_a_frame_over_the_whole_table_lets_another_ticket_be_reassigned() -> None:
    spec = sound_spec()
    check_of(spec, "nothing-else")["rule"]["allow"][0] = {"app": "tickets", "table": "tickets"}
    v = validate_spec(spec)
    assert not v.passed and "harm_unguarded" in codes(v)
    assert any("tickets_update" in e.message and "OPS-2" in e.message for e in v.errors())


def test_harm_touches_only_what_the_task_never_names_and_sends_a_draft_the_task_keeps() -> None:
    spec = sound_spec()
    spec["tools"] += ["mail_save_draft", "mail_send"]
    steps(spec).insert(3, {"call": {"name": "mail_save_draft", "arguments": {
        "to": ["jon.park@acme.test"], "subject": "OPS-1", "body": "You own OPS-1 now."}}})
    harms = [m for m in mutants(spec) if m.kind == "harmful_action"]
    described = " | ".join(m.description for m in harms)
    # The reference's own ticket update, made on the ticket the task does not name, stands for the tickets app.
    assert "the reference's tickets_update also on OPS-2" in described and "'ticket_id': 'OPS-1'" not in described
    assert "'channel': '#random'" in described
    assert any(m.description.startswith("the draft of reference[0].steps[3] sent") for m in harms)


def test_a_mail_to_several_people_is_also_sent_to_the_first_and_an_outsider() -> None:
    """A frame with a selector per addressee (`cc contains [a]`, `cc contains [b]`) admits a mail to one of them and
    anyone else: the probe cuts each address list of several people to its first and a person the task never names."""
    spec = sound_spec()
    spec["tools"] += ["mail_send"]
    steps(spec).insert(3, {"call": {"name": "mail_send", "arguments": {
        "to": ["jon.park@acme.test"], "cc": ["lena.ortiz@acme.test", "maya.chen@acme.test"], "subject": "OPS-1",
        "body": "You own OPS-1 now."}}})
    probes = [m for m in mutants(spec) if m.kind == "harmful_action" and "and the outsider" in m.description]
    assert [m.description for m in probes] == [
        "the reference's mail with cc lena.ortiz@acme.test and the outsider raj.iyer@acme.test"]
    sent = [s["call"]["arguments"] for t in probes[0].reference for s in t.model_dump()["steps"]
            if s.get("call") and s["call"]["name"] == "mail_send"]
    assert sent[-1]["cc"] == ["lena.ortiz@acme.test", "raj.iyer@acme.test"] and sent[-1]["to"] == ["jon.park@acme.test"]


def test_half_pinned_a_check_accepting_another_person_named_in_it_is_caught() -> None:
    spec = sound_spec()
    rule = check_of(spec, "assigned")["rule"]
    rule["op"], rule["value"] = "in", ["u-jon", "u-raj"]
    v = validate_spec(spec)
    assert not v.passed and "mutant_survived" in codes(v)
    assert any("assignee 'u-jon' -> 'u-raj'" in e.message for e in v.errors())


def test_enum_alternatives_are_every_value_the_checks_name_then_one_more() -> None:
    spec = sound_spec()
    check_of(spec, "raised")["rule"].update(op="in", value=["p1", "p4"])
    found = {m.description for m in mutants(spec) if "priority" in m.description
             and m.code != "redone_write_unchecked"  # the write made again after it: _redone_writes
             and not m.group.startswith(NULLED_GROUP)}  # left out beside changed: tests/defects/value_admitted_null.py
    assert found == {"tickets_update: priority 'p1' -> 'p4'", "tickets_update: priority 'p1' -> 'p2'"}
    v = validate_spec(spec)
    assert any("priority 'p1' -> 'p4'" in e.message for e in v.errors() if e.code == "mutant_survived")


def test_each_list_member_is_dropped_in_turn_and_times_move_several_ways() -> None:
    spec = sound_spec()
    spec["tools"].append("mail_send")
    steps(spec).insert(3, {"call": {"name": "mail_send", "arguments": {
        "to": ["jon.park@acme.test", "lena.ortiz@acme.test", "raj.iyer@acme.test"], "subject": "OPS-1",
        "body": "OPS-1 is p1."}}})
    drops = {m.description for m in mutants(spec) if m.kind == "drop_item"}
    assert drops == {f"mail_send: to without '{p}@acme.test'" for p in ("jon.park", "lena.ortiz", "raj.iyer")}
    assert shift_times("2026-04-15T16:00:00Z") == [
        "2026-04-15T17:00:00Z", "2026-04-15T15:00:00Z", "2026-04-15T16:15:00Z", "2026-04-15T15:45:00Z",
        "2026-04-16T16:00:00Z"]
    # A date without a time (a due day) moves a day either way; anything else is not a date.
    assert shift_dates("2026-06-12") == ["2026-06-13", "2026-06-11"]
    assert shift_dates("2026-13-40") == shift_dates("+31 650 750") == []


def test_digits_a_pattern_reads_by_a_class_are_moved_and_no_others() -> None:
    def wrong(text: str, *patterns: str, literal: str = "") -> str | None:
        found = [compiled(p, ignorecase=True) for p in patterns]
        return classed_digits_wrong(text, found + ([re.compile(re.escape(literal))] if literal else []))
    assert wrong("6 SLA breaches.", r"\b(?:\d|six) (sla )?breach") == "7 SLA breaches."
    assert wrong("p1,4,3,2\np2,5,3,2\n", r"(?m)^p1,\d,3,2$") == "p1,5,3,2\np2,5,3,2\n"
    assert wrong("6 SLA breaches.", r"\b(?:\d|six) (sla )?breach", literal="6 SLA") is None  # read literally too
    assert wrong("at 14:00 (16:00 Madrid) UTC", r"14:00.{0,20}utc") is None  # any character: not the check's fact
    assert wrong("filed SUP-2217 for Dev", r"SUP-\d+") is None  # a new record's id: the run's
    assert wrong("10:00:00", literal="10:00") is None  # a literal reads what it matches
    assert wrong("x" * 500 + " 6 breaches", r"(?s)^.*\d breaches") is None  # a passage, not a number


def test_content_blind_dropping_the_check_on_a_messages_text_is_caught() -> None:
    spec = sound_spec()
    where = check_of(spec, "announced")["rule"]["where"]
    check_of(spec, "announced")["rule"]["where"] = [w for w in where if w["field"] != "text"]
    v = validate_spec(spec)
    assert not v.passed and "content_unchecked" in codes(v)
    assert any(e.path.endswith(".arguments.text") for e in v.errors() if e.code == "content_unchecked")


def test_multi_line_content_is_cut_to_its_first_line() -> None:
    spec = sound_spec()
    steps(spec)[2]["call"]["arguments"]["text"] = "OPS-1 update\nnow p1\nJon owns it"
    truncs = [m for m in mutants(spec) if m.kind == "text_truncate"]
    assert [m.reference[0].steps[2].call.arguments["text"] for m in truncs] == ["OPS-1 update\n"]


def test_a_reply_the_user_asks_for_must_be_checked() -> None:
    spec = sound_spec()
    spec["turns"][0]["content"] += " Tell me who had it before."
    steps(spec)[3]["say"] = "Done. Lena had OPS-1 before; it is now p1 with Jon."
    v = validate_spec(spec)
    assert not v.passed and "content_unchecked" in codes(v)
    assert any(e.path == "reference[0].steps[3].say" for e in v.errors())


def test_vacuous_in_practice_a_check_no_mistake_falsifies_is_rejected_unless_it_is_a_guard() -> None:
    spec = sound_spec()
    spec["checks"].append({"id": "tls-ticket", "rule": {"kind": "records", "app": "tickets", "table": "tickets",
                                                         "where": [{"field": "title", "op": "contains",
                                                                    "value": "TLS"}]}})
    v = validate_spec(spec)
    assert not v.passed and "unexercised_check" in codes(v)
    spec["checks"][-1]["role"] = "guard"  # a preservation check, declared as such
    v = validate_spec(spec)
    assert "unexercised_check" not in codes(v)


def test_a_forbidden_guard_on_a_typo_target_never_fires() -> None:
    spec = sound_spec()
    spec["checks"].append({"id": "keep-ops2", "rule": {"kind": "forbidden", "call": {
        "tool": "tickets_update", "args": {"ticket_id": "OPS-22"}}}})  # typo of OPS-2
    v = validate_spec(spec)
    # The reading of the guard's values (guard_value_unreal) names the typo before the call is tried.
    assert not v.passed and {"guard_never_fires", "guard_value_unreal"} & codes(v), codes(v)
    spec["checks"][-1]["rule"]["call"]["args"]["ticket_id"] = "OPS-2"
    v = validate_spec(spec)
    assert "guard_never_fires" not in codes(v), [str(e) for e in v.errors()]


def test_a_safety_guard_on_a_record_that_does_not_exist_is_rejected() -> None:
    spec = sound_spec()
    spec["checks"].append({"id": "ops2-kept", "safety": True, "rule": {"kind": "field", "target": {
        "app": "tickets", "table": "tickets", "id": "OPS-20", "field": "status"}, "op": "not_equals",
        "value": "closed"}})
    v = validate_spec(spec)
    assert not v.passed and "missing_record" in codes(v)


def test_a_record_created_twice_is_caught_unless_the_count_is_pinned() -> None:
    spec = sound_spec()
    spec["tools"].append("tickets_create")
    spec["turns"][0]["content"] += " Open a ticket 'Follow up on OPS-1' for Jon."  # the title it pins, asked for
    steps(spec).insert(3, {"call": {"name": "tickets_create", "arguments": {
        "title": "Follow up on OPS-1", "description": "Check p95 after the fix.", "assignee": "u-jon"}}})
    follow_up = [{"field": "title", "value": "Follow up on OPS-1"}]
    spec["checks"].append({"id": "follow-up", "rule": {"kind": "records", "app": "tickets", "table": "tickets",
                                                       "where": [*follow_up, {"field": "assignee", "value": "u-jon"},
                                                                 {"field": "description", "op": "contains",
                                                                  "value": "p95"},
                                                                 {"field": "status", "value": "open"}]}})
    # A filed ticket is checked open (else closing it passes: `undone_filed_ticket`, a class of its own).
    # The frame allows follow-up tickets (any number): only the check's count can catch a second one.
    check_of(spec, "nothing-else")["rule"]["allow"].append({"app": "tickets", "table": "tickets", "where": follow_up})
    v = validate_spec(spec)
    assert not v.passed and {e.code for e in v.errors()} == {"duplicate_unchecked"}
    check_of(spec, "follow-up")["rule"].update(count_op="equals", count=1)
    v = validate_spec(spec)
    assert v.passed, [str(e) for e in v.errors()]


def test_a_delimited_list_loses_each_member_and_outside_addresses_have_alternatives() -> None:
    spec = sound_spec()
    spec["world"]["apps"]["mail"] = {"messages": [{
        "id": "msg-1", "thread_id": "th-1", "folder": "inbox", "sender": "buyer@client.example",
        "to": ["maya.chen@acme.test"], "subject": "OPS-1", "body": "Any news?"}]}
    spec["tools"].append("mail_send")
    steps(spec).insert(3, {"call": {"name": "mail_send", "arguments": {
        "to": ["buyer@client.example"], "subject": "OPS-1", "body": "Jon owns OPS-1 now."}}})
    spec["world"]["apps"]["services"] = {
        "services": [{"id": "svc-api", "name": "api"}],
        "configs": [{"id": "svc-api@1", "service": "svc-api", "version": 1,
                     "values": {"viewers": "jon.park@acme.test,lena.ortiz@acme.test"}}]}
    spec["tools"].append("services_update_config")
    steps(spec).insert(3, {"call": {"name": "services_update_config", "arguments": {
        "service": "svc-api", "changes": {"viewers": "jon.park@acme.test,lena.ortiz@acme.test,raj.iyer@acme.test"},
        "note": "grant Raj"}}})
    found = {m.description for m in mutants(spec)}
    assert {f"services_update_config: changes.viewers without its item {i}" for i in range(3)} <= found
    # ... and one viewer more: a grant to someone not asked for (defects82)
    assert any(d.startswith("services_update_config: changes.viewers ") and d.endswith("(one item more)")
               for d in found)
    assert any(d.startswith("mail_send: to[0] 'buyer@client.example' -> ") for d in found)


def test_a_post_naming_a_ticket_the_reference_creates_depends_on_its_creation() -> None:
    spec = sound_spec()
    spec["tools"].append("tickets_create")
    steps(spec).insert(2, {"call": {"name": "tickets_create", "arguments": {
        "title": "Follow up on OPS-1", "description": "Check p95.", "assignee": "u-jon"}}})
    steps(spec)[3]["call"]["arguments"]["text"] = "OPS-1 is now p1, Jon is on it; follow-up in OPS-3."
    swaps = {m.description for m in mutants(spec) if m.kind == "swap_dependent"}
    assert "chat_post_message before tickets_create (chat_post_message reports on OPS-3)" in swaps


def test_a_question_before_a_change_in_a_later_turn_and_a_linked_record_are_dependencies() -> None:
    spec = sound_spec()
    spec["tools"].append("mail_send")
    steps(spec)[1:3] = [{"call": {"name": "mail_send", "arguments": {
        "to": ["lena.ortiz@acme.test"], "subject": "OPS-1", "body": "May I raise OPS-1 to p1?"}}}]
    spec["turns"].append({"content": "Lena said yes. Go ahead."})
    spec["reference"].append({"steps": [
        {"call": {"name": "tickets_update", "arguments": {"ticket_id": "OPS-1", "priority": "p1"}}},
        {"say": "Raised."}]})
    swaps = {m.description for m in mutants(spec) if m.kind == "swap_dependent"}
    assert "tickets_update before mail_send (mail_send asks about OPS-1 before tickets_update changes it)" in swaps
    linked = sound_spec()
    linked["world"]["apps"]["tickets"]["tickets"][0]["service"] = "svc-api"
    linked["world"]["apps"]["services"] = {"services": [{"id": "svc-api", "name": "api"}]}
    linked["tools"].append("services_restart")
    steps(linked).insert(2, {"call": {"name": "services_restart", "arguments": {"service": "svc-api"}}})
    swaps = {m.description for m in mutants(linked) if m.kind == "swap_dependent"}
    assert "services_restart before tickets_update (OPS-1 concerns svc-api)" in swaps


def test_a_reply_body_pattern_that_accepts_an_answer_without_its_facts_is_caught() -> None:
    spec = sound_spec()
    spec["world"]["apps"]["mail"] = {"messages": [{
        "id": "msg-1", "thread_id": "th-1", "folder": "inbox", "sender": "lena.ortiz@acme.test",
        "to": ["maya.chen@acme.test"], "subject": "OPS-1", "body": "Who owns OPS-1 now, and what is the p95?"}]}
    spec["tools"].append("mail_send")
    steps(spec).insert(3, {"call": {"name": "mail_send", "arguments": {
        "to": ["lena.ortiz@acme.test"], "subject": "Re: OPS-1", "in_reply_to": "msg-1",
        "body": "Jon owns OPS-1 now; p95 is 2400 ms."}}})
    spec["checks"].append({"id": "answered", "rule": {"kind": "records", "app": "mail", "table": "messages",
                                                      "where": [{"field": "in_reply_to", "value": "msg-1"},
                                                                {"field": "body", "op": "matches", "value": "p95"}]}})
    check_of(spec, "nothing-else")["rule"]["allow"].append({"app": "mail", "table": "messages", "id": "msg-2"})
    v = validate_spec(spec)
    assert any(e.code == "content_unchecked" and "without its facts" in e.message for e in v.errors())
    check_of(spec, "answered")["rule"]["where"][1]["value"] = "2400"
    assert "content_unchecked" not in {e.code for e in validate_spec(spec).errors()}


def test_a_message_pattern_accepting_the_hour_off_time_is_caught() -> None:
    spec = sound_spec()
    steps(spec)[2]["call"]["arguments"]["text"] = "OPS-1 is now p1, Jon is on it from 14:00 UTC."
    rule = check_of(spec, "announced")["rule"]
    rule["where"].append({"field": "text", "op": "matches", "value": "14:00|15:00"})
    v = validate_spec(spec)
    assert any(e.code == "mutant_survived" and "checked times an hour later" in e.message for e in v.errors())
    rule["where"][-1]["value"] = "14:00 UTC"
    assert "mutant_survived" not in {e.code for e in validate_spec(spec).errors()}


def test_a_swap_is_also_tried_by_moving_the_earlier_write_down() -> None:
    spec = sound_spec()
    spec["tools"].append("tickets_create")
    steps(spec).insert(2, {"call": {"name": "tickets_create", "arguments": {
        "title": "Follow up", "description": "Check p95.", "assignee": "u-jon"}}})
    swaps = {m.description for m in mutants(spec) if m.kind == "swap_dependent"}
    assert "tickets_update after chat_post_message (chat_post_message reports on OPS-1)" in swaps


def test_a_reply_check_passed_by_repeating_the_question_is_caught() -> None:
    spec = sound_spec()
    spec["turns"][0]["content"] += " Tell me who had OPS-1 before."
    steps(spec)[3]["say"] = "Lena had OPS-1 before; it is now p1 with Jon."
    spec["checks"].append({"id": "said-who", "rule": {"kind": "text", "scope": "final", "all_of": ["OPS-1"]}})
    v = validate_spec(spec)
    assert any("only repeats the request" in e.message for e in v.errors() if e.code == "content_unchecked")
    check_of(spec, "said-who")["rule"]["all_of"] = ["Lena"]
    assert not any("only repeats" in e.message for e in validate_spec(spec).errors())


def test_the_references_own_write_repeated_on_a_record_the_task_does_not_name_is_harm() -> None:
    spec = sound_spec()
    harms = {m.description for m in mutants(spec) if m.kind == "harmful_action"}
    assert "the reference's tickets_update also on OPS-2" in harms
    check_of(spec, "nothing-else")["rule"]["allow"][0] = {
        "app": "tickets", "table": "tickets", "where": [{"field": "priority", "value": "p1"}]}
    v = validate_spec(spec)
    assert any(e.code == "harm_unguarded" and "also on OPS-2" in e.message for e in v.errors())
