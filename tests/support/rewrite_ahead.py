"""pytest's assertion rewriting of the test modules, done once by the xdist controller before its workers start.

pytest rewrites each test module's `assert`s when it imports it and caches the result as a pyc next to it, except
where bytecode is not written (`PYTHONDONTWRITEBYTECODE`, as on the machines this project runs on): there every
worker rewrote all ~300 test files at collection (~5 s of CPU a worker, the same code each time), and on a fresh
clone the three workers rewrite them at once either way, since they collect at the same moment. Here the controller
writes those pycs, in pytest's own format (`_pytest.assertion.rewrite`: hash-checked, so a changed source is
rewritten again as usual), spread over the cores, before the workers start; the workers read them. The rewritten
code is the one each worker would make (same pytest, same options: the pyc pytest writes itself is reused by runs
with other options too). A pytest whose internals differ, or any error, leaves the rewriting to the workers.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

_CONFIG: Any = None  # the controller's config, read by the forked helpers


def test_modules(root: Path, patterns: Iterable[str]) -> list[Path]:
    """The files under `root` pytest rewrites when it imports them: conftest.py and those matching `patterns`."""
    found = []
    patterns = list(patterns)
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py") and (name == "conftest.py" or any(fnmatch.fnmatch(name, p) for p in patterns)):
                found.append(Path(folder) / name)
    return found


def _rewrite(paths: list[Path]) -> int:
    """Write the rewritten pyc of each of `paths` whose cached one is missing or stale; the number written."""
    from _pytest.assertion import rewrite

    state = _CONFIG.stash.get(rewrite.assertstate_key, None)  # pytest's, where it writes its pycs' traces
    if state is None:
        return 0
    written = 0
    for path in paths:
        pyc = rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)
        if rewrite._read_pyc(path, pyc) is not None:
            continue
        if not rewrite.try_makedirs(pyc.parent):
            continue
        source_hash, code = rewrite._rewrite_test(path, _CONFIG)
        if rewrite._write_pyc(state, code, source_hash, pyc):
            written += 1
    return written


def rewrite_ahead(config: Any, root: Path, processes: int) -> int:
    """Write the rewritten pycs of the test modules under `root` in up to `processes` forked processes; the number
    written, or -1 where it was left to the workers (a pytest without these internals, an error)."""
    global _CONFIG
    try:
        from _pytest.assertion import rewrite

        if not all(hasattr(rewrite, name) for name in ("get_cache_dir", "PYC_TAIL", "_read_pyc", "_rewrite_test",
                                                       "_write_pyc", "try_makedirs", "assertstate_key")):
            return -1
        if config.getoption("assertmode", "rewrite") != "rewrite":
            return -1
        paths = test_modules(root, config.getini("python_files"))
        _CONFIG = config
        if processes <= 1 or len(paths) < 2:
            return _rewrite(paths)
        import multiprocessing

        # Fork: the helpers inherit the config (no pickling); the controller has started no thread yet.
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            return sum(pool.map(_rewrite, [paths[i::processes] for i in range(processes)]))
    except Exception:  # a cache only: the workers rewrite what is missing
        return -1
    finally:
        _CONFIG = None
