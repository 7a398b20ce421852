"""Fault corpus, an input path that is a named pipe or a device (a FIFO left by a shell's process substitution or a
`mkfifo`, a link to /dev/null or /dev/zero named like a spec file) given to a command that reads specs, trajectories
or SFT shards. The error said what was not so: "no .json,
.jsonl or .parquet files in this folder" for a pipe, "no such file or folder" and "does not exist" for a path that
exists, "no .parquet files" for a device. Worse, a pipe named like a data file inside an input folder (SFT shards,
trajectories) or given as `eval --compare LABEL=PATH` was opened and read: the command waited for a writer forever.
Each command now names the path and what it is (`missing_path`, `no_special_files`), nothing read from it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.faults.harness import refused

COMMANDS = {
    "validate": ["validate", "{input}", "--out", "{out}"],
    "rollout": ["rollout", "{input}", "--out", "{out}"],
    "env run": ["env", "run", "{input}"],
    "eval": ["eval", "--model", "http://127.0.0.1:9/v1", "--envs", "{input}", "--out", "{out}"],
    "train rl": ["train", "rl", "--config", "rl-tiny", "--envs", "{input}", "--out", "{out}"],
    "curate": ["curate", "{input}", "--out", "{out}"],
    "mark-episodes": ["mark-episodes", "{input}", "--written-by", "rollout"],
    "train sft": ["train", "sft", "--config", "tiny", "--data", "{input}", "--out", "{out}"],
}
KINDS = {"a named pipe": ("input.json", "a named pipe (FIFO)"), "a link to /dev/null": ("null.json", "a device")}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("special-inputs")
    os.mkfifo(folder / "input.json")
    (folder / "null.json").symlink_to(os.devnull)
    return folder


def _args(command: str, path: Path, out: Path) -> list[str]:
    return [arg.format(input=path, out=out) for arg in COMMANDS[command]]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_pipe_or_device_given_as_input_is_named_as_such(inputs: Path, tmp_path: Path, command: str,
                                                          kind: str) -> None:
    name, what = KINDS[kind]
    refused(_args(command, inputs / name, tmp_path / "out"), f"{inputs / name}", f"{what}", "not a file or folder")
    assert not (tmp_path / "out").exists()


# A pipe inside the folder a command reads, named as the reader looks for its files.
IN_FOLDERS = {
    "train sft": (["train", "sft", "--config", "tiny", "--data", "{input}", "--out", "{out}"],
                  "train-00000-of-00001.parquet"),
    "curate": (["curate", "{input}", "--out", "{out}"], "rollout.parquet"),
    "mark-episodes": (["mark-episodes", "{input}", "--written-by", "rollout"], "rollout.parquet"),
}


@pytest.mark.parametrize("command", IN_FOLDERS)
def test_a_pipe_inside_an_input_folder_is_named_not_read(tmp_path: Path, command: str) -> None:
    args, name = IN_FOLDERS[command]
    folder = tmp_path / "input"
    folder.mkdir()
    os.mkfifo(folder / name)
    refused([arg.format(input=folder, out=tmp_path / "out") for arg in args], f"{folder / name}",
            "a named pipe (FIFO)", f"move it out of {folder}")
    assert not (tmp_path / "out").exists()


def test_a_pipe_given_as_an_eval_report_to_compare_is_named_not_read(inputs: Path, tmp_path: Path) -> None:
    examples = Path(__file__).resolve().parents[2] / "coworkenv" / "examples"
    refused(["eval", "--model", "http://127.0.0.1:9/v1", "--envs", str(examples / "incident_rollback.json"),
             "--compare", f"base={inputs / 'input.json'}", "--out", str(tmp_path / "out")],
            "--compare 'base=", "a named pipe (FIFO)")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["validate", "curate"])
def test_guard_a_missing_input_is_named_missing(tmp_path: Path, command: str) -> None:
    """Regression guard (holds on main)."""
    refused(_args(command, tmp_path / "absent.json", tmp_path / "out"), f"{tmp_path / 'absent.json'}",
            "no such file or folder")
