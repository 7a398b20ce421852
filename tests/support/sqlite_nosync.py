"""Test instances' SQLite storage without fsync (`PRAGMA synchronous=OFF` on every SQLAlchemy connection).

A Dagster instance's SQLite storage opens a connection per operation and commits each with fsyncs (~650 commits in
a two-capability `pipelines.run`): on this shared 2-core machine, under load, that was 15 of a run's 42 s of wall
time against 6.5 s of CPU (26 s and 2.6 s without the syncs), and a test worker waits through it. Without the
syncs SQLite still hands every write to the operating system before a commit returns, so a process killed at any
point (SIGKILL, a stop signal, a fault) leaves the database exactly as with them ("if the application running SQLite
crashes, the data will be safe": sqlite.org/pragma.html#pragma_synchronous); only a crash of the machine itself
could lose a commit, which no test makes. Installed by the processes that run pipelines for the tests (the pipeline
fork server and its children, the fault corpus's pipeline children, the test processes that import
`tests.support.pipeline_child`), every pytest process (from tests/conftest.py: in-process Dagster instances of the
smaller pipeline and fault test files; importing SQLAlchemy costs a process ~0.3 s of CPU, and every worker imports
Dagster, hence SQLAlchemy, for its first pipeline test anyway) and the Dask workers of
tests/test_pipeline_distributed.py; the project itself keeps SQLite's defaults.
"""

from __future__ import annotations

from typing import Any


def _no_sync(dbapi_connection: Any, _record: Any) -> None:
    if type(dbapi_connection).__module__.startswith("sqlite3"):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA synchronous=OFF")
        cursor.close()


def install() -> None:
    """Every SQLite connection SQLAlchemy opens from now on in this process (and in processes forked from it)
    commits without fsync. Idempotent."""
    from sqlalchemy import event
    from sqlalchemy.pool import Pool

    if not event.contains(Pool, "connect", _no_sync):
        event.listen(Pool, "connect", _no_sync)

