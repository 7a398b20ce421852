"""Fault corpus, two runs of one command into one output folder at once (a second terminal, a script or a cron job
started twice, two jobs of one workflow): `coworkenv validate S --out V`, `coworkenv rollout S --out T`,
`coworkenv eval --out D`, over two spec sets (or two models), the second given the folder as written, through a
link or by a relative path.

On main none of the three took turns: each ran its checks at its start and wrote its files at its end, so
  - two `validate`s left `accepted.parquet` of one run beside `funnel.json` (and `rejected.parquet`) of the other:
    the funnel counted 2 accepted envs over a table of 3, and neither run said a word (both "wrote ...");
  - two `rollout`s of two spec sets both passed the check that refuses a folder holding another spec set's episodes
    (the fifteenth round's, made when the folder was still empty) and left both files: `curate T` trained on both;
  - two `eval`s of two models both passed the check of the sixteenth round and left `D/runs` holding model-a's and
    model-b's episodes under a report of one model.
Now each of the three holds a lock on its `--out` folder from its checks to its last write (`folder_lock`, as
`curate` and `import` do): a second run into the folder waits, saying for what, and then meets the folder the
first left (refused by the rollout and eval checks, naming the earlier files; a second `validate` replaces all
three files at once). Measured: each case failing on main (the folder mixed, both runs exit 0).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest

from coworkenv.examples import example_names
from coworkenv.loading import load_spec
from tests.faults.harness import ROOT, spec_folder
from tests.support.fake_openai_server import FakeOpenAIServer
from tests.support.preloaded_python import PreloadedPython, Started

WAITING = "is running; waiting for it to end"
pytestmark = pytest.mark.timeout(900)
# What the three commands import (the rest they import themselves): paid once per server, not once per child.
Servers = tuple[PreloadedPython, PreloadedPython]
PRELOAD = ("tests.faults.child", "tests.faults.scenarios", "coworkenv.cli", "coworkenv.cli.validate",
           "coworkenv.cli.rollout", "coworkenv.validate", "coworkenv.rollout", "trainers.evaluate", "pyarrow.parquet")


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """Two interpreters that imported the commands once, each forking one child at a time (the first run of a case
    from one, the second from the other): 2 imports a module, not 2 a case. Each child is `python -m
    tests.faults.child ARGS` as a fresh one runs it, in ROOT, in this process's environment."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    pair = tuple(PreloadedPython(PRELOAD, cwd=ROOT, env=env, folder=tmp_path_factory.mktemp(f"server{i}"))
                 for i in (1, 2))
    yield pair[0], pair[1]
    for server in pair:
        server.close()


def _child(server: PreloadedPython, args: list[str], log: Path) -> Started:
    return server.start(f"from tests.faults.child import main\nmain({args!r})", log)


