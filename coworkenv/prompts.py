"""The tools of a prompt in the form a prefix cache can reuse: sorted by name, with compact parameter schemas.

Qwen-style chat templates render `tools` into the first system message, so every request of an episode, every
episode of an env, and every env with the same tools share the rendered prefix (fixed instructions + tools)
token for token only when the tool list is the same list: same tools, same order, same JSON. `prompt_tools`
gives that list. It also drops what costs tokens and tells a model nothing it can act on:

- `"additionalProperties": false` (the env rejects unknown arguments with an error the agent can read);
- `anyOf: [T, {"type": "null"}]` with `default: null` on an optional parameter becomes `T`: leaving the
  parameter out means the same, and the env accepts an explicit null as before.

Descriptions, enums, defaults other than null and required lists stay as they are. Tools named in `verbatim`
(a spec's declared tools, e.g. an imported benchmark's) keep their schema exactly as declared.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from typing import Any

_NULL = {"type": "null"}


def _without_null_branch(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """`T` for `{"anyOf": [T, {"type": "null"}], "default": null, ...}`, with the other keys kept; else None."""
    branches = schema.get("anyOf")
    if not isinstance(branches, list) or len(branches) != 2 or _NULL not in branches:
        return None
    if "default" not in schema or schema["default"] is not None:
        return None
    kept = next(b for b in branches if b != _NULL)
    if not isinstance(kept, Mapping):
        return None
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "anyOf":
            out.update(kept)
        elif key != "default":
            out[key] = value
    return out


def compact_parameters(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A tool's `parameters` JSON Schema without `additionalProperties: false` and with optional nullable
    parameters written as their non-null type (see the module docstring); the input is not changed."""
    out: dict[str, Any] = {}
    required = set(schema.get("required") or ())
    for key, value in schema.items():
        if key == "additionalProperties" and value is False:
            continue
        if key == "properties" and isinstance(value, Mapping):
            value = {name: _compact_property(prop, optional=name not in required) for name, prop in value.items()}
        elif key == "items" and isinstance(value, Mapping):
            value = _compact_property(value, optional=False)
        out[key] = value
    return out


def _compact_property(schema: Any, *, optional: bool) -> Any:
    if not isinstance(schema, Mapping):
        return schema
    if optional:
        collapsed = _without_null_branch(schema)
        if collapsed is not None:
            schema = collapsed
    return compact_parameters(schema) if schema.get("type") == "object" or "items" in schema else dict(schema)


def _tool_name(tool: Mapping[str, Any], index: int) -> str:
    function = tool.get("function")
    name = function.get("name") if isinstance(function, Mapping) else None
    if not isinstance(name, str) or not name:
        raise ValueError(f"tools[{index}] has no function.name ({json.dumps(tool, default=str)[:200]}); "
                         "give every tool an OpenAI function schema with a name")
    return name


def prompt_tools(tools: Iterable[Mapping[str, Any]], verbatim: Collection[str] = ()) -> list[dict[str, Any]]:
    """OpenAI function tools as a prompt should carry them: sorted by name, parameters compacted (except for
    the tools named in `verbatim`).

    Raises ValueError naming the tool when one has no name or two share a name.
    """
    named: dict[str, Mapping[str, Any]] = {}
    for index, tool in enumerate(tools):
        name = _tool_name(tool, index)
        if name in named:
            raise ValueError(f"tools[{index}]: a second tool named {name!r}; tool names must be unique")
        named[name] = tool
    out = []
    for name in sorted(named):
        tool = named[name]
        function = dict(tool["function"])
        if name not in verbatim and isinstance(function.get("parameters"), Mapping):
            function["parameters"] = compact_parameters(function["parameters"])
        out.append({**tool, "function": function})
    return out
