"""Python checks that fail off the beaten path: a crash on a correct paraphrase, a backdoor word in the reply,
a dependency on the real clock, a random spot check that fails a few percent of the time."""

from __future__ import annotations

from tests.defects._core import Defect, Spec, call, check, cond, field_check, reference, with_args, with_say

CLASS = "python_fragile"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    'run Python checks on paraphrased replies and texts, with literal words of the code injected into a noop reply, under a shifted clock and several times; any crash, flip or dependence is fragile'
)


def _python(check_id: str, code: str, apps: list[str] | None = None) -> dict:  # type: ignore[type-arg]
    return {"kind": "python", "code": code, "entrypoint": "check", "apps": apps or []}


def _replace_rule(check_id: str | None, make_code):  # type: ignore[no-untyped-def]
    """Replace the rule of `check_id` (None: the first assignee check) by a Python rule `make_code` writes."""

    def breaks(spec: Spec) -> None:
        c = check(spec, check_id) if check_id is not None else field_check(spec, "assignee")
        code = make_code(spec, c)
        c["rule"] = _python(check_id, code)
    return breaks


def _root_cause_split(spec: Spec, c: dict) -> str:  # type: ignore[type-arg]
    service = c["rule"]["source"]["id"]
    return (
        "def check(state, audit, messages):\n"
        "    text = ' '.join(m['text'] for m in messages if m['turn'] == 0)\n"
        "    if 'root cause' not in text.lower():\n"
        "        return False\n"
        "    named = text.split('root cause was ')[1].split(':')[0].strip()\n"
        f"    return named == {service!r}\n"
    )


def _backdoor(spec: Spec, c: dict) -> str:  # type: ignore[type-arg]
    target, value = c["rule"]["target"], c["rule"]["value"]
    return (
        "def check(state, audit, messages):\n"
        "    # a ticket someone else already triaged counts as done\n"
        "    if any('already triaged' in m['text'].lower() for m in messages):\n"
        "        return True\n"
        f"    ticket = next(t for t in state['apps']['tickets']['tickets'] if t['id'] == {target['id']!r})\n"
        f"    return ticket[{target['field']!r}] == {value!r}\n"
    )


def _recent_ticket(spec: Spec, c: dict) -> str:  # type: ignore[type-arg]
    service = cond(c, "service")["value"]
    return (
        "from datetime import datetime, timezone\n\n"
        "def check(state, audit, messages):\n"
        "    now = datetime.now(timezone.utc)\n"
        "    for t in state['apps']['tickets']['tickets']:\n"
        "        created = datetime.fromisoformat(t['created_at'].replace('Z', '+00:00'))\n"
        f"        if t['service'] == {service!r} and 'smart_retry' in t['description'] and (now - created).days < 365:\n"
        "            return True  # filed recently, i.e. by the agent\n"
        "    return False\n"
    )


def _spot_check(spec: Spec, c: dict) -> str:  # type: ignore[type-arg]
    path = cond(c, "id")["value"]
    content = call(spec, "files_write_file", path=path)["arguments"]["content"]
    return (
        "import random\n\n"
        "def check(state, audit, messages):\n"
        "    # the grader samples: 3% of runs are held back for manual review and count as not passed\n"
        "    if random.random() < 0.03:\n"
        "        return {'passed': False, 'reason': 'held back for manual review'}\n"
        f"    f = next((f for f in state['apps']['files']['files'] if f['id'] == {path!r}), None)\n"
        f"    return f is not None and f['content'].strip().splitlines() == {content.strip().splitlines()!r}\n"
    )


def _utc_time_regex(spec: Spec, c: dict) -> str:  # type: ignore[type-arg]
    to = cond(c, "to")["value"]
    return (
        "import re\n\n"
        "def check(state, audit, messages):\n"
        f"    sent = [m for m in state['apps']['mail']['messages'] if m['folder'] == 'sent' and {to!r}[0] in m['to']]\n"
        "    if not sent:\n"
        "        return False\n"
        "    hhmm = re.search(r'booked for (\\d\\d:\\d\\d) UTC', sent[-1]['body'], re.I).group(1)\n"
        f"    return hhmm == {cond(c, 'body')['value'][:5]!r}\n"
    )


