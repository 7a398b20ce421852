"""Claw-Eval's documents service, where the task folder holds no PDF: every extraction is the handler's own error.

Claw-Eval's `mock_services/documents/server.py` parses the PDF a call names (`path`, under `DOCUMENTS_BASE_DIR`,
relative to the directory the runner runs in, the checkout's root; that directory itself unless set) with pypdf.
Before it reads anything it resolves the path (`_resolve_path`): a path that is not there is its 404 `File not
found: PATH`, one there but outside the folder its 400 `Path escapes base directory: PATH`; then a file (or folder)
that is no `.pdf` is its 400 `Only PDF files are supported`. The public checkout lacks the PDFs its two tasks name
(T097/T098: `sandbox_files`, not in the repository), so there every call of the prompt's path is that 404, which
their graders read (`tool_used`: a dispatch under 400). The import answers each call so (`Framework.refusals`, in
that order: what the folder holds, read at import) and offers no text: a folder that holds a PDF leaves the task
out, as coworkenv reads no PDF. A path outside the folder is there when the checkout holds it (any file or folder of
it, a sibling task's, the services' source: its 400, since import53), when it is a folder above the checkout's root,
or when it is one of the few absolute paths every Linux machine has (`Refusal.matches`); any other is answered as not
there.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from coworkenv.bindings import ArgBinding
from coworkenv.importers.claw_eval_adapter import ServiceAdapter, ToolMap
from coworkenv.request_models import Refusal

MAX_ENTRIES = 2000  # files and folders under the service's folder the spec names at most
MAX_OUTSIDE = 20000  # files and folders of the checkout outside it the spec names at most (the public one: ~1,950)


def _no_records(data: Any) -> dict[str, list[dict[str, Any]]]:
    del data
    return {}


def _no_fixture(task_dir: Path, env: Mapping[str, str]) -> list[tuple[Path, Any]]:
    del task_dir, env  # the service loads nothing as it starts: it reads the file each call names
    return []


def _folder(task_dir: Path, named: str) -> tuple[Path, str] | str:
    """The service's folder and its path from the checkout's root: `DOCUMENTS_BASE_DIR` from the checkout's root
    (the task folder's own name, if the task folder was renamed), else the root itself."""
    root = task_dir.parent.parent
    if not named or named == ".":
        return root, "."
    if Path(named).is_absolute():
        return f"DOCUMENTS_BASE_DIR is an absolute path ({named}): a folder of the machine Claw-Eval runs on, not of " \
               "the checkout"
    relative = posixpath.normpath(named.replace("\\", "/"))
    if relative == ".." or relative.startswith("../"):
        return f"DOCUMENTS_BASE_DIR ({named}) is outside the checkout"
    folder = root / relative
    if not folder.is_dir() and relative.startswith("tasks/") and relative.split("/")[1] != task_dir.name:
        folder, relative = task_dir, posixpath.join("tasks", task_dir.name)  # the task folder, renamed
    return folder, relative


def refusals(task_dir: Path, env: Mapping[str, str]) -> list[Refusal] | str:
    """The service's answers to every call this task's folder lets it make (see the module), or why the task cannot
    be imported: a PDF under the folder (its text is what the call answers; coworkenv reads no PDF)."""
    found = _folder(task_dir, env.get("DOCUMENTS_BASE_DIR", ""))
    if isinstance(found, str):
        return found
    folder, relative = found
    entries = sorted(folder.rglob("*")) if folder.is_dir() else []
    pdfs = [p for p in entries if p.suffix.lower() == ".pdf"]
    if pdfs:
        named = ", ".join(p.relative_to(folder).as_posix() for p in pdfs[:5])
        return (f"PDF text extraction: the service's folder {relative} holds {named}, whose text Claw-Eval's documents "
                "service extracts with pypdf; coworkenv reads no PDF")
    if len(entries) > MAX_ENTRIES:
        return f"the documents service's folder {relative} holds {len(entries)} files and folders, over {MAX_ENTRIES}"
    there = [posixpath.normpath(posixpath.join(relative, p.relative_to(folder).as_posix())) for p in entries]
    if folder.is_dir():
        there.append(relative)
    parts = relative.split("/") if relative != "." else []
    above = [posixpath.join(*parts[:i]) if i else "." for i in range(len(parts))]  # its folders in the checkout
    outside = _outside(task_dir.parent.parent, relative)
    if isinstance(outside, str):
        return outside
    return [Refusal(status=400, detail="Path escapes base directory: {path}", argument="path", folder=relative,
                    paths=above + outside, above=True),
            Refusal(status=400, detail="Only PDF files are supported", argument="path", folder=relative, paths=there),
            Refusal(status=404, detail="File not found: {path}")]


def _outside(root: Path, relative: str) -> list[str] | str:
    """Every file and folder of the checkout outside the service's folder (from the checkout's root; what a `.git`
    folder holds left out, and not walked), which the handler finds there and refuses as escaping it; or why the task
    cannot be imported: more than `MAX_OUTSIDE` of them."""
    if relative == ".":
        return []  # the whole checkout is the folder
    above = {posixpath.join(*relative.split("/")[:i]) for i in range(1, relative.count("/") + 1)}
    found = []
    for folder, folders, files in os.walk(root):
        at = Path(folder).relative_to(root).as_posix()
        for name in sorted([*folders, *files]):
            named = posixpath.join(at, name) if at != "." else name
            if named != relative and named not in above:  # the folder and its folders: answered before
                found.append(named)
        folders[:] = [f for f in folders if f != ".git" and (posixpath.join(at, f) if at != "." else f) != relative]
        if len(found) > MAX_OUTSIDE:
            return (f"the checkout holds over {MAX_OUTSIDE} files and folders outside the documents service's folder "
                    f"{relative}, each a path the service refuses as escaping it")
    return sorted(found)


# Run by the command's service folder (`mock_services/documents/server.py`), under whatever name the task gives it.
DOCUMENTS = ServiceAdapter("documents", "files", "DOCUMENTS_BASE_DIR", _no_records, {
    # (the op names the app; never run: every call is refused)
    "documents_extract_text": ToolMap("files_read_file", {"path": ArgBinding(to=None),
                                                          "max_pages": ArgBinding(to=None)}),
}, read_fixture=_no_fixture, refusals=refusals)
