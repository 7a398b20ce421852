"""The file an imported task's spec is written to, `<task_id>.json` in the output folder, and the task ids that
cannot name one.

A task id comes from the benchmark's `task.yaml`, written by hand. Joined to the output folder as it is, an id
holding a path (`ops/CE01`, `../../CE01`, `/tmp/CE01`) wrote the spec outside the folder (or failed for a folder
that is not there), an id beginning with a dot wrote a hidden file that every spec reader leaves out, an empty id
wrote `.json`, `import_report` was overwritten by the import's own report, a NUL ended the import in a traceback,
and a task folder copied to make a variant, its id left as it was, overwrote the first task's spec: two tasks
reported as imported, one spec on disk. `spec_file_problem` names what is wrong and what to do; the importer skips
such a task, saying so, and writes nothing for it.

An import into the folder of an earlier one left the specs of tasks it no longer imports (a task folder removed,
a task skipped now, a task_id renamed) beside its own: `rollout DIR` ran them, while the new report called them
skipped or did not list them. `remove_stale_specs` removes those the earlier report lists, and only those.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path
from typing import Any

import orjson

SPEC_SUFFIX = ".json"
REPORT_NAME = "import_report"  # the import's own report: import_report.json
IMPORTED_BY = "import:claw-eval"  # the `generator` in the metadata of every spec this importer writes
_BOM = b"\xef\xbb\xbf"
_NAME_MAX = 255  # bytes in one file name on Linux, macOS and Windows file systems


def spec_file_key(task_id: str) -> str:
    """The id as a case-insensitive file system (macOS, Windows) compares names: `CE01` and `ce01` are one file."""
    return unicodedata.normalize("NFC", task_id).casefold()


def spec_file_problem(task_id: str, folder: str, taken: dict[str, tuple[str, str]]) -> str | None:
    """Why `task_id` (of the task folder `folder`) cannot name its spec file beside the specs already written,
    `taken` (file key -> (task id, task folder)); None when it can."""
    where = f"{folder}/task.yaml: task_id {task_id!r}"
    advice = "give the task an id of its own that is a plain file name (letters, digits, '_', '-') in its task.yaml"
    if not task_id.strip():
        return f"{where} is empty; {advice}"
    if task_id != task_id.strip():
        return f"{where} begins or ends with a blank (the spec file would be named so); {advice}"
    if "/" in task_id or "\\" in task_id:
        return f"{where} holds a path separator: its spec would be written outside the output folder; {advice}"
    if task_id.startswith("."):
        return f"{where} begins with a dot: its spec file would be hidden, and readers leave hidden files out; {advice}"
    control = next((c for c in task_id if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")), None)
    if control is not None:
        return f"{where} holds the control character {control!r}; {advice}"
    if len((task_id + SPEC_SUFFIX).encode("utf-8", "surrogatepass")) > _NAME_MAX:
        return f"{where} is too long for a file name (at most {_NAME_MAX - len(SPEC_SUFFIX)} bytes); {advice}"
    if spec_file_key(task_id) == REPORT_NAME:
        return f"{where} is the name of the import's own report, {REPORT_NAME}{SPEC_SUFFIX}; {advice}"
    first = taken.get(spec_file_key(task_id))
    if first is not None:
        same = "the same id" if first[0] == task_id else \
            f"the id {first[0]!r} (one file name where letter case is not told apart)"
        return f"{where}: task folder {first[1]} has {same}, imported to {first[0]}{SPEC_SUFFIX}; {advice}"
    return None


def imported_spec(path: Path) -> bool:
    """Whether `path` is a spec this importer wrote (`"generator": "import:claw-eval"` in its metadata): a plain file,
    not a link, that reads as one."""
    try:
        if path.is_symlink() or not path.is_file():
            return False
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return False
    metadata = data.get("metadata") if isinstance(data, dict) else None
    return isinstance(metadata, dict) and metadata.get("generator") == IMPORTED_BY


def report_folder_problem(out: Path) -> str | None:
    """Why the import's report cannot be written into `out`, or None: its name is taken by a folder (the import
    would write every spec, then fail on the report)."""
    report = out / f"{REPORT_NAME}{SPEC_SUFFIX}"
    if report.is_dir():
        return (f"{report} is a folder, where the import writes its report; move it away (or import into another "
                "--out folder)")
    return None


def _report_problem(report: Path) -> tuple[list[Any] | None, str]:
    """The task entries of an earlier report, or None and what is wrong with it."""
    try:
        data = report.read_bytes()
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    if data.startswith(_BOM):  # saved by an editor that marks UTF-8 (Notepad)
        data = data[len(_BOM):]
    if not data.strip():
        return None, "is empty"
    try:
        loaded = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return None, f"is not JSON, cut short or edited ({exc})"
    if not isinstance(loaded, dict):
        return None, f"is not an import report (a JSON {type(loaded).__name__}, not an object)"
    tasks = loaded.get("tasks")
    if not isinstance(tasks, list):
        return None, f"is not an import report (its \"tasks\" are a JSON {type(tasks).__name__}, not a list)"
    return tasks, ""


def earlier_spec_files(out: Path, said: list[str] | None = None) -> set[str]:
    """The spec files the earlier import into `out` wrote, as its report lists them (none without a report).

    Only plain file names count: a report written before the names were checked may list `../x.json`. A report
    that is there but does not read (cut short, emptied, zeroed, edited into another shape, a link to a file gone)
    was taken as no report: the specs of tasks gone from the checkout stayed for `rollout` to run, and the new
    report no longer named them. Then the earlier import's specs are those in `out` this importer wrote (by their
    content), and `said` gets a line saying so."""
    report = out / f"{REPORT_NAME}{SPEC_SUFFIX}"
    if not os.path.lexists(report):
        return set()
    tasks, problem = _report_problem(report)
    if tasks is None:
        try:
            found = {p.name for p in out.glob(f"*{SPEC_SUFFIX}") if p.name != report.name and imported_spec(p)}
        except OSError:
            found = set()
        if said is not None:
            said.append(f"{report} {problem}: the earlier import's specs were found by their content "
                        f"(\"generator\": \"{IMPORTED_BY}\"), {len(found)} of them; this import writes a new report")
        return found
    named = {t.get("spec_file") for t in tasks if isinstance(t, dict)}
    return {n for n in named if isinstance(n, str) and n.endswith(SPEC_SUFFIX) and Path(n).name == n
            and not n.startswith(".") and n != f"{REPORT_NAME}{SPEC_SUFFIX}"}


def remove_stale_specs(out: Path, earlier: set[str], written: set[str], said: list[str] | None = None) -> list[str]:
    """Remove the specs of the earlier import that this one did not write (its task removed, skipped now, or renamed):
    left there, `rollout DIR` ran them while the report called them skipped or did not list them. Files the earlier
    report does not list (the user's own) are left alone, and so are listed files this importer did not write (a
    report edited by hand listing the user's spec or notes: main deleted them for good), `said` getting a line for
    each. Their names, removed, sorted."""
    removed = []
    for name in sorted(earlier - written):
        path = out / name
        if not path.is_file() or path.is_symlink():
            continue
        if not imported_spec(path):
            if said is not None:
                said.append(f"kept {name}: the earlier report lists it, but it is not a spec this importer wrote "
                            f"(no \"generator\": \"{IMPORTED_BY}\")")
            continue
        path.unlink()
        removed.append(name)
    return removed
