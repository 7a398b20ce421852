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
from coworkenv.llm import LLMError, LLMRequest
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


# -- the user's model failing, slow or garbled (import57) -------------------------------------------------------------
def _claw_eval_user_server(body: dict[str, Any]) -> dict[str, Any]:
    """The user's model over HTTP, answering as `_user_model` does."""
    asked = str(body["messages"][-1]["content"]).split("[助手]")[-1]
    return {"content": "[DONE]" if "1.5M" in asked else "It's 1.5M, 30 years."}


def test_the_users_model_named_by_the_environment_gets_claw_evals_tries_waits_and_timeout(
        spec: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Claw-Eval's `UserAgent` tries a request 30 times, waiting min(2^(try+1), 16) s between, each under the openai
    client's 600 s; main's user model had the backends' default (5 tries over ~5 s, 60 s each): a user model down for
    six requests (500s, a 429, a garbled body) failed the episode, where Claw-Eval's goes on."""
    from coworkenv.llm import OpenAICompatibleBackend
    from tests.support.fake_openai_server import FakeOpenAIServer

    waits: list[float] = []
    backoff = OpenAICompatibleBackend._backoff_s

    def waited(self: OpenAICompatibleBackend, attempt: int, retry_after_s: float | None) -> float:
        waits.append(backoff(self, attempt, retry_after_s))
        return 0.0  # the schedule is checked, not slept

    monkeypatch.setattr(OpenAICompatibleBackend, "_backoff_s", waited)
    failing = ["500", "429", "malformed", "500", "500", "500", "500"]
    with FakeOpenAIServer(schedule=failing, responder=_claw_eval_user_server) as server:
        monkeypatch.setenv("COWORKENV_USER_URL", f"{server.url}/v1")
        monkeypatch.setenv("COWORKENV_USER_MODEL", "fake-model")
        user = spec_user(spec)
        assert user is not None and user.backend.timeout_s == 600  # type: ignore[attr-defined]
        agent = ScriptedBackend([say("How much did you borrow, and for how long?"),
                                 say("With 1.5M left over 30 years, prepaying saves interest; shorten the term.")])
        record = run_agent(Env(spec), agent, user_sim=user)
        assert server.stats()["requests"] == len(failing) + 2
    assert record.stop_reason == "done" and record.score == 1.0, record.error
    assert record.messages[3]["content"] == "[user_agent]\nIt's 1.5M, 30 years."
    assert len(waits) == len(failing)
    for n, wait in enumerate(waits):  # Claw-Eval: 2, 4, 8, then 16 s (and up to 1 s more)
        assert min(2 ** (n + 1), 16) <= wait <= min(2 ** (n + 2), 16), waits


def _user_down(error: Exception) -> Any:
    def answer(request: LLMRequest) -> Any:
        raise error
    return answer


@pytest.mark.parametrize("error", [LLMError("server_error", "http://user:8000 model 'u': HTTP 500: down; gave up "
                                                            "after 30 attempts"),
                                   RuntimeError("the user's engine crashed")], ids=["server", "simulator"])
def test_a_user_model_that_gives_no_answer_loses_nothing_and_says_why(spec: Any, error: Exception) -> None:
    """Claw-Eval's runner, its user's model failing every try, takes the user as satisfied and grades the episode
    with the agent's last message. Main dropped that message from the record (never played: a rescore, the audit and
    the score lack it), and let an error of another type than LLMError end the whole run."""
    from coworkenv.serve.episode_host import REPLY_TOOL, EpisodeHost

    asked = "How much did you borrow, and for how long? 1.5M?"
    record = run_agent(Env(spec), ScriptedBackend([say(asked)]),
                       user_sim=spec_user(spec, ScriptedBackend([_user_down(error)], name="user-model")))
    assert record.stop_reason == "user_sim_error"  # an infrastructure failure: kept apart from the model's scores
    assert record.messages[-1]["role"] == "assistant" and record.messages[-1]["content"] == asked
    assert [r.text for r in record.replies] == [asked]
    assert "simulated user (claw-eval-user:user-model) gave no answer" in record.error
    assert str(error) in record.error or type(error).__name__ in record.error
    assert record.score == pytest.approx(0.2)  # graded as Claw-Eval grades it: no user answer in the trace
    assert rescore(record, spec).score == pytest.approx(0.2)
    # over MCP: the reply is delivered and ends the episode; the harness is told why
    host = EpisodeHost(spec, user_sim=spec_user(spec, ScriptedBackend([_user_down(error)], name="user-model")))
    ok, shown = host.call(REPLY_TOOL, {"message": asked})
    assert ok and json.loads(shown) == {"status": "delivered", "episode": "over"}
    result = host.result()
    assert result["done"] and result["stop_reason"] == "user_sim_error" and result["score"] == pytest.approx(0.2)
    assert "gave no answer" in result["error"]


def test_a_reference_beside_a_simulated_user_task_says_the_gates_play_it_with_no_user(tmp_path: Path) -> None:
    """The validation gates play a reference with no simulated user (a reference step is a call or a message): a
    reference that asks the user and answers after the answer is one reply there, and fails the oracle gate, whose
    finding blamed the grader (`task score 0.2`). Main's report said nothing of it."""
    shutil.copytree(CHECKOUT / "src", tmp_path / "src")
    task = tmp_path / "tasks" / TASK
    task.mkdir(parents=True)
    (task / "task.yaml").write_text(TASK_YAML)
    (task / "grader.py").write_text(GRADER)
    (task / "reference.json").write_text(json.dumps([{"say": "How much did you borrow?"},
                                                     {"say": "With 1.5M, shorten the term."}]))
    (report,) = import_checkout(tmp_path, tmp_path / "out")
    assert report.status == "full"
    (said,) = [n for n in report.notes if n.startswith("reference.json")]
    assert "with no simulated user" in said and "its 2 messages are that one reply" in said
    (task / "reference.json").write_text(json.dumps([{"say": "With 1.5M, shorten the term."}]))
    (report,) = import_checkout(tmp_path, tmp_path / "out")
    (said,) = [n for n in report.notes if n.startswith("reference.json")]
    assert "ends the episode" in said and "messages are that one reply" not in said
