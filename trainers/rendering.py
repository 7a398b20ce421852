"""How a conversation's tools and tool calls are rendered for a model: `full` (as the env serves them) or `compact`.

Tool schemas dominate a prompt: 12-37 tools with JSON-Schema descriptions are 1.7k-5k tokens, more than a model
trained from scratch on CPU can afford per example. The `compact` rendering keeps what an agent needs to call a
tool and drops the rest:

- only the tools the env exposes (those in the request), in the same order;
- a short description: the first sentence of the tool's description, at most `SHORT_DESCRIPTION_CHARS` characters;
- parameters as a flat name -> type map (`string`, `integer`, `p1|p2|p3` for an enum, `array of string`, with
  `, optional` on parameters that are not required); parameter descriptions, defaults, `additionalProperties` and
  the JSON-Schema envelope are dropped;
- tool-call arguments as compact JSON (no spaces after `,` and `:`), in the order the model wrote them.

`minimal` is `compact` without the descriptions (a tool is its name and its parameters): for the smallest models,
trained from scratch, where every prompt token costs training time; the tool names say what the tools do.

`spaced` is `minimal` with every JSON string value of a tool call's arguments and of a tool result written after one
space (`{"query":" Bramwell Fitness"}`); keys, prose and the user's messages are unchanged. Qwen's pre-tokenization
(which the tiny tokenizer mirrors) joins a word to the character before it, so `Bramwell` after a JSON quote is
other tokens than ` Bramwell` in prose, and a copy head (`trainers.copy_model`) cannot copy the first word of a value
the agent read in prose into a call. After a space, a value is the same tokens in a request, a tool result and a
call, at almost no cost in sequence length (+0.7 % tokens per demonstration in L19, docs/learning.md). The model
writes values the same way; `unspaced_arguments` takes the one space off again before a call reaches the env.

`cells` is `spaced` with every markdown table inside a tool result written one cell per line, each cell after its
row's key (the first column) and its column's name: `| Madrid | R-944 |` under `| office | badge desk room |`
becomes `- Madrid, badge desk room: R-944` (the dash puts a space before the key, which a line start inside a
JSON string, after a literal `\n`, would not). The header line stays (so the first column's name is kept) and the
`|---|` line goes; a table whose rows do not all have the header's number of cells stays as it is. In a table the
name of a cell's column is a whole table away and its row key a row away, so picking the cell that answers "the
badge desk room of Madrid" needs an attention pattern a model of a few million parameters did not learn in 30
minutes (L19: lookups 2/34, drafts 0/34, docs/learning.md); as a cell line, the row key and the column name stand
right before the value, where a copy head (`trainers.copy_model`) finds it by what precedes it. Nothing is lost
(the table can be rebuilt from the lines); the env, its results and its checks are unchanged; only what the model
reads changes.

Training (`trainers.sft_data`) and inference (`trainers.local_backend.ChatRenderer`, used by evaluation and the RL
rollouts) call the same functions, so a model sees at evaluation exactly the rendering it was trained on. The mode
is part of the SFT config (`model.rendering`) and is written into the checkpoint (`rendering.json`), from which the
local backend reads it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, get_args

from coworkenv.atomic import atomic_write_bytes
from coworkenv.checkpoint_manifest import checked_checkpoint_file

__all__ = [
    "RENDERING_FILE",
    "SHORT_DESCRIPTION_CHARS",
    "SPACED_MODES",
    "RenderingMode",
    "compact_arguments",
    "compact_tool",
    "read_rendering",
    "render_messages",
    "render_tools",
    "spaced_values",
    "table_cells",
    "unspaced_arguments",
    "write_rendering",
]

RenderingMode = Literal["full", "compact", "minimal", "spaced", "cells"]
SPACED_MODES = ("spaced", "cells")  # the modes whose string values are written after one space
RENDERING_FILE = "rendering.json"
SHORT_DESCRIPTION_CHARS = 60
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


def _check_mode(mode: str) -> RenderingMode:
    if mode not in get_args(RenderingMode):
        raise ValueError(f"unknown rendering {mode!r}; use one of {', '.join(get_args(RenderingMode))}")
    return mode  # type: ignore[return-value]  # checked against the Literal's values just above


def _short(description: str) -> str:
    first = _SENTENCE_END.split(description.strip(), maxsplit=1)[0]
    return first if len(first) <= SHORT_DESCRIPTION_CHARS else first[: SHORT_DESCRIPTION_CHARS - 3].rstrip() + "..."


def _type_of(schema: Mapping[str, Any]) -> str:
    if "enum" in schema:
        return "|".join(str(v) for v in schema["enum"])
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = "|".join(str(k) for k in kind)
    if kind == "array" and isinstance(schema.get("items"), Mapping):
        return f"array of {_type_of(schema['items'])}"
    return str(kind)


def compact_tool(tool: Mapping[str, Any], *, describe: bool = True) -> dict[str, Any]:
    """One OpenAI function tool, compacted: name, first-sentence description (unless not `describe`) and
    `parameters` as name -> type in name order (enum values joined by `|`, `, optional` for parameters that are not
    required)."""
    function = tool.get("function", tool)
    if "name" not in function:
        raise ValueError(f"a tool without a name cannot be rendered: {json.dumps(tool)[:200]}")
    parameters = function.get("parameters") or {}
    required = set(parameters.get("required") or ())
    # In name order: the tools stored with a demonstration (keys sorted) and those of a live request render alike.
    signature = {name: _type_of(schema) + ("" if name in required else ", optional")
                 for name, schema in sorted((parameters.get("properties") or {}).items())}
    if not describe:
        return {"name": function["name"], "parameters": signature}
    return {"name": function["name"], "description": _short(function.get("description") or ""),
            "parameters": signature}


def render_tools(tools: Sequence[Mapping[str, Any]] | None, mode: str) -> list[dict[str, Any]] | None:
    """The tools as the chat template should see them under `mode` (None when there are none)."""
    if not tools:
        return None
    mode = _check_mode(mode)
    if mode == "full":
        return [dict(t) for t in tools]
    return [compact_tool(t, describe=mode == "compact") for t in tools]


def _map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """`value` with `change` applied to every string in it (dict keys excepted)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_map_strings(v, change) for v in value]
    if isinstance(value, dict):
        return {k: _map_strings(v, change) for k, v in value.items()}
    return value


