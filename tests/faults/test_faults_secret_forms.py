"""Fault corpus, a credential in a form one of the product's secret guards knows and another did not: the Hub
publisher's redaction, the LLM client's redaction and the publish scan of the data were three lists of what is
secret. The LLM client took the Basic-auth form of its URL's `user:password@` out of its errors; the Hub publisher
did not, so a Hub mirror's error page quoting the request's Authorization header (the client sends the endpoint's
`user:password@` as `Basic base64(user:password)`) put it in the PublishError. The Hub publisher took every URL's
user info and signed query out of its errors; the LLM client did not, so a gateway's error naming its upstream
`https://user:password@...` or a signed URL put that credential in the LLMError and the retry log. And the publish
scan looked for credential variables only: a key the product holds in COWORKENV_LLM_URL (`?api_key=`, a password),
HF_ENDPOINT or the proxy the Hub client goes through was published inside the data as any text. One list now
(`coworkenv/credential_values.py: held_credentials`, `coworkenv/url_credentials.py: scrub_credentials`) serves the
three.

The Hub is a stand-in on loopback (`test_faults_hub_answers._Hub`) behind the real Hugging Face client; the LLM
server one on loopback behind the real aiohttp client."""

from __future__ import annotations

import base64
import http.server
import json
import logging
import threading
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from huggingface_hub import HfApi

from coworkenv.llm import LLMError, LLMRequest, OpenAICompatibleBackend
from coworkenv.store import HfHubPublisher, LocalGitPublisher, PublishError
from tests.faults.harness import release, snapshot
from tests.faults.test_faults_hub_answers import _Hub

TOKEN = "hf_EchoedBackDoNotShow0123456789"
PASSWORD = "Mirr0r-pw-NeverShown"
KEY = "gw-key-7c1e9b2d4f6a8e0c"
REQUEST = LLMRequest(messages=[{"role": "user", "content": "hi"}])
CREDENTIAL_VARS = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "COWORKENV_LLM_API_KEY", "OPENAI_API_KEY", "HF_TOKEN_PATH",
                   "COWORKENV_LLM_URL", "COWORKENV_JUDGE_URL", "HF_ENDPOINT", "https_proxy")


@pytest.fixture(autouse=True)
def clean_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No credential set but the case's, and a Hugging Face home without a token."""
    for name in CREDENTIAL_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))


def _serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[http.server.ThreadingHTTPServer]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def hub() -> Iterator[http.server.ThreadingHTTPServer]:
    yield from _serving(_Hub)


def _basic(user: str, password: str) -> str:
    return base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.mark.parametrize("status", [500, 404, 400])
def test_a_hub_mirror_echoing_its_basic_auth_header_shows_no_password(
        hub: http.server.ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch, status: int) -> None:
    """HF_ENDPOINT=https://user:password@mirror (a team's mirror behind Basic auth): the client sends the password as
    the Basic header, and a mirror's error page quoting it put `base64(user:password)` in the PublishError."""
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    hub.answer = (status, {})  # type: ignore[attr-defined]
    api = HfApi(endpoint=f"http://mirror-user:{PASSWORD}@127.0.0.1:{hub.server_address[1]}", token=TOKEN)
    with pytest.raises(PublishError) as caught:
        HfHubPublisher("coworkers/coworkenv", api=api).published_versions()
    shown = "".join(traceback.format_exception(caught.value))
    assert "coworkers/coworkenv" in shown and "refused; you sent Authorization" in shown, shown  # the answer is kept
    for secret in (PASSWORD, _basic("mirror-user", PASSWORD), TOKEN):
        assert secret not in shown, shown


class _Gateway(http.server.BaseHTTPRequestHandler):
    """An LLM gateway failing with the status asked for, its error naming the upstream it tried: a URL holding the
    gateway's own credentials (user info, a signed query)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, upstream = self.server.answer  # type: ignore[attr-defined]
        data = json.dumps({"error": {"message": f"upstream {upstream} failed"}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def gateway() -> Iterator[http.server.ThreadingHTTPServer]:
    yield from _serving(_Gateway)


UPSTREAMS = {
    "user info": (f"https://svc-account:{PASSWORD}@10.0.0.7:8000/v1/chat/completions", PASSWORD),
    "a signed url": (f"https://bucket.s3.amazonaws.com/batch/42.json?X-Amz-Signature={KEY}&X-Amz-Expires=300", KEY),
}


@pytest.mark.parametrize("status", [502, 403])
@pytest.mark.parametrize("upstream", sorted(UPSTREAMS))
def test_an_llm_error_naming_a_url_with_credentials_shows_none_of_them(
        gateway: http.server.ThreadingHTTPServer, caplog: pytest.LogCaptureFixture, upstream: str,
        status: int) -> None:
    """The Hub publisher took such URLs' credentials out; the LLM client kept them in its error and retry log."""
    url, secret = UPSTREAMS[upstream]
    gateway.answer = (status, url)  # type: ignore[attr-defined]
    backend = OpenAICompatibleBackend(f"http://127.0.0.1:{gateway.server_address[1]}/v1", "m", api_key="sk-test-key",
                                      max_retries=1, backoff_base_s=0.01, max_backoff_s=0.01)
    with caplog.at_level(logging.INFO):
        (answer,) = backend.complete_batch([REQUEST])
    assert isinstance(answer, LLMError) and str(status) in str(answer), answer
    shown = f"{answer}\n{caplog.text}"
    assert "upstream https://" in shown and "failed" in shown, shown  # what the gateway said is still there
    assert secret not in shown, shown


