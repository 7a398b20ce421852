"""Digit class read: a check wants a number of the answer through a digit class, `\\d` or `[0-9]`, where the task
fixes the number: the reply's count of SLA breaches as `\\b(?:\\d|six) breaches`, a report row as `^p1,\\d,3,2$`, the
total in the summary file or the channel's headline as `\\d\\d`, the quantity moved in the reply as any two digits.
The pattern has the answer's shape, not its value, so the agent that states another number (5 breaches, 9 P1
tickets, 61 tickets, 26 gloves) passes. The sound twin (the shipped spec) names the number.

Found by an outside tester's mutation sweep (defects65): main's gates accepted every one, since the near misses of
an answer are built from the values the checks name, and a digit class names none. (The same edit on a message to a
person, the confirmed phone number or the DM's config value, main already rejected: the message near misses state
the facts the world holds wrongly, one at a time.)

Caught by the digit-class replay of the partial-facts mutants (`content_unchecked`, `_partial_facts`): each digit of
the reference's answer (a reply, a message's body, a file's content) that a check's pattern matches the same way
when the digit is moved and not when a letter stands there is read by a class; the answer with those digits moved
(that no other pattern reads literally) must fail a check.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, reference, with_say

CLASS = "digit_class_read"
DETECTION = (
    "move each digit of the reference's answer that a check's pattern reads by a digit class (it matches the same "
    "span with the digit moved, not with a letter there) and no pattern reads literally; if every check still passes, "
    "the check wants the number's shape, not the number"
)


def _regex_on(check_id: str, old: str, new: str) -> Callable[[Spec], None]:
    """The text check's regex with `old` (a literal number in it) read by a digit class, `new`."""
    def breaks(spec: Spec) -> None:
        rule = check(spec, check_id)["rule"]
        if old not in (rule.get("regex") or ""):
            raise CorpusError(f"{spec['capability']}: check {check_id} has no {old!r} in its regex")
        rule["regex"] = rule["regex"].replace(old, new, 1)
    return breaks


