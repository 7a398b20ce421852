"""Broken reference: the reference solution cannot run as written (a misspelt record id, a tool the agent is not
given, an argument the tool does not take, a tool that does not exist, a missing turn)."""

from __future__ import annotations

from tests.defects._core import Defect, Spec, call

CLASS = "broken_reference"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    'the reference calls unknown or unexposed tools, passes arguments the tool does not take, names missing records, or has fewer turns than the spec'
)


def _ticket_typo(spec: Spec) -> None:
    args = call(spec, "tickets_update")["arguments"]
    args["ticket_id"] = args["ticket_id"].replace("-", "-0")


def _unexpose(tool: str):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        spec["tools"] = [t for t in spec["tools"] if t != tool]
    return breaks


def _rename_arg(tool: str, old: str, new: str):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        args = call(spec, tool)["arguments"]
        args[new] = args.pop(old)
    return breaks


def _invented_tool(spec: Spec) -> None:
    call(spec, "calendar_update_event")["name"] = "calendar_reschedule_event"


def _missing_turn(spec: Spec) -> None:
    spec["reference"] = spec["reference"][:1]


DEFECTS = [
    Defect(CLASS, "ticket-id-typo", "synth:ticket_triage_update@1",
           "the reference updates a ticket id that does not exist", breaks=_ticket_typo,
           gate="oracle", code="reference_call_failed", reference_sound=False),
    Defect(CLASS, "fix-tool-not-exposed", "synth:incident_investigate_fix@1",
           "the reference turns the flag off with a tool the agent is not given",
           breaks=_unexpose("services_set_flag"), gate="exposed_tools", code="reference_tool_not_exposed", reference_sound=False),
    Defect(CLASS, "mail-arg-renamed", "synth:report_from_data@1",
           "the reference mails with a 'recipients' argument mail_send does not take",
           breaks=_rename_arg("mail_send", "to", "recipients"), gate="exposed_tools",
           code="invalid_reference_arguments", reference_sound=False),
    Defect(CLASS, "invented-tool", "synth:reschedule_conflict@1",
           "the reference calls calendar_reschedule_event, which no app has", breaks=_invented_tool,
           gate="references", code="unknown_tool", reference_sound=False),
    Defect(CLASS, "missing-follow-up-turn", "synth:access_request_approval@1",
           "the reference stops after the first turn of two", breaks=_missing_turn,
           gate="references", code="turn_count_mismatch", reference_sound=False),
]