def _wait(condition: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


def _at_once(servers: Servers, tmp_path: Path, pause_at: str, first: list[str],
             second: list[str]) -> tuple[int, str, int, str]:
    """Run FIRST paused at PAUSE_AT (between its checks and its writes), then SECOND into the same folder; let FIRST
    go once SECOND has ended or says it waits. Returns both exit codes and outputs."""
    paused, go = tmp_path / "paused", tmp_path / "go"
    one_log, two_log = tmp_path / "one.log", tmp_path / "two.log"
    started: list[Started] = []
    try:
        one = _child(servers[0], ["--call", "tests.faults.scenarios:command_pausing", "--", pause_at, str(paused),
                                  str(go), *first], one_log)
        started.append(one)
        _wait(lambda: paused.exists() or one.poll() is not None, 300)
        assert paused.exists(), one_log.read_text()[-3000:]
        two = _child(servers[1], ["--", *second], two_log)
        started.append(two)
        _wait(lambda: two.poll() is not None or (two_log.exists() and WAITING in two_log.read_text()), 300)
        go.touch()
        one_code, two_code = one.wait(timeout=300), two.wait(timeout=300)
    finally:  # a case that failed half-way leaves no child behind to hold its server from the next case
        for child in started:
            child.kill()
    return one_code, one_log.read_text(), two_code, two_log.read_text()


def _second_out(tmp_path: Path, out: Path, spelling: str) -> str:
    if spelling == "as written":
        return str(out)
    if spelling == "through a link":
        out.mkdir(parents=True, exist_ok=True)  # made beforehand (on main a link to a folder not made yet failed apart)
        link = tmp_path / "latest"
        link.symlink_to(out, target_is_directory=True)
        return str(link)
    return os.path.relpath(out, ROOT)  # the children run in ROOT


def _spec_sets(tmp_path: Path) -> tuple[Path, Path]:
    names = example_names()
    return spec_folder(tmp_path / "specs-a", names[:2]), spec_folder(tmp_path / "specs-b", names[2:5])


def _env_ids(folder: Path) -> set[str]:
    return {load_spec(p).id for p in folder.glob("*.json")}


SPELLINGS = ["as written", "through a link", "relative"]


VALIDATE_PAUSES = {"before its rejected table": "coworkenv.validate:rejected_table",
                   "before its funnel": "coworkenv.cli.validate:atomic_write_bytes"}


@pytest.mark.parametrize(("pause", "spelling"), [("before its rejected table", "as written"),
                                                 ("before its funnel", "as written"),
                                                 ("before its rejected table", "through a link"),
                                                 ("before its funnel", "relative")])
def test_two_validates_into_one_folder_leave_one_runs_files(servers: Servers, tmp_path: Path, pause: str,
                                                            spelling: str) -> None:
    pause_at = VALIDATE_PAUSES[pause]
    a, b = _spec_sets(tmp_path)
    out = tmp_path / "V"
    one, one_out, two, two_out = _at_once(servers, tmp_path, pause_at, ["validate", str(a), "--out", str(out)],
                                          ["validate", str(b), "--out", _second_out(tmp_path, out, spelling)])
    assert (one, two) == (0, 0), one_out[-2000:] + two_out[-2000:]
    accepted = set(pq.read_table(out / "accepted.parquet", columns=["env_id"]).column("env_id").to_pylist())
    rejected = pq.read_table(out / "rejected.parquet").num_rows
    funnel = orjson.loads((out / "funnel.json").read_bytes())
    run = next((ids for ids in (_env_ids(a), _env_ids(b)) if accepted <= ids), None)
    assert run is not None, "accepted.parquet holds envs of both spec sets"
    assert (funnel["accepted"], funnel["generated"]) == (len(accepted), len(accepted) + rejected) == (
        len(accepted), len(run)), f"funnel.json {funnel['accepted']}/{funnel['generated']} over a table of " \
                                  f"{len(accepted)} accepted, {rejected} rejected: two runs' files"
    assert WAITING in two_out


def _trajectory_envs(folder: Path) -> list[set[str]]:
    return [set(pq.read_table(f, columns=["env_id"]).column("env_id").to_pylist())
            for f in sorted(folder.glob("trajectories-*.parquet"))]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_two_rollouts_of_two_spec_sets_into_one_folder_leave_one_spec_sets_episodes(servers: Servers, tmp_path: Path,
                                                                                    spelling: str) -> None:
    a, b = _spec_sets(tmp_path)
    out = tmp_path / "T"
    one, one_out, two, two_out = _at_once(servers, tmp_path, "coworkenv.rollout:rollout_specs",
                                          ["rollout", str(a), "--out", str(out)],
                                          ["rollout", str(b), "--out", _second_out(tmp_path, out, spelling)])
    files = _trajectory_envs(out)
    assert len(files) == 1, f"{len(files)} trajectory files of {len(files)} spec sets: curate would train on all"
    assert files[0] == _env_ids(a)
    _second_refused(one, one_out, two, two_out)


def _second_refused(one: int, one_out: str, two: int, two_out: str) -> None:
    """The first run ended; the second waited for it, saying so, then met its files and was refused."""
    assert one == 0, one_out[-2000:]
    assert two == 2 and "already holds" in two_out and WAITING in two_out, two_out[-2000:]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_two_evals_of_two_models_into_one_folder_leave_the_reports_episodes_only(servers: Servers, tmp_path: Path,
                                                                                 spelling: str) -> None:
    a, _ = _spec_sets(tmp_path)
    out = tmp_path / "D"
    with FakeOpenAIServer() as server:
        common = ["--llm", f"{server.url}/v1", "--envs", str(a), "--max-steps", "2"]
        one, one_out, two, two_out = _at_once(servers, tmp_path, "trainers.evaluate:evaluate",
                                              ["eval", *common, "--model", "model-a", "--out", str(out)],
                                              ["eval", *common, "--model", "model-b", "--out",
                                               _second_out(tmp_path, out, spelling)])
    models = set()
    for file in out.glob("runs/trajectories-*.parquet"):
        models |= {str(m) for m in pq.read_table(file, columns=["model"]).column("model").to_pylist()}
    report = (out / "eval_report.md").read_text()
    assert models == {"openai:model-a"}, f"D/runs holds the episodes of {sorted(models)}; the report: {report[:300]}"
    _second_refused(one, one_out, two, two_out)


def test_two_evals_over_two_spec_sets_into_one_folder_leave_the_reports_episodes_only(servers: Servers,
                                                                                       tmp_path: Path) -> None:
    """One model over the held-out set and over another set at once: main left both sets' episodes in `D/runs`
    under a report of one set."""
    a, b = _spec_sets(tmp_path)
    out = tmp_path / "D"
    with FakeOpenAIServer() as server:
        common = ["--llm", f"{server.url}/v1", "--model", "model-a", "--max-steps", "2", "--out", str(out)]
        one, one_out, two, two_out = _at_once(servers, tmp_path, "trainers.evaluate:evaluate", ["eval", *common, "--envs", str(a)],
                                              ["eval", *common, "--envs", str(b)])
    envs = set().union(*_trajectory_envs(out / "runs"))
    assert envs == _env_ids(a), f"D/runs holds {len(envs)} envs; the report's run had {len(_env_ids(a))}"
    _second_refused(one, one_out, two, two_out)


GUARDS = ["two rollouts, the second with --add", "two rollouts of one spec set by two teachers",
          "the same eval twice"]


@pytest.mark.parametrize("case", GUARDS)
def test_two_runs_meant_to_share_a_folder_both_end_in_it(servers: Servers, tmp_path: Path, case: str) -> None:
    """Regression guards (main ended so too): a rollout with `--add` keeps the other's episodes on purpose; two
    teachers (here the oracle under two seeds) over one spec set are meant to share the folder; the same eval twice
    leaves one report and its episodes once."""
    a, b = _spec_sets(tmp_path)
    if case == "the same eval twice":
        out = tmp_path / "D"
        with FakeOpenAIServer() as server:
            command = ["eval", "--llm", f"{server.url}/v1", "--model", "model-a", "--max-steps", "2", "--envs", str(a),
                       "--out", str(out)]
            one, one_out, two, two_out = _at_once(servers, tmp_path, "trainers.evaluate:evaluate", command, command)
        assert (one, two) == (0, 0), one_out[-2000:] + two_out[-2000:]
        assert _trajectory_envs(out / "runs") == [_env_ids(a)]
        return
    out = tmp_path / "T"
    second = ["rollout", str(b), "--out", str(out), "--add"] if "--add" in case else \
        ["rollout", str(a), "--out", str(out), "--seed", "7"]
    one, one_out, two, two_out = _at_once(servers, tmp_path, "coworkenv.rollout:rollout_specs",
                                          ["rollout", str(a), "--out", str(out)], second)
    assert (one, two) == (0, 0), one_out[-2000:] + two_out[-2000:]
    expected = [_env_ids(a), _env_ids(b)] if "--add" in case else [_env_ids(a), _env_ids(a)]
    assert sorted(_trajectory_envs(out), key=len) == sorted(expected, key=len)
