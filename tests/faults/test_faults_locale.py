"""Fault corpus, a locale that is not UTF-8: `LC_ALL=C` with `PYTHONUTF8=0` (a cron job, a minimal container, an
old server's profile). Python then decodes file names as ASCII, and a plain UTF-8 name (`café`, `données`) reaches
the Parquet readers with surrogate escapes, as a name that is not UTF-8 does. Every command and the pipeline refuse it
before any work; the message must say that the name is fine and the locale is not (run with PYTHONUTF8=1), where it
said "not UTF-8; rename it" about a name that is UTF-8. A name that really is not UTF-8 is still told to be renamed."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.faults.harness import CAPABILITY, ROOT, assert_clean_failure, renamed_copy, run_child, specs_and_trajectories

ASCII_LOCALE = {"LC_ALL": "C", "PYTHONUTF8": "0"}
NAME = "café"  # UTF-8 bytes c3 a9, which an ASCII locale cannot decode


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return specs_and_trajectories(tmp_path_factory.mktemp("locale"))


def _assert_blames_the_locale(line: str) -> None:
    assert "is UTF-8" in line and "PYTHONUTF8=1" in line, line
    assert "rename it" not in line, line  # the name is fine: renaming would only hide the next one


@pytest.mark.parametrize(("command", "inside"), [("validate", False), ("validate", True), ("rollout", False),
                                                 ("rollout", True), ("curate", False), ("curate", True),
                                                 ("synth", False), ("env", False)])
def test_a_utf8_name_under_an_ascii_locale_is_refused_naming_the_locale(made: dict[str, Path], tmp_path: Path,
                                                                         command: str, inside: bool) -> None:
    out = tmp_path / "out"
    if command == "synth":
        args, named = ["synth", "--out", str(out / NAME), "-c", CAPABILITY, "--n", "1"], out / NAME
    elif command == "env":
        spec = next(made["specs"].iterdir())
        named = Path(shutil.copy(spec, tmp_path / f"{NAME}.parquet"))
        args = ["env", "run", str(named), "--agent", "oracle"]
    else:
        source = renamed_copy(made["traj" if command == "curate" else "specs"], tmp_path, NAME, inside=inside)
        args = [command, str(source), "--out", str(out)]
        named = next(source.iterdir()) if inside else source
    failed = run_child(args, env=ASCII_LOCALE)
    escaped = str(named).replace(NAME, "caf\\xc3\\xa9")  # as the ASCII locale hands the name over
    _assert_blames_the_locale(assert_clean_failure(failed, escaped, code=2))
    assert not out.exists()


@pytest.mark.parametrize("variable", ["COWORKENV_DATA_DIR", "COWORKENV_TAXONOMY_DIR"])
def test_a_pipeline_setting_naming_a_utf8_folder_under_an_ascii_locale_names_the_locale(tmp_path: Path,
                                                                                       variable: str) -> None:
    taxonomy = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / f"taxonomy-{NAME}"))
    settings = {"COWORKENV_DATA_DIR": str(tmp_path / "data"), "COWORKENV_TAXONOMY_DIR": str(ROOT / "taxonomy"),
                variable: str(tmp_path / f"data-{NAME}") if variable == "COWORKENV_DATA_DIR" else str(taxonomy)}
    failed = run_child(["--no-train"], call="tests.faults.scenarios:pipeline_run",
                       env={**ASCII_LOCALE, **settings, "DAGSTER_HOME": str(tmp_path)})
    assert failed.returncode == 2, failed.stderr
    assert "Traceback" not in failed.stderr, failed.stderr
    (line,) = [line for line in failed.stderr.splitlines() if variable in line]
    _assert_blames_the_locale(line)
    assert not (tmp_path / "data").exists() and not (tmp_path / f"data-{NAME}").exists()


def test_a_name_that_is_not_utf8_under_an_ascii_locale_is_still_to_be_renamed(tmp_path: Path) -> None:
    # Regression guard for the split: Latin-1 bytes are not UTF-8 whatever the locale.
    out = tmp_path / os.fsdecode(b"caf\xe9")
    failed = run_child(["synth", "--out", str(out), "-c", CAPABILITY, "--n", "1"], env=ASCII_LOCALE)
    line = assert_clean_failure(failed, "caf\\xe9", "not UTF-8", "rename it", code=2)
    assert "PYTHONUTF8" not in line
    assert sys.getfilesystemencoding() == "utf-8"  # this process is the UTF-8 one; only the child is not
