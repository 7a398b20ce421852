"""Fault corpus, a checkpoint told apart by what is not its content: the LLM response cache keyed a local checkpoint
(`--llm vllm-offline --model ckpt --cache-dir ...`) by its files' sizes and modification times, so a checkpoint
unpacked from an archive with fixed times (`tar --mtime`, `SOURCE_DATE_EPOCH`, a container layer) or restored with its
times (`cp -p`, `rsync -a`), trained again to the same shapes, was answered with the earlier weights' cached answers;
only the folder's top level was looked at, so a chat template added in `additional_chat_templates/` (transformers
reads it, and renders every request with tools by its `tool_use.jinja`) was too. The checkpoint's record
(`checkpoint_files.json`) was checked at the top level only for files put beside, and the vLLM backend checked the
files, then let vLLM open them again: a file replaced in between, or the checkpoint trained again between the backend's
start (when the cache key is taken) and its first request, was loaded, and its answers stored under the earlier key.

Now the cache key is a digest of the bytes of every file loading reads, subfolders included
(`checkpoint_manifest.loaded_files_digest`); a file of a loaded kind in a subfolder that the save did not record is
refused; the vLLM backend takes the files' versions before its check and compares them once vLLM has read them, and
refuses a checkpoint that no longer hashes as when its cache key was taken. Regression guards: a note in a subfolder,
an untouched checkpoint, a checkpoint without a record (saved before records, or from the Hub) load as before.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import tarfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from coworkenv.checkpoint_manifest import write_checkpoint_manifest
from coworkenv.llm import LLMError, LLMRequest, LLMResponse, VLLMOfflineBackend
from tests.faults.test_faults_llm_cache_identity import fake_vllm_module

REQUEST = LLMRequest(messages=[{"role": "user", "content": "say who you are"}])
TEMPLATES = "additional_chat_templates"


class _Engine:
    """A vllm.LLM stand-in that answers with what the checkpoint's files say: the weights' text and every chat template
    (what a model loaded from them would answer)."""

    def __init__(self, model: str, **_kwargs: Any) -> None:
        self.folder = Path(model)
        _during_load(self.folder)

    def chat(self, conversations: list[Any], sampling_params: list[Any], tools: Any, use_tqdm: bool) -> list[Any]:
        said = " | ".join(path.read_text() for path in sorted(self.folder.rglob("*"))
                          if path.suffix in (".safetensors", ".jinja"))
        completion = types.SimpleNamespace(text=said, token_ids=[1], finish_reason="stop")
        return [types.SimpleNamespace(outputs=[completion], prompt_token_ids=[0]) for _ in conversations]


_HOOK: list[Callable[[Path], None]] = []


def _during_load(folder: Path) -> None:
    """What another process does while vLLM reads the files (set by a case)."""
    for hook in _HOOK:
        hook(folder)


@pytest.fixture(autouse=True)
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> None:
    module = fake_vllm_module()
    module.LLM = _Engine  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", module)
    _HOOK.clear()


def _checkpoint(folder: Path, said: str, *, record: bool = True) -> Path:
    """A checkpoint whose weights say `said` (as a training leaves it: its files recorded)."""
    if folder.exists():
        shutil.rmtree(folder)
    (folder / TEMPLATES).mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "qwen2", "hidden_size": 32}))
    (folder / "model.safetensors").write_text(said)
    (folder / TEMPLATES / "rag.jinja").write_text("rag template one")
    if record:
        write_checkpoint_manifest(folder)
    return folder


def _ask(folder: Path, cache: Path) -> LLMResponse | LLMError:
    (result,) = VLLMOfflineBackend(str(folder), cache_dir=cache).complete_batch([REQUEST])
    return result


def _times_kept(change: Callable[[Path], None]) -> Callable[[Path], None]:
    """`change`, then every file's times set back as they were (`cp -p`, `rsync -a`, `touch -r`)."""
    def changed(folder: Path) -> None:
        times = {path: (path.stat().st_atime_ns, path.stat().st_mtime_ns) for path in folder.rglob("*")}
        change(folder)
        for path, (atime, mtime) in times.items():
            if path.exists():
                os.utime(path, ns=(atime, mtime))
    return changed


