"""Fault corpus, a file replaced between the look at its path and its read: a spec, config or taxonomy file, or a
trajectory shard, that was a plain file when its reader checked it (`stat`, `is_file`: not a named pipe, not a device,
not too big) and something else when it opened it: a writer's rename, a link re-pointed, a swap in a shared folder,
a shard replaced by a `mkfifo` export in the middle of a run. The check was of what the path held then, so on `main`
the read of a named pipe waited for a writer for ever (each case here: "DID NOT END"), and the read of a link to a
device never ended (its memory growing).

Now these readers check the file they opened, not the path (`coworkenv.atomic.read_regular_file`: opened without
waiting, O_NONBLOCK, then `fstat`): a pipe, a device or a socket is named and nothing is read from it; a file over a
bound is cut at the bound, however it grew.

Each case swaps the file at the moment it is opened (the last instant a reader has, after every look at the path):
whatever a reader looked at before, it opens the replacement."""

from __future__ import annotations

import builtins
import contextlib
import io
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from coworkenv.store.stages import StageError
from coworkenv.store.stages.sft import read_sft, sft_files
from coworkenv.store.stages.specs import read_spec_rows
from coworkenv.store.stages.trajectories import read_trajectories
from coworkenv.synth.taxonomy import load_taxonomy
from coworkenv.yaml_files import YAMLFileError, check_unique_keys, read_yaml
from tests.faults.harness import ROOT, ended

WITHIN_S = 15.0  # a read that has not ended by then waits for ever (or reads a device for ever)


def _pipe(where: Path) -> Path:
    os.mkfifo(where)
    return where


def _device(where: Path) -> Path:
    os.symlink("/dev/zero", where)
    return where


KINDS = {"a named pipe": (_pipe, "named pipe (FIFO)"), "a link to /dev/zero": (_device, "a device")}


@pytest.fixture()
def swapped_at_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Path, str], None]]:
    """`swap(path, kind)`: the first time `path` is opened (by `open`, `io.open` or `os.open`), it is replaced just
    before, by a named pipe or a link to /dev/zero (`kind`), as another process's rename would. A reader left waiting
    on the pipe is let go at the end (a writer opens it and closes it)."""
    targets: dict[str, str] = {}
    pipes: list[Path] = []

    def replace(file: object) -> None:
        name = os.path.abspath(os.fsdecode(file)) if isinstance(file, (str, bytes, os.PathLike)) else ""
        kind = targets.pop(name, None)
        if kind is None:
            return
        spare = tmp_path / f"replacement-{len(pipes)}"
        KINDS[kind][0](spare)
        if kind == "a named pipe":
            pipes.append(Path(name))
        os.replace(spare, name)

    real_open, real_os_open = builtins.open, os.open

    def opened(file: object, *args: object, **kwargs: object) -> object:
        replace(file)
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    def os_opened(file: object, *args: object, **kwargs: object) -> int:
        replace(file)
        return real_os_open(file, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "open", opened)
    monkeypatch.setattr(io, "open", opened)
    monkeypatch.setattr(os, "open", os_opened)

    def swap(path: Path, kind: str) -> None:
        targets[os.path.abspath(path)] = kind

    yield swap
    monkeypatch.undo()
    for pipe in pipes:  # a reader of `main` still waiting: give it an end of file
        with contextlib.suppress(OSError):
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))


def _refused(call: Callable[[], object], path: Path, kind: str, errors: tuple[type[Exception], ...]) -> str:
    result, _ = ended(call, WITHIN_S, f"the read of {path}, replaced by {kind} after it was looked at")
    assert isinstance(result, errors), f"read it: {str(result)[:200]!r}"
    told = str(result)
    assert str(path) in told and KINDS[kind][1] in told, told
    return told


@pytest.mark.parametrize("kind", KINDS)
def test_a_spec_file_replaced_after_its_look_is_named_not_read(
        tmp_path: Path, swapped_at_open: Callable[[Path, str], None], kind: str) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("name: tickets\n")
    swapped_at_open(spec, kind)
    told = _refused(lambda: read_yaml(spec), spec, kind, (YAMLFileError,))
    assert "not a file" in told


def test_a_config_checked_for_twice_given_keys_replaced_after_its_look_is_named_not_read(
        tmp_path: Path, swapped_at_open: Callable[[Path, str], None]) -> None:
    """`check_unique_keys`, run on a training config (accelerate's, DeepSpeed's) before another library reads it."""
    config = tmp_path / "accelerate.yaml"
    config.write_text("num_processes: 2\n")
    swapped_at_open(config, "a named pipe")
    _refused(lambda: check_unique_keys(config), config, "a named pipe", (YAMLFileError,))


def test_a_taxonomy_area_file_replaced_after_its_look_is_named_not_read(
        tmp_path: Path, swapped_at_open: Callable[[Path, str], None]) -> None:
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    area = sorted(folder.glob("*.yaml"))[0]
    swapped_at_open(area, "a named pipe")
    _refused(lambda: load_taxonomy(folder), area, "a named pipe", (YAMLFileError, ValueError))


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A trajectories folder and an SFT folder, written by `coworkenv rollout` and `curate` (one example's spec)."""
    from typer.testing import CliRunner

    from coworkenv.cli import app
    from coworkenv.examples import example_names, load_example
    from coworkenv.store.stages import write_specs
    from coworkenv.validate import procedural_candidates

    root = tmp_path_factory.mktemp("made")
    write_specs(procedural_candidates([load_example(example_names()[0])]), root / "specs.parquet")
    for args in (["rollout", str(root / "specs.parquet"), "--out", str(root / "traj")],
                 ["curate", str(root / "traj"), "--out", str(root / "sft")]):
        assert CliRunner().invoke(app, args).exit_code == 0, args
    return {"traj": root / "traj", "sft": root / "sft"}


def _first_shard(made: dict[str, Path], stage: str, where: Path) -> tuple[Path, Path]:
    folder = Path(shutil.copytree(made[stage], where / stage))
    files = sorted(folder.rglob("*.parquet"))
    assert files, f"no {stage} shard was written"
    return folder, files[0]


@pytest.mark.parametrize("kind", KINDS)
def test_a_trajectory_shard_replaced_mid_run_is_named_not_read(
        tmp_path: Path, made: dict[str, Path], swapped_at_open: Callable[[Path, str], None], kind: str) -> None:
    folder, shard = _first_shard(made, "traj", tmp_path)
    swapped_at_open(shard, kind)
    told = _refused(lambda: read_trajectories(folder), shard, kind, (StageError,))
    assert "nothing was read" in told


def test_an_sft_shard_replaced_mid_run_is_named_not_read(
        tmp_path: Path, made: dict[str, Path], swapped_at_open: Callable[[Path, str], None]) -> None:
    folder, shard = _first_shard(made, "sft", tmp_path)
    swapped_at_open(shard, "a named pipe")
    told = _refused(lambda: read_sft(sft_files(folder)), shard, "a named pipe", (StageError,))
    assert "nothing was read" in told


def test_a_json_spec_file_replaced_after_its_look_is_named_not_read(
        tmp_path: Path, swapped_at_open: Callable[[Path, str], None]) -> None:
    specs = tmp_path / "specs.json"
    specs.write_text("[]\n")
    swapped_at_open(specs, "a named pipe")
    told = _refused(lambda: read_spec_rows(specs, allow_empty=True), specs, "a named pipe", (ValueError,))
    assert "nothing was read" in told
