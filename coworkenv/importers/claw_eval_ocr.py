"""Claw-Eval's OCR service as a text the files app holds.

Claw-Eval's mock OCR service (`mock_services/ocr/server.py`) reads no image: it loads text files of the task's
fixtures as it starts and answers every `/ocr/extract` call with that text, whatever `image_path` it is given
(`{"text", "confidence": 0.95, "language": "mixed"}`). The import holds the text as one document of the files app
and binds the tool to a read of it, `image_path` accepted and ignored as there. Tasks run the service under a name
of their own (`ocr_t50`, `ocr_paper`...), so it is found by the service folder its command runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from coworkenv.bindings import ArgBinding, ResultShape
from coworkenv.importers.claw_eval_adapter import ServiceAdapter, ToolMap
from coworkenv.importers.claw_eval_start import services_root

OCR_DOCUMENT = "ocr/extracted.txt"  # the one document the files app holds: the text every extraction answers
_DEFAULT = ("tasks", "T072_restaurant_menu_contact", "fixtures", "ocr", "menu_ocr.txt")  # the service's fallback


def _folder(task_dir: Path, named: str) -> Path:
    """The fixtures folder `OCR_FIXTURES` names, relative to the checkout's root, where the runner starts the
    service when the checkout holds the services' source (a folder from the task folder is not there: the service
    answers with its default); else, a lone task folder, also from the task folder (it may have been renamed)."""
    if services_root(task_dir) is not None:
        return task_dir.parent.parent / named
    candidates = [task_dir.parent.parent / named, task_dir / named.split(f"{task_dir.name}/", 1)[-1]]
    if named.rstrip("/").endswith("fixtures"):
        candidates.append(task_dir / "fixtures")
    return next((c for c in candidates if c.is_dir()), candidates[0])


def read_ocr_fixture(task_dir: Path, env: Mapping[str, str]) -> list[tuple[Path, Any]]:
    """The text the service answers with, as it loads it: the files `OCR_FILENAMES` names (comma-separated) under
    `$OCR_FIXTURES/ocr/`, each headed `--- Document i: name ---` and joined by a blank line; else the file
    `OCR_FILENAME` names (`menu_ocr.txt` unless set); else its default, T072's menu; else no text."""
    folder = env.get("OCR_FIXTURES", "")
    if folder:
        base = _folder(task_dir, folder) / "ocr"
        names = [n.strip() for n in env.get("OCR_FILENAMES", "").split(",")] if env.get("OCR_FILENAMES") else []
        parts = [(base / name, f"--- Document {i}: {name} ---\n" + (base / name).read_text(encoding="utf-8"))
                 for i, name in enumerate(names, 1) if (base / name).is_file()]
        if parts:
            return [(parts[0][0], {"text": "\n\n".join(text for _, text in parts)})]
        single = base / env.get("OCR_FILENAME", "menu_ocr.txt")
        if single.is_file():
            return [(single, {"text": single.read_text(encoding="utf-8")})]
    default = task_dir.parent.parent.joinpath(*_DEFAULT)
    if default.is_file():
        return [(default, {"text": default.read_text(encoding="utf-8")})]
    return [(task_dir / "fixtures" / "ocr", {"text": ""})]


def _ocr_records(data: Any) -> dict[str, list[dict[str, Any]]]:
    return {"files": [{"id": OCR_DOCUMENT, "kind": "text", "content": str(data.get("text", ""))}]}


# Run by the command's service folder (`mock_services/ocr/server.py`), under whatever name the task gives it.
BY_COMMAND = {"ocr": ServiceAdapter("ocr", "files", "OCR_FIXTURES", _ocr_records, {
    "ocr_extract_text": ToolMap("files_read_file", {"image_path": ArgBinding(to=None)},
                                defaults={"path": OCR_DOCUMENT},
                                result=ResultShape(fields={"text": "content"},
                                                   const={"confidence": 0.95, "language": "mixed"})),
}, read_fixture=read_ocr_fixture)}
