"""Integration: the LLM backends against a real vLLM on this CPU, serving a tiny random Qwen3 model.

The model is random, so its answers are nonsense; what is asserted is what the plumbing guarantees:
JSON-schema constrained decoding yields schema-valid JSON, forced tool calls parse into `ToolCall`s,
free-form output with tools never crashes the parser, tokens and stats are counted, the cache
answers re-runs, and the offline engine backend works too; the LLM judge a `judge: true` python check asks (a
Claw-Eval task imported with `--judge`) is this server, reached from the sandbox. Set-up timings are printed
(run with -s).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from coworkenv.checks.judge import JUDGE_MAX_TOKENS_ENV, judge_backend, judging
from coworkenv.llm import LLMError, LLMRequest, LLMResponse, OpenAICompatibleBackend
from tests.support.vllm_cpu import (
    OfflineSmoke,
    VLLMServer,
    VLLMSetupError,
    build_tiny_qwen3,
    ensure_vllm_venv,
    running_vllm_cpu_server,
    start_offline_smoke,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

SCHEMA: dict[str, Any] = {
    "title": "Probe",
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 12},
        "priority": {"type": "integer", "minimum": 0, "maximum": 9},
        "kind": {"enum": ["mail", "ticket", "meeting"]},
        "urgent": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 6}, "maxItems": 3},
    },
    "required": ["name", "priority", "kind", "urgent", "tags"],
    "additionalProperties": False,
}
# strict=True asks vLLM to constrain the arguments to the parameters schema.
TOOLS: list[dict[str, Any]] = [{
    "type": "function",
    "function": {
        "name": "send_mail",
        "description": "Send an email.",
        "strict": True,
        "parameters": {
            "type": "object",
            "properties": {"to": {"type": "string", "maxLength": 20}},
            "required": ["to"],
            "additionalProperties": False,
        },
    },
}]
TIMINGS: dict[str, float] = {}


# The offline engine's requests: three JSON-schema constrained, one with the tool list in the chat template.
OFFLINE_REQUESTS: list[dict[str, Any]] = [
    {"messages": [{"role": "user", "content": f"JSON {i}"}], "json_schema": SCHEMA,
     "temperature": 1.0, "max_tokens": 160, "seed": i}
    for i in range(3)
] + [{"messages": [{"role": "user", "content": "Mail Ana."}], "tools": TOOLS, "max_tokens": 48}]


@pytest.fixture(scope="module")
def vllm_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the file's vLLM runs, with the tiny model built in it (`tiny-qwen3`)."""
    workdir = tmp_path_factory.mktemp("vllm_cpu")
    try:
        ensure_vllm_venv(workdir / "vllm_setup.log")
    except (VLLMSetupError, OSError) as exc:
        pytest.skip(f"the vLLM CPU venv could not be created (scripts/vllm_cpu_setup.sh): {exc}")
    started = time.monotonic()
    build_tiny_qwen3(workdir / "tiny-qwen3")
    TIMINGS["model_build"] = time.monotonic() - started
    return workdir


@pytest.fixture(scope="module")
def offline_smoke(vllm_workdir: Path) -> Iterator[OfflineSmoke]:
    """The offline engine answering OFFLINE_REQUESTS, started as soon as the model is built: its engine's start (a
    process importing torch and vLLM, ~80 s of a loaded machine) runs beside the server's instead of after the
    server's tests; `test_vllm_offline_backend_on_cpu` waits for its answer."""
    smoke = start_offline_smoke(vllm_workdir / "tiny-qwen3", OFFLINE_REQUESTS, vllm_workdir / "offline")
    yield smoke
    smoke.stop()


@pytest.fixture(scope="module")
def vllm_server(vllm_workdir: Path, offline_smoke: OfflineSmoke) -> Iterator[VLLMServer]:
    # `offline_smoke` first: the offline engine starts before the server, and both start at once.
    with running_vllm_cpu_server(vllm_workdir, worker_in_engine_core=True) as server:  # two processes, not three
        TIMINGS.update({k: v for k, v in server.timings_s.items() if k != "model_build"})  # the model: built above
        yield server
    print(f"\nvLLM CPU timings (s): {json.dumps({k: round(v, 2) for k, v in TIMINGS.items()})}")


def _backend(server: VLLMServer, **kwargs: Any) -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend(server.base_url, server.model, api_key="", timeout_s=120, max_retries=2, **kwargs)


