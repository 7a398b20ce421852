"""Library-level scenarios the fault corpus runs in a child process (`python -m tests.faults.child --call ...`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from coworkenv.store import write_table


def store_write(root: str, size: str) -> None:
    """Store a small or a large table as dataset `table` under `root`."""
    rows = 10 if size == "small" else 5000
    write_table(pa.table({"text": [f"{size} row {i} " * 8 for i in range(rows)]}), Path(root), "table")


def publish_killed_at_git_step(repo_dir: str, tag: str, step: str, when: str) -> None:
    """Publish `release(tag)` into `repo_dir`, SIGKILLed `before` or `after` its `git STEP` (add, commit, tag)."""
    import os
    import signal
    import subprocess

    from coworkenv.store import LocalGitPublisher
    from tests.faults.harness import publish_release

    real = LocalGitPublisher._run

    def run(self: LocalGitPublisher, *args: str, locate: bool = True,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
        if args[0] == step and when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        result = real(self, *args, locate=locate, input=input)
        if args[0] == step and when == "after":
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    LocalGitPublisher._run = run  # type: ignore[method-assign]
    publish_release(repo_dir, tag)


def publish_killed_holding_a_git_lock(repo_dir: str, tag: str, lock: str) -> None:
    """Publish `release(tag)` into `repo_dir`, SIGKILLed inside its `git commit-tree` while git holds `.git/LOCK` (what
    a kill -9 of the whole process group, an OOM kill or a power loss leaves)."""
    import os
    import signal
    import subprocess

    from coworkenv.store import LocalGitPublisher
    from tests.faults.harness import publish_release

    real = LocalGitPublisher._run

    def run(self: LocalGitPublisher, *args: str, locate: bool = True,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
        if args[0] == "commit-tree":
            # As git takes a lock: created exclusively, open while it writes the new content.
            fd = os.open(self.repo_dir / ".git" / lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            os.write(fd, b"half an index")
            os.kill(os.getpid(), signal.SIGKILL)
        return real(self, *args, locate=locate, input=input)

    LocalGitPublisher._run = run  # type: ignore[method-assign]
    publish_release(repo_dir, tag)


def pipeline_run(*argv: str) -> None:
    """`python -m pipelines.run ARGV` (its settings from the environment), its instance's SQLite commits without
    fsync (tests/support/sqlite_nosync.py: a killed or stopped child leaves the storage as with them)."""
    from pipelines.run import main
    from tests.support import sqlite_nosync

    sqlite_nosync.install()

    raise SystemExit(main(list(argv)))


def llm_request_without_descriptors(url: str) -> None:
    """One chat request to `url` from a process whose file descriptors are all in use once its client session is
    made: the request's socket is the one that cannot be opened. Prints the error, in the backend's words."""
    import asyncio
    import os

    from coworkenv.llm import LLMError, LLMRequest, OpenAICompatibleBackend

    backend = OpenAICompatibleBackend(url, "m", max_retries=0)

    async def ask() -> None:
        backend._loop_state()  # its session, as the first request of a run makes it: no socket yet
        held: list[int] = []
        try:
            while True:
                held.append(os.open(os.devnull, os.O_RDONLY))
        except OSError:
            pass
        try:
            await backend.complete(LLMRequest(messages=[{"role": "user", "content": "hello"}]))
        except LLMError as error:
            print(error)
        finally:
            for fd in held:
                os.close(fd)

    asyncio.run(ask())


def print_job_snapshots() -> None:
    """Print the job snapshot of every job of the Definitions, as Dagster stores one with each run."""
    from dagster._serdes import serialize_value

    from pipelines.definitions import defs

    for job in defs.resolve_all_job_defs():
        print(serialize_value(job.get_job_snapshot()))


def train_sft_beside(out_dir: str, tag: str, first_written: str, wait_for: str) -> None:
    """`train_sft` into `out_dir`, its model work stubbed: the checkpoint is three files holding `tag`. After the
    first file it creates `first_written` and, unless `wait_for` is "-", waits for that file to appear and a second
    more: a second training into `out_dir` has started by then. A training that is not waiting creates `wait_for`
    itself before it starts."""
    import time
    from types import SimpleNamespace

    from trainers import sft
    from trainers.config import load_sft_config

    class Trainer:
        accelerator = SimpleNamespace(wait_for_everyone=lambda: None)
        state = SimpleNamespace(global_step=1)
        train_dataset = [0]

        def is_world_process_zero(self) -> bool:
            return True

        def train(self) -> SimpleNamespace:
            return SimpleNamespace(metrics={})

        def save_model(self, folder: str) -> None:
            Path(folder).mkdir(parents=True, exist_ok=True)
            for part in range(3):
                (Path(folder) / f"part-{part}.bin").write_text(tag)
                if part == 0 and wait_for != "-":
                    Path(first_written).touch()
                    deadline = time.monotonic() + 120
                    while not Path(wait_for).exists() and time.monotonic() < deadline:
                        time.sleep(0.05)
                    time.sleep(1.0)

    def build(*_: object, **__: object) -> sft.SFTSetup:
        recorder = SimpleNamespace(entries=[{"step": 1.0, "epoch": 0.0, "loss": 1.0}])
        return sft.SFTSetup(Trainer(), load_sft_config("tiny"), [], 0, recorder)  # type: ignore[arg-type]

    sft.build_sft_trainer = build  # type: ignore[assignment]
    sft.portable_tokenizer_class = lambda _: None  # type: ignore[assignment]  # no tokenizer in a stubbed checkpoint
    if wait_for == "-":
        Path(first_written).touch()
    sft.train_sft("tiny", Path(out_dir).parent, Path(out_dir))  # the data folder goes unread


def import_pausing(checkout: str, out: str, paused: str, go: str) -> None:
    """`coworkenv import claw-eval CHECKOUT --out OUT`, pausing before its second task: it creates `paused` and waits
    (at most 120 s) for `go` to appear, so that another import into OUT runs meanwhile."""
    from coworkenv.cli import app

    _pause_at("coworkenv.importers.claw_eval:import_task", 2, paused, go)
    app(["import", "claw-eval", checkout, "--out", out], prog_name="coworkenv")


def command_pausing(target: str, paused: str, go: str, *argv: str) -> None:
    """The `coworkenv` command line ARGV, pausing at the first call of TARGET (`MODULE:ATTR` or `MODULE:OBJ.ATTR`, a
    step between the command's checks and its writes), so that another command runs meanwhile (two terminals, a
    script started twice)."""
    from coworkenv.cli import app

    _pause_at(target, 1, paused, go)
    app(list(argv), prog_name="coworkenv")


def _pause_at(target: str, nth: int, paused: str, go: str) -> None:
    """Replace TARGET by a wrapper that, on its NTH call, creates `paused` and waits (at most 120 s) for `go`."""
    import importlib
    import time

    module_name, attr = target.split(":")
    owner: Any = importlib.import_module(module_name)
    *path, name = attr.split(".")
    for part in path:
        owner = getattr(owner, part)
    original = getattr(owner, name)
    calls = [0]

    def pausing(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == nth:
            Path(paused).touch()
            deadline = time.monotonic() + 120
            while not Path(go).exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        return original(*args, **kwargs)

    setattr(owner, name, pausing)


def output_set(folder: str, tag: str) -> None:
    """Write one output's files as a set (`files_together`), each telling run `tag` apart: validate's three
    (accepted.parquet, rejected.parquet, funnel.json) and an eval's report with its episodes (eval_report.json,
    runs/episodes.parquet), in that order of renames."""
    import orjson

    from coworkenv.atomic import atomic_write_bytes, files_together
    from coworkenv.store.stages import ENVS, REJECTED, TRAJECTORIES

    out = Path(folder)
    with files_together():
        ENVS.write(ENVS.table([{"env_id": f"env-{tag}", "capability": "c", "spec_json": "{}"}]), out / "accepted.parquet")
        REJECTED.write(REJECTED.table([{"capability": "c", "spec_id": f"spec-{tag}", "gate": "schema"}]),
                       out / "rejected.parquet")
        atomic_write_bytes(out / "funnel.json", orjson.dumps({"run": tag}))
        atomic_write_bytes(out / "eval_report.json", orjson.dumps({"run": tag}))
        TRAJECTORIES.write(TRAJECTORIES.table([{"env_id": f"env-{tag}", "record_id": f"r-{tag}"}]),
                           out / "runs" / "episodes.parquet", written_by="eval")
