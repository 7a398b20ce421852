"""Undone by the order: the live system answers the agent's write on one record (the ticket sync re-imports the next
ticket of the queue when one is triaged, the mail rules move a message of the thread back to the inbox when another is
archived, the on-call bot re-queues the other incidents when one is reassigned) by putting another record the task
also fixes back as it was. The reference happens to fix that record after the one that sets the rule off, so its fix
lands last and holds; an honest agent that does the same two independent writes the other way round (the task orders
neither) sees its first fix undone by its second and fails, though it did all the work. The verdict pins the
reference's incidental order. The sound twin has the same rule, set off by the same write, which puts the record back
only where it is still as it was (it changes nothing, whatever the order)."""

from __future__ import annotations

from typing import Any

from coworkenv.validate.mutations import is_write
from tests.defects._core import CorpusError, Defect, Spec, reference
from tests.defects.solved_by_clock import _names, _targets
from tests.defects.undone_by_clock import _initial

CLASS = "undone_by_order"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "where a dynamics rule answers a reference write, replay each pair of independent same-turn writes the task "
    "does not order the other way round: a check the reference passes that then fails pins the reference's "
    "incidental order, not the agent's work"
)


def _pair(spec: Spec) -> tuple[int, int, int, tuple[str, str, str], tuple[str, str, str]]:
    """(turn, step of the first write, step of the second, the first's record, the second's): the first two writes of
    one turn on two different records the checks want changed."""
    targets = list(_targets(spec))
    for t, turn in enumerate(spec["reference"]):
        found: list[tuple[int, tuple[str, str, str]]] = []
        for s, step in enumerate(turn["steps"]):
            call = step.get("call")
            if not call or not is_write(call["name"]):
                continue
            key = next((k for k in targets if _names(call, k[2])), None)
            if key is not None and all(key != k for _, k in found):
                found.append((s, key))
            if len(found) == 2:
                (a, ka), (b, kb) = found
                return t, a, b, ka, kb
    raise CorpusError(f"{spec['capability']}: no turn writes two checked records")


def _holding(key: tuple[str, str, str], fields: dict[str, Any]) -> list[dict[str, Any]]:
    """`when` conditions: the record's fields hold these values."""
    app, table, rid = key
    return [{"kind": "field", "target": {"app": app, "table": table, "id": rid, "field": name}, "op": "equals",
             "value": value} for name, value in fields.items()]


def _rule(spec: Spec, keeps: bool, dependency: bool = False) -> None:
    """A rule that puts the second write's checked fields back as they were, answering the first write of the pair;
    or, where `dependency`, answering the second while the first's record is still as it was (the second may not
    change before the first). Where `keeps` (the twin), it puts them back only while they still are: a no-op."""
    t, a, b, ka, kb = _pair(spec)
    step, key = (b, kb) if dependency else (a, ka)
    call = spec["reference"][t]["steps"][step]["call"]
    arg = next(k for k, v in call["arguments"].items() if v == key[2])
    initial = _initial(spec)
    app, table, rid = kb
    spec["dynamics"]["rules"].append({
        "id": "dependency-on-write" if dependency else "sync-on-write",
        "on": {"kind": "action", "call": {"tool": call["name"], "args": {arg: key[2]}}}, "delay_s": 0, "once": True,
        "when": (_holding(ka, initial[ka]) if dependency else []) + (_holding(kb, initial[kb]) if keeps else []),
        "effects": [{"kind": "update_record", "app": app, "table": table, "id": rid, "set": initial[kb]}]})


def _other_way_round(spec: Spec) -> list[dict[str, Any]]:
    """The honest agent: the reference with the second write of the pair made before the first."""
    ref = reference(spec)
    t, a, b, _, _ = _pair(spec)
    steps = ref[t]["steps"]
    steps.insert(a, steps.pop(b))
    return ref


def _defect(name: str, base: str, away: str, dependency: bool = False) -> Defect:
    return Defect(CLASS, name, f"synth:{base}", away, breaks=lambda s: _rule(s, False, dependency),
                  fix=lambda s: _rule(s, True, dependency), witness=_other_way_round, witness_kind="honest",
                  gate="mutations", code="order_pinned_by_rule")


_TICKET = ("is failed for triaging the tickets in another order: the ticket sync, set off by the first ticket's "
           "update, puts the second ticket's old fields back, which the reference wrote only afterwards")
_MAIL = ("is failed for archiving the mails in another order: the mail rules, set off by archiving one, move the "
         "other back to the inbox, which the reference archived only afterwards")
_HANDOFF = ("is failed for handing the tickets over in another order: the on-call bot, set off by one reassignment, "
            "re-queues the other ticket to its old owner, which the reference reassigned only afterwards")
_DATA = ("is failed for correcting the services in another order: the config sync, set off by one service's "
         "correction, re-imports the other's old value, which the reference corrected only afterwards")
_STOCK = ("is failed for restocking the items in another order: the inventory sync, set off by one transfer, puts "
          "the other item's old count back, which the reference moved only afterwards")
_JOB = ("is failed for pausing the failing jobs in another order: the scheduler, set off by one job's pause, "
        "re-enables the other (a dependency), which the reference paused only afterwards")
_DEPENDENCY = ("is failed for doing the second fix first: a rule answering it, while the first record is still as it "
               "was, puts it back (a dependency), which the reference's order never meets")

DEFECTS = [
    _defect("ticket-sync-reimports", "ticket_triage_update@1", _TICKET),
    _defect("ticket-sync-reimports-2", "ticket_triage_update@2", _TICKET),
    _defect("ticket-sync-reimports-3", "ticket_triage_update@3", _TICKET),
    _defect("mail-rules-move-back", "inbox_triage_reply@1", _MAIL),
    _defect("mail-rules-move-back-2", "inbox_triage_reply@2", _MAIL),
    _defect("oncall-bot-requeues", "oncall_handoff@1", _HANDOFF),
    _defect("oncall-bot-requeues-2", "oncall_handoff@3", _HANDOFF),
    _defect("config-sync-reimports", "correct_bad_data@3", _DATA),
    _defect("config-sync-reimports-2", "correct_bad_data@4", _DATA),
    _defect("inventory-sync-restores", "inventory_restock_policy@1", _STOCK),
    _defect("scheduler-re-enables-other", "scheduler_pause_failing_jobs@1", _JOB),
    _defect("scheduler-re-enables-other-2", "scheduler_pause_failing_jobs@2", _JOB),
    # The rule answers the second write, only while the first record is unchanged.
    _defect("ticket-dependency-resets", "ticket_triage_update@4", _DEPENDENCY, dependency=True),
    _defect("mail-thread-dependency", "inbox_triage_reply@3", _DEPENDENCY, dependency=True),
    _defect("handoff-dependency-resets", "oncall_handoff@4", _DEPENDENCY, dependency=True),
    _defect("job-dependency-re-enables", "scheduler_pause_failing_jobs@3", _DEPENDENCY, dependency=True),
]
