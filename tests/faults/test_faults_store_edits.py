"""Fault corpus, a stored file edited on disk between runs: replaced by another valid Parquet file under its
content-addressed name, or a byte changed inside a data page (the footer still reads). No reader takes the other
rows under the recorded data version: `latest` and the next asset name the file, the partition reads as
incomplete, and once the file is moved away a re-materialization writes the recorded version again."""

from __future__ import annotations

import re
from pathlib import Path

import dagster as dg
import pyarrow as pa
import pytest

from assets.envs import validated_envs
from assets.specs import task_specs
from coworkenv import store
from coworkenv.store import file_sha256, latest, parquet_bytes, write_table
from pipelines.staleness import partition_state
from tests.faults.harness import CAPABILITY
from tests.faults.test_faults_store_version import failure_message, materialize, one_capability, specs_and_envs


def _edit(path: Path, how: str) -> None:
    """Change `path` on disk so that it still parses as Parquet."""
    data = path.read_bytes()
    if how == "other-rows":
        path.write_bytes(parquet_bytes(pa.table({"x": list(range(1, 501))})))
    else:  # one byte of the first data page: the footer, and so the schema, still read
        at = 8 + (len(data) // 4)
        path.write_bytes(data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:])


@pytest.mark.parametrize("how", ["other-rows", "a-byte-in-a-data-page"])
def test_latest_names_a_stored_file_edited_on_disk_instead_of_reading_it(tmp_path: Path, how: str) -> None:
    table = pa.table({"x": list(range(500))})
    stored = write_table(table, tmp_path, "ds")
    _edit(stored.path, how)
    edited = stored.path.read_bytes()
    pattern = re.escape(f"{stored.path}: its bytes hash to ") + ".*" + re.escape(stored.content_hash[:16]) + \
        ".*edited or damaged on disk.*re-materialize"
    with pytest.raises(ValueError, match=pattern):
        latest(tmp_path, "ds")
    with pytest.raises(FileExistsError, match="move it away"):  # a rewrite does not paper over it either
        write_table(table, tmp_path, "ds")
    assert stored.path.read_bytes() == edited
    stored.path.rename(tmp_path / "evidence.parquet")  # what the message asks
    assert write_table(table, tmp_path, "ds") == stored and latest(tmp_path, "ds") == stored


@pytest.mark.timeout(300)
def test_a_partition_whose_specs_file_was_edited_is_stale_and_no_asset_reads_it(tmp_path: Path) -> None:
    settings = one_capability(tmp_path)
    capability = settings.taxonomy()[CAPABILITY]
    with dg.instance_for_test() as instance:
        specs, envs = specs_and_envs(instance, settings)
        rows = specs.path.read_bytes()
        kept = store.read_table(specs.path).slice(0, 1)  # a hand edit: one spec dropped, still a specs file
        specs.path.write_bytes(parquet_bytes(kept))

        state = partition_state(instance, capability, settings)
        assert not state.complete and state.reason == \
            f"task_specs: its file {specs.path} was changed on disk since it was written"
        failed = materialize(instance, settings, validated_envs)
        assert not failed.success
        message = failure_message(failed)
        assert str(specs.path) in message and "edited or damaged on disk" in message, message
        assert store.latest(settings.store_root, "validated_envs", CAPABILITY) == envs  # nothing replaced

        specs.path.rename(tmp_path / "edited.parquet")
        assert materialize(instance, settings, task_specs, validated_envs).success
        assert file_sha256(specs.path) == specs.content_hash and specs.path.read_bytes() == rows
        assert store.latest(settings.store_root, "validated_envs", CAPABILITY) == envs
