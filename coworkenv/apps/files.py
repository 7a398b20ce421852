"""Files: a virtual tree of text, CSV, JSON and Markdown documents."""

from __future__ import annotations

import csv
import io
from typing import Any, Literal

import orjson

from coworkenv.apps._common import clamp, dump, shape_many
from coworkenv.tools import ToolError, Toolkit, read, write
from coworkenv.world import AppDef, AppState, Order, Record, Words, prefix_range

FileKind = Literal["text", "csv", "json", "markdown"]
_KINDS: dict[str, FileKind] = {".csv": "csv", ".json": "json", ".md": "markdown", ".txt": "text", ".log": "text"}
MAX_FILE_CHARS = 200_000


class File(Record):
    """A document; its id is its path (e.g. `reports/q3.md`)."""

    kind: FileKind
    content: str
    owner: str = ""
    modified_at: str = ""


class FilesState(AppState):
    files: list[File] = []


def kind_of(path: str) -> FileKind:
    """The document kind implied by a path's extension."""
    dot = path.rfind(".")
    kind = _KINDS.get(path[dot:].lower()) if dot >= 0 else None
    if kind is None:
        raise ToolError(f"unsupported file type for {path!r}; use one of {', '.join(sorted(_KINDS))}")
    return kind


def validate_content(path: str, kind: FileKind, content: str) -> None:
    """Reject CSV or JSON documents that do not parse."""
    if len(content) > MAX_FILE_CHARS:
        raise ToolError(f"{path}: content over {MAX_FILE_CHARS} characters")
    if kind == "json":
        try:
            orjson.loads(content)
        except orjson.JSONDecodeError as exc:
            raise ToolError(f"{path}: not valid JSON ({exc})") from None
    elif kind == "csv":
        rows = list(csv.reader(io.StringIO(content)))
        widths = {len(r) for r in rows if r}
        if len(widths) > 1:
            raise ToolError(f"{path}: CSV rows have different numbers of columns {sorted(widths)}")


def _listed(f: File) -> dict[str, Any]:
    return {"path": f.id, "kind": f.kind, "size": len(f.content), "owner": f.owner}


def _found(f: File) -> dict[str, Any]:
    return {"path": f.id, "kind": f.kind}


class FilesTools(Toolkit):
    app = "files"

    @read
    def list_files(self, prefix: str = "", limit: int = 100) -> list[dict[str, Any]]:
        """List documents whose path starts with a prefix (a folder such as `reports/`).

        Args:
            prefix: Path prefix; empty lists everything.
            limit: Maximum number of entries.
        """
        rows = self.world.table("files", "files").select("path", between=prefix_range(prefix), limit=clamp(limit))
        return shape_many(rows, _listed)

    @read
    def read_file(self, path: str) -> dict[str, Any]:
        """Read a document.

        Args:
            path: Document path from list_files.
        """
        return {"path": path, **dump(self._file(path), "kind", "content", "owner", "modified_at")}

    @read
    def search_files(self, query: str, limit: int = 20) -> list[dict[str, str]]:
        """Find documents whose path or content contains all the words of a query.

        Args:
            query: Words to find.
            limit: Maximum number of documents.
        """
        table = self.world.table("files", "files")
        rows = table.select("path", words=("text", query), limit=clamp(limit))
        return shape_many(rows, _found)

    @write
    def write_file(self, path: str, content: str, overwrite: bool = False) -> dict[str, Any]:
        """Create a document, or replace one when overwrite is true. CSV and JSON must parse.

        Args:
            path: Document path, e.g. reports/summary.md (extension .md, .csv, .json, .txt).
            content: Full document text.
            overwrite: Replace an existing document.
        """
        if not path or path.startswith("/") or ".." in path.split("/"):
            raise ToolError(f"invalid path {path!r}; use a relative path such as reports/summary.md")
        kind = kind_of(path)
        if path in self.world.table("files", "files") and not overwrite:
            raise ToolError(f"{path} already exists; pass overwrite=true to replace it")
        validate_content(path, kind, content)
        record = File(id=path, kind=kind, content=content, owner=self.world.user or "", modified_at=self.world.now_iso)
        self.put("files", record)
        return {"path": path, "kind": kind, "size": len(content)}

    @write
    def delete_file(self, path: str) -> dict[str, str]:
        """Delete a document.

        Args:
            path: Document path.
        """
        self._file(path)
        self.world.table("files", "files").delete(path)
        return {"deleted": path}

    def _file(self, path: str) -> File:
        return self.require("files", path, "document", "use files_list_files to see paths")  # type: ignore[no-any-return]


APP = AppDef("files", FilesState, FilesTools, "a shared drive of text, CSV, JSON and Markdown documents", indexes={
    "files": {"text": Words(lambda f: (f.id, f.content)), "path": Order(lambda f: f.id)},
})
