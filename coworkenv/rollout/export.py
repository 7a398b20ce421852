"""Exporter of trajectory records to ATIF (Harbor's Agent Trajectory Interchange Format), and its validator.

(TRL SFT rows are the SFT stage's: `coworkenv.store.stages.sft_rows`.)
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import asdict
from datetime import datetime
from typing import Any

import orjson

from coworkenv.rollout.record import TrajectoryRecord

# Every field emitted exists since ATIF v1.5; `session_id` is set, which v1.6 and earlier require.
ATIF_SCHEMA_VERSION = "ATIF-v1.6"
_AGENT_ONLY = ("model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics")


def _coworkenv_version() -> str:
    try:
        return importlib.metadata.version("coworkenv")
    except importlib.metadata.PackageNotFoundError:
        return "0+local"


def _arguments(text: str) -> tuple[dict[str, Any], str | None]:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {}, text
    return (value, None) if isinstance(value, dict) else ({}, text)


def to_atif(record: TrajectoryRecord) -> dict[str, Any]:
    """The record as an ATIF trajectory: one step per system/user message and per assistant message, the
    assistant's tool results as that step's observation; verifier results and hashes under `extra`."""
    steps_by_message = {s.message_index: s for s in record.steps}
    steps: list[dict[str, Any]] = []
    for index, message in enumerate(record.messages):
        role = message["role"]
        if role == "tool":
            owner = steps[-1] if steps and steps[-1]["source"] == "agent" else None
            if owner is None:
                raise ValueError(f"record {record.record_id}: tool message {index} does not follow an assistant message")
            owner.setdefault("observation", {"results": []})["results"].append(
                {"source_call_id": message["tool_call_id"], "content": message["content"]})
            continue
        step: dict[str, Any] = {"step_id": len(steps) + 1, "source": "agent" if role == "assistant" else role,
                                "message": message["content"]}
        if role == "assistant":
            step["model_name"] = record.model
            calls, raw = [], {}
            for call in message["tool_calls"]:
                arguments, unparsed = _arguments(call["function"]["arguments"])
                calls.append({"tool_call_id": call["id"], "function_name": call["function"]["name"],
                              "arguments": arguments})
                if unparsed is not None:
                    raw[call["id"]] = unparsed
            if calls:
                step["tool_calls"] = calls
            info = steps_by_message.get(index)
            if info is not None:
                step["metrics"] = {"prompt_tokens": info.prompt_tokens, "completion_tokens": info.completion_tokens}
                step["extra"] = {"turn": info.turn, "kind": info.kind, "state_hash": info.state_hash,
                                 "tool_errors": info.tool_errors, "finish_reason": info.finish_reason}
                if info.parse_errors:
                    step["extra"]["parse_errors"] = info.parse_errors
            if raw:
                step.setdefault("extra", {})["unparsed_arguments"] = raw
        steps.append(step)
    return {
        "schema_version": ATIF_SCHEMA_VERSION,
        "session_id": record.record_id,
        "agent": {
            "name": f"coworkenv-{record.teacher}", "version": _coworkenv_version(), "model_name": record.model,
            "tool_definitions": record.tools, "extra": {"sampling": record.sampling, "user_sim": record.user_sim},
        },
        "steps": steps,
        "notes": f"coworkenv trajectory in {record.env_id} ({record.capability}, {record.turns}-turn); "
                 "tool results are JSON text.",
        "final_metrics": {
            "total_prompt_tokens": record.tokens.agent_prompt,
            "total_completion_tokens": record.tokens.agent_completion,
            "total_steps": len(steps),
            "extra": {"user_prompt_tokens": record.tokens.user_prompt,
                      "user_completion_tokens": record.tokens.user_completion, "wall_s": record.timings.wall_s},
        },
        "extra": {
            "env_id": record.env_id, "spec_hash": record.spec_hash, "capability": record.capability,
            "turns": record.turns, "verifier_version": record.verifier_version,
            "verifier_hash": record.verifier_hash, "score": record.score, "passed": record.passed,
            "checks": [asdict(c) for c in record.checks], "stop_reason": record.stop_reason,
            "started_at": record.started_at, "initial_hash": record.initial_hash, "final_hash": record.final_hash,
            "audit": [e.as_dict() for e in record.audit],
        },
    }


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def validate_atif(doc: Any) -> list[str]:
    """Problems of an ATIF document against the RFC's required fields and rules (empty: valid)."""
    if not isinstance(doc, dict):
        return ["(root): must be an object"]
    errors: list[str] = []
    version = doc.get("schema_version")
    if not (isinstance(version, str) and version.startswith("ATIF-v")):
        errors.append("schema_version: required string like 'ATIF-v1.6'")
    agent = doc.get("agent")
    if not isinstance(agent, dict):
        errors.append("agent: required object")
    else:
        errors += [f"agent.{k}: required string" for k in ("name", "version") if not isinstance(agent.get(k), str)]
    steps = doc.get("steps")
    if not isinstance(steps, list) or not steps:
        return [*errors, "steps: required non-empty array"]
    for i, step in enumerate(steps):
        where = f"steps[{i}]"
        if not isinstance(step, dict):
            errors.append(f"{where}: must be an object")
            continue
        if step.get("step_id") != i + 1:
            errors.append(f"{where}.step_id: must be {i + 1} (sequential from 1), got {step.get('step_id')!r}")
        source = step.get("source")
        if source not in ("system", "user", "agent"):
            errors.append(f"{where}.source: must be system, user or agent, got {source!r}")
        if not isinstance(step.get("message"), str | list):
            errors.append(f"{where}.message: required (string, may be empty)")
        if source != "agent":
            errors += [f"{where}.{k}: only allowed on agent steps" for k in _AGENT_ONLY if k in step]
        if "timestamp" in step:
            try:
                datetime.fromisoformat(str(step["timestamp"]).replace("Z", "+00:00"))
            except ValueError:
                errors.append(f"{where}.timestamp: not ISO 8601")
        call_ids = set()
        for j, call in enumerate(step.get("tool_calls") or []):
            at = f"{where}.tool_calls[{j}]"
            if not isinstance(call.get("tool_call_id"), str) or not isinstance(call.get("function_name"), str):
                errors.append(f"{at}: tool_call_id and function_name are required strings")
            if not isinstance(call.get("arguments"), dict):
                errors.append(f"{at}.arguments: required object")
            call_ids.add(call.get("tool_call_id"))
        observation = step.get("observation")
        if observation is not None:
            results = observation.get("results") if isinstance(observation, dict) else None
            if not isinstance(results, list):
                errors.append(f"{where}.observation.results: required array")
            for j, result in enumerate(results or []):
                ref = result.get("source_call_id")
                if ref is not None and ref not in call_ids:
                    errors.append(f"{where}.observation.results[{j}].source_call_id: {ref!r} is no tool call of "
                                  "this step")
        for key, value in (step.get("metrics") or {}).items():
            if key in ("prompt_tokens", "completion_tokens", "cached_tokens") and not _is_int(value):
                errors.append(f"{where}.metrics.{key}: must be a non-negative integer")
    for key, value in (doc.get("final_metrics") or {}).items():
        if key.startswith("total_") and key != "total_cost_usd" and not _is_int(value):
            errors.append(f"final_metrics.{key}: must be a non-negative integer")
    return errors
