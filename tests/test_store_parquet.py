"""Content-addressed Parquet: determinism, atomic writes that survive crashes, the LATEST pointer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coworkenv import atomic as _atomic
from coworkenv.store import (
    StoredTable,
    _parquet,
    latest,
    parquet_bytes,
    read_table,
    shard_table,
    write_rows,
    write_table,
)

REPO_ROOT = Path(__file__).resolve().parents[1]

SCHEMA = pa.schema(
    [
        pa.field("id", pa.string()),
        pa.field("score", pa.float64()),
        pa.field("tags", pa.list_(pa.string())),
        pa.field("turns", pa.list_(pa.struct([pa.field("role", pa.string()), pa.field("content", pa.string())]))),
        pa.field("payload_json", pa.string()),
    ]
)

_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=12)
_row = st.fixed_dictionaries(
    {
        "id": _text,
        "score": st.none() | st.floats(allow_nan=False, width=64),
        "tags": st.lists(_text, max_size=3),
        "turns": st.lists(
            st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]), "content": _text}), max_size=3
        ),
        "payload_json": st.dictionaries(_text, st.integers(-5, 5), max_size=3).map(
            lambda d: json.dumps(d, sort_keys=True)
        ),
    }
)
_rows = st.lists(_row, max_size=20)


def _table(rows: list[dict[str, object]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def _files(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=_rows, chunk=st.integers(1, 7))
def test_same_table_gives_byte_identical_file_regardless_of_chunking(tmp_path_factory, rows, chunk) -> None:
    root = tmp_path_factory.mktemp("store")
    table = _table(rows)
    # The same logical table built from several record batches must not change the bytes.
    rechunked = pa.Table.from_batches(table.to_batches(max_chunksize=chunk), schema=SCHEMA) if rows else table
    first = write_table(table, root, "specs")
    first_bytes = first.path.read_bytes()
    second = write_table(rechunked, root, "specs")

    assert second == first
    assert second.path.read_bytes() == first_bytes
    assert [name for name in _files(root / "specs") if name.endswith(".parquet")] == [first.path.name]
    assert first.path.name == f"{first.content_hash[:16]}.parquet"
    assert read_table(first).to_pylist() == rows


@settings(max_examples=40, deadline=None)
@given(rows=_rows, other=_rows)
def test_different_content_gives_different_hash(rows, other) -> None:
    if _table(rows).equals(_table(other)):
        assert parquet_bytes(_table(rows)) == parquet_bytes(_table(other))
    else:
        assert parquet_bytes(_table(rows)) != parquet_bytes(_table(other))


def test_a_fresh_interpreter_writes_the_same_bytes(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "score": 1.5, "tags": ["x"], "turns": [{"role": "user", "content": "hi"}], "payload_json": "{}"}
    ]
    here = write_table(_table(rows), tmp_path / "here", "specs")
    script = textwrap.dedent(
        f"""
        import pyarrow as pa, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_store_parquet import SCHEMA
        from coworkenv.store import write_table
        stored = write_table(pa.Table.from_pylist({rows!r}, schema=SCHEMA), {str(tmp_path / "there")!r}, "specs")
        print(stored.content_hash)
        """
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(REPO_ROOT)}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == here.content_hash


def test_latest_follows_the_last_write_per_partition(tmp_path: Path) -> None:
    assert latest(tmp_path, "envs", "mail") is None
    one = write_table(pa.table({"x": [1]}), tmp_path, "envs", "mail")
    two = write_table(pa.table({"x": [2, 3]}), tmp_path, "envs", "mail")
    other = write_table(pa.table({"x": [9]}), tmp_path, "envs", "calendar")

    assert latest(tmp_path, "envs", "mail") == two
    assert latest(tmp_path, "envs", "calendar") == other
    assert one.path.exists() and one.path.parent == two.path.parent == tmp_path / "envs" / "mail"
    # Writing old content again makes it current again without rewriting its file.
    mtime = one.path.stat().st_mtime_ns
    assert write_table(pa.table({"x": [1]}), tmp_path, "envs", "mail") == one
    assert latest(tmp_path, "envs", "mail") == one
    assert one.path.stat().st_mtime_ns == mtime


def test_crash_before_rename_leaves_no_file_and_latest_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = write_table(pa.table({"x": [1]}), tmp_path, "specs")
    files_before = _files(tmp_path / "specs")

    def crash(temp: Path, final: Path) -> None:
        assert temp.stat().st_size > 0  # the temp file was fully written
        raise OSError("simulated crash")

    monkeypatch.setattr(_atomic, "commit_file", crash)
    with pytest.raises(OSError, match="simulated crash"):
        write_table(pa.table({"x": [2]}), tmp_path, "specs")

    assert _files(tmp_path / "specs") == files_before  # no new file, temp cleaned up
    assert latest(tmp_path, "specs") == before


def test_crash_while_serializing_cleans_the_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = write_table(pa.table({"x": [1]}), tmp_path, "specs")

    def partial_write(table: pa.Table, sink) -> None:
        sink.write(b"PAR1 half a file")
        raise MemoryError("simulated failure mid-write")

    monkeypatch.setattr(_parquet, "write_parquet", partial_write)
    with pytest.raises(MemoryError):
        write_table(pa.table({"x": [2]}), tmp_path, "specs")

    assert _files(tmp_path / "specs") == sorted(["LATEST", before.path.name])
    assert latest(tmp_path, "specs") == before


def test_killed_process_never_exposes_a_partial_file(tmp_path: Path) -> None:
    before = write_table(pa.table({"x": [1]}), tmp_path, "specs")
    script = textwrap.dedent(
        f"""
        import os
        import pyarrow as pa
        from coworkenv import atomic as _atomic
        from coworkenv.store import write_table
        _atomic.commit_file = lambda temp, final: os._exit(9)  # killed between the temp file and the rename
        write_table(pa.table({{"x": [2]}}), {str(tmp_path)!r}, "specs")
        """
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 9, result.stderr

    parquet = [name for name in _files(tmp_path / "specs") if name.endswith(".parquet")]
    leftovers = [name for name in parquet if name.startswith(_atomic.TEMP_PREFIX)]
    assert [name for name in parquet if name not in leftovers] == [before.path.name]
    assert latest(tmp_path, "specs") == before
    # A later run completes the write normally.
    after = write_table(pa.table({"x": [2]}), tmp_path, "specs")
    assert latest(tmp_path, "specs") == after
    assert read_table(after).column("x").to_pylist() == [2]


def test_latest_reports_a_missing_file_with_what_to_do(tmp_path: Path) -> None:
    stored = write_table(pa.table({"x": [1]}), tmp_path, "specs")
    stored.path.unlink()
    with pytest.raises(FileNotFoundError, match="re-materialize"):
        latest(tmp_path, "specs")


def test_write_rows_checks_keys_against_the_schema(tmp_path: Path) -> None:
    schema = pa.schema([("id", pa.string()), ("n", pa.int32())])
    stored = write_rows([{"id": "a", "n": 1}, {"id": "b"}], schema, tmp_path, "specs")
    assert isinstance(stored, StoredTable)
    assert stored.schema == schema and stored.num_rows == 2
    assert read_table(stored.path).to_pylist() == [{"id": "a", "n": 1}, {"id": "b", "n": None}]
    with pytest.raises(ValueError, match=r"row 1 .*\['typo'\]"):
        write_rows([{"id": "a"}, {"id": "b", "typo": 1}], schema, tmp_path, "specs")


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", ".hidden", "x\\y"])
def test_unsafe_dataset_or_partition_names_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="directory name"):
        write_table(pa.table({"x": [1]}), tmp_path, "specs", name)


def test_shard_table_covers_every_row_in_order() -> None:
    table = pa.table({"x": list(range(10))})
    shards = shard_table(table, 4)
    assert [shard.num_rows for shard in shards] == [4, 4, 2]
    assert pa.concat_tables(shards).equals(table)
    assert [shard.num_rows for shard in shard_table(table.slice(0, 0), 4)] == [0]
    with pytest.raises(ValueError):
        shard_table(table, 0)
