"""The label the instructions ask for, unchecked: "open a follow-up ticket ... priority p2, label sla-review" (a mail
the agent is given), "Mark the mails you handled with the 'tracked' label" (the request), and the check on the
record loses its `labels` condition or reads only that the labels changed. A label is a free word, no person,
record or number, so no near miss left it out or put another in its place: the ticket with no label, the mails
labelled `done`, passed.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, drop_cond, reference

CLASS = "asked_label_unchecked"
DETECTION = (
    "near miss per free word of a write's list argument (a label, a tag) that the request or a message the agent is "
    "given states: the write without it, and with another word in its place; a survivor is a label asked for and "
    "unchecked"
)
GATE, CODE = "mutations", "mutant_survived"


def _no_label_cond(spec: Spec) -> None:
    drop_cond(check(spec, kind="records", where=lambda c: any(w["field"] == "labels" for w in c["rule"]["where"])),
              "labels")


def _labels_changed(spec: Spec) -> None:
    """Each mail's label check reads that its labels are no longer empty."""
    found = [c for c in spec["checks"] if c["rule"]["kind"] == "field" and c["rule"]["target"]["field"] == "labels"]
    if not found:
        raise CorpusError(f"{spec['capability']}: no label check")
    for c in found:
        c["rule"]["op"], c["rule"]["value"] = "not_equals", []


def _relabelled(word: str):  # type: ignore[no-untyped-def]
    """Witness: the reference with every label it writes (`labels`, `add`) replaced by `word`."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        hits = 0
        for turn in ref:
            for step in turn["steps"]:
                args = (step.get("call") or {}).get("arguments") or {}
                for name in ("labels", "add"):
                    if args.get(name):
                        args[name] = [word] if word else []
                        hits += 1
        if not hits:
            raise CorpusError(f"{spec['capability']}: nothing labelled")
        return ref
    return witness


def _defect(name: str, base: str, what: str, breaks: Any, witness: Any) -> Defect:
    return Defect(CLASS, name, base, what, breaks=breaks, witness=witness, gate=GATE, code=CODE)


DEFECTS = [
    _defect("follow-up-label-dropped", "example:report_from_files",
            "opens the follow-up ticket without the label Grace's mail asks for (the check lost its labels condition)",
            _no_label_cond, _relabelled("")),
    *(_defect(f"mail-label-changed-{seed}", f"synth:todo_track_mail_requests@{seed}",
              "labels the handled mails with another word than the one asked for (the checks read that the labels "
              "changed)", _labels_changed, _relabelled("done"))
      for seed in (1, 2, 3, 4)),
]
