"""Fault corpus, YAML files whose suffix is written in another case (`TICKETS.YAML` from a Windows share, `.Yml`
from an editor's Save As). A capability file so named was skipped without a word ("unknown capability"), and a
training config so named was taken for a config name ("not found at trainers/configs/tiny.YAML.yaml"). Now they
are read like any YAML file; two files of one area in two cases are named as a capability defined twice."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.synth import TaxonomyError, load_taxonomy
from tests.faults.harness import CAPABILITY, ROOT
from trainers.config import CONFIGS_DIR, load_sft_config
from trainers.rl_config import load_rl_config

runner = CliRunner()
SUFFIXES = [".YAML", ".Yml", ".YML", ".yAml"]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_capability_file_with_its_suffix_in_capitals_is_read(tmp_path: Path, suffix: str) -> None:
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    (folder / "tickets.yaml").rename(folder / f"TICKETS{suffix}")
    assert load_taxonomy(folder).capabilities == load_taxonomy(ROOT / "taxonomy").capabilities
    result = runner.invoke(app, ["synth", "--taxonomy", str(folder), "--out", str(tmp_path / "out"), "-c", CAPABILITY,
                                 "--n", "1"])
    assert result.exit_code == 0, result.output


def test_one_area_in_two_spellings_of_its_file_is_named_not_half_read(tmp_path: Path) -> None:
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    shutil.copy(folder / "tickets.yaml", folder / "TICKETS.YAML")
    with pytest.raises(TaxonomyError) as caught:
        load_taxonomy(folder)
    message = str(caught.value)
    assert "TICKETS.YAML" in message and "tickets.yaml" in message and "is also the area of" in message, message


@pytest.mark.parametrize("suffix", [".YAML", ".Yml"])
@pytest.mark.parametrize("name", ["tiny", "rl-tiny"])
def test_a_training_config_with_its_suffix_in_capitals_is_read(tmp_path: Path, name: str, suffix: str) -> None:
    load = load_rl_config if name.startswith("rl-") else load_sft_config
    saved = tmp_path / f"{name}{suffix}"
    shutil.copy(CONFIGS_DIR / f"{name}.yaml", saved)
    assert load(saved) == load(CONFIGS_DIR / f"{name}.yaml")
