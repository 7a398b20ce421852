"""A told value pinned to the writer's letter case: the answer names what the agent added, traced or changed (the
to-dos' titles, the log's "db pool", the tickets' new priorities) in the writer's capitals (`Contract Renewal Memo`,
`DB pool`, `P2`), and the reply check wants them so, with `normalize.case` off, where the mail asking for the to-do,
the log line the agent read or the triage table spells them otherwise (`contract renewal memo`, `db pool`, `p2`). An
honest agent that copies the spelling it was given fails. The letter-case probe (`_user_spelling`, defects71) tried
written values only, never what an answer or a message tells.

The sound twins read the same facts case-blind (the shipped `normalize.case`), the answer as shipped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls, check, reference, with_say

CLASS = "told_case_pinned"
GATE, CODE = "mutations", "case_pinned"  # the honest replay the gate makes, not a near miss
DETECTION = (
    "replay each answer (and each message's text) stating a value a check names that the user, or what the "
    "reference's reads were shown, spells only in another letter case, with the value as they spell it; where that "
    "honest answer fails a check the reference passes, the check pins the writer's casing"
)


def _title(value: str) -> str:
    return re.sub(r"(?:^|(?<=\s))([a-z])", lambda m: m.group(1).upper(), value)


def _answer(spec: Spec, turn: int = 0) -> str:
    return [s["say"] for s in spec["reference"][turn]["steps"] if s.get("say")][-1]  # type: ignore[no-any-return]


def _recased(pick: Callable[[dict[str, Any]], list[str]], how: Callable[[str], str]) -> Callable[[Spec], None]:
    """The reply check's terms `pick` chooses recased by `how` (in the answer too), read case-sensitively."""
    def edit(spec: Spec) -> None:
        rule = check(spec, kind="text", where=lambda c: bool(pick(c["rule"])))["rule"]
        said = _answer(spec)
        for term in pick(rule):
            if term not in said:
                raise CorpusError(f"{spec['capability']}: the answer does not state {term!r}")
            said = said.replace(term, how(term))
        rule["all_of"] = [how(t) if isinstance(t, str) and t in pick(rule) else t for t in rule["all_of"]]
        rule.setdefault("normalize", {})["case"] = False
        with_say(spec, said, 0, spec["reference"])
    return edit


def _titles(rule: dict[str, Any]) -> list[str]:
    return [t for t in rule["all_of"] if isinstance(t, str) and " " in t]


# -- incident_rollback: "db pool" as the log line says it, the reply check wanting "DB pool" alone.
def _db_pool(spec: Spec) -> None:
    _db_pool_fixed(spec)
    _recased(lambda r: [t for t in r["all_of"] if t == "db pool"], lambda t: "DB pool")(spec)


def _db_pool_fixed(spec: Spec) -> None:
    """The cause read as the log words it, every term needed (the shipped check grades them, and is not required)."""
    found = check(spec, "reply-explains-cause")
    found["required"] = True
    rule = found["rule"]
    rule["all_of"] = ["db pool" if isinstance(t, list) and "db pool" in t else t for t in rule["all_of"]]
    rule["partial"] = False


# -- ticket_triage_update, asked "Tell me what you changed.": the new priorities as `P2`, the triage table's `p2`.
def _changes_told(spec: Spec) -> None:
    changes = [(c["arguments"]["ticket_id"], c["arguments"]["assignee"], c["arguments"]["priority"])
               for _, _, c in calls(spec, "tickets_update") if {"assignee", "priority"} <= set(c["arguments"])]
    if not changes:
        raise CorpusError(f"{spec['capability']}: no ticket triaged")
    spec["turns"][0]["content"] += " Tell me what you changed."
    with_say(spec, "Triaged: " + "; ".join(f"{t} to {a}, priority {p}" for t, a, p in changes) + ".", 0,
             spec["reference"])
    terms = sorted({p for _, _, p in changes})
    spec["checks"].append({"id": "reply-changes", "description": "the reply says the new priorities",
                           "role": "completion", "weight": 1.0,
                           "rule": {"kind": "text", "turn": 0, "all_of": [t for t, _, _ in changes] + terms,
                                    "words": True}})


def _priorities_upper(spec: Spec) -> None:
    _changes_told(spec)
    _recased(lambda r: [t for t in r["all_of"] if re.fullmatch(r"p\d", t)], str.upper)(spec)


def _defect(name: str, base: str, what: str, breaks: Any, fix: Any = None) -> Defect:
    """Witness (honest): the twin's reference, its answer spelling the values as the source did."""
    return Defect(CLASS, name, base, what, breaks=breaks, fix=fix, witness=reference, witness_kind="honest",
                  gate=GATE, code=CODE)


DEFECTS = [
    *(_defect(f"titles-title-cased-{seed}", f"synth:todo_track_mail_requests@{seed}",
              "is failed for naming the to-dos it added as the mails did (`contract renewal memo`): the reply check "
              "wants the writer's `Contract Renewal Memo`, case-sensitively", _recased(_titles, _title))
      for seed in (1, 2, 3)),
    _defect("cause-upper-cased", "example:incident_rollback",
            "is failed for quoting the log's `db pool`: the reply check wants `DB pool`, case-sensitively", _db_pool,
            fix=_db_pool_fixed),
    *(_defect(f"priorities-upper-cased-{seed}", f"synth:ticket_triage_update@{seed}",
              "is failed for giving the new priorities as the triage table writes them (`p2`): the reply check wants "
              "`P2`, case-sensitively", _priorities_upper, fix=_changes_told)
      for seed in (1, 2)),
]
