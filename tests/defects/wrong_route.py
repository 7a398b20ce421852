"""Wrong route: the checks ask that the old state be gone (no enabled failing job, no confirmed meeting outside
the new slot, no roster that lacks a corrected row) rather than that the record holds its new value, so deleting
or cancelling the record passes as well as doing the task. The sound twin checks the record's new value (a
deleted record has none)."""

from __future__ import annotations

from typing import Any

from tests.defects._core import Defect, Spec, call, check, drop_checks, frame, record, reference, without

CLASS = "wrong_route"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "replace each reference write by the app's delete or cancel tool on the same record (where the agent has "
    "one); a replay that still passes means the checks accept destroying the record for changing it"
)


def _gone(check_id: str, app: str, table: str, where: list[dict[str, Any]], description: str) -> dict[str, Any]:
    return {"id": check_id, "description": description, "weight": 2,
            "rule": {"kind": "records", "app": app, "table": table, "where": where, "count_op": "equals", "count": 0}}


def _whole(spec: Spec, app: str, table: str, record_id: str) -> None:
    """The frame allows the record to change in any way (the writer did not think of it going away)."""
    for sel in frame(spec)["rule"]["allow"]:
        if (sel["app"], sel.get("table"), sel.get("id")) == (app, table, record_id):
            sel["fields"] = None
            return
    raise AssertionError(f"the frame names no {app}.{table}[{record_id}]")


def _jobs_whole(spec: Spec) -> None:
    """The frame lets the paused jobs change in any way; the reply's last-run times are checked as text."""
    for c in spec["checks"]:
        if c["id"].startswith("paused-"):
            _whole(spec, "scheduler", "jobs", c["rule"]["target"]["id"])
    _last_runs_as_text(spec)


def _last_runs_as_text(spec: Spec) -> None:
    """The reply's last-run times checked as text (a `reply_states` check reads the job, so it fails once the job is
    gone and would catch the deletion by chance). The sound twin: a frame allowing the paused jobs whole would let
    the agent reschedule them too (a real hole: `harm_unguarded`), so the twin keeps the frame's fields."""
    for c in spec["checks"]:
        if c["rule"]["kind"] == "reply_states" and c["rule"]["source"]["table"] == "jobs":
            source = c["rule"]["source"]
            value = record(spec, source["app"], source["table"], source["id"])[source["field"]]
            c["rule"] = {"kind": "text", "scope": "final", "all_of": [value]}


def _jobs_not_running(spec: Spec) -> None:
    """'Job X no longer runs': no enabled job with its id, in place of 'job X is disabled'."""
    _jobs_whole(spec)
    for i, c in enumerate(spec["checks"]):
        if c["id"].startswith("paused-"):
            job = c["rule"]["target"]["id"]
            spec["checks"][i] = _gone(c["id"], "scheduler", "jobs", [{"field": "id", "value": job},
                                                                    {"field": "enabled", "value": True}],
                                      f"{job} no longer runs")


def _booking_not_elsewhere(spec: Spec) -> None:
    """'No confirmed booking outside the new slot, one booking (whatever its status)', in place of 'one confirmed
    booking, in the slot', and without the colleague's thanks for the move (which a cancellation never earns)."""
    drop_checks(spec, lambda c: c["id"] == "moved-after-clash")
    args = call(spec, "calendar_update_event")["arguments"]
    moved = check(spec, "moved-to-new-slot", "records")
    title = next(w for w in moved["rule"]["where"] if w["field"] == "title")
    moved["rule"]["where"] = [title, {"field": "status", "value": "confirmed"},
                              {"field": "start", "op": "not_equals", "value": args["start"]}]
    moved["rule"].update(count_op="equals", count=0)
    once = check(spec, "not-duplicated", "records")["rule"]
    once["where"] = [w for w in once["where"] if w["field"] != "status"]  # one booking, whatever its status


def _roster_lacks_nothing(spec: Spec) -> None:
    """'No roster lacks a corrected row', one check per corrected row, in place of 'the roster has every row'."""
    args = call(spec, "files_write_file")["arguments"]
    before = record(spec, "files", "files", args["path"])["content"].splitlines()
    rows = [line for line in args["content"].splitlines()[1:] if line and line not in before]
    spec["checks"] = [c for c in spec["checks"] if c["id"] != "roster-matches-directory"]
    spec["checks"] += [_gone(f"roster-row-{i}", "files", "files", [
        {"field": "id", "value": args["path"]}, {"field": "content", "op": "not_contains", "value": row}],
        f"no roster lacks the row of {row.split(',')[0]}") for i, row in enumerate(rows)]