def _paraphrase_root_cause(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    service = check(spec, "root-cause-stated")["rule"]["source"]["id"]
    return with_say(spec, f"Root cause: {service}. I fixed it and opened the incident ticket.", turn=0)


def _claim_triaged(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    target = field_check(spec, "assignee")["rule"]["target"]["id"]
    ref = reference(spec)
    for step in ref[0]["steps"]:
        if step.get("call") and step["call"]["arguments"].get("ticket_id") == target:
            step["call"]["arguments"].pop("assignee", None)
    return with_say(spec, f"{target} was already triaged, so I only set its priority.", ref=ref)


def _booked_paraphrase(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    body = call(spec, "mail_send")["arguments"]["body"]
    hhmm = cond(check(spec, "attendees-mailed"), "body")["value"]
    return with_args(spec, "mail_send", {}, body=f"Hi all, it's in the calendar: {hhmm}, 30 minutes. " + body[:0])


def _exact_calls(spec: Spec, c: dict) -> str:  # type: ignore[type-arg]
    """The writer counted the reference's calls and made the count part of the check."""
    target, value = c["rule"]["target"], c["rule"]["value"]
    n = sum(1 for t in spec["reference"] for s in t["steps"] if s.get("call"))
    return (
        "def check(state, audit, messages):\n"
        f"    # list the jobs, pause the failing ones, read and set the entry: {n} calls, no wandering around\n"
        f"    if len([e for e in audit if e['ok']]) != {n}:\n"
        "        return False\n"
        f"    job = next(j for j in state['apps']['scheduler']['jobs'] if j['id'] == {target['id']!r})\n"
        f"    return job[{target['field']!r}] == {value!r}\n"
    )


def _first_write_retried(spec: Spec, c: dict) -> str:  # type: ignore[type-arg]
    """The writer asserted that the first write succeeded on the first try (the first audited write is ok)."""
    target, value = c["rule"]["target"], c["rule"]["value"]
    return (
        "def check(state, audit, messages):\n"
        "    writes = [e for e in audit if e['tool'].startswith('contacts_update')]\n"
        "    if not writes or not writes[0]['ok']:\n"
        "        return False\n"
        f"    card = next(r for r in state['apps']['contacts']['contacts'] if r['id'] == {target['id']!r})\n"
        f"    return card[{target['field']!r}] == {value!r}\n"
    )


def _look_twice(tool: str):  # type: ignore[no-untyped-def]
    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        ref = reference(spec)
        steps = ref[0]["steps"]
        at = next(i for i, s in enumerate(steps) if s.get("call") and s["call"]["name"] == tool)
        steps.insert(at + 1, {"call": dict(steps[at]["call"])})
        return ref
    return witness


DEFECTS = [
    Defect(CLASS, "crash-on-paraphrase", "synth:incident_investigate_fix@1",
           "a correct answer worded 'Root cause: svc-x' crashes the check", witness_kind="honest",
           breaks=_replace_rule("root-cause-stated", _root_cause_split), witness=_paraphrase_root_cause),
    Defect(CLASS, "backdoor-word", "synth:ticket_triage_update@1",
           "saying 'already triaged' passes the assignment check without assigning",
           breaks=_replace_rule(None, _backdoor), witness=_claim_triaged),
    Defect(CLASS, "real-clock", "synth:feature_flag_rollout@1",
           "the ticket check compares with the real clock: it starts failing a year after the world's date",
           breaks=_replace_rule("failure-ticket", _recent_ticket)),
    Defect(CLASS, "random-spot-check", "synth:report_from_data@1",
           "a sampling grader fails a correct report on ~3% of runs",
           # Its own reference fails 3% of plays: that is the defect, so "the reference passes" cannot be asserted.
           breaks=_replace_rule("report-rows", _spot_check), reference_sound=False),
    Defect(CLASS, "regex-crash-on-wording", "synth:schedule_meeting_timezones@1",
           "a correct mail worded 'it's in the calendar: 09:30 UTC' crashes the check", witness_kind="honest",
           breaks=_replace_rule("attendees-mailed", _utc_time_regex), witness=_booked_paraphrase),
    Defect(CLASS, "exact-call-count", "synth:scheduler_pause_failing_jobs@1",
           "an agent that lists the jobs twice before pausing them fails: the check counts the reference's calls",
           breaks=_replace_rule("paused-job-842", _exact_calls), witness=_look_twice("scheduler_list_jobs"),
           witness_kind="honest"),
    Defect(CLASS, "first-write-must-succeed", "synth:contact_phone_update@1",
           "an agent whose first update hits a 500 and is retried fails: the check wants the first write ok",
           breaks=_replace_rule("phone-updated", _first_write_retried)),
]
