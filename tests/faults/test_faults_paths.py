"""Fault corpus, paths that are not what they seem: a symbolic link that loops or points nowhere (as the output
folder or the input), a folder where an output file goes, names longer than the file system takes, a path through
a regular file. Each command stops with one line naming the path and what to do; nothing else is written and
what stood there is untouched. (Tests run as root, which ignores permission bits: these are the ways a path refuses
a root writer.)"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from tests.faults.harness import CAPABILITY, refused, snapshot, spec_folder, temp_files

runner = CliRunner()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A folder of specs and the trajectories `rollout` makes of them (in-process, once for the module)."""
    root = tmp_path_factory.mktemp("inputs")
    specs = spec_folder(root / "specs")
    assert runner.invoke(app, ["rollout", str(specs), "--out", str(root / "traj")]).exit_code == 0
    return {"specs": specs, "traj": root / "traj"}


WRITERS: dict[str, Callable[[dict[str, Path], Path], list[str]]] = {
    "synth": lambda given, out: ["synth", "--out", str(out), "-c", CAPABILITY, "--n", "1"],
    "rollout": lambda given, out: ["rollout", str(given["specs"]), "--out", str(out)],
    "curate": lambda given, out: ["curate", str(given["traj"]), "--out", str(out)],
    "validate": lambda given, out: ["validate", str(given["specs"]), "--out", str(out)],
}


@pytest.mark.parametrize("command", ["synth", "rollout", "curate"])
def test_an_out_folder_that_is_a_looping_link_is_named(inputs: dict[str, Path], tmp_path: Path, command: str) -> None:
    loop = tmp_path / "out"
    loop.symlink_to(tmp_path / "out")
    # refused before any work since faults40 (exit 2, usage); at the first write before (exit 1)
    line = refused(WRITERS[command](inputs, loop), str(loop), "symbolic link", "loops")
    assert "a file stands" not in line  # the old, wrong diagnosis
    assert loop.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_an_out_folder_that_is_a_dangling_link_is_named(inputs: dict[str, Path], tmp_path: Path) -> None:
    link = tmp_path / "out"
    link.symlink_to(tmp_path / "gone" / "away")
    refused(WRITERS["rollout"](inputs, link), str(link), "points nowhere")  # before any work since faults40
    assert not (tmp_path / "gone").exists()


@pytest.mark.parametrize(("command", "args"), [
    ("rollout", lambda loop: ["rollout", str(loop), "--out", str(loop.parent / "o")]),
    ("curate", lambda loop: ["curate", str(loop), "--out", str(loop.parent / "o")]),
    ("env run", lambda loop: ["env", "run", str(loop)]),
])
def test_an_input_that_is_a_looping_link_is_named(tmp_path: Path, command: str,
                                                  args: Callable[[Path], list[str]]) -> None:
    loop = tmp_path / "in"
    loop.symlink_to(loop)
    refused(args(loop), str(loop), "symbolic link that loops")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("command", "file_name"), [
    ("synth", f"specs-{CAPABILITY}.parquet"), ("validate", "accepted.parquet"), ("curate", "curation_report.json"),
])
def test_a_folder_where_an_output_file_goes_is_named_and_left_alone(inputs: dict[str, Path], tmp_path: Path,
                                                                   command: str, file_name: str) -> None:
    out = tmp_path / "out"
    (out / file_name).mkdir(parents=True)
    (out / file_name / "notes.txt").write_text("mine")
    before = snapshot(out)
    refused(WRITERS[command](inputs, out), str(out / file_name), "a folder where the file goes", code=1)
    assert {k: v for k, v in snapshot(out).items() if k.startswith(file_name)} == before
    assert temp_files(out) == []


def test_an_out_name_longer_than_the_file_system_takes_is_named(inputs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / ("o" * 300)
    refused(WRITERS["synth"](inputs, out), "File name too long", "shorter path", code=1)
    assert list(tmp_path.iterdir()) == []


def test_an_input_name_longer_than_the_file_system_takes_is_named(tmp_path: Path) -> None:
    refused(["rollout", str(tmp_path / ("s" * 300 + ".json")), "--out", str(tmp_path / "o")], "shorter path",
            code=1)
    assert not (tmp_path / "o").exists()


def test_an_input_path_through_a_regular_file_is_named(inputs: dict[str, Path], tmp_path: Path) -> None:
    through = next(inputs["specs"].glob("*.json")) / "more.json"
    refused(["rollout", str(through), "--out", str(tmp_path / "o")], str(through), "no such file or folder")
    assert not (tmp_path / "o").exists()


def test_a_capability_id_too_long_for_a_file_name_fails_before_any_file(tmp_path: Path) -> None:
    source = (Path(__file__).resolve().parents[2] / "taxonomy" / "tickets.yaml").read_text(encoding="utf-8")
    long_id = "t" * 300
    taxonomy = tmp_path / "taxonomy"
    taxonomy.mkdir()
    (taxonomy / "tickets.yaml").write_text(
        source.replace(f"id: {CAPABILITY}", f"id: {long_id}\n    generator: {CAPABILITY}"), encoding="utf-8")
    out = tmp_path / "out"
    # refused at the taxonomy's load since faults40 (the id blamed, at its line); at the write before ("File name
    # too long ... shorter path", the output path blamed)
    refused(["synth", "--taxonomy", str(taxonomy), "--out", str(out), "-c", long_id, "--n", "1"],
            "tickets.yaml:", "300 characters long")
    assert snapshot(out) == {} and temp_files(out) == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_given_as_a_spec_file_is_refused_without_blocking(tmp_path: Path) -> None:
    pipe = tmp_path / "specs.json"
    os.mkfifo(pipe)
    refused(["rollout", str(pipe), "--out", str(tmp_path / "o")], str(pipe))


def test_a_publish_repository_that_is_a_looping_link_is_named(tmp_path: Path) -> None:
    from coworkenv.store import LocalGitPublisher, PublishError
    from tests.faults.harness import release

    repo = tmp_path / "hub"
    repo.symlink_to(repo)
    with pytest.raises(PublishError, match="loops or points nowhere") as caught:
        LocalGitPublisher(repo).publish(release("v1"))
    assert "a file stands in the way" not in str(caught.value)
    assert repo.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["hub"]


def test_a_training_out_folder_that_is_a_looping_link_is_named(tmp_path: Path) -> None:
    """The trainers resolve --out first; Python 3.11 answers a loop with a RuntimeError, which was a traceback."""
    pytest.importorskip("trl")
    loop = tmp_path / "ckpt"
    loop.symlink_to(loop)
    shards = tmp_path / "shards"
    shards.mkdir()
    refused(["train", "sft", "--config", "tiny", "--data", str(shards), "--out", str(loop)], str(loop),
            "loops or points nowhere", code=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt", "shards"]
