"""Fault corpus, a byte flipped on a disk or in a copy of a Parquet file the project wrote by name (a specs file of
`synth`, a trajectories file of `rollout`, an SFT shard of `curate`): not content-addressed, so no hash of the store
checks it, and Parquet as the project wrote it kept no checksum of its values.

Measured on `main` (the thirty-seventh round's scan): of 4,936 one-bit flips of a specs file 2,528 read back as other
values (a letter of a capability id changed: other training data, no word said); of 4,530 of a trajectories file,
360. Now every page carries a CRC and the footer a sha256 of its schema and metadata (`coworkenv.store._parquet`):
each flip is refused naming the file, or reads the very same table (a flip in a statistic no reader uses)."""

from __future__ import annotations

import itertools
import shutil
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from coworkenv.curate.shards import NEEDED_COLUMNS
from coworkenv.store._parquet import PARQUET_WRITE_OPTIONS
from coworkenv.store.stages import StageError
from coworkenv.store.stages.sft import read_sft, sft_files
from coworkenv.store.stages.specs import SPECS
from coworkenv.store.stages.trajectories import TrajectorySource, read_trajectories
from tests.faults.harness import refused, stage_inputs, succeeded


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A specs file, a trajectories folder and an SFT folder, written by the commands (once)."""
    return stage_inputs(tmp_path_factory.mktemp("stages"))


def _flipped(data: bytes, at: int, bit: int | None = None) -> bytes:
    """`data` with one bit of byte `at` flipped: bit `bit`, or by default bit `at % 8` (one bit a byte, spread)."""
    damaged = bytearray(data)
    damaged[at] ^= 1 << (at % 8 if bit is None else bit)
    return bytes(damaged)


def _footer_start(data: bytes) -> int:
    return len(data) - 8 - struct.unpack("<I", data[-8:-4])[0]


def _positions(data: bytes, count: int) -> list[int]:
    """About `count` bytes spread over the pages and as many over the footer (its schema: the column names)."""
    start = _footer_start(data)
    return [*range(4, start, max(1, start // count)), *range(start, len(data) - 8, max(1, (len(data) - start) // count))]


def _specs(file: Path) -> Any:
    return SPECS.read(file)


def _trajectories(file: Path) -> Any:
    return read_trajectories(file.parent)


def _sft(file: Path) -> Any:
    return read_sft(sft_files(file.parent), None)


READERS: dict[str, tuple[str, Callable[[Path], Any]]] = {
    "specs": ("specs", _specs),
    "trajectories": ("traj", _trajectories),
    "sft": ("sft", _sft),
}


@pytest.mark.parametrize("kind", list(READERS))
def test_no_flipped_bit_of_a_written_file_reads_as_other_values(tmp_path: Path, made: dict[str, Path],
                                                                kind: str) -> None:
    where, read = READERS[kind]
    source = made[where]
    if source.is_dir():
        folder = tmp_path / where
        shutil.copytree(source, folder)
        file = max(folder.glob("*.parquet"), key=lambda p: p.stat().st_size)
    else:
        file = tmp_path / source.name
        shutil.copy(source, file)
    data = file.read_bytes()
    expected = read(file)
    silent, other = [], []
    positions = _positions(data, 40)
    for at in positions:
        file.write_bytes(_flipped(data, at))
        try:
            got = read(file)
        except StageError as exc:
            assert str(exc).startswith(str(file)) or str(file) in str(exc), exc
            continue
        except Exception as exc:  # a traceback of the command
            other.append(f"{at}: {type(exc).__name__}: {exc}")
            continue
        if got != expected and not (isinstance(got, pa.Table) and got.equals(expected)):
            silent.append(at)
    file.write_bytes(data)
    assert not other, other[:3]
    assert not silent, f"{len(silent)} of {len(positions)} flips read as other values (at bytes {silent[:8]})"


def test_a_specs_flip_that_reads_as_another_capability_is_refused_by_validate(
        tmp_path: Path, made: dict[str, Path]) -> None:
    """The flip a reader without checks takes as other values, through the command, names the file."""
    file = tmp_path / "specs.parquet"
    data = made["specs"].read_bytes()
    expected = pq.read_table(made["specs"])
    for at in range(len(data) // 3, _footer_start(data)):
        try:
            if not pq.read_table(pa.BufferReader(_flipped(data, at))).equals(expected):  # as main read it
                break
        except (OSError, pa.ArrowException):
            continue
    else:
        pytest.fail("no flip reads as other values without checks")
    file.write_bytes(_flipped(data, at))
    out = tmp_path / "out"
    line = refused(["validate", str(file), "--out", str(out)], str(file), "damaged Parquet data")
    assert "checksum" in line.lower() or "CRC" in line, line
    assert not out.exists()


def test_a_flipped_pass_mark_is_named_before_curation_chooses_by_it(tmp_path: Path, made: dict[str, Path]) -> None:
    """The scan curation chooses episodes by (`passed`, the counts) is a polars scan, which checks no page: each
    flip of those columns' pages that changes a value is named when the source is opened.

    Every bit of every byte of the chunk is flipped, not bit `at % 8`: the chunk's offset in the file moves with the
    rollout's timings (columns before it, `steps.model_s`, `audit.time`, compress to other sizes), and the chunk's
    few live bits (the bit-packed values of two rows, the page type) were in 1 alignment of 8 all left untried."""
    folder = tmp_path / "traj"
    shutil.copytree(made["traj"], folder)
    (file,) = sorted(folder.glob("trajectories-*.parquet"))
    data = file.read_bytes()
    metadata = pq.read_metadata(file)
    names = [metadata.schema.column(i).path for i in range(metadata.num_columns)]
    chunk = metadata.row_group(0).column(names.index("passed"))
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    expected = pq.read_table(file, columns=["passed"])
    changed = 0
    for at, bit in itertools.product(range(start, start + chunk.total_compressed_size), range(8)):
        damaged = _flipped(data, at, bit)
        try:
            unchecked = pq.read_table(pa.BufferReader(damaged), columns=["passed"])
        except (OSError, pa.ArrowException):
            continue
        if unchecked.equals(expected):
            continue
        changed += 1
        file.write_bytes(damaged)
        with pytest.raises(StageError, match="damaged Parquet data"):
            TrajectorySource(folder, NEEDED_COLUMNS)
    assert changed, "no flip of the passed column's pages changed a value"


def test_files_written_before_the_checks_are_read_as_before(tmp_path: Path, made: dict[str, Path]) -> None:
    """Guard: a specs file of the previous writer (no page checksums, no footer check) is read and validated."""
    file = tmp_path / "old.parquet"
    options = {k: v for k, v in PARQUET_WRITE_OPTIONS.items() if k != "write_page_checksum"}
    pq.write_table(pq.read_table(made["specs"]), file, **options)
    assert not any(b"footer_sha256" in k for k in (pq.read_metadata(file).metadata or {}))
    assert SPECS.read(file).equals(SPECS.read(made["specs"]))
    succeeded(["validate", str(file), "--out", str(tmp_path / "out")])
