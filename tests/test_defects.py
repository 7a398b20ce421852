"""The defect corpus against the gates: every defect is rejected (by the right gate where attribution matters),
every sound twin is accepted, and every witness proves its defect real (an agent gets away with something).

Defects today's gates still miss are listed in MISSED with the reason; they are strict xfails, so a gate fix
that starts catching one turns it into a failure until the entry is removed.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import orjson
import pytest

from tests.defects import CLASSES, DETECTION, Defect, all_defects, has_policy, judge, play, witness_holds
from tests.defects.known_gaps import MISSED, TWINS_REJECTED

REQUIRED_CLASSES = {
    "order_blind", "frame_blind", "partial_credit", "content_blind", "half_pinned", "vacuous", "dead_guard",
    "python_fragile", "isolation_leak", "presolved", "funnel_attribution",
}

# Classes whose hole exists in fewer than three of today's generators, with the reason (measured over seeds 1-5 of
# every generator): the corpus covers every generator that has it.
NARROW_CLASSES = {
    "map_key_present": ({"correct_bad_data"}, "only its references write a word into a map argument (a config's "
                        "`changes.region`; seeds 1-5 of every generator: access_request_approval's config write "
                        "carries a list of addresses, which already had near misses, an item dropped or added)"),
    "frame_selector_split": ({"calendar_reschedule_across_time_zones", "schedule_meeting_timezones"}, "only these "
                             "frames hold a list of several items (the meeting's mail to every attendee: the "
                             "example and seeds 1-3 of every generator)"),
    "clock_later_class_read": ({"scheduler_pause_failing_jobs", "incident_investigate_fix"}, "only these tell a "
                               "clock the world holds that no text states (a job's last run, the first error's log "
                               "line), the base of clock_world_class_read; its third, incident_rollback, threads a "
                               "created log line by id, which moving the lines into the turn's changes breaks"),
    "draft_credited": ({"inbox_triage_reply", "clarify_ambiguous_request"}, "only these send a mail whose one check is "
                       "the records check on it (a draft of it passes once `folder` is dropped in seeds 1-5 of "
                       "these two; every other mailing generator also orders the mail after its write with an "
                       "`order` check on mail_send, or waits for it by a turn condition, which a draft fails)"),
    "declared_draft_credited": ({"inbox_triage_reply", "clarify_ambiguous_request"}, "draft_credited's two, their mail "
                                "tools declared (the same sent-mail check is the mail's one check there only)"),
    "asked_label_unchecked": ({"todo_track_mail_requests", "report_from_files_and_tickets"}, "only these write a free word the "
                              "instructions state into a list argument (the handled mails' label; the follow-up "
                              "ticket's label in Grace's mail): 31 writes in seeds 1-30 and the examples"),
    "file_label_unchecked": ({"todo_track_mail_requests", "report_from_files_and_tickets"}, "the same two: only "
                             "these write a free word into a list argument that a document the agent reads can state"),
    "stand_in_write_unchecked": ({"ticket_triage_update", "contact_phone_update"}, "only these references update "
                                 "an existing record to values the agent is given (the triage file's owner and "
                                 "priority, the mailed number) with no other check on the tool; the other "
                                 "stated updates (delegate_and_follow_up's and adapt_announced_change's "
                                 "reassignments, adapt_silent_change's resolve) set off the colleague's answer "
                                 "or are also read by a count or an order of the same tool's calls"),
    "in_list_respelled": ({"draft_only_reply", "scheduler_pause_failing_jobs"}, "only a draft's reply-to and a config "
                          "entry's value are kept as written whatever their case (mail_send refuses a reply-to no "
                          "message has: inbox_triage_reply's answer in capitals fails its own check)"),
    "unit_value_admitted": ({"correct_bad_data"}, "only its checks read the settings a config update keeps beside the "
                            "one it fixes (the hunt's 12 capabilities, seeds 1-5)"),
    "like_write_unchecked": ({"scheduler_pause_failing_jobs"}, "only its references make one write alike on several "
                             "records with nothing told that another check would read (inbox_triage_reply's moves and "
                             "oncall_handoff's hand-overs put a folder or an assignee the instructions state, which "
                             "`named_write_unchecked` already holds)"),
    "made_text_read_as_set": ({"todo_track_mail_requests", "web_page_audit"}, "only these references make several "
                              "records by one tool whose texts the checks tell apart by their words (a to-do per "
                              "mailed request, per broken page); access_request_approval's several mails are told "
                              "apart by their recipients"),
    "kept_write_unchecked": ({"ticket_triage_update"}, "only its references pass a field a guard holds at the value it "
                             "had beside fields no guard holds (a triaged ticket's kept priority beside its assignee: 28 "
                             "writes in seeds 1-30; the one other write passing a guarded field, a config_set, changes "
                             "only that field)"),
    "clock_zone_abbrev_pinned": ({"oncall_handoff", "schedule_meeting_timezones"}, "only these two have the user give "
                                 "a time of day in a zone of the Americas (reschedule_conflict's users are elsewhere)"),
    "key_respelled": ({"feature_flag_rollout", "incident_investigate_fix"}, "only these two guard a service's other "
                      "flags by a records check alone (adapt_silent_change now also forbids the call on them, "
                      "erased_by_world, so a respelled records guard lets no flip through there)"),
    "erased_by_world": ({"adapt_silent_change", "incident_investigation_and_fix"}, "only these two have a turn's "
                        "change rewrite a record the reference wrote in an earlier turn (the automation re-applying "
                        "the fault; adapt_announced_change's rewrites touch the directory, which no tool writes)"),
    "erased_other_value": ({"adapt_silent_change"}, "only its re-apply rewrites a scalar (the release, the config "
                           "version) the reference wrote in an earlier turn and the service has a third version of; "
                           "incident_investigation_and_fix's shipped example holds two config versions, the bad and "
                           "the fix)"),
    "erased_by_clock": ({"adapt_silent_change", "incident_investigation_and_fix"}, "erased_by_world's two, their "
                        "re-apply moved from the turn's changes into a job due on the clock (no generator writes a "
                        "rule due at a set time, nor a delayed rule on a record the reference wrote earlier)"),
    "frame_whole_world_put": ({"adapt_announced_change", "access_request_approval"}, "only adapt_announced_change and "
                              "adapt_silent_change put records between turns, the latter's deployments, which no tool "
                              "changes or removes; of the records rules put, only access_request_approval's answer is a "
                              "mail (the others are chat messages, which no tool removes)"),
    "frame_config_values": ({"access_request_approval", "correct_bad_data"}, "only these two references write a "
                            "new config version (services_update_config)"),
    "kept_value_loose": ({"access_request_approval", "correct_bad_data"}, "only these two references write a new "
                         "config version whose other settings a check keeps"),
    "people_elsewhere_credited": ({"schedule_meeting_timezones", "reschedule_conflict"}, "only these references read "
                                  "calendar_free_busy for several people once (adapt_announced_change reads it twice "
                                  "with the same people, so an agent's one moved read still leaves the other)"),
    "kept_setting_earlier_unchecked": ({"correct_bad_data"}, "only correct_bad_data's reference updates several "
                                       "services' configs (access_request_approval updates one)"),
    "written_number_loose": ({"inventory_restock_policy"}, "only inventory_restock_policy's reference writes a number "
                             "the instructions determine into a record a check reads (seeds 1-6 of every generator: "
                             "besides it, only rollbacks' to_version and a config_set's expected_version, a version "
                             "the tool refuses when wrong)"),
    "reply_number_alternative": ({"inventory_restock_policy", "web_page_audit"}, "only these two generators' reply "
                                 "checks want a number as a plain term"),
    "overwritten_turn_unchecked": ({"adapt_announced_change"}, "only adapt_announced_change's meeting variant has a "
                                   "turn's result (the first booking) that a later turn overwrites (the move)"),
    "duration_pinned": ({"schedule_meeting_timezones", "adapt_announced_change"}, "only the two booking generators "
                        "have the user state a duration ('a 60-minute ...', '(45 min)')"),
    "duration_fraction_pinned": ({"schedule_meeting_timezones", "adapt_announced_change"}, "the same: only the two "
                                 "booking generators have the user state a duration"),
    "unit_pinned": ({"lookup_answer_source"}, "only lookup_answer_source states a config value to a reader (seeds 1, 3, "
                    "9 and 14 of 1-30 ask one whose key names a unit, `cache_ttl_s`, `timeout_ms`)"),
    "unit_idiom_pinned": ({"lookup_answer_source"}, "the same: only lookup_answer_source states a config value to a "
                          "reader (a `_s`, `_ms`, `_rps` or `_pct` key in 28 of its seeds 1-80)"),
    "share_word_pinned": ({"lookup_answer_source"}, "the same: its one share setting, `threshold_pct`, is asked in "
                          "seed 51 of 1-120; the bases rename the asked setting to a share where its value is 100 or "
                          "less (seeds 13, 24, 103)"),
    "size_pinned": ({"lookup_answer_source"}, "the same: only lookup_answer_source states a config value to a reader "
                    "(its one size setting, `max_body_kb`, asked in seed 91 of 1-120: the bases rename the asked "
                    "setting to a size)"),
    "guard_three_step": ({"todo_track_mail_requests", "web_page_audit"}, "only these two expose a tool that moves a "
                         "record into a container a guard can pin by id (todo_update_task's list_id; mail_move's folder "
                         "is a fixed value, inventory_transfer's stock moves add up)"),
    "undone_ticked_off": ({"web_page_audit", "todo_track_mail_requests"}, "only these two generators add a to-do "
                          "(the only record a tool puts out of force that a generated or shipped reference creates)"),
    "instant_part_read": ({"scheduler_pause_failing_jobs"}, "only its reply checks read a date-time value (the jobs' "
                          "last run, stated whole in the answer; meeting_reschedule's answer gives its new start as a "
                          "day name and a time)"),
    "undone_overwritten": ({"feature_flag_rollout", "ticket_triage_update"}, "only these references write a flag or "
                           "closed-set field back to the value it held before the episode (staging's flag off after a "
                           "failed canary, a triaged ticket's priority kept), so putting the old value back undoes "
                           "nothing; the other writes are undone_write's"),
    "frame_whole_versioned": ({"scheduler_pause_failing_jobs"}, "only its reference writes a compare-and-set store "
                              "(config_set with the expected_version it read)"),
    "extra_record_tolerant": ({"web_page_audit"}, "only its records are each counted exactly by a label with a "
                              "number (the page's status) beside a total of all new records (a scan of every "
                              "capability's seeds 1-3 for an extra labelled write the loosened total misses)"),
    "list_value_widened": ({"access_request_approval"}, "only its reference writes a delimited list into a dict "
                           "argument (the grant's `viewers`; a scan of every capability's seeds 1-3)"),
    "list_value_prefix": ({"scheduler_pause_failing_jobs"}, "only its checks compare a value that lists names (the "
                          "paused jobs, comma-separated; a scan of every capability's seeds 1-2 found no other)"),
    "count_by_pace": ({"incident_investigate_fix"}, "only the incident generators have a stream the world logs at "
                      "its own pace; adapt_silent_change and the incident_rollback example ask in their last turn "
                      "too, but a number added to their last reply is already content_unchecked on main"),
    "count_by_pace_early": ({"incident_investigate_fix"}, "count_by_pace's hole with the count told before the last "
                            "turn: only the incident generators have a stream the world logs at its own pace, and none "
                            "of them is multi-turn, so the corpus adds the second turn"),
    "zone_unprobed": ({"schedule_meeting_timezones"}, "only its reference writes a time zone argument (a scan of "
                      "every capability's seed 1)"),
    "flag_key_unprobed": ({"feature_flag_rollout"}, "only its reference turns a flag on and back off (no trace left of "
                          "which flag: incident_investigate_fix sets one once, held by a state check; seeds 1-30)"),
    "version_unprobed": ({"refuse_forbidden_action"}, "only its deploy's release is held by the version field alone "
                         "(adapt_silent_change and incident_investigate_fix deploy too, but the service's health holds "
                         "the release there; a scan of every capability's seeds 1-3 and seeds 1-30 of the three)"),
    "frame_keyed_written_value": ({"ticket_triage_update"}, "only its frame's selectors pick records whose written "
                                  "field another record can be given by the same write (d119 over the hunt's 12 "
                                  "capabilities, seeds 1-5: the other keyed-by-value mutants kept a frame selector "
                                  "by id beside it or wrote the key through another argument)"),
    "claimed_write_unchecked": ({"scheduler_pause_failing_jobs"}, "only its write (the config entry of the paused "
                                "jobs) is read by no other check once its state check becomes the reply's words (d119 "
                                "over the hunt's 12 capabilities, seeds 1-5: elsewhere a near miss of the write "
                                "already fails another check)"),
    "not_equals_on_text": ({"lookup_answer_source"}, "only its answer check refuses a wrong value with "
                           "`not_contains` (d119 over the hunt's 12 capabilities, seeds 1-5)"),
    "told_answer_unchecked": ({"lookup_answer_source"}, "8 generators' requests ask to be told and their replies "
                              "state facts the world holds (seeds 1-3); only lookup_answer_source's is an answer "
                              "looked up in a document the task only reads (the others tell what the task itself "
                              "did, read by state checks: the moved units, the paused jobs, the added to-dos, the "
                              "broken pages' tasks, the fixed service)"),
    "write_claimed_in_message": ({"adapt_silent_change"}, "only its fix (a deploy or a config rollback) is credited "
                                 "by call checks whose undo is the fault a guard forbids, so the check on the "
                                 "service, moved onto the announcement, leaves the record unread (d123 over "
                                 "examples, the hunt's 12 capabilities 6-8 and the 11 others 1-3: incident_rollback's "
                                 "other config versions are refused by the tool, feature_flag_rollout's and "
                                 "incident_investigate_fix's flags are caught by the undo)"),
    "acts_late": ({"adapt_silent_change", "incident_investigation_and_fix"}, "only these tasks' worlds undo "
                  "between the turns what the first turn fixed (a field of the fixed record set again to another "
                  "value: the bad release, flag or config rolled out again, the service degraded again), so the "
                  "second fix hides the first on the final state (seeds 1-5 of every multi-turn generator and the "
                  "examples)"),
    "written_name_unchanged": ({"scheduler_pause_failing_jobs"}, "only its references write a single name a record "
                               "holds that is no id (the paused-jobs entry set to the one job paused; seeds 1-2 of "
                               "every generator write ids, people, lists, times or text; seeds 1-15 of this one: "
                               "8, 11, 12, 14, 15 pause one job)"),
    "map_value_read_as_set": ({"correct_bad_data"}, "only its references write a word into a map that a check reads "
                              "(a config's region or TLS version; access_request_approval's viewers are a list); "
                              "seeds 1-20: 4, 5 and 20 hold no region but the broken and the right one, the others "
                              "hold a third value the map near misses already try"),
    "value_read_in_note": ({"contact_phone_update"}, "only its references set a checked text field with a call "
                           "that keeps a free-text note beside it (`contacts_update`'s `add_note`; seeds 1-5 of the "
                           "hunt's 12 generators: correct_bad_data's config note sits beside a map, inventory's "
                           "writes take no reason)"),
    "value_read_as_substring": ({"refuse_forbidden_action", "contact_phone_update"}, "only their references write a "
                                "checked free value a tool stores padded (a release, a phone number): assignees and "
                                "priorities are refused by their tools, adapt_silent_change forbids any other deploy, "
                                "inventory moves its quantity by a transfer, config lists are caught one item longer"),
    "batch_write_overreach": ({"todo_track_mail_requests"}, "only its references make a batch write (a required list "
                              "of existing records' ids: `mail_label`; no generator or example calls `mail_mark_read` "
                              "or `contacts_export_report`)"),
    "reply_ask_noun_question": ({"delegate_and_follow_up"}, "only its later turn asks whether a colleague answered "
                                "(seeds 1-30 of every generator and the examples: no other turn asks a question on "
                                "someone's reply, message or mail)"),
}

DEFECTS = all_defects()


def _key(spec: dict[str, Any]) -> bytes:
    return orjson.dumps(spec, option=orjson.OPT_SORT_KEYS)


@cache
def _verdict(spec_json: bytes, policy: str, gates: tuple[str, ...] | None = None,
             until: tuple[str, str] | None = None) -> Any:
    return judge(orjson.loads(spec_json), policy, gates, until)


def verdict(spec: dict[str, Any], policy: str = "strict", gates: tuple[str, ...] | None = None,
            until: tuple[str, str] | None = None) -> Any:
    """The gates' verdict on a spec, computed once per distinct spec, policy, gate selection (None: all ten) and
    error it may stop at (`judge`'s `until`; None: run to the end)."""
    return _verdict(_key(spec), policy, gates, until)


def _judging_gates(defect: Defect) -> tuple[str, ...] | None:
    """The gates a defect's rejection is judged by: its own gate where it names one (with the episode gates a full
    validation runs before it; its errors are a full validation's, tests/test_validate_gate_selection.py), all ten
    for one that names none, and for funnel_attribution, whose gate must be the first failed of all ten."""
    return None if defect.gate is None or defect.cls == "funnel_attribution" else (defect.gate,)


def _judged_error(defect: Defect) -> tuple[str, str] | None:
    """The error a defect's rejection needs, where it names a gate and code (funnel_attribution aside: its gate must be
    the first failed of all ten): the validation stops once that gate reports an error with that code in its own
    (`judge`'s `until`), each error it reports a full validation's (tests/test_validate_fail_fast.py)."""
    if defect.gate is None or defect.code is None or defect.cls == "funnel_attribution":
        return None
    return defect.gate, defect.code


def _python_checks(spec: dict[str, Any]) -> bool:
    """Whether a spec has Python checks (each sandboxed run costs tens of ms; the gates probe them many times)."""
    return any(c["rule"]["kind"] == "python" for c in spec["checks"])


def _marked(defect: Defect) -> Any:
    reason = MISSED.get(defect.id)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    if _python_checks(defect.defect_spec()):
        marks.append(pytest.mark.slow)
    return pytest.param(defect, id=defect.id, marks=marks)


def test_corpus_shape() -> None:
    """At least 15 classes, the issue's classes among them, each with >= 5 defects from >= 3 capabilities (or from
    every generator that has the hole, for the NARROW_CLASSES)."""
    assert len(CLASSES) >= 15, sorted(CLASSES)
    assert set(CLASSES) >= REQUIRED_CLASSES, REQUIRED_CLASSES - set(CLASSES)
    for name, defects in CLASSES.items():
        assert len(defects) >= 5, f"{name}: {len(defects)} defects"
        capabilities = {d.capability for d in defects}
        needed, _why = NARROW_CLASSES.get(name, (set(), ""))
        assert capabilities >= needed and len(capabilities) >= min(3, len(needed) or 3), \
            f"{name}: capabilities {sorted(capabilities)}"
        assert all(d.cls == name for d in defects)
        assert DETECTION[name].strip(), f"{name}: say how a program can detect the class"
    ids = [d.id for d in DEFECTS]
    assert len(ids) == len(set(ids)), "defect ids must be unique"


@pytest.mark.parametrize("defect", DEFECTS, ids=[d.id for d in DEFECTS])
def test_defect_differs_from_twin(defect: Defect) -> None:
    """Each defect is one edit away from its twin and says what an agent could get away with."""
    assert defect.gets_away_with.strip()
    assert _key(defect.defect_spec()) != _key(defect.twin_spec())


@pytest.mark.parametrize("defect", [d for d in DEFECTS if d.witness is not None],
                         ids=[d.id for d in DEFECTS if d.witness is not None])
def test_witness_separates_defect_from_twin(defect: Defect) -> None:
    """The witness behaviour gets a different verdict from the defect than from its twin: the defect is real."""
    holds, seen = witness_holds(defect)
    assert holds, f"{defect.id} ({defect.witness_kind}): {seen}"


@pytest.mark.parametrize("defect", [d for d in DEFECTS if d.reference_sound],
                         ids=[d.id for d in DEFECTS if d.reference_sound])
def test_defect_reference_passes_its_own_checks(defect: Defect) -> None:
    """The defect is in what the checks miss, not a broken reference that any gate rejects for another reason."""
    spec = defect.defect_spec()
    # A nondeterministic check fails a correct agent at random by design (most of them one play in a thousand, and
    # over a hundred such defects would fail a whole run about one time in ten): its reference passes when one of three
    # plays does.
    plays = 3 if defect.code == "nondeterministic_check" else 1
    for _ in range(plays):
        result = play(spec, spec["reference"])
        if result.passed:
            break
    assert result.passed, [(c.id, c.reason) for c in result.checks if not c.passed]


@pytest.mark.parametrize("defect", [_marked(d) for d in DEFECTS])
def test_gates_reject_defect(defect: Defect) -> None:
    v = verdict(defect.defect_spec(), gates=_judging_gates(defect), until=_judged_error(defect))
    assert not v.selection_passed, f"{defect.id}: the gates accept a spec where an agent {defect.gets_away_with}"
    if defect.gate is not None:
        # The funnel attributes a rejection to the first failed gate; elsewhere the expected gate must fail too.
        failed = [v.first_failed_gate] if defect.cls == "funnel_attribution" else v.failed_gates()
        assert defect.gate in failed, (defect.id, [str(e) for e in v.errors()][:5])
    if defect.code is not None:
        errors = [e for e in v.errors() if defect.gate is None or e.gate == defect.gate]
        assert any(defect.code in e.code for e in errors), (defect.id, [str(e) for e in v.errors()][:5])


TWINS: dict[bytes, Defect] = {}
for _d in DEFECTS:
    TWINS.setdefault(_key(_d.twin_spec()), _d)  # a twin is named after the first defect made from it


def _twin_param(key: bytes, defect: Defect) -> Any:
    reason = TWINS_REJECTED.get(defect.id)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(key, id=f"{defect.id}#twin", marks=marks)


@pytest.mark.parametrize("twin", [_twin_param(k, d) for k, d in TWINS.items()])
def test_gates_accept_twin(twin: bytes) -> None:
    v = _verdict(twin, "strict")
    assert v.passed, [str(e) for e in v.errors()][:8]


@pytest.mark.skipif(not has_policy(), reason="the gates have no validation policies yet")
def test_report_policy_accepts_defect_and_lists_findings() -> None:
    """An imported spec with a known weakness is accepted under `report`, its weakness listed as findings."""
    for defect in (CLASSES["frame_blind"][0], CLASSES["content_blind"][0]):
        strict = verdict(defect.defect_spec())
        report = verdict(defect.defect_spec(), "report")
        assert report.passed, [str(e) for e in report.errors()][:5]
        if not strict.passed:
            assert report.findings, f"{defect.id}: rejected under strict but no finding under report"
            assert {e.code for e in strict.errors()} <= {e.code for e in report.findings}
