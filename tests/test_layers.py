"""The layers of DESIGN.md hold: the library imports no trainers, assets, pipelines or dagster; trainers use the
library but not its command line; no import circles between sibling modules (import-linter contracts in
pyproject.toml)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("coworkenv", "trainers", "assets", "pipelines")


def _lint_imports(config: Path, tree: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([exe, "--no-cache", str(config)], cwd=tree, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def test_import_contracts_hold() -> None:
    run = _lint_imports(ROOT / "pyproject.toml", ROOT)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def test_contracts_catch_a_library_import_of_the_trainers_and_a_circle(tmp_path: Path) -> None:
    # The same contracts over a copy of the tree with a forbidden import and a circle: both must be reported.
    tree = tmp_path / "tree"
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "coworkenv" / "leak.py").write_text("import trainers.sft\n")
    (tree / "coworkenv" / "ring_a.py").write_text("import coworkenv.ring_b\n")
    (tree / "coworkenv" / "ring_b.py").write_text("import coworkenv.ring_a\n")
    run = _lint_imports(ROOT / "pyproject.toml", tree)
    assert run.returncode != 0
    assert "coworkenv.leak -> trainers.sft" in run.stdout
    assert "ring_a" in run.stdout and "ring_b" in run.stdout
