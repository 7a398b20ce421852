"""The system prompt an imported task's agent gets (import48). Claw-Eval's runner sends its agent one system message
built by `runner/system_prompt.py` (`build_system_prompt`, default `PromptConfig`): the OpenClaw persona, the task's
tools with their descriptions and JSON Schemas, rules on tool calls (call them natively, do not narrate routine ones)
and on replies (`NO_REPLY` when none is needed, reply tags, heartbeat), the skills and workspace sections. An imported
spec's context was one line ("Imported from a Claw-Eval task; ..."), so the agent acted under the env's own rules
alone. Now the context is Claw-Eval's prompt for the task (`--system-prompt env` keeps the line), sent alone as the
agent's one system message (import49: `EnvSpec.source_prompt`), before the task's prompt, with the tools in
task.yaml's order, as Claw-Eval's loop sends them. The last test, over
a real checkout (CLAW_EVAL_CHECKOUT), compares the context with what Claw-Eval's own code builds for every task
imported from it."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
import types
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from coworkenv import Env
from coworkenv.cli import app
from coworkenv.env import opening_messages
from coworkenv.importers import ImportProblem, import_task
from coworkenv.importers.claw_eval import ENV_CONTEXT
from coworkenv.importers.claw_eval_prompt import claw_eval_system_prompt
from coworkenv.importers.claw_eval_task import ClawTool, load_task
from coworkenv.importers.claw_eval_user import suffix_of
from coworkenv.loading import load_spec
from coworkenv.rollout import run_agent
from coworkenv.spec import EnvSpec
from tests.test_rollout_agent_loop import ScriptedBackend, say

CHECKOUT = Path(__file__).parent / "fixtures" / "claw_eval_like"
TASK = CHECKOUT / "tasks" / "CE02_vpn_ticket_triage"
REAL = os.environ.get("CLAW_EVAL_CHECKOUT")

# Claw-Eval's rule lines under its default settings (`system_prompt.py`, `config.BehaviorRulesConfig`), by section.
RULES = {
    "## Tool Call Style": ["Default: do not narrate routine, low-risk tool calls (just call the tool).",
                           "Tool-call protocol is strict: use native API tool/function calls only."],
    "## Safety": ["- Safety: No independent objective; do not pursue self-preservation, replication, or resource "
                  "acquisition.",
                  "- Silent Reply: If no reply is needed, output NO_REPLY.",
                  "- Reply Tags: Use [[reply_to_current]] to control reply relationship when needed.",
                  "- Heartbeat: Heartbeat checks should return HEARTBEAT_OK when no action is needed."],
    "## Skills (mandatory)": ["- If none clearly apply: do not read any SKILL.md.", "<available_skills>"],
    "## Workspace Files (injected)": [],
}


def _system_text(task_dir: Path, **options: Any) -> str:
    spec, report = import_task(task_dir, **options)
    assert spec is not None, report.notes
    return "\n".join(m["content"] for m in opening_messages(spec, Env(spec).state))


def test_the_agent_gets_claw_evals_system_prompt_for_the_task() -> None:
    text = _system_text(TASK)
    tools = yaml.safe_load((TASK / "task.yaml").read_text(encoding="utf-8"))["tools"]
    # main: the context was one line: no persona, no tool list, none of the rules
    assert "You are a personal assistant running inside OpenClaw." in text
    at = text.index("## Tooling")
    for tool in tools:  # each tool with its description, in task.yaml's order, then each schema as Claw-Eval dumps it
        line = f"- {tool['name']}: {tool['description']}"
        assert line in text[at:], line
        at = text.index(line, at)
    assert "When a first-class tool exists for an action, use the tool directly." in text
    at = text.index("## Tool Schemas")
    for tool in tools:
        block = f"- {tool['name']}\n```json\n{json.dumps(tool['input_schema'], ensure_ascii=False, indent=2)}\n```"
        assert block in text[at:], tool["name"]
        at = text.index(block, at)
    for heading, lines in RULES.items():  # the sections in Claw-Eval's order, each with its rules
        assert heading in text[at:], heading
        at = text.index(heading, at)
        for line in lines:
            assert line in text[at:], line


def test_the_agent_sees_claw_evals_system_message_alone_then_the_task_prompt(tmp_path: Path) -> None:
    """Claw-Eval's loop sends `[system: build_system_prompt(...), user: prompt.text]` and nothing else before the
    first model call. main: the env's own first system message (`AGENT_INSTRUCTIONS`, "You are an AI coworker...")
    came first, then a second one with the env's line on the user, the time and the apps before Claw-Eval's prompt;
    the prompt's text was stripped and the tools sorted by name."""
    task = tmp_path / TASK.name
    shutil.copytree(TASK, task)
    doc = yaml.safe_load((task / "task.yaml").read_text(encoding="utf-8"))
    doc["prompt"]["text"] = f"  {doc['prompt']['text']}\n"  # as a YAML block (`text: |`) ends, with a newline
    (task / "task.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    spec, report = import_task(task)
    assert spec is not None, report.notes
    backend = ScriptedBackend([say("Done.")])
    run_agent(Env(spec), backend)
    sent = backend.requests[0].messages
    assert [m["role"] for m in sent] == ["system", "user"], [m["role"] for m in sent]
    assert sent[0]["content"] == spec.context and sent[0]["content"].startswith(
        "You are a personal assistant running inside OpenClaw.")
    assert sent[1]["content"] == doc["prompt"]["text"]  # as written, its block's last newline too
    assert "You are an AI coworker" not in sent[0]["content"] and "You act for" not in sent[0]["content"]
    # the tools as its provider sends them (`_tool_spec_to_openai`), in task.yaml's order (main: sorted by name)
    assert backend.requests[0].tools == [
        {"type": "function", "function": {"name": t["name"], "description": t["description"],
                                          "parameters": t["input_schema"]}} for t in doc["tools"]]
    # the env's own opening stays for the one-line context, and for every spec that does not ask otherwise
    plain, _ = import_task(TASK, system_prompt="env")
    assert plain is not None and not plain.source_prompt
    assert [m["role"] for m in Env(plain).reset()[0]] == ["system", "system", "user"]
    with pytest.raises(ValueError, match="source_prompt is true but the context is empty"):
        EnvSpec.model_validate({**json.loads(spec.to_json()), "context": " "})


def test_the_env_option_keeps_the_one_line_context(tmp_path: Path) -> None:
    text = _system_text(TASK, system_prompt="env")
    assert "Imported from a Claw-Eval task; the tools are the task's own." in text
    assert "OpenClaw" not in text and "## Tooling" not in text
    command = ["import", "claw-eval", str(TASK), "--out", str(tmp_path / "out")]
    bad = CliRunner().invoke(app, [*command, "--system-prompt", "openclaw"])
    assert bad.exit_code == 2 and "--system-prompt" in bad.output and not (tmp_path / "out").exists(), bad.output
    done = CliRunner().invoke(app, [*command, "--system-prompt", "env"])
    assert done.exit_code == 0, done.output
    assert load_spec(tmp_path / "out" / f"{TASK.name}.json").context == ENV_CONTEXT
    with pytest.raises(ImportProblem, match="system_prompt 'openclaw'"):  # not quietly the one line
        import_task(TASK, system_prompt="openclaw")  # type: ignore[arg-type]


def _claw_eval_builder(src: Path) -> Any:
    """Claw-Eval's `build_system_prompt` and models, loaded from the checkout's src/ without `claw_eval.runner`'s
    package init (it imports the model client)."""
    if "claw_eval" not in sys.modules:
        sys.path.insert(0, str(src))
    runner = types.ModuleType("claw_eval.runner")
    runner.__path__ = [str(src / "claw_eval" / "runner")]
    sys.modules.setdefault("claw_eval.runner", runner)
    spec = importlib.util.spec_from_file_location("claw_eval.runner.system_prompt",
                                                  src / "claw_eval" / "runner" / "system_prompt.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from claw_eval.config import PromptConfig  # type: ignore[import-not-found]
    from claw_eval.models.task import TaskDefinition  # type: ignore[import-not-found]
    return lambda path: module.build_system_prompt(TaskDefinition.from_yaml(path), PromptConfig())


@pytest.mark.skipif(not REAL, reason="set CLAW_EVAL_CHECKOUT to a claw-eval checkout")
def test_the_context_is_what_claw_eval_builds_for_every_imported_task() -> None:
    root = Path(str(REAL))
    build = _claw_eval_builder(root / "src")
    compared = 0
    for task_yaml in sorted((root / "tasks").glob("*/task.yaml")):
        task = load_task(task_yaml.parent)
        if not task.tools and not task.user_agent.get("enabled"):
            continue  # skipped by the import, whatever its prompt
        spec, _ = import_task(task_yaml.parent, judge=True)  # a judged grader scores the same prompt
        if spec is None:
            continue
        suffix = suffix_of(task.user_agent)  # the loop appends a simulated user's suffix to the runner's prompt
        assert spec.context == build(task_yaml) + (f"\n\n{suffix}" if suffix else ""), task.task_id
        compared += 1
    assert compared >= 50, compared


def test_a_tool_without_a_schema_and_non_ascii_text_are_shown_as_claw_eval_dumps_them() -> None:
    """Claw-Eval's `ToolSpec.input_schema` defaults to `{}` (the importer's model fills in an object schema for its
    own use) and its schemas are dumped with `ensure_ascii=False`."""
    tools = [ClawTool.model_validate({"name": "notes_list", "description": "列出笔记"}),
             ClawTool.model_validate({"name": "notes_get", "description": "Get one",
                                      "input_schema": {"type": "object", "properties": {"id": {"description": "编号"}}}})]
    text = claw_eval_system_prompt(tools)
    assert "- notes_list: 列出笔记\n- notes_get: Get one\nWhen a first-class tool" in text
    assert "- notes_list\n```json\n{}\n```" in text and '"description": "编号"' in text
    assert claw_eval_system_prompt([]).split("\n\n")[1].endswith("- None")  # no tool: Claw-Eval's "- None"
