"""Fault corpus, a checkpoint's subfolders: transformers reads `additional_chat_templates/*.jinja` beside
`chat_template.jinja` and renders every request that carries tools with `tool_use.jinja`. The record of a
checkpoint's files (`checkpoint_files.json`) hashed its subfolders' files, yet looked for files put beside the save at
the top level only, and the loaders compared the top-level files' versions after loading: a template put into the
subfolder after the save, or one replaced while transformers read the folder, was loaded without a word (evaluation,
the local backend, the untrained twin), and the model was asked in another template than the one it was trained with.
A file of a loaded kind anywhere in the folder that the save did not record is now refused, and every file's version,
subfolders included, is compared after loading. Regression guard: a note in a subfolder loads."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("transformers")

from coworkenv.checkpoint_manifest import write_checkpoint_manifest
from tests.faults.test_faults_checkpoint_manifest import save_tiny_checkpoint
from trainers import local_backend
from trainers.local_backend import load_checkpoint, untrained_twin

TEMPLATE = "additional_chat_templates/tool_use.jinja"
LOADERS: dict[str, Callable[[Path], Any]] = {"load_checkpoint": load_checkpoint, "untrained_twin": untrained_twin}


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_checkpoint(tmp_path_factory.mktemp("saved") / "ckpt")


def _copy(saved: Path, tmp_path: Path, *, with_template: bool = False) -> Path:
    folder = shutil.copytree(saved, tmp_path / "ckpt")
    if with_template:  # saved with a second template (as a tokenizer whose chat_template is a dict saves it)
        (folder / TEMPLATE).parent.mkdir()
        (folder / TEMPLATE).write_text("{{ 'trained tool template' }}")
        write_checkpoint_manifest(folder)
    return folder


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_a_template_put_into_a_subfolder_after_the_save_is_refused(saved: Path, tmp_path: Path, loader: str) -> None:
    folder = _copy(saved, tmp_path)
    (folder / TEMPLATE).parent.mkdir()
    (folder / TEMPLATE).write_text("{{ 'another tool template' }}")  # on main: every request with tools used it
    with pytest.raises(ValueError) as refused:
        LOADERS[loader](folder)
    assert f"{folder / TEMPLATE} was not part of this checkpoint" in str(refused.value)


@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_a_subfolder_template_replaced_while_transformers_reads_is_refused(
        saved: Path, tmp_path: Path, loader: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _copy(saved, tmp_path, with_template=True)
    real = local_backend.AutoTokenizer.from_pretrained

    def replaced_first(name: str, *args: Any, **kwargs: Any) -> Any:  # another process renames its copy in place
        (folder / "new.jinja").write_text("{{ 'another tool template' }}")
        os.replace(folder / "new.jinja", folder / TEMPLATE)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(local_backend.AutoTokenizer, "from_pretrained", replaced_first)
    with pytest.raises(ValueError, match="changed while the checkpoint loaded") as refused:
        LOADERS[loader](folder)
    assert str(folder / TEMPLATE) in str(refused.value)


def test_guard_a_recorded_template_and_a_note_in_a_subfolder_load(saved: Path, tmp_path: Path) -> None:
    """Regression guard (held on main): a template the save recorded loads (as transformers reads it), and so does
    a note put in a subfolder after it."""
    folder = _copy(saved, tmp_path, with_template=True)
    (folder / "eval").mkdir()
    (folder / "eval" / "notes.md").write_text("held-out pass@1 0.3")
    _model, tokenizer = load_checkpoint(folder)
    assert isinstance(tokenizer.chat_template, dict) and "tool_use" in tokenizer.chat_template
