"""SFT trainer: assistant-only loss masks, a short CPU training run, the saved checkpoint, config loading."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

# --- a synthetic sft_shards fixture in the exact row shape the curation stage writes --------------------------------

_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "logs_search",
            "description": "Search service logs by service, level and time window.",
            "parameters": {
                "type": "object",
                "properties": {
                    "service": {"type": "string", "description": "service name"},
                    "level": {"type": "string", "enum": ["debug", "info", "warn", "error"]},
                    "since": {"type": "string", "description": "ISO timestamp"},
                },
                "required": ["service"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "services_rollback_config",
            "description": "Roll a service back to an earlier config version.",
            "parameters": {
                "type": "object",
                "properties": {"service": {"type": "string"}, "version": {"type": "integer"}},
                "required": ["service", "version"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "chat_post_message",
            "description": "Post a message to a chat channel.",
            "parameters": {
                "type": "object",
                "properties": {"channel": {"type": "string"}, "text": {"type": "string"}},
                "required": ["channel", "text"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "mail_send",
            "description": "Send an email.",
            "parameters": {
                "type": "object",
                "properties": {
                    "to": {"type": "array", "items": {"type": "string"}},
                    "subject": {"type": "string"},
                    "body": {"type": "string"},
                },
                "required": ["to", "subject", "body"],
            },
        },
    },
]
_SERVICES = ["checkout", "search", "billing", "auth", "inventory", "notifications"]
_PEOPLE = ["dana", "priya", "omar", "lena", "kenji", "sofia"]
_CHANNELS = ["#ops", "#incidents", "#eng", "#oncall"]


def _message(role: str, content: str = "", **extra: Any) -> dict[str, Any]:
    return {
        "role": role,
        "content": content,
        "tool_calls": extra.get("tool_calls", []),
        "tool_call_id": extra.get("tool_call_id", ""),
        "name": extra.get("name", ""),
    }


def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def make_sft_rows(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """`n` incident-response transcripts; every third one has a second user turn (multi-turn)."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        service, person, channel = rng.choice(_SERVICES), rng.choice(_PEOPLE), rng.choice(_CHANNELS)
        bad, good = rng.randint(20, 90), 0
        good = bad - 1
        hour = rng.randint(0, 23)
        logs = [
            {"ts": f"2025-03-04T{hour:02d}:{m:02d}:00Z", "level": "error", "msg": f"config v{bad}: timeout to db"}
            for m in range(0, 50, 10)
        ]
        messages = [
            _message("system", "You are a coworker agent in the Acme workspace. Use the tools to act."),
            _message("user", f"{service} is failing since {hour:02d}:00. Fix it and tell {channel}."),
            _message("assistant", tool_calls=[_call(f"c{i}a", "logs_search", {"service": service, "level": "error"})]),
            _message("tool", json.dumps({"lines": logs}), tool_call_id=f"c{i}a", name="logs_search"),
            _message(
                "assistant",
                f"The errors started with config v{bad}; rolling back to v{good}.",
                tool_calls=[_call(f"c{i}b", "services_rollback_config", {"service": service, "version": good})],
            ),
            _message("tool", json.dumps({"ok": True, "active_version": good}), tool_call_id=f"c{i}b"),
            _message(
                "assistant",
                tool_calls=[
                    _call(f"c{i}c", "chat_post_message", {"channel": channel, "text": f"{service} rolled back to v{good}"})
                ],
            ),
            _message("tool", json.dumps({"ok": True}), tool_call_id=f"c{i}c", name="chat_post_message"),
            _message("assistant", f"Done: {service} is back on config v{good} and {channel} knows."),
        ]
        multi = i % 3 == 0
        if multi:
            messages += [
                _message("user", f"Thanks. Also mail {person} a short summary."),
                _message(
                    "assistant",
                    tool_calls=[
                        _call(
                            f"c{i}d",
                            "mail_send",
                            {"to": [f"{person}@acme.test"], "subject": f"{service} incident", "body": f"v{bad} -> v{good}"},
                        )
                    ],
                ),
                _message("tool", json.dumps({"ok": True, "id": f"m{i}"}), tool_call_id=f"c{i}d", name="mail_send"),
                _message("assistant", f"Mailed {person} the summary."),
            ]
        rows.append(
            {
                "messages": messages,
                "tools": json.dumps(_TOOLS),
                "env_id": f"env-{i:04d}",
                "capability": "incident_response",
                "turns": "multi" if multi else "single",
                "split": "train",
            }
        )
    return rows


def write_sft_shards(root: Path, rows: list[dict[str, Any]]) -> Path:
    """Write `rows` as a Hub-layout dataset repo (data/sft/train-00000-of-00001.parquet); returns the repo dir."""
    folder = root / "data" / "sft"
    folder.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), folder / "train-00000-of-00001.parquet")
    return root
