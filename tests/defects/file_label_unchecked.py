"""The label the task asks for, stated only in a document the agent reads, unchecked: the request says "mark the
mails you handled with the label notes/mail-conventions.md gives handled mail" (the note, a file the reference
reads, names `tracked`), or Grace's follow-up mail asks for the ticket "labelled as config/sla_targets.json says for
breach follow-ups" (the SLA file, read for the report, names `sla-review`). The check on the record then loses its
`labels` condition, or reads only that the labels changed. The asked-label near misses looked for the word in the
requests and the messages only, so nothing left it out or put another in its place: the mails labelled `done` and
the ticket with no label passed.
"""

from __future__ import annotations

import re
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls, check, drop_cond
from tests.defects.asked_label_unchecked import _labels_changed, _relabelled

CLASS = "file_label_unchecked"
DETECTION = (
    "the asked-label near misses (a write's list item left out, another word in its place) also where the word is "
    "stated in a document the agent is shown (a file, note, article or page the request or a reference call names): "
    "a survivor is a label asked for and unchecked"
)
GATE, CODE = "mutations", "mutant_survived"
_NOTE = "notes/mail-conventions.md"
_TOLD = f"the label {_NOTE} gives handled mail"


def _label_word(spec: Spec) -> str:
    words = {w for _, _, c in calls(spec, "mail_label") for w in c["arguments"].get("add") or []}
    if len(words) != 1:
        raise CorpusError(f"{spec['capability']}: labels {sorted(words)}, expected one")
    return words.pop()


def _in_note(spec: Spec) -> None:
    """The request names the handled mails' label by the note that states it; the reference reads the note first."""
    word = _label_word(spec)
    turn = spec["turns"][0]
    said = turn["content"]
    q = re.escape(f"'{word}'")
    said = re.sub(rf"the {q} label|the label {q}", _TOLD, said)
    said = re.sub(q, "that way", said)
    if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", said, re.IGNORECASE) or _NOTE not in said:
        raise CorpusError(f"{spec['capability']}: the request still states {word!r}: {said}")
    turn["content"] = said
    files = spec["world"]["apps"]["files"]["files"]
    files.append({"id": _NOTE, "kind": "markdown", "owner": files[0]["owner"] if files else "",
                  "modified_at": "2026-01-05T09:00:00Z",
                  "content": f"# Mail conventions\n\nA mail whose request is on a to-do list gets the label `{word}`, "
                             "so that nobody tracks it twice.\n"})
    spec["tools"] += [t for t in ("files_list_files", "files_read_file", "files_search_files") if t not in spec["tools"]]
    spec["reference"][0]["steps"].insert(0, {"call": {"name": "files_read_file", "arguments": {"path": _NOTE}}})


def _in_sla_file(spec: Spec) -> None:
    """Grace's follow-up names the ticket's label by the SLA file (read for the report), which states it."""
    rule = spec["dynamics"]["rules"][0]
    record = next(e["record"] for e in rule["effects"] if e["kind"] == "put_record")
    if ", label sla-review," not in record["body"]:
        raise CorpusError("report_from_files: Grace's follow-up no longer asks for the label")
    record["body"] = record["body"].replace(
        ", label sla-review,", ", labelled as config/sla_targets.json says for breach follow-ups,")
    sla = next(f for f in spec["world"]["apps"]["files"]["files"] if f["id"] == "config/sla_targets.json")
    sla["content"] = sla["content"].replace('\n  "breach_rule"', '\n  "breach_followup_label": "sla-review",\n  '
                                                                 '"breach_rule"')
    if "sla-review" not in sla["content"]:
        raise CorpusError("report_from_files: config/sla_targets.json changed shape")


def _no_label_cond(spec: Spec) -> None:
    _in_sla_file(spec)
    drop_cond(check(spec, kind="records", where=lambda c: any(w["field"] == "labels" for w in c["rule"]["where"])),
              "labels")


def _note_labels_changed(spec: Spec) -> None:
    _in_note(spec)
    _labels_changed(spec)


def _defect(name: str, base: str, what: str, breaks: Any, fix: Any, witness: Any) -> Defect:
    return Defect(CLASS, name, base, what, breaks=breaks, fix=fix, witness=witness, gate=GATE, code=CODE)


DEFECTS = [
    _defect("follow-up-label-in-sla-file", "example:report_from_files",
            "opens the follow-up ticket without the label the SLA file states for it (the check lost its labels "
            "condition)", _no_label_cond, _in_sla_file, _relabelled("")),
    *(_defect(f"mail-label-in-note-{seed}", f"synth:todo_track_mail_requests@{seed}",
              "labels the handled mails with another word than the one the conventions note gives (the checks read "
              "that the labels changed)", _note_labels_changed, _in_note, _relabelled("done"))
      for seed in (1, 2, 3, 4, 5)),
]
