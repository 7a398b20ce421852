"""Python argument order: a Python check, written by someone who read the reference's calls, compares a list the agent
passes in a call (a mail's recipients, a meeting's attendees, a mail's attachments, the people whose calendars it
looks up, the messages it labels) in the order the reference happened to list it: the whole list equal, its first or
last item, its items joined into one text, one item before another. The declarative checks compare such lists as
sets (`contains` with a list), and so does every tool: an honest agent that lists the same people in another order
fails. Main accepted every defect here; no probe changed the order of anything inside a record or a call (the record
order probe lists a table's records in reverse, never a list inside one).

The sound twins are the same Python check comparing the list as a set. A check on the audit pins the call's other
single values (a free/busy lookup's window, a label) in both, since a lookup credited over any window is
`read_elsewhere_credited` (defects91 found the two calendar twins crediting one).

Caught by the sandbox gate (`argument_order_dependent`): the reference's final state and audit with every list of two
or more distinct ids, addresses or names that its calls passed in reverse, wherever it is (the records that hold it
and the audit's arguments and results alike); a check the reference passes that then fails pins the order.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, reference

CLASS = "python_argument_order"
DETECTION = (
    "reverse, in the reference's final state and in its audit alike, every list of distinct ids, addresses or names "
    "its calls passed (recipients, attendees, people, message ids), and reject a Python check whose verdict changes"
)

# How the writer compared the list `got` with the reference's `want` (a Python expression over both), pinned to the
# order, and how the twin compares it: as a set.
_PINNED = {
    "equal": "got == want",
    "prefix": "got[:len(want)] == want",
    "first": "bool(got) and got[0] == want[0] and set(want) <= set(got)",
    "last": "bool(got) and got[-1] == want[-1] and set(want) <= set(got)",
    "joined": "', '.join(got[:len(want)]) == ', '.join(want)",
    "dumped": "json.dumps(got) == json.dumps(want)",
    "before": "set(want) <= set(got) and got.index(want[0]) < got.index(want[1])",
    "zipped": "len(got) >= len(want) and all(a == b for a, b in zip(got, want))",
}
_AS_SET = "set(want) <= set(got)"


def _condition(w: dict[str, Any]) -> str:
    """A records check's `where` condition as a Python test of the row `r` (not the list condition)."""
    field, op, value = w["field"], w.get("op", "equals"), w["value"]
    got = f"r.get({field!r})"
    if op == "equals":
        return f"{got} == {value!r}"
    if op == "contains" and isinstance(value, str):
        return f"{value!r} in ({got} or '')"
    if op == "matches":
        return f"re.search({value!r}, {got} or '') is not None"
    if op == "in":
        return f"{got} in {value!r}"
    raise CorpusError(f"condition {w} is not one this class rewrites")


def _records_code(rule: dict[str, Any], field: str, compare: str) -> str:
    """A Python check doing what the records check `rule` does, with its list condition on `field` as `compare`."""
    listed = next((w for w in rule["where"] if w["field"] == field and w.get("op") == "contains"
                   and isinstance(w["value"], list) and len(set(w["value"])) > 1), None)
    if listed is None:
        raise CorpusError(f"no list condition on {field!r} in {rule}")
    tests = [_condition(w) for w in rule["where"] if w is not listed]
    counted = {"gte": ">=", "equals": "==", "lte": "<="}[rule.get("count_op", "gte")]
    return (
        "import json\nimport re\n\n\n"
        "def check(state, audit, messages):\n"
        f"    want = {listed['value']!r}\n"
        "    hits = 0\n"
        f"    for r in state['apps'][{rule['app']!r}][{rule['table']!r}]:\n"
        f"        got = r.get({field!r}) or []\n"
        f"        if {' and '.join([*tests, f'({compare})']) }:\n"
        "            hits += 1\n"
        f"    return hits {counted} {rule.get('count', 1)}\n"
    )


def _field_code(rule: dict[str, Any], compare: str) -> str:
    """A Python check doing what the field check `rule` (`contains` a list) does, with `compare`."""
    target = rule["target"]
    if rule.get("op") != "contains" or not isinstance(rule["value"], list) or len(set(rule["value"])) < 2:
        raise CorpusError(f"expected a field check containing a list, got {rule}")
    return (
        "import json\n\n\n"
        "def check(state, audit, messages):\n"
        f"    want = {rule['value']!r}\n"
        f"    row = next((r for r in state['apps'][{target['app']!r}][{target['table']!r}] "
        f"if r['id'] == {target['id']!r}), None)\n"
        "    if row is None:\n"
        "        return False\n"
        f"    got = row.get({target['field']!r}) or []\n"
        f"    return {compare}\n"
    )


def _audit_code(tool: str, arg: str, call: dict[str, Any], compare: str | None) -> str:
    """A Python check that the agent's successful `tool` calls passed the reference `call`'s list `arg`: one call whose
    list compares with the reference's by `compare`, or (None) every item of it in one call or another; the call's
    other single values (a free/busy lookup's window, a label) are pinned, so the check credits no lookup of another
    scope (`read_elsewhere_credited`)."""
    want = list(call[arg])
    scope = {k: v for k, v in call.items() if k != arg and not isinstance(v, list | dict)}
    head = ("import json\n\n\n"
            "def check(state, audit, messages):\n"
            f"    want = {want!r}\n"
            f"    scope = {scope!r}\n"
            "    seen = []\n"
            "    for e in audit:\n"
            f"        if e['ok'] and e['tool'] == {tool!r} and all(e['args'].get(k) == v for k, v in scope.items()):\n"
            f"            got = e['args'].get({arg!r}) or []\n")
    if compare is None:
        return head + "            seen += got\n    return set(want) <= set(seen)\n"
    return head + f"            if {compare}:\n                return True\n    return False\n"