def _unpack_with_fixed_times(trained: Path, folder: Path) -> Path:
    """The checkpoint `trained`, packed with fixed times (`tar --mtime=@0`) and unpacked over `folder`."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for path in sorted(trained.rglob("*")):
            info = tar.gettarinfo(str(path), path.relative_to(trained).as_posix())
            info.mtime = 0
            with path.open("rb") if path.is_file() else io.BytesIO() as data:
                tar.addfile(info, data if path.is_file() else None)
    shutil.rmtree(folder, ignore_errors=True)
    buffer.seek(0)
    with tarfile.open(fileobj=buffer) as tar:
        tar.extractall(folder, filter="tar")
    return folder


def _rewrite(name: str, text: str) -> Callable[[Path], None]:
    return lambda folder: (folder / name).write_text(text)


# a checkpoint changed after its answers were cached, keeping its sizes (and times, where named): (whether its files
# are recorded, the change, what the engine says after it). Without a record: saved before records, or from the Hub.
CHANGES: dict[str, tuple[bool, Callable[[Path], None], str]] = {
    "weights trained again to the same size, times kept": (True, _times_kept(
        lambda f: (_rewrite("model.safetensors", "later model")(f), write_checkpoint_manifest(f))), "later model"),
    "weights edited in place, times kept (no record)": (False, _times_kept(_rewrite("model.safetensors", "first Model")),
                                                        "first Model"),
    "a template added in additional_chat_templates/ (no record)": (
        False, _rewrite(f"{TEMPLATES}/tool_use.jinja", "tool template"), "tool template"),
    "a template in additional_chat_templates/ edited (no record)": (
        False, _rewrite(f"{TEMPLATES}/rag.jinja", "rag template two"), "rag template two"),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_checkpoint_changed_under_its_sizes_and_times_is_asked_again(tmp_path: Path, change: str) -> None:
    record, how, says = CHANGES[change]
    ckpt = _checkpoint(tmp_path / "ckpt", "first model", record=record)
    first = _ask(ckpt, tmp_path / "cache")
    assert isinstance(first, LLMResponse) and "first model" in first.content and not first.cached
    how(ckpt)
    again = _ask(ckpt, tmp_path / "cache")
    assert isinstance(again, LLMResponse), again
    assert (says in again.content, again.cached) == (True, False), again


def test_the_next_checkpoint_unpacked_from_an_archive_with_fixed_times_is_asked(tmp_path: Path) -> None:
    """Both trainings' checkpoints packed with fixed times (a reproducible archive, a container layer): same shapes,
    same sizes, same times."""
    ckpt = _unpack_with_fixed_times(_checkpoint(tmp_path / "first", "first model"), tmp_path / "ckpt")
    first = _ask(ckpt, tmp_path / "cache")
    assert isinstance(first, LLMResponse) and "first model" in first.content
    _unpack_with_fixed_times(_checkpoint(tmp_path / "later", "later model"), ckpt)
    again = _ask(ckpt, tmp_path / "cache")
    assert isinstance(again, LLMResponse) and (again.content, again.cached) == ("rag template one | later model", False)


def test_guard_a_note_in_a_subfolder_is_answered_from_the_cache(tmp_path: Path) -> None:
    """Regression guard (held on main): notes and plots beside the model, in a subfolder too, are the same model."""
    ckpt = _checkpoint(tmp_path / "ckpt", "first model")
    assert not _ask(ckpt, tmp_path / "cache").cached  # type: ignore[union-attr]
    (ckpt / "notes").mkdir()
    (ckpt / "notes" / "README.md").write_text("how it was trained")
    again = _ask(ckpt, tmp_path / "cache")
    assert isinstance(again, LLMResponse) and again.cached and "first model" in again.content


# --- the record's check, in subfolders; files replaced while vLLM reads them ----------------------------------------


def test_a_template_put_in_a_subfolder_of_a_recorded_checkpoint_is_refused(tmp_path: Path) -> None:
    ckpt = _checkpoint(tmp_path / "ckpt", "first model")
    (ckpt / TEMPLATES / "tool_use.jinja").write_text("tool template")  # every request with tools renders with it
    result = _ask(ckpt, tmp_path / "cache")
    assert isinstance(result, LLMError), result
    assert f"{ckpt / TEMPLATES / 'tool_use.jinja'} was not part of this checkpoint" in result.message


def _replace(name: str, text: str) -> Callable[[Path], None]:
    """Another process puts a new file in place by a rename (as a copy or a save does)."""
    def replace(folder: Path) -> None:
        new = folder / f".{Path(name).name}.new"
        new.write_text(text)
        os.replace(new, folder / name)
    return replace


REPLACED = {
    "the weights": _replace("model.safetensors", "other model"),
    "config.json": _replace("config.json", json.dumps({"model_type": "qwen2", "hidden_size": 64})),
    "a template in a subfolder": _replace(f"{TEMPLATES}/rag.jinja", "rag template two"),
}


@pytest.mark.parametrize("replaced", sorted(REPLACED))
def test_a_file_replaced_while_vllm_reads_the_checkpoint_is_refused(tmp_path: Path, replaced: str) -> None:
    ckpt = _checkpoint(tmp_path / "ckpt", "first model")
    _HOOK.append(REPLACED[replaced])
    result = _ask(ckpt, tmp_path / "cache")
    assert isinstance(result, LLMError), result
    assert "changed while the checkpoint loaded" in result.message
    assert not list((tmp_path / "cache").rglob("*.json"))  # no answer of the unchecked files was cached


def test_a_checkpoint_trained_again_after_the_backend_started_is_refused(tmp_path: Path) -> None:
    """The cache key is taken when the backend is made; vLLM loads at the first request. On main the second model's
    answer was stored under the first model's key: once the first checkpoint was put back (its `.previous` restored,
    a copy), a new backend was answered from the cache with the second model's words."""
    ckpt = _checkpoint(tmp_path / "ckpt", "first model")
    kept = shutil.copytree(ckpt, tmp_path / "kept")
    backend = VLLMOfflineBackend(str(ckpt), cache_dir=tmp_path / "cache")
    _checkpoint(ckpt, "later model")
    (result,) = backend.complete_batch([REQUEST])
    assert isinstance(result, LLMError) and "changed since this backend was started" in result.message, result
    shutil.rmtree(ckpt)
    shutil.copytree(kept, ckpt)
    again = _ask(ckpt, tmp_path / "cache")
    assert isinstance(again, LLMResponse) and "first model" in again.content, again


def test_guard_a_checkpoint_without_a_record_loads_as_before(tmp_path: Path) -> None:
    """Regression guard (held on main): a checkpoint saved before records, or a model from the Hub, has no
    `checkpoint_files.json`; it loads, a template in a subfolder included, and is answered from the cache after."""
    ckpt = _checkpoint(tmp_path / "ckpt", "first model", record=False)
    (ckpt / TEMPLATES / "tool_use.jinja").write_text("tool template")
    first = _ask(ckpt, tmp_path / "cache")
    assert isinstance(first, LLMResponse) and "tool template" in first.content, first
    again = _ask(ckpt, tmp_path / "cache")
    assert isinstance(again, LLMResponse) and again.cached
