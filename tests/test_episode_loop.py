"""One episode loop: the validation gates, `coworkenv env run`, the teachers and evaluation all play through
`agent_loop._play`, and whatever reads an episode (the gates' Env, a trajectory record, an LLM's transcript) sees
the same episode. A second loop anywhere makes one of these fail."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from coworkenv.agents import NoopPolicy, OraclePolicy
from coworkenv.cli import app
from coworkenv.env import Env
from coworkenv.examples import load_example
from coworkenv.llm import LLMRequest, LLMResponse, LLMStats, ToolCall
from coworkenv.rollout import LLMTeacher, OracleTeacher, agent_loop, run_agent, run_episode
from coworkenv.rollout.record import normalized_transcript_hash, trl_message
from coworkenv.spec import EnvSpec
from coworkenv.validate import validate_spec
from coworkenv.validate._episodes import SpecEpisodes
from tests.test_rollout_agent_loop import ScriptedBackend, say
from trainers.evaluate import evaluate

ROOT = Path(__file__).resolve().parents[1]
# Multi-turn with world changes between the turns; and injected faults the oracle retries through.
EXAMPLES = ["incident_rollback", "triage_escalation_declared_tools"]


class ReferenceBackend:
    """An LLM backend whose replies are the oracle's actions: the loop's LLM path fed a policy's choices."""

    name = "reference"

    def __init__(self, spec: EnvSpec, env: Env) -> None:
        self.policy = OraclePolicy(spec)
        self.env = env
        self.stats = LLMStats()

    async def complete(self, request: LLMRequest) -> LLMResponse:
        action = self.policy.act(self.env)
        calls = [ToolCall(f"ref_{self.env.steps}_{i}", c.name, json.dumps(c.arguments))
                 for i, c in enumerate(action.tool_calls)]
        return LLMResponse(action.content, calls, 0, 0, "tool_calls" if calls else "stop", False, self.name)

    def complete_batch(self, requests: list[LLMRequest]) -> list[Any]:
        raise NotImplementedError


def _without_call_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**m, "tool_call_id": "", "tool_calls": [{**c, "id": ""} for c in m["tool_calls"]]} for m in messages]


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_gates_and_a_recorded_rollout_play_the_same_episode(name: str) -> None:
    spec = load_example(name)
    episodes = SpecEpisodes(spec)
    gated = episodes.oracle()  # the gates' episode: run_episode, no transcript kept
    record = run_agent(Env(spec), OraclePolicy(spec))  # the teacher's episode: recorded
    assert gated.passed and record.passed
    # The Env of the gates' episode saw the messages the record holds (call ids aside: a run without a transcript
    # leaves their numbering to the Env).
    assert _without_call_ids([trl_message(m) for m in episodes.env.messages]) == _without_call_ids(record.messages)
    assert gated.audit == record.audit and gated.replies == record.replies
    assert gated.final_hash == record.final_hash and gated.turn_reached == record.user_turns - 1
    assert gated.result is not None and gated.result.score == record.score


@pytest.mark.parametrize("name", EXAMPLES)
def test_a_policy_and_an_llm_making_the_same_choices_leave_the_same_transcript(name: str) -> None:
    spec = load_example(name)
    by_policy = run_agent(Env(spec), OraclePolicy(spec))
    env = Env(spec)
    by_llm = run_agent(env, ReferenceBackend(spec, env))
    assert by_llm.passed and by_llm.stop_reason == by_policy.stop_reason == "done"
    assert normalized_transcript_hash(by_llm.messages) == normalized_transcript_hash(by_policy.messages)
    assert by_llm.final_hash == by_policy.final_hash and by_llm.audit == by_policy.audit


def test_run_episode_is_the_loop_without_its_transcript() -> None:
    spec = load_example("incident_rollback")
    env = Env(spec, max_steps=3)
    short = run_episode(env, OraclePolicy(spec))
    assert short.truncated and short.steps == 3 and short.stop_reason == "env_step_limit"
    recorded = run_agent(Env(spec, max_steps=3), OraclePolicy(spec), max_steps=3)
    assert recorded.stop_reason == short.stop_reason and len(recorded.steps) == short.steps
    capped = run_episode(Env(spec), OraclePolicy(spec), max_steps=2)  # the loop's limit before the Env's
    assert capped.stop_reason == "max_steps" and capped.steps == 2 and not capped.truncated


def test_every_caller_plays_through_the_one_loop(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    played: Counter[str] = Counter()
    loop = agent_loop._play

    async def counted(ep: Any, agent: Any) -> None:
        played[type(agent).__name__] += 1
        await loop(ep, agent)

    monkeypatch.setattr(agent_loop, "_play", counted)
    spec = load_example("incident_rollback")

    def plays(run: Any) -> Counter[str]:
        before = played.copy()
        run()
        return played - before

    gates = plays(lambda: validate_spec(spec))
    assert gates["OraclePolicy"] >= 2 and gates["NoopPolicy"] == 1
    for agent in ("oracle", "noop"):
        result = CliRunner().invoke(app, ["env", "run", "incident_rollback", "--agent", agent, "--json"])
        assert result.exit_code == 0, result.output
        assert orjson.loads(result.stdout)["stop_reason"] == "done"
    assert played["NoopPolicy"] == 2
    assert plays(lambda: OracleTeacher(k=2).run(spec)) == Counter({"NarratedOracle": 2})
    assert plays(lambda: LLMTeacher(ScriptedBackend([say("Done.")]), k=2).run(spec)) == Counter(
        {"ScriptedBackend": 2})
    assert plays(lambda: evaluate(ScriptedBackend([say("Done.")]), [spec], k=1)) == Counter({"ScriptedBackend": 1})
    assert plays(lambda: run_episode(Env(spec), NoopPolicy())) == Counter({"NoopPolicy": 1})


def test_coroutines_are_run_from_sync_code_in_one_place() -> None:
    # `coworkenv.llm.run_sync` is the one way sync code runs a coroutine; a private copy (as agent_loop once had,
    # imported by trainers/local_backend.py) must not come back.
    runners = ("asyncio.run(", "run_until_complete(", "new_event_loop(")
    found = sorted(
        str(path.relative_to(ROOT)) for package in ("coworkenv", "trainers") for path in (ROOT / package).rglob("*.py")
        if any(r in path.read_text(encoding="utf-8") for r in runners)
    )
    assert found == ["coworkenv/llm/_batch.py"]
    assert agent_loop.run_sync.__module__ == "coworkenv.llm._batch"
