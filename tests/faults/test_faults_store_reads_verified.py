"""Fault corpus, a stored file checked, then read again: `store.latest()` (or the partition check of
`pipelines.staleness`, or an asset's recorded `paths`) hashes a dataset's file, and the reader then opens the file
again by its path. A file edited in place or renamed over in between (a script "fixing" a row, a copy from another
store, a sync tool) was read with other rows under the recorded hash: `validated_envs` validated other specs under
the `input_hash` of the ones generated, `teacher_trajectories` ran other envs, `sft_shards` curated and `hub_dataset`
published other rows under the recorded versions, the evaluation took its held-out envs from another split. The
reads checked nothing (the name, `<sha256[:16]>.parquet`, records the hash of the bytes the store wrote).

What must hold: the rows used are those of the bytes whose hash is recorded, or the read is refused naming the file;
a reader reads a stored file once and checks what it read, never what was there a moment before.

Every case is in process, on small tables (a few rows): the edit is made right after the check (a wrapper around
`store.latest` or the asset's partition check), and the work after the read is stopped where it starts (`Paused`),
with what it was given captured.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dagster as dg
import pyarrow as pa
import pytest

import assets.envs as envs_assets
import assets.hub as hub_assets
import assets.sft as sft_assets
import assets.trajectories as trajectory_assets
import coworkenv.curate
import coworkenv.examples
import coworkenv.rollout
import coworkenv.validate
from coworkenv import store
from coworkenv.loading import load_spec
from coworkenv.spec_seal_write import stored_spec_json
from coworkenv.store import StoredTable, parquet_bytes, stages
from pipelines.freshness import held_out_env_ids, sft_input_hash
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import PartitionState

CAP = "cap_a"
EXAMPLES = Path(coworkenv.examples.__file__).parent
HOW = ["saved in place", "renamed over"]


class Paused(Exception):
    """The work after the read started: what it was given is captured."""


def _spec_texts() -> tuple[str, str]:
    texts = []
    for name in ("meeting_reschedule.json", "incident_rollback.json"):
        path = EXAMPLES / name
        texts.append(stored_spec_json(load_spec(path.read_text(encoding="utf-8"), source=str(path))))
    return texts[0], texts[1]


SPEC_A, SPEC_B = _spec_texts()
ENV_A, ENV_B = (load_spec(text).id for text in (SPEC_A, SPEC_B))


def _which(text: str) -> str:
    """A stored spec's text named short ("spec a", "spec b"): assertion messages stay readable."""
    return {SPEC_A: "spec a", SPEC_B: "spec b"}.get(text, "another text")


def _rows(stage: stages.Stage, tag: str) -> list[dict[str, Any]]:
    """One or two rows of `stage` that tell the original ("a") from the edit ("b")."""
    spec, env = (SPEC_A, ENV_A) if tag == "a" else (SPEC_B, ENV_B)
    if stage is stages.SPECS:
        return [{"env_id": env, "capability": CAP, "source": "procedural", "origin": f"o-{tag}", "spec_json": spec}]
    if stage is stages.ENVS:
        return [{"env_id": env, "capability": CAP, "spec_json": spec, "source": "procedural", "origin": f"o-{tag}"}]
    if stage is stages.REJECTED:
        return [{"capability": CAP, "spec_id": env, "gate": f"gate-{tag}", "reasons": [tag]}]
    if stage is stages.TRAJECTORIES:
        return [{"env_id": env, "record_id": f"r-{tag}", "capability": CAP, "teacher": "oracle"}]
    return [{"env_id": env, "capability": CAP, "split": "test", "messages": [], "tools": "[]"}]


def _ids(table: pa.Table) -> list[Any]:
    column = next(c for c in ("env_id", "spec_id") if c in table.column_names)
    return table.column(column).to_pylist()


def _store(root: Path, stage: stages.Stage, dataset: str, partition: str | None = CAP) -> StoredTable:
    written_by = "rollout" if stage is stages.TRAJECTORIES else None
    return stage.store(stage.table(_rows(stage, "a")), root, dataset, partition, written_by=written_by)


def _edit(path: Path, stage: stages.Stage, how: str) -> None:
    """Replace `path`'s bytes with another valid file of the same stage (rows "b"), in place or renamed over."""
    table = stage.marked(stage.table(_rows(stage, "b")), "rollout" if stage is stages.TRAJECTORIES else None)
    data = parquet_bytes(table)
    if how == "saved in place":
        path.write_bytes(data)
    else:
        temp = path.with_name(".edit.parquet")
        temp.write_bytes(data)
        os.replace(temp, path)


def _used_or_refused(call: Callable[[], Any], path: Path, used: list[Any], original: Any) -> None:
    """`call` either used `original` (captured in `used`) or refused naming `path`; never the edit's rows."""
    try:
        call()
    except Paused:
        assert used == [original], f"read other rows than the recorded version's: {used} != {[original]}"
        return
    except (ValueError, dg.Failure) as exc:  # StageError is a ValueError
        message = str(exc)
        assert str(path) in message, message
        assert "changed" in message or "edited" in message, message
        return
    raise AssertionError(f"neither used nor refused: {used}")


