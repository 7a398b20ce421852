"""Suite-wide set-up: the project's bytecode is compiled once, before any test starts a child interpreter.

Hundreds of tests start a fresh `python` that imports the project (fault children, pipeline runs, CLI runs, Dask
workers). Where PYTHONDONTWRITEBYTECODE is set (as on the machines this project runs on), no interpreter writes `__pycache__`, so each
of them compiled the ~40k lines of `coworkenv`, `assets`, `pipelines` and `trainers` again (~0.7 s of CPU
each). Interpreters still read bytecode that exists, and it is checked against the source's mtime and size, so an
edited file is recompiled as usual. The test files themselves are left alone: pytest imports them once, in-process.
"""

from __future__ import annotations

import compileall
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What child interpreters import: the project, the fault-corpus child and the test support modules.
PACKAGES = ("coworkenv", "assets", "pipelines", "trainers", "tests/faults", "tests/support")


def pytest_configure(config: pytest.Config) -> None:
    for package in PACKAGES:
        compileall.compile_dir(ROOT / package, quiet=2, force=False)
