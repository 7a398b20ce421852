"""Fault corpus, the scale-out path (`COWORKENV_DASK_SCHEDULER`, `python -m pipelines.distributed`): a dagster-dask
(unpinned) that moved or lacks a name the Dask executor takes, a scheduler address that is no address or that
nothing answers, a partition the instance never registered, a count of runs that is no count. Measured on `main`:
the executor's names were looked up only when a run shipped its steps, so the code location loaded and each run
failed inside; `python -m pipelines.distributed` took an address nothing answered, made each run's record, waited
half a minute on each and printed Dask's stack trace ("Connection refused") before "FAILED"; an unregistered
partition was a ValueError traceback; `--scheduler 'x y'` named COWORKENV_DASK_SCHEDULER or failed in the run;
`--concurrent-runs 0` meant all at once. Now each is one `error:` line before any run (exit 1 for the installation
or the cluster, 2 for the input), also with SIGINT ignored (a background job)."""

from __future__ import annotations

import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import dagster_dask.executor
import pytest

from pipelines.dagster_private import DagsterInternalsError
from pipelines.distributed import main
from pipelines.executors import SCHEDULER_ENV, executor_from_env
from pipelines.partitions import CAPABILITY_PARTITIONS

ROOT = Path(__file__).resolve().parents[2]
PARTITION = "report_from_data"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DAGSTER_HOME (the project's dagster.yaml, its paths made absolute) with PARTITION registered."""
    folder = tmp_path_factory.mktemp("dask_home")
    (folder / "dagster.yaml").write_text((ROOT / "dagster.yaml").read_text().replace(".dagster", str(folder)))
    with dg.DagsterInstance.from_config(str(folder)) as instance:
        instance.add_dynamic_partitions(CAPABILITY_PARTITIONS, [PARTITION])
    return folder


@pytest.fixture(scope="module")
def closed_port() -> Iterator[int]:
    """A loopback port bound but not listening: a connection to it is refused at once."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]


def _main(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str],
          env: dict[str, str] | None = None) -> tuple[int, str]:
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    code = main(argv)
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith("error: "), captured.out + captured.err
    assert "Traceback" not in captured.err and captured.out == "", captured.out + captured.err
    return code, captured.err


def test_executor_names_dagster_dask_lacks_stop_the_code_location_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SCHEDULER_ENV, "tcp://10.0.0.5:8786")
    monkeypatch.delattr(dagster_dask.executor, "get_dask_resource_requirements")
    with pytest.raises(DagsterInternalsError) as raised:
        executor_from_env()
    message = str(raised.value)
    for words in (SCHEDULER_ENV, "dagster_dask.executor.get_dask_resource_requirements",
                  "pip install 'dagster-dask==0.29.*'", "no run was started"):
        assert words in message, message


def test_dagster_dask_not_importable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SCHEDULER_ENV, "tcp://10.0.0.5:8786")
    monkeypatch.setitem(sys.modules, "dagster_dask", None)  # as if not installed: its import fails
    monkeypatch.setitem(sys.modules, "dagster_dask.executor", None)
    with pytest.raises(DagsterInternalsError, match=r"query_on_dask_worker.*get_dask_resource_requirements"):
        executor_from_env()


def test_distributed_with_names_missing_says_so_before_any_run(home: Path, closed_port: int,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delattr(dagster_dask.executor, "query_on_dask_worker")
    code, err = _main(home, monkeypatch, capsys, [PARTITION, "--scheduler", f"tcp://127.0.0.1:{closed_port}"])
    assert code == 1 and "--scheduler runs each step on a Dask cluster" in err and "query_on_dask_worker" in err, err


CASES = {
    "nothing answers": (["--scheduler", "tcp://127.0.0.1:{port}"], {}, 1,
                        ("--scheduler 'tcp://127.0.0.1:{port}'", "cannot reach the Dask scheduler",
                         "Connection refused", "no run was started")),
    "nothing answers ($COWORKENV_DASK_SCHEDULER)": ([], {SCHEDULER_ENV: "127.0.0.1:{port}"}, 1,
                                                   (f"{SCHEDULER_ENV} '127.0.0.1:{{port}}'", "cannot reach")),
    "no address": (["--scheduler", "10.0.0.5 8786"], {}, 2,
                   ("--scheduler '10.0.0.5 8786' is not a Dask scheduler address", "pass tcp://HOST:PORT")),
    "a line break in the address": (["--scheduler", "tcp://10.0.0.5:8786\nx"], {}, 2,
                                    ("'tcp://10.0.0.5:8786\\nx' is not a Dask scheduler address",)),
    "an unregistered partition": (["--scheduler", "tcp://127.0.0.1:{port}", "no_such_capability"], {}, 2,
                                  ("['no_such_capability'] are not registered", "python -m pipelines.run")),
}


@pytest.mark.parametrize(("argv", "env", "code", "says"), CASES.values(), ids=CASES.keys())
def test_distributed_refuses_bad_input_before_any_run(home: Path, closed_port: int, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str], argv: list[str],
                                                      env: dict[str, str], code: int, says: tuple[str, ...]) -> None:
    argv = [arg.format(port=closed_port) for arg in argv]
    partitions = [arg for arg in argv[2:] if not arg.startswith("-")] or [PARTITION]
    got, err = _main(home, monkeypatch, capsys, [*partitions, *argv[:2]],
                     {name: value.format(port=closed_port) for name, value in env.items()})
    assert got == code, err
    for words in says:
        assert words.format(port=closed_port) in err, err


@pytest.mark.parametrize("count", ["0", "-2"])
def test_distributed_refuses_a_count_of_runs_that_is_none(home: Path, closed_port: int, count: str,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    with pytest.raises(SystemExit) as raised:
        main([PARTITION, "--scheduler", f"tcp://127.0.0.1:{closed_port}", "--concurrent-runs", count])
    err = capsys.readouterr().err
    assert raised.value.code == 2 and f"--concurrent-runs {count}: must be 1 or more" in err, err


def test_a_background_job_gets_the_line_too(home: Path, closed_port: int, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m pipelines.distributed ... &` from a script: SIGINT ignored, as a shell leaves it (in this process,
    as the command sets no handler of its own: a child would pay 10 s of imports)."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        code, err = _main(home, monkeypatch, capsys, [PARTITION, "--scheduler", f"tcp://127.0.0.1:{closed_port}"])
    finally:
        signal.signal(signal.SIGINT, before)
    assert code == 1 and "cannot reach the Dask scheduler" in err, err
