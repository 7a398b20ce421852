"""Fault corpus, the LLM response cache (`validate --cache-dir`, default `OUT/llm-cache`) asked by another model than
the one that filled it: another server under the same model name (vLLM's `--served-model-name`, a gateway's `default`,
a second machine, another port), another `?api-version=` of an Azure deployment, a local checkpoint trained again in
place (`train sft --out ckpt` twice, then `--llm vllm-offline --model ckpt`), the same relative `--model ./ckpt` from
another folder.

On main the cache key held the model's name only, so the second model was never asked: every answer came from the
first one's entries (`cached: true`), and a `validate` run against the new server repaired its specs with the old
server's answers, without a word. The key now holds what serves the answer (`coworkenv/llm/_cache.py:
server_identity`, `checkpoint_identity`). Regression guards: the same server spelt with a trailing slash or `/v1`,
another API key, an untouched checkpoint are still answered from the cache.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.llm import LLMRequest, LLMResponse, OpenAICompatibleBackend, VLLMOfflineBackend, run_sync
from tests.support.fake_openai_server import FakeOpenAIServer
from tests.test_validate_cli import repairing_model, write_specs

REQUEST = LLMRequest(messages=[{"role": "user", "content": "say who you are"}])


def _says(name: str) -> Any:
    return lambda body: {"content": name}


def _ask(url: str, cache: Path, model: str = "default", key: str = "sk-one") -> LLMResponse:
    backend = OpenAICompatibleBackend(url, model, key, cache_dir=cache, max_retries=0)
    return run_sync(lambda: backend.complete(REQUEST))


def test_another_server_under_the_same_model_name_is_asked(tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=_says("model A")) as first, FakeOpenAIServer(responder=_says("model B")) as second:
        assert _ask(first.url, tmp_path).content == "model A"
        answer = _ask(second.url, tmp_path)
        assert (answer.content, answer.cached) == ("model B", False)
        assert second.stats()["requests"] == 1


def test_another_port_of_one_host_is_another_server(tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=_says("model A")) as first, FakeOpenAIServer(responder=_says("model B")) as second:
        assert _ask(f"http://localhost:{first.port}/v1", tmp_path).content == "model A"
        assert _ask(f"http://localhost:{second.port}/v1", tmp_path).content == "model B"


def test_another_api_version_of_one_deployment_is_asked(tmp_path: Path) -> None:
    versions: list[str] = []

    def by_version(body: dict[str, Any]) -> dict[str, Any]:
        return {"content": f"answer {len(versions)}"}

    with FakeOpenAIServer(responder=by_version) as server:
        first = _ask(f"{server.url}/v1?api-version=2024-02-01", tmp_path)
        versions.append("asked")
        second = _ask(f"{server.url}/v1?api-version=2024-10-21", tmp_path)
        assert (first.content, second.content, second.cached) == ("answer 0", "answer 1", False)
        assert server.stats()["requests"] == 2


@pytest.mark.parametrize("spelling", ["{url}/", "{url}/v1", "{url}/v1/", "{url}/v1/chat/completions"])
def test_guard_the_same_server_spelt_otherwise_is_answered_from_the_cache(tmp_path: Path, spelling: str) -> None:
    """Regression guard (held on main): the cache still saves the second request to the same server."""
    with FakeOpenAIServer(responder=_says("model A")) as server:
        assert not _ask(server.url, tmp_path).cached
        again = _ask(spelling.format(url=server.url), tmp_path, key="sk-two")
        assert (again.content, again.cached) == ("model A", True)
        assert server.stats()["requests"] == 1


def test_validate_against_another_server_repairs_with_that_server(tmp_path: Path) -> None:
    write_specs(tmp_path / "specs")
    args = ["validate", str(tmp_path / "specs"), "--out", str(tmp_path / "out"), "--model", "default",
            "--rounds", "1", "--json"]
    with FakeOpenAIServer(responder=repairing_model) as first:
        assert CliRunner().invoke(app, [*args, "--llm", first.url]).exit_code == 0
    with FakeOpenAIServer(responder=repairing_model) as second:
        result = CliRunner().invoke(app, [*args, "--llm", second.url])
        assert result.exit_code == 0, result.output
        assert second.stats()["requests"] == 2, "the new server was never asked: answers came from the old one's cache"
    funnel = json.loads(result.stdout)
    assert funnel["llm"]["cache_hits"] == 0, funnel["llm"]


# --- a local checkpoint (vllm-offline) ------------------------------------------------------------------------------


class _Engine:
    """A vllm.LLM stand-in that answers with the weights file's text (what a checkpoint's model would say)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.calls = 0

    def chat(self, conversations: list[Any], sampling_params: list[Any], tools: Any, use_tqdm: bool) -> list[Any]:
        self.calls += 1
        said = (self.folder / "model.safetensors").read_text()
        completion = types.SimpleNamespace(text=said, token_ids=[1], finish_reason="stop")
        return [types.SimpleNamespace(outputs=[completion], prompt_token_ids=[0]) for _ in conversations]


