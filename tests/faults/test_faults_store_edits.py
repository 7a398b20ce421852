"""Fault corpus, a stored file edited or damaged on disk between runs: replaced by another valid Parquet file under
its content-addressed name, a byte changed inside a data page (the footer still reads), or cut short. No reader
takes the other rows under the recorded data version: `latest` and the next asset name the file, and the partition
reads as incomplete. The rerun completes on its own and loses nothing: the writer moves the damaged file aside to
`<name>.damaged-<hash of its bytes>` beside it, says so in one line, and writes the recorded version again."""

from __future__ import annotations

import hashlib
import logging
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
from tests.faults.harness import CAPABILITY, run_child
from tests.faults.test_faults_store_version import failure_message, materialize, one_capability, specs_and_envs


def _edit(path: Path, how: str) -> None:
    """Change `path` on disk so that it still parses as Parquet."""
    data = path.read_bytes()
    if how == "other-rows":
        path.write_bytes(parquet_bytes(pa.table({"x": list(range(1, 501))})))
    elif how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    else:  # one byte of the first data page: the footer, and so the schema, still read
        at = 8 + (len(data) // 4)
        path.write_bytes(data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:])


HOW = ["other-rows", "a-byte-in-a-data-page", "truncated"]


def _quarantined(path: Path, damaged: bytes) -> Path:
    """Where the writer moved the damaged bytes of `path`: beside it, named for them; they are unchanged."""
    aside = path.with_name(f"{path.name}.damaged-{hashlib.sha256(damaged).hexdigest()[:16]}")
    assert aside.read_bytes() == damaged
    assert [p.name for p in path.parent.iterdir() if ".damaged-" in p.name] == [aside.name]
    return aside


@pytest.mark.parametrize("how", HOW)
def test_a_stored_file_damaged_on_disk_is_named_by_latest_and_moved_aside_by_the_rewrite(
        tmp_path: Path, how: str, caplog: pytest.LogCaptureFixture) -> None:
    table = pa.table({"x": list(range(500))})
    stored = write_table(table, tmp_path, "ds")
    _edit(stored.path, how)
    damaged = stored.path.read_bytes()
    if how == "truncated":
        pattern = re.escape(f"{stored.path}: damaged Parquet file") + ".*re-materialize"
    else:
        pattern = re.escape(f"{stored.path}: its bytes hash to ") + ".*" + re.escape(stored.content_hash[:16]) + \
            ".*edited or damaged on disk.*re-materialize"
    with pytest.raises(ValueError, match=pattern):
        latest(tmp_path, "ds")
    with caplog.at_level(logging.WARNING, logger="coworkenv.store"):
        assert write_table(table, tmp_path, "ds") == stored  # what the message asks: re-materialize
    assert latest(tmp_path, "ds") == stored and file_sha256(stored.path) == stored.content_hash
    aside = _quarantined(stored.path, damaged)
    (line,) = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert str(stored.path) in line and str(aside) in line, line


@pytest.mark.timeout(600)
@pytest.mark.parametrize("how", ["a-byte-in-a-data-page", "truncated"])
def test_a_pipeline_rerun_after_a_stored_file_was_damaged_completes_and_keeps_the_damaged_bytes(
        tmp_path: Path, how: str) -> None:
    from tests.support.pipeline_child import make_workspace

    ws = make_workspace(tmp_path, (CAPABILITY,))
    first = run_child(["--no-train"], call="tests.faults.scenarios:pipeline_run", env=ws.env(), preloaded=True)
    assert first.returncode == 0, first.stdout + first.stderr
    specs = latest(ws.data / "store", "task_specs", CAPABILITY)
    assert specs is not None
    rows = specs.path.read_bytes()
    _edit(specs.path, how)
    damaged = specs.path.read_bytes()
    rerun = run_child(["--no-train"], call="tests.faults.scenarios:pipeline_run", env=ws.env(), preloaded=True)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert f"{CAPABILITY:<40} ok" in rerun.stdout  # the partition was found damaged and made again
    assert specs.path.read_bytes() == rows and latest(ws.data / "store", "task_specs", CAPABILITY) == specs
    aside = _quarantined(specs.path, damaged)
    assert str(aside) in rerun.stderr  # the one line saying where


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