def _destroyed(tool: str, destroy: str, arg: str):  # type: ignore[no-untyped-def]
    """The reference with every `tool` write replaced by `destroy` on the same record."""

    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        ref = without(spec, tool)
        targets = [c["arguments"][arg] for t in spec["reference"] for c in (s.get("call") for s in t["steps"])
                   if c and c["name"] == tool]
        steps = ref[-1]["steps"]
        at = len(steps) - 1 if steps and steps[-1].get("say") else len(steps)
        steps[at:at] = [{"call": {"name": destroy, "arguments": {arg: v}}} for v in targets]
        return ref
    return witness


DEFECTS = [
    Defect(CLASS, "jobs-deleted-not-paused", "synth:scheduler_pause_failing_jobs@1",
           "deletes the failing jobs instead of disabling them: 'no enabled job X' holds either way",
           breaks=_jobs_not_running, fix=_last_runs_as_text,
           witness=_destroyed("scheduler_update_job", "scheduler_delete_job", "job_id"),
           gate="mutations", code="wrong_route"),
    Defect(CLASS, "jobs-deleted-not-paused-2", "synth:scheduler_pause_failing_jobs@2",
           "deletes the failing jobs instead of disabling them",
           breaks=_jobs_not_running, fix=_last_runs_as_text,
           witness=_destroyed("scheduler_update_job", "scheduler_delete_job", "job_id"),
           gate="mutations", code="wrong_route"),
    Defect(CLASS, "booking-cancelled-after-clash", "synth:adapt_announced_change@2",
           "cancels the booking once the clash is announced instead of moving it: no confirmed one is left in the "
           "old slot", breaks=_booking_not_elsewhere,
           witness=_destroyed("calendar_update_event", "calendar_cancel_event", "event_id"),
           gate="mutations", code="wrong_route"),
    Defect(CLASS, "booking-cancelled-after-clash-5", "synth:adapt_announced_change@5",
           "cancels the booking once the clash is announced instead of moving it", breaks=_booking_not_elsewhere,
           witness=_destroyed("calendar_update_event", "calendar_cancel_event", "event_id"),
           gate="mutations", code="wrong_route"),
    Defect(CLASS, "roster-deleted-not-fixed", "synth:correct_bad_data@1",
           "deletes the roster instead of correcting it: no roster file lacks a corrected row",
           breaks=_roster_lacks_nothing,
           witness=_destroyed("files_write_file", "files_delete_file", "path"), gate="mutations", code="wrong_route"),
    Defect(CLASS, "roster-deleted-not-fixed-2", "synth:correct_bad_data@2",
           "deletes the roster instead of correcting it",
           breaks=_roster_lacks_nothing,
           witness=_destroyed("files_write_file", "files_delete_file", "path"), gate="mutations", code="wrong_route"),
]


# -- another tool of the app on the same record (not a delete or cancel) -----------------------------------------
def _mails_whole(spec: Spec) -> None:
    """The frame also lets each mail to label change folder (the writer let the tracked mails be filed away)."""
    allow = frame(spec)["rule"]["allow"]
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "field" and rule["target"]["field"] == "labels" and rule["op"] == "contains":
            allow.append({"app": "mail", "table": "messages", "id": rule["target"]["id"], "fields": ["folder"],
                          "where": []})


def _labels_not_left(spec: Spec) -> None:
    """'No tracked request is left unlabelled in the inbox', in place of 'the mail is labelled tracked': moving the
    mail out of the inbox meets it as well as labelling it."""
    _mails_whole(spec)
    _left_in_inbox(spec, "labels", "contains", lambda r: [{"field": "labels", "op": "not_contains", "value": r["value"]}],
                   lambda msg, r: f"{msg} is not left in the inbox without the label {r['value']}")


def _left_in_inbox(spec: Spec, field: str, op: str, conds: Any, what: Any, value: Any = None) -> int:
    """Each field check on a mail's `field` (`op`, and `value` if given) replaced by 'no such mail is left in the
    inbox' with the conditions `conds(rule)`, described by `what(message id, rule)`; how many were replaced."""
    done = 0
    for i, c in enumerate(spec["checks"]):
        rule = c["rule"]
        if rule["kind"] == "field" and rule["target"]["field"] == field and rule["op"] == op and \
                value in (None, rule["value"]):
            msg = rule["target"]["id"]
            spec["checks"][i] = _gone(c["id"], "mail", "messages", [
                {"field": "id", "value": msg}, {"field": "folder", "value": "inbox"}, *conds(rule)], what(msg, rule))
            done += 1
    return done


