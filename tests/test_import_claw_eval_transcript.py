"""The trace a Claw-Eval grader reads (import43): Claw-Eval's loop (`runner/loop.py`) writes every assistant message
of the episode, each as the model gave it (its text, none when empty, then its `ToolUseBlock`s), and after a message
of calls a user message of their `ToolResultBlock`s (the dispatcher's text, `is_error` from status 400 on). Its
graders read them: `_get_all_assistant_text` joins the text of every assistant message, the text beside tool calls
too; `_get_final_assistant_text` is the last one's, in an episode cut at `max_turns` the message that made the last
calls; `format_conversation` gives the judge each. The imported grader check reads the episode so (`transcript`),
where it saw the replies alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from coworkenv import Env
from coworkenv.checks import Note, Reply, Transcript
from coworkenv.env import Action, ToolCallRequest
from coworkenv.importers import import_checkout
from coworkenv.loading import load_spec
from coworkenv.spec import EnvSpec
from coworkenv.spec_checks import PythonRule
from tests.test_import_claw_eval_answers import _one_tool_checkout
from tests.test_import_claw_eval_framework import _GMAIL

CHECKOUT = Path(__file__).parent / "fixtures" / "claw_eval_like"
TASK = "CE16_book_free_slot_graded"
_MAIL = [{"message_id": "msg_1", "from": "a@x.test", "to": "me@acme.test", "subject": "s", "body": "b",
          "date": "2026-03-02T08:00:00Z", "labels": ["INBOX"], "is_read": False}]

# Each part of the grade has its own weight, so the score says which held (robustness is set to 1: score = 0.8 *
# completion + 0.2). `expected` is the trace the grader must read: per assistant message its text and calls.
_GRADER = '''
import json
from claw_eval.graders.base import AbstractGrader
from claw_eval.models.trace import DimensionScores


class TranscriptGrader(AbstractGrader):
    def grade(self, messages, dispatches, task, audit_data=None, judge=None, media_events=None, env_snapshot=None):
        said = "\\n".join(m.message.text for m in messages if m.message.role == "assistant")
        shape = [(m.message.role, [b.type for b in m.message.content]) for m in messages]
        uses = [b for m in messages for b in m.message.content if b.type == "tool_use"]
        results = [b for m in messages for b in m.message.content if b.type == "tool_result"]
        def text(d):
            if d.response_status == 404 and d.response_body == {"error": f"unknown tool '{d.tool_name}'"}:
                return f"Error: unknown tool '{d.tool_name}'"
            return json.dumps(d.response_body, ensure_ascii=False)
        parts = [
            0.1 * ("Mike" in said),  # written beside a call
            0.2 * ("14:30" in self._get_final_assistant_text(messages)),
            0.3 * (shape == EXPECTED),
            0.4 * (len(results) == len(dispatches) > 0 and all(
                u.name == d.tool_name and u.id == r.tool_use_id and u.input == d.request_body
                and r.content[0].text == text(d) and r.is_error == (d.response_status >= 400)
                for u, r, d in zip(uses, results, dispatches))),
        ]
        scores = DimensionScores()
        scores.completion = round(sum(parts), 4)
        scores.robustness = 1.0
        return scores
'''
_NARRATED = [("user", ["text"]), ("assistant", ["text", "tool_use"]), ("user", ["tool_result"]),
             ("assistant", ["tool_use", "tool_use"]), ("user", ["tool_result", "tool_result"]),
             ("assistant", ["text"])]
_CUT = [("user", ["text"]), *[("assistant", ["tool_use"]), ("user", ["tool_result"])] * 2,
        ("assistant", ["text", "tool_use"]), ("user", ["tool_result"])]
# an empty last message: Claw-Eval's provider makes no text block of empty content, so the final text is "" (not the
# text written beside the calls before it) and the message has no blocks
_EMPTY = [("user", ["text"]), ("assistant", ["text", "tool_use"]), ("user", ["tool_result"]), ("assistant", [])]
_FINAL_HOLDS = '("14:30" in self._get_final_assistant_text(messages))'


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EnvSpec]:
    """CE16 with a grader that scores the trace it reads: once for a narrated episode, once for one cut at 3 turns,
    once for one whose last message is empty."""
    root = tmp_path_factory.mktemp("transcript")
    shutil.copytree(CHECKOUT / "src", root / "src")
    for name, shape, turns in (("narrated", _NARRATED, 20), ("cut", _CUT, 3), ("empty", _EMPTY, 20)):
        task = root / "tasks" / f"{TASK}_{name}"
        shutil.copytree(CHECKOUT / "tasks" / TASK, task)
        text = (task / "task.yaml").read_text(encoding="utf-8").replace(f"task_id: {TASK}", f"task_id: {task.name}")
        (task / "task.yaml").write_text(f"{text}\nenvironment:\n  max_turns: {turns}\n", encoding="utf-8")
        grader = _GRADER.replace("EXPECTED", repr([(r, b) for r, b in shape]))
        if name == "empty":
            grader = grader.replace(_FINAL_HOLDS, '(self._get_final_assistant_text(messages) == "")')
        (task / "grader.py").write_text(grader, encoding="utf-8")
    out = root / "out"
    found = {}
    for report in import_checkout(root, out, judge=False):
        assert report.status == "full" and report.spec_file is not None, report.notes
        found[report.task_id.rsplit("_", 1)[1]] = load_spec(out / str(report.spec_file)).model_copy(
            update={"faults": None})
    return found


def _call(name: str, n: int, **args: object) -> ToolCallRequest:
    return ToolCallRequest(name, dict(args), f"c{n}")


def test_the_grader_reads_every_message_text_calls_and_results(imported: dict[str, EnvSpec]) -> None:
    spec = imported["narrated"]
    assert spec.checks[0].rule.transcript  # type: ignore[union-attr]
    env = Env(spec)
    env.reset()
    env.step(Action("Checking Mike's day first.", (_call("calendar_get_user_events", 1, user="Mike Li",
                                                         date="2026-03-10"),)))
    # two calls in one message and no text; a tool the task does not declare is the dispatcher's error text
    env.step(Action(None, (_call("calendar_list_events", 2, date="2026-03-10"), _call("unknown_tool_x", 3))))
    result = env.step(Action.say("Booked at 14:30."))
    assert result.terminated
    # main: 0.36, the replies alone (only the final text held)
    assert env.score().score == pytest.approx(1.0), env.score().checks[0].reason


def test_the_last_message_of_a_cut_episode_is_the_final_text(imported: dict[str, EnvSpec]) -> None:
    spec = imported["cut"]
    env = Env(spec)
    env.reset()
    env.step(Action(None, (_call("calendar_list_events", 1, date="2026-03-10"),)))
    env.step(Action("", (_call("calendar_get_user_events", 2, user="Mike Li", date="2026-03-10"),)))
    result = env.step(Action("Mike and Sarah are free at 14:30.", (
        _call("calendar_get_user_events", 3, user="Sarah Wang", date="2026-03-10"),)))
    assert result.truncated  # Claw-Eval's loop stops after max_turns model calls and grades what it has
    assert env.score().score == pytest.approx(1.0), env.score().checks[0].reason  # main: 0.2 (no reply, no text)


@pytest.mark.parametrize("last", [Action(None), Action.say("")])
def test_an_empty_last_message_is_the_final_text(imported: dict[str, EnvSpec], last: Action) -> None:
    # Claw-Eval's loop ends at a message without tool calls and keeps it in the trace, empty as it is: its graders'
    # final text is then "" (`_get_final_assistant_text` reads the last assistant message), not the text beside the
    # calls before it
    env = Env(imported["empty"])
    env.reset()
    env.step(Action("Mike and Sarah are free at 14:30.", (
        _call("calendar_get_user_events", 1, user="Mike Li", date="2026-03-10"),)))
    result = env.step(last)
    assert result.terminated and not env.replies
    # main: 0.76 (the final text the one beside the call, the empty message left out of the trace)
    assert env.score().score == pytest.approx(1.0), env.score().checks[0].reason
    assert Transcript(env.replies, env.notes).raw("all", None) == "Mike and Sarah are free at 14:30."


def test_a_check_reads_the_transcript_only_when_it_asks() -> None:
    replies, notes = [Reply(0, "done")], [Note(0, "looking", (0,)), Note(0, "", (1, 2))]
    assert Transcript(replies, notes).messages() == [
        {"turn": 0, "text": "looking", "aside": True, "calls": [0]},
        {"turn": 0, "text": "", "aside": True, "calls": [1, 2]}, {"turn": 0, "text": "done"}]
    assert Transcript(replies, notes).raw("all", None) == "looking\ndone"  # a message of calls alone adds nothing
    rule = PythonRule(code="def check(state, audit, messages): return 1")
    assert "transcript" not in json.loads(rule.model_dump_json())  # the ids of specs of our own stay the same
    assert json.loads(rule.model_copy(update={"transcript": True}).model_dump_json())["transcript"] is True


def test_a_tool_no_service_is_reached_by_gets_no_injected_error(tmp_path: Path) -> None:
    # Claw-Eval injects errors in each service's middleware (`mock_services/_base.py`), on POST requests only: a call
    # its dispatcher answers itself (a port no service is on, no endpoint) or sends by GET never gets one
    root, out = _one_tool_checkout(tmp_path, "CE01_draft_invoice_reply", "gmail", "gmail_list_messages",
                                   "/gmail/messages", _GMAIL, ("inbox.json", _MAIL))
    task_yaml = root / "tasks" / "CE01_draft_invoice_reply" / "task.yaml"
    doc = yaml.safe_load(task_yaml.read_text(encoding="utf-8"))
    doc["tools"].append({"name": "gmail_get_message", "description": "read", "input_schema": {
        "type": "object", "properties": {"message_id": {"type": "string"}}, "required": ["message_id"]}})
    doc["tool_endpoints"].append({"tool_name": "gmail_get_message", "url": "http://localhost:9199/gmail/messages/get"})
    doc["tools"].append({"name": "gmail_search_messages", "description": "list by GET", "input_schema": {
        "type": "object", "properties": {}}})
    doc["tool_endpoints"].append({"tool_name": "gmail_search_messages", "url": "http://localhost:9100/gmail/messages",
                                  "method": "GET"})  # the service serves it by POST: a 405 every call
    task_yaml.write_text(yaml.safe_dump(doc), encoding="utf-8")
    (report,) = import_checkout(root, out, error_rate=0.6, judge=False)
    spec = load_spec(out / str(report.spec_file))
    assert spec.faults is not None
    assert [r.tool for r in spec.faults.rules[:2]] == ["gmail_get_message", "gmail_search_messages"]
    env = Env(spec, max_steps=1000)
    env.reset()
    for n in range(30):
        env.step(Action(None, (_call("gmail_get_message", 3 * n, message_id="msg_1"),
                               _call("gmail_list_messages", 3 * n + 1), _call("gmail_search_messages", 3 * n + 2))))
    faulted = {e.tool for e in env.audit if e.fault}
    assert faulted == {"gmail_list_messages"}  # main: both (the app's rule covered the unreachable tool too)
