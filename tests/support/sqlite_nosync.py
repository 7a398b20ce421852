"""Test instances' SQLite storage without fsync (`PRAGMA synchronous=OFF` on every SQLAlchemy connection).

A Dagster instance's SQLite storage opens a connection per operation and commits each with fsyncs (~650 commits in
a two-capability `pipelines.run`): on this shared 2-core machine, under load, that was 15 of a run's 42 s of wall
time against 6.5 s of CPU (26 s and 2.6 s without the syncs), and a test worker waits through it. Without the
syncs SQLite still hands every write to the operating system before a commit returns, so a process killed at any
point (SIGKILL, a stop signal, a fault) leaves the database exactly as with them ("if the application running SQLite
crashes, the data will be safe": sqlite.org/pragma.html#pragma_synchronous); only a crash of the machine itself
could lose a commit, which no test makes. Installed by the processes that run pipelines for the tests (the pipeline
fork server and its children, the fault corpus's pipeline children, the test processes that import
`tests.support.pipeline_child`), every pytest process once it imports SQLAlchemy (`install_on_import`, from
tests/conftest.py: in-process Dagster instances of the smaller pipeline and fault test files) and the Dask workers of
tests/test_pipeline_distributed.py; the project itself keeps SQLite's defaults.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
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


class _InstallAfterImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `sqlalchemy` as the other finders do, and installs the listener once its package has been executed."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None,
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "sqlalchemy":
            return None
        sys.meta_path.remove(self)  # once: the real finders answer, and later imports never pass here again
        spec = next((found for finder in sys.meta_path
                     if (found := getattr(finder, "find_spec", lambda *_: None)(fullname, path, target))), None)
        if spec is None or spec.loader is None:
            return spec
        self._loader = spec.loader
        spec.loader = self
        return spec

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)  # type: ignore[attr-defined, no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__.loader = module.__loader__ = self._loader  # type: ignore[union-attr]
        self._loader.exec_module(module)  # type: ignore[attr-defined]
        install()


def install_on_import() -> None:
    """`install` now if SQLAlchemy is imported, else right after the first import of it (an import hook, so that a
    process that never imports it pays nothing: importing SQLAlchemy costs ~0.3 s of CPU)."""
    if "sqlalchemy" in sys.modules:
        install()
    elif not any(isinstance(finder, _InstallAfterImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _InstallAfterImport())
