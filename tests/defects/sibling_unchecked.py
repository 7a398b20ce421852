"""A list the task asks for, checked item by item, with one item's check left out: the task asks for several like
facts (the P1 tickets that breached, a CSV's row per priority, the items moved, the jobs paused with their last runs,
the tasks added), the grader reads each but one, so an answer with that item wrong or missing passes. The reference
still passes (it states every item), so no gate that replays it sees the gap; only a near miss on the unread item
does: the other items are read, so this one was asked for too.
"""

from __future__ import annotations

import re
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, reference, with_say

CLASS = "sibling_unchecked"
DETECTION = (
    "near miss per list item: where the reference's text states like items side by side (one shape, joined by list "
    "separators, or a file's rows) and a check reads one of them, restate the others it does not read wrongly or "
    "leave them out; if every check still passes, an item of the list is unchecked"
)
GATE, CODE = "mutations", "sibling_unchecked"


def _python_reads(drop: list[str], keep: str, code: str):  # type: ignore[no-untyped-def]
    """The checks `drop` removed and `keep`'s rule rewritten as a Python grader (`code`) that reads only some of the
    items: no scan tells which items a program reads."""
    def breaks(spec: Spec) -> None:
        for check_id in drop:
            check(spec, check_id)
        spec["checks"] = [c for c in spec["checks"] if c["id"] not in drop]
        check(spec, keep)["rule"] = {"kind": "python", "code": code, "entrypoint": "check", "apps": []}
    return breaks


def _reply_reads(*items: str) -> str:
    return ("def check(state, audit, messages):\n"
            "    text = ' '.join(m['text'] for m in messages if m['turn'] == 0 and not m.get('aside'))\n"
            f"    return all(item.lower() in text.lower() for item in {list(items)!r})\n")


def _csv_reads(path: str, *rows: str) -> str:
    return ("def check(state, audit, messages):\n"
            f"    f = next((f for f in state['apps']['files']['files'] if f['id'] == {path!r}), None)\n"
            "    lines = f['content'].splitlines() if f else []\n"
            f"    return all(row in lines for row in {list(rows)!r})\n")


def _drop_check(check_id: str):  # type: ignore[no-untyped-def]
    """The check on one item of the list left out (the grader forgot it)."""
    def breaks(spec: Spec) -> None:
        check(spec, check_id)
        spec["checks"] = [c for c in spec["checks"] if c["id"] != check_id]
    return breaks


def _drop_terms(check_id: str, *terms: Any):  # type: ignore[no-untyped-def]
    """The text check's terms for one item left out (`all_of` lists each item's name and count)."""
    def breaks(spec: Spec) -> None:
        rule = check(spec, check_id, "text")["rule"]
        kept = [t for t in rule["all_of"] if t not in terms]
        if len(kept) != len(rule["all_of"]) - len(terms):
            raise CorpusError(f"{spec['capability']}: {check_id} has not every term of {terms}")
        rule["all_of"] = kept
    return breaks


def _drop_last_term(check_id: str):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        rule = check(spec, check_id, "text")["rule"]
        rule["all_of"] = rule["all_of"][:-1]
    return breaks


def _drop_row(check_id: str, row: str):  # type: ignore[no-untyped-def]
    """The records check's pattern for one row of the file left out."""
    def breaks(spec: Spec) -> None:
        where = check(spec, check_id, "records")["rule"]["where"]
        kept = [w for w in where if not (w.get("op") == "matches" and row in w["value"])]
        if len(kept) != len(where) - 1:
            raise CorpusError(f"{spec['capability']}: {check_id} has no one pattern for {row}")
        where[:] = kept
    return breaks


def _reply_without(pattern: str, turn: int = 0):  # type: ignore[no-untyped-def]
    """Witness: the reference's answer to `turn` with the item `pattern` matches left out."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        said = [s["say"] for s in spec["reference"][turn]["steps"] if s.get("say")][-1]
        cut = re.sub(pattern, "", said, count=1)
        if cut == said:
            raise CorpusError(f"{spec['capability']}: the answer has no {pattern!r}")
        return with_say(spec, cut, turn)
    return witness


def _file_row_wrong(path: str, row: str, wrong: str):  # type: ignore[no-untyped-def]
    """Witness: the reference writes the file with one row's figures wrong."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        for turn in ref:
            for step in turn["steps"]:
                call = step.get("call")
                if call and call["name"] == "files_write_file" and call["arguments"].get("path") == path:
                    if row not in call["arguments"]["content"]:
                        raise CorpusError(f"{path} has no row {row!r}")
                    call["arguments"]["content"] = call["arguments"]["content"].replace(row, wrong)
                    return ref
        raise CorpusError(f"the reference writes no {path}")
    return witness


def _defect(name: str, base: str, what: str, breaks: Any, witness: Any) -> Defect:
    return Defect(CLASS, name, base, what, breaks=breaks, witness=witness, gate=GATE, code=CODE)


def _fixed(name: str, base: str, what: str, breaks: Any, fix: Any, witness: Any) -> Defect:
    return Defect(CLASS, name, base, what, breaks=breaks, fix=fix, witness=witness, gate=GATE, code=CODE)


