"""The canonical trajectory record: one episode of a teacher or student in an Env, and its Parquet row codec
(files of them are written and read by `coworkenv.store.stages`).

A record carries everything needed to train on it (messages in the TRL chat shape, the tools), to audit it
(audit log, state hash per step, per-check verifier results) and to re-score it when a verifier changes
(env and verifier hashes, the replies; `rescore` replays the messages in a fresh Env).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import orjson
import pyarrow as pa

from coworkenv.checks import AuditEntry, CheckResult, Reply
from coworkenv.spec import EnvSpec
from coworkenv.world import content_hash

RECORD_FORMAT_VERSION = "1"
Turns = Literal["single", "multi"]
StepKind = Literal["act", "clarify"]

# -- the TRL chat message shape (shared with the SFT rows: every struct has every key) ---------------------------
TOOL_CALL_TYPE = pa.struct([
    ("id", pa.string()),
    ("type", pa.string()),
    ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())])),
])
MESSAGE_TYPE = pa.struct([
    ("role", pa.string()),
    ("content", pa.string()),
    ("tool_calls", pa.list_(TOOL_CALL_TYPE)),
    ("tool_call_id", pa.string()),
    ("name", pa.string()),
])


def trl_message(message: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-style chat message as a TRL message struct: all five keys, strings never null."""
    calls = [
        {"id": str(c.get("id") or ""), "type": "function",
         "function": {"name": str(c["function"]["name"]), "arguments": _arguments_text(c["function"].get("arguments"))}}
        for c in message.get("tool_calls") or ()
    ]
    return {
        "role": str(message["role"]),
        "content": str(message.get("content") or ""),
        "tool_calls": calls,
        "tool_call_id": str(message.get("tool_call_id") or ""),
        "name": str(message.get("name") or ""),
    }


def openai_message(message: dict[str, Any]) -> dict[str, Any]:
    """A TRL message struct as an OpenAI chat message (no empty `tool_calls`, ids or names, which servers reject)."""
    out: dict[str, Any] = {"role": message["role"], "content": message.get("content") or ""}
    if message.get("tool_calls"):
        out["tool_calls"] = [dict(c) for c in message["tool_calls"]]
        if not out["content"]:
            out["content"] = None
    if message.get("tool_call_id"):
        out["tool_call_id"] = message["tool_call_id"]
    if message.get("name") and message["role"] == "tool":
        out["name"] = message["name"]
    return out


def _arguments_text(arguments: Any) -> str:
    if arguments is None:
        return "{}"
    return arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()


def _normal_text(text: str) -> str:
    return " ".join(text.lower().split())


def normalized_transcript_hash(messages: Sequence[dict[str, Any]]) -> str:
    """Hash of a transcript with call ids dropped, whitespace collapsed and case folded (exact-dedup key)."""
    canonical = []
    for m in messages:
        calls = []
        for c in m.get("tool_calls") or ():
            args: Any = c["function"]["arguments"]
            try:  # equal arguments written differently (key order, spacing) are the same call
                args = orjson.loads(args)
            except orjson.JSONDecodeError:
                args = _normal_text(str(args))
            calls.append([c["function"]["name"], args])
        canonical.append([m["role"], _normal_text(m.get("content") or ""), calls])
    return content_hash(canonical)


_ENVIRONMENT_HASHES: dict[str, str] = {}  # by spec id: ids are content hashes, so an entry never goes stale


def environment_hash(spec: EnvSpec) -> str:
    """Hash of what the agent acted in: the spec without its checks, reference solution and metadata.

    Re-scoring needs this unchanged; a change of checks alone changes `spec.id` but not this hash. The wall clock
    (`time_limit_s`, a limit of the run, not of what the agent acted in) is left out, and so is `source_prompt`
    while false: the hashes of specs without them stay as they were.
    """
    cached = _ENVIRONMENT_HASHES.get(spec.id)
    if cached is None:
        if len(_ENVIRONMENT_HASHES) >= 4096:
            _ENVIRONMENT_HASHES.clear()
        kept_out = {"checks", "reference", "metadata", "time_limit_s"}
        if not spec.source_prompt:
            kept_out.add("source_prompt")
        data = spec.model_dump(mode="json", by_alias=True, exclude=kept_out)
        cached = _ENVIRONMENT_HASHES[spec.id] = content_hash(data)[:32]
    return cached


# -- the record ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StepRecord:
    """One assistant message: sent to the env (`act`) or answered by an interactive user simulator (`clarify`)."""

    index: int
    turn: int
    kind: StepKind
    message_index: int  # position of the assistant message in `TrajectoryRecord.messages`
    state_hash: str  # world content hash after the step
    tool_calls: int
    tool_errors: int
    parse_errors: list[str]
    prompt_tokens: int
    completion_tokens: int
    model_s: float
    env_s: float
    finish_reason: str


