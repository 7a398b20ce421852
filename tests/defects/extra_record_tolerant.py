"""Extra-record-tolerant totals: "exactly N new to-dos" loosened to "at least one" (or "at least N") where each
record the task asks for has its own exact count keyed on its label (the page's URL and status). A second to-do for
a page, its label stating another status (or a page that answered 200), is counted by no per-record check, so only
the total could tell; the duplicate mutant (the same write twice) is caught by the per-record counts and says
nothing of the total (defects69's `count_at_least_one`, web_page_audit 3-5)."""

from __future__ import annotations

import re

from tests.defects._core import CorpusError, Defect, Spec, call, check, with_call

CLASS = "extra_record_tolerant"
DETECTION = (
    "make a creating write once more with its label's checked numbers one off, where a records check counts that "
    'app "at least" (or a `called` check counts the creating tool\'s calls): if every check still passes, an extra '
    "wrong record goes unseen"
)
_TOTAL = "only-broken"


def _at_least(count: int | None):  # type: ignore[no-untyped-def]
    """The total count as "at least `count`" (None: at least the number the twin wants)."""

    def breaks(spec: Spec) -> None:
        rule = check(spec, _TOTAL, "records")["rule"]
        if rule.get("count_op") != "equals":
            raise CorpusError(f"{_TOTAL}: not an exact count")
        rule["count_op"] = "gte"
        if count is not None:
            rule["count"] = count
    return breaks


def _extra_task(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    """One more to-do for the first page, its status's last digit one more (HTTP 500 -> 501)."""
    args = dict(call(spec, "todo_add_task")["arguments"])
    args["title"] = re.sub(r"(\d)(?!.*\d)", lambda m: str((int(m.group(1)) + 1) % 10), args["title"])
    return with_call(spec, "todo_add_task", args)


DEFECTS = [
    Defect(CLASS, f"audit-total-at-least-{label}-{seed}", f"synth:web_page_audit@{seed}",
           "adds a second to-do for a broken page stating the wrong status: the total is 'at least', each "
           "page's count reads its status",
           breaks=_at_least(count), witness=_extra_task)
    for seed in (1, 2, 3, 4, 5, 6) for label, count in (("one", 1), ("n", None))
]


def _calls_counted(spec: Spec) -> None:
    """The total as a count of `todo_add_task` calls, as many as the reference makes (the third hunt's
    `state_to_call_count`, web_page_audit 1-5)."""
    rule = check(spec, _TOTAL, "records")["rule"]
    n = sum(1 for t in spec["reference"] for st in t["steps"] if (st.get("call") or {}).get("name") == "todo_add_task")
    check(spec, _TOTAL)["rule"] = {"kind": "called", "call": {"tool": "todo_add_task"}, "min_times": n or rule["count"]}


DEFECTS += [
    Defect(CLASS, f"audit-total-as-calls-{seed}", f"synth:web_page_audit@{seed}",
           "adds a second to-do for a broken page stating the wrong status: the total counts calls of the tool, "
           "at least as many as the reference makes", breaks=_calls_counted, witness=_extra_task)
    for seed in (1, 2, 3)
]