def _condition(spec: Spec, field: str, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first `where` condition on `field` of a records check that meets `pred`."""
    for c in spec["checks"]:
        if c["rule"]["kind"] != "records":
            continue
        for w in c["rule"]["where"]:
            if w["field"] == field and pred(w):
                return w  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: no records condition on {field!r} of that shape")


_ROW = re.compile(r"^\(\?m\)\^(.+),(\d+)\\r\?\$$")  # a report row's pattern: (?m)^svc\-media,2\r?$


def _first_row(spec: Spec) -> tuple[dict[str, Any], re.Match[str]]:
    """The condition on the report's first checked row, and its pattern's parts (the row's name, its count)."""
    w = _condition(spec, "content", lambda w: w.get("op") == "matches" and bool(_ROW.match(w["value"])))
    m = _ROW.match(w["value"])
    assert m is not None
    return w, m


def _row_any_count(spec: Spec) -> None:
    """The first report row's count read as any number: `(?m)^svc\\-chatbot,\\d+\\r?$`."""
    w, m = _first_row(spec)
    w["value"] = f"(?m)^{m.group(1)},\\d+\\r?$"


def _row_count_moved(step: int) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference's report with the first checked row's count `step` off (one up, one lower)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        _, m = _first_row(spec)
        name = m.group(1).replace("\\", "")
        return _content_changed(spec, "files_write_file", "content", f"\n{name},{m.group(2)}\n",
                                f"\n{name},{int(m.group(2)) + step}\n")
    return witness


_row_count_wrong = _row_count_moved(1)


def _reply_count_any(spec: Spec) -> None:
    """The reply check's first number term (`15`) read as any number of its length, by a regex."""
    rule = check(spec, kind="text", where=lambda c: any(isinstance(t, str) and t.isdigit() for t in c["rule"]["all_of"]))
    term = next(t for t in rule["rule"]["all_of"] if isinstance(t, str) and t.isdigit())
    rule["rule"]["all_of"].remove(term)
    rule["rule"]["regex"] = f"(?<!\\d)\\d{{{len(term)}}}(?!\\d)"


def _reply_count_wrong(spec: Spec) -> list[dict[str, Any]]:
    rule = check(spec, kind="text", where=lambda c: any(isinstance(t, str) and t.isdigit() for t in c["rule"]["all_of"]))
    term = next(t for t in rule["rule"]["all_of"] if isinstance(t, str) and t.isdigit())
    turn = rule["rule"].get("turn") or 0
    say = next(s["say"] for s in reversed(spec["reference"][turn]["steps"]) if s.get("say"))
    wrong = str(int(term) + 11)[-len(term):]
    if not re.search(rf"(?<!\d){term}(?!\d)", say):
        raise CorpusError(f"{spec['capability']}: the answer does not state {term}")
    return with_say(spec, re.sub(rf"(?<!\d){term}(?!\d)", wrong, say, count=1), turn=turn)


def _content_changed(spec: Spec, tool: str, arg: str, old: str, new: str) -> list[dict[str, Any]]:
    """The reference with `old` replaced by `new` in the `arg` of its first `tool` call that says `old`."""
    ref = reference(spec)
    for turn in ref:
        for step in turn["steps"]:
            call = step.get("call")
            if call and call["name"] == tool and old in str(call["arguments"].get(arg, "")):
                call["arguments"][arg] = call["arguments"][arg].replace(old, new, 1)
                return ref
    raise CorpusError(f"{spec['capability']}: no {tool} call says {old!r} in its {arg}")


def _reply_breaches_wrong(spec: Spec) -> list[dict[str, Any]]:
    say = next(s["say"] for s in spec["reference"][0]["steps"] if s.get("say"))
    if "6 first-response" not in say:
        raise CorpusError("report_from_files: the first answer no longer states 6 breaches")
    return with_say(spec, say.replace("6 first-response", "5 first-response"), turn=0)


def _csv_p1_wrong(spec: Spec) -> list[dict[str, Any]]:
    return _content_changed(spec, "files_write_file", "content", "\np1,4,3,2\n", "\np1,9,3,2\n")


def _headline_wrong(spec: Spec) -> list[dict[str, Any]]:
    return _content_changed(spec, "chat_post_message", "text", "16 tickets", "61 tickets")


def _summary_wrong(spec: Spec) -> list[dict[str, Any]]:
    return _content_changed(spec, "files_write_file", "content", "\n16 tickets", "\n61 tickets")


def _csv_p1_read(count: str) -> Callable[[Spec], None]:
    """The P1 row's check reads its count, 4, as `count` (`\\d`, `[34]`)."""
    def breaks(spec: Spec) -> None:
        w = _condition(spec, "content", lambda w: w.get("value") == "(?m)^p1,4,3,2\\r?$")
        w["value"] = f"(?m)^p1,{count},3,2\\r?$"
    return breaks


_csv_p1_tickets_any = _csv_p1_read("\\d")


def _total_any(field: str, total: str = "\\d\\d") -> Callable[[Spec], None]:
    """The check on the headline (`text`) or the summary file (`content`) reads the total, 16, as `total`
    (`\\d\\d`, `1[56]`)."""
    def breaks(spec: Spec) -> None:
        w = _condition(spec, field, lambda w: w.get("op") == "matches" and "16|sixteen" in w["value"])
        w["value"] = w["value"].replace("16|sixteen", total + "|sixteen")
    return breaks


# defects75: a class of two digits, the number's own and the one below it (`[56] breaches` for 6: the writer unsure
# whether one counts): the near miss moving each digit one up fails it, the number one lower passes.
def _row_count_below(spec: Spec) -> None:
    """The first report row's count read by a class of its last digit and the one below (`(?m)^svc,1[12]\r?$`)."""
    w, m = _first_row(spec)
    count = m.group(2)
    if count[-1] == "0":
        raise CorpusError(f"{spec['capability']}: the first row's count ends in 0")
    w["value"] = f"(?m)^{m.group(1)},{count[:-1]}[{int(count[-1]) - 1}{count[-1]}]\\r?$"




_AWAY_ROW = "writes the report with a row's count wrong: the check wants a number there, any number"
_AWAY_REPLY = "tells the user a wrong quantity: the reply's check wants a number of two digits, not the number"


def _read_by_class(name: str, base: str, away: str, breaks: Callable[[Spec], None],
                   witness: Callable[[Spec], list[dict[str, Any]]]) -> Defect:
    """A defect the digit-class replay must reject; the witness states the number wrongly (the defect passes it)."""
    return Defect(CLASS, name, base, away, breaks=breaks, witness=witness, gate="mutations", code="content_unchecked")


DEFECTS = [
    _read_by_class("reply-breach-count-any-digit", "example:report_from_files",
                   "tells the user 5 SLA breaches where there were 6: the reply's regex reads the count as `\\d`",
                   _regex_on("reply-counts-breaches", "(?:6|six)", "(?:\\d|six)"), _reply_breaches_wrong),
    _read_by_class("csv-p1-tickets-any-digit", "example:report_from_files",
                   "writes 9 P1 tickets where there were 4: the row's regex reads the count as `\\d`",
                   _csv_p1_tickets_any, _csv_p1_wrong),
    _read_by_class("headline-total-any-digits", "example:report_from_files",
                   "posts 61 tickets in the channel's headline where there were 16: the check reads it as `\\d\\d`",
                   _total_any("text"), _headline_wrong),
    _read_by_class("summary-total-any-digits", "example:report_from_files",
                   "writes 61 tickets in the summary file where there were 16: the check reads it as `\\d\\d`",
                   _total_any("content"), _summary_wrong),
    *(_read_by_class(f"csv-row-any-count{suffix}", f"synth:report_from_data@{seed}", _AWAY_ROW, _row_any_count,
                     _row_count_wrong) for seed, suffix in ((1, ""), (2, "-2"))),
    _read_by_class("reply-breach-count-two-digits", "example:report_from_files",
                   "tells the user 5 SLA breaches where there were 6: the reply's regex reads the count as `[56]`",
                   _regex_on("reply-counts-breaches", "(?:6|six)", "(?:[56]|six)"), _reply_breaches_wrong),
    _read_by_class("csv-p1-tickets-two-digits", "example:report_from_files",
                   "writes 3 P1 tickets where there were 4: the row's regex reads the count as `[34]`",
                   _csv_p1_read("[34]"), lambda spec: _content_changed(spec, "files_write_file", "content",
                                                                  "\np1,4,3,2\n", "\np1,3,3,2\n")),
    _read_by_class("headline-total-two-digits", "example:report_from_files",
                   "posts 15 tickets in the channel's headline where there were 16: the check reads it as `1[56]`",
                   _total_any("text", "1[56]"), lambda spec: _content_changed(spec, "chat_post_message", "text",
                                                                         "16 tickets", "15 tickets")),
    *(_read_by_class(f"csv-row-count-two-digits-{seed}", f"synth:report_from_data@{seed}",
                     "writes the report with a row's count one lower: the check reads its last digit by a class of "
                     "it and the one below", _row_count_below, _row_count_moved(-1)) for seed in (1, 2, 3)),
    *(_read_by_class(f"reply-moved-any-quantity{suffix}", f"synth:inventory_restock_policy@{seed}", _AWAY_REPLY,
                     _reply_count_any, _reply_count_wrong) for seed, suffix in ((1, ""), (2, "-2"))),
]