@dataclass(frozen=True)
class TokenCounts:
    """Token usage, the agent's apart from the user simulator's."""

    agent_prompt: int = 0
    agent_completion: int = 0
    user_prompt: int = 0
    user_completion: int = 0


@dataclass(frozen=True)
class Timings:
    """Seconds spent: in total, waiting for the model, in the env, waiting for the user simulator."""

    wall_s: float = 0.0
    model_s: float = 0.0
    env_s: float = 0.0
    user_s: float = 0.0


@dataclass(frozen=True)
class TrajectoryRecord:
    """One episode: who acted, in which env, every message, step and audit entry, and how it scored."""

    record_id: str
    env_id: str
    spec_hash: str
    capability: str
    turns: Turns
    verifier_version: str
    verifier_hash: str
    teacher: str
    model: str
    sampling: dict[str, Any]
    sample_index: int
    user_sim: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    steps: list[StepRecord]
    audit: list[AuditEntry]
    replies: list[Reply]
    checks: list[CheckResult]
    score: float
    passed: bool
    stop_reason: str
    truncated: bool
    initial_hash: str
    final_hash: str
    tokens: TokenCounts
    timings: Timings
    started_at: str
    user_turns: int  # spec turns the agent saw
    request: str  # the user turns from the spec, joined (the near-dup key of curation)
    error: str = ""
    format_version: str = RECORD_FORMAT_VERSION
    transcript_hash: str = field(default="")

    def __post_init__(self) -> None:
        if not self.transcript_hash:
            object.__setattr__(self, "transcript_hash", normalized_transcript_hash(self.messages))

    @property
    def tool_calls(self) -> int:
        return sum(s.tool_calls for s in self.steps)

    @property
    def tool_errors(self) -> int:
        return sum(s.tool_errors for s in self.steps)

    @property
    def malformed_calls(self) -> int:
        return sum(len(s.parse_errors) for s in self.steps)

    @property
    def transcript_chars(self) -> int:
        return sum(len(m["content"]) + sum(len(c["function"]["arguments"]) for c in m["tool_calls"])
                   for m in self.messages)


def record_id_for(env_id: str, teacher: str, model: str, sampling: dict[str, Any], sample_index: int,
                  user_sim: str, transcript_hash: str) -> str:
    """Deterministic id of a run: the same run recorded twice gets the same id."""
    return "traj-" + content_hash([env_id, teacher, model, sampling, sample_index, user_sim, transcript_hash])[:20]


# -- Parquet schema ---------------------------------------------------------------------------------------------
_STEP_TYPE = pa.struct([
    ("index", pa.int32()), ("turn", pa.int32()), ("kind", pa.string()), ("message_index", pa.int32()),
    ("state_hash", pa.string()), ("tool_calls", pa.int32()), ("tool_errors", pa.int32()),
    ("parse_errors", pa.list_(pa.string())), ("prompt_tokens", pa.int64()), ("completion_tokens", pa.int64()),
    ("model_s", pa.float64()), ("env_s", pa.float64()), ("finish_reason", pa.string()),
])
_AUDIT_TYPE = pa.struct([
    ("index", pa.int32()), ("turn", pa.int32()), ("tool", pa.string()), ("args", pa.string()), ("ok", pa.bool_()),
    ("result", pa.string()), ("error", pa.string()), ("time", pa.string()), ("hash_before", pa.string()),
    ("hash_after", pa.string()), ("op", pa.string()), ("fault", pa.string()),
])
_CHECK_TYPE = pa.struct([
    ("id", pa.string()), ("kind", pa.string()), ("passed", pa.bool_()), ("weight", pa.float64()),
    ("required", pa.bool_()), ("safety", pa.bool_()), ("reason", pa.string()), ("error", pa.bool_()),
    ("role", pa.string()), ("score", pa.float64()),  # verifier 2; older files lack them (CheckResult defaults)
])
_REPLY_TYPE = pa.struct([("turn", pa.int32()), ("text", pa.string())])

TRAJECTORY_SCHEMA = pa.schema([
    ("record_id", pa.string()), ("format_version", pa.string()),
    ("env_id", pa.string()), ("spec_hash", pa.string()), ("capability", pa.string()), ("turns", pa.string()),
    ("verifier_version", pa.string()), ("verifier_hash", pa.string()),
    ("teacher", pa.string()), ("model", pa.string()), ("sampling", pa.string()), ("sample_index", pa.int32()),
    ("user_sim", pa.string()),
    ("messages", pa.list_(MESSAGE_TYPE)), ("tools", pa.string()),
    ("steps", pa.list_(_STEP_TYPE)), ("audit", pa.list_(_AUDIT_TYPE)), ("replies", pa.list_(_REPLY_TYPE)),
    ("checks", pa.list_(_CHECK_TYPE)),
    ("score", pa.float64()), ("passed", pa.bool_()), ("stop_reason", pa.string()), ("truncated", pa.bool_()),
    ("error", pa.string()),
    ("initial_hash", pa.string()), ("final_hash", pa.string()),
    ("agent_prompt_tokens", pa.int64()), ("agent_completion_tokens", pa.int64()),
    ("user_prompt_tokens", pa.int64()), ("user_completion_tokens", pa.int64()),
    ("wall_s", pa.float64()), ("model_s", pa.float64()), ("env_s", pa.float64()), ("user_s", pa.float64()),
    ("started_at", pa.string()), ("user_turns", pa.int32()), ("request", pa.string()),
    # Derived columns, stored so curation can filter without opening the nested messages.
    ("transcript_hash", pa.string()), ("transcript_chars", pa.int64()), ("tool_calls", pa.int32()),
    ("tool_errors", pa.int32()), ("malformed_calls", pa.int32()),
])


