"""Fault corpus, credentials the process holds other than in the variables the publish scan looked for: the Hub
token `hf auth login` keeps on disk (the token file under HF_HOME, XDG_CACHE_HOME or at HF_TOKEN_PATH, and every
account's token in `stored_tokens`), which the Hugging Face client sends with no variable set; and a folder publish
(a checkpoint to the model repository), which no scan read at all: a `.env` copied into the checkpoint folder, a
config or record holding a key, a model card quoting a token. Main published them into the dataset or the model
repository as any other bytes; the publish now refuses before anything is written, naming the file or variable the
credential comes from and where it was found, never the value."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import cast

import pyarrow as pa
import pytest
from huggingface_hub import HfApi

from coworkenv.store import HfHubPublisher, LocalGitPublisher, PublishError
from tests.faults.harness import release, snapshot
from tests.test_store_hf_hub import REPO, TOKEN, RecordingHubApi

SECRET = "hf_StoredOnDiskNeverPublish0123456789"
CREDENTIAL_VARS = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "COWORKENV_LLM_API_KEY", "OPENAI_API_KEY", "HF_TOKEN_PATH",
                   "XDG_CACHE_HOME")


@pytest.fixture(autouse=True)
def clean_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No credential variable set, and a Hugging Face home of this test's own (no token in it yet)."""
    for name in CREDENTIAL_VARS:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "hf-home"
    home.mkdir()
    monkeypatch.setenv("HF_HOME", str(home))
    return home


def _token_file(home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    (home / "token").write_text(SECRET + "\n")
    return str(home / "token")


def _token_path_variable(home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    path = tmp_path / "secrets" / "hf-token"
    path.parent.mkdir()
    path.write_text(SECRET)
    monkeypatch.setenv("HF_TOKEN_PATH", str(path))
    return str(path)


def _xdg_cache(home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    monkeypatch.delenv("HF_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "cache" / "huggingface").mkdir(parents=True)
    (tmp_path / "cache" / "huggingface" / "token").write_text(SECRET)
    return str(tmp_path / "cache" / "huggingface" / "token")


def _stored_tokens(home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    # Two accounts logged in; the active one is another: the work account's token is still the process's to use.
    (home / "token").write_text("hf_ActiveAccountToken00000000000\n")
    (home / "stored_tokens").write_text(
        f"[personal]\nhf_token = hf_ActiveAccountToken00000000000\n\n[work]\nhf_token = {SECRET}\n")
    return "'work'"


HELD: dict[str, Callable[[Path, pytest.MonkeyPatch, Path], str]] = {
    "the token file in HF_HOME": _token_file,
    "a token file at HF_TOKEN_PATH": _token_path_variable,
    "the token file under XDG_CACHE_HOME": _xdg_cache,
    "a second account in stored_tokens": _stored_tokens,
}


@pytest.mark.parametrize("held", sorted(HELD))
def test_a_token_the_hub_client_keeps_on_disk_is_refused_in_a_dataset(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_environment: Path, held: str) -> None:
    named = HELD[held](clean_environment, monkeypatch, tmp_path)
    repo = tmp_path / "repo"
    publisher = LocalGitPublisher(repo)
    publisher.publish(release("v1"))
    before = snapshot(repo)
    dataset = release("v2")
    dataset.configs["specs"] = {"train": [pa.table({"spec_json": [f'{{"world": {{"hub_token": "{SECRET}"}}}}']})]}
    with pytest.raises(PublishError) as caught:
        publisher.publish(dataset)
    message = str(caught.value)
    assert named in message and "'specs'" in message and SECRET not in message, message
    assert snapshot(repo) == before and publisher.published_versions() == ["v1"]


def _checkpoint(folder: Path) -> Path:
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "gpt2", "n_layer": 1}\n')
    (folder / "model.safetensors").write_bytes(b"\0" * 4096)
    return folder


PLANTED: dict[str, tuple[str, str, str]] = {  # case -> (variable, file planted, its text)
    "a .env copied into the folder": ("HF_TOKEN", ".env", f"HF_TOKEN={SECRET}\nCOWORKENV_LLM_URL=http://x/v1\n"),
    "an LLM key in a config": ("COWORKENV_LLM_API_KEY", "config.json", f'{{"model_type": "gpt2", "key": "{SECRET}"}}'),
    "a record in a subfolder": ("OPENAI_API_KEY", "checkpoint-2/trainer_state.json", f'{{"note": "{SECRET}"}}'),
}


@pytest.mark.parametrize("case", sorted(PLANTED))
def test_a_credential_in_a_published_folder_is_refused_before_a_local_publish_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    variable, name, text = PLANTED[case]
    monkeypatch.setenv(variable, SECRET)
    folder = _checkpoint(tmp_path / "ckpt")
    repo = tmp_path / "repo"
    publisher = LocalGitPublisher(repo)
    publisher.publish_folder(folder, "v1", "# v1\n")
    before = snapshot(repo)
    (folder / name).parent.mkdir(exist_ok=True)
    (folder / name).write_text(text)
    with pytest.raises(PublishError) as caught:
        publisher.publish_folder(folder, "v2", "# v2\n")
    message = str(caught.value)
    assert variable in message and name in message and SECRET not in message, message
    assert snapshot(repo) == before and publisher.published_versions() == ["v1"]


def test_a_model_card_quoting_the_token_file_never_reaches_the_hub(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_environment: Path) -> None:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    (clean_environment / "token").write_text(SECRET)  # another account's token, logged in with `hf auth login`
    api = RecordingHubApi()
    with pytest.raises(PublishError) as caught:
        HfHubPublisher(REPO, api=cast(HfApi, api), repo_type="model").publish_folder(
            _checkpoint(tmp_path / "ckpt"), "v1", f"# v1\nPull it with `HF_TOKEN={SECRET}`.\n")
    assert "README.md" in str(caught.value) and SECRET not in str(caught.value), caught.value
    assert api.commits() == [] and api.tags == {}


def test_a_folder_and_a_dataset_without_credentials_publish_while_a_token_is_on_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_environment: Path) -> None:
    # Regression guard: held tokens are looked for, not anything that resembles one.
    (clean_environment / "token").write_text(SECRET)
    monkeypatch.setenv("HF_TOKEN", "hf_another_token_entirely_0000")
    publisher = LocalGitPublisher(tmp_path / "repo")
    publisher.publish(release("v1"))
    folder = _checkpoint(tmp_path / "ckpt")
    (folder / "notes.txt").write_text("hf_StoredOnDisk is not a token\n")
    publisher.publish_folder(folder, "v2", "# v2\n")
    assert publisher.published_versions() == ["v1", "v2"]
