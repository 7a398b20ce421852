"""Fault corpus, standard output that fails: a reader that went away (`coworkenv taxonomy | head -1`), a full disk
(`> /dev/full`), and standard output and error closed (`>&- 2>&-`). A reader gone ends the command quietly with
141, as the SIGPIPE ends a command written in C; any other failure is one `error:` line naming standard output
(not a file of the command, not the disk of its outputs). Never a traceback, and the files a command writes are
the bytes an undisturbed run writes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from tests.faults.harness import (
    CAPABILITY,
    ROOT,
    ChildResult,
    assert_clean_failure,
    run_child,
    snapshot,
    temp_files,
)
from tests.support.pipeline_child import make_workspace

runner = CliRunner()
READER_GONE = 141  # 128 + SIGPIPE
NO_SPACE = "cannot write to standard output: No space left on device"
PIPELINE = "tests.faults.scenarios:pipeline_run"


def _run_with_stdout(args: list[str], stdout: str, env: dict[str, str] | None = None,
                     call: str | None = None) -> ChildResult:
    """Run `coworkenv ARGS` (or `call` with ARGS) in a child whose standard output is `stdout`: "reader-gone" (a
    pipe whose reading end is closed), "full" (/dev/full) or "closed" (with standard error closed too)."""
    command = [sys.executable, "-m", "tests.faults.child", *(["--call", call] if call else []), "--", *args]
    child_env = {**os.environ, **(env or {}), "PYTHONPATH": str(ROOT)}
    if stdout == "closed":
        shell = ["bash", "-c", 'exec >&- 2>&-; exec "$@"', "bash", *command]
        done = subprocess.run(shell, cwd=ROOT, env=child_env, timeout=600, check=False)
        return ChildResult(done.returncode, "", "")
    if stdout == "full":
        with open("/dev/full", "w") as full:
            done = subprocess.run(command, cwd=ROOT, env=child_env, stdout=full, stderr=subprocess.PIPE, text=True,
                                  timeout=600, check=False)
        return ChildResult(done.returncode, "", done.stderr)
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader went away before the first line
    try:
        done = subprocess.run(command, cwd=ROOT, env=child_env, stdout=write_end, stderr=subprocess.PIPE,
                              text=True, timeout=600, check=False)
    finally:
        os.close(write_end)
    return ChildResult(done.returncode, "", done.stderr)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["taxonomy"], ["taxonomy", "--json"]], ids=["text", "json"])
@pytest.mark.parametrize("stdout", ["reader-gone", "full"])
def test_a_listing_into_a_failed_standard_output_ends_as_a_shell_expects(args: list[str], stdout: str) -> None:
    done = _run_with_stdout(args, stdout)
    if stdout == "reader-gone":
        assert done.returncode == READER_GONE, done.stderr
        assert done.stderr == "", done.stderr  # `| head` asked for less: nothing to report
    else:
        assert_clean_failure(done, NO_SPACE, "send it to another file or /dev/null", code=1)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("stdout", ["reader-gone", "full", "closed"])
def test_synth_into_a_failed_standard_output_writes_the_bytes_of_an_undisturbed_run(tmp_path: Path,
                                                                                   stdout: str) -> None:
    out, clean = tmp_path / "specs", tmp_path / "clean"
    args = ["synth", "--out", str(out), "-c", CAPABILITY, "--n", "2"]
    done = _run_with_stdout(args, stdout)
    expected = {"reader-gone": READER_GONE, "full": 1, "closed": 0}[stdout]
    assert done.returncode == expected, done.stderr
    if stdout == "full":
        assert_clean_failure(done, NO_SPACE, code=1)
    assert "Traceback" not in done.stderr
    assert runner.invoke(app, [*args[:2], str(clean), *args[3:]]).exit_code == 0
    assert snapshot(out) == snapshot(clean) and temp_files(out) == []


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("stdout", ["reader-gone", "full"])
def test_a_pipeline_run_into_a_failed_standard_output_stops_cleanly_and_the_next_run_completes(
        tmp_path: Path, stdout: str) -> None:
    ws = make_workspace(tmp_path, ("report_from_data",))
    done = _run_with_stdout(["--no-train"], stdout, env=ws.env(), call=PIPELINE)
    assert "Traceback" not in done.stderr, done.stderr
    if stdout == "reader-gone":
        assert done.returncode == READER_GONE and not [line for line in done.stderr.splitlines()
                                                      if line.startswith("error:")], done.stderr
    else:
        assert_clean_failure(done, NO_SPACE, code=1)
    again = run_child(["--no-train"], call=PIPELINE, env=ws.env(), preloaded=True)  # its streams are the usual ones
    assert again.returncode == 0 and "hub_dataset              ok" in again.stdout, again.stdout + again.stderr
    assert temp_files(ws.data) == []