def _json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()


def record_row(record: TrajectoryRecord) -> dict[str, Any]:
    """A record as one row of `TRAJECTORY_SCHEMA`."""
    audit = [
        {**{k: v for k, v in e.as_dict().items() if k not in ("args", "result")},
         "args": _json(e.args), "result": _json(e.result)}
        for e in record.audit
    ]
    return {
        "record_id": record.record_id, "format_version": record.format_version,
        "env_id": record.env_id, "spec_hash": record.spec_hash, "capability": record.capability,
        "turns": record.turns, "verifier_version": record.verifier_version, "verifier_hash": record.verifier_hash,
        "teacher": record.teacher, "model": record.model, "sampling": _json(record.sampling),
        "sample_index": record.sample_index, "user_sim": record.user_sim,
        "messages": record.messages, "tools": _json(record.tools),
        "steps": [asdict(s) for s in record.steps], "audit": audit,
        "replies": [asdict(r) for r in record.replies], "checks": [asdict(c) for c in record.checks],
        "score": record.score, "passed": record.passed, "stop_reason": record.stop_reason,
        "truncated": record.truncated, "error": record.error,
        "initial_hash": record.initial_hash, "final_hash": record.final_hash,
        "agent_prompt_tokens": record.tokens.agent_prompt, "agent_completion_tokens": record.tokens.agent_completion,
        "user_prompt_tokens": record.tokens.user_prompt, "user_completion_tokens": record.tokens.user_completion,
        "wall_s": record.timings.wall_s, "model_s": record.timings.model_s, "env_s": record.timings.env_s,
        "user_s": record.timings.user_s, "started_at": record.started_at, "user_turns": record.user_turns,
        "request": record.request, "transcript_hash": record.transcript_hash,
        "transcript_chars": record.transcript_chars, "tool_calls": record.tool_calls,
        "tool_errors": record.tool_errors, "malformed_calls": record.malformed_calls,
    }


def record_from_row(row: dict[str, Any]) -> TrajectoryRecord:
    """Rebuild a record from one row of `TRAJECTORY_SCHEMA`."""
    audit = [
        AuditEntry(a["index"], a["turn"], a["tool"], orjson.loads(a["args"]), a["ok"], orjson.loads(a["result"]),
                   a["error"], a["time"], a["hash_before"], a["hash_after"], a.get("op") or "", a.get("fault") or "")
        for a in row["audit"]
    ]
    return TrajectoryRecord(
        record_id=row["record_id"], env_id=row["env_id"], spec_hash=row["spec_hash"],
        capability=row["capability"], turns=row["turns"], verifier_version=row["verifier_version"],
        verifier_hash=row["verifier_hash"], teacher=row["teacher"], model=row["model"],
        sampling=orjson.loads(row["sampling"]), sample_index=row["sample_index"], user_sim=row["user_sim"],
        messages=[trl_message(m) for m in row["messages"]], tools=orjson.loads(row["tools"]),
        steps=[StepRecord(**{**s, "parse_errors": list(s["parse_errors"])}) for s in row["steps"]],
        audit=audit, replies=[Reply(**r) for r in row["replies"]], checks=[CheckResult(**c) for c in row["checks"]],
        score=row["score"], passed=row["passed"], stop_reason=row["stop_reason"], truncated=row["truncated"],
        initial_hash=row["initial_hash"], final_hash=row["final_hash"],
        tokens=TokenCounts(row["agent_prompt_tokens"], row["agent_completion_tokens"], row["user_prompt_tokens"],
                           row["user_completion_tokens"]),
        timings=Timings(row["wall_s"], row["model_s"], row["env_s"], row["user_s"]),
        started_at=row["started_at"], user_turns=row["user_turns"], request=row["request"], error=row["error"],
        format_version=row["format_version"], transcript_hash=row["transcript_hash"],
    )


def trajectories_table(records: Iterable[TrajectoryRecord]) -> pa.Table:
    """Records as an Arrow table of `TRAJECTORY_SCHEMA` (one row per record)."""
    return pa.Table.from_pylist([record_row(r) for r in records], schema=TRAJECTORY_SCHEMA)
