"""What Claw-Eval's runner (`runner/loop.py`) decides about an episode beside the services (import42): its loop calls
the model at most `environment.max_turns` times (20 unless the task says), dispatches the tool calls of the last
call, and grades the episode as it stands; several tool calls in one message are one turn. The imported spec carries
the limit (`EnvSpec.max_steps`), which every Env of it keeps (a runner's own longer limit is lowered to it). The
harness's own `todo` and `compact` tools (`enable_todo`, `enable_compact`), answered in the loop and never sent to a
service, are not offered by the import: the report says so. A tool whose endpoint is at a port no service of the
task listens on is the dispatcher's refused connection for every call."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from coworkenv import Env
from coworkenv.env import Action, ToolCallRequest
from coworkenv.importers import claw_eval_grader_runtime as runtime
from coworkenv.importers import import_checkout
from coworkenv.loading import load_spec
from coworkenv.rollout import record as record_module
from coworkenv.rollout import run_agent, run_episode
from coworkenv.rollout.record import environment_hash
from coworkenv.spec import EnvSpec
from tests.test_import_claw_eval_answers import _one_tool_checkout
from tests.test_import_claw_eval_framework import _GMAIL
from tests.test_rollout_agent_loop import ScriptedBackend
from tests.test_rollout_agent_loop import call as model_call

CHECKOUT = Path(__file__).parent / "fixtures" / "claw_eval_like"
TASK = "CE02_vpn_ticket_triage"
_MAIL = [{"message_id": "msg_1", "from": "a@x.test", "to": "me@acme.test", "subject": "s", "body": "b",
          "date": "2026-03-02T08:00:00Z", "labels": ["INBOX"], "is_read": False}]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[EnvSpec, dict]]:
    """CE02 as given (no `environment`), cut to 3 turns and 120 s, and with the harness's tools on: each imported."""
    root = tmp_path_factory.mktemp("runner")
    shutil.copytree(CHECKOUT / "src", root / "src")
    variants = {"given": None, "three": {"max_turns": 3, "timeout_seconds": 120},
                "harness": {"enable_todo": True, "enable_compact": True},
                **{name: environment for name, (environment, _) in NEVER_CALLED.items()}}
    for name, environment in variants.items():
        task = root / "tasks" / f"{TASK}_{name}"
        shutil.copytree(CHECKOUT / "tasks" / TASK, task)
        doc = yaml.safe_load((task / "task.yaml").read_text(encoding="utf-8"))
        doc["task_id"] = task.name
        if environment is not None:
            doc["environment"] = environment
        (task / "task.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = root / "out"
    reports = import_checkout(root, out, judge=False)
    found = {}
    for report in reports:
        name = report.task_id.rsplit("_", 1)[1]
        assert (report.spec_file is None) == (name in NEVER_CALLED), (name, report.notes)
        found[name] = (load_spec(out / str(report.spec_file)) if report.spec_file else None, {  # type: ignore[assignment]
            "left_out": report.left_out, "status": report.status, "notes": report.notes})
    return found


# Settings under which Claw-Eval's loop never calls the model (import47): `while turn_count < max_turns` with
# max_turns 0, and `elapsed > timeout_seconds` checked before each model call with a wall clock of 0 or less (the
# elapsed time is already above it). Every run is graded on an episode without an assistant message, whatever the
# model; the import gave the agent 20 turns (timeout) or skipped the task with pydantic's words (max_turns 0).
NEVER_CALLED = {"notime": ({"timeout_seconds": 0}, "environment.timeout_seconds"),
                "pastdue": ({"timeout_seconds": -30, "max_turns": 5}, "environment.timeout_seconds"),
                "noturns": ({"max_turns": 0}, "environment.max_turns")}


@pytest.mark.parametrize("name", NEVER_CALLED)
def test_a_task_whose_loop_never_calls_the_model_is_skipped_saying_why(imported: dict[str, tuple[EnvSpec, dict]],
                                                                       name: str) -> None:
    spec, report = imported[name]
    setting = NEVER_CALLED[name][1]
    assert spec is None and report["status"] == "skipped", report
    (left,) = report["left_out"]
    assert left["what"] == setting and left["affects_score"] and "never calls the model" in left["why"], left
    assert any("never calls the model" in note for note in report["notes"]), report["notes"]


def _reference_calls(spec: EnvSpec) -> list[ToolCallRequest]:
    return [ToolCallRequest(s.call.name, dict(s.call.arguments), f"c{i}")
            for i, s in enumerate(spec.reference[0].steps) if s.call is not None]


def test_the_episode_is_cut_after_max_turns_model_calls(imported: dict[str, tuple[EnvSpec, dict]]) -> None:
    spec, _ = imported["three"]
    assert spec.max_steps == 3
    env = Env(spec)  # the runner's own limit (60) is lowered to the task's
    env.reset()
    calls = _reference_calls(spec)
    for n, call in enumerate(calls[:3], 1):
        result = env.step(Action(None, (call,)))
        assert result.truncated == (n == 3)
    assert env.done and env.truncated and len(env.audit) == 3  # the third call was dispatched, then it stopped
    # graded as it stands: the list and two gets, no update made (Claw-Eval's grader over those three dispatches)
    assert env.score().score < 0.5
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(Action(None, (calls[3],)))


def test_calls_of_one_message_are_one_turn(imported: dict[str, tuple[EnvSpec, dict]]) -> None:
    spec, _ = imported["three"]
    env = Env(spec, max_steps=1000)
    env.reset()
    env.step(Action(None, tuple(_reference_calls(spec))))  # six calls, one model call
    result = env.step(Action(spec.reference[0].steps[-1].say, ()))
    assert result.terminated and not result.truncated and env.score().score == 1.0


def test_a_task_without_max_turns_gets_claw_evals_default(imported: dict[str, tuple[EnvSpec, dict]]) -> None:
    spec, report = imported["given"]
    assert spec.max_steps == 20 and Env(spec).max_steps == 20 and Env(spec, max_steps=5).max_steps == 5
    assert not [x for x in report["left_out"] if x["what"].startswith("environment.")]
    assert json.loads(spec.to_json())["max_steps"] == 20


def test_the_harness_tools_are_reported_not_offered(imported: dict[str, tuple[EnvSpec, dict]]) -> None:
    spec, report = imported["harness"]
    left = {x["what"]: x for x in report["left_out"]}
    assert {"environment.enable_todo", "environment.enable_compact"} <= set(left)
    assert "`todo` tool" in left["environment.enable_todo"]["why"]
    assert not left["environment.enable_todo"]["affects_score"]
    assert "todo" not in {d.name for d in spec.tool_decls}
    assert report["status"] == imported["given"][1]["status"]


def test_an_endpoint_at_a_port_no_service_listens_on_is_a_refused_connection(tmp_path: Path) -> None:
    # Claw-Eval's dispatcher requests the URL task.yaml gives: at a port none of the task's services listens on
    # (here 9199, and a URL without a port, at 80) it cannot connect, and every call is `Error: [Errno 111]
    # Connection refused`, recorded with status 500 (`runner/dispatcher.py`'s `except Exception`), whatever the
    # path; a tool at the service's own port (9100) is served
    root, out = _one_tool_checkout(tmp_path, "CE01_draft_invoice_reply", "gmail", "gmail_list_messages",
                                   "/gmail/messages", _GMAIL, ("inbox.json", _MAIL))
    task_yaml = root / "tasks" / "CE01_draft_invoice_reply" / "task.yaml"
    doc = yaml.safe_load(task_yaml.read_text(encoding="utf-8"))
    for name, url in (("gmail_get_message", "http://localhost:9199/gmail/messages/get"),
                      ("gmail_send_message", "http://127.0.0.1/gmail/send")):
        doc["tools"].append({"name": name, "description": name, "input_schema": {
            "type": "object", "properties": {"message_id": {"type": "string"}}, "required": ["message_id"]}})
        doc["tool_endpoints"].append({"tool_name": name, "url": url})
    task_yaml.write_text(yaml.safe_dump(doc), encoding="utf-8")
    (report,) = import_checkout(root, out, judge=False)
    assert report.spec_file is not None, report.notes
    spec = load_spec(out / str(report.spec_file)).model_copy(update={"faults": None})
    assert any("at a port no service of the task listens on" in n for n in report.notes), report.notes
    env = Env(spec)
    env.reset()
    for name, args in (("gmail_get_message", {"message_id": "msg_1"}), ("gmail_send_message", {}),
                       ("gmail_get_message", {"message_id": 5})):  # refused before any body is read
        content = env.step(Action.call(name, args)).messages[-1]["content"]
        assert content == "Error: [Errno 111] Connection refused", (name, content)
        entry = env.audit[-1]
        assert not entry.ok and json.loads(entry.error or "") == {"error": "[Errno 111] Connection refused"}
        assert runtime._framework_answer({"ok": False, "fault": "", "tool": name, "args": args,
                                          "error": entry.error}) == (500, {"error": "[Errno 111] Connection refused"})
    env.step(Action.call("gmail_list_messages", {}))
    assert env.audit[-1].ok  # at the service's port: served


@pytest.mark.parametrize(("name", "limit", "calls"), [("given", 300, 4), ("three", 120, 2)])
def test_the_episode_stops_once_its_wall_clock_is_past_timeout_seconds(
        imported: dict[str, tuple[EnvSpec, dict]], monkeypatch: pytest.MonkeyPatch, name: str, limit: int,
        calls: int) -> None:
    """Claw-Eval's loop checks `elapsed > timeout_seconds` before each model call (300 s unless the task says) and,
    past it, stops and grades the episode as it stands. main: the spec had no clock, the agent went on to its turns
    (20 of a model taking 100 s a call, 3 of the cut variant)."""
    spec, _ = imported[name]
    assert spec.time_limit_s == limit  # main: no such field
    clock = [0.0]
    monkeypatch.setattr("time.perf_counter", lambda: clock[0])

    def slow(request: object) -> object:  # every model call takes 100 s of the loop's wall clock
        clock[0] += 100.0
        return model_call("helpdesk_list_tickets", {})

    record = run_agent(Env(spec), ScriptedBackend([slow]))  # type: ignore[list-item]
    # calls at 0, 100, 200 (and 300, not past 300) s; the next check is past the limit: graded as it stands
    assert len(record.steps) == calls and record.stop_reason == "time_limit", (len(record.steps), record.stop_reason)
    assert record.truncated and record.score is not None and record.checks and not record.error
    assert record.timings.wall_s == calls * 100.0
    # the validation gates' transcript-free episodes keep no clock: the same calls however slow the machine
    assert run_episode(Env(spec), _Looping(), max_steps=2).stop_reason == "max_steps"


class _Looping:
    name = "looping"

    def act(self, env: Env) -> Action:
        return Action.call("helpdesk_list_tickets", {})


def test_the_wall_clock_is_kept_out_of_the_environment_hash(imported: dict[str, tuple[EnvSpec, dict]]) -> None:
    """The clock limits a run, not what the agent acted in: records of the env keep their hash (and re-score) when
    only the limit changes, and a spec without one hashes as before the field existed."""
    spec, _ = imported["given"]
    data = json.loads(spec.to_json())
    record_module._ENVIRONMENT_HASHES.clear()
    other = EnvSpec.model_validate({**data, "time_limit_s": 60})
    unset = EnvSpec.model_validate({k: v for k, v in data.items() if k != "time_limit_s"})
    assert len({spec.id, other.id, unset.id}) == 3  # a different spec...
    assert environment_hash(spec) == environment_hash(other) == environment_hash(unset)  # ...in the same environment


def test_the_wall_clock_holds_over_mcp_too(imported: dict[str, tuple[EnvSpec, dict]]) -> None:
    """`coworkenv serve --mcp` of an imported task: an outside agent drives the episode, and the task's
    `timeout_seconds` holds as in Claw-Eval's loop (checked before each call and reply, from the agent's first request,
    not from the server's start); past it the episode is over and the harness reads its score as it stands. main: the
    served episode kept no clock (the agent went on acting past the limit, the harness saw an episode not done)."""
    import anyio
    from mcp import Client

    from coworkenv.serve import EpisodeHost, build_mcp_server

    spec, _ = imported["three"]
    assert spec.time_limit_s == 120
    now = [0.0]
    host = EpisodeHost(spec, clock=lambda: now[0])

    async def episode() -> list[tuple[bool, str]]:
        seen = []
        async with Client(build_mcp_server(host)) as client:
            now[0] = 500.0  # the server waited for its agent: not the episode's time
            await client.list_tools()
            for at in (560.0, 621.0, 630.0):  # 60 s in: acted; 121 s in: past the 120 s limit, and so it stays
                now[0] = at
                result = await client.call_tool("helpdesk_list_tickets", {})
                seen.append((result.is_error, result.content[0].text))  # type: ignore[union-attr]
        return seen

    (first, *late) = anyio.run(episode)
    assert not first[0]
    for is_error, text in late:
        assert is_error and "time limit (120 s) ran out" in text, text
    score = host.result()
    assert score["done"] and score["truncated"] and score["stop_reason"] == "time_limit"
    assert score["steps"] == 1 and score["score"] < 0.5  # scored as it stands: one list, nothing updated
    assert host.call("reply_to_user", {"message": "done"})[0] is False  # a reply past the limit is refused too
    host.reset()  # the harness starts the episode again: a new clock
    now[0] = 10_000.0
    assert host.call("helpdesk_list_tickets", {})[0] and host.result()["stop_reason"] is None


def test_over_mcp_the_turn_limit_counts_model_messages_where_the_client_names_them(
        imported: dict[str, tuple[EnvSpec, dict]]) -> None:
    """Claw-Eval's loop counts model calls (`max_turns`), each dispatching all of its tool calls; an MCP server sees
    calls one at a time. A client that names each call's model message (`_meta` `coworkenv/message`) is counted by
    message: three messages of two, two and three calls all run on a 3-turn task, one transcript message each, and a
    fourth message is refused. main: each call was a turn (the fourth call refused, the episode cut after three)."""
    import anyio
    from mcp import Client

    from coworkenv.serve import EpisodeHost, build_mcp_server

    spec, _ = imported["three"]
    host = EpisodeHost(spec)
    messages = [("m1", 2), ("m2", 2), ("m3", 3), ("m4", 1)]

    async def episode() -> list[bool]:
        refused = []
        async with Client(build_mcp_server(host)) as client:
            for message, calls in messages:
                for _ in range(calls):
                    result = await client.call_tool("helpdesk_list_tickets", {}, meta={"coworkenv/message": message})
                    refused.append(bool(result.is_error))
        return refused

    assert anyio.run(episode) == [False] * 7 + [True]
    score = host.result()
    assert score["steps"] == 3 and score["truncated"] and score["stop_reason"] == "env_step_limit"
    assert [n.calls for n in host.env.notes] == [(0, 1), (2, 3), (4, 5, 6)]  # the grader's trace: one message each
    assert [len(m["tool_calls"]) for m in host.env.messages if m["role"] == "assistant"] == [2, 2, 3]
    # a call naming no message is a message of its own, as before
    host.reset()
    assert [host.call("helpdesk_list_tickets", {})[0] for _ in range(4)] == [True, True, True, False]
    assert host.result()["steps"] == 3
