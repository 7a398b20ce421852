"""Tool-call parsing: OpenAI native `tool_calls` first, the Qwen/hermes `<tool_call>` text form as fallback."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from coworkenv.llm._types import ToolCall

_TOOL_CALL_BLOCK = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
_OPEN_TAG = "<tool_call>"


def _call_id(index: int, raw: str) -> str:
    # Deterministic ids keep trajectories reproducible for a given model output.
    digest = hashlib.sha256(f"{index}:{raw}".encode()).hexdigest()[:16]
    return f"call_{digest}"


def _arguments_json(arguments: Any, where: str) -> tuple[str | None, str | None]:
    """Return (arguments as a JSON object string, error) for a dict or a JSON string."""
    if arguments is None:
        return "{}", None
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments, strict=False) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            return None, f"{where}: arguments are not valid JSON ({exc.msg} at char {exc.pos})"
        arguments = decoded
    if not isinstance(arguments, dict):
        return None, f"{where}: arguments must be a JSON object, got {type(arguments).__name__}"
    return json.dumps(arguments, ensure_ascii=False), None


def _parse_native(native: list[Any]) -> tuple[list[ToolCall], list[str]]:
    calls: list[ToolCall] = []
    errors: list[str] = []
    for index, item in enumerate(native):
        where = f"tool_calls[{index}]"
        function = item.get("function") if isinstance(item, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            errors.append(f"{where}: missing function name")
            continue
        name = function["name"]
        arguments, error = _arguments_json(function.get("arguments"), f"{where} ({name})")
        if error is not None or arguments is None:
            errors.append(error or f"{where}: unreadable arguments")
            continue
        call_id = item.get("id") if isinstance(item.get("id"), str) and item.get("id") else None
        calls.append(ToolCall(id=call_id or _call_id(index, name + arguments), name=name, arguments=arguments))
    return calls, errors


def _parse_hermes_block(index: int, raw: str) -> tuple[ToolCall | None, str | None]:
    where = f"<tool_call> #{index + 1}"
    try:
        # strict=False admits raw control characters inside strings, which small models emit.
        payload = json.loads(raw, strict=False)
    except json.JSONDecodeError as exc:
        return None, f"{where}: not valid JSON ({exc.msg} at char {exc.pos}): {raw.strip()[:200]!r}"
    if not isinstance(payload, dict):
        return None, f"{where}: expected an object with 'name' and 'arguments'"
    name = payload.get("name")
    if not isinstance(name, str) or not name:
        return None, f"{where}: missing 'name'"
    # Some chat templates emit "parameters" instead of "arguments".
    raw_arguments = payload.get("arguments", payload.get("parameters"))
    arguments, error = _arguments_json(raw_arguments, f"{where} ({name})")
    if error is not None or arguments is None:
        return None, error or f"{where}: unreadable arguments"
    return ToolCall(id=_call_id(index, raw), name=name, arguments=arguments), None


def _parse_hermes(content: str) -> tuple[str | None, list[ToolCall], list[str]]:
    calls: list[ToolCall] = []
    errors: list[str] = []
    blocks = list(_TOOL_CALL_BLOCK.finditer(content))
    for index, match in enumerate(blocks):
        call, error = _parse_hermes_block(index, match.group(1))
        if call is not None:
            calls.append(call)
        if error is not None:
            errors.append(error)
    remaining = _TOOL_CALL_BLOCK.sub("", content)
    # An opening tag without its closing tag means the output was cut off (e.g. max_tokens).
    dangling = remaining.find(_OPEN_TAG)
    if dangling >= 0:
        tail = remaining[dangling + len(_OPEN_TAG) :].strip()
        errors.append(f"<tool_call> #{len(blocks) + 1}: not closed with </tool_call>: {tail[:200]!r}")
        remaining = remaining[:dangling]
    text = remaining.strip()
    return (text or None), calls, errors


def parse_tool_calls(
    content: str | None, native: list[Any] | None
) -> tuple[str | None, list[ToolCall], list[str]]:
    """Extract tool calls from an assistant message.

    Native OpenAI `tool_calls` win when present; otherwise `<tool_call>{"name": ..., "arguments":
    {...}}</tool_call>` blocks in `content` are parsed. Returns (remaining text, calls, parse errors):
    a malformed call becomes an error message, never an exception.
    """
    if native:
        calls, errors = _parse_native(native)
        text = content.strip() if content else None
        return (text or None), calls, errors
    if not content:
        return None, [], []
    if _OPEN_TAG not in content:
        return content, [], []
    return _parse_hermes(content)
