"""Fault corpus, file and folder names a user can make: spaces, non-ASCII letters, a leading dash, control
characters (a newline, a carriage return, a Unicode line separator, a terminal escape) and bytes that are not UTF-8.
Outputs under such names hold the bytes they hold under a plain name, a publish carries such file names through,
and an error naming such a path is still one `error:` line, its control characters escaped, so nothing reaches the
terminal raw. A name that is not UTF-8, which the Parquet readers cannot open, is refused naming it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.store import LocalGitPublisher
from tests.faults.harness import (
    CAPABILITY,
    ROOT,
    assert_clean_failure,
    renamed_copy,
    run_child,
    snapshot,
    specs_and_trajectories,
)

runner = CliRunner()
CONTROL = {"newline": "line\nbreak", "carriage-return": "carriage\rreturn", "line-separator": "sep\u2028arator",
           "terminal-escape": "esc\x1b[31mape", "tab": "tab\there"}
LEGAL = {"space": "with space", "non-ascii": "ünï 数据", "leading-dash": "-dash", "newline": "line\nbreak"}


@pytest.mark.parametrize("name", list(CONTROL.values()), ids=list(CONTROL))
def test_an_error_naming_a_path_with_a_control_character_is_one_escaped_line(tmp_path: Path, name: str) -> None:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "specs.parquet").write_bytes(b"not parquet")
    failed = run_child(["validate", str(folder / "specs.parquet"), "--out", str(tmp_path / "out")], preloaded=True)
    escaped = name.encode("unicode_escape").decode("ascii")
    line = assert_clean_failure(failed, f"{escaped}/specs.parquet", "not a readable Parquet file", code=2)
    assert name not in failed.stderr and "\x1b" not in failed.stderr, line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", list(LEGAL.values()), ids=list(LEGAL))
def test_outputs_under_an_unusual_folder_name_are_the_bytes_of_a_plain_one(tmp_path: Path, name: str) -> None:
    args = ["-c", CAPABILITY, "--n", "2"]
    odd, plain = tmp_path / name / "specs", tmp_path / "plain"
    assert runner.invoke(app, ["synth", "--out", str(odd), *args]).exit_code == 0
    assert runner.invoke(app, ["synth", "--out", str(plain), *args]).exit_code == 0
    assert snapshot(odd) == snapshot(plain) and snapshot(odd)
    validated = runner.invoke(app, ["validate", str(odd), "--out", str(tmp_path / name / "validated")])
    assert validated.exit_code == 0, validated.output
    assert runner.invoke(app, ["validate", str(plain), "--out", str(tmp_path / "validated")]).exit_code == 0
    assert snapshot(tmp_path / name / "validated").keys() == snapshot(tmp_path / "validated").keys()


def test_a_publish_carries_unusual_file_names_and_drops_them_when_a_version_does(tmp_path: Path) -> None:
    folder = tmp_path / "checkpoint ü"
    names = ["with space.bin", "ünï 数据.json", "line\nbreak.txt", "-dash.bin", "sub dir/ä.bin"]
    for index, name in enumerate(names):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(f"file {index}\n".encode())
    repo = tmp_path / "hub repo ü"
    publisher = LocalGitPublisher(repo)
    first = publisher.publish_folder(folder, "v1", "# v1\n")
    assert sorted(first.files) == sorted(["README.md", *names])
    assert {k: v for k, v in snapshot(repo).items() if k != "README.md"} == snapshot(folder)
    assert publisher.publish_folder(folder, "v1", "# v1\n").revision == first.revision  # a retry is a no-op
    (folder / "line\nbreak.txt").unlink()
    (folder / "sub dir" / "ä.bin").unlink()
    publisher.publish_folder(folder, "v2", "# v2\n")
    assert {k: v for k, v in snapshot(repo).items() if k != "README.md"} == snapshot(folder)
    assert not (repo / "sub dir").exists() and publisher.published_versions() == ["v1", "v2"]
    status = subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True)
    assert status.stdout == ""


NOT_UTF8 = os.fsdecode(b"caf\xe9")  # Latin-1 bytes, as an older tool may have named it


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return specs_and_trajectories(tmp_path_factory.mktemp("odd"))


@pytest.mark.parametrize(("command", "inside"), [("validate", False), ("validate", True), ("rollout", True),
                                                 ("curate", False), ("curate", True), ("synth", False)])
def test_a_name_that_is_not_utf8_is_refused_naming_it(made: dict[str, Path], tmp_path: Path, command: str,
                                                      inside: bool) -> None:
    out = tmp_path / "out"
    if command == "synth":  # an output no later command could open
        args, named = ["synth", "--out", str(out / NOT_UTF8), "-c", CAPABILITY, "--n", "1"], out / NOT_UTF8
    else:
        source = renamed_copy(made["traj" if command == "curate" else "specs"], tmp_path, NOT_UTF8, inside=inside)
        args = [command, str(source), "--out", str(out)]
        named = next(source.iterdir()) if inside else source
    failed = run_child(args, preloaded=True)
    escaped = str(named).replace(NOT_UTF8, "caf\\xe9")
    assert_clean_failure(failed, escaped, "not UTF-8", "rename it", code=2)
    assert not out.exists()


def test_the_taxonomy_listing_names_an_area_file_whose_name_is_not_utf8(tmp_path: Path) -> None:
    """`coworkenv taxonomy --json` with an area file whose name is not UTF-8 (which the taxonomy reads, as every
    stage does): on main a TypeError traceback from the JSON encoder; now the file is named with the byte escaped."""
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    (folder / "data.yaml").rename(folder / f"{NOT_UTF8}.yaml")
    listed = runner.invoke(app, ["taxonomy", "--taxonomy", str(folder), "--json"])
    assert listed.exit_code == 0 and listed.exception is None, listed.output
    sources = {row["id"]: row["source"] for row in json.loads(listed.output)}
    assert sources["report_from_data"] == str(folder / "caf\\xe9.yaml"), sources
    assert sources["ticket_triage_update"] == str(folder / "tickets.yaml")
