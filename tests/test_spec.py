"""EnvSpec: the wire format round-trips, documents itself, and rejects bad specs at load time with field paths."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from jsonschema import Draft202012Validator

from coworkenv import (
    Env,
    EnvSpec,
    NoopPolicy,
    OraclePolicy,
    SpecError,
    envspec_json_schema,
    load_spec,
    parse_spec,
    run_episode,
)
from coworkenv.examples import example_names, load_example
from coworkenv.spec import SCHEMA_VERSION

EXAMPLES = example_names()


def _raw(name: str = "incident_rollback") -> dict[str, Any]:
    return orjson.loads(load_example(name).to_json())  # type: ignore[no-any-return]


def _issues(data: Any) -> dict[str, str]:
    with pytest.raises(SpecError) as info:
        load_spec(data)
    return {i.path: i.message for i in info.value.issues}


@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip_is_lossless(name: str) -> None:
    spec = load_example(name)
    again = EnvSpec.model_validate_json(spec.to_json())
    assert again == spec
    assert again.id == spec.id and again.verifier_hash == spec.verifier_hash
    assert again.to_json() == spec.to_json()


def test_parquet_round_trip_is_lossless(tmp_path: Path) -> None:
    specs = [load_example(name) for name in EXAMPLES]
    table = pa.table({"id": [s.id for s in specs], "spec": [s.to_json() for s in specs]})
    path = tmp_path / "specs.parquet"
    pq.write_table(table, path)
    back = pq.read_table(path).to_pylist()
    assert [row["id"] for row in back] == [s.id for s in specs]
    for row, spec in zip(back, specs, strict=True):
        loaded = load_spec(row["spec"])
        assert loaded == spec and loaded.id == row["id"]


def test_json_schema_export_is_valid_and_accepts_the_examples() -> None:
    schema = envspec_json_schema()
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    for name in EXAMPLES:
        validator.validate(orjson.loads(load_example(name).to_json()))
    bad = _raw()
    bad["checks"][0]["rule"]["kind"] = "vibes"
    assert list(validator.iter_errors(bad))


def test_id_is_a_content_hash() -> None:
    spec = load_example("incident_rollback")
    raw = _raw()
    assert load_spec(raw).id == spec.id
    raw["turns"][0]["content"] += " Thanks!"
    changed = load_spec(raw)
    assert changed.id != spec.id and changed.id.startswith("env-")
    # Only the checks (and the verifier version) decide the verifier hash.
    assert changed.verifier_hash == spec.verifier_hash
    raw["checks"][0]["weight"] = 5
    assert load_spec(raw).verifier_hash != spec.verifier_hash


def test_malformed_json_is_a_spec_error() -> None:
    assert "not valid JSON" in _issues(b'{"capability": ')["(document)"]


def test_schema_errors_name_the_field_path() -> None:
    raw = _raw()
    raw["checks"][2]["rule"]["kind"] = "vibes"
    del raw["world"]["start"]
    raw["turns"][1]["advance_s"] = -5
    raw["unknown_top_level"] = 1
    issues = _issues(raw)
    assert "world.start" in issues
    assert "checks[2].rule" in issues
    assert "turns[1].advance_s" in issues
    assert "unknown_top_level" in issues
    assert "greater than or equal to 0" in issues["turns[1].advance_s"]


@pytest.mark.parametrize(
    ("edit", "path", "message"),
    [
        (lambda r: r["checks"][0]["rule"]["target"].update(id="svc-ghost"), "checks[0].rule.target.id",
         "no record 'svc-ghost' in services.services"),
        (lambda r: r["checks"][0]["rule"]["target"].update(field="colour"), "checks[0].rule.target.field",
         "Service has no field 'colour'"),
        (lambda r: r["checks"][2]["rule"].update(table="issues"), "checks[2].rule.table",
         "app tickets has no table 'issues'"),
        (lambda r: r["checks"][2]["rule"]["where"][0].update(field="svc"), "checks[2].rule.where[0].field",
         "Ticket has no field 'svc'"),
        (lambda r: r["checks"][4]["rule"]["first"].update(tool="services_nuke"), "checks[4].rule.first.tool",
         "unknown tool 'services_nuke'"),
        (lambda r: r["checks"][4]["rule"]["then"]["args"].update(room="#x"), "checks[4].rule.then.args.room",
         "chat_post_message has no argument 'room'"),
        (lambda r: r["checks"][5]["rule"]["source"].update(id="log-404"), "checks[5].rule.source.id",
         "no record 'log-404' in logs.lines"),
        (lambda r: r["checks"][10]["rule"]["allow"][0].update(app="crm"), "checks[10].rule.allow[0].app",
         "unknown app 'crm'"),
        (lambda r: r["tools"].append("mail_teleport"), "tools[23]", "unknown tool 'mail_teleport'"),
        (lambda r: r.update(user="u-nobody"), "user", "person 'u-nobody' is not in"),
        (lambda r: r["dynamics"]["streams"][0].update(service="svc-ghost"), "dynamics.streams[0].service",
         "no service 'svc-ghost'"),
        (lambda r: r["turns"][1]["changes"][1].update(id="svc-ghost"), "turns[1].changes[1].id",
         "no record 'svc-ghost' in services.services"),
        (lambda r: r["reference"].pop(), "reference", "has 1 turns, the spec has 2 user turns"),
    ],
)
def test_dangling_references_fail_at_load_time(edit: Any, path: str, message: str) -> None:
    raw = _raw()
    edit(raw)
    # Schema-valid, so the problem is only caught by reference resolution at load time.
    parse_spec(copy.deepcopy(raw))
    issues = _issues(raw)
    assert path in issues, issues
    assert message in issues[path]


def test_spec_error_message_names_the_source(tmp_path: Path) -> None:
    raw = _raw()
    raw["checks"][0]["rule"]["target"]["id"] = "svc-ghost"
    path = tmp_path / "broken.json"
    path.write_bytes(orjson.dumps(raw))
    with pytest.raises(SpecError) as info:
        load_spec(path)
    text = str(info.value)
    assert str(path) in text and "checks[0].rule.target.id" in text
    with pytest.raises(SpecError, match="cannot read"):
        load_spec(tmp_path / "absent.json")


def test_a_loaded_spec_scores_without_reference_errors() -> None:
    # Every check of every example can be evaluated on the initial state without raising.
    for name in EXAMPLES:
        env = Env(load_example(name))
        env.reset()
        result = env.score()
        assert len(result.checks) == len(env.spec.checks)
        assert not any(c.error for c in result.checks)


# -- schema versions ----------------------------------------------------------------------------------------
V1_SPEC = Path(__file__).parent / "data" / "spec_v1_incident_rollback.json"


def test_a_schema_1_spec_loads_migrates_and_the_oracle_scores_one() -> None:
    raw = orjson.loads(V1_SPEC.read_bytes())
    assert raw["schema_version"] == "1"
    spec = load_spec(V1_SPEC)
    assert spec.schema_version == SCHEMA_VERSION == "2"
    guards = {c.id for c in spec.checks if c.is_guard}
    assert guards == {"no-deploy", "nothing-else-changed"}  # v1 forbidden/frame/safety checks become guards
    oracle = run_episode(Env(spec), OraclePolicy(spec)).result
    assert oracle.score == 1.0 and oracle.passed
    assert run_episode(Env(spec), NoopPolicy()).result.score == 0.0
    assert parse_spec(spec.to_json()) == spec  # the migrated spec round-trips as schema 2
    # Direct model validation migrates too (the schema gate validates raw dicts).
    assert EnvSpec.model_validate(raw) == spec
    assert EnvSpec.model_validate_json(V1_SPEC.read_bytes()) == spec


def test_an_unknown_schema_version_is_a_clear_error() -> None:
    raw = {**orjson.loads(V1_SPEC.read_bytes()), "schema_version": "9"}
    with pytest.raises(SpecError, match="schema_version"):
        parse_spec(raw)


def test_the_documented_check_example_is_a_valid_spec_fragment() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "verifier.md").read_text()
    block = doc.split("## Example", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    raw = {**_raw(), **orjson.loads(block)}
    spec = load_spec(raw)
    assert spec.scoring.pass_threshold == 0.75
    assert [c.role for c in spec.checks] == ["completion", "completion", "guard", "guard"]
    assert {"role", "scoring", "where"} <= set(orjson.dumps(envspec_json_schema()).decode().replace('"', " ").split())


def test_a_parquet_file_of_schema_1_specs_reads_back_migrated(tmp_path: Path) -> None:
    from coworkenv.store.stages import read_specs

    # The specs schema of releases before the stage contract (`coworkenv synth` wrote it): still read.
    old_specs_schema = pa.schema([
        pa.field("env_id", pa.string(), nullable=False), pa.field("capability", pa.string(), nullable=False),
        pa.field("difficulty", pa.int8(), nullable=False), pa.field("multi_turn", pa.bool_(), nullable=False),
        pa.field("apps", pa.list_(pa.string()), nullable=False), pa.field("generator", pa.string(), nullable=False),
        pa.field("seed", pa.int64(), nullable=True), pa.field("spec_json", pa.string(), nullable=False),
    ])
    row = {"env_id": "env-v1", "capability": "incident", "difficulty": 3, "multi_turn": True, "apps": ["services"],
           "generator": "hand-written", "seed": None, "spec_json": V1_SPEC.read_text()}
    path = tmp_path / "specs-v1.parquet"
    pq.write_table(pa.Table.from_pylist([row], schema=old_specs_schema), path)
    (spec,) = read_specs(path)
    assert spec == load_spec(V1_SPEC) and spec.schema_version == "2"