def fake_vllm_module() -> types.ModuleType:
    """A `vllm` module holding what the offline backend uses besides its engine (`LLM`, given by the caller)."""
    module = types.ModuleType("vllm")
    sampling = types.ModuleType("vllm.sampling_params")
    sampling.StructuredOutputsParams = lambda **kw: kw  # type: ignore[attr-defined]
    module.sampling_params = sampling  # type: ignore[attr-defined]
    module.SamplingParams = lambda **kw: kw  # type: ignore[attr-defined]
    return module


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", fake_vllm_module())


def _checkpoint(folder: Path, said: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "qwen2", "said": said}))
    (folder / "model.safetensors").write_text(said)
    return folder


def _offline(model: str, folder: Path, cache: Path) -> LLMResponse:
    engine = _Engine(folder)
    (result,) = VLLMOfflineBackend(model, llm=engine, cache_dir=cache).complete_batch([REQUEST])
    assert isinstance(result, LLMResponse), result
    return result


@pytest.mark.usefixtures("fake_vllm")
def test_a_checkpoint_trained_again_in_place_is_asked(tmp_path: Path) -> None:
    ckpt = _checkpoint(tmp_path / "ckpt", "first training")
    assert _offline(str(ckpt), ckpt, tmp_path / "cache").content == "first training"
    _checkpoint(ckpt, "second training, longer")
    answer = _offline(str(ckpt), ckpt, tmp_path / "cache")
    assert (answer.content, answer.cached) == ("second training, longer", False)


@pytest.mark.usefixtures("fake_vllm")
def test_one_relative_model_path_from_two_folders_is_two_checkpoints(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    one = _checkpoint(tmp_path / "project-one" / "ckpt", "project one's model")
    two = _checkpoint(tmp_path / "project-two" / "ckpt", "project two's model")
    monkeypatch.chdir(one.parent)
    assert _offline("ckpt", one, tmp_path / "cache").content == "project one's model"
    monkeypatch.chdir(two.parent)
    assert _offline("ckpt", two, tmp_path / "cache").content == "project two's model"


@pytest.mark.usefixtures("fake_vllm")
def test_a_checkpoint_moved_with_its_data_folder_is_answered_from_the_cache(tmp_path: Path) -> None:
    """`mv data moved`: the same files are the same model. On main the key held the folder's absolute path, so every
    answer was asked of it again (faults44)."""
    ckpt = _checkpoint(tmp_path / "data" / "checkpoints" / "ckpt", "first training")
    assert not _offline(str(ckpt), ckpt, tmp_path / "cache").cached
    (tmp_path / "data").rename(tmp_path / "moved")
    moved = tmp_path / "moved" / "checkpoints" / "ckpt"
    again = _offline(str(moved), moved, tmp_path / "cache")
    assert (again.content, again.cached) == ("first training", True), "main: asked again (cached: false)"


@pytest.mark.usefixtures("fake_vllm")
def test_guard_an_untouched_checkpoint_is_answered_from_the_cache(tmp_path: Path) -> None:
    """Regression guard (held on main): a checkpoint read again, notes written beside it, is the same model."""
    ckpt = _checkpoint(tmp_path / "ckpt", "first training")
    assert not _offline(str(ckpt), ckpt, tmp_path / "cache").cached
    (ckpt / "README.md").write_text("notes beside the model")
    again = _offline(str(ckpt), ckpt, tmp_path / "cache")
    assert (again.content, again.cached) == ("first training", True)
