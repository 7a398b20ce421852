"""Sealed spec files (coworkenv.spec_seal): the sealed path gives what full validation gives, and a damaged or
changed file is validated in full (or refused with every problem and the failed seal named)."""

from __future__ import annotations

import hashlib
import logging
import os
import random
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coworkenv import Env, EnvSpec, load_spec
from coworkenv.apps import APPS
from coworkenv.examples import example_names, load_example
from coworkenv.loading import SpecError
from coworkenv.spec_seal import is_sealed, schema_fingerprint, sealed_table_hashes, table_hashes
from coworkenv.spec_seal_write import seal_spec, write_sealed_spec
from coworkenv.synth import generate_spec, load_taxonomy
from coworkenv.world import World, parse_time
from tests.test_world_cow import _actions

ROOT = Path(__file__).resolve().parents[1]
TAXONOMY = load_taxonomy(ROOT / "taxonomy")


@cache
def _spec(kind: str, name: str, seed: int) -> EnvSpec:
    return load_example(name) if kind == "example" else generate_spec(TAXONOMY[name], seed)


SPECS = [("example", n, 0) for n in example_names()] + [("procedural", c, s) for c in
                                                           sorted(TAXONOMY.capabilities)[:12] for s in (0, 3)]


def _sealed_and_full(spec: EnvSpec) -> tuple[EnvSpec, EnvSpec]:
    sealed, full = load_spec(seal_spec(spec)), load_spec(spec.to_json())
    assert sealed_table_hashes(sealed) is not None, "a sealed file whose seal holds takes the sealed path"
    assert sealed_table_hashes(full) is None
    return sealed, full


def _world(spec: EnvSpec) -> World:
    return World.from_wire(APPS, spec.world.apps, parse_time(spec.world.start), spec.world.tick_s, spec.user)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SPECS), st.integers(0, 2**16))
def test_the_sealed_path_and_full_validation_give_the_same_spec_and_env(which: tuple[str, str, int], seed: int) -> None:
    spec = _spec(*which)
    sealed, full = _sealed_and_full(spec)
    assert sealed == full and sealed.to_json() == full.to_json()
    assert sealed.id == full.id == spec.id
    del sealed.__dict__["id"]  # the id the file gave, computed again from the spec the sealed path built
    assert sealed.id == spec.id and sealed.verifier_hash == full.verifier_hash
    assert sealed_table_hashes(sealed) == table_hashes(full)
    digests = _world(full)
    lazy = World.from_wire(APPS, sealed.world.apps, parse_time(sealed.world.start), sealed.world.tick_s,
                           sealed.user, sealed_table_hashes(sealed))
    assert lazy.content_hash() == digests.content_hash()
    for table in lazy.tables():  # digests computed on first read equal those computed on load
        other = digests.table(table.app, table.name)
        assert [table.digest_of(i) for i in table.ids()] == [other.digest_of(i) for i in table.ids()]

    actions = _actions(spec, random.Random(seed))  # the reference episode with repeated writes and bad calls
    a, b = Env(sealed), Env(full)
    assert a.initial_hash == b.initial_hash
    assert a.reset()[0] == b.reset()[0]
    for action in actions:
        if b.done:
            break
        got, want = a.step(action), b.step(action)
        assert (got.messages, got.reward, got.terminated) == (want.messages, want.reward, want.terminated)
        assert a.state.content_hash() == b.state.content_hash()
    assert [e.as_dict() for e in a.audit] == [e.as_dict() for e in b.audit]
    assert a.score().as_dict() == b.score().as_dict() and a.state.changes() == b.state.changes()
    assert a.state.to_wire() == b.state.to_wire()
    a.reset()
    assert a.state.content_hash() == a.initial_hash


def test_a_sealed_file_on_disk_loads_on_the_sealed_path(tmp_path: Path) -> None:
    spec = load_example(example_names()[0])
    path = tmp_path / "spec.json"
    write_sealed_spec(path, spec)
    assert is_sealed(path.read_bytes()) and orjson.loads(path.read_bytes())["spec"]["capability"] == spec.capability
    loaded = load_spec(path)
    assert sealed_table_hashes(loaded) is not None and loaded == spec and loaded.id == spec.id


def _big() -> tuple[EnvSpec, bytes]:
    spec = load_example("incident_rollback")
    return spec, seal_spec(spec)


def _untouched_field() -> tuple[str, str, str]:
    """A table the reference episode of `_big` never reads or writes, and a required text field of its records."""
    model = APPS["directory"].tables["teams"]
    field = next(n for n, i in model.model_fields.items() if n != "id" and i.is_required() and i.annotation is str)
    return "directory", "teams", field


def _reseal(data: bytes) -> bytes:
    """The file with its seal made to hold again (what a forger, not a damaged disk, does)."""
    head = len(b'{"coworkenv_sealed_spec":1,"sha256":"')
    body = data[head + 66:]
    seal = hashlib.sha256(schema_fingerprint().encode() + body).hexdigest().encode()
    return data[:head] + seal + data[head + 64:]


