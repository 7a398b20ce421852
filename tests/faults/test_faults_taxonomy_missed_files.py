"""Fault corpus, an area file the taxonomy would skip without a word: saved by Notepad as `operations.yaml.txt` (Windows
hides the suffix it adds), named with a blank or a dot after its suffix, or put in a subfolder (`taxonomy/ops/`).

Each is refused naming the file and the name to give it (or where to move it), before any work. Measured on `main`
before the fix: the file was left out silently; `coworkenv taxonomy` listed the other areas, `synth` said the
capability did not exist, and the pipeline ran on without the new area ("every capability partition is complete").
Backup names (`~`, `.bak`), hidden folders and folders without YAML files are still left alone (regression guards).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from tests.faults.harness import ROOT, pipeline_refused, refused

runner = CliRunner()
AREA = "operations.yaml"  # the area file moved or renamed
ITS_CAPABILITY = "incident_investigate_fix"


def _renamed(name: str) -> Callable[[Path], Path]:
    def rename(folder: Path) -> Path:
        return (folder / AREA).rename(folder / name)
    return rename


def _moved(into: str) -> Callable[[Path], Path]:
    def move(folder: Path) -> Path:
        (folder / into).mkdir(parents=True)
        (folder / AREA).rename(folder / into / AREA)
        return folder / into.split("/")[0]
    return move


# how the file was left -> (what to do to the taxonomy folder, what the line must say)
MISSED: dict[str, tuple[Callable[[Path], Path], str]] = {
    "notepad-added-txt": (_renamed("operations.yaml.txt"), "rename it to 'operations.yaml'"),
    "notepad-added-txt-to-yml": (_renamed("operations.yml.txt"), "rename it to 'operations.yml'"),
    "upper-case-txt": (_renamed("operations.YAML.TXT"), "rename it to 'operations.YAML'"),
    "a-blank-after-the-suffix": (_renamed("operations.yaml "), "rename it to 'operations.yaml'"),
    "a-dot-after-the-suffix": (_renamed("operations.yaml."), "rename it to 'operations.yaml'"),
    "in-a-subfolder": (_moved("ops"), "move area files up"),
    "two-folders-down": (_moved("areas/ops"), "areas/ops/operations.yaml"),
}


def _taxonomy(tmp_path: Path, missed: str) -> tuple[Path, Path, str]:
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    change, says = MISSED[missed]
    return folder, change(folder), says


@pytest.mark.parametrize("missed", sorted(MISSED))
def test_an_area_file_the_taxonomy_would_skip_is_named_with_what_to_do(tmp_path: Path, missed: str) -> None:
    folder, left, says = _taxonomy(tmp_path, missed)
    refused(["taxonomy", "--path", str(folder)], str(left), says)


def test_synth_names_the_skipped_file_not_an_unknown_capability(tmp_path: Path) -> None:
    folder, left, _ = _taxonomy(tmp_path, "notepad-added-txt")
    out = tmp_path / "out"
    refused(["synth", "--taxonomy", str(folder), "--out", str(out), "-c", ITS_CAPABILITY, "--n", "1"], str(left),
            ".txt")
    assert not out.exists()


def test_the_pipeline_names_an_area_in_a_subfolder_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    folder, left, _ = _taxonomy(tmp_path, "in-a-subfolder")
    line = pipeline_refused(tmp_path, monkeypatch, capsys, "COWORKENV_TAXONOMY_DIR", str(folder))
    assert str(left) in line and "move area files up" in line, line


def _backups(folder: Path) -> None:
    shutil.copy(folder / AREA, folder / "operations.yaml~")
    shutil.copy(folder / AREA, folder / "operations.yaml.bak")


def _hidden_folder(folder: Path) -> None:
    (folder / ".archive").mkdir()
    shutil.copy(folder / AREA, folder / ".archive" / AREA)


def _folder_without_yaml(folder: Path) -> None:
    (folder / "notes").mkdir()
    (folder / "notes" / "README.md").write_text("how we name areas\n")


LEFT_ALONE: dict[str, Callable[[Path], None]] = {"backups": _backups, "a-hidden-folder": _hidden_folder,
                                                 "a-folder-without-yaml": _folder_without_yaml}


@pytest.mark.parametrize("beside", sorted(LEFT_ALONE))
def test_backups_hidden_folders_and_other_folders_are_still_left_alone(tmp_path: Path, beside: str) -> None:
    """Regression guard: passes on `main` too."""
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    LEFT_ALONE[beside](folder)
    plain = runner.invoke(app, ["taxonomy", "--path", str(ROOT / "taxonomy"), "--json"])
    result = runner.invoke(app, ["taxonomy", "--path", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    assert result.output.replace(str(folder), "") == plain.output.replace(str(ROOT / "taxonomy"), "")
