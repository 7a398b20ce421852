"""Fault corpus, a training told to write its checkpoint where the checkpoint it starts from lies: `train rl --model
X --out X` from an earlier RL run (to "go on" from it), the same through a link, as `X/.`, relative while `--model` is
absolute, the start named by the RL config's `model.name_or_path`; `--out R` while the start is a checkpoint inside R;
`--out X/rl` inside the start, `rl-compare --model X --out X` (each variant into `X/<variant>`); `train sft`
whose config's `model.name_or_path` is its `--out`.

On main the training started, and when it ended it replaced the folder whole (`replace_dir`): the start was gone with
no copy kept, and the run record (`rl_run.json`) named as its start a folder then holding this run's weights; a start
inside `--out` was deleted with the folder; a run written inside its start travelled with it (a publish or copy of
the start took it along) and went when the start was trained again in place. Now each is refused before anything is built, naming the option, the
start and a folder beside it (`trainers/checkpoint_files.py: start_in_output_problem`). Regression guards: a new folder
beside the start, and a start whose folder name begins like the output's, are trained into.

Training itself never runs here: `_train_into` is replaced by a stand-in that says a training started.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from coworkenv.cli import app
from tests.faults.harness import refused
from tests.faults.test_faults_checkpoint import checkpoint, envs  # noqa: F401  (fixtures)

pytest.importorskip("transformers")

STARTED = "a training started here"


@pytest.fixture(autouse=True)
def no_training(monkeypatch: pytest.MonkeyPatch) -> None:
    import trainers.rl
    import trainers.sft

    def started(*_: Any) -> None:
        raise ValueError(STARTED)

    monkeypatch.setattr(trainers.rl, "_train_into", started)
    monkeypatch.setattr(trainers.sft, "_train_into", started)


def _run(folder: Path, kind: str) -> Path:
    """A copy of `checkpoint` laid out as a finished run of `kind` (its run record beside the weights)."""
    record = {"rl": "rl_run.json", "sft": "sft_run.json"}[kind]
    (folder / record).write_text(json.dumps({"model": "tiny", "steps": 4}))
    return folder


def _rl(model: Path | str | None, out: Path | str, envs: Path, config: str = "rl-tiny") -> list[str]:  # noqa: F811
    args = ["train", "rl", "--config", config, "--envs", str(envs), "--out", str(out), "--max-steps", "1"]
    return [*args, "--model", str(model)] if model is not None else args


def _config(tmp_path: Path, base: str, start: Path) -> Path:
    from trainers.config import CONFIGS_DIR

    data = yaml.safe_load((CONFIGS_DIR / f"{base}.yaml").read_text())
    data["model"] = {"source": "pretrained", "name_or_path": str(start), "dtype": "float32"}
    path = tmp_path / f"{base}-from-a-checkpoint.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


RL_CASES = ["the same folder", "through a link", "spelt X/.", "relative", "named by the config",
            "a checkpoint inside --out", "--out inside the start"]


@pytest.mark.parametrize("case", RL_CASES)
def test_rl_into_the_folder_it_starts_from_is_refused_before_anything_is_built(
        checkpoint: Path, envs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        case: str) -> None:
    start = _run(Path(shutil.copytree(checkpoint, tmp_path / "runs" / "rl-1")), "rl")
    model: Path | str | None = start
    out: Path | str = start
    config = "rl-tiny"
    if case == "through a link":
        (tmp_path / "latest").symlink_to(start, target_is_directory=True)
        out = tmp_path / "latest"
    elif case == "spelt X/.":
        out = f"{start}/."
    elif case == "relative":
        monkeypatch.chdir(start.parent)
        out = os.path.join(".", start.name)
    elif case == "named by the config":
        model, config = None, str(_config(tmp_path, "rl-tiny", start))
    elif case == "a checkpoint inside --out":
        inner = Path(shutil.copytree(checkpoint, start / "checkpoint-4"))
        model = inner
    elif case == "--out inside the start":
        out = start / "rl"
    before = _files(start)
    line = refused(_rl(model, out, envs, config), "--out", "this run starts from", "another folder")
    assert STARTED not in line
    assert _files(start) == before


def test_rl_compare_into_the_folder_it_starts_from_is_refused(checkpoint: Path, envs: Path,  # noqa: F811
                                                              tmp_path: Path) -> None:
    start = _run(Path(shutil.copytree(checkpoint, tmp_path / "sft-1")), "sft")
    before = _files(start)
    refused(["train", "rl-compare", "--config", "rl-tiny", "--envs", str(envs), "--out", str(start), "--model",
             str(start), "--max-steps", "1"], "--out", "inside the checkpoint this run starts from", "another folder")
    assert _files(start) == before


def test_sft_into_the_folder_its_config_starts_from_is_refused(checkpoint: Path, tmp_path: Path) -> None:  # noqa: F811
    start = _run(Path(shutil.copytree(checkpoint, tmp_path / "sft-1")), "sft")
    before = _files(start)
    (tmp_path / "shards").mkdir()  # a data folder that exists: a missing one is refused first, before the trainers load
    refused(["train", "sft", "--config", str(_config(tmp_path, "tiny", start)), "--data", str(tmp_path / "shards"),
             "--out", str(start)], "--out", "this run starts from", "model.name_or_path")
    assert _files(start) == before


@pytest.mark.parametrize("out", ["rl-2", "rl-1-next"])
def test_guard_rl_from_a_checkpoint_into_a_folder_beside_it_starts(
        checkpoint: Path, envs: Path, tmp_path: Path, out: str) -> None:  # noqa: F811
    """Regression guards (held on main): a new folder beside the start, one whose name begins like it."""
    start = _run(Path(shutil.copytree(checkpoint, tmp_path / "rl-1")), "rl")
    result = CliRunner().invoke(app, _rl(start, tmp_path / out, envs))
    assert result.exit_code == 2 and STARTED in result.output, result.output