def spaced_values(value: Any) -> Any:
    """`value` with one space before every string in it (dict keys excepted): the `spaced` rendering's values."""
    return _map_strings(value, lambda text: " " + text)


def _json_object(text: str) -> dict[str, Any] | None:
    """The JSON object `text` holds (blank text: an empty one), or None when it holds none."""
    try:
        decoded = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError:
        return None
    return decoded if isinstance(decoded, dict) else None


def unspaced_arguments(arguments: str) -> str:
    """A call's arguments as a model trained on the `spaced` rendering wrote them, with the one space before each
    string value taken off (a value written without it stays); text that is not a JSON object stays as written."""
    decoded = _json_object(arguments)
    if decoded is None:
        return arguments
    unspaced = _map_strings(decoded, lambda text: text.removeprefix(" "))
    return json.dumps(unspaced, ensure_ascii=False, separators=(",", ":"))


def _table_row(line: str) -> list[str] | None:
    """The cells of one markdown table line (`| a | b |`), or None when the line is not one."""
    stripped = line.strip()
    if not stripped.startswith("|"):
        return None
    return [cell.strip() for cell in stripped.strip("|").split("|")]


def table_cells(text: str) -> str:
    """`text` with every markdown table written one cell per line (`- <row key>, <column>: <value>`): the `cells`
    rendering of a string in a tool result. A table whose rows do not all match its header stays as written."""
    if "|" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        header = _table_row(lines[i])
        if header is None or len(header) < 2 or i + 1 >= len(lines) or not _TABLE_RULE.match(lines[i + 1]):
            out.append(lines[i])
            i += 1
            continue
        end = i + 2
        rows: list[list[str]] = []
        while end < len(lines) and (row := _table_row(lines[end])) is not None:
            rows.append(row)
            end += 1
        if any(len(row) != len(header) for row in rows):
            out.extend(lines[i:end])
        else:
            out.append(lines[i])
            out.extend(f"- {row[0]}, {name}: {value}" for row in rows for name, value in zip(header[1:], row[1:], strict=True))
        i = end
    return "\n".join(out)


