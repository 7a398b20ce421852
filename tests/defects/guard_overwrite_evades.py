"""Guard that an overwrite evades: a forbidden guard stops the deletion of a record the task only reads or leaves
alone (the source document, the note listing the pages), though the agent is given the app's tool that rewrites it
in place (`files_write_file` with `overwrite: true`, `notes_update_note` with a new body), which loses its content
all the same and matches no guard. The sound twin forbids that rewrite too."""

from __future__ import annotations

from tests.defects._core import CorpusError, Defect, Spec, calls, untouched_id
from tests.defects.guard_deletion_evades import _guards

CLASS = "guard_overwrite_evades"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "for a forbidden guard on deleting one record, call the app's exposed tool that rewrites that record in place "
    "(a document overwritten, a note's body replaced); where no forbidden guard matches it, the content is lost unseen"
)


def _kept_record(spec: Spec, read: str, arg: str, write: str, app: str, table: str) -> str:
    """The first record the reference reads with `read` and never writes with `write`, else one no check and no
    reference step names (a bystander on the drive)."""
    written = {c["arguments"].get(arg) for _, _, c in calls(spec, write)}
    for _, _, c in calls(spec, read):
        if c["arguments"][arg] not in written:
            return str(c["arguments"][arg])
    return untouched_id(spec, app, table)


def _kept(read: str, arg: str, delete: str, rewrite: str, twin: bool):  # type: ignore[no-untyped-def]
    """A guard that the record the task reads (or leaves alone) is not deleted, and in the `twin` not rewritten by
    `rewrite` either."""

    def edit(spec: Spec) -> None:
        for tool in (delete, rewrite):
            if tool not in spec["tools"]:
                raise CorpusError(f"{spec['capability']}: the agent is not given {tool}")
        app = delete.split("_")[0]  # files.files, notes.notes
        rid = _kept_record(spec, read, arg, rewrite, app, app)
        guarded = [(delete, {arg: rid})] + ([(rewrite, {arg: rid})] if twin else [])
        spec["checks"] += _guards(guarded, f"{rid} is kept")
    return edit


_FILE = ("files_read_file", "path", "files_delete_file", "files_write_file")
_NOTE = ("notes_read_note", "note_id", "notes_delete_note", "notes_update_note")
_AWAY = {_FILE: "overwrites the document it must not delete (files_write_file with overwrite: true): the guard "
               "forbids only deleting it",
         _NOTE: "replaces the body of the note it must not delete (notes_update_note): the guard forbids only "
               "deleting it"}


def _pair(name: str, base: str, tools: tuple[str, str, str, str]) -> Defect:
    return Defect(CLASS, name, base, _AWAY[tools], breaks=_kept(*tools, False), fix=_kept(*tools, True),
                  gate="mutations", code="guard_bypassed")


DEFECTS = [
    _pair("source-data-overwritten", "synth:report_from_data@1", _FILE),
    _pair("source-data-overwritten-2", "synth:report_from_data@2", _FILE),
    _pair("roster-source-overwritten", "synth:correct_bad_data@1", _FILE),
    _pair("roster-source-overwritten-2", "synth:correct_bad_data@2", _FILE),
    _pair("source-data-overwritten-3", "synth:report_from_data@3", _FILE),
    _pair("answer-source-overwritten", "synth:lookup_answer_source@1", _FILE),
    _pair("policy-overwritten", "synth:refuse_forbidden_action@1", _FILE),
    _pair("fact-source-overwritten", "synth:inbox_triage_reply@1", _FILE),
    _pair("url-note-emptied", "synth:web_page_audit@1", _NOTE),
    _pair("url-note-emptied-2", "synth:web_page_audit@2", _NOTE),
    _pair("url-note-emptied-3", "synth:web_page_audit@3", _NOTE),
]