_CSV = "reports/support_w14.csv"
DEFECTS = [
    _defect("report-second-breach-unread", "example:report_from_files",
            "names only SUP-2204 when asked which P1 tickets breached (SUP-2209 too)",
            _drop_check("reply-names-p1-breach-lumina"), _reply_without(r" and SUP-2209 \([^)]*\)")),
    _defect("report-first-breach-unread", "example:report_from_files",
            "names only SUP-2209 when asked which P1 tickets breached (SUP-2204 too)",
            _drop_check("reply-names-p1-breach-okapi"), _reply_without(r"SUP-2204 \([^)]*\) and ")),
    _defect("report-p2-row-unread", "example:report_from_files",
            "writes the p2 row of the weekly CSV wrong (the checks read p1, p3 and p4 only)",
            _drop_row("csv-numbers", "p2,"), _file_row_wrong(_CSV, "p2,5,3,2", "p2,5,5,0")),
    _defect("report-p4-row-unread", "example:report_from_files",
            "writes the p4 row of the weekly CSV wrong (the checks read p1 to p3 only)",
            _drop_row("csv-numbers", "p4,"), _file_row_wrong(_CSV, "p4,2,1,1", "p4,2,2,0")),
    _defect("restock-second-item-unread", "synth:inventory_restock_policy@1",
            "reports only the gloves moved, not the 57 pallet wraps",
            _drop_terms("reply-moves", ["WRAP-43", "pallet wrap"], "57"), _reply_without(r", 57 x WRAP-43")),
    _defect("restock-second-item-unread-3", "synth:inventory_restock_policy@3",
            "reports only the batteries moved, not the 39 wireless mice",
            _drop_terms("reply-moves", ["MOUSE-96", "wireless mouse"], "39"), _reply_without(r", 39 x MOUSE-96")),
    _defect("jobs-second-last-run-unread", "synth:scheduler_pause_failing_jobs@1",
            "gives only the first paused job's last run",
            _drop_check("last-run-job-843"), _reply_without(r" \(last run 2026-11-15T19:21:30Z\)")),
    _defect("jobs-second-last-run-unread-2", "synth:scheduler_pause_failing_jobs@2",
            "gives only the first paused job's last run",
            _drop_check("last-run-job-43"), _reply_without(r" \(last run 2026-06-21T15:45:03Z\)")),
    _defect("todo-last-task-unread", "synth:todo_track_mail_requests@1",
            "lists three of the four tasks it added",
            _drop_last_term("reply-lists-tasks"), _reply_without(r"; launch checklist due [^;]*$")),
    _defect("todo-last-task-unread-2", "synth:todo_track_mail_requests@2",
            "lists two of the three tasks it added",
            _drop_last_term("reply-lists-tasks"), _reply_without(r"; migration plan due [^;]*$")),
    # Lists of names with no number: the text check's term for one person left out.
    _defect("reschedule-third-person-unread", "example:meeting_reschedule",
            "says it emailed Marcus and Aisha, not Tom (the check reads two of the three names)",
            _drop_terms("reply-names-slot-and-people", "Tom"), _reply_without(r" and Tom(?=\.)")),
    _defect("reschedule-second-person-unread", "example:meeting_reschedule",
            "says it emailed Marcus and Tom, not Aisha (the check reads two of the three names)",
            _drop_terms("reply-names-slot-and-people", "Aisha"), _reply_without(r", Aisha(?= and Tom)")),
    # Python graders that read all but one item: their code reads the answer where no static scan sees which items.
    _defect("restock-python-second-item-unread", "synth:inventory_restock_policy@1",
            "reports only the gloves moved, not the 57 pallet wraps (its Python grader reads the gloves' line)",
            _python_reads([], "reply-moves", _reply_reads("GLOVE-96", "15")), _reply_without(r", 57 x WRAP-43")),
    _defect("report-python-p4-row-unread", "example:report_from_files",
            "writes the p4 row of the weekly CSV wrong (its Python grader reads the p1 to p3 rows)",
            _python_reads([], "csv-numbers", _csv_reads(_CSV, "p1,4,3,2", "p2,5,3,2", "p3,5,4,1")),
            _file_row_wrong(_CSV, "p4,2,1,1", "p4,2,2,0")),
    # Python graders of a multi-turn spec that keep one turn's messages (`m['turn'] == 0`): the twin reads every item
    # of that turn's answer, and the other turn's answer is no content of it (main read every turn's as content and
    # rejected the twin as `content_unchecked` on the second turn's answer).
    _fixed("clarify-python-turn-second-candidate-unread", "synth:clarify_ambiguous_request@1",
           "asks about Lucas Lopez only, not Lucas Kowalski (its Python grader of the first turn reads one address)",
           _python_reads(["asked-about-u-lucas"], "asked-about-u-lucas-kowalski",
                         _reply_reads("lucas.lopez@lumio.test")),
           _python_reads(["asked-about-u-lucas"], "asked-about-u-lucas-kowalski",
                         _reply_reads("lucas.lopez@lumio.test", "lucas.kowalski@lumio.test")),
           _reply_without(r" and Lucas Kowalski \([^)]*\)")),
    _fixed("report-python-turn-second-breach-unread", "example:report_from_files",
           "names only SUP-2204 of the P1 breaches (its Python grader of the first turn reads one ticket)",
           _python_reads(["reply-names-p1-breach-okapi"], "reply-names-p1-breach-lumina", _reply_reads("SUP-2204")),
           _python_reads(["reply-names-p1-breach-okapi"], "reply-names-p1-breach-lumina",
                         _reply_reads("SUP-2204", "SUP-2209")),
           _reply_without(r" and SUP-2209 \([^)]*\)")),
]
