"""`python -m pipelines.run` killed with SIGKILL at every stage boundary and mid-stage, then run again: the published
dataset is the one an uninterrupted run publishes (nothing missing, nothing duplicated) and no run hangs.

Two capabilities with two specs each, no training. The pipeline runs in forked children (the imports are paid
once); a child is killed by replacing a library function the assets call with one that SIGKILLs the child's process
group before or after doing its work. Each scenario switches the seed, so every partition is regenerated.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg
import matplotlib
import pyarrow.parquet as pq
import pytest
import yaml

import assets.hub
import assets.training  # noqa: F401  (imported once here, not in every forked child)
from coworkenv import curate, rollout, store, synth, validate
from coworkenv.store import _card  # noqa: F401
from pipelines import run as pipeline_run

pytestmark = pytest.mark.timeout(400)

matplotlib.use("Agg")
import matplotlib.pyplot  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CAPABILITIES = ("inbox_triage_reply", "report_from_data")
SPECS = 1
CHILD_TIMEOUT_S = 120


@dataclass(frozen=True)
class KillPoint:
    """Kill when `module.name` is called for the `nth` time (with `dataset` as its third argument, if given).

    The run is made with `seed` and `held_out` (one capability held out of training, or none): a new seed makes
    every partition stale, a new held-out capability only the aggregates.
    """

    label: str
    module: Any
    name: str
    when: str  # "before" or "after" the call
    seed: int
    held_out: str = ""
    nth: int = 1
    dataset: str | None = None


FIRST, LAST = CAPABILITIES
KILL_POINTS = [
    KillPoint("after task_specs", validate, "validate_and_repair", "before", seed=0),
    KillPoint("mid validated_envs (file written, not recorded)", store, "write_table", "after", seed=1,
              dataset="validated_envs"),
    KillPoint("between the capability runs", synth, "generate_specs", "before", seed=0, nth=2),
    KillPoint("mid teacher_trajectories of the last capability", store, "write_table", "after", seed=1, nth=2,
              dataset="teacher_trajectories"),
    KillPoint("after validated_envs", rollout, "rollout_specs", "before", seed=0),
    KillPoint("after the capability runs, before sft_shards", curate, "curate", "before", seed=0, held_out=FIRST),
    KillPoint("mid sft_shards (files written, not recorded)", store, "write_table", "after", seed=0,
              dataset="sft_shards"),
    KillPoint("mid hub_dataset, before publishing", store, "release_version", "after", seed=0, held_out=FIRST),
    KillPoint("mid hub_dataset, published but not recorded", store.LocalGitPublisher, "publish", "after", seed=0),
]


def _kill_group() -> None:
    os.killpg(os.getpgid(0), signal.SIGKILL)


def _arm(point: KillPoint) -> None:
    original = getattr(point.module, point.name)
    calls = [0]

    def armed(*args: Any, **kwargs: Any) -> Any:
        if point.dataset is None or (len(args) > 2 and args[2] == point.dataset):
            calls[0] += 1
        hit = calls[0] == point.nth and (point.dataset is None or (len(args) > 2 and args[2] == point.dataset))
        if hit and point.when == "before":
            _kill_group()
        result = original(*args, **kwargs)
        if hit and point.when == "after":
            _kill_group()
        return result

    setattr(point.module, point.name, armed)


def _child(env: dict[str, str], point: KillPoint | None, argv: list[str], out: str) -> None:
    os.setsid()  # its own process group, which the kill takes down whole
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.environ.update(env)
    os.chdir(env["DAGSTER_HOME"])
    if point is not None:
        _arm(point)
    os._exit(pipeline_run.main(argv))


@dataclass
class Workspace:
    home: Path
    data: Path
    taxonomy: Path

    def env(self, seed: int, held_out: str) -> dict[str, str]:
        return {"DAGSTER_HOME": str(self.home), "COWORKENV_DATA_DIR": str(self.data),
                "COWORKENV_TAXONOMY_DIR": str(self.taxonomy), "COWORKENV_SEED": str(seed),
                "COWORKENV_HELD_OUT_CAPABILITY": held_out, "COWORKENV_SPECS_PER_CAPABILITY": str(SPECS)}

    def run(self, seed: int, held_out: str = "", point: KillPoint | None = None,
            argv: list[str] | None = None) -> tuple[int, str]:
        """(exit code, or -signal; console output) of one pipeline run in a forked child."""
        out = self.home / "console.txt"
        proc = multiprocessing.get_context("fork").Process(
            target=_child, args=(self.env(seed, held_out), point, argv or ["--no-train"], str(out)))
        proc.start()
        proc.join(CHILD_TIMEOUT_S)
        if proc.is_alive():
            os.killpg(proc.pid, signal.SIGKILL)
            proc.join()
            raise AssertionError(f"the run hung for {CHILD_TIMEOUT_S}s:\n{out.read_text()}")
        return proc.exitcode or 0, out.read_text()

    def published(self) -> dict[str, Any]:
        with dg.DagsterInstance.from_config(str(self.home)) as instance:
            event = instance.get_latest_materialization_event(dg.AssetKey("hub_dataset"))
            assert event is not None and event.asset_materialization is not None
            meta = {k: v.value for k, v in event.asset_materialization.metadata.items()}
        rows = {}
        for config in ("specs", "envs", "trajectories"):
            files = sorted(Path(str(meta["location"])).glob(f"data/{config}/*.parquet"))
            rows[config] = sorted(pq.read_table(files[0]).select(["env_id"]).column("env_id").to_pylist())
        return {"version": meta["version"], "rows": rows}


def make_workspace(root: Path) -> Workspace:
    """A DAGSTER_HOME with the project's dagster.yaml (storage paths made absolute), a data folder, a taxonomy."""
    home, data, taxonomy = root / "home", root / "data", root / "taxonomy"
    for folder in (home, data, taxonomy):
        folder.mkdir(parents=True)
    config = yaml.safe_load((ROOT / "dagster.yaml").read_text())
    config["storage"]["sqlite"]["base_dir"] = str(home / "storage")
    config["local_artifact_storage"]["config"]["base_dir"] = str(home)
    config["compute_logs"]["config"]["base_dir"] = str(home / "logs")
    (home / "dagster.yaml").write_text(yaml.safe_dump(config))
    source = synth.load_taxonomy(ROOT / "taxonomy")
    for cid in CAPABILITIES:
        data_ = source[cid].model_dump(mode="json")
        area = data_.pop("area")
        (taxonomy / f"{cid}.yaml").write_text(yaml.safe_dump({"area": area, "capabilities": [data_]}))
    return Workspace(home, data, taxonomy)


