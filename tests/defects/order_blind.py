"""Order-blind: the task requires an order (fix, then announce) but no check pins it."""

from __future__ import annotations

import copy

from tests.defects._core import (
    Defect,
    Spec,
    calls,
    check,
    drop_checks,
    play,
    record,
    reference,
    swapped,
    with_call,
)

CLASS = "order_blind"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "swap two writes of the reference (also across turns: a later turn's write moved before an earlier one); if every check still passes while the task text orders them ('then', 'once', 'before', 'after', 'first') or the later write quotes what only the earlier one produced (a ticket id, a log message), no check pins the order"
)


def _order_defect(name: str, base: str, check_id: str, gets_away_with: str, *also: str) -> Defect:
    """Drop the order check `check_id` (and the checks `also` that imply the order: a write checked to wait for a
    later turn comes after every call of the turn before); the witness does its two calls the other way round."""

    def breaks(spec: Spec) -> None:
        drop_checks(spec, lambda c: c["id"] in (check_id, *also))

    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        rule = check(spec, check_id, "order")["rule"]
        return _reordering(spec, breaks, (rule["first"]["tool"], rule["first"]["args"]),
                           (rule["then"]["tool"], rule["then"]["args"]))

    return Defect(CLASS, name, base, gets_away_with, breaks=breaks, witness=witness)


def _reordering(spec: Spec, breaks, first: tuple[str, dict], then: tuple[str, dict]) -> list[dict]:  # type: ignore[no-untyped-def, type-arg]
    """The first way of doing `then` before `first` that the defect passes and the twin fails (else the last)."""
    defect = copy.deepcopy(spec)
    breaks(defect)
    candidate: list[dict] = []  # type: ignore[type-arg]
    for mode in ("then_earlier", "first_later", "exchange"):
        candidate = swapped(spec, first, then, mode)  # type: ignore[arg-type]
        if play(defect, candidate).passed and not play(spec, candidate).passed:
            break
    return candidate


def _restart_after(fix_tool: str):  # type: ignore[no-untyped-def]
    """The twin: the task also asks to restart the service once it is fixed; checks pin the restart and its order."""

    def fix(spec: Spec) -> None:
        turn, _, fix_call = next(calls(spec, fix_tool))
        service = fix_call["arguments"]["service"]
        restarts = record(spec, "services", "services", service).get("restarts", 0)
        spec["turns"][turn]["content"] += " When everything else is done, restart the service you fixed."
        with_call(spec, "services_restart", {"service": service}, turn=turn, ref=spec["reference"])
        spec["checks"] += [
            {"id": "restarted", "description": f"{service} was restarted once",
             "rule": {"kind": "field", "target": {"app": "services", "table": "services", "id": service,
                                                  "field": "restarts"}, "op": "equals", "value": restarts + 1}},
            {"id": "fix-before-restart", "description": "the restart comes after the fix",
             "rule": {"kind": "order", "first": {"tool": fix_tool, "args": {"service": service}},
                      "then": {"tool": "services_restart", "args": {"service": service}}}},
        ]
    return fix


def _restart_defect(name: str, base: str, fix_tool: str, gets_away_with: str) -> Defect:
    fix = _restart_after(fix_tool)

    def breaks(spec: Spec) -> None:
        fix(spec)
        drop_checks(spec, lambda c: c["id"] == "fix-before-restart")

    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        return _reordering(spec, lambda s: drop_checks(s, lambda c: c["id"] == "fix-before-restart"),
                           (fix_tool, {}), ("services_restart", {}))

    return Defect(CLASS, name, base, gets_away_with, breaks=breaks, fix=fix, witness=witness)


def _acted_early(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    """The reference with the answered turn's first write made in turn 0, before the clarifying question's reply:
    the agent guesses (here: right) and acts before the user answers."""
    ref = reference(spec)
    s = next(j for j, step in enumerate(ref[1]["steps"]) if step.get("call") and step["call"]["name"] in (
        "mail_send", "calendar_update_event", "chat_send_dm"))
    moved = ref[1]["steps"].pop(s)
    closing = max(j for j, step in enumerate(ref[0]["steps"]) if step.get("say"))
    ref[0]["steps"].insert(closing, moved)
    return ref


def _no_wait_for_answer(name: str, base: str) -> Defect:
    """Drop the check that the clarified write waited for the user's answer."""
    return Defect(CLASS, name, base, "acts on a guess before the user answers which one they meant (and guessed right)",
                  breaks=lambda spec: drop_checks(spec, lambda c: c["id"] == "acted-after-answer"),
                  witness=_acted_early, gate="mutations", code="acts_before_answer")


DEFECTS = [
    _no_wait_for_answer("clarify-acts-before-answer", "synth:clarify_ambiguous_request@1"),
    _no_wait_for_answer("clarify-acts-before-answer-2", "synth:clarify_ambiguous_request@2"),
    _restart_defect("restart-before-flag-fix", "synth:incident_investigate_fix@1", "services_set_flag",
                    "restarts the service before the fix, so it restarts into the broken state"),
    _restart_defect("restart-before-rollback", "example:incident_rollback", "services_rollback_config",
                    "restarts payments before rolling the config back: the restart picks up the bad config"),
    _order_defect("announce-before-rollback", "example:incident_rollback", "fix-before-announce",
                  "announces the incident as fixed before rolling the config back"),
    _order_defect("dm-before-move", "synth:reschedule_conflict@1", "move-before-dm",
                  "tells the colleague the new time before the meeting is moved"),
    _order_defect("grant-before-approval", "synth:access_request_approval@1", "approval-before-grant",
                  "grants access before the manager was even asked", "granted-after-answer"),
    _order_defect("fix-before-acknowledge", "synth:adapt_silent_change@1", "acknowledged-first",
                  "redeploys before acknowledging the alert ticket as the task demands"),
    _order_defect("post-before-ticket", "synth:mail_ticket_chat_coordination@1", "ticket-before-post",
                  "posts the ticket id in the team channel before the ticket exists"),
    _order_defect("confirm-before-phone-update", "synth:contact_phone_update@1", "updated-first",
                  "tells the customer the number is updated before updating the card"),
    _order_defect("close-todo-before-transfer", "example:restock_store_declared_tools", "transfer_before_close",
                  "closes the restock to-do before moving any stock"),
]
