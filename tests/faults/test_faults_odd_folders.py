"""Fault corpus, a folder to write into named by a path that can be no folder: COWORKENV_DATA_DIR naming a file, a
named pipe, a device, a symbolic link that loops or points nowhere, or a path under one of them; `--out` naming a link
that loops or points nowhere; the taxonomy folder given as such a link. Measured on `main`: `python -m pipelines.run`
took such a data folder, generated the first capability's specs (with an LLM: paid for) and failed its first step with
a traceback ("a file stands where a folder is expected", for a pipe; "Too many levels of symbolic links"); `synth --out`
a looping link generated every spec, then "cannot write" (exit 1); the taxonomy folder as a looping or dangling link
was "no such file or folder". Now each is refused before any work, naming the path at fault and what to do."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.synth import TaxonomyError, load_taxonomy
from pipelines.run import UsageError, _checked_inputs

ROOT = Path(__file__).resolve().parents[2]


def _odd(tmp_path: Path, kind: str) -> Path:
    """A path of `kind` under tmp_path, made as a user's mistake leaves it."""
    if kind == "a file":
        (tmp_path / "data").write_text("notes\n")
        return tmp_path / "data"
    if kind == "a named pipe":
        os.mkfifo(tmp_path / "data")
        return tmp_path / "data"
    if kind == "a device":
        return Path("/dev/null")
    if kind == "a folder under a file":
        (tmp_path / "data").write_text("notes\n")
        return tmp_path / "data" / "store"
    if kind.startswith("a link that loops"):
        (tmp_path / "data").symlink_to(tmp_path / "data")
        return tmp_path / "data" / "x" if kind.endswith("on the way") else tmp_path / "data"
    assert kind == "a link to nowhere"  # a disk not mounted
    (tmp_path / "data").symlink_to(tmp_path / "unmounted" / "data")
    return tmp_path / "data"


DATA_DIRS = {"a file": "is a file, not a folder", "a named pipe": "is a named pipe (FIFO)",
             "a device": "is a device", "a folder under a file": "is a file, not a folder (on the way to",
             "a link that loops": "loops", "a link that loops on the way": "on the way to",
             "a link to nowhere": "points nowhere"}


@pytest.mark.parametrize("kind", DATA_DIRS)
def test_a_data_folder_that_can_be_no_folder_is_refused_before_any_run(tmp_path: Path, kind: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COWORKENV_DATA_DIR", str(_odd(tmp_path, kind)))
    monkeypatch.setenv("COWORKENV_TAXONOMY_DIR", str(ROOT / "taxonomy"))
    args = argparse.Namespace(only=None, all=False, no_train=True, no_rl=True, rl_compare=False, taxonomy=None,
                              allow_partial=False)
    with pytest.raises(UsageError) as refused:
        _checked_inputs(args)
    message = str(refused.value)
    assert message.startswith("COWORKENV_DATA_DIR=") and DATA_DIRS[kind] in message, message
    assert "\n" not in message


@pytest.mark.parametrize("kind", ["a link that loops", "a link to nowhere"])
def test_an_out_folder_that_is_a_broken_link_is_refused_before_any_work(tmp_path: Path, kind: str) -> None:
    out = _odd(tmp_path, kind)
    result = CliRunner().invoke(app, ["synth", "--taxonomy", str(ROOT / "taxonomy"), "-c", "ticket_triage_update",
                                      "--n", "1", "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert f"--out {out}: {out} is a symbolic link" in result.output and DATA_DIRS[kind] in result.output


@pytest.mark.parametrize("kind", ["a link that loops", "a link to nowhere"])
def test_a_taxonomy_folder_that_is_a_broken_link_says_so(tmp_path: Path, kind: str) -> None:
    with pytest.raises(TaxonomyError) as refused:
        load_taxonomy(_odd(tmp_path, kind))
    assert "is a symbolic link" in str(refused.value) and DATA_DIRS[kind] in str(refused.value)
    assert "no such file" not in str(refused.value)


def test_a_data_folder_behind_a_sound_link_or_missing_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard: a link to a folder on a bigger disk, and a folder the run creates, are data folders."""
    (tmp_path / "disk").mkdir()
    (tmp_path / "data").symlink_to(tmp_path / "disk")
    monkeypatch.setenv("COWORKENV_TAXONOMY_DIR", str(ROOT / "taxonomy"))
    args = argparse.Namespace(only=None, all=False, no_train=True, no_rl=True, rl_compare=False, taxonomy=None,
                              allow_partial=False)
    for folder in (tmp_path / "data", tmp_path / "data" / "new", tmp_path / "missing" / "data"):
        monkeypatch.setenv("COWORKENV_DATA_DIR", str(folder))
        assert _checked_inputs(args)[0].data_dir == str(folder)
