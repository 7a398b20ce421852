"""SFT shards in, token ids with an assistant-only mask out.

Rows follow the `sft_shards` contract: `messages` (role, content, tool_calls with JSON-string arguments,
tool_call_id, name), `tools` (JSON string of OpenAI function tools), `env_id`, `capability`, `turns`, `split`.
Arguments and tools stay JSON strings in Arrow (a struct column would merge every tool's keys into every row);
they are decoded to dicts only here, right before the chat template renders them, because Qwen templates expect
dict arguments and render them with `tojson`, exactly as at inference.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import datasets
from transformers import PreTrainedTokenizerBase

from coworkenv.store.stages import SFT_REQUIRED_COLUMNS, read_sft_files, sft_files
from trainers.rendering import render_messages, render_tools

__all__ = [
    "REQUIRED_COLUMNS",
    "DataFile",
    "find_train_files",
    "load_train_split",
    "to_chat",
    "tokenize_conversation",
    "tokenize_split",
]

REQUIRED_COLUMNS = SFT_REQUIRED_COLUMNS
_ROLES = frozenset({"system", "user", "assistant", "tool"})


@dataclass(frozen=True)
class DataFile:
    """One Parquet shard a run trained on, with its content hash (the data version)."""

    path: str
    sha256: str
    rows: int


def find_train_files(data_dir: Path) -> list[Path]:
    """The train-split Parquet files under `data_dir` (a folder of shards or a Hub-layout dataset repo with the
    shards under `data/sft/`): the SFT stage's `sft_files`."""
    return sft_files(Path(data_dir), "train")


def load_train_split(data_dir: Path) -> tuple[datasets.Dataset, list[DataFile]]:
    """Read the train rows of the SFT shards under `data_dir`, with the files and hashes they came from."""
    files = find_train_files(data_dir)
    # Read into memory rather than through `load_dataset`, which would copy every shard into the global HF cache on
    # each run; the shards are already Arrow-friendly Parquet.
    # The hashes and row counts recorded are of the bytes the rows were read from, not of a second read after.
    table, reads = read_sft_files(files, "train")
    if table.num_rows == 0:
        raise ValueError(f"no train rows in {', '.join(map(str, files))}")
    data_files = [DataFile(path=str(read.path), sha256=read.sha256, rows=read.rows) for read in reads]
    return datasets.Dataset(table), data_files


def _decode_arguments(arguments: Any, where: str) -> dict[str, Any]:
    if isinstance(arguments, Mapping):
        return dict(arguments)
    try:
        decoded = json.loads(arguments)
    except (TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{where}.function.arguments is not a JSON string ({exc}): {arguments!r:.200}") from exc
    if not isinstance(decoded, dict):
        raise ValueError(f"{where}.function.arguments must encode a JSON object, got {type(decoded).__name__}")
    return decoded


def to_chat(
    row: Mapping[str, Any], row_label: str = "row", rendering: str = "full"
) -> tuple[list[dict[str, Any]], list[Any] | None]:
    """Turn one shard row into (messages, tools) for `apply_chat_template`, decoding the JSON-string fields.

    Empty `tool_calls` / `tool_call_id` / `name` are dropped so the template sees them as absent. `rendering`
    (`full`, `compact` or `minimal`, see `trainers.rendering`) is applied to the tools and tool calls.
    """
    messages: list[dict[str, Any]] = []
    for index, raw in enumerate(row["messages"]):
        where = f"{row_label}.messages[{index}]"
        role = raw.get("role")
        if role not in _ROLES:
            raise ValueError(f"{where}.role is {role!r}; expected one of {sorted(_ROLES)}")
        message: dict[str, Any] = {"role": role, "content": raw.get("content") or ""}
        calls = raw.get("tool_calls") or []
        if calls:
            message["tool_calls"] = [
                {
                    "id": call.get("id") or "",
                    "type": "function",
                    "function": {
                        "name": call["function"]["name"],
                        "arguments": _decode_arguments(call["function"]["arguments"], f"{where}.tool_calls[{i}]"),
                    },
                }
                for i, call in enumerate(calls)
            ]
        for optional in ("tool_call_id", "name"):
            if raw.get(optional):
                message[optional] = raw[optional]
        messages.append(message)
    if not any(m["role"] == "assistant" for m in messages):
        raise ValueError(f"{row_label} has no assistant message, so there is nothing to train on")

    tools_raw = row.get("tools") or "[]"
    try:
        tools = json.loads(tools_raw) if isinstance(tools_raw, str) else list(tools_raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{row_label}.tools is not valid JSON ({exc})") from exc
    if not isinstance(tools, list):
        raise ValueError(f"{row_label}.tools must encode a JSON list of function tools, got {type(tools).__name__}")
    return render_messages(messages, rendering), render_tools(tools, rendering)


def tokenize_conversation(
    row: Mapping[str, Any], tokenizer: PreTrainedTokenizerBase, row_label: str = "row", rendering: str = "full"
) -> dict[str, list[int]]:
    """Token ids of one rendered conversation and its assistant mask (1 = the model is trained on this token)."""
    messages, tools = to_chat(row, row_label, rendering)
    encoded: Mapping[str, Any] = tokenizer.apply_chat_template(  # type: ignore[assignment]  # a dict with return_dict
        messages,
        tools=tools,
        tokenize=True,
        return_dict=True,
        return_assistant_tokens_mask=True,
    )
    input_ids = list(encoded["input_ids"])
    mask = list(encoded["assistant_masks"])
    if 1 not in mask:
        raise ValueError(
            f"{row_label}: the chat template marked no assistant tokens; it needs {{% generation %}} markers "
            "around assistant output (TRL ships such training templates in trl/chat_templates/)"
        )
    return {"input_ids": input_ids, "assistant_masks": mask}


def tokenize_split(
    dataset: datasets.Dataset, tokenizer: PreTrainedTokenizerBase, rendering: str = "full"
) -> datasets.Dataset:
    """Add `input_ids` and `assistant_masks` to every row; TRL turns the mask into -100 labels.

    `messages` is kept so TRL still recognises the dataset as conversational; the trainer drops it before batching.
    """
    keep = {"messages"}

    def encode(row: dict[str, Any], index: int) -> dict[str, list[int]]:
        return tokenize_conversation(row, tokenizer, row_label=f"train row {index}", rendering=rendering)

    return dataset.map(
        encode,
        with_indices=True,
        remove_columns=[c for c in dataset.column_names if c not in keep],
        keep_in_memory=True,
        desc="Rendering conversations with the chat template",
    )
