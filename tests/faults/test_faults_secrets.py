"""Fault corpus, credentials in settings: an LLM server URL with user:password@ (or ?api_key=) in COWORKENV_LLM_URL.
The pipeline uses it, and no file of the run holds it: Dagster stored the settings resource's values in every run's
job snapshot (its run storage, shown by the UI), so the password sat in DAGSTER_HOME in clear."""

from __future__ import annotations

import contextlib
import socket
import sqlite3
import zlib
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.faults.harness import CAPABILITY, pipeline_refused, run_child

SECRET = "hunter2-do-not-store"


def _closed_port() -> int:
    with socket.socket() as probe:  # bound and closed: nothing listens there
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _texts(path: Path) -> list[bytes]:
    """The bytes of `path`, and of what it holds compressed: SQLite cells (Dagster zlib-compresses its snapshots)
    and Parquet columns."""
    found = [path.read_bytes()]
    if path.suffix == ".parquet":
        found.append(str(pq.read_table(path).to_pylist()).encode())
    elif path.suffix == ".db":
        connection = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
        try:
            tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                for row in connection.execute(f'SELECT * FROM "{table}"'):
                    for cell in row:
                        data = cell if isinstance(cell, bytes) else str(cell).encode()
                        found.append(data)
                        with contextlib.suppress(zlib.error):
                            found.append(zlib.decompress(data))
        finally:
            connection.close()
    return found


def _holding(folder: Path, secret: str) -> list[str]:
    return sorted({p.relative_to(folder).as_posix() for p in folder.rglob("*")
                   if p.is_file() and any(secret.encode() in text for text in _texts(p))})


@pytest.mark.parametrize("url", [f"http://admin:{SECRET}@127.0.0.1:PORT/v1",
                                 f"http://127.0.0.1:PORT/v1?api_key={SECRET}"])
def test_a_credential_in_the_llm_url_never_reaches_a_runs_job_snapshot(url: str) -> None:
    result = run_child([], call="tests.faults.scenarios:print_job_snapshots",
                       env={"COWORKENV_LLM_URL": url.replace("PORT", str(_closed_port())), "COWORKENV_LLM_MODEL": "m"}, preloaded=True)
    assert result.returncode == 0 and "capability_job" in result.stdout, result.stderr
    assert SECRET not in result.stdout
    assert "COWORKENV_LLM_URL" in result.stdout  # the variable's name stands for it, resolved when a step starts


def test_a_pipeline_run_with_a_credential_in_the_llm_url_stores_it_nowhere(tmp_path: Path) -> None:
    home, data = tmp_path / "dagster", tmp_path / "data"
    home.mkdir()
    url = f"http://admin:{SECRET}@127.0.0.1:{_closed_port()}/v1"
    result = run_child(["--only", CAPABILITY, "--no-train"], call="tests.faults.scenarios:pipeline_run",
                       env={"DAGSTER_HOME": str(home), "COWORKENV_DATA_DIR": str(data), "COWORKENV_LLM_URL": url,
                            "COWORKENV_LLM_MODEL": "m"}, preloaded=True)
    assert "Traceback" not in result.stderr, result.stderr
    assert SECRET not in result.stdout + result.stderr
    # The step asked the server (nothing listens: no spec is accepted), so it had the URL itself, not its name.
    logs = b"".join(p.read_bytes() for p in home.rglob("*.err"))
    assert b"candidate specs from openai:m" in logs, result.stdout + result.stderr
    assert _holding(home, SECRET) == [] and _holding(data, SECRET) == []


@pytest.mark.parametrize(("variable", "value", "says"), [
    ("COWORKENV_LLM_URL", f"http://admin:{SECRET}@127.0.0.1:8000/v1\udcff", "not UTF-8"),
    ("COWORKENV_HUB_REPO_ID", f"https://admin:{SECRET}@huggingface.co/datasets/org/coworkenv", "for this URL: "
                                                                                               "org/coworkenv"),
    ("COWORKENV_HUB_MODEL_REPO_ID", f"https://huggingface.co/org/pocketworker?token={SECRET}", "for this URL: "
                                                                                             "org/pocketworker"),
])
def test_a_setting_refused_never_shows_the_credential_in_its_value(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], variable: str,
        value: str, says: str) -> None:
    # The error line quoted the value whole; a Hub URL pasted for a repo id was taken, and reached the run storage.
    line = pipeline_refused(tmp_path, monkeypatch, capsys, variable, value, "--only", CAPABILITY, "--no-train")
    assert line.startswith(f"error: {variable}=") and says in line and SECRET not in line, line