def _structured_requests() -> list[LLMRequest]:
    return [
        LLMRequest(messages=[{"role": "user", "content": f"Describe work item {i} as JSON."}],
                   json_schema=SCHEMA, temperature=1.0, max_tokens=160, seed=i)
        for i in range(6)
    ]


def test_structured_output_is_schema_valid_json(vllm_server: VLLMServer, tmp_path: Path) -> None:
    backend = _backend(vllm_server, cache_dir=tmp_path)
    started = time.monotonic()
    results = backend.complete_batch(_structured_requests())
    TIMINGS["structured_batch_of_6"] = time.monotonic() - started
    for result in results:
        assert isinstance(result, LLMResponse), result
        assert result.finish_reason == "stop", result  # the grammar closed the object
        # xgrammar lets raw control characters into strings (not RFC 8259 JSON); json_content() admits them.
        jsonschema.validate(result.json_content(), SCHEMA)
        assert result.prompt_tokens > 0 and result.completion_tokens > 0
    assert backend.stats.http_requests == 6 and backend.stats.failures == {}
    assert backend.stats.completion_tokens == sum(r.completion_tokens for r in results if isinstance(r, LLMResponse))

    # The same requests again: all from the cache, nothing sent to vLLM.
    again = _backend(vllm_server, cache_dir=tmp_path)
    cached = again.complete_batch(_structured_requests())
    assert all(isinstance(r, LLMResponse) and r.cached for r in cached)
    assert again.stats.cache_hits == 6 and again.stats.http_requests == 0


def test_forced_tool_calls_parse_into_tool_calls(vllm_server: VLLMServer) -> None:
    backend = _backend(vllm_server, extra_body={"tool_choice": "required"})
    requests = [
        LLMRequest(messages=[{"role": "system", "content": "You are a helpful coworker."},
                             {"role": "user", "content": f"Mail person {i} the status."}],
                   tools=TOOLS, temperature=1.0, max_tokens=200, seed=i)
        for i in range(6)
    ]
    started = time.monotonic()
    results = backend.complete_batch(requests)
    TIMINGS["tool_batch_of_6"] = time.monotonic() - started
    responses = [r for r in results if isinstance(r, LLMResponse)]
    assert len(responses) == 6, results
    calls = [call for r in responses for call in r.tool_calls]
    # Every call vLLM produced names the one tool and carries a JSON object with the required key;
    # a call cut off by max_tokens shows up as a parse error, never as an exception.
    assert calls, [(r.content, r.tool_call_errors) for r in responses]
    for call in calls:
        assert call.name == "send_mail"
        arguments = json.loads(call.arguments)
        assert isinstance(arguments, dict) and isinstance(arguments["to"], str)
    for response in responses:
        assert response.tool_calls or response.tool_call_errors or response.finish_reason == "length"
        assert all(isinstance(error, str) for error in response.tool_call_errors)
    assert backend.stats.prompt_tokens > 0 and backend.stats.completion_tokens > 0


def test_free_form_output_with_tools_never_breaks_parsing(vllm_server: VLLMServer) -> None:
    backend = _backend(vllm_server)
    requests = [LLMRequest(messages=[{"role": "user", "content": "Mail Ana."}], tools=TOOLS,
                           temperature=1.0, max_tokens=96, seed=i) for i in range(4)]
    results = backend.complete_batch(requests)
    for result in results:
        assert isinstance(result, LLMResponse), result
        assert result.prompt_tokens > 0 and result.completion_tokens > 0
        assert all(call.name and isinstance(json.loads(call.arguments), dict) for call in result.tool_calls)
    assert backend.stats.as_dict()["requests"] == 4


def test_the_servers_sockets_stay_in_its_own_folder(vllm_server: VLLMServer) -> None:
    """vLLM's processes talk through ZMQ sockets it names in the temp folder; a stopped server left 14 there a run.
    Here they are in a folder of the server's, which `stop` removes."""
    assert vllm_server.rpc_dir is not None
    sockets = [p for p in vllm_server.rpc_dir.iterdir() if p.is_socket()]
    assert sockets, f"no ZMQ socket in {vllm_server.rpc_dir}: does vLLM still read VLLM_RPC_BASE_PATH?"


def test_unknown_model_is_a_client_error_not_retried(vllm_server: VLLMServer) -> None:
    backend = OpenAICompatibleBackend(vllm_server.base_url, "no-such-model", api_key="", max_retries=3)
    (result,) = backend.complete_batch([LLMRequest(messages=[{"role": "user", "content": "hi"}])])
    assert isinstance(result, LLMError) and result.kind == "client_error" and "HTTP 404" in str(result)
    assert backend.stats.http_requests == 1 and backend.stats.retries == 0


