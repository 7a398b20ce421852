"""What every case of the fault corpus shares: a child process with a fault armed (tests/faults/child.py), the
state of a folder before and after, and the checks every failure must pass (one `error:` line naming the file, no
traceback, nothing half-written under a final name, earlier outputs intact)."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from coworkenv.atomic import TEMP_PREFIX
from coworkenv.examples import example_names, load_example
from coworkenv.store import DatasetCardInfo, DatasetRelease, LocalGitPublisher, PublishResult
from tests.support import fault_child_server

ROOT = Path(__file__).resolve().parents[2]
CAPABILITY = "ticket_triage_update"  # procedural, fast
SECOND_CAPABILITY = "inbox_triage_reply"


@dataclass(frozen=True)
class ChildResult:
    """How a child ended: its exit code (negative: killed by that signal) and what it printed."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def errors(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("error: ")]


def run_child(args: list[str], *, fsize: int | None = None, nofile: str | None = None, kill: tuple[str, ...] = (),
              fail: tuple[str, ...] = (), ignore: tuple[str, ...] = (), call: str | None = None,
              env: dict[str, str] | None = None, unset: tuple[str, ...] = (), timeout: float = 600,
              preloaded: bool = False) -> ChildResult:
    """Run `coworkenv ARGS` (or `call` with ARGS) in a child with the faults armed (see tests/faults/child.py),
    `env` added to this process's environment and the variables in `unset` removed from it.

    `timeout` only guards against a hang: a child on a loaded 2-core machine took over 120 s (an eval).
    `preloaded`: the child is forked from an interpreter that imported the pipeline's modules once
    (tests/support/fault_child_server.py: ~2.7 s of CPU less a child), else a fresh one; never with `nofile` (the
    case counts open files) nor for cases that change the standard streams or the locale, and a fresh interpreter
    wherever the fork could differ from one (the server says so).
    """
    command, child_env = _child_command(args, fsize=fsize, nofile=nofile, kill=kill, fail=fail, ignore=ignore,
                                        call=call, env=env, unset=unset)
    if preloaded and nofile is None:
        forked = fault_child_server.server().run(command[3:], child_env, timeout)
        if forked is not None:
            return ChildResult(*forked)
    done = subprocess.run(command, cwd=ROOT, env=child_env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    return ChildResult(done.returncode, done.stdout, done.stderr)


def start_child(args: list[str], *, kill: tuple[str, ...] = (), ignore: tuple[str, ...] = (), call: str | None = None,
                env: dict[str, str] | None = None) -> subprocess.Popen[str] | fault_child_server.Beside:
    """`run_child(args, kill=..., ignore=..., call=..., env=..., preloaded=True)` started and returned at once, as
    `subprocess.Popen(..., stdout=PIPE, stderr=PIPE, text=True)` starts it, for children run side by side (two
    writers into one folder): forked from the preloaded server where it can make one a fresh interpreter would
    equal, else a fresh interpreter (a Popen)."""
    command, child_env = _child_command(args, kill=kill, ignore=ignore, call=call, env=env)
    handle, name = tempfile.mkstemp(prefix="fault-child-exit-")  # a name of its own, for the exit code
    os.close(handle)
    os.unlink(name)
    status = Path(name)
    forked = fault_child_server.server().start_beside(command[3:], child_env, status)
    if forked is not None:
        return forked
    return subprocess.Popen(command, cwd=ROOT, env=child_env, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _child_command(args: list[str], *, fsize: int | None = None, nofile: str | None = None,
                   kill: tuple[str, ...] = (), fail: tuple[str, ...] = (), ignore: tuple[str, ...] = (),
                   call: str | None = None, env: dict[str, str] | None = None,
                   unset: tuple[str, ...] = ()) -> tuple[list[str], dict[str, str]]:
    """The command line `python -m tests.faults.child ... -- ARGS` and its environment (see `run_child`)."""
    command = [sys.executable, "-m", "tests.faults.child"]
    if fsize is not None:
        command += ["--fsize", str(fsize)]
    if nofile is not None:
        command += ["--nofile", nofile]
    for spec in kill:
        command += ["--kill", spec]
    for spec in fail:
        command += ["--fail", spec]
    for name in ignore:
        command += ["--ignore", name]
    if call is not None:
        command += ["--call", call]
    child_env = {key: value for key, value in {**os.environ, **(env or {})}.items() if key not in unset}
    child_env["PYTHONPATH"] = str(ROOT)
    return [*command, "--", *args], child_env


def snapshot(folder: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under `folder` (.git excluded)."""
    if not folder.exists():
        return {}
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*")) if p.is_file() and ".git" not in p.relative_to(folder).parts
    }


def temp_files(folder: Path) -> list[str]:
    """Temp files of an atomic writer under `folder` (what an interrupted write may leave, hidden from readers)."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob(f"{TEMP_PREFIX}*")) if folder.exists() else []


def assert_clean_failure(result: ChildResult, *needles: str, code: int | None = None) -> str:
    """The child failed with one `error:` line holding every needle, and no traceback."""
    assert result.returncode != 0, result.stdout + result.stderr
    if code is not None:
        assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, result.stderr
    assert len(result.errors) == 1, result.stderr
    for needle in needles:
        assert needle in result.errors[0], result.errors[0]
    return result.errors[0]


def assert_whole_parquet(folder: Path) -> None:
    """Every visible .parquet under `folder` is a complete, readable Parquet file (no half-written final name)."""
    for path in folder.rglob("*.parquet"):
        if not path.name.startswith("."):
            pq.read_table(path)


def spec_folder(where: Path, names: list[str] | None = None) -> Path:
    """A folder of example specs as JSON files."""
    where.mkdir(parents=True, exist_ok=True)
    for name in names or example_names()[:2]:
        (where / f"{name}.json").write_text(load_example(name).to_json())
    return where


def home_beside_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of its own (HOME), and the current folder beside it, empty (a folder named `~` or `$HOME`
    written there would show); the home folder."""
    folder, here = tmp_path / "home", tmp_path / "here"
    folder.mkdir()
    here.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.chdir(here)
    monkeypatch.setenv("PWD", str(here))
    return folder


def stage_inputs(root: Path) -> dict[str, Path]:
    """A specs file, a trajectories folder and an SFT folder under `root`, made by the commands themselves."""
    from typer.testing import CliRunner

    from coworkenv.cli import app
    from coworkenv.store.stages import write_specs
    from coworkenv.validate import procedural_candidates

    specs = root / "specs.parquet"
    write_specs(procedural_candidates([load_example(n) for n in example_names()[:2]]), specs)
    assert CliRunner().invoke(app, ["rollout", str(specs), "--out", str(root / "traj")]).exit_code == 0
    assert CliRunner().invoke(app, ["curate", str(root / "traj"), "--out", str(root / "sft")]).exit_code == 0
    return {"specs": specs, "traj": root / "traj", "sft": root / "sft"}


def specs_and_trajectories(root: Path) -> dict[str, Path]:
    """A folder of specs (`synth`) and one of trajectories (`rollout`) under `root`, made by the commands."""
    from typer.testing import CliRunner

    from coworkenv.cli import app

    made = {"specs": root / "specs", "traj": root / "traj"}
    assert CliRunner().invoke(app, ["synth", "--out", str(made["specs"]), "-c", CAPABILITY, "--n", "2"]).exit_code == 0
    assert CliRunner().invoke(app, ["rollout", str(made["specs"]), "--out", str(made["traj"])]).exit_code == 0
    return made


def publish_version(repo: Path, folders: dict[str, Path], version: str) -> PublishResult:
    """Publish `folders[version]` (from `version_folders`) into the local dataset repository `repo` as `version`."""
    return LocalGitPublisher(repo).publish_folder(folders[version], version, f"# {version}\n")


def published_once(tmp_path_factory: pytest.TempPathFactory, folders: dict[str, Path]) -> Path:
    """A repository holding v1, published once (for a module's cases, each working on `copied_repo` of it)."""
    repo = tmp_path_factory.mktemp("published") / "repo"
    publish_version(repo, folders, "v1")
    return repo


def copied_repo(published: Path, tmp_path: Path) -> Path:
    """A case's own copy of the repository `published_once` made."""
    copy = tmp_path / "repo"
    shutil.copytree(published, copy, symlinks=True)
    return copy


def succeeded(args: list[str]) -> str:
    """Run `coworkenv ARGS` in this process: it exits 0; what it printed."""
    from typer.testing import CliRunner

    from coworkenv.cli import app

    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.output


def rollout_and_eval(root: Path) -> dict[str, Path]:
    """Under `root`, made by the commands: train specs (`train`) and their rollout (`traj`); held-out specs
    (`heldout`) and an eval of them against a stub server (`eval`: its report and `runs/`), of model `model-a`."""
    from tests.support.fake_openai_server import FakeOpenAIServer

    made = {"train": root / "train", "heldout": root / "heldout", "traj": root / "traj", "eval": root / "eval"}
    succeeded(["synth", "--out", str(made["train"]), "-c", CAPABILITY, "--n", "2"])
    succeeded(["synth", "--out", str(made["heldout"]), "-c", SECOND_CAPABILITY, "--n", "2"])
    succeeded(["rollout", str(made["train"]), "--out", str(made["traj"])])
    with FakeOpenAIServer() as server:
        succeeded(["eval", "--llm", f"{server.url}/v1", "--model", "model-a", "--max-steps", "2", "--envs",
                   str(made["heldout"]), "--out", str(made["eval"])])
    return made


def renamed_copy(folder: Path, where: Path, name: str, *, inside: bool) -> Path:
    """A copy of `folder` under `where` whose own name (or, `inside`, each file's name) holds `name`."""
    if not inside:
        return Path(shutil.copytree(folder, where / f"{folder.name}-{name}"))
    copy = where / folder.name
    copy.mkdir()
    for path in folder.iterdir():
        shutil.copy(path, copy / f"{name}-{path.name}")
    return copy


def release(tag: str, rows: int = 40) -> DatasetRelease:
    """A small dataset release whose content depends on `tag` (several shards, so a publish writes several files)."""
    table = pa.table({"env_id": [f"{tag}-{i}" for i in range(rows)], "text": [f"row {i} of {tag} " * 20
                                                                             for i in range(rows)]})
    shards = [table.slice(i, 10) for i in range(0, rows, 10)]
    card = DatasetCardInfo(pretty_name=f"fault corpus {tag}", description="A release of the fault corpus.")
    return DatasetRelease(version=tag, configs={"sft": {"train": shards}}, card=card)


def publish_release(repo_dir: str, tag: str) -> None:
    """Child scenario: publish `release(tag)` into the local git repository at `repo_dir`."""
    LocalGitPublisher(Path(repo_dir)).publish(release(tag))


def publish_folder(repo_dir: str, folder: str, tag: str) -> None:
    """Child scenario: publish the files of `folder` (a checkpoint, say) as version `tag` into `repo_dir`."""
    LocalGitPublisher(Path(repo_dir)).publish_folder(Path(folder), tag, f"# {tag}\n")


def finish_outsider(other: subprocess.Popen[str], line: str) -> None:
    """Let a git a test keeps waiting on its standard input (another namespace's, another machine's) go on with
    `line`, and assert its write went through: the lock it held was left to it."""
    assert other.stdin is not None
    other.stdin.write(line)
    other.stdin.flush()
    _out, said = other.communicate(timeout=20)
    assert other.returncode == 0, f"the other git's write failed: {said}"


def signal_name(code: int) -> str:
    return signal.Signals(-code).name if code < 0 else str(code)


def refused(args: list[str], *needles: str, code: int = 2) -> str:
    """Run `coworkenv ARGS` in this process: it exits `code` with one `error:` line holding every needle."""
    from typer.testing import CliRunner

    from coworkenv.cli import app

    result = CliRunner().invoke(app, args)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit | None), result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, result.output
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def pipeline_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                     variable: str, value: str, *args: str) -> str:
    """`python -m pipelines.run ARGS` in this process, every COWORKENV_* variable unset but `variable`=`value` (the
    instance and data folder in `tmp_path`): it exits 2 with one line, returned, before any run starts or any data
    is written."""
    from pipelines import run as pipeline_run
    from pipelines.resources import CoworkenvSettings, env_var

    def no_run(*_: object, **__: object) -> None:
        raise AssertionError(f"a run started with {variable}={value!r}")

    for name in CoworkenvSettings.model_fields:
        monkeypatch.delenv(env_var(name), raising=False)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    monkeypatch.setenv("COWORKENV_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COWORKENV_TAXONOMY_DIR", str(ROOT / "taxonomy"))
    monkeypatch.setenv(variable, value)
    monkeypatch.setattr(pipeline_run, "_execute", no_run)
    assert pipeline_run.main(list(args)) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert not (tmp_path / "data").exists()
    return line


# The two training configs the pipeline reads, by the setting that names them.
TRAINING_CONFIGS = [("COWORKENV_TRAIN_CONFIG", "tiny"), ("COWORKENV_RL_CONFIG", "rl-tiny")]


def training_config_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                            setting: str, text: str) -> tuple[Path, str]:
    """A training config holding `text` at tmp_path/configs/<name>.yaml, given to the pipeline by `setting`: the file
    and the one line the pipeline refuses it with (see `pipeline_refused`)."""
    name = dict(TRAINING_CONFIGS)[setting]
    config = tmp_path / "configs" / f"{name}.yaml"
    config.parent.mkdir()
    config.write_text(text, encoding="utf-8")
    return config, pipeline_refused(tmp_path, monkeypatch, capsys, setting, str(config), "--only", CAPABILITY)


def mount_table(folder: Path, kind: str) -> Path:
    """A stand-in for /proc/self/mountinfo (written as `folder/mountinfo`) saying that `folder` is a mount of file
    system type `kind` (`nfs4`, `cifs`, ...), the root an ext4 disk: what coworkenv.store._git_locks reads to tell a
    network file system (no such mount can be made here)."""
    table = folder / "mountinfo"
    table.write_text("22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
                     f"98 22 0:52 / {folder.resolve()} rw,relatime shared:40 - {kind} server:/export rw,vers=4.2\n")
    return table


def mounted_as(monkeypatch: pytest.MonkeyPatch, folder: Path, kind: str) -> None:
    """Make this process's publishes read `folder` as a mount of file system type `kind` (`mount_table`)."""
    monkeypatch.setattr("coworkenv.store._git_locks._MOUNTINFO", mount_table(folder, kind), raising=False)


def version_folders(tmp_path_factory: pytest.TempPathFactory, name: str) -> dict[str, Path]:
    """Two versions' folders to publish (a checkpoint's, say), `v1` and `v2`, each holding one file `name`."""
    made = {}
    for version in ("v1", "v2"):
        made[version] = tmp_path_factory.mktemp(version)
        (made[version] / name).write_text(f"{version} weights\n")
    return made


def git_quiet(repo: Path, *args: str) -> str:
    """`git -C repo ARGS`'s output, the repository's hooks off (a test's own set-up runs none of them)."""
    return subprocess.run(["git", "-C", str(repo), "-c", "core.hooksPath=/dev/null", *args], check=True,
                          capture_output=True, text=True).stdout


def filter_x(repo: Path, **settings: str) -> None:
    """Filter `x` of the dataset repository `repo` with `settings` (clean=..., smudge=..., process=...), applied to
    *.bin by the repository's own attributes file."""
    for key, value in settings.items():
        git_quiet(repo, "config", f"filter.x.{key}", value)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text("*.bin filter=x\n")


def in_thread(call: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    """`call` started in a daemon thread, and the list that gets what it returns or raises once it ends."""
    done: list[object] = []

    def run() -> None:
        try:
            done.append(call())
        except BaseException as exc:
            done.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, done


def ended(call: Callable[[], object], within_s: float, waits_on: str) -> tuple[object, float]:
    """What `call` returns or raises, run in a thread given `within_s`, and the seconds it took; fails naming what it
    `waits_on` when it has not ended (the thread is a daemon: a publish that runs on does not hold the tests up)."""
    began = time.monotonic()
    thread, done = in_thread(call)
    thread.join(within_s)
    assert not thread.is_alive(), f"DID NOT END within {within_s} s: {waits_on}"
    return done[0], time.monotonic() - began