# Where the product holds the credential -> (variable, its value, the credential inside it)
HELD = {
    "a key in COWORKENV_LLM_URL's query": ("COWORKENV_LLM_URL", f"https://gw.example/v1?api_key={KEY}", KEY),
    "a password in COWORKENV_LLM_URL": ("COWORKENV_LLM_URL", f"https://team:{PASSWORD}@gw.example/v1", PASSWORD),
    "a signature in COWORKENV_JUDGE_URL": ("COWORKENV_JUDGE_URL", f"https://judge.example/v1?sig={KEY}", KEY),
    "a password in HF_ENDPOINT": ("HF_ENDPOINT", f"https://mirror-user:{PASSWORD}@hub-mirror.example", PASSWORD),
    "a password in https_proxy": ("https_proxy", f"http://corp-user:{PASSWORD}@proxy.corp.example:3128", PASSWORD),
}


@pytest.mark.parametrize("held", sorted(HELD))
def test_a_credential_held_in_a_url_is_refused_in_the_data(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held: str) -> None:
    """A spec's world holding a config copied from the operator's `.env`: the scan knew the key variables only."""
    variable, value, secret = HELD[held]
    monkeypatch.setenv(variable, value)
    repo = tmp_path / "repo"
    publisher = LocalGitPublisher(repo)
    publisher.publish(release("v1"))
    before = snapshot(repo)
    dataset = release("v2")
    dataset.configs["specs"] = {"train": [pa.table({"spec_json": [
        f'{{"world": {{"files": {{"deploy.env": "LLM_SECRET={secret}"}}}}}}']})]}
    with pytest.raises(PublishError) as caught:
        publisher.publish(dataset)
    message = str(caught.value)
    assert variable in message and "spec_json" in message and secret not in message, message
    assert snapshot(repo) == before and publisher.published_versions() == ["v1"]


def test_a_credential_held_in_a_url_is_refused_in_a_published_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkpoint folder with the `.env` the training ran with, publishing to the model repository."""
    monkeypatch.setenv("COWORKENV_LLM_URL", f"https://gw.example/v1?api-version=2024-02-01&key={KEY}")
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "gpt2"}')
    (folder / ".env").write_text(f"COWORKENV_LLM_URL=https://gw.example/v1?key={KEY}\n")
    repo = tmp_path / "repo"
    with pytest.raises(PublishError) as caught:
        LocalGitPublisher(repo).publish_folder(folder, "v1", "# v1\n")
    message = str(caught.value)
    assert "COWORKENV_LLM_URL" in message and ".env" in message and KEY not in message, message
    assert not (repo / ".env").exists()


def test_what_an_url_carries_that_is_no_credential_still_publishes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard: Azure's `?api-version=2024-02-01`, a user name without a password and the host are no credentials: a
    spec naming that date, user or host publishes (a scan of every query value would refuse a date)."""
    monkeypatch.setenv("COWORKENV_LLM_URL", "https://deploy-user@gw.example/openai?api-version=2024-02-01")
    monkeypatch.setenv("HF_ENDPOINT", "https://hub-mirror.example")
    repo = tmp_path / "repo"
    dataset = release("v1")
    dataset.configs["specs"] = {"train": [pa.table({"spec_json": [
        '{"world": {"notes": "released 2024-02-01 by deploy-user via gw.example and hub-mirror.example"}}']})]}
    LocalGitPublisher(repo).publish(dataset)
    assert LocalGitPublisher(repo).published_versions() == ["v1"]


def test_a_proxy_variable_that_is_no_url_does_not_stop_an_error_from_being_told(
        gateway: http.server.ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard of the fix: the held list reads every URL variable at each error; one that is not a URL (an unclosed
    IPv6 bracket) is no credential, and the error is still told, its URL's credentials out."""
    monkeypatch.setenv("https_proxy", f"http://corp-user:{PASSWORD}@[::1")
    url, secret = UPSTREAMS["user info"]
    gateway.answer = (403, url)  # type: ignore[attr-defined]
    backend = OpenAICompatibleBackend(f"http://127.0.0.1:{gateway.server_address[1]}/v1", "m", max_retries=0)
    (answer,) = backend.complete_batch([REQUEST])
    assert isinstance(answer, LLMError) and "403" in str(answer) and secret not in str(answer), answer