def test_vllm_offline_backend_on_cpu(offline_smoke: OfflineSmoke) -> None:
    started = time.monotonic()
    data = offline_smoke.result()  # started with the server (the `offline_smoke` fixture)
    TIMINGS["offline_engine_wait"] = time.monotonic() - started
    TIMINGS.update({f"offline_{k}": v for k, v in data["timings_s"].items()})  # type: ignore[union-attr]
    results: list[dict[str, Any]] = data["results"]  # type: ignore[assignment]
    assert len(results) == 4 and all("error" not in r for r in results), results
    for result in results[:3]:
        assert result["finish_reason"] == "stop"
        jsonschema.validate(json.loads(result["content"], strict=False), SCHEMA)
    assert results[3]["prompt_tokens"] > results[0]["prompt_tokens"]  # the tool list reached the template
    stats: dict[str, Any] = data["stats"]  # type: ignore[assignment]
    assert stats["requests"] == 4 and stats["completion_tokens"] > 0


def test_synthesis_through_vllm_counts_every_candidate_in_the_funnel(vllm_server: VLLMServer, tmp_path: Path) -> None:
    """LLM spec generation + repair against the real server: a random model's specs are rejected, but every
    request is structured, every candidate is accounted for once, and a re-run is served from the cache."""
    from coworkenv.synth import LLMSpecGenerator, load_taxonomy
    from coworkenv.validate import validate_and_repair

    capability = load_taxonomy(Path("taxonomy")).capabilities["inbox_triage_reply"]
    backend = _backend(vllm_server, cache_dir=tmp_path / "cache")
    # Greedy: vLLM-cpu 0.32 crashes its engine on seeded sampling ("CPU Generator does not use offset").
    generator = LLMSpecGenerator(backend, exemplars=[], max_tokens=384, temperature=0.0)
    assert generator.generation_request(capability, 0).json_schema is not None  # constrained decoding is asked for
    candidates = generator.generate(capability, 3, seed=11)
    run = validate_and_repair(candidates, reviser=generator, max_rounds=1)
    funnel = run.funnel.as_dict()

    assert len(candidates) == 3
    failed_generations = sum(1 for c in candidates if c.error is not None)
    assert funnel["generated"] == 3 - failed_generations
    assert len(run.accepted) + len(run.rejected) == 3  # nothing lost, nothing duplicated
    # A random model's JSON runs past max_tokens: such a cut-off answer is a generation failure, not a spec.
    assert funnel["requested"] == 3 and sum(funnel["generation_failures"].values()) == failed_generations
    assert sum(funnel["rejected_by_gate"].values()) + failed_generations == len(run.rejected)
    assert backend.stats.completion_tokens > 0 and funnel["tokens_total"] > 0
    requests_first = backend.stats.http_requests
    assert requests_first >= 3

    again = LLMSpecGenerator(_backend(vllm_server, cache_dir=tmp_path / "cache"), exemplars=[], max_tokens=384,
                             temperature=0.0)
    rerun = validate_and_repair(again.generate(capability, 3, seed=11), reviser=again, max_rounds=1)
    assert again.stats.http_requests == 0  # a re-run pays nothing
    assert rerun.funnel.as_dict()["rejected_by_gate"] == funnel["rejected_by_gate"]
    assert rerun.funnel.as_dict()["generation_failures"] == funnel["generation_failures"]


JUDGE_FIXTURES = Path(__file__).parent / "fixtures" / "claw_eval_like"
JUDGED_TASK = "CE18_book_free_slot_judged"  # its grader asks Claw-Eval's LLM judge (see test_import_claw_eval_judge)
# A judged check of our own: asks the judge once and defines what an answer without a score is (0, and why).
OWN_JUDGED_CHECK = """
import json, re
def check(state, audit, messages):
    answer = ask_host({"system": "Answer with JSON only: {\\"score\\": <0..1>}", "user": "Reply: " + str(messages)})
    found = re.search(r"\\{[^{}]*\\}", answer)
    try:
        score = float(json.loads(found.group(0))["score"]) if found else None
    except (ValueError, KeyError, TypeError):
        score = None
    if score is None:
        return {"score": 0.0, "passed": False, "reason": "no score in the judge's answer: " + json.dumps(answer)}
    return {"score": min(max(score, 0.0), 1.0), "reason": "judged: " + json.dumps(answer)}
"""


