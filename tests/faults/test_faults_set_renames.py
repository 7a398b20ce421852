"""Fault corpus, a writer killed while it puts a set of files in place. `files_together` (validate's tables and funnel,
eval's report and its episodes, curate's shards and report) writes every file of a set before the first rename, so a
full disk leaves the earlier set whole; but a kill -9 between the renames left some files of the new run beside the
rest of the earlier one, and nothing told a reader: validate's `accepted.parquet` of one run read beside the
`funnel.json` and `rejected.parquet` of another, an eval's episodes beside another eval's report. Worse, the next
write into the folder swept the killed writer's temp files as litter, and with them the rest of the set: the mix
became for good.

What must hold: a reader sees the earlier set or the whole new one. Since this round a set is put in place after a
journal naming its renames (`.set-...json`, in each of its folders); a kill leaves the journal, and the next reader or
writer of the folder completes the renames first (`coworkenv.atomic.finish_interrupted_sets`).

The library cases run `tests.faults.scenarios.output_set` in a child (about a second each: imports), killed right
after its first or second rename, over a first whole run; then a reader runs in this process. One case runs the real
`coworkenv validate` in the child.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from coworkenv.atomic import atomic_write_bytes
from coworkenv.cli import app
from coworkenv.examples import example_names
from coworkenv.store.stages import ENVS, REJECTED, TRAJECTORIES, read_spec_rows
from coworkenv.store.stages.trajectories import trajectory_files
from tests.faults.harness import ROOT, run_child, spec_folder, temp_files
from tests.faults.scenarios import output_set

SIGKILLED = -9
SCENARIO = "tests.faults.scenarios:output_set"


def _runs(out: Path) -> dict[str, str]:
    """Which run each file of the set in `out` is of (its tag), as it stands on disk."""
    def tag(value: str) -> str:
        return value.rsplit("-", 1)[-1]

    return {
        "accepted.parquet": tag(ENVS.read(out / "accepted.parquet", ["env_id"]).column("env_id")[0].as_py()),
        "rejected.parquet": tag(REJECTED.read(out / "rejected.parquet", ["spec_id"]).column("spec_id")[0].as_py()),
        "funnel.json": orjson.loads((out / "funnel.json").read_bytes())["run"],
        "eval_report.json": orjson.loads((out / "eval_report.json").read_bytes())["run"],
        "runs/episodes.parquet": tag(TRAJECTORIES.read(out / "runs" / "episodes.parquet", ["env_id"])
                                     .column("env_id")[0].as_py()),
    }


@pytest.fixture(scope="module")
def killed_reruns(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """By N: a folder holding run 1 whole, over which run 2 was killed right after its N-th rename (one child each,
    shared: each case reads a copy, the journal's paths are relative to its folder)."""
    folders = {}
    for after in (1, 2):
        out = tmp_path_factory.mktemp(f"killed-after-{after}") / "out"
        output_set(str(out), "1")
        killed = run_child([str(out), "2"], call=SCENARIO, kill=(f"coworkenv.atomic:_place:{after}:after",), preloaded=True)
        assert killed.returncode == SIGKILLED, killed.stderr
        folders[after] = out
    return folders


def _killed_rerun(killed_reruns: dict[int, Path], tmp_path: Path, after: int) -> Path:
    out = tmp_path / "out"
    shutil.copytree(killed_reruns[after], out)
    return out


READERS: dict[str, Callable[[Path], Any]] = {
    "ENVS.read": lambda out: ENVS.read(out / "accepted.parquet"),
    "REJECTED.read": lambda out: REJECTED.read(out / "rejected.parquet"),
    "read_spec_rows": lambda out: read_spec_rows(out),
    "trajectory_files": lambda out: trajectory_files(out / "runs", written_by="eval"),
}


@pytest.mark.parametrize("after", [1, 2])
@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_reader_after_a_kill_between_the_renames_sees_one_run(killed_reruns: dict[int, Path], tmp_path: Path,
                                                                reader: str, after: int) -> None:
    """On main the reader took the file as it stood: after the first rename `accepted.parquet` was run 2's while
    `rejected.parquet`, `funnel.json`, the report and its episodes were run 1's."""
    out = _killed_rerun(killed_reruns, tmp_path, after)
    READERS[reader](out)
    runs = _runs(out)
    assert set(runs.values()) == {"2"}, f"a mix of two runs: {runs}"
    assert not list(out.rglob(".set-*")) and temp_files(out) == []  # the journal is gone with the temps


def test_the_next_write_into_the_folder_completes_the_set_instead_of_sweeping_it(killed_reruns: dict[int, Path],
                                                                                 tmp_path: Path) -> None:
    """Any write into the folder (here a note beside the tables) sweeps the temp files of writers that are gone: on
    main it swept the rest of the killed set with them, and the mix of run 2's `accepted.parquet` with run 1's other
    files stayed for good, whatever read it later."""
    out = _killed_rerun(killed_reruns, tmp_path, 1)
    atomic_write_bytes(out / "notes.txt", b"looked at it\n")
    assert set(_runs(out).values()) == {"2"}, _runs(out)


def _validated_once(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(a second spec folder, the folder `coworkenv validate` writes of it, a folder validated from a first one): the
    rerun into the third must end as the second."""
    specs_one = spec_folder(tmp_path / "specs-1", example_names()[:1])
    specs_two = spec_folder(tmp_path / "specs-2", example_names()[1:2])
    reference, out = tmp_path / "reference", tmp_path / "out"
    runner = CliRunner()
    assert runner.invoke(app, ["validate", str(specs_two), "--out", str(reference)]).exit_code == 0
    assert runner.invoke(app, ["validate", str(specs_one), "--out", str(out)]).exit_code == 0
    return specs_two, reference, out


def test_validate_killed_between_its_renames_leaves_one_run_for_its_readers(tmp_path: Path) -> None:
    """`coworkenv validate` run again into its folder over other specs, killed after its first rename: on main
    `accepted.parquet` held the second run's envs beside the first run's `rejected.parquet` and `funnel.json` (whose
    counts no longer matched). A reader (`coworkenv rollout OUT` reads the folder's specs) must find the second run's
    three files."""
    specs_two, reference, out = _validated_once(tmp_path)
    killed = run_child(["validate", str(specs_two), "--out", str(out)], kill=("coworkenv.atomic:_place:1:after",), preloaded=True)
    assert killed.returncode == SIGKILLED, killed.stderr
    read_spec_rows(out)
    for name in ("accepted.parquet", "rejected.parquet", "funnel.json"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), f"{name} is of the first run"


def _stopped(pid: int) -> bool:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T"
    return False


@contextlib.contextmanager
def _writer_stopped_between_renames(out: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run 1 whole in `out`, and a child writing run 2 over it stopped (SIGSTOP) right after its first rename; the
    child is let go and waited for when the block ends."""
    output_set(str(out), "1")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "tests.faults.child", "--kill", "coworkenv.atomic:_place:1:after:SIGSTOP",
               "--call", SCENARIO, "--", str(out), "2"]
    child = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not _stopped(child.pid):
            assert child.poll() is None and time.monotonic() < deadline, "the writer did not stop between its renames"
            time.sleep(0.05)
        yield child
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child.pid, signal.SIGCONT)
        child.wait(timeout=120)


@pytest.mark.parametrize("reader", ["ENVS.read", "read_spec_rows"])
def test_a_reader_while_a_writer_is_placing_its_set_waits_for_the_whole_set(tmp_path: Path, reader: str) -> None:
    """A reader while another process is between the renames of its set (here stopped there, SIGSTOP, and let go
    half a second later): on main the reader took the files as they stood, run 2's `accepted.parquet` beside run 1's
    other files, without a lock or a look at the writer. It must wait for the writer's set (milliseconds, unstopped)."""
    out = tmp_path / "out"
    with _writer_stopped_between_renames(out) as child:
        threading.Timer(0.5, os.kill, (child.pid, signal.SIGCONT)).start()
        READERS[reader](out)
        runs = _runs(out)  # at once, after the reader: on main before the writer goes on
    assert set(runs.values()) == {"2"}, f"a mix of two runs: {runs}"
    assert child.returncode == 0


def test_a_reader_of_a_folder_whose_writer_stays_stopped_is_refused_naming_it(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer stopped between its renames and not let go (Ctrl-Z, a debugger): on main the reader took run 2's
    `accepted.parquet` as the folder's without a word; it must wait a while (shortened here), then refuse, naming the
    process and how to let it go."""
    import coworkenv.atomic

    monkeypatch.setattr(coworkenv.atomic, "SET_WAIT_S", 0.3, raising=False)
    out = tmp_path / "out"
    with _writer_stopped_between_renames(out) as child:
        try:
            table = ENVS.read(out / "accepted.parquet", ["env_id"])
        except ValueError as exc:
            assert f"process {child.pid}" in str(exc) and f"kill -CONT {child.pid}" in str(exc), str(exc)
        else:
            runs = _runs(out)
            raise AssertionError(f"read {table.column('env_id').to_pylist()} while the folder held {runs}")
    assert set(_runs(out).values()) == {"2"}  # let go, the writer ended its set


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT"])
def test_validate_stopped_by_a_signal_between_its_renames_ends_its_set(tmp_path: Path, signal_name: str) -> None:
    """`coworkenv validate` rerun into its folder, stopped (SIGTERM, Ctrl-C) right after its first rename: the CLI turns
    the signal into an orderly stop, which on main removed the set's files not yet renamed, as for a failed write:
    run 2's `accepted.parquet` stayed beside run 1's `rejected.parquet` and `funnel.json`. Renaming is the commit: the
    stop ends the set's renames (milliseconds), then exits."""
    specs_two, reference, out = _validated_once(tmp_path)
    stopped = run_child(["validate", str(specs_two), "--out", str(out)],
                        kill=(f"coworkenv.atomic:_place:1:after:{signal_name}",), preloaded=True)
    assert stopped.returncode != 0 and "Traceback" not in stopped.stderr, stopped.stderr
    assert temp_files(out) == [] and not list(out.rglob(".set-*"))
    for name in ("accepted.parquet", "rejected.parquet", "funnel.json"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), f"{name} is of the first run"


def _crafted_journal(folder: Path, payload: dict[str, Any]) -> Path:
    """A journal as a dead writer of this host would have left it: the name's host tag and a pid no process has."""
    from coworkenv.atomic import SET_PREFIX, _host_tag

    dead = 2 ** 22 + 7  # past the default pid_max: no process of this host has it
    journal = folder / f"{SET_PREFIX}{_host_tag()}-{dead}-0.json"
    journal.write_bytes(orjson.dumps(payload))
    return journal


@pytest.mark.parametrize("crafted", ["a removal past the folder", "a rename out of the folder",
                                     "a folder that holds no copy of it", "a rename of no temp file"])
def test_a_journal_the_library_did_not_write_moves_and_removes_nothing(tmp_path: Path, crafted: str) -> None:
    """A journal is data in a folder that may come from elsewhere (a downloaded dataset, an unpacked archive): a
    reader of the folder completing a 'set' it names must not move or remove files outside the folders the set was
    written in. On main a crafted journal removed `../victim.txt` and renamed a file over `../victim.txt`."""
    from coworkenv.atomic import finish_interrupted_sets

    data, other = tmp_path / "data", tmp_path / "other"
    data.mkdir()
    other.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (data / ".tmp-x").write_text("planted")
    (data / "plain.txt").write_text("not a temp")
    payload: dict[str, Any] = {
        "a removal past the folder": {"moves": [[".tmp-x", "a.txt"]], "removals": ["../victim.txt"], "folders": ["."]},
        "a rename out of the folder": {"moves": [[".tmp-x", "../victim.txt"]], "removals": [], "folders": [".", ".."]},
        "a folder that holds no copy of it": {"moves": [[".tmp-x", "a.txt"]], "removals": ["../other/x"],
                                             "folders": [".", "../other"]},
        "a rename of no temp file": {"moves": [["plain.txt", "a.txt"]], "removals": [], "folders": ["."]},
    }[crafted]
    (other / "x").write_text("keep me too")
    journal = _crafted_journal(data, payload)
    with pytest.raises(ValueError, match="not a journal of a set this library put in place"):
        finish_interrupted_sets(data)
    assert victim.read_text() == "keep me" and (other / "x").read_text() == "keep me too"
    assert (data / ".tmp-x").read_text() == "planted" and (data / "plain.txt").read_text() == "not a temp"
    assert not (data / "a.txt").exists() and journal.exists()
