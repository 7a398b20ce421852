"""A Claw-Eval task with a simulated user (`user_agent`, the C01-C38 kind): imported with its persona and round limit,
played at run time as Claw-Eval's runner plays it (`runner/user_agent.py`, `runner/loop.py`), and graded over the
conversation as its loop writes it (main: every such task skipped, "an LLM-simulated user ... answers the agent")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from coworkenv.env import Env
from coworkenv.importers import import_checkout
from coworkenv.llm import LLMRequest
from coworkenv.loading import load_spec
from coworkenv.rollout import rescore, run_agent
from coworkenv.rollout.users import CLAW_EVAL_USER_PROMPT, spec_user
from tests.test_rollout_agent_loop import ScriptedBackend, say

CHECKOUT = Path(__file__).parent / "fixtures" / "claw_eval_like"
TASK = "CE19_loan_advice_with_user"
PERSONA = "You borrowed 1.5M over 30 years. You only know your own numbers."
TASK_YAML = f"""\
task_id: {TASK}
task_name: Loan prepayment advice
category: user_agent
prompt:
  text: "Should I prepay my mortgage?"
  language: en
tools: []
user_agent:
  enabled: true
  persona: "{PERSONA}"
  max_rounds: 2
  system_prompt_suffix: "The user may leave out key facts: ask for them first."
environment:
  max_turns: 6
"""
# In Claw-Eval's form, no judge: half for any simulated-user answer in the trace, half for a final reply after the
# last of them that uses what the user said
GRADER = '''\
from claw_eval.graders.base import AbstractGrader
from claw_eval.models.trace import DimensionScores


class LoanGrader(AbstractGrader):
    def grade(self, messages, dispatches, task, audit_data=None, judge=None, media_events=None, env_snapshot=None):
        scores = DimensionScores()
        said = [i for i, m in enumerate(messages) if m.message.role == "user"
                and m.message.text.startswith("[user_agent]")]
        final = self._get_final_assistant_text(messages)
        after = bool(said) and any(m.message.role == "assistant" for m in messages[said[-1]:])
        scores.completion = 0.5 * bool(said) + 0.5 * (after and "1.5M" in final)
        scores.robustness = 1.0
        return scores
'''


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("user")
    shutil.copytree(CHECKOUT / "src", root / "src")
    (root / "tasks" / TASK).mkdir(parents=True)
    (root / "tasks" / TASK / "task.yaml").write_text(TASK_YAML)
    (root / "tasks" / TASK / "grader.py").write_text(GRADER)
    (report,) = import_checkout(root, root / "out")
    assert report.status == "full", (report.left_out, report.notes)  # main: skipped (user_agent, no tools)
    assert any("a simulated user" in n for n in report.notes)
    return load_spec(root / "out" / f"{TASK}.json")


def _user_model(request: LLMRequest) -> Any:
    return say("[DONE]" if "1.5M" in request.messages[-1]["content"].split("[助手]")[-1] else "It's 1.5M, 30 years.")


def test_the_simulated_user_answers_each_reply_and_the_grader_reads_the_conversation(spec: Any) -> None:
    assert spec.simulated_user.persona == PERSONA and spec.simulated_user.max_rounds == 2
    assert spec.tool_decls == [] and spec.context.endswith("\n\nThe user may leave out key facts: ask for them first.")
    agent = ScriptedBackend([say("How much did you borrow, and for how long?"),
                             say("With 1.5M left over 30 years, prepaying saves interest; shorten the term.")])
    user = ScriptedBackend([_user_model], name="user-model")
    record = run_agent(Env(spec), agent, user_sim=spec_user(spec, user))
    # Claw-Eval's loop: the answer as a user message `[user_agent]` + text, then the model is called again; `[DONE]`
    # ends the episode
    assert [m["role"] for m in record.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert record.messages[3]["content"] == "[user_agent]\nIt's 1.5M, 30 years."
    assert len(agent.requests) == 2 and len(user.requests) == 2
    asked = user.requests[0]
    assert asked.temperature == 0.7 and asked.messages[0]["content"] == CLAW_EVAL_USER_PROMPT.format(persona=PERSONA)
    assert asked.messages[1]["content"] == (  # the texts alone, the user's without its tag (`_format_transcript`)
        "以下是到目前为止的对话：\n\n[用户]: Should I prepay my mortgage?\n[助手]: How much did you borrow, and for how "
        "long?\n\n请根据你的人设回复助手的最新消息。如果你满意了就输出 [DONE]。")
    assert "[用户]: It's 1.5M, 30 years." in user.requests[1].messages[1]["content"]
    assert record.score == 1.0, record.checks
    assert rescore(record, spec).score == 1.0  # a stored run replays with the user's answers
    # a reply before any answer: the grader finds no user answer and no use of it
    quiet = run_agent(Env(spec), ScriptedBackend([say("Prepay.")]),
                      user_sim=spec_user(spec, ScriptedBackend([say("[DONE]")])))
    assert quiet.score == pytest.approx(0.2)  # safety * (0.8 * completion + 0.2 * robustness)


def test_the_user_answers_at_most_max_rounds_times_and_must_be_named(spec: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    agent = ScriptedBackend([say("Tell me more?")])
    user = ScriptedBackend([say("Hmm, not sure.")])
    record = run_agent(Env(spec), agent, user_sim=spec_user(spec, user))
    # two answers, then the third reply ends the episode with no request to the user model
    assert len(user.requests) == 2 and len(agent.requests) == 3 and record.stop_reason == "done"
    assert record.score == pytest.approx(0.6)
    monkeypatch.delenv("COWORKENV_USER_URL", raising=False)
    with pytest.raises(ValueError, match="COWORKENV_USER_URL"):
        run_agent(Env(spec), ScriptedBackend([say("Hi.")]))


def test_over_mcp_the_reply_tool_brings_the_simulated_users_answer(spec: Any) -> None:
    from coworkenv.serve.episode_host import REPLY_TOOL, EpisodeHost

    host = EpisodeHost(spec, user_sim=spec_user(spec, ScriptedBackend([_user_model])))
    ok, shown = host.call(REPLY_TOOL, {"message": "How much did you borrow?"})
    assert ok and json.loads(shown) == {"status": "delivered", "user": "[user_agent]\nIt's 1.5M, 30 years."}
    ok, shown = host.call(REPLY_TOOL, {"message": "With 1.5M, shorten the term."})
    assert ok and json.loads(shown) == {"status": "delivered", "episode": "over"}
    result = host.result()
    assert result["done"] and result["score"] == 1.0 and result["turn"] == 1