def _spaced_result(content: Any, *, cells: bool = False) -> Any:
    """A tool result's text under `spaced`: JSON objects and arrays re-written compact with spaced strings; under
    `cells` the markdown tables in its strings (or in its plain text) written one cell per line first."""
    if not isinstance(content, str):
        return content
    if not content.lstrip().startswith(("{", "[")):
        return table_cells(content) if cells else content
    try:
        decoded = json.loads(content)
    except json.JSONDecodeError:
        return content
    if cells:
        decoded = _map_strings(decoded, table_cells)
    return json.dumps(spaced_values(decoded), ensure_ascii=False, separators=(",", ":"))


def compact_arguments(arguments: Any, *, spaced: bool = False) -> Any:
    """Tool-call arguments as compact JSON text (`spaced`: every string value after one space); text that is not a
    JSON object stays as the model wrote it."""
    if isinstance(arguments, str):
        decoded = _json_object(arguments)
        if decoded is None:
            return arguments
        arguments = decoded
    arguments = arguments if arguments is not None else {}
    return json.dumps(spaced_values(arguments) if spaced else arguments, ensure_ascii=False, separators=(",", ":"))


def render_messages(messages: Sequence[dict[str, Any]], mode: str) -> list[dict[str, Any]]:
    """Template-ready messages (see `trainers.local_backend.template_messages`) under `mode`.

    `compact`, `minimal`, `spaced` and `cells` write every tool call's arguments as compact JSON text, which
    Qwen-style templates emit verbatim; `spaced` and `cells` also write tool results that are JSON with spaced string
    values, and `cells` their markdown tables one cell per line.
    """
    mode = _check_mode(mode)
    if mode == "full":
        return list(messages)
    spaced = mode in SPACED_MODES
    out = []
    for message in messages:
        calls = message.get("tool_calls")
        if calls:
            message = {**message, "tool_calls": [
                {**call, "function": {**call["function"],
                                      "arguments": compact_arguments(call["function"].get("arguments"), spaced=spaced)}}
                for call in calls
            ]}
        if spaced and message.get("role") == "tool":
            message = {**message, "content": _spaced_result(message.get("content"), cells=mode == "cells")}
        out.append(message)
    return out


def write_rendering(checkpoint: Path, mode: str) -> None:
    """Record the rendering a checkpoint was trained with, so inference renders the same way."""
    atomic_write_bytes(Path(checkpoint) / RENDERING_FILE, (json.dumps({"rendering": _check_mode(mode)}) + "\n").encode())


def read_rendering(checkpoint: str | Path) -> RenderingMode:
    """The rendering recorded in `checkpoint`; `full` for checkpoints that record none."""
    path = Path(checkpoint) / RENDERING_FILE
    if not path.is_file():
        return "full"
    try:
        # checked against the checkpoint's manifest: an edited rendering.json rendered prompts unlike training's
        mode = json.loads(checked_checkpoint_file(path).decode("utf-8"))["rendering"]
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as exc:
        modes = "|".join(f'"{m}"' for m in get_args(RenderingMode))
        raise ValueError(f"{path}: expected {{\"rendering\": {modes}}} ({exc})") from exc
    return _check_mode(str(mode))
