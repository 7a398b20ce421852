"""`coworkenv --help`, a subcommand's `--help` (the trainers' plugin commands too) and a usage error import none of
the heavy libraries: each command imports them when it runs. On main every command, a typo included, imported the
MCP SDK, Polars, Arrow's compute kernels, the LLM client and the apps' models first (3.6 s of CPU). The time itself
is measured by benchmarks/bench_cli_start.py."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
# Libraries that take a second or more between them, and the library's own modules that build pydantic models or
# clients at import: none is needed to print help or refuse a command line.
HEAVY = ("mcp", "polars", "pyarrow", "numpy", "aiohttp", "torch", "transformers", "trl", "dagster", "uvicorn",
         "coworkenv.apps", "coworkenv.spec", "coworkenv.env", "coworkenv.llm", "coworkenv.store", "coworkenv.synth",
         "coworkenv.serve")
COMMAND_LINES = (["--help"], ["synth", "--help"], ["serve", "--help"], ["curate", "--help"], ["env", "run", "--help"],
                 ["train", "--help"], ["eval", "--help"], ["synth", "--out", "x", "--n", "abc"], ["synht"])

# Runs each command line through the `coworkenv` script's entry point in one fresh process, and prints, per command
# line, its exit code and the heavy modules imported by then.
_CHILD = """
import contextlib, io, sys, orjson
from {module} import {function}
heavy, command_lines = orjson.loads(sys.argv[1])
seen = []
for args in command_lines:
    sys.argv = ["coworkenv", *args]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            {function}()
            code = 0
        except SystemExit as exc:
            code = exc.code
    seen.append([args, code, sorted(m for m in heavy if m in sys.modules)])
print(orjson.dumps(seen).decode())
"""


def test_help_and_usage_errors_import_no_heavy_library() -> None:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        module, function = tomllib.load(handle)["project"]["scripts"]["coworkenv"].split(":")
    done = subprocess.run([sys.executable, "-c", _CHILD.format(module=module, function=function),
                           orjson.dumps([HEAVY, COMMAND_LINES]).decode()],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = orjson.loads(done.stdout)
    assert [code for _, code, _ in seen] == [0, 0, 0, 0, 0, 0, 0, 2, 2], seen
    imported = {" ".join(args): modules for args, _, modules in seen if modules}
    assert not imported, f"heavy modules imported before any command ran (command line: modules): {imported}"
