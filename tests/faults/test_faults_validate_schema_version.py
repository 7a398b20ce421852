"""Fault corpus, specs of a schema version this coworkenv does not read, given to a reader of spec sets: `coworkenv
validate` (and the `validated_envs` asset, through the same `read_spec_rows`). faults50 made the commands that load
one spec refuse such a file; on main `validate` still read it as a schema defect ("give the field a value the schema
allows", exit 0 with the set's tables written), and with `--llm` its repair loop would have the model rewrite the
user's newer spec as version 2, losing what the newer version meant. Now the set is refused before any of it is used
(exit 2, one line naming the file or row, what the version is and what to do: upgrade coworkenv), the repair loop
never sees it, and the files are as they were. A model's raw payload (an unsealed Parquet row whose source is a
model) is still left to the gates and their repair loop: a regression guard, as are versions 1 and 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coworkenv.loading import load_spec
from coworkenv.spec_seal_write import stored_spec_json
from coworkenv.store.stages import SPECS, SpecSourceError, read_spec_rows

V1 = Path(__file__).parents[1] / "data" / "spec_v1_incident_rollback.json"
NEWER = "is not one this coworkenv reads"


@pytest.fixture(scope="module")
def spec_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(V1.read_text())
    return data


@pytest.fixture(scope="module")
def sealed_newer() -> str:
    """A sealed file as a newer coworkenv writes it: its spec of version '3' (its seal, under another schema, fails)."""
    text = stored_spec_json(load_spec(V1))
    assert '"spec":{"schema_version":"2",' in text
    return text.replace('"spec":{"schema_version":"2",', '"spec":{"schema_version":"3",')


def _parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    SPECS.write(SPECS.table({"env_id": None, "capability": "incident_rollback", "source": None, "origin": None,
                             "tokens": 0, "error": None, **row} for row in rows), path)
    return path


def test_validate_refuses_a_folder_holding_a_newer_spec_before_any_repair(
        tmp_path: Path, spec_data: dict[str, Any]) -> None:
    from typer.testing import CliRunner

    from coworkenv.cli import app

    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "a_current.json").write_text(json.dumps({**spec_data, "schema_version": "2"}))
    newer = folder / "b_newer.json"
    newer.write_text(json.dumps({**spec_data, "schema_version": "3"}))
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    out = tmp_path / "out"
    done = CliRunner().invoke(app, ["validate", str(folder), "--out", str(out), "--llm", "http://127.0.0.1:9/v1", "--model", "m",
                                    "--llm-retries", "0", "--llm-timeout", "1"])
    lines = done.output.strip().splitlines()
    assert done.exit_code == 2, done.output
    assert len(lines) == 1 and lines[0].startswith(f"error: invalid environment spec {newer}: schema_version: "), lines
    assert "upgrade coworkenv" in lines[0] and "none was changed" in lines[0], lines
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert not out.exists()  # nothing validated, nothing repaired, no tables


def test_a_parquet_set_names_every_row_of_another_version(
        tmp_path: Path, spec_data: dict[str, Any], sealed_newer: str) -> None:
    """Sealed (a newer coworkenv's synth or validate output) and plain rows, a procedural source or none."""
    current = json.dumps({**spec_data, "schema_version": "2"})
    path = _parquet(tmp_path / "specs.parquet", [
        {"spec_json": current},
        {"spec_json": sealed_newer, "source": "procedural:incident_rollback@9"},
        {"spec_json": json.dumps({**spec_data, "schema_version": "v2"})},
        {"spec_json": json.dumps({**spec_data, "schema_version": 2})},
    ])
    with pytest.raises(SpecSourceError) as raised:
        read_spec_rows(path, allow_empty=True)  # as the validated_envs asset reads its specs
    message = str(raised.value)
    assert message.startswith(f"invalid environment spec {path} row 1: schema_version: schema version '3' {NEWER}")
    assert f"so are 2 more: {path} row 2, {path} row 3;" in message and "\n" not in message, message


@pytest.mark.parametrize("version", ["1", "2", "absent"])
def test_a_version_this_coworkenv_reads_is_read(tmp_path: Path, spec_data: dict[str, Any], version: str) -> None:
    """Regression guard: held on main."""
    data = {k: v for k, v in spec_data.items() if k != "schema_version"} if version == "absent" else \
        {**spec_data, "schema_version": version}
    (tmp_path / "spec.json").write_text(json.dumps(data))
    sealed = stored_spec_json(load_spec(V1))
    _parquet(tmp_path / "specs.parquet", [{"spec_json": sealed}, {"spec_json": json.dumps(data)}])
    assert len(read_spec_rows(tmp_path)) == 3


def test_a_models_raw_payload_of_another_version_is_left_to_the_gates(
        tmp_path: Path, spec_data: dict[str, Any]) -> None:
    """Regression guard: a model's mistake, which the repair loop is for (synth --llm stores payloads unsealed)."""
    path = _parquet(tmp_path / "specs.parquet", [{"spec_json": json.dumps({**spec_data, "schema_version": "3"}),
                                                 "source": "gpt-4o-mini"}])
    assert [row.source for row in read_spec_rows(path)] == ["gpt-4o-mini"]
