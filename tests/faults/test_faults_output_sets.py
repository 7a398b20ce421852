"""Fault corpus, an output of several files rewritten by a rerun that a full disk stops part way: `coworkenv curate
TRAJ --out D` writes D's shards and `curation_report.json`, `coworkenv validate SPECS --out V` writes
`accepted.parquet`, `rejected.parquet` and `funnel.json`, each file atomically but one after another. A rerun (other
trajectories or specs) that fills the disk at its second or last file replaced the files before it: the earlier
run's output was lost (its shards or its accepted table replaced) and the folder held two runs' files (a report
over other shards, a funnel over another table), while the error said "any earlier version of the file is
unchanged". A failed rerun must leave the earlier output whole, byte for byte, and say so; the same rerun with room
completes it.

Every case runs in this process: a full disk is ENOSPC from the fsync of the run's k-th file (where delayed
allocation reports it; the existing `test_faults_disk.py` fills a real file size limit at the first file).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from coworkenv.store.stages import read_sft, sft_files
from tests.faults.harness import example_names, snapshot, spec_folder, temp_files

ONE_SET = r"free disk space.*no file of this run was put in place: every file of the earlier run is as it was"


@contextmanager
def disk_full_at(file: int) -> Iterator[None]:
    """ENOSPC from the fsync of the `file`-th regular file written in the block (folders' fsyncs pass)."""
    fsync, calls = os.fsync, [0]

    def fsync_or_full(fd: int) -> None:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            calls[0] += 1
            if calls[0] == file:
                raise OSError(errno.ENOSPC, "No space left on device")
        fsync(fd)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fsync", fsync_or_full)
        yield
    assert calls[0] >= file, f"the run wrote {calls[0]} files"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two spec folders of other envs and their rollouts (`--k 3`, six episodes each)."""
    root = tmp_path_factory.mktemp("output_sets")
    made: dict[str, Path] = {}
    for name, specs in (("old", example_names()[:2]), ("new", example_names()[2:4])):
        made[f"specs-{name}"] = spec_folder(root / f"specs-{name}", specs)
        made[name] = root / name
        done = CliRunner().invoke(app, ["rollout", str(made[f"specs-{name}"]), "--out", str(made[name]), "--k", "3"])
        assert done.exit_code == 0, done.output
    return made


def _curate(trajectories: Path, out: Path, max_rows: int) -> list[str]:
    return ["curate", str(trajectories), "--out", str(out), "--validation-fraction", "0", "--test-fraction", "0",
            "--max-rows-per-shard", str(max_rows)]


def _failed_cleanly(output: str, exit_code: int, file_name: str) -> None:
    assert exit_code == 1, output
    assert "Traceback" not in output and output.count("error:") == 1, output
    assert file_name in output and re.search(ONE_SET, output), output


def _envs(out: Path) -> set[str]:
    return {str(e) for e in read_sft(sft_files(out)).column("env_id").to_pylist()}


@pytest.mark.parametrize(("file", "name"), [(2, "train-00001-of-00006.parquet"), (6, "train-00005-of-00006.parquet"),
                                            (7, "curation_report.json")])
def test_a_curate_rerun_stopped_by_a_full_disk_leaves_the_earlier_curation(made: dict[str, Path], tmp_path: Path,
                                                                           file: int, name: str) -> None:
    """On main: the shards before the full one were the rerun's, the others the earlier curation's (readers refuse
    the mix: the earlier curation was lost), or, at the report, six new shards under the earlier run's report."""
    out = tmp_path / "sft"
    assert CliRunner().invoke(app, _curate(made["old"], out, 1)).exit_code == 0
    before, envs = snapshot(out), _envs(out)
    with disk_full_at(file):
        failed = CliRunner().invoke(app, _curate(made["new"], out, 1))
    _failed_cleanly(failed.output, failed.exit_code, name)
    assert snapshot(out) == before and temp_files(out) == []
    assert _envs(out) == envs
    assert CliRunner().invoke(app, _curate(made["new"], out, 1)).exit_code == 0
    new = _envs(out)
    assert new and not new & envs


def test_a_curate_rerun_of_fewer_shards_stopped_at_its_report_keeps_the_earlier_shards(
        made: dict[str, Path], tmp_path: Path) -> None:
    """A rerun with larger shards (2 instead of 6) whose report meets the full disk: on main it had removed the
    earlier run's six shards and left its report, which named them, over the two new ones."""
    out = tmp_path / "sft"
    assert CliRunner().invoke(app, _curate(made["old"], out, 1)).exit_code == 0
    before = snapshot(out)
    with disk_full_at(3):
        failed = CliRunner().invoke(app, _curate(made["new"], out, 4))
    _failed_cleanly(failed.output, failed.exit_code, "curation_report.json")
    assert snapshot(out) == before and temp_files(out) == []


@pytest.mark.parametrize(("file", "name"), [(2, "rejected.parquet"), (3, "funnel.json")])
def test_a_validate_rerun_stopped_by_a_full_disk_leaves_the_earlier_results(made: dict[str, Path], tmp_path: Path,
                                                                           file: int, name: str) -> None:
    """On main: `accepted.parquet` was the rerun's (other envs) beside the earlier run's rejected table and funnel
    (its counts of another table), and the earlier accepted table was lost."""
    out = tmp_path / "validated"
    assert CliRunner().invoke(app, ["validate", str(made["specs-old"]), "--out", str(out)]).exit_code == 0
    before = snapshot(out)
    with disk_full_at(file):
        failed = CliRunner().invoke(app, ["validate", str(made["specs-new"]), "--out", str(out)])
    _failed_cleanly(failed.output, failed.exit_code, name)
    assert snapshot(out) == before and temp_files(out) == []
    again = CliRunner().invoke(app, ["validate", str(made["specs-new"]), "--out", str(out)])
    assert again.exit_code == 0, again.output
    assert snapshot(out)["accepted.parquet"] != before["accepted.parquet"]


def test_the_same_eval_again_stopped_by_a_full_disk_leaves_the_earlier_report_and_runs(tmp_path: Path) -> None:
    """`coworkenv eval --out D` again, the server answering otherwise (the run replaces its earlier report and
    episodes): a full disk at the episodes' file, the fourth (the report's Markdown, JSON and plot written). On main:
    the new report over the earlier run's episodes."""
    from itertools import count
    from typing import Any

    from tests.support.fake_openai_server import FakeOpenAIServer, echo_responder

    specs, out, calls = spec_folder(tmp_path / "specs", example_names()[:2]), tmp_path / "D", count()

    def varying(body: dict[str, Any]) -> dict[str, Any]:
        answer = echo_responder(body)
        return {**answer, "content": f"{answer.get('content') or ''} ({next(calls)})"}

    with FakeOpenAIServer(responder=varying) as server:
        args = ["eval", "--llm", f"{server.url}/v1", "--model", "model-a", "--envs", str(specs), "--out", str(out),
                "--max-steps", "2"]
        first = CliRunner().invoke(app, args)
        assert first.exit_code == 0, first.output
        before = snapshot(out)
        with disk_full_at(4):
            failed = CliRunner().invoke(app, args)
    _failed_cleanly(failed.output, failed.exit_code, "runs/trajectories-")
    assert snapshot(out) == before and temp_files(out) == []