class Baselines:
    """What uninterrupted runs publish, per (seed, held-out capability), computed on first use."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.found: dict[tuple[int, str], dict[str, Any]] = {}

    def __getitem__(self, key: tuple[int, str]) -> dict[str, Any]:
        if key not in self.found:
            code, console = self.workspace.run(*key)
            assert code == 0, console
            self.found[key] = self.workspace.published()
            assert {len(v) for v in self.found[key]["rows"].values()} == {SPECS * len(CAPABILITIES)}
        return self.found[key]


@pytest.fixture(scope="module")
def baselines(tmp_path_factory: pytest.TempPathFactory) -> Baselines:
    return Baselines(make_workspace(tmp_path_factory.mktemp("baseline")))


@pytest.fixture(scope="module")
def killed_workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    yield make_workspace(tmp_path_factory.mktemp("killed"))


@pytest.mark.parametrize("point", KILL_POINTS, ids=[p.label for p in KILL_POINTS])
def test_a_killed_run_is_completed_by_the_next_run(point: KillPoint, killed_workspace: Workspace,
                                                   baselines: Baselines) -> None:
    ws = killed_workspace
    code, console = ws.run(point.seed, point.held_out, point)
    assert code == -signal.SIGKILL, f"the kill point was not reached:\n{console}"
    code, console = ws.run(point.seed, point.held_out)
    assert code == 0, console
    assert ws.published() == baselines[point.seed, point.held_out], console
    with dg.DagsterInstance.from_config(str(ws.home)) as instance:
        left = instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
        assert not left, f"runs still marked STARTED: {[r.run_id for r in left]}"
        assert not instance.event_log_storage.get_concurrency_info("llm").claimed_slots
