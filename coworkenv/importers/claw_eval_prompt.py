"""The system prompt Claw-Eval's runner gives the agent of a task (`runner/system_prompt.py`, `build_system_prompt`),
rendered for an imported spec's `context`.

Claw-Eval builds it from its `prompt` settings (`config.PromptConfig`), whose defaults its shipped configs keep: the
OpenClaw persona, the task's tools (name and description, then each one's JSON Schema), the tool-call style and the
behaviour rules (safety, reply tags, `NO_REPLY` when no reply is needed, heartbeat), the skills section (no skill
listed; skills are read with a `read` tool) and the workspace files section (no file configured). Its runner sends
it as the episode's system message (`runner/loop.py`). Without `--sandbox` the tools are the task's alone (with it,
Claw-Eval adds its shell/file/browser tools, which tasks needing them are skipped for). A model's
`system_prompt_prefix` and the simulated user's suffix are settings of other runs (the latter's tasks are skipped).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from coworkenv.importers.claw_eval_task import ClawTool

PERSONA = "You are a personal assistant running inside OpenClaw."

# `_render_tool_definitions`: the header and the closing rule around the list of tools.
TOOLING_HEAD = ("## Tooling", "Tool availability (filtered by policy):",
                "Tool names are case-sensitive. Call tools exactly as listed.")
TOOLING_RULE = "When a first-class tool exists for an action, use the tool directly."

# `_render_behavior_rules` with `BehaviorRulesConfig`'s defaults.
TOOL_CALL_STYLE = (
    "## Tool Call Style",
    "Default: do not narrate routine, low-risk tool calls (just call the tool).",
    "Narrate only when it helps: multi-step work, complex tasks, or sensitive actions.",
    "Keep narration brief and value-dense.",
    "Tool-call protocol is strict: use native API tool/function calls only.",
    "Never emit tool calls as plain text markup (for example: <tool_call>, <function=...>, <parameter=...>).",
    "If a tool is needed, issue a real tool call block instead of describing or simulating it in text.",
)
BEHAVIOR_RULES = (
    ("Safety", "No independent objective; do not pursue self-preservation, replication, or resource acquisition."),
    ("Tool Call Style", "For low-risk actions, call tools directly without narration; narrate only for complex tasks."),
    ("Reply Tags", "Use [[reply_to_current]] to control reply relationship when needed."),
    ("Silent Reply", "If no reply is needed, output NO_REPLY."),
    ("Heartbeat", "Heartbeat checks should return HEARTBEAT_OK when no action is needed."),
)

# `_render_skills` with `SkillsConfig`'s defaults: no skill listed, loaded through a tool named `read`.
SKILLS = (
    "## Skills (mandatory)",
    "Before replying: scan <available_skills> entries.",
    "- If exactly one skill clearly applies: read its SKILL.md using the configured read tool, then follow it.",
    "- If multiple skills could apply: choose the most specific one, then read and follow it.",
    "- If none clearly apply: do not read any SKILL.md.",
    "Constraints: never read more than one skill up front; only read after selecting.",
    "The full SKILL.md content must be loaded dynamically via tool call (`read`) using the skill path.",
    "<available_skills>\n</available_skills>",
)

# `_render_workspace_blocks` with no AGENTS.md, SOUL.md, USER.md or TOOLS.md configured: the heading alone.
WORKSPACE = "## Workspace Files (injected)"


def _schema(tool: ClawTool) -> object:
    """The schema as Claw-Eval's `ToolSpec` holds it: `{}` where task.yaml gives none (the importer's model fills in
    an empty object schema for its own use)."""
    return tool.input_schema if "input_schema" in tool.model_fields_set else {}


def claw_eval_system_prompt(tools: Sequence[ClawTool]) -> str:
    """Claw-Eval's system prompt for a task offering `tools` (in task.yaml's order), under its default settings."""
    tooling = [*TOOLING_HEAD]
    if tools:
        tooling += [f"- {t.name}: {t.description}" for t in tools] + [TOOLING_RULE]
    else:
        tooling.append("- None")
    blocks = [PERSONA, "\n".join(tooling)]
    schemas = ["## Tool Schemas", "Complete JSON Schema for available tools:"]
    for t in tools:
        schemas += [f"- {t.name}", "```json", json.dumps(_schema(t), ensure_ascii=False, indent=2), "```"]
    blocks.append("\n".join(schemas) if tools else "")
    rules = [*TOOL_CALL_STYLE, "", "## Safety", *(f"- {name}: {text}" for name, text in BEHAVIOR_RULES)]
    blocks += ["\n".join(rules), "\n".join(SKILLS), WORKSPACE]
    return "\n\n".join(blocks).strip()
