"""Fault corpus, files beside the capability files that no person wrote as an area: an Emacs lock
(`.#tickets.yaml`, a symbolic link to nowhere while the file is open in an editor), macOS metadata
(`._tickets.yaml`, binary, left by a copy from a Mac), a hidden copy (`.tickets.yaml`, `.draft.yml`). Each made
the whole taxonomy unusable ("cannot read it", "invalid YAML: unacceptable character", a capability "also
defined"), so `synth` stopped while a file was merely open. Hidden names are left out, as in spec folders."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from tests.faults.harness import CAPABILITY, ROOT

runner = CliRunner()


def _emacs_lock(folder: Path) -> None:
    os.symlink("someone@host.4242:1733212800", folder / ".#tickets.yaml")


def _apple_double(folder: Path) -> None:
    (folder / "._tickets.yaml").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        " + bytes(64))


def _hidden_copy(folder: Path) -> None:
    shutil.copy(folder / "tickets.yaml", folder / ".tickets.yaml")


def _hidden_draft(folder: Path) -> None:
    (folder / ".draft.yml").write_text("area: draft\ncapabilities: [not finished\n", encoding="utf-8")


SIDECARS: dict[str, Callable[[Path], None]] = {"an editor's lock": _emacs_lock, "macOS metadata": _apple_double,
                                               "a hidden copy": _hidden_copy, "a hidden draft": _hidden_draft}


def _taxonomy(tmp_path: Path, sidecar: str) -> Path:
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    SIDECARS[sidecar](folder)
    return folder


@pytest.mark.parametrize("sidecar", SIDECARS)
def test_synth_reads_the_capabilities_as_if_the_sidecar_were_not_there(tmp_path: Path, sidecar: str) -> None:
    folder = _taxonomy(tmp_path, sidecar)
    result = runner.invoke(app, ["synth", "--taxonomy", str(folder), "--out", str(tmp_path / "out"), "-c", CAPABILITY,
                                 "--n", "1"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / f"specs-{CAPABILITY}.parquet").is_file()


@pytest.mark.parametrize("sidecar", SIDECARS)
def test_the_taxonomy_listing_shows_the_same_capabilities_with_a_sidecar(tmp_path: Path, sidecar: str) -> None:
    folder = _taxonomy(tmp_path, sidecar)
    plain = runner.invoke(app, ["taxonomy", "--path", str(ROOT / "taxonomy")])
    beside = runner.invoke(app, ["taxonomy", "--path", str(folder)])
    assert beside.exit_code == 0, beside.output
    assert beside.output.replace(str(folder), str(ROOT / "taxonomy")) == plain.output
