"""`python -m pipelines.run` in a child process against a throwaway instance, data folder and small taxonomy.

Children are forked from a fork server that imported the heavy modules once (forking the test process itself
could deadlock: polars' thread pool does not survive a fork). Each child gets its own process group (so a test
can SIGKILL it whole), its COWORKENV_* environment and, optionally, a `Patch` of a library function.
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import dagster as dg
import matplotlib
import pyarrow.parquet as pq
import yaml

import assets.hub
import assets.training  # noqa: F401  (imported once here, not in every forked child)
from coworkenv import synth
from coworkenv.stop_signals import STOP_SIGNALS
from coworkenv.store import _card  # noqa: F401
from pipelines import run as pipeline_run
from tests.support import sqlite_nosync

matplotlib.use("Agg")
import matplotlib.pyplot

sqlite_nosync.install()  # the test instances' SQLite commits without fsync: see its docstring

ROOT = Path(__file__).resolve().parents[2]
CHILD_TIMEOUT_S = 120


@dataclass(frozen=True)
class Patch:
    """Replace `module.attr` (attr may be `Class.method`) so that its `nth` call (counting only calls whose third
    argument is `dataset`, if given) sends `signo` to the child's process group before or after doing its work."""

    module: str
    attr: str
    when: str  # "before" or "after"
    signo: int = signal.SIGKILL
    nth: int = 1
    dataset: str | None = None

    def __call__(self) -> None:
        owner: Any = importlib.import_module(self.module)
        *path, name = self.attr.split(".")
        for part in path:
            owner = getattr(owner, part)
        original = getattr(owner, name)
        calls = [0]
        patch = self

        def patched(*args: Any, **kwargs: Any) -> Any:
            counted = patch.dataset is None or (len(args) > 2 and args[2] == patch.dataset)
            calls[0] += counted
            hit = counted and calls[0] == patch.nth
            if hit and patch.when == "before":
                patch.fire()
            result = original(*args, **kwargs)
            if hit and patch.when == "after":
                patch.fire()
            return result

        setattr(owner, name, patched)

    def fire(self) -> None:
        if self.signo == signal.SIGKILL:
            os.killpg(os.getpgid(0), signal.SIGKILL)
        else:
            os.kill(os.getpid(), self.signo)


def _child(env: dict[str, str], prepare: Callable[[], None] | None, argv: list[str], out: str) -> None:
    os.setsid()  # its own process group, which a kill takes down whole
    # Started as from a terminal: the stop signals at their defaults, whatever the test runner inherited (a runner
    # started in the background has SIGINT ignored, and a run keeps an ignored SIGINT ignored, by design).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for signo in STOP_SIGNALS:
        signal.signal(signo, signal.SIG_DFL)
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    # pytest replaced sys.stdout/stderr with its capture; the child writes to the console file instead.
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    logging.basicConfig(stream=sys.stderr, force=True)
    os.environ.update(env)
    # The code location reads its settings from the environment when imported: import it again in here.
    sys.modules.pop("pipelines.definitions", None)
    os.chdir(env["DAGSTER_HOME"])
    if prepare is not None:
        prepare()
    code = pipeline_run.main(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


@dg.asset
def _warm_up_asset() -> None:
    """Materialized once in the fork server (see `warm_up`)."""


def warm_up() -> None:
    """What every run does first, done once in the fork server so that no forked child pays it: open an instance of
    the project's dagster.yaml (its SQLAlchemy and Alembic storage code and schema: ~1.5 s of imports), execute a
    job in process, and import the modules a run imports on first use. In a throwaway folder; no thread is left, and
    the signal handlers are put back as they were."""
    import tempfile

    import matplotlib.backends.backend_agg  # noqa: F401
    import psutil  # noqa: F401

    import assets.rl  # noqa: F401
    import pipelines.executors
    import pipelines.freshness
    import pipelines.run_guard
    import pipelines.sensors
    import pipelines.staleness  # noqa: F401

    handlers = {signo: signal.getsignal(signo) for signo in signal.valid_signals()
                if signo not in (signal.SIGKILL, signal.SIGSTOP)}
    with tempfile.TemporaryDirectory(prefix="pipeline-child-warm-up-") as folder:
        home = Path(folder)
        (home / "dagster.yaml").write_text(yaml.safe_dump(instance_config(home)))
        with dg.DagsterInstance.from_config(str(home)) as instance:
            quiet = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
            assert dg.materialize([_warm_up_asset], instance=instance, run_config=quiet).success
    for signo, handler in handlers.items():  # Dagster's execution left SIGTERM raising KeyboardInterrupt
        if handler is not None and signal.getsignal(signo) != handler:
            signal.signal(signo, handler)


def _context() -> multiprocessing.context.BaseContext:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__, f"{__name__}_warm"])
    return ctx


