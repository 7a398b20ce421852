"""Which moves of a read `credited_elsewhere` plays (static: no episode is run)."""

from __future__ import annotations

from typing import Any

from coworkenv.bindings import spec_catalog
from coworkenv.env import base_world
from coworkenv.loading import parse_spec
from coworkenv.spec import EnvSpec, ToolCallSpec
from coworkenv.validate._refused_calls import _elsewhere, _tried_moves, audit_readers
from tests.defects._core import base_spec

_GRADER = 'def check(state, audit, messages):\n    return any(a["tool"] == "tickets_search" and a["ok"] for a in audit)\n'


def _with(base: str, rule: dict[str, Any]) -> EnvSpec:
    spec = base_spec(base)
    spec["checks"].append({"id": "looked", "description": "the agent looked", "role": "completion", "weight": 1.0,
                           "required": True, "safety": False, "pass_score": 1.0, "rule": rule})
    return parse_spec(spec)


def _tried(spec: EnvSpec, tool: str) -> list[tuple[ToolCallSpec, set[str]]]:
    call = next(st.call for turn in spec.reference for st in turn.steps if st.call and st.call.name == tool)
    return _tried_moves(spec, call, _elsewhere(spec, call, spec_catalog(spec), base_world(spec)), audit_readers(spec))


def test_a_loose_matcher_is_tried_on_the_records_it_takes_not_only_the_first_other() -> None:
    spec = _with("synth:feature_flag_rollout@1", {"kind": "called", "call": {"tool": "logs_tail", "where": [
        {"field": "service", "op": "contains", "value": "search"}]}})
    assert [m.arguments["service"] for m, _ in _tried(spec, "logs_tail")] == ["svc-search"]


def test_a_matcher_pinning_the_service_is_not_judged_on_the_window() -> None:
    spec = _with("synth:incident_investigate_fix@1", {"kind": "called", "call": {
        "tool": "logs_search", "args": {"service": "svc-kyc"}}})
    assert _tried(spec, "logs_search") == []


def test_a_grader_reading_the_audit_is_tried_on_a_search_moved_in_every_bound() -> None:
    spec = _with("synth:oncall_handoff@1", {"kind": "python", "entrypoint": "check", "apps": [], "code": _GRADER})
    [(moved, readers)] = _tried(spec, "tickets_search")
    assert readers == {"looked"} and moved.arguments["assignee"] != "u-kiran"
    assert moved.arguments["limit"] == 50


def test_a_search_bound_by_an_address_is_moved_onto_another_persons_for_a_grader() -> None:
    # defects98: the address moved onto another person's the directory holds, the window a week later
    code = _GRADER.replace("tickets_search", "calendar_list_events")
    spec = _with("synth:refuse_forbidden_action@1", {"kind": "python", "entrypoint": "check", "apps": [], "code": code})
    [(moved, readers)] = _tried(spec, "calendar_list_events")
    assert readers == {"looked"} and moved.arguments["start"] == "2026-08-26T08:15:00Z"
    assert moved.arguments["person"] != "bilal.suzuki@copperleaf.test" and "@" in moved.arguments["person"]


def test_a_person_read_by_address_is_moved_onto_another_persons_address() -> None:
    code = _GRADER.replace("tickets_search", "directory_get_person")
    spec = _with("synth:access_request_approval@1", {"kind": "python", "entrypoint": "check", "apps": [], "code": code})
    [(moved, _)] = _tried(spec, "directory_get_person")
    assert moved.arguments["person"] not in ("hamza.osei@atlasfreight.test", "")
    # a matcher pinning the person takes no move
    spec = _with("synth:access_request_approval@1", {"kind": "called", "call": {
        "tool": "directory_get_person", "args": {"person": "hamza.osei@atlasfreight.test"}}})
    assert _tried(spec, "directory_get_person") == []


def test_a_day_is_moved_a_week_later_with_the_address() -> None:
    spec = _with("synth:refuse_forbidden_action@1", {"kind": "python", "entrypoint": "check", "apps": [],
                                                      "code": _GRADER.replace("tickets_search", "calendar_user_events")})
    call = ToolCallSpec(name="calendar_user_events", arguments={"user": "bilal.suzuki@copperleaf.test",
                                                                "date": "2026-08-19"})
    [(moved, _)] = _tried_moves(spec, call, _elsewhere(spec, call, spec_catalog(spec), base_world(spec)),
                                audit_readers(spec))
    assert moved.arguments["date"] == "2026-08-26" and moved.arguments["user"] != "bilal.suzuki@copperleaf.test"


def test_a_list_of_people_is_moved_whole_and_all_but_one() -> None:
    # defects101: free/busy of the attendees (a list of addresses) moved onto people the reference does not name
    fb = "calendar_free_busy"
    spec = _with("synth:reschedule_conflict@3", {"kind": "python", "entrypoint": "check", "apps": [],
                                                  "code": _GRADER.replace("tickets_search", fb)})
    people = ["saoirse.ali@wavecrest.test", "astrid.rossi@wavecrest.test"]
    [(moved, _)] = _tried(spec, fb)
    assert not set(moved.arguments["people"]) & set(people) and len(set(moved.arguments["people"])) == 2
    assert moved.arguments["start"] == "2026-05-12T14:00:00Z"
    # a matcher pinning one person of the two takes the move keeping that person; one pinning both takes none
    spec = _with("synth:reschedule_conflict@3", {"kind": "called", "call": {"tool": fb, "args": {"people": people[1:]}}})
    [(moved, _)] = _tried(spec, fb)
    assert moved.arguments["people"][1] == people[1] and moved.arguments["people"][0] not in people
    spec = _with("synth:reschedule_conflict@3", {"kind": "called", "call": {"tool": fb, "args": {"people": people}}})
    assert _tried(spec, fb) == []
