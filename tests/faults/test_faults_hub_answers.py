"""Fault corpus, what the Hub answers when a publish fails, through the real Hugging Face client against a stand-in
Hub on loopback (one per module): a 429 with Retry-After, a 5xx, a connection reset, a 404. The error names the repo,
what failed and what to do about that failure (wait, retry, check the network or the repo id), never the token the
failing server echoed back; the token is told to be checked only where the Hub refused it (401/403). And repo ids the
Hub refuses (`--`, `..`, a name ending in `-`, `.` or `.git`) are refused before a run, not by the publish at its end."""

from __future__ import annotations

import http.server
import json
import socket
import struct
import threading
import traceback
from collections.abc import Iterator
from typing import Any

import pytest
from huggingface_hub import HfApi

from coworkenv.store import HfHubPublisher, PublishError

TOKEN = "hf_EchoedBackDoNotShow0123456789"
REPO = "coworkers/coworkenv"
TOKEN_ADVICE = "holds a token with write access"


class _Hub(http.server.BaseHTTPRequestHandler):
    """Answers every request as `server.answer` says: a status with headers and a body echoing the request's
    Authorization header (as a misconfigured proxy or a verbose error page does), or a reset connection."""

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        status, headers = self.server.answer  # type: ignore[attr-defined]
        if status == "reset":  # RST instead of an answer: SO_LINGER 0, then close
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            return
        body = json.dumps({"error": f"refused; you sent Authorization: {self.headers.get('Authorization')}"}).encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _answer

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def hub() -> Iterator[http.server.ThreadingHTTPServer]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _failure(hub: http.server.ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch, status: int | str,
             headers: dict[str, str] | None = None) -> tuple[str, str]:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    hub.answer = (status, headers or {})  # type: ignore[attr-defined]
    api = HfApi(endpoint=f"http://127.0.0.1:{hub.server_address[1]}", token=TOKEN)
    with pytest.raises(PublishError) as caught:
        HfHubPublisher(REPO, api=api).published_versions()
    shown = "".join(traceback.format_exception(caught.value))
    assert TOKEN not in shown, shown
    return str(caught.value), shown


@pytest.mark.parametrize(("status", "headers", "says"), [
    (429, {"Retry-After": "37"}, ["429", "wait 37 s", "publish again"]),
    (429, {}, ["429", "wait a few minutes", "publish again"]),
    (500, {}, ["500", "failed on its side", "publish again"]),
    (503, {}, ["503", "failed on its side", "publish again"]),
    ("reset", {}, ["connection to the Hub at http://127.0.0.1", "check the network", "publish again"]),
    (404, {}, ["404", "COWORKENV_HUB_REPO_ID", "publish again"]),
    (412, {}, ["412", "Another publish changed the repo", "publish again"]),  # a commit on a moved parent
])
def test_a_failing_hub_answer_says_what_to_do_about_it_never_the_token(
        hub: http.server.ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch,
        status: int | str, headers: dict[str, str], says: list[str]) -> None:
    message, _ = _failure(hub, monkeypatch, status, headers)
    assert REPO in message, message
    for words in says:
        assert words in message, message
    assert TOKEN_ADVICE not in message, message  # the token is not what is wrong


@pytest.mark.parametrize("status", [401, 403])
def test_a_hub_that_refuses_the_token_still_sends_one_to_check_it(
        hub: http.server.ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch, status: int) -> None:
    message, _ = _failure(hub, monkeypatch, status)  # guard: the split keeps the token advice where it belongs
    assert str(status) in message and TOKEN_ADVICE in message, message


BAD_IDS = ["coworkers/co--workenv", "coworkers/co..workenv", "coworkers/coworkenv-", "coworkers/coworkenv.",
           "coworkers/coworkenv.git", "coworkers-/coworkenv"]


@pytest.mark.parametrize("repo_id", BAD_IDS)
def test_a_repo_id_the_hub_refuses_is_refused_by_the_settings_before_a_run(
        monkeypatch: pytest.MonkeyPatch, repo_id: str) -> None:
    from pipelines.resources import SettingsError, settings_from_env

    monkeypatch.setenv("COWORKENV_HUB_REPO_ID", repo_id)
    with pytest.raises(SettingsError) as caught:
        settings_from_env()
    message = str(caught.value)
    assert "COWORKENV_HUB_REPO_ID" in message and repo_id in message and "org/coworkenv" in message, message


@pytest.mark.parametrize("repo_id", BAD_IDS[:3])
def test_a_repo_id_the_hub_refuses_is_refused_by_the_publisher_before_any_call(
        hub: http.server.ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch, repo_id: str) -> None:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    hub.answer = (500, {})  # type: ignore[attr-defined]  # any call would fail: none must be made
    api = HfApi(endpoint=f"http://127.0.0.1:{hub.server_address[1]}", token=TOKEN)
    with pytest.raises(PublishError) as caught:
        HfHubPublisher(repo_id, api=api)
    assert repo_id in str(caught.value) and "nothing was published" in str(caught.value), caught.value
