"""The trajectory record: Parquet round trip, TRL SFT rows (datasets + a chat template), ATIF, re-scoring."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, models
from transformers import PreTrainedTokenizerFast

from coworkenv.env import Env
from coworkenv.examples import example_names, load_example
from coworkenv.rollout import (
    OracleTeacher,
    ReplayError,
    TrajectoryRecord,
    needs_rescore,
    normalized_transcript_hash,
    rescore,
    run_agent,
    to_atif,
    trajectories_table,
    validate_atif,
)
from coworkenv.spec import EnvSpec
from coworkenv.store.stages import SFT_SCHEMA, read_trajectories, sft_table, write_trajectories
from tests.test_rollout_agent_loop import HERMES, ScriptedBackend, call, say


@pytest.fixture(scope="module")
def records() -> list[TrajectoryRecord]:
    """Oracle runs of every example plus an LLM run with a malformed call."""
    out = [OracleTeacher(0).run(load_example(n))[0] for n in example_names()]
    backend = ScriptedBackend([say(HERMES), call("services_list_services", {}), say("Done."), say("Done.")])
    out.append(run_agent(Env(load_example("incident_rollback")), backend, sampling={"seed": 3}))
    return out


def test_parquet_round_trip_keeps_every_field(records: list[TrajectoryRecord], tmp_path: Path) -> None:
    path = write_trajectories(records, tmp_path, written_by="rollout")
    assert path.name.startswith("trajectories-") and write_trajectories(records, tmp_path, written_by="rollout") == path
    back = read_trajectories(tmp_path)
    assert back == records
    assert back[-1].steps[0].parse_errors and back[-1].audit[1].ok is False
    table = pq.read_table(path)
    assert table.column("malformed_calls").to_pylist() == [0] * (len(records) - 1) + [1]
    turns = ["multi" if load_example(n).multi_turn else "single" for n in example_names()]
    assert table.column("turns").to_pylist() == [*turns, "multi"]


def test_read_trajectories_explains_a_wrong_table(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="missing columns"):
        read_trajectories(trajectories_table([]).drop_columns(["messages"]))
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_trajectories(tmp_path / "nowhere")


_text = st.text(alphabet=st.characters(codec="ascii", categories=["L", "N", "Zs"]), max_size=40)


@settings(max_examples=50, deadline=None)
@given(content=_text, spaces=st.integers(1, 3), call_id=st.text(min_size=1, max_size=8))
def test_transcript_hash_ignores_call_ids_spacing_case_and_key_order(content: str, spaces: int, call_id: str) -> None:
    def transcript(text: str, cid: str, args: str) -> list[dict[str, object]]:
        calls = [{"id": cid, "type": "function", "function": {"name": "t", "arguments": args}}]
        return [{"role": "assistant", "content": text, "tool_calls": calls, "tool_call_id": "", "name": ""}]

    base = normalized_transcript_hash(transcript(content, "a", '{"x": 1, "y": 2}'))
    same = transcript((" " * spaces).join(content.upper().split()), call_id, '{"y":2,"x":1}')
    assert normalized_transcript_hash(same) == base
    assert normalized_transcript_hash(transcript(content + " more", "a", '{"x": 1, "y": 2}')) != base


def _tokenizer() -> PreTrainedTokenizerFast:
    tok = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]")),
                                  unk_token="[UNK]")
    tok.chat_template = (resources.files("trl") / "chat_templates" / "qwen3.jinja").read_text()
    return tok


def test_trl_rows_load_in_datasets_with_one_schema_and_render(
    records: list[TrajectoryRecord], tmp_path: Path
) -> None:
    rows = sft_table(records).to_pylist()
    assert set(rows[0]) == {"messages", "tools", "env_id", "capability", "turns", "split"}
    keys = {tuple(m) for r in rows for m in r["messages"]}
    assert keys == {("role", "content", "tool_calls", "tool_call_id", "name")}
    in_memory = datasets.Dataset.from_list(rows)
    # Parquet shards written separately (one without any tool call) still share one schema.
    idle = run_agent(Env(load_example("incident_rollback")), ScriptedBackend([say("Okay.")]))
    assert not any(m["tool_calls"] for m in idle.messages)
    pq.write_table(sft_table([idle]), tmp_path / "a.parquet")
    pq.write_table(sft_table(records[1:], split="test"), tmp_path / "b.parquet")
    a, b = datasets.Dataset.from_parquet(str(tmp_path / "a.parquet")), datasets.Dataset.from_parquet(
        str(tmp_path / "b.parquet"))
    assert a.features == b.features == in_memory.features == datasets.Features.from_arrow_schema(SFT_SCHEMA)
    arguments = in_memory.features["messages"].feature["tool_calls"].feature["function"]["arguments"]
    assert arguments.dtype == "string"
    tok = _tokenizer()
    for row in in_memory:
        text = tok.apply_chat_template(row["messages"], tools=json.loads(row["tools"]), tokenize=False)
        first_call = next(c for m in row["messages"] for c in m["tool_calls"])
        assert f'"name": "{first_call["function"]["name"]}"' in text and first_call["function"]["arguments"] in text
        assert text.count("<|im_start|>assistant") == sum(m["role"] == "assistant" for m in row["messages"])


def test_atif_export_validates(records: list[TrajectoryRecord]) -> None:
    for record in records:
        doc = json.loads(json.dumps(to_atif(record)))
        assert validate_atif(doc) == []
        agent_steps = [s for s in doc["steps"] if s["source"] == "agent"]
        assert len(agent_steps) == sum(m["role"] == "assistant" for m in record.messages)
        assert doc["extra"]["verifier_hash"] == record.verifier_hash and doc["session_id"] == record.record_id
    llm = to_atif(records[-1])
    first = next(s for s in llm["steps"] if s["source"] == "agent")
    assert first["extra"]["parse_errors"] and first["observation"]["results"][1]["source_call_id"] == \
        first["tool_calls"][1]["tool_call_id"]


def test_atif_validator_rejects_broken_documents(records: list[TrajectoryRecord]) -> None:
    doc = to_atif(records[0])
    doc["steps"][1]["step_id"] = 7
    doc["steps"][0]["tool_calls"] = []
    agent = next(s for s in doc["steps"] if s.get("observation"))
    agent["observation"]["results"][0]["source_call_id"] = "nope"
    del doc["agent"]["version"]
    problems = "\n".join(validate_atif(doc))
    for expected in ("step_id: must be 2", "steps[0].tool_calls: only allowed on agent steps", "'nope' is no tool call",
                     "agent.version"):
        assert expected in problems
    assert validate_atif({"schema_version": "x", "agent": {}, "steps": []})


def _with_check_value(spec: EnvSpec, check_id: str, value: object) -> EnvSpec:
    data = spec.model_dump(mode="json", by_alias=True)
    for check in data["checks"]:
        if check["id"] == check_id:
            check["rule"]["value"] = value
    return EnvSpec.model_validate(data)


def test_rescore_after_a_check_changes_flips_the_score(records: list[TrajectoryRecord]) -> None:
    spec = load_example("incident_rollback")
    record = records[0]
    assert record.env_id == spec.id and not needs_rescore(record, spec)
    assert rescore(record, spec) == record  # same verifier: same result
    assert rescore(records[-1], spec) == records[-1]  # a run with a malformed call replays the same way
    stricter = _with_check_value(spec, "config-rolled-back", 2)
    assert stricter.verifier_hash != spec.verifier_hash and needs_rescore(record, stricter)
    flipped = rescore(record, stricter)
    assert record.passed and not flipped.passed and flipped.score < record.score
    assert not {c.id: c.passed for c in flipped.checks}["config-rolled-back"]
    assert flipped.verifier_hash == stricter.verifier_hash and flipped.env_id == stricter.id
    assert flipped.messages == record.messages and not needs_rescore(flipped, stricter)

    data = spec.model_dump(mode="json", by_alias=True)
    data["world"]["start"] = "2026-03-03T09:00:00Z"
    with pytest.raises(ReplayError, match="only checks may differ"):
        rescore(record, EnvSpec.model_validate(data))
