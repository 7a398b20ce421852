"""Fault corpus, a credential as an env file or a copy leaves it: `HF_TOKEN="hf_..."` (the quotes are part of the
value under `docker run --env-file` and systemd's `Environment=`), a blank around it, the `Bearer ` word of the
header it was copied from; for `HF_TOKEN`, `COWORKENV_LLM_API_KEY` and `OPENAI_API_KEY`.

On main each was sent as it was: every Hub call would fail 401 and be blamed on the token's rights, an LLM server
without a key took it without a word, and the scan that keeps the credential out of published data looked for the
value with its quotes: the key itself, pasted into a spec, was published. Now the client refuses before any call,
naming the variable and never the value, and the scan looks for the credential inside the quotes
(`coworkenv/credential_values.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pyarrow as pa
import pytest
from huggingface_hub import HfApi

from coworkenv.llm import OpenAICompatibleBackend
from coworkenv.store import HfHubPublisher, LocalGitPublisher, PublishError
from tests.faults.harness import refused, release, snapshot, spec_folder
from tests.test_store_hf_hub import REPO, TOKEN, RecordingHubApi, _release

KEY = "sk-live-7c1e9a4b2d8f6e3a0b5d"  # what must never be shown or published
LEFT = {"double-quotes": ('"{}"', "quotes"), "single-quotes": ("'{}'", "quotes"),
        "trailing-blank": ("{} ", "blank"), "leading-blank": (" {}", "blank"),
        "bearer-word": ("Bearer {}", "`Bearer `")}


@pytest.mark.parametrize("left", sorted(LEFT))
def test_a_hub_token_as_an_env_file_leaves_it_is_refused_before_any_call(
        monkeypatch: pytest.MonkeyPatch, left: str) -> None:
    shape, says = LEFT[left]
    monkeypatch.setenv("HF_TOKEN", shape.format(TOKEN))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    api = RecordingHubApi()
    with pytest.raises(PublishError) as caught:
        HfHubPublisher(REPO, api=cast(HfApi, api)).publish(_release(train_rows=3, shard_rows=2))
    message = str(caught.value)
    assert "HF_TOKEN" in message and says in message and TOKEN not in message, message
    assert api.calls == []


@pytest.mark.parametrize("variable", ["COWORKENV_LLM_API_KEY", "OPENAI_API_KEY"])
@pytest.mark.parametrize("left", ["double-quotes", "trailing-blank", "bearer-word"])
def test_an_llm_key_as_an_env_file_leaves_it_is_refused_before_any_request(
        monkeypatch: pytest.MonkeyPatch, variable: str, left: str) -> None:
    shape, says = LEFT[left]
    for name in ("COWORKENV_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, shape.format(KEY))
    with pytest.raises(ValueError) as caught:
        OpenAICompatibleBackend("http://127.0.0.1:9/v1", "some-model")
    message = str(caught.value)
    assert variable in message and says in message and KEY not in message, message


def test_a_command_given_a_quoted_llm_key_says_so_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COWORKENV_LLM_API_KEY", f'"{KEY}"')
    line = refused(["rollout", str(spec_folder(tmp_path / "specs")), "--out", str(tmp_path / "out"),
                    "--llm", "http://127.0.0.1:9/v1", "--model", "m"], "COWORKENV_LLM_API_KEY", "quotes")
    assert KEY not in line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("left", ["double-quotes", "single-quotes", "bearer-word"])
@pytest.mark.parametrize("variable", ["HF_TOKEN", "COWORKENV_LLM_API_KEY"])
def test_the_key_itself_in_the_data_is_refused_when_its_variable_holds_quotes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, left: str) -> None:
    """A local publish needs no token: the quoted variable went unnoticed, and the bare key in a spec was published."""
    monkeypatch.setenv(variable, LEFT[left][0].format(KEY))
    repo = tmp_path / "repo"
    publisher = LocalGitPublisher(repo)
    publisher.publish(release("v1"))
    before = snapshot(repo)
    dataset = release("v2")
    dataset.configs["specs"] = {"train": [pa.table({"spec_json": [f'{{"world": {{"note": "deploy with token {KEY} then"}}}}']})]}
    with pytest.raises(PublishError) as caught:
        publisher.publish(dataset)
    message = str(caught.value)
    assert variable in message and KEY not in message, message
    assert snapshot(repo) == before and publisher.published_versions() == ["v1"]


def test_a_plain_token_is_taken() -> None:
    """Regression guard (held on main): the token alone goes through."""
    api = RecordingHubApi()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_TOKEN", TOKEN)
        patch.setenv("HF_HUB_OFFLINE", "1")
        HfHubPublisher(REPO, api=cast(HfApi, api)).publish(_release(train_rows=3, shard_rows=2))
    assert api.tags
