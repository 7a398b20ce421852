"""User simulators: the scripted default, and an LLM persona that shares a hidden fact only when asked."""

from __future__ import annotations

import asyncio
from typing import Any

from coworkenv.env import Env
from coworkenv.examples import load_example
from coworkenv.llm import LLMRequest
from coworkenv.rollout import HiddenFact, LLMUser, ScriptedUser, UserPersona, rescore, run_agent
from tests.test_rollout_agent_loop import ScriptedBackend, call, say

BADGE = HiddenFact("employee id", "E-4411", cues=("employee id", "badge"))


def _persona() -> UserPersona:
    spec = load_example("incident_rollback")
    return UserPersona.from_spec(spec, known_facts=("Checkout broke this morning.",), hidden_facts=(BADGE,))


def _agent(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "Please fix checkout."}, {"role": "assistant", "content": text}]


def test_scripted_user_leaves_turns_to_the_env() -> None:
    assert not ScriptedUser.interactive
    assert asyncio.run(ScriptedUser().respond(_agent("Done."), 0)).content is None


def test_hidden_fact_is_withheld_until_the_agent_asks_for_it() -> None:
    leaky = ScriptedBackend([say("Sure. My employee id is E-4411. Anything else?")], name="leaky")
    user = LLMUser(leaky, _persona())
    unasked = asyncio.run(user.respond(_agent("I rolled the config back. Is checkout working for you now?"), 0))
    assert unasked.content is not None and "E-4411" not in unasked.content
    # It was asked to answer again without the fact, then redacted: two model calls, both counted.
    assert len(leaky.requests) == 2 and "has not asked for: employee id" in leaky.requests[1].messages[-1]["content"]
    assert unasked.prompt_tokens == 20 and unasked.completion_tokens == 10

    asked = asyncio.run(LLMUser(leaky, _persona()).respond(_agent("What is your employee id?"), 0))
    assert asked.content is not None and "E-4411" in asked.content


def test_persona_prompt_and_stop() -> None:
    persona = _persona()
    prompt = persona.system_prompt(0)
    assert persona.name == "Maya Chen" and "Site Reliability Engineer" in prompt
    assert "ONLY if the assistant asks" in prompt and "E-4411" in prompt and "Checkout broke" in prompt
    done = ScriptedBackend([say("###STOP###")])
    assert asyncio.run(LLMUser(done, persona).respond(_agent("All fixed."), 0)).content is None
    # The user model sees the conversation from its side: the agent's words as "user".
    assert [m["role"] for m in done.requests[0].messages] == ["system", "assistant", "user"]


def _user_model(request: LLMRequest) -> Any:
    last = request.messages[-1]["content"]
    return say("It's E-4411." if "employee id" in last else "###STOP###", (30, 4))


def test_agent_loop_with_an_llm_user_records_the_exchange_and_user_tokens_apart() -> None:
    spec = load_example("incident_rollback")
    agent = ScriptedBackend([
        say("Before I start: what is your employee id?"),
        call("services_rollback_config", {"service": "svc-payments", "to_version": 3}),
        say("Rolled back; the failing request was req-7f3a91."),
        say("Nothing else to do."),
    ])
    user = LLMUser(ScriptedBackend([_user_model], name="user-model"), _persona())
    record = run_agent(Env(spec), agent, user_sim=user)
    kinds = [s.kind for s in record.steps]
    assert kinds[0] == "clarify" and kinds.count("clarify") == 1
    roles = [m["role"] for m in record.messages[:6]]
    assert roles == ["system", "system", "user", "assistant", "user", "assistant"]
    assert record.messages[4]["content"] == "It's E-4411."
    assert record.user_sim == "llm-user:user-model"
    assert record.tokens.user_prompt == 30 * 3 and record.tokens.user_completion == 4 * 3
    assert record.tokens.agent_prompt == 10 * 3 + 12
    assert record.request.startswith("Jon mailed me") and "E-4411" not in record.request
    # The clarification is part of the replies of turn 0, and the run replays for re-scoring.
    assert record.replies[0].text.startswith("Before I start")
    assert rescore(record, spec).score == record.score
