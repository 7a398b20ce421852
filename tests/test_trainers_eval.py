"""Evaluation: pass@1 / pass^k arithmetic with a scripted oracle model, reports and comparisons, the local
checkpoint backend, and `coworkenv eval` against a checkpoint folder and an OpenAI-compatible URL."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import typer
from typer.testing import CliRunner

from coworkenv.agents import OraclePolicy
from coworkenv.env import Action
from coworkenv.examples import load_example
from coworkenv.llm import LLMRequest, LLMResponse, LLMStats
from coworkenv.spec import EnvSpec
from coworkenv.synth.generate import generate_specs
from coworkenv.synth.taxonomy import load_taxonomy
from tests.support.fake_openai_server import FakeOpenAIServer
from trainers.cli.eval import eval_command
from trainers.eval_report import EVAL_JSON, EVAL_MARKDOWN, EVAL_PLOT, render_markdown, write_eval_report
from trainers.evaluate import EvalReport, compare_reports, evaluate, metrics_of, report_from_records

# --- a scripted model: plays the reference solution as hermes text, for the envs it is told to solve ---------------

Solves = Callable[[EnvSpec, int], bool]  # (spec, request seed) -> solve this sample?


def hermes(action: Action) -> str:
    """An oracle action as a Qwen/hermes assistant message."""
    if not action.tool_calls:
        return action.content or ""
    call = action.tool_calls[0]
    return f'<tool_call>\n{json.dumps({"name": call.name, "arguments": call.arguments})}\n</tool_call>'


def oracle_reply(specs: Sequence[EnvSpec], messages: list[dict[str, Any]], seed: int, solves: Solves) -> str:
    """The next message of the reference solution for the conversation so far (or a useless reply)."""
    first_request = next(m["content"] for m in messages if m["role"] == "user")
    spec = next(s for s in specs if s.turns[0].content in first_request)
    if not solves(spec, seed):
        return "Sorry, I cannot help with that."
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    turn = len(users) - 1
    step = sum(1 for m in messages[users[-1]:] if m["role"] == "assistant")
    policy, at_turn = OraclePolicy(spec), SimpleNamespace(turn=turn, audit=[])
    action = Action.say("Done.")
    for _ in range(step + 1):
        action = policy.act(at_turn)  # type: ignore[arg-type]  # the oracle reads the turn index and the audit
    return hermes(action)


class ScriptedOracleBackend:
    """An LLMBackend answering with the reference solution as hermes text for the envs `solves` picks."""

    def __init__(self, specs: Sequence[EnvSpec], solves: Solves) -> None:
        self.name = "scripted-oracle"
        self.stats = LLMStats()
        self.specs, self.solves = specs, solves

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self.stats.requests += 1
        text = oracle_reply(self.specs, request.messages, request.seed or 0, self.solves)
        return LLMResponse(text, [], 10, 5, "stop", False, self.name)

    def complete_batch(self, requests: Sequence[LLMRequest]) -> list[Any]:
        raise NotImplementedError


@pytest.fixture(scope="module")
def specs() -> list[EnvSpec]:
    """Two multi-turn examples and two single-turn generated envs of two more capabilities."""
    taxonomy = load_taxonomy(Path("taxonomy"))
    return [load_example("incident_rollback"), load_example("meeting_reschedule"),
            generate_specs(taxonomy["reschedule_conflict"], 1, 0)[0],
            generate_specs(taxonomy["inbox_triage_reply"], 1, 0)[0]]


def _solves(specs: list[EnvSpec]) -> Solves:
    # env 0 always solved, env 2 only on even seeds (sample 0 of 2), envs 1 and 3 never
    return lambda spec, seed: spec.id == specs[0].id or (spec.id == specs[2].id and seed % 2 == 0)


def test_pass_at_1_and_pass_hat_k_follow_the_samples(specs: list[EnvSpec]) -> None:
    report = evaluate(ScriptedOracleBackend(specs, _solves(specs)), specs, k=2, seed=0)
    by_env = {e.env_id: [x.passed for x in report.episodes if x.env_id == e.env_id] for e in report.episodes}
    assert by_env[specs[0].id] == [True, True]
    assert by_env[specs[2].id] == [True, False]
    assert by_env[specs[1].id] == by_env[specs[3].id] == [False, False]
    assert report.overall.envs == 4 and report.overall.episodes == 8
    assert report.overall.pass_at_1 == pytest.approx((1 + 0.5 + 0 + 0) / 4)
    assert report.overall.pass_hat_k == pytest.approx(1 / 4)
    assert report.by_turns["multi"].pass_at_1 == pytest.approx(0.5)  # examples: one always, one never
    assert report.by_turns["single"].pass_at_1 == pytest.approx(0.25)
    assert report.by_turns["single"].pass_hat_k == 0.0
    assert report.by_capability[specs[0].capability].pass_hat_k == 1.0
    solved = [e.score for e in report.episodes if e.env_id == specs[0].id]
    assert solved == [1.0, 1.0]
    assert 0 < report.overall.mean_score < 1
    assert report.sampling["temperature"] == 0.7  # k > 1 samples by default


def test_metrics_need_k_samples_per_env(specs: list[EnvSpec]) -> None:
    report = evaluate(ScriptedOracleBackend(specs[:1], lambda s, seed: True), specs[:1], k=1)
    assert report.overall.pass_at_1 == report.overall.pass_hat_k == 1.0
    assert report.sampling["temperature"] == 0.0
    with pytest.raises(ValueError, match="exactly k=2"):
        metrics_of(report.episodes, 2)


def test_comparison_report_files_and_round_trip(specs: list[EnvSpec], tmp_path: Path) -> None:
    base = evaluate(ScriptedOracleBackend(specs, lambda s, seed: False), specs, k=2)
    tuned = evaluate(ScriptedOracleBackend(specs, _solves(specs)), specs, k=2)
    comparison = compare_reports({"base": base, "sft": tuned})
    assert comparison.same_envs
    markdown = render_markdown(comparison, title="base vs sft")
    overall = next(line for line in markdown.splitlines() if line.startswith("| overall | 4 | 0.000 | 0.375 | +0.375 | ["))
    assert overall.endswith("(n.s.) |"), "4 envs cannot tell +0.375 from 0: the paired interval contains 0"
    assert "| multi-turn |" in markdown and "paired bootstrap" in markdown
    assert "## pass^k" in markdown and "multi-turn" in markdown
    files = write_eval_report(tmp_path / "report", comparison, title="base vs sft")
    assert files.markdown.name == EVAL_MARKDOWN and files.plot.name == EVAL_PLOT and files.json.name == EVAL_JSON
    assert files.plot.read_bytes()[:4] == b"\x89PNG"
    saved = json.loads(files.json.read_text())
    assert saved["labels"] == ["base", "sft"]
    overall_pass = next(r for r in saved["differences"] if r["group"] == "overall" and r["metric"] == "pass_at_1")
    assert overall_pass["sft-base"]["value"] == pytest.approx(0.375)
    again = EvalReport.from_dict(saved["reports"]["sft"])
    assert again.overall == tuned.overall and again.episodes == tuned.episodes
    with pytest.raises(ValueError, match="different k"):
        compare_reports({"a": base, "b": report_from_records([], "x", 1)})


# --- the local checkpoint backend and the CLI -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory: pytest.TempPathFactory, specs: list[EnvSpec]) -> Path:
    """A tiny randomly initialised Qwen3 model saved like a trained checkpoint (tokenizer from oracle runs)."""
    from trainers.chat_templates import trl_chat_template
    from trainers.rl import reference_conversations
    from trainers.tiny_model import TinyModelSpec, build_tiny_model, render_corpus_text

    template = trl_chat_template("qwen3_training")
    corpus = render_corpus_text(reference_conversations(specs), template)
    model, tokenizer = build_tiny_model(corpus, TinyModelSpec(hidden_size=32, intermediate_size=64,
                                                              num_hidden_layers=1, num_attention_heads=2,
                                                              num_key_value_heads=1, head_dim=16), 0, template)
    folder = tmp_path_factory.mktemp("ckpt") / "tiny"
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def test_local_checkpoint_backend_runs_episodes(tiny_checkpoint: Path, specs: list[EnvSpec]) -> None:
    from trainers.local_backend import LocalTransformersBackend

    backend = LocalTransformersBackend(tiny_checkpoint)
    report = evaluate(backend, specs[2:3], k=1, max_tokens=8, max_steps=2)
    (episode,) = report.episodes
    assert 0.0 <= episode.score < 1.0  # a random model does not solve the env; what it scored is reported
    assert 1 <= episode.steps <= 2
    assert backend.stats.requests == episode.steps and backend.stats.completion_tokens <= 8 * episode.steps
    assert report.llm_stats["prompt_tokens"] > 1000  # the tool schemas are in the prompt


def _envs_dir(tmp_path: Path, specs: Sequence[EnvSpec]) -> Path:
    folder = tmp_path / "envs"
    folder.mkdir()
    pq.write_table(pa.table({"spec_json": [s.to_json() for s in specs]}), folder / "part-0.parquet")
    return folder


def _cli() -> typer.Typer:
    app = typer.Typer()
    app.command("eval")(eval_command)
    app.command("other")(lambda: None)  # two commands keep `eval` a subcommand, as in `coworkenv eval`
    return app


def test_eval_cli_on_checkpoint_writes_report(tiny_checkpoint: Path, specs: list[EnvSpec], tmp_path: Path) -> None:
    envs = _envs_dir(tmp_path, specs[2:3])
    result = CliRunner().invoke(_cli(), ["eval", "--model", str(tiny_checkpoint), "--envs", str(envs),
                                         "--max-tokens", "4", "--max-steps", "1", "--out", str(tmp_path / "out"),
                                         "--json"])
    assert result.exit_code == 0, result.output
    report = EvalReport.from_dict(json.loads(result.stdout))
    assert report.overall.episodes == 1 and report.k == 1
    assert (tmp_path / "out" / EVAL_MARKDOWN).is_file() and list((tmp_path / "out" / "runs").glob("*.parquet"))


def test_eval_cli_against_openai_compatible_url(specs: list[EnvSpec], tmp_path: Path) -> None:
    envs = _envs_dir(tmp_path, specs)
    solves = _solves(specs)

    def responder(body: dict[str, Any]) -> dict[str, Any]:
        return {"content": oracle_reply(specs, body["messages"], int(body.get("seed") or 0), solves)}

    baseline = tmp_path / "base.json"
    base = evaluate(ScriptedOracleBackend(specs, lambda s, seed: False), specs, k=2)
    baseline.write_text(json.dumps(base.to_dict()))
    with FakeOpenAIServer(responder=responder) as server:
        result = CliRunner().invoke(_cli(), ["eval", "--model", f"{server.url}/v1", "--served-model", "fake",
                                             "--envs", str(envs), "--k", "2", "--label", "sft",
                                             "--compare", f"base={baseline}"])
    assert result.exit_code == 0, result.output
    assert "| overall | 4 | 0.000 | 0.375 | +0.375 |" in result.stdout


def test_eval_cli_errors_are_actionable(tmp_path: Path, specs: list[EnvSpec]) -> None:
    envs = _envs_dir(tmp_path, specs[:1])
    missing = CliRunner().invoke(_cli(), ["eval", "--model", str(tmp_path / "nope"), "--envs", str(envs)])
    assert missing.exit_code == 2 and "not a transformers checkpoint" in missing.output
    no_name = CliRunner().invoke(_cli(), ["eval", "--model", "http://127.0.0.1:9/v1", "--envs", str(envs)],
                                 env={"COWORKENV_LLM_MODEL": ""})
    assert no_name.exit_code == 2 and "--served-model" in no_name.output
    bad_compare = CliRunner().invoke(_cli(), ["eval", "--model", "x", "--envs", str(envs), "--compare", "oops"])
    assert bad_compare.exit_code == 2 and "LABEL=PATH" in bad_compare.output


# A JSON file cut short is named by itself (trainers/checkpoint_files.py reads them before transformers does).
@pytest.mark.parametrize(("damaged", "says"), [("model.safetensors", "cut short or damaged"),
                                               ("tokenizer.json", "tokenizer.json is not valid JSON"),
                                               ("config.json", "config.json is not valid JSON")])
def test_eval_cli_names_a_damaged_checkpoint_file(tiny_checkpoint: Path, specs: list[EnvSpec], tmp_path: Path,
                                                  damaged: str, says: str) -> None:
    """A checkpoint cut short (an interrupted save or copy) is one error naming the folder and what to do."""
    import shutil

    folder = tmp_path / "ckpt"
    shutil.copytree(tiny_checkpoint, folder)
    data = (folder / damaged).read_bytes()
    (folder / damaged).write_bytes(data[: len(data) // 2])
    envs = _envs_dir(tmp_path, specs[:1])
    result = CliRunner().invoke(_cli(), ["eval", "--model", str(folder), "--envs", str(envs)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and str(folder) in result.output
    assert says in result.output and "again" in result.output