def _settings(tmp_path: Path) -> CoworkenvSettings:
    return CoworkenvSettings(data_dir=str(tmp_path / "data"))


def _edit_after_latest(monkeypatch: pytest.MonkeyPatch, stage: stages.Stage, how: str) -> list[Path]:
    """`store.latest` edits the file it checked right after checking it (once); the paths edited."""
    real, edited = store.latest, []

    def latest_then_edit(*args: Any, **kwargs: Any) -> StoredTable | None:
        found = real(*args, **kwargs)
        if found is not None and not edited:
            _edit(found.path, stage, how)
            edited.append(found.path)
        return found

    monkeypatch.setattr(store, "latest", latest_then_edit)
    return edited


# asset -> (its module, the stage and dataset it reads by `latest()`, where the work after the read starts, what of
# the work's first argument is captured, what the original's rows give)
LATEST_READERS: dict[str, tuple[Any, stages.Stage, str, tuple[Any, str], Callable[[list[Any]], list[Any]], Any]] = {
    "validated_envs": (envs_assets, stages.SPECS, envs_assets.SPECS, (coworkenv.validate, "validate_and_repair"),
                       lambda candidates: [_which(c.payload) for c in candidates], ["spec a"]),
    "teacher_trajectories": (trajectory_assets, stages.ENVS, trajectory_assets.ENVS,
                             (coworkenv.rollout, "rollout_specs"), lambda specs: [s.id for s in specs], [ENV_A]),
}


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("asset", sorted(LATEST_READERS))
def test_an_asset_uses_the_rows_whose_hash_latest_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          asset: str, how: str) -> None:
    """validated_envs (`read_spec_rows`) and teacher_trajectories (`read_envs`): on main the reader re-opened the file
    `latest()` had hashed; the edit's specs were validated, or its envs run by the teacher, under the original's
    `input_hash`."""
    module, stage, dataset, (owner, name), seen, original = LATEST_READERS[asset]
    settings = _settings(tmp_path)
    stored = _store(settings.store_root, stage, dataset)
    used: list[Any] = []

    def capture(first: list[Any], *args: Any, **kwargs: Any) -> Any:
        used.append(seen(first))
        raise Paused

    monkeypatch.setattr(owner, name, capture)
    edited = _edit_after_latest(monkeypatch, stage, how)
    context = dg.build_asset_context(partition_key=CAP)
    _used_or_refused(lambda: getattr(module, asset)(context, settings), stored.path, used, original)
    assert edited == [stored.path]


def _checked_then_edited(monkeypatch: pytest.MonkeyPatch, module: Any, files: dict[str, StoredTable],
                         edit: str, stage: stages.Stage) -> None:
    """`module.complete_partitions` answers one complete partition of `files` (as the partition check finds them:
    each file's path and the hash of its bytes), then the file of `edit` is saved over in place."""
    def check_then_edit(*args: Any) -> list[PartitionState]:
        state = PartitionState(CAP, "", {k: f.path for k, f in files.items()},
                               {k: f.content_hash for k, f in files.items()})
        _edit(files[edit].path, stage, "saved in place")
        return [state]

    monkeypatch.setattr(module, "complete_partitions", check_then_edit)


def test_sft_shards_curate_the_trajectories_whose_versions_they_record(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """sft_shards: on main the trajectories file the partition check had hashed was read again by its path; the
    edit's episodes were curated under the recorded versions (`input_hash`)."""
    settings = _settings(tmp_path)
    stored = _store(settings.store_root, stages.TRAJECTORIES, sft_assets.TRAJECTORIES)
    _checked_then_edited(monkeypatch, sft_assets, {sft_assets.TRAJECTORIES: stored}, sft_assets.TRAJECTORIES,
                         stages.TRAJECTORIES)
    used: list[Any] = []

    def capture(table: pa.Table, **kwargs: Any) -> Any:
        used.append(_ids(table))
        raise Paused

    monkeypatch.setattr(coworkenv.curate, "curate", capture)
    context = dg.build_asset_context()
    _used_or_refused(lambda: sft_assets.sft_shards(context, settings), stored.path, used, [ENV_A])


class _Captured:
    """A publisher that captures the release instead of publishing it."""

    def __init__(self, used: list[Any], config: str) -> None:
        self.used, self.config = used, config

    def publish(self, release: Any) -> Any:
        self.used.append([i for table in release.configs[self.config]["train"] for i in _ids(table)])
        raise Paused


HUB_FILES = [("specs", hub_assets.SPECS, stages.SPECS), ("envs", hub_assets.ENVS, stages.ENVS),
             ("trajectories", hub_assets.TRAJECTORIES, stages.TRAJECTORIES)]


@pytest.mark.parametrize(("config", "dataset", "stage"), HUB_FILES, ids=[c for c, _, _ in HUB_FILES])
def test_hub_dataset_publishes_the_rows_whose_versions_it_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  config: str, dataset: str,
                                                                  stage: stages.Stage) -> None:
    """hub_dataset: on main each partition's files were read again by the paths the partition check had hashed; an
    edit in between was published under the recorded versions (`input_hash`)."""
    settings = _settings(tmp_path)
    files = {name: _store(settings.store_root, s, name) for _, name, s in HUB_FILES}
    _checked_then_edited(monkeypatch, hub_assets, files, dataset, stage)
    monkeypatch.setattr(hub_assets, "published_funnel", lambda *_: coworkenv.validate.Funnel())
    monkeypatch.setattr(hub_assets, "current_sft_files", lambda *_: {})
    used: list[Any] = []
    monkeypatch.setattr(store, "publisher_from_config", lambda *_: _Captured(used, config))
    context = dg.build_asset_context()
    _used_or_refused(lambda: hub_assets.hub_dataset(context, settings), files[dataset].path, used, [ENV_A])


