"""Fault corpus, a YAML file far bigger than anyone writes by hand: a data export or a log saved under a .yaml name in
the taxonomy folder, given as COWORKENV_TRAIN_CONFIG / _RL_CONFIG or to `coworkenv train --config`, or as
DAGSTER_HOME's dagster.yaml.

Each is refused at once (its size is read, not the file) with one line naming the file, its size and what to check.
Measured on `main` before the fix: read whole and parsed twice by PyYAML's pure-Python reader, about 0.1-0.2 MB/s on
this machine under load; with an 8 MiB file every case was still parsing when the 60 s it allows ran out (1 MiB of
valid capabilities took 9 s to parse), a log of hundreds of MiB for hours, before any word.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.faults.harness import CAPABILITY, ROOT, TRAINING_CONFIGS, pipeline_refused, refused, training_config_refused
from trainers.config import CONFIGS_DIR

pytestmark = pytest.mark.timeout(60)  # on `main` each case parsed for minutes
SIZE = 8 << 20


def _dump(head: str) -> str:
    """`head` followed by a YAML list of records, as an export writes it, to SIZE bytes."""
    record = "  - {id: 1203, state: open, owner: kai@example.com, note: waiting on the vendor's reply}\n"
    return head + "records:\n" + record * (SIZE // len(record))


def _taxonomy_with_a_dump(tmp_path: Path) -> tuple[Path, Path]:
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    dump = folder / "ticket_export.yaml"
    dump.write_text(_dump("area: export\n"), encoding="utf-8")
    return folder, dump


def test_the_taxonomy_listing_refuses_a_dump_in_the_taxonomy_folder_at_once(tmp_path: Path) -> None:
    folder, dump = _taxonomy_with_a_dump(tmp_path)
    refused(["taxonomy", "--path", str(folder)], str(dump), "8.0 MiB", "hand-written")


def test_synth_refuses_a_dump_in_the_taxonomy_folder_and_writes_nothing(tmp_path: Path) -> None:
    folder, dump = _taxonomy_with_a_dump(tmp_path)
    out = tmp_path / "out"
    refused(["synth", "--taxonomy", str(folder), "--out", str(out), "-c", CAPABILITY, "--n", "1"], str(dump), "MiB")
    assert not out.exists()


def test_the_pipeline_refuses_a_dump_in_the_taxonomy_folder_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    folder, dump = _taxonomy_with_a_dump(tmp_path)
    line = pipeline_refused(tmp_path, monkeypatch, capsys, "COWORKENV_TAXONOMY_DIR", str(folder))
    assert str(dump) in line and "hand-written" in line, line


@pytest.mark.parametrize(("setting", "name"), TRAINING_CONFIGS)
def test_a_training_config_the_size_of_a_dump_is_refused_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], setting: str,
        name: str) -> None:
    text = _dump((CONFIGS_DIR / f"{name}.yaml").read_text(encoding="utf-8"))
    config, line = training_config_refused(tmp_path, monkeypatch, capsys, setting, text)
    assert line.startswith(f"error: {setting}=") and str(config) in line and "MiB" in line, line


def test_coworkenv_train_refuses_a_config_the_size_of_a_dump(tmp_path: Path) -> None:
    config = tmp_path / "tiny.yaml"
    config.write_text(_dump((CONFIGS_DIR / "tiny.yaml").read_text(encoding="utf-8")), encoding="utf-8")
    refused(["train", "sft", "--config", str(config), "--data", str(tmp_path / "sft"), "--out", str(tmp_path / "out")],
            str(config), "hand-written")
    assert not (tmp_path / "out").exists()


def test_a_dagster_yaml_the_size_of_a_dump_is_refused_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "dagster.yaml").read_text(encoding="utf-8").replace(".dagster", str(tmp_path / ".dagster"))
    (tmp_path / "dagster.yaml").write_text(_dump(text), encoding="utf-8")
    line = pipeline_refused(tmp_path, monkeypatch, capsys, "COWORKENV_TRAIN_CONFIG", str(CONFIGS_DIR / "tiny.yaml"))
    assert line.startswith(f"error: {tmp_path / 'dagster.yaml'}") and "MiB" in line, line
