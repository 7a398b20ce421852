"""Funnel attribution: a rejected spec must be rejected by the right gate with the right code (an unreachable
follow-up turn by `turns_reachable`, a nondeterministic verifier by a nondeterminism code), so the funnel and
the repair loop get the true reason."""

from __future__ import annotations

from tests.defects._core import Defect, Spec, call, check

CLASS = "funnel_attribution"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "the reference never reaches a follow-up turn (turns_reachable), or two runs of the same episode disagree (nondeterminism code); report that first, not the oracle's consequential failures"
)


def _condition_args(**args: object):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        spec["turns"][1]["condition"]["call"]["args"].update(args)
    return breaks


def _other_form(person: str) -> str:
    """The same person written the other way: a directory id for a chat handle, a handle for an id."""
    return person.removeprefix("u-") if person.startswith("u-") else "u-" + person


def _random_check(check_id: str, code_body: str):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        c = check(spec, check_id)
        c["rule"] = {"kind": "python", "entrypoint": "check", "apps": [], "code": code_body}
    return breaks


_COIN = (
    "import random\n\n"
    "def check(state, audit, messages):\n"
    "    # sample one reply to grade (they should all be equivalent)\n"
    "    reply = random.choice(messages + [{'text': ''}])\n"
    "    return len(reply['text']) > 0\n"
)
_CLOCK_PARITY = (
    "import time\n\n"
    "def check(state, audit, messages):\n"
    "    tickets = state['apps']['tickets']['tickets']\n"
    "    recent = [t for t in tickets if t['priority'] in ('p1', 'p2')]\n"
    "    return bool(recent) and time.perf_counter_ns() % 2 == 0 or len(recent) > 1\n"
)

UNREACHABLE = ("turns_reachable", "turn_not_reached")
NONDETERMINISM = (None, "nondetermin")

DEFECTS = [
    Defect(CLASS, "follow-up-waits-for-typo-address", "synth:access_request_approval@1",
           "the follow-up turn waits for a mail to a misspelt address: the manager's answer is never asked for",
           breaks=lambda s: _condition_args(to=[s["turns"][1]["condition"]["call"]["args"]["to"][0]
                                                .replace(".test", ".tset")])(s),
           gate=UNREACHABLE[0], code=UNREACHABLE[1], reference_sound=False),
    Defect(CLASS, "follow-up-waits-for-other-handle", "synth:delegate_and_follow_up@1",
           "the follow-up waits for a DM addressed by person id, the reference addresses it by handle",
           breaks=lambda s: s["turns"][1].update(condition={"kind": "after_call", "call": {
               "tool": "chat_send_dm", "args": {"person": _other_form(call(s, "chat_send_dm")["arguments"]["person"])}}}),
           gate=UNREACHABLE[0], code=UNREACHABLE[1], reference_sound=False),
    Defect(CLASS, "follow-up-waits-for-wrong-domain", "example:meeting_reschedule",
           "the follow-up waits for a mail to marcus at another domain",
           breaks=_condition_args(to=["marcus.reed@brightline.com"]), gate=UNREACHABLE[0], code=UNREACHABLE[1], reference_sound=False),
    Defect(CLASS, "follow-up-waits-for-typo-grace", "example:report_from_files",
           "the follow-up waits for a mail to a misspelt address",
           breaks=_condition_args(to=["grace.lui@quillpoint.test"]), gate=UNREACHABLE[0], code=UNREACHABLE[1], reference_sound=False),
    Defect(CLASS, "random-reply-sample", "example:incident_rollback",
           "grades one randomly chosen reply: the verdict changes from run to run",
           breaks=_random_check("traced-request", _COIN), gate=NONDETERMINISM[0], code=NONDETERMINISM[1],
           reference_sound=False),
    Defect(CLASS, "clock-parity", "synth:mail_ticket_chat_coordination@1",
           "a check reads the process clock: the verdict changes from run to run",
           breaks=_random_check("ticket-before-post", _CLOCK_PARITY), gate=NONDETERMINISM[0],
           code=NONDETERMINISM[1], reference_sound=False),
]
