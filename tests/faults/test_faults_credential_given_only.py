"""Fault corpus, a credential given only to the command (`--llm URL?api_key=...`, `user:password@` in `--llm`, a key
passed as an argument), which no variable holds: a later process (the publish, a reader of the logs) cannot know it
for a secret, so it must never reach the data a command writes.

Measured on `main`: the client took it out of its own errors only. A server that echoes the request into its answer
(a gateway's or a debug server's echo of the path with its `?api_key=`, of the Authorization header) put the key into
the answer, and `coworkenv rollout --llm URL?api_key=K` wrote it into the trajectories (the assistant's message), a
dataset `curate` and the pipeline publish later, in processes where nothing names K. In the process that was given it,
the publish scan did not look for it either (it knew the variables only).
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from coworkenv.llm import LLMRequest, LLMResponse, OpenAICompatibleBackend, backend_from_config
from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import release, snapshot, spec_folder, succeeded
from tests.faults.test_faults_llm_url_query import _Handler
from tests.faults.test_faults_llm_url_query import _Server as _QueryServer

REQUEST = LLMRequest(messages=[{"role": "user", "content": "hi"}])
ENVIRONMENT = ("COWORKENV_LLM_URL", "COWORKENV_LLM_API_KEY", "OPENAI_API_KEY", "COWORKENV_JUDGE_URL")


class _Echo(_Handler):
    """Answers every chat request (200) with the request line and its Authorization header in the content, in a tool
    call's arguments and in the model's name, as a debug gateway's echo does."""

    server: _Server  # type: ignore[assignment]

    def do_GET(self) -> None:  # the `/v1/models` card
        self.send_json(200, {"object": "list", "data": [{"id": "m", "object": "model"}]})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        said = f"request {self.path} auth {self.headers.get('Authorization')} api-version=2024-02-01"
        self.server.paths.append(self.path)
        call = {"id": "c1", "type": "function", "function": {"name": "note", "arguments": json.dumps({"text": said})}}
        self.send_json(200, {"model": f"m ({said})", "choices": [{"finish_reason": "stop", "message": {
            "role": "assistant", "content": said, "tool_calls": [call] if self.server.tools else []}}]})


class _Server(_QueryServer):
    tools = True

    def __init__(self) -> None:
        super().__init__()
        self.RequestHandlerClass = _Echo


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Server]:
    for name in ENVIRONMENT:  # given to the command only: no variable holds it
        monkeypatch.delenv(name, raising=False)
    with _Server() as echo:
        threading.Thread(target=echo.serve_forever, daemon=True).start()
        try:
            yield echo
        finally:
            echo.shutdown()


def _texts(answer: LLMResponse) -> str:
    return "\n".join([answer.content or "", answer.model, *(c.arguments for c in answer.tool_calls)])


# how the credential is given -> (URL tail, user info, api_key argument, the spellings that must not come back)
GIVEN = {
    "a key in the URL's query": ("/v1?api_key=gw-key-7Qd2xP9a", "", None, ["gw-key-7Qd2xP9a"]),
    "a percent-encoded key in the query": ("/v1?token=gw%2Bkey%2F7Qd2xP9b", "", None,
                                           ["gw%2Bkey%2F7Qd2xP9b", "gw%2Bkey/7Qd2xP9b", "gw+key/7Qd2xP9b"]),
    "a key beside an api-version": ("/v1?api-version=2024-02-01&api_key=gw-key-7Qd2xP9c", "", None,
                                    ["gw-key-7Qd2xP9c"]),
    "a password in the URL": ("/v1", "admin:pw-7Qd2xP9d@", None,
                              ["pw-7Qd2xP9d", base64.b64encode(b"admin:pw-7Qd2xP9d").decode()]),
    "a key passed as an argument": ("/v1", "", "sk-arg-7Qd2xP9e", ["sk-arg-7Qd2xP9e"]),
}


@pytest.mark.parametrize("given", sorted(GIVEN))
def test_an_answer_echoing_the_clients_credential_carries_none_of_it(server: _Server, given: str) -> None:
    tail, user, key, secrets = GIVEN[given]
    backend = OpenAICompatibleBackend(f"http://{user}{server.base}{tail}", "m", key, max_retries=0)
    (answer,) = backend.complete_batch([REQUEST])
    assert isinstance(answer, LLMResponse), answer
    assert server.paths and (user or key or secrets[0][-8:] in server.paths[0]), server.paths  # it was sent
    shown = _texts(answer)
    assert "request /v1/chat/completions" in shown and "api-version=2024-02-01" in shown, shown  # the rest is kept
    for secret in secrets:
        assert secret not in shown, shown
    assert json.loads(answer.tool_calls[0].arguments)["text"].startswith("request /v1/chat/completions")


def test_rollout_with_the_key_only_on_the_command_line_writes_no_trajectory_holding_it(
        server: _Server, tmp_path: Path) -> None:
    secret = "gw-key-rollout-5Rk8"
    server.tools = False  # the teacher's plain answers: the assistant's messages of the episodes
    specs = spec_folder(tmp_path / "specs")
    out = tmp_path / "traj"
    succeeded(["rollout", str(specs), "--out", str(out), "--llm", f"http://{server.base}/v1?api_key={secret}",
               "--model", "m", "--k", "1"])
    assert any(secret in path for path in server.paths)  # the server got it
    files = sorted(out.rglob("*.parquet"))
    assert files
    for file in files:
        rows = str(pq.read_table(file).to_pylist())
        assert "request /v1/chat/completions" in rows  # the echo is in the episodes, without the key
        assert secret not in rows and secret.encode() not in file.read_bytes()


def test_a_key_given_only_to_the_client_is_refused_by_this_process_publish(
        server: _Server, tmp_path: Path) -> None:
    secret = "gw-key-publish-3Hn6"
    backend_from_config(f"http://{server.base}/v1?api_key={secret}", "m")
    publisher = LocalGitPublisher(tmp_path / "repo")
    publisher.publish(release("v1"))
    before = snapshot(tmp_path / "repo")
    dataset = release("v2")
    dataset.configs["specs"] = {"train": [pa.table({"spec_json": [f'{{"world": {{"note": "key {secret}"}}}}']})]}
    with pytest.raises(PublishError) as caught:
        publisher.publish(dataset)
    assert "LLM server URL" in str(caught.value) and secret not in str(caught.value), caught.value
    assert snapshot(tmp_path / "repo") == before


def test_an_answer_without_the_clients_credential_is_kept_as_it_came(server: _Server) -> None:
    """Guard: the query's other values (`api-version`), the path and a key the client does not hold stay."""
    backend = OpenAICompatibleBackend(f"http://{server.base}/v1?api-version=2024-02-01", "m", max_retries=0)
    (answer,) = backend.complete_batch([REQUEST])
    assert isinstance(answer, LLMResponse)
    assert answer.content == "request /v1/chat/completions?api-version=2024-02-01 auth None api-version=2024-02-01"