def _moved_not_labelled(folder: str):  # type: ignore[no-untyped-def]
    """The reference with each mail_label call replaced by moving each of its mails to `folder`."""

    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        ref = reference(spec)
        for turn in ref:
            steps = []
            for step in turn["steps"]:
                c = step.get("call")
                if c and c["name"] == "mail_label":
                    steps += [{"call": {"name": "mail_move", "arguments": {"message_id": m, "folder": folder}}}
                              for m in c["arguments"]["message_ids"]]
                else:
                    steps.append(step)
            turn["steps"] = steps
        return ref
    return witness


DEFECTS += [
    Defect(CLASS, f"mails-archived-not-labelled-{seed}", f"synth:todo_track_mail_requests@{seed}",
           "archives the request mails instead of labelling them: none is left unlabelled in the inbox",
           breaks=_labels_not_left, fix=_mails_whole, witness=_moved_not_labelled("archive"),
           gate="mutations", code="wrong_route")
    for seed in (1, 2, 3)
]


# -- another tool of the app with a free-text or number argument: stock written off for stock transferred ---------
def _shipped_only(spec: Spec) -> None:
    """'The units left the warehouse' (its stock is down by what moved) checked, 'the store holds them' not: the
    writer checked the source of each transfer only."""
    drop = [c for c in spec["checks"] if c["rule"]["kind"] == "field" and c["rule"]["target"]["table"] == "items"
            and any(c["rule"]["target"]["id"] == t["arguments"]["item_id"].split("@")[0] + "@" + t["arguments"]["to_location"]
                    for t in (s["call"] for turn in spec["reference"] for s in turn["steps"]
                              if s.get("call") and s["call"]["name"] == "inventory_transfer"))]
    if not drop:
        raise AssertionError(f"{spec['capability']}: no check on a transfer's destination")
    spec["checks"] = [c for c in spec["checks"] if c not in drop]


def _written_off(spec: Spec) -> list[dict[str, Any]]:
    """The reference with each transfer replaced by writing the same units off at the source."""
    ref = reference(spec)
    for turn in ref:
        for step in turn["steps"]:
            c = step.get("call")
            if c and c["name"] == "inventory_transfer":
                a = c["arguments"]
                step["call"] = {"name": "inventory_adjust", "arguments": {
                    "item_id": a["item_id"], "delta": -a["quantity"], "reason": "restock"}}
    return ref


DEFECTS += [
    Defect(CLASS, f"stock-written-off-{seed}", f"synth:inventory_restock_policy@{seed}",
           "writes the units off at the warehouse (inventory_adjust) instead of transferring them: the checks ask only "
           "that the warehouse's stock went down by what should move", breaks=_shipped_only, witness=_written_off,
           gate="mutations", code="wrong_route")
    for seed in (1, 2, 3)
]


# -- another tool of the app whose argument must be made up: a label for a move (session 26) ---------------------
def _moved_whole(spec: Spec) -> None:
    """The frame lets the mails the task archives change in any way."""
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "field" and rule["target"]["field"] == "folder" and rule["value"] == "archive":
            _whole(spec, "mail", "messages", rule["target"]["id"])


def _not_left_untouched(spec: Spec) -> None:
    """'Each external mail is archived' written as 'none is left in the inbox untouched' (no folder change, no
    label): the writer thought of filing by folder or by label as the same."""
    _moved_whole(spec)
    if not _left_in_inbox(spec, "folder", "equals", lambda r: [{"field": "labels", "value": []}],
                          lambda msg, r: f"{msg} is not left untouched in the inbox", value="archive"):
        raise AssertionError(f"{spec['capability']}: no mail checked as archived")


def _labelled_not_moved(spec: Spec) -> list[dict[str, Any]]:
    """The reference with each archiving move replaced by a label on the mail."""
    ref = reference(spec)
    for turn in ref:
        for step in turn["steps"]:
            c = step.get("call")
            if c and c["name"] == "mail_move" and c["arguments"]["folder"] == "archive":
                step["call"] = {"name": "mail_label", "arguments": {
                    "message_ids": [c["arguments"]["message_id"]], "add": ["newsletter"]}}
    return ref


DEFECTS += [
    Defect(CLASS, f"mails-labelled-not-archived-{seed}", f"synth:inbox_triage_reply@{seed}",
           "labels the outside mails instead of archiving them: the checks ask only that none stays in the inbox "
           "untouched", breaks=_not_left_untouched, fix=_moved_whole, witness=_labelled_not_moved,
           gate="mutations", code="wrong_route")
    for seed in (1, 2, 3)
]