def _python(c: dict[str, Any], app: str, code: str) -> None:
    c["rule"] = {"kind": "python", "entrypoint": "check", "apps": [app], "code": code}


def _on_records(check_id: str, field: str, how: str) -> tuple[Callable[[Spec], None], Callable[[Spec], None]]:
    """(breaks, fix): the records or field check `check_id` as a Python check, pinned to the order or as a set."""

    def edit(compare: str) -> Callable[[Spec], None]:
        def apply(spec: Spec) -> None:
            c = check(spec, check_id)
            rule = c["rule"]
            if rule["kind"] == "records":
                _python(c, rule["app"], _records_code(rule, field, compare))
            elif rule["kind"] == "field":
                _python(c, rule["target"]["app"], _field_code(rule, compare))
            else:
                raise CorpusError(f"{check_id}: expected a records or field check, got {rule['kind']}")
        return apply
    return edit(_PINNED[how]), edit(_AS_SET)


def _first_list_call(spec: Spec, tool: str, arg: str) -> dict[str, Any]:
    """The arguments of the reference's first `tool` call passing a list of two or more in `arg`."""
    for turn in spec["reference"]:
        for step in turn["steps"]:
            call = step.get("call")
            if call and call["name"] == tool and isinstance(call["arguments"].get(arg), list) \
                    and len(set(call["arguments"][arg])) > 1:
                return dict(call["arguments"])
    raise CorpusError(f"{spec['capability']}: no {tool} call passing a list of two or more in {arg!r}")


def _on_audit(check_id: str | None, tool: str, arg: str, how: str) -> tuple[Callable[[Spec], None],
                                                                                 Callable[[Spec], None]]:
    """(breaks, fix): a Python check on the audit that `tool` was called with the reference's list `arg`, pinned or as
    a set; it replaces `check_id` (None: it is added, `looked-up-<arg>`)."""

    def edit(compare: str | None) -> Callable[[Spec], None]:
        def apply(spec: Spec) -> None:
            code = _audit_code(tool, arg, _first_list_call(spec, tool, arg), compare)
            if check_id is None:
                spec["checks"].insert(0, {"id": f"looked-up-{arg}", "rule": {}})
                c = spec["checks"][0]
            else:
                c = check(spec, check_id)
            _python(c, tool.split("_")[0], code)
        return apply
    return edit(_PINNED[how]), edit(None)


def _reversed_lists(spec: Spec) -> list[dict[str, Any]]:
    """The honest agent: the reference with every list argument of two or more distinct items in reverse."""
    ref = reference(spec)
    flipped = 0
    for turn in ref:
        for step in turn["steps"]:
            call = step.get("call")
            for arg, value in (call["arguments"].items() if call else ()):
                if isinstance(value, list) and len(set(json.dumps(v) for v in value)) > 1:
                    call["arguments"][arg] = value[::-1]
                    flipped += 1
    if not flipped:
        raise CorpusError(f"{spec['capability']}: no list argument to reverse")
    return ref


def _defect(name: str, base: str, edits: tuple[Callable[[Spec], None], Callable[[Spec], None]], what: str) -> Defect:
    breaks, fix = edits
    return Defect(CLASS, name, base,
                  f"fails an honest agent that lists {what} in another order than the reference did, though the "
                  "tools and the task take them in any order",
                  breaks=breaks, fix=fix, witness=_reversed_lists, witness_kind="honest",
                  gate="sandbox", code="argument_order_dependent")


DEFECTS = [
    _defect("recipients-equal", "synth:schedule_meeting_timezones@1",
            _on_records("attendees-mailed", "to", "equal"), "the mail's recipients"),
    _defect("attendees-first", "synth:schedule_meeting_timezones@2",
            _on_records("booked-earliest-slot", "attendees", "first"), "the meeting's attendees"),
    _defect("people-dumped", "synth:schedule_meeting_timezones@3",
            _on_audit(None, "calendar_free_busy", "people", "dumped"), "the people whose calendars it looks up"),
    _defect("attendees-joined", "synth:adapt_announced_change@2",
            _on_records("moved-to-new-slot", "attendees", "joined"), "the meeting's attendees"),
    _defect("people-before", "synth:adapt_announced_change@3",
            _on_audit(None, "calendar_free_busy", "people", "before"), "the people whose calendars it looks up"),
    _defect("people-last", "synth:reschedule_conflict@3",
            _on_audit(None, "calendar_free_busy", "people", "last"), "the two people whose calendars it looks up"),
    _defect("labelled-equal", "synth:todo_track_mail_requests@1",
            _on_audit("label-msg-224", "mail_label", "message_ids", "equal"), "the messages it labels"),
    _defect("attendees-prefix", "example:meeting_reschedule",
            _on_records("attendees-kept", "attendees", "prefix"), "the meeting's attendees"),
    _defect("recipients-zipped", "example:meeting_reschedule",
            _on_records("attendees-mailed", "to", "zipped"), "the mail's recipients"),
    _defect("attachments-dumped", "example:report_from_files",
            _on_records("report-mailed", "attachments", "dumped"), "the mail's attachments"),
]
