"""The files a Claw-Eval task shows its agent with the prompt, as its runner loads them (import50).

Claw-Eval's loop (`runner/loop.py`, `_build_initial_user_content`; `runner/media_loader.py`) opens the episode with
one user message: `prompt.text`, then one block per file the task names, as its provider joins a text-only message
(`"\\n".join` of the blocks). The files are the prompt's own tokens (`[media attached: ./path (mime)]`,
`[image: source: /path]`, whose path must start with `/`, `./`, `../` or `~`), then `prompt.attachments`, each
path once, at most 6 of them (`MediaConfig.max_files`); each resolved against the directory the runner runs in (the
checkout's root) and, when no file is there, the task folder. Under the runner's default settings (media on, not
strict, a model whose `input_modalities` are `["text"]`):

- a text document (a MIME type `text/*`, `application/json` or `application/xml`, declared in the token or guessed
  from the name, `.md`, `.txt` and `.csv` always) is appended as `[attached document: NAME]` and its UTF-8 text
  (undecodable bytes replaced), stripped;
- an image, audio or video file is shown only to a model that takes it: the import leaves it out (the task needs a
  multimodal agent);
- a file that is absent, empty once stripped, over 8 MiB, of a type it cannot tell (`.yaml`, `.log`, no suffix) or
  of another type (`application/pdf`) is recorded as an error and dropped: the agent never sees it, whatever its
  model, and neither does the imported env's.

Where the import had put no document before, it left every task naming a file out as multimodal input, so a task with
tools whose prompt carries a text document was skipped (and one whose file Claw-Eval drops, a PDF, too).
"""

from __future__ import annotations

import mimetypes
import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Attachments", "attachments"]

# `[media attached: PATH]`, `[media attached 2/3: PATH (text/plain)]`; `[image: source: PATH]` and its audio/video kin
_ATTACHED_TOKEN = re.compile(r"\[media attached(?:\s+\d+/\d+)?:\s*([^\]]+)\]", re.IGNORECASE)
_SOURCE_TOKEN = re.compile(r"\[(?:image|audio|video):\s*source:\s*([^\]]+)\]", re.IGNORECASE)
_COUNT_ONLY = re.compile(r"^\d+\s+files?$", re.IGNORECASE)  # `[media attached: 3 files]` names none
_MIME_AT_END = re.compile(r"\(([^()]+/[^()]+)\)\s*$")
_PATH = re.compile(r"(?:file://)?(?:~|/|\./|\.\./)[^\s\])]+")
MAX_FILES = 6  # MediaConfig.max_files
MAX_BYTES = 8 * 1024 * 1024  # MediaConfig.max_bytes_per_file
_DOCUMENT_TYPES = ("application/json", "application/xml")
_BY_SUFFIX = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".md": "text/markdown", ".txt": "text/plain",
              ".csv": "text/csv"}


@dataclass
class Attachments:
    """What the agent's first message holds beyond `prompt.text`, and what becomes of each named file."""

    blocks: list[str] = field(default_factory=list)  # `[attached document: NAME]\nTEXT`, in order
    media: list[str] = field(default_factory=list)  # images, audio, video: shown only to a multimodal model
    unread: list[str] = field(default_factory=list)  # outside the checkout and the task folder: not read here
    dropped: list[str] = field(default_factory=list)  # Claw-Eval's runner drops them: NAME (why)

    def message(self, text: str) -> str:
        """The opening user message: the prompt, then each document, as the provider joins text blocks."""
        return "\n".join([text, *self.blocks])


def _token_ref(inner: str) -> tuple[str, str | None] | None:
    inner = inner.strip()
    if _COUNT_ONLY.match(inner):
        return None
    mime = _MIME_AT_END.search(inner)
    declared = mime.group(1).strip() if mime else None
    if mime:
        inner = inner[:mime.start()].strip()
    path = _PATH.search(inner)
    if path is None:
        return None
    raw = path.group(0).strip()
    return raw.removeprefix("file://"), declared


def _refs(text: str, named: list[str]) -> list[tuple[str, str | None]]:
    found = [ref for rx in (_ATTACHED_TOKEN, _SOURCE_TOKEN) for m in rx.finditer(text)
             if (ref := _token_ref(m.group(1))) is not None]
    found += [(name, None) for name in named]
    first: dict[str, tuple[str, str | None]] = {}
    for raw, mime in found:  # each path once, as first named
        first.setdefault(raw, (raw, mime))
    return list(first.values())


def _mime(path: Path, declared: str | None) -> str | None:
    """The token's MIME, else Python's guess from the name, as Claw-Eval's loader guesses it (`mimetypes` reads the
    machine's mime.types files: a `.log` may be text on one machine and of no type on another, there too)."""
    if declared:
        return declared
    return mimetypes.guess_type(path.name)[0] or _BY_SUFFIX.get(path.suffix.lower())


def _modality(mime: str) -> str | None:
    top = mime.split("/", 1)[0]
    if top in ("image", "audio", "video"):
        return "media"
    if top == "text" or mime in _DOCUMENT_TYPES:
        return "document"
    return None


def attachments(task_dir: Path, text: str, named: list[str]) -> Attachments:
    """The files the prompt `text` and `prompt.attachments` (`named`) name, as Claw-Eval's runner shows them to its
    default text-only model, read from the checkout `task_dir` sits in (`tasks/<ID>`) or the task folder."""
    out = Attachments()
    task_dir = task_dir.resolve()
    root = task_dir.parent.parent if task_dir.parent.name == "tasks" else None
    inside = [d for d in (root, task_dir) if d is not None]
    for i, (raw, declared) in enumerate(_refs(text, named)):
        if i >= MAX_FILES:
            out.dropped.append(f"{raw} (more than {MAX_FILES} files: the runner skips the rest)")
            continue
        path = Path(raw).expanduser()
        if path.is_absolute():
            resolved = path.resolve()
        else:
            first = (root / path).resolve() if root is not None else None
            resolved = first if first is not None and first.exists() else (task_dir / path).resolve()
        mime = _mime(resolved, declared)
        kind = _modality(mime) if mime else None
        if kind == "media":  # by its type, present or not: the task is made for a model that sees it
            out.media.append(raw)
            continue
        if not resolved.is_file():  # `fixtures/x.txt` in a token is the path `/x.txt` to it: mostly none
            out.dropped.append(f"{raw} (no such file)")
            continue
        if not any(resolved.is_relative_to(d) for d in inside):  # a file of this machine, not of the task
            out.unread.append(raw)
            continue
        if kind is None:
            out.dropped.append(f"{raw} ({'a type it cannot tell' if mime is None else mime}: not shown to a model)")
            continue
        payload = resolved.read_bytes()
        body = payload.decode("utf-8", errors="replace").strip()
        if not body:
            out.dropped.append(f"{raw} (empty)")
        elif len(payload) > MAX_BYTES:
            out.dropped.append(f"{raw} (over {MAX_BYTES} bytes)")
        else:
            out.blocks.append(f"[attached document: {resolved.name}]\n{body}")
    return out