def _served_requests(server: VLLMServer, line: str) -> int:
    """How many requests the server's access log shows, e.g. `"POST /v1/chat/completions HTTP/1.1" 200`."""
    return server.log_path.read_text(errors="replace").count(line)


CHAT_OK = '"POST /v1/chat/completions HTTP/1.1" 200'


@pytest.fixture(scope="module")
def judged_import(vllm_server: VLLMServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """CE18 (and the peer its grader loads) imported by the CLI with `--judge` naming the real server."""
    from typer.testing import CliRunner

    from coworkenv.cli import app as cli_app

    root = tmp_path_factory.mktemp("judged_import")
    shutil.copytree(JUDGE_FIXTURES / "src", root / "src")
    for task_id in ("CE16_book_free_slot_graded", JUDGED_TASK):
        shutil.copytree(JUDGE_FIXTURES / "tasks" / task_id, root / "tasks" / task_id)
    probes = _served_requests(vllm_server, '"GET /v1/models HTTP/1.1"')
    started = time.monotonic()
    result = CliRunner().invoke(cli_app, ["import", "claw-eval", str(root), "--out", str(root / "out"),
                                          "--judge", f"{vllm_server.base_url}/v1", "--judge-model", vllm_server.model])
    TIMINGS["judge_import"] = time.monotonic() - started
    return {"result": result, "out": root / "out",
            "probes": _served_requests(vllm_server, '"GET /v1/models HTTP/1.1"') - probes}


def test_import_with_judge_probes_the_real_server(judged_import: dict[str, Any]) -> None:
    result = judged_import["result"]
    assert result.exit_code == 0, result.output
    assert "2 task(s): 1 full, 1 full (judge), 0 partial, 0 skipped" in result.output
    assert judged_import["probes"] >= 1  # the import asked the server whether it is there
    report = json.loads((judged_import["out"] / "import_report.json").read_text())
    assert report["judge"] is True


def test_judged_checks_ask_the_real_server_from_the_sandbox(vllm_server: VLLMServer, judged_import: dict[str, Any],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Scored by the verifier, each judged check's requests cross the sandbox's ask channel to vLLM. The random
    model's answers hold no score: each check does with that what its own code defines, not a check error."""
    # A random model rarely stops: at 2,048 tokens an answer took ~14 s here, at 32 well under 1 s.
    monkeypatch.setenv(JUDGE_MAX_TOKENS_ENV, "32")
    from coworkenv import Env
    from coworkenv.agents import OraclePolicy
    from coworkenv.loading import load_spec
    from coworkenv.rollout import run_episode
    from coworkenv.spec import Check, PythonRule

    assert judged_import["result"].exit_code == 0, judged_import["result"].output
    spec = load_spec(judged_import["out"] / f"{JUDGED_TASK}.json")
    (grader,) = spec.checks
    assert grader.rule.kind == "python" and grader.rule.judge
    own = spec.model_copy(update={"checks": [Check(id="own_judged", rule=PythonRule(code=OWN_JUDGED_CHECK,
                                                                                       judge=True))]})
    judge = judge_backend(f"{vllm_server.base_url}/v1", vllm_server.model)
    assert judge is not None

    def score(which: Any) -> tuple[Any, int, float]:
        before, started = _served_requests(vllm_server, CHAT_OK), time.monotonic()
        with judging(judge):
            result = run_episode(Env(which), OraclePolicy(which)).result
        return result, _served_requests(vllm_server, CHAT_OK) - before, time.monotonic() - started

    result, asked, TIMINGS["own_judged_episode"] = score(own)
    (check,) = result.checks
    assert asked == 1, vllm_server.log_tail()  # one request, answered 200 by the real server
    assert not check.error, check.reason
    # The check's own rule: no {"score": x} object in the answer is 0 with the reason saying so (a random model's
    # text almost surely holds none; if it did, the score is the one it names, clamped).
    if "no score in the judge's answer" in check.reason:
        assert check.score == 0.0 and not check.passed and result.score == 0.0
    else:
        assert "judged: " in check.reason and 0.0 <= check.score <= 1.0, check.reason

    # Claw-Eval's grader: its judge (the fixture's llm_judge.py, as Claw-Eval's) retries an answer it cannot
    # read, 3 times, then raises "the judge gave no score"; the grader lets that end the grading.
    result, asked, TIMINGS["ce18_judged_episode"] = score(spec)
    (check,) = result.checks
    assert asked == 3, vllm_server.log_tail()
    assert check.error and "the judge gave no score" in check.reason, check.reason
    assert "judge did not answer" not in check.reason  # the host channel carried every answer
