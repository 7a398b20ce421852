"""Fault corpus, an LLM response cache that cannot be written: `validate --cache-dir` on a read-only disk (a team's
shared cache mounted read-only), on a full disk or past a quota, in another user's folder; `--cache-dir` naming a
file or a folder under a file; the vLLM offline backend's cache on a full disk.

On main the error of the cache write came out of the request that had just been answered: the answer was lost, and
with it the run: `validate` exited 1 ("Read-only file system (OSError)") before writing any table, all repairs paid
for gone; a `--cache-dir` naming a file did the same after the first answer, each lookup warning of an "unreadable
LLM cache entry" that could not exist. Now the answer is kept, the cache is said once to be unwritable (and left
unwritten for the rest of the run), and a `--cache-dir` that cannot be a folder is refused before any work
(`coworkenv/llm/_cache.py: ResponseCache.put`, `coworkenv/cli/validate.py: check_cache_dir`). Regression guard: a
read-only cache that holds the answers still serves them.
"""

from __future__ import annotations

import errno
import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import coworkenv.llm._cache
from coworkenv.cli import app
from coworkenv.llm import LLMRequest, LLMResponse, VLLMOfflineBackend
from tests.faults.harness import refused
from tests.support.fake_openai_server import FakeOpenAIServer
from tests.test_validate_cli import repairing_model, write_specs

ERRORS = {"read-only disk": errno.EROFS, "full disk": errno.ENOSPC, "quota exceeded": errno.EDQUOT,
          "another user's folder": errno.EACCES}


def _unwritable(monkeypatch: pytest.MonkeyPatch, code: int) -> list[Path]:
    tried: list[Path] = []

    def refuse(final: Path, data: bytes) -> None:
        tried.append(final)
        raise OSError(code, f"cannot write {final}: {errno.errorcode[code]}")

    monkeypatch.setattr(coworkenv.llm._cache, "atomic_write_bytes", refuse)
    return tried


def _validate(tmp_path: Path, url: str, *more: str) -> Any:
    return CliRunner().invoke(app, ["validate", str(tmp_path / "specs"), "--out", str(tmp_path / "out"), "--llm", url,
                                    "--model", "fake", "--rounds", "1", "--json", *more])


@pytest.mark.parametrize("fault", sorted(ERRORS))
def test_validate_keeps_the_answers_when_the_cache_cannot_be_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, fault: str) -> None:
    write_specs(tmp_path / "specs")
    tried = _unwritable(monkeypatch, ERRORS[fault])
    with FakeOpenAIServer(responder=repairing_model) as server:
        result = _validate(tmp_path, server.url)
    assert result.exit_code == 0, result.output
    funnel = json.loads(result.stdout)
    assert funnel["accepted"] == 4 and funnel["repair_rounds"] == {"0": 2, "1": 2}, funnel
    assert (tmp_path / "out" / "accepted.parquet").is_file()
    said = [r.getMessage() for r in caplog.records if "cannot write the LLM response cache" in r.getMessage()]
    assert len(said) == 1 and str(tmp_path / "out" / "llm-cache") in said[0], said
    assert len(tried) == 1  # said once, then left unwritten


@pytest.mark.parametrize("where", ["a file", "a folder under a file"])
def test_a_cache_dir_that_cannot_be_a_folder_is_refused_before_any_request(tmp_path: Path, where: str) -> None:
    write_specs(tmp_path / "specs")
    (tmp_path / "notes.txt").write_text("my notes")
    cache = tmp_path / "notes.txt" if where == "a file" else tmp_path / "notes.txt" / "cache"
    with FakeOpenAIServer(responder=repairing_model) as server:
        refused(["validate", str(tmp_path / "specs"), "--out", str(tmp_path / "out"), "--llm", server.url,
                 "--model", "fake", "--cache-dir", str(cache)], f"--cache-dir {cache}", "is a file, not a folder")
        assert server.stats()["requests"] == 0
    assert (tmp_path / "notes.txt").read_text() == "my notes"


class _Engine:
    def chat(self, conversations: list[Any], sampling_params: list[Any], tools: Any, use_tqdm: bool) -> list[Any]:
        completion = types.SimpleNamespace(text="an answer", token_ids=[1, 2], finish_reason="stop")
        return [types.SimpleNamespace(outputs=[completion], prompt_token_ids=[0]) for _ in conversations]


def test_the_offline_backend_keeps_its_answers_when_the_cache_disk_is_full(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("vllm")
    module.SamplingParams = lambda **kw: kw  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", module)
    _unwritable(monkeypatch, errno.ENOSPC)
    backend = VLLMOfflineBackend("/models/qwen", llm=_Engine(), cache_dir=tmp_path / "cache")
    results = backend.complete_batch([LLMRequest(messages=[{"role": "user", "content": f"q{i}"}]) for i in range(3)])
    assert [r.content for r in results if isinstance(r, LLMResponse)] == ["an answer"] * 3, results


def test_guard_a_read_only_cache_holding_the_answers_serves_them(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression guard (held on main): lookups do not write."""
    write_specs(tmp_path / "specs")
    with FakeOpenAIServer(responder=repairing_model) as server:
        assert _validate(tmp_path, server.url).exit_code == 0
        _unwritable(monkeypatch, errno.EROFS)
        again = _validate(tmp_path, server.url)
        assert again.exit_code == 0, again.output
        assert server.stats()["requests"] == 2  # the first run's two only
