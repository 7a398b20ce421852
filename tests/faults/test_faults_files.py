"""Fault corpus, files of another kind than expected: capability YAML in another encoding, of wrong types or with
huge values; Parquet written by an older version (extra, renamed or retyped columns), empty Parquet; and temp
files an interrupted writer left (on this host or on another one sharing the disk). Bad input is refused with one
line naming the file (and line or column) and what to do, before anything is written; what is compatible reads the
same as a current file."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from coworkenv.atomic import TEMP_PREFIX, temp_prefix
from coworkenv.cli import app
from coworkenv.store.stages import StageError, read_sft, read_specs, sft_files
from tests.faults.harness import CAPABILITY, refused, snapshot, spec_folder

runner = CliRunner()
TAXONOMY = Path(__file__).resolve().parents[2] / "taxonomy" / "tickets.yaml"


# -- capability YAML -------------------------------------------------------------------------------------------------
def _yaml(text: str) -> str:
    return TAXONOMY.read_text(encoding="utf-8").replace(*text.split(" => "))


BAD_YAML: dict[str, tuple[bytes, list[str]]] = {
    "latin-1 bytes": (_yaml("Triage every => Tri\xe9ge every").encode("latin-1"), [":7:", "not UTF-8", "save the "
                                                                                   "file as UTF-8"]),
    "random bytes": (bytes(range(128, 256)) * 3, ["not UTF-8", "UTF-8"]),
    "quota as text": (_yaml("quota: 8 => quota: many").encode(), [":14:", "quota", "valid integer"]),
    "quota past 64 bits": (_yaml("quota: 8 => quota: 100000000000000000000000").encode(), [":14:", "quota",
                                                                                          "less than or equal"]),
    "negative quota": (_yaml("quota: 8 => quota: -3").encode(), [":14:", "quota", "greater than or equal to 0"]),
    "difficulty a number": (_yaml("difficulty: [1, 5] => difficulty: 3").encode(), [":11:", "difficulty"]),
    "apps a mapping": (_yaml("apps: [tickets, files, services, directory] => apps: {tickets: 1}").encode(),
                       [":10:", "apps", "valid list"]),
    "a list at the top": (b"- 1\n- 2\n", [":1:", "expected a mapping"]),
}


@pytest.mark.parametrize("case", sorted(BAD_YAML))
def test_a_capability_file_of_wrong_bytes_types_or_sizes_is_named_with_its_line(tmp_path: Path, case: str) -> None:
    content, needles = BAD_YAML[case]
    folder = tmp_path / "taxonomy"
    folder.mkdir()
    (folder / "tickets.yaml").write_bytes(content)
    refused(["taxonomy", "--path", str(folder)], str(folder / "tickets.yaml"), *needles)
    out = tmp_path / "out"
    refused(["synth", "--taxonomy", str(folder), "--out", str(out), "--n", "1"], str(folder / "tickets.yaml"))
    assert not out.exists()


def test_a_folder_named_like_a_capability_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "taxonomy" / "tickets.yaml").mkdir(parents=True)
    refused(["taxonomy", "--path", str(tmp_path / "taxonomy")], str(tmp_path / "taxonomy" / "tickets.yaml"),
            "Is a directory", "readable YAML file")


# -- Parquet of an older version, or empty ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """specs (synth), trajectories (rollout) and SFT shards (curate), made once by the commands themselves."""
    root = tmp_path_factory.mktemp("made")
    specs = spec_folder(root / "json")
    assert runner.invoke(app, ["rollout", str(specs), "--out", str(root / "traj")]).exit_code == 0
    assert runner.invoke(app, ["curate", str(root / "traj"), "--out", str(root / "sft")]).exit_code == 0
    assert runner.invoke(app, ["synth", "--out", str(root / "specs"), "-c", CAPABILITY, "--n", "2"]).exit_code == 0
    return {"specs": root / "specs" / f"specs-{CAPABILITY}.parquet", "traj": root / "traj", "sft": root / "sft",
            "json": specs}


def _only(folder: Path) -> Path:
    (file,) = sorted(folder.glob("*.parquet"))
    return file


def test_a_specs_file_with_a_column_a_later_version_dropped_reads_like_the_current_one(
        made: dict[str, Path], tmp_path: Path) -> None:
    table = pq.read_table(made["specs"])
    older = tmp_path / "specs.parquet"
    pq.write_table(table.append_column("legacy_score", pa.array([0.5] * table.num_rows)), older)
    assert read_specs(older) == read_specs(made["specs"])


def test_a_specs_file_whose_spec_column_has_an_old_name_names_file_and_column(made: dict[str, Path],
                                                                             tmp_path: Path) -> None:
    table = pq.read_table(made["specs"])
    older = tmp_path / "specs.parquet"
    pq.write_table(table.rename_columns(["spec" if c == "spec_json" else c for c in table.column_names]), older)
    refused(["rollout", str(older), "--out", str(tmp_path / "o")], str(older), "spec_json")
    assert not (tmp_path / "o").exists()


def test_trajectories_with_an_extra_column_curate_to_the_same_shards(made: dict[str, Path], tmp_path: Path) -> None:
    table = pq.read_table(_only(made["traj"]))
    folder = tmp_path / "traj"
    folder.mkdir()
    pq.write_table(table.append_column("legacy", pa.array([1] * table.num_rows)), folder / _only(made["traj"]).name)
    assert runner.invoke(app, ["curate", str(folder), "--out", str(tmp_path / "sft")]).exit_code == 0
    assert read_sft(sft_files(tmp_path / "sft")) == read_sft(sft_files(made["sft"]))


def test_an_sft_shard_whose_messages_are_a_list_of_something_else_is_refused(made: dict[str, Path],
                                                                            tmp_path: Path) -> None:
    shard = sorted(made["sft"].glob("train-*.parquet"))[0]
    table = pq.read_table(shard)
    index = table.schema.get_field_index("messages")
    bad = tmp_path / shard.name
    pq.write_table(table.set_column(index, "messages", pa.array([[1, 2]] * table.num_rows)), bad)
    with pytest.raises(StageError, match=re.escape(str(bad)) + ".*'messages'"):
        read_sft(sft_files(tmp_path))


@pytest.mark.parametrize("shape", ["no rows", "no columns"])
def test_an_empty_specs_parquet_is_refused_naming_it(made: dict[str, Path], tmp_path: Path, shape: str) -> None:
    table = pq.read_table(made["specs"]).slice(0, 0) if shape == "no rows" else pa.table({})
    empty = tmp_path / "specs.parquet"
    pq.write_table(table, empty)
    refused(["rollout", str(empty), "--out", str(tmp_path / "o")], str(empty))
    assert not (tmp_path / "o").exists()


def test_an_empty_trajectories_file_never_replaces_earlier_shards(made: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "sft"
    assert runner.invoke(app, ["curate", str(made["traj"]), "--out", str(out)]).exit_code == 0
    before = snapshot(out)
    empty = tmp_path / "empty"
    empty.mkdir()
    pq.write_table(pq.read_table(_only(made["traj"])).slice(0, 0), empty / "trajectories-0.parquet")
    refused(["curate", str(empty), "--out", str(out)], str(empty), "no trajectories", "unchanged")
    assert snapshot(out) == before


# -- temp files an interrupted writer left -----------------------------------------------------------------------------
def test_another_hosts_temp_file_is_left_alone_and_read_by_no_one(made: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "specs"
    out.mkdir()
    foreign = out / f"{TEMP_PREFIX}0badc0de-4242-abc.parquet"  # a writer on another machine may still be at it
    foreign.write_bytes(pq.read_table(made["specs"]).slice(0, 1).to_string().encode())
    assert runner.invoke(app, ["synth", "--out", str(out), "-c", CAPABILITY, "--n", "2"]).exit_code == 0
    assert foreign.exists()
    assert (out / made["specs"].name).read_bytes() == made["specs"].read_bytes()
    assert read_specs(out) == read_specs(made["specs"])  # a reader of the folder passes over the temp file


def test_this_hosts_temp_file_of_a_dead_writer_is_swept_by_the_next_write(made: dict[str, Path],
                                                                        tmp_path: Path) -> None:
    out = tmp_path / "specs"
    out.mkdir()
    gone = subprocess.Popen(["true"])
    gone.wait()  # its pid now names a writer that died
    stale = out / f"{temp_prefix().rsplit('-', 2)[0]}-{gone.pid}-half.parquet"
    stale.write_bytes(b"PAR1 half a file")
    assert runner.invoke(app, ["synth", "--out", str(out), "-c", CAPABILITY, "--n", "2"]).exit_code == 0
    assert not stale.exists()
    assert sorted(p.name for p in out.iterdir()) == [made["specs"].name]