def test_a_flipped_byte_in_a_valid_spec_is_validated_in_full_and_loads_what_the_file_says(
        caplog: pytest.LogCaptureFixture) -> None:
    spec, data = _big()
    person = spec.world.apps.directory.people[-1]
    at = data.rindex(person.name.encode())
    flipped = data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:]
    with caplog.at_level(logging.WARNING, logger="coworkenv.spec_seal"):
        loaded = load_spec(flipped)
    assert sealed_table_hashes(loaded) is None, "a changed file is not trusted"
    assert "checksum does not match" in caplog.text
    assert loaded.world.apps.directory.people[-1].name != person.name and loaded.id != spec.id


@pytest.mark.parametrize("cut", [0.5, 0.999])
def test_a_truncated_sealed_file_is_refused_naming_the_seal_and_the_json(cut: float) -> None:
    _, data = _big()
    with pytest.raises(SpecError) as err:
        load_spec(data[: int(len(data) * cut)], source="spec.json")
    paths = [i.path for i in err.value.issues]
    assert paths[:2] == ["(seal)", "(document)"] and "not valid JSON" in str(err.value)
    assert "cut short" in err.value.issues[0].message or "checksum" in err.value.issues[0].message


def test_a_record_of_the_wrong_type_in_a_table_nothing_touches_is_found() -> None:
    _, data = _big()
    raw = orjson.loads(data)
    app, table, field = _untouched_field()
    raw["spec"]["world"]["apps"][app][table][0][field] = 42
    changed = orjson.dumps(raw)
    with pytest.raises(SpecError) as err:
        load_spec(changed, source="spec.json")
    assert err.value.issues[0].path == "(seal)" and "checksum does not match" in err.value.issues[0].message
    assert any(i.path == f"world.apps.{app}.{table}[0].{field}" for i in err.value.issues), err.value
    assert "spec.json" in str(err.value)


def test_a_forged_seal_over_a_row_missing_a_field_is_validated_in_full() -> None:
    _, data = _big()
    raw = orjson.loads(data)
    app, table, field = _untouched_field()
    del raw["spec"]["world"]["apps"][app][table][0][field]
    forged = _reseal(orjson.dumps(raw))
    with pytest.raises(SpecError) as err:
        load_spec(forged)
    assert "not what sealing a valid spec writes" in err.value.issues[0].message
    assert any(i.path == f"world.apps.{app}.{table}[0].{field}" for i in err.value.issues)


def test_a_file_sealed_under_another_schema_is_validated_in_full(caplog: pytest.LogCaptureFixture) -> None:
    spec, data = _big()
    other = data.replace(schema_fingerprint().encode(), b"0" * 32, 1)
    with caplog.at_level(logging.WARNING, logger="coworkenv.spec_seal"):
        loaded = load_spec(other)
    assert "another spec schema" in caplog.text
    assert sealed_table_hashes(loaded) is None and loaded == spec and loaded.id == spec.id


def test_only_a_valid_spec_is_sealed() -> None:
    spec = load_example(example_names()[0])
    broken = spec.model_copy(update={"user": "u-nobody"})  # a copy skips validation: the reference is dangling
    with pytest.raises(SpecError) as err:
        seal_spec(broken)
    assert err.value.issues[0].path == "user" and "to seal" in str(err.value)


def test_plain_spec_json_and_dicts_still_take_full_validation() -> None:
    spec = load_example(example_names()[0])
    for data in (spec.to_json(), spec.to_json().encode(), orjson.loads(spec.to_json())):
        assert sealed_table_hashes(load_spec(data)) is None
    bad: dict[str, Any] = orjson.loads(spec.to_json())
    bad["world"]["apps"]["directory"]["people"][0]["email"] = ["not", "a", "string"]
    with pytest.raises(SpecError) as err:
        load_spec(orjson.dumps(bad))
    assert err.value.issues[0].path == "world.apps.directory.people[0].email"


def test_the_schema_fingerprint_is_the_same_in_every_process() -> None:
    code = "from coworkenv.spec_seal import schema_fingerprint; print(schema_fingerprint())"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    got = {subprocess.run([sys.executable, "-c", code], env={**env, "PYTHONHASHSEED": seed}, capture_output=True,
                          text=True, check=True).stdout.strip() for seed in ("1", "2")}
    assert got == {schema_fingerprint()}


def test_records_holding_lists_of_models_are_built_as_validation_builds_them() -> None:
    raw = orjson.loads(load_example("triage_escalation_declared_tools").to_json())
    tickets = raw["world"]["apps"]["tickets"]["tickets"]
    tickets[0]["comments"] = [{"author": "u-a", "body": "first", "at": "2026-03-02T09:00:00Z"},
                              {"author": "u-b", "body": "second", "at": "2026-03-02T09:05:00Z"}]
    spec = load_spec(raw)
    sealed, full = _sealed_and_full(spec)
    assert sealed == full and sealed.to_json() == full.to_json()
    comments = sealed.world.apps.tickets.tickets[0].comments
    assert [type(c) for c in comments] == [type(c) for c in full.world.apps.tickets.tickets[0].comments]
    assert [c.body for c in comments] == ["first", "second"] and sealed.world.apps.tickets.tickets[1].comments == []
    assert sealed_table_hashes(sealed) == table_hashes(full)
