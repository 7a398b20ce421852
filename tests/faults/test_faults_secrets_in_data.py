"""Fault corpus, a credential inside the data being published: the operator's HF_TOKEN or LLM key pasted into a
capability's YAML, a config file copied into a spec's world, an imported task's fixture, a model's answer quoting
it, or a table's metadata. Main published it into the dataset (and to the Hub) as any other text. The publish now
refuses before writing anything, naming the variable and where (config, split, shard, column), never the value."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import cast

import pyarrow as pa
import pytest
from huggingface_hub import HfApi

from coworkenv.store import DatasetCardInfo, DatasetRelease, HfHubPublisher, LocalGitPublisher, PublishError
from tests.faults.harness import release, snapshot
from tests.test_store_hf_hub import REPO, TOKEN, RecordingHubApi

SECRET = "sk-live-4f9d2c7e1b8a6f3d0e5c"  # an LLM key, a Hub token: what must never be shown or published

Plant = Callable[[DatasetRelease], None]


def _add(config: str, table: pa.Table) -> Plant:
    def plant(dataset: DatasetRelease) -> None:
        dataset.configs[config] = {"train": [table]}
    return plant


def _in_card(dataset: DatasetRelease) -> None:
    dataset.card.extra_markdown = f"Generated with the key {SECRET} against our vLLM server."


MESSAGES = pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))
PLANTS: dict[str, Plant] = {
    "a spec's world text": _add("specs", pa.table({"spec_json": [
        '{"world": {}}', f'{{"world": {{"config": {{"entries": [{{"key": "hub_token", "value": "{SECRET}"}}]}}}}}}']})),
    "a message nested in a transcript": _add("trajectories", pa.table({"messages": pa.array([[
        {"role": "user", "content": "deploy it"}, {"role": "assistant", "content": f"using token {SECRET}"}]],
        type=MESSAGES)})),
    "a dictionary-encoded column": _add("envs", pa.table({"capability": pa.array(
        ["ticket_triage", f"key={SECRET}"]).dictionary_encode()})),
    "the table metadata": _add("envs", pa.table({"env_id": ["e1"]}).replace_schema_metadata(
        {"generator": f"llm with key {SECRET}"})),
    "the dataset card": _in_card,
}


@pytest.mark.parametrize("variable", ["HF_TOKEN", "COWORKENV_LLM_API_KEY"])
@pytest.mark.parametrize("where", sorted(PLANTS))
def test_a_credential_in_the_data_is_refused_before_a_local_publish_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, variable: str) -> None:
    monkeypatch.setenv(variable, SECRET)
    repo = tmp_path / "repo"
    publisher = LocalGitPublisher(repo)
    publisher.publish(release("v1"))
    before = snapshot(repo)
    dataset = release("v2")
    PLANTS[where](dataset)
    with pytest.raises(PublishError) as caught:
        publisher.publish(dataset)
    message = str(caught.value)
    assert variable in message and SECRET not in message, message
    if where != "the dataset card":
        assert "config " in message and "shard 0" in message, message
    assert snapshot(repo) == before and publisher.published_versions() == ["v1"]


def test_a_credential_in_the_data_never_reaches_the_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    api = RecordingHubApi()
    dataset = release("v1")
    dataset.configs["sft"]["train"].append(pa.table({"env_id": ["e9"], "text": [f"the token is {TOKEN}"]}))
    with pytest.raises(PublishError) as caught:
        HfHubPublisher(REPO, api=cast(HfApi, api)).publish(dataset)
    assert "HF_TOKEN" in str(caught.value) and TOKEN not in str(caught.value)
    assert api.commits() == [] and api.tags == {}


def test_a_release_without_credentials_publishes_while_they_are_set(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # Regression guard: the scan must not refuse data that merely resembles a key.
    monkeypatch.setenv("HF_TOKEN", SECRET)
    dataset = release("v1")
    dataset.card = DatasetCardInfo(pretty_name="sk-live keys", description="sk-live-0000 is not the key")
    LocalGitPublisher(tmp_path / "repo").publish(dataset)
