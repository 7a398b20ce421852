"""Fault corpus, a capability file or training config that is no regular file: a named pipe (`mkfifo`, or what a
`<(...)` process substitution hands over), a link to a device (/dev/zero, /dev/urandom). Read like a file, the pipe
made `synth`, `coworkenv taxonomy` and the pipeline wait forever for a writer, and the device filled the memory. Now
each is refused before it is opened, naming the file and what it is."""

from __future__ import annotations

import importlib
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.harness import CAPABILITY, ROOT, pipeline_refused, refused
from trainers.config import CONFIGS_DIR

GUARD_S = 30  # on main a pipe is waited for forever: the alarm turns the wait into a failure


@pytest.fixture(autouse=True)
def _no_endless_wait() -> Iterator[None]:
    for module in ("coworkenv.cli", "pipelines.run"):  # before the alarm: on a loaded machine they took over 20 s
        importlib.import_module(module)

    def timed_out(*_: object) -> None:
        raise TimeoutError(f"still reading after {GUARD_S} s: the file was opened and read")

    previous = signal.signal(signal.SIGALRM, timed_out)
    signal.alarm(GUARD_S)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _pipe(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _device(path: Path) -> Path:
    os.symlink("/dev/zero", path)
    return path


@pytest.mark.parametrize("make", [_pipe, _device], ids=["a named pipe", "a link to /dev/zero"])
@pytest.mark.parametrize("command", ["synth", "taxonomy"])
def test_a_capability_file_that_is_no_file_is_named_not_read(tmp_path: Path, command: str, make: object) -> None:
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    odd = make(folder / "generated.yaml")  # type: ignore[operator]
    args = ["synth", "--taxonomy", str(folder), "--out", str(tmp_path / "out"), "-c", CAPABILITY, "--n", "1"] \
        if command == "synth" else ["taxonomy", "--path", str(folder)]
    refused(args, str(odd), "not a file")
    assert not (tmp_path / "out").exists()


def test_a_taxonomy_given_as_a_named_pipe_is_named(tmp_path: Path) -> None:
    odd = _pipe(tmp_path / "tickets.yaml")
    refused(["taxonomy", "--path", str(odd)], str(odd), "named pipe")


@pytest.mark.parametrize("setting", ["COWORKENV_TRAIN_CONFIG", "COWORKENV_RL_CONFIG"])
def test_a_training_config_that_is_a_named_pipe_is_named_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], setting: str) -> None:
    odd = _pipe(tmp_path / "config.yaml")
    line = pipeline_refused(tmp_path, monkeypatch, capsys, setting, str(odd), "--only", CAPABILITY)
    assert str(odd) in line and "named pipe" in line, line


def test_coworkenv_train_names_a_config_that_is_a_device(tmp_path: Path) -> None:
    odd = _device(tmp_path / "tiny.yaml")
    refused(["train", "sft", "--config", str(odd), "--data", str(tmp_path / "sft"), "--out", str(tmp_path / "out")],
            str(odd), "a device")
    assert (CONFIGS_DIR / "tiny.yaml").is_file()
