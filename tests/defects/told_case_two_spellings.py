"""A told value the source spells two ways, pinned to one: the mail asking for a to-do names it in its subject in
capitals (`Request: Contract Renewal Memo`) and in its body in small letters (`please prepare the contract renewal
memo`), and the reply check on what the agent added wants one of those spellings, case-sensitively. An honest agent
may copy either: the one that copies the other fails. The letter-case replay of told values (`told_case_pinned`,
defects82) tried a spelling only where the user and the source spell the value only otherwise; where the source also
spells it as the reference does, nothing was replayed ("no single honest spelling").

The sound twins read the same titles case-blind (the shipped check), the answer in the other spelling.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls, check, reference, with_say, world
from tests.defects.told_case_pinned import _answer, _changes_told, _db_pool_fixed, _title

CLASS = "told_case_two_spellings"
GATE, CODE = "mutations", "case_pinned"
DETECTION = (
    "replay each answer stating a value a check names that the user or what the reference's reads were shown also "
    "spells in another letter case (besides, or instead of, the reference's), with the value in that other spelling; "
    "where that honest answer fails a check the reference passes, the check pins one of the source's casings"
)


def _terms(spec: Spec) -> list[str]:
    rule = check(spec, "reply-lists-tasks")["rule"]
    return [t for t in rule["all_of"] if isinstance(t, str)]


def _subjects_titled(spec: Spec) -> None:
    """Each requesting mail's subject names its to-do title-cased (`Request: Contract Renewal Memo`); its body keeps
    the small letters."""
    mails = world(spec, "mail", "messages")
    for term in _terms(spec):
        found = [m for m in mails if term in m["body"]]
        if not found:
            raise CorpusError(f"{spec['capability']}: no mail asks for {term!r}")
        for m in found:
            m["subject"] = f"Request: {_title(term)}"


def _answer_as(how: Callable[[str], str]) -> Callable[[Spec], None]:
    def edit(spec: Spec) -> None:
        said = _answer(spec)
        for term in _terms(spec):
            if term not in said:
                raise CorpusError(f"{spec['capability']}: the answer does not state {term!r}")
            said = said.replace(term, how(term))
        with_say(spec, said, 0, spec["reference"])
    return edit


def _pinned(how: Callable[[str], str]) -> Callable[[Spec], None]:
    """The titles recased by `how` in the answer and in the reply check, read case-sensitively."""
    def edit(spec: Spec) -> None:
        _subjects_titled(spec)
        _answer_as(how)(spec)
        rule = check(spec, "reply-lists-tasks")["rule"]
        rule["all_of"] = [how(t) if isinstance(t, str) else t for t in rule["all_of"]]
        rule.setdefault("normalize", {})["case"] = False
    return edit


def _twin(other: Callable[[str], str]) -> Callable[[Spec], None]:
    """The subjects as in the defect, the answer in the source's other spelling, the shipped case-blind check."""
    def edit(spec: Spec) -> None:
        _subjects_titled(spec)
        _answer_as(other)(spec)
    return edit


# -- ticket_triage_update, asked "Tell me what you changed.": the policy's table says `p2`, its scale line `P2`.
def _scale_stated(spec: Spec) -> None:
    read = {c["arguments"].get("path") for _, _, c in calls(spec, "files_read_file")}
    policy = next((f for f in world(spec, "files", "files") if f["id"] in read), None)
    if policy is None or not re.search(r": p\d\n", policy["content"]):
        raise CorpusError(f"{spec['capability']}: no triage policy with a priority table")
    head, _, rest = policy["content"].partition("\n\n")
    policy["content"] = f"{head}\n\nPriorities run P1 (most urgent), P2, P3, P4.\n\n{rest}"
    _changes_told(spec)


def _priorities_pinned(spec: Spec) -> None:
    _scale_stated(spec)
    check(spec, "reply-changes")["rule"].setdefault("normalize", {})["case"] = False


def _priorities_upper(spec: Spec) -> None:
    _scale_stated(spec)
    said = _answer(spec)
    with_say(spec, re.sub(r"priority p(\d)", r"priority P\1", said), 0, spec["reference"])


# -- incident_rollback: the log line's `db pool`, Jon's mail asking about the `DB pool`.
def _jon_asks(spec: Spec) -> None:
    mail = next((m for m in world(spec, "mail", "messages") if "req-" in m["body"]), None)
    if mail is None:
        raise CorpusError(f"{spec['capability']}: no mail naming the failing request")
    mail["body"] = mail["body"].replace("Could you", "Is it the DB pool again? Could you", 1)
    _db_pool_fixed(spec)


def _db_pool_pinned(spec: Spec) -> None:
    _jon_asks(spec)
    check(spec, "reply-explains-cause")["rule"].setdefault("normalize", {})["case"] = False


def _db_pool_upper(spec: Spec) -> None:
    _jon_asks(spec)
    said = _answer(spec)
    if "db pool" not in said:
        raise CorpusError(f"{spec['capability']}: the answer does not quote the log's db pool")
    with_say(spec, said.replace("db pool", "DB pool"), 0, spec["reference"])


def _same(value: str) -> str:
    return value


def _defect(name: str, base: str, what: str, breaks: Any, fix: Any) -> Defect:
    """Witness (honest): the twin's reference, its answer in the source's other spelling."""
    return Defect(CLASS, name, base, what, breaks=breaks, fix=fix, witness=reference, witness_kind="honest",
                  gate=GATE, code=CODE)


DEFECTS = [
    *(_defect(f"titles-subject-cased-{seed}", f"synth:todo_track_mail_requests@{seed}",
              "is failed for naming the to-dos it added as the mails' bodies did (`contract renewal memo`): the reply "
              "check wants the subjects' `Contract Renewal Memo`, case-sensitively", _pinned(_title), _twin(_same))
      for seed in (1, 2)),
    *(_defect(f"titles-body-cased-{seed}", f"synth:todo_track_mail_requests@{seed}",
              "is failed for naming the to-dos it added as the mails' subjects did (`Contract Renewal Memo`): the "
              "reply check wants the bodies' `contract renewal memo`, case-sensitively", _pinned(_same), _twin(_title))
      for seed in (4, 5)),
    *(_defect(f"priorities-table-cased-{seed}", f"synth:ticket_triage_update@{seed}",
              "is failed for giving the new priorities as the policy's scale line writes them (`P2`): the reply check "
              "wants the table's `p2`, case-sensitively", _priorities_pinned, _priorities_upper)
      for seed in (1, 2)),
    _defect("cause-log-cased", "example:incident_rollback",
            "is failed for naming the cause as Jon's mail did (`DB pool`): the reply check wants the log's `db pool`, "
            "case-sensitively", _db_pool_pinned, _db_pool_upper),
]
