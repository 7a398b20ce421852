"""Fault corpus, the LLM response cache (`validate --cache-dir`, default `OUT/llm-cache`) after the server behind one
URL and model name was restarted on other weights: `vllm serve /ckpt/step-200 --served-model-name default` on the
port where `/ckpt/step-100` ran, a bigger model behind a gateway's `default`, another LoRA adapter under the same
adapter name, the same checkpoint name loaded from another folder.

On main (after the fifteenth round) the cache key held the model's name and the server's URL: the restarted server
was never asked, every answer came from the earlier weights' entries (`cached: true`), and `validate` repaired its
specs with the old model's answers without a word. The key now holds what the server says of the weights behind the
name, once per run from its `/v1/models` card (vLLM's and SGLang's `root`, a LoRA adapter's `parent`;
`coworkenv/llm/_cache.py: served_weights_identity`). Regression guards: the server restarted on the same weights, a
server without `/v1/models`, and one whose list does not hold the model (a gateway) are still answered from the
cache; the card's request carries no key into any log.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.llm import LLMRequest, LLMResponse, OpenAICompatibleBackend, run_sync
from tests.support.fake_openai_server import FakeOpenAIServer
from tests.test_validate_cli import repairing_model, write_specs

REQUEST = LLMRequest(messages=[{"role": "user", "content": "say who you are"}])


def _card(name: str, root: str, parent: str | None = None) -> dict[str, Any]:
    """A model card as `vllm serve ROOT --served-model-name NAME` lists it (`created` stamped per request)."""
    card: dict[str, Any] = {"id": name, "object": "model", "created": 0, "owned_by": "vllm", "root": root,
                            "parent": parent, "max_model_len": 32768}
    return card


def _says(text: str) -> Any:
    return lambda body: {"content": text}


def _ask(url: str, cache: Path, model: str) -> LLMResponse:
    backend = OpenAICompatibleBackend(url, model, "sk-weights-secret", cache_dir=cache, max_retries=0)
    return run_sync(lambda: backend.complete(REQUEST))


RESTARTS = {
    "the next checkpoint under --served-model-name": ("default", [_card("default", "/ckpt/step-100")],
                                                      [_card("default", "/ckpt/step-200")]),
    "a bigger model behind default": ("default", [_card("default", "Qwen/Qwen3-8B")],
                                      [_card("default", "Qwen/Qwen3-32B")]),
    "another LoRA adapter under the adapter's name": (
        "support-lora", [_card("base", "Qwen/Qwen3-8B"), _card("support-lora", "/loras/v1", "base")],
        [_card("base", "Qwen/Qwen3-8B"), _card("support-lora", "/loras/v2", "base")]),
    "the same adapter on another base": (
        "support-lora", [_card("support-lora", "/loras/v1", "Qwen/Qwen3-8B")],
        [_card("support-lora", "/loras/v1", "Qwen/Qwen3-14B")]),
    "a checkpoint of the same name from another folder": ("ckpt", [_card("ckpt", "/runs/a/ckpt")],
                                                          [_card("ckpt", "/runs/b/ckpt")]),
}


@pytest.mark.parametrize("case", sorted(RESTARTS))
def test_a_server_restarted_on_other_weights_under_the_same_name_and_url_is_asked(tmp_path: Path, case: str) -> None:
    model, before, after = RESTARTS[case]
    with FakeOpenAIServer(responder=_says("old weights"), models=before) as first:
        port = first.port
        assert _ask(first.url, tmp_path / "cache", model).content == "old weights"
    with FakeOpenAIServer(responder=_says("new weights"), models=after, port=port) as second:
        answer = _ask(second.url, tmp_path / "cache", model)
        assert (answer.content, answer.cached) == ("new weights", False)
        assert second.stats()["requests"] == 1


def test_validate_after_the_server_was_restarted_on_other_weights_repairs_with_them(tmp_path: Path) -> None:
    write_specs(tmp_path / "specs")
    args = ["validate", str(tmp_path / "specs"), "--out", str(tmp_path / "out"), "--model", "default",
            "--rounds", "1", "--json"]
    with FakeOpenAIServer(responder=repairing_model, models=[_card("default", "/ckpt/step-100")]) as first:
        port = first.port
        assert CliRunner().invoke(app, [*args, "--llm", first.url]).exit_code == 0
    with FakeOpenAIServer(responder=repairing_model, models=[_card("default", "/ckpt/step-200")], port=port) as second:
        result = CliRunner().invoke(app, [*args, "--llm", second.url])
        assert result.exit_code == 0, result.output
        assert second.stats()["requests"] == 2, "the restarted server was never asked: answers came from the cache"
    assert json.loads(result.stdout)["llm"]["cache_hits"] == 0


GUARDS: dict[str, tuple[list[dict[str, Any]] | None, list[dict[str, Any]] | None]] = {
    "the same weights again": ([_card("default", "/ckpt/step-100")], [_card("default", "/ckpt/step-100")]),
    "no /v1/models route": (None, None),
    "a list without the model": ([_card("gpt-4o", "gpt-4o")], [_card("gpt-4o-mini", "gpt-4o-mini")]),
}


@pytest.mark.parametrize("case", sorted(GUARDS))
def test_guard_a_server_that_says_no_other_weights_is_answered_from_the_cache(
        tmp_path: Path, case: str, caplog: pytest.LogCaptureFixture) -> None:
    """Regression guards (held on main): the cache still saves the request when the server restarted on the same
    weights, or says nothing of its weights; no log line carries the API key."""
    before, after = GUARDS[case]
    with FakeOpenAIServer(responder=_says("old weights"), models=before) as first:
        port = first.port
        assert not _ask(first.url, tmp_path / "cache", "default").cached
    with FakeOpenAIServer(responder=_says("new weights"), models=after, port=port) as second:
        again = _ask(second.url, tmp_path / "cache", "default")
        assert (again.content, again.cached) == ("old weights", True)
        assert second.stats()["requests"] == 0
    assert "sk-weights-secret" not in caplog.text
    assert not any("sk-weights-secret" in path.read_text() for path in (tmp_path / "cache").rglob("*.json"))
