"""Fault corpus, a Parquet input damaged inside its pages while its footer still reads (a byte flipped on a disk or in
a copy): a text turned into invalid UTF-8, a JSON text cut. pyarrow reads such a page without checking it.

Measured on `main` by flipping one bit at every fifth byte of a 24.7 KB specs file written by `coworkenv synth` (4,936
files): 7 gave a text of invalid UTF-8, which `coworkenv validate` and `rollout` reported as a UnicodeDecodeError
traceback (exit 1, no file named); flipping every seventh byte of a trajectories file, 124 of 4,530 raised from the
trajectory reader (the RL stage's) as a JSONDecodeError, UnicodeDecodeError or TypeError traceback. Now each is one
line naming the file, "damaged Parquet data" or "damaged trajectory data", and nothing is written. (Most other flips
are refused as damaged already; a flip that leaves valid text, a letter of a capability id changed, is read as it
is: see docs/robustness.md.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from coworkenv.examples import example_names, load_example
from coworkenv.store.stages import StageError, write_specs
from coworkenv.store.stages.trajectories import read_trajectories
from coworkenv.validate import procedural_candidates
from tests.faults.harness import refused, snapshot, stage_inputs, succeeded


def _invalid_utf8(column: pa.ChunkedArray, row: int) -> pa.Array:
    """`column` (text) with one byte of row `row` turned into a byte UTF-8 never holds there (0xE7 before ASCII)."""
    texts = [value.encode() for value in column.to_pylist()]
    texts[row] = texts[row][:2] + b"\xe7" + texts[row][3:]
    offsets = [0]
    for text in texts:
        offsets.append(offsets[-1] + len(text))
    return pa.Array.from_buffers(pa.string(), len(texts), [None, pa.array(offsets, pa.int32()).buffers()[1],
                                                            pa.py_buffer(b"".join(texts))])


def _damaged(file: Path, column: str, damage: str) -> None:
    """Rewrite `file` with `column` of its first row damaged (its schema and markers kept), uncompressed."""
    table = pq.read_table(file)
    index = table.schema.get_field_index(column)
    if damage == "utf8":
        array = _invalid_utf8(table.column(index), 0)
    else:  # a JSON text cut short
        values = table.column(index).to_pylist()
        values[0] = values[0][: len(values[0]) // 2]
        array = pa.array(values, table.schema.field(index).type)
    pq.write_table(table.set_column(index, table.schema.field(index), array), file, compression="none")


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    file = tmp_path / "in" / "specs.parquet"
    file.parent.mkdir()
    write_specs(procedural_candidates([load_example(n) for n in example_names()[:2]]), file)
    return file


@pytest.fixture(scope="module")
def episodes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A trajectories folder `coworkenv rollout` wrote (made once)."""
    return stage_inputs(tmp_path_factory.mktemp("stages"))["traj"]


def _copy(episodes: Path, where: Path) -> tuple[Path, Path]:
    folder = where / "traj"
    shutil.copytree(episodes, folder)
    (file,) = sorted(folder.glob("trajectories-*.parquet"))
    return folder, file


@pytest.mark.parametrize("column", ["spec_json", "capability"])
@pytest.mark.parametrize("command", ["validate", "rollout"])
def test_a_specs_file_with_a_damaged_text_is_named_and_nothing_is_written(
        tmp_path: Path, specs: Path, command: str, column: str) -> None:
    _damaged(specs, column, "utf8")
    out = tmp_path / "out"
    line = refused([command, str(specs), "--out", str(out)], str(specs), "damaged Parquet data", "Invalid UTF8")
    assert "Traceback" not in line
    assert not out.exists()


@pytest.mark.parametrize(("column", "damage"), [("tools", "cut"), ("sampling", "cut"), ("user_sim", "utf8")])
def test_a_trajectories_file_with_a_damaged_value_is_named_by_the_reader(
        tmp_path: Path, episodes: Path, column: str, damage: str) -> None:
    folder, file = _copy(episodes, tmp_path)
    _damaged(file, column, damage)
    before = snapshot(folder)
    with pytest.raises(StageError) as caught:
        read_trajectories(folder)
    assert str(caught.value).startswith(f"{file}: damaged"), caught.value
    assert snapshot(folder) == before


def test_undamaged_files_rewritten_the_same_way_are_read(tmp_path: Path, specs: Path, episodes: Path) -> None:
    """Guard: a file rewritten uncompressed with its markers (the damage's way) but no damage is read as before."""
    table = pq.read_table(specs)
    pq.write_table(table, specs, compression="none")
    succeeded(["validate", str(specs), "--out", str(tmp_path / "out")])
    folder, file = _copy(episodes, tmp_path)
    pq.write_table(pq.read_table(file), file, compression="none")
    assert len(read_trajectories(folder)) == len(pq.read_table(file))
