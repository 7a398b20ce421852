"""Claw-Eval's documents service: the PDFs its folder holds, served with their text, and its handler's own errors.

Claw-Eval's `mock_services/documents/server.py` parses the PDF a call names (`path`, under `DOCUMENTS_BASE_DIR`,
relative to the directory the runner runs in, the checkout's root; that directory itself unless set) with pypdf.
Before it reads anything it resolves the path (`_resolve_path`, links followed): a path that is not there is its 404
`File not found: PATH`, one there but outside the folder its 400 `Path escapes base directory: PATH`; then a file (or
folder) that is no `.pdf` is its 400 `Only PDF files are supported`; a PDF is answered `{"path", "page_count",
"pages_returned", "text"}`, the text of its first `max_pages` pages. The public checkout lacks the PDFs its two tasks
name (T097/T098: `sandbox_files`, in Claw-Eval's fixtures archive, not in the repository), so there every call of
the prompt's path is that 404, which their graders read (`tool_used`: a dispatch under 400). The import answers each
call so (`Framework.refusals`, in that order: what the folder holds, read at import) and serves each PDF the folder
holds (since import54; `Framework.documents`): its pages' text extracted at import with pypdf, the library the
service uses, and the handler's page limit applied per call. A link under the folder is what it resolves to: a PDF
(its `path` the target's), another file, a file outside the folder (escaping it) or nothing (not there). A path
outside the folder is there when the checkout holds it (any file or folder of it, a sibling task's, the services'
source: its 400, since import53), when it is a folder above the checkout's root, or when it is one of the few
absolute paths every Linux machine has (`Refusal.matches`); any other is answered as not there.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from coworkenv.bindings import ArgBinding
from coworkenv.importers.claw_eval_adapter import ServiceAdapter, ToolMap
from coworkenv.request_models import Document, Refusal

MAX_ENTRIES = 2000  # files and folders under the service's folder the spec names at most
MAX_TEXT = 5_000_000  # characters of PDF text the spec carries at most
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


def refusals(task_dir: Path, env: Mapping[str, str]) -> tuple[list[Refusal], list[Document]] | str:
    """The service's answers to every call this task's folder lets it make (see the module): its refusals, and the
    PDFs it serves with their text; or why the task cannot be imported."""
    found = _folder(task_dir, env.get("DOCUMENTS_BASE_DIR", ""))
    if isinstance(found, str):
        return found
    folder, relative = found
    entries = _entries(folder)
    if isinstance(entries, str):
        return f"the documents service's folder {relative} {entries}"
    base = folder.resolve() if folder.is_dir() else None
    # a link's path is what it resolves to, as the handler's `resolve()` reads it
    there: list[str] = []
    escaping: list[str] = []
    pdfs: dict[Path, list[str]] = {}
    for entry in entries:
        named = posixpath.normpath(posixpath.join(relative, entry.relative_to(folder).as_posix()))
        try:
            target = entry.resolve(strict=True)
        except (OSError, RuntimeError):  # a link to nothing (or a loop of links): not there, the 404
            continue
        if base is None or not target.is_relative_to(base):
            escaping.append(named)  # a link out of the folder: there, and escaping it
        elif target.suffix.lower() != ".pdf":
            there.append(named)
        elif not target.is_file():
            return f"the documents service's folder {relative} holds a folder named as a PDF ({named}), which pypdf " \
                   "fails to open there"
        else:
            pdfs.setdefault(target, []).append(named)
    documents = []
    for target, names in sorted(pdfs.items()):
        pages = _pages(target, names[0])
        if isinstance(pages, str):
            return pages
        documents.append(Document(names=sorted(names), shown=target.relative_to(folder.resolve()).as_posix(), pages=pages,
                                  folder=relative))
    if sum(len(p) for d in documents for p in d.pages) > MAX_TEXT:
        return f"the PDFs of the documents service's folder {relative} hold over {MAX_TEXT} characters of text"
    if folder.is_dir():
        there.append(relative)
    parts = relative.split("/") if relative != "." else []
    above = [posixpath.join(*parts[:i]) if i else "." for i in range(len(parts))]  # its folders in the checkout
    outside = _outside(task_dir.parent.parent, relative)
    if isinstance(outside, str):
        return outside
    return [Refusal(status=400, detail="Path escapes base directory: {path}", argument="path", folder=relative,
                    paths=above + outside + escaping, above=True),
            Refusal(status=400, detail="Only PDF files are supported", argument="path", folder=relative,
                    paths=there),
            Refusal(status=404, detail="File not found: {path}")], documents


def _entries(folder: Path) -> list[Path] | str:
    """Every file and folder under the service's folder, links followed as the handler's `resolve()` follows them
    (so a folder linked in is walked too); or why not: over `MAX_ENTRIES` of them (a loop of links ends there)."""
    if not folder.is_dir():
        return []
    found: list[Path] = []
    for at, folders, files in os.walk(folder, followlinks=True):
        found.extend(Path(at) / name for name in [*folders, *files])
        if len(found) > MAX_ENTRIES:
            return f"holds over {MAX_ENTRIES} files and folders"
    return sorted(found)


def _pages(path: Path, named: str) -> list[str] | str:
    """Each page's text as the handler's pypdf extracts it (`page.extract_text() or ""`), or why it cannot be read:
    pypdf is not installed, or fails on the file (the handler's 500 there: the task is left out, saying so)."""
    try:
        from pypdf import PdfReader
    except ImportError:
        return f"PDF text extraction: {named} is a PDF whose text Claw-Eval's documents service extracts with pypdf, " \
               "which is not installed here (pip install pypdf)"
    try:
        return [page.extract_text() or "" for page in PdfReader(str(path)).pages]
    except Exception as exc:
        return f"PDF text extraction: pypdf cannot read {named} ({type(exc).__name__}: {exc}), so Claw-Eval's " \
               "documents service fails on it (a 500)"


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
            # the folder and its folders: answered before; a link to nothing is not there (the handler's 404)
            if named != relative and named not in above and os.path.exists(os.path.join(folder, name)):
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