def test_hub_dataset_publishes_the_sft_split_sft_shards_recorded(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """hub_dataset, an SFT split file edited after `sft_shards` recorded its path (and, in its name, its hash): on
    main it was published as the recorded `sft_shards` version."""
    settings = _settings(tmp_path)
    split = _store(settings.store_root, stages.SFT, sft_assets.SFT, "test")
    instance = dg.DagsterInstance.ephemeral()
    instance.report_runless_asset_event(dg.AssetMaterialization(
        asset_key=sft_assets.SFT, metadata={"paths": {"test": str(split.path)}, "dataset_version": "v-sft",
                                            "input_hash": sft_input_hash([], settings)}))
    _edit(split.path, stages.SFT, "saved in place")
    monkeypatch.setattr(hub_assets, "complete_partitions", lambda *_: [])
    monkeypatch.setattr(hub_assets, "published_funnel", lambda *_: coworkenv.validate.Funnel())
    used: list[Any] = []

    class Captured(_Captured):
        def publish(self, release: Any) -> Any:
            self.used.append([i for table in release.configs["sft"]["test"] for i in _ids(table)])
            raise Paused

    monkeypatch.setattr(store, "publisher_from_config", lambda *_: Captured(used, "sft"))
    context = dg.build_asset_context(instance=instance)
    _used_or_refused(lambda: hub_assets.hub_dataset(context, settings), split.path, used, [ENV_A])


def test_the_held_out_envs_are_those_of_the_recorded_test_split(tmp_path: Path) -> None:
    """The evaluation's held-out envs (`held_out_env_ids`) from a test split file edited to name a train env: on
    main the eval ran on the env the checkpoint was trained on, reported as held out."""
    root = _settings(tmp_path).store_root
    envs = stages.ENVS.store(stages.ENVS.table(_rows(stages.ENVS, "a") + _rows(stages.ENVS, "b")), root,
                             "validated_envs", CAP)
    state = PartitionState(CAP, "", {"validated_envs": envs.path}, {"validated_envs": envs.content_hash})
    split = _store(root, stages.SFT, "sft_shards", "test")
    _edit(split.path, stages.SFT, "saved in place")
    used: list[Any] = []

    def call() -> None:
        used.append(held_out_env_ids({"test": str(split.path)}, [state], 10))
        raise Paused

    _used_or_refused(call, split.path, used, [ENV_A])


STAGES = [stages.SPECS, stages.ENVS, stages.REJECTED, stages.TRAJECTORIES, stages.SFT]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("stage", STAGES, ids=[s.name for s in STAGES])
def test_a_stage_reads_the_stored_file_it_was_given(tmp_path: Path, stage: stages.Stage, how: str) -> None:
    """`Stage.read` of a `StoredTable` (what `store.latest` answers) or of its content-addressed path: on main the
    file was read as it is now, the hash it was given (or its name records) never compared with the bytes."""
    stored = _store(tmp_path, stage, stage.name)
    _edit(stored.path, stage, how)
    used: list[Any] = []

    def call() -> None:
        used.append([_ids(stage.read(stored)), _ids(stage.read(stored.path))])
        raise Paused

    _used_or_refused(call, stored.path, used, [[ENV_A], [ENV_A]])


READERS: dict[str, tuple[stages.Stage, Callable[[StoredTable], list[Any]]]] = {
    "read_envs": (stages.ENVS, lambda s: [spec.id for spec in stages.read_envs(s)]),
    "read_spec_rows": (stages.SPECS, lambda s: [_which(row.text) for row in stages.read_spec_rows(s.path)]),
    "read_specs": (stages.SPECS, lambda s: [spec.id for spec in stages.read_specs(s.path)]),
    "read_sft": (stages.SFT, lambda s: _ids(stages.read_sft([s.path], split=None))),
    "read_sft_column": (stages.SFT, lambda s: stages.read_sft_column(s.path, "env_id")),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_the_stage_readers_read_the_stored_file_they_were_given(tmp_path: Path, reader: str) -> None:
    """The readers of each stage given a stored file (`store.latest`'s answer, or its path) edited since: on main
    they read the edit."""
    stage, read = READERS[reader]
    stored = _store(tmp_path, stage, stage.name)
    _edit(stored.path, stage, "renamed over")
    original = ["spec a"] if reader == "read_spec_rows" else [ENV_A]
    used: list[Any] = []

    def call() -> None:
        used.append(read(stored))
        raise Paused

    _used_or_refused(call, stored.path, used, original)
