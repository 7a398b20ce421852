"""Fault corpus, the Hub client's environment set so that no publish to the Hub can work: an offline switch left on
(TRANSFORMERS_OFFLINE=1, set for training, puts huggingface_hub offline too) or an HF_ENDPOINT that is not a URL (a
mirror written without its scheme, a stray space). Main built the publisher and ran the whole chain; the client then
failed at the first call, and the message sent the operator to check HF_TOKEN. The publisher now refuses to start,
and `python -m pipelines.run` refuses before any run, naming the variable and what to do (credentials never shown)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coworkenv.store import HfHubPublisher, PublishError
from tests.faults.harness import pipeline_refused
from tests.test_store_hf_hub import REPO, TOKEN

PASSWORD = "mirror-password-7"
BROKEN = {
    "HF_HUB_OFFLINE=1": ("HF_HUB_OFFLINE", "1"),
    "HF_HUB_OFFLINE=true": ("HF_HUB_OFFLINE", "true"),
    "TRANSFORMERS_OFFLINE=1": ("TRANSFORMERS_OFFLINE", "1"),
    "endpoint without scheme": ("HF_ENDPOINT", "hf-mirror.com"),
    "endpoint ftp": ("HF_ENDPOINT", "ftp://mirror.example"),
    "endpoint without host": ("HF_ENDPOINT", "https://"),
    "endpoint with a space": ("HF_ENDPOINT", " https://hf-mirror.com"),
    "endpoint with credentials, no scheme": ("HF_ENDPOINT", f"admin:{PASSWORD}@mirror.example"),
}


def _clear(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_TOKEN", TOKEN)


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_hub_publisher_refuses_an_environment_no_publish_can_work_in(monkeypatch: pytest.MonkeyPatch,
                                                                       case: str) -> None:
    _clear(monkeypatch)
    variable, value = BROKEN[case]
    monkeypatch.setenv(variable, value)
    with pytest.raises(PublishError) as caught:
        HfHubPublisher(REPO)
    message = str(caught.value)
    assert variable in message and REPO in message and "unset" in message, message
    assert TOKEN not in message and PASSWORD not in message, message


@pytest.mark.parametrize(("variable", "value", "repo"), [
    ("TRANSFORMERS_OFFLINE", "1", "COWORKENV_HUB_REPO_ID"),
    ("HF_ENDPOINT", "hf-mirror.com", "COWORKENV_HUB_REPO_ID"),
    ("HF_HUB_OFFLINE", "yes", "COWORKENV_HUB_MODEL_REPO_ID"),
])
def test_a_pipeline_run_that_would_publish_to_the_hub_refuses_before_any_work(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], variable: str,
        value: str, repo: str) -> None:
    _clear(monkeypatch)
    monkeypatch.setenv(variable, value)
    line = pipeline_refused(tmp_path, monkeypatch, capsys, repo, "org/coworkenv", "--no-rl")
    assert variable in line and "org/coworkenv" in line and TOKEN not in line, line


def test_a_good_mirror_and_the_client_online_are_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    # Regression guard: the check must not refuse a working setup.
    _clear(monkeypatch)
    monkeypatch.setenv("HF_ENDPOINT", "https://hf-mirror.com")
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    assert HfHubPublisher(REPO).repo_id == REPO