@dataclass
class Workspace:
    """A DAGSTER_HOME (the project's dagster.yaml, storage paths made absolute), a data folder and a taxonomy."""

    home: Path
    data: Path
    taxonomy: Path
    specs: int = 1

    def env(self, seed: int = 0, held_out: str = "", **extra: str) -> dict[str, str]:
        return {"DAGSTER_HOME": str(self.home), "COWORKENV_DATA_DIR": str(self.data),
                "COWORKENV_TAXONOMY_DIR": str(self.taxonomy), "COWORKENV_SEED": str(seed),
                "COWORKENV_HELD_OUT_CAPABILITY": held_out, "COWORKENV_SPECS_PER_CAPABILITY": str(self.specs), **extra}

    @property
    def console(self) -> Path:
        return self.home / "console.txt"

    def start(self, env: dict[str, str], prepare: Callable[[], None] | None = None,
              argv: list[str] | None = None) -> BaseProcess:
        """Start one pipeline run in a forked child (console output in `self.console`)."""
        proc = _context().Process(
            target=_child, args=(env, prepare, argv if argv is not None else ["--no-train"], str(self.console)))
        proc.start()
        return proc

    def finish(self, proc: BaseProcess, timeout_s: float = CHILD_TIMEOUT_S) -> tuple[int, str]:
        """(exit code, or -signal; console output); a child still running after `timeout_s` is a hang."""
        proc.join(timeout_s)
        if proc.is_alive():
            os.killpg(proc.pid or 0, signal.SIGKILL)
            proc.join()
            raise AssertionError(f"the run hung for {timeout_s}s:\n{self.console.read_text()}")
        return proc.exitcode or 0, self.console.read_text()

    def run(self, seed: int = 0, held_out: str = "", prepare: Callable[[], None] | None = None,
            argv: list[str] | None = None, **extra: str) -> tuple[int, str]:
        return self.finish(self.start(self.env(seed, held_out, **extra), prepare, argv))

    def wait_for_console(self, text: str, proc: BaseProcess, timeout_s: float = CHILD_TIMEOUT_S) -> str:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and proc.is_alive():
            found = self.console.read_text() if self.console.exists() else ""
            if text in found:
                return found
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared:\n{self.console.read_text()}")

    def instance(self) -> dg.DagsterInstance:
        return dg.DagsterInstance.from_config(str(self.home))

    def published(self) -> dict[str, Any]:
        """The latest published dataset version and the env ids of its specs/envs/trajectories configs."""
        with self.instance() as instance:
            event = instance.get_latest_materialization_event(dg.AssetKey("hub_dataset"))
            assert event is not None and event.asset_materialization is not None
            meta = {k: v.value for k, v in event.asset_materialization.metadata.items()}
        rows = {}
        for config in ("specs", "envs", "trajectories"):
            files = sorted(Path(str(meta["location"])).glob(f"data/{config}/*.parquet"))
            rows[config] = sorted(e for f in files for e in pq.read_table(f, columns=["env_id"]).column(0).to_pylist())
        return {"version": meta["version"], "rows": rows}


def make_workspace(root: Path, capabilities: tuple[str, ...], specs: int = 1, quota: int | None = None) -> Workspace:
    home, data, taxonomy = root / "home", root / "data", root / "taxonomy"
    for folder in (home, data, taxonomy):
        folder.mkdir(parents=True)
    (home / "dagster.yaml").write_text(yaml.safe_dump(instance_config(home)))
    source = synth.load_taxonomy(ROOT / "taxonomy")
    for cid in capabilities:
        write_capability(taxonomy, source[cid], **({"quota": quota} if quota is not None else {}))
    return Workspace(home, data, taxonomy, specs)


def instance_config(home: Path) -> dict[str, Any]:
    """The project's dagster.yaml with its storage paths made absolute, under `home`."""
    config: dict[str, Any] = yaml.safe_load((ROOT / "dagster.yaml").read_text())
    config["storage"]["sqlite"]["base_dir"] = str(home / "storage")
    config["local_artifact_storage"]["config"]["base_dir"] = str(home)
    config["compute_logs"]["config"]["base_dir"] = str(home / "logs")
    return config


def write_capability(taxonomy: Path, capability: synth.Capability, **changes: Any) -> None:
    """One capability as its own taxonomy file, with `changes` applied."""
    data = capability.model_dump(mode="json")
    area = data.pop("area")
    data.update(changes)
    (taxonomy / f"{capability.id}.yaml").write_text(yaml.safe_dump({"area": area, "capabilities": [data]}))
