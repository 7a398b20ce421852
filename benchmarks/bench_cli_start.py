"""What a `coworkenv` command pays before it does anything: the import of the command line, `--help`, a
subcommand's `--help`, a usage error, and a small real command (README: an example env run by the oracle).

Printed, for each: the median over `--rounds` runs of the wall time and of the CPU time (user + system) of a fresh
process, and for the import the cumulative microseconds `python -X importtime` gives `coworkenv.cli`. Each process
runs the entry point of the `coworkenv` script (pyproject.toml) with the code of `--root` first on its path, so two
checkouts can be compared with the same interpreter. Load on the machine shows in every figure: compare runs made
side by side.

    python benchmarks/bench_cli_start.py [--rounds 3] [--root CHECKOUT]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path

COMMANDS: dict[str, list[str]] = {
    "coworkenv --help": ["--help"],
    "coworkenv synth --help": ["synth", "--help"],
    "coworkenv synth --n abc (usage error)": ["synth", "--out", "unused", "--n", "abc"],
    "coworkenv env run incident_rollback --agent oracle --json": [
        "env", "run", "incident_rollback", "--agent", "oracle", "--json"],
}
_CUMULATIVE = re.compile(r"import time:\s+\d+ \|\s+(\d+) \| coworkenv\.cli$", re.MULTILINE)


def _entry_point(root: Path) -> str:
    """The `module:function` the installed `coworkenv` script calls."""
    with (root / "pyproject.toml").open("rb") as handle:
        return str(tomllib.load(handle)["project"]["scripts"]["coworkenv"])


def _run(root: Path, code: str, args: list[str], *, python_options: tuple[str, ...] = ()) -> tuple[float, float, str]:
    """Wall and CPU seconds of `python -c CODE ARGS` in a fresh process, and its stderr."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *python_options, "-c", code, *args], cwd=root, env=env,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1],
                        help="the checkout whose code is measured (default: this one)")
    args = parser.parse_args()
    root = args.root.resolve()
    module, function = _entry_point(root).split(":")
    script = f"import sys; sys.argv[0] = 'coworkenv'; from {module} import {function}; sys.exit({function}())"

    imports = []
    for _ in range(args.rounds):
        _, _, stderr = _run(root, "import coworkenv.cli", [], python_options=("-X", "importtime"))
        found = _CUMULATIVE.search(stderr)
        if found is None:
            sys.exit(f"no `coworkenv.cli` line in -X importtime's output:\n{stderr[-2000:]}")
        imports.append(int(found[1]) / 1e6)
    print(f"{root} ({args.rounds} rounds, medians; load {os.getloadavg()[0]:.1f})")
    print(f"{'import coworkenv.cli (-X importtime cumulative)':58s} {statistics.median(imports):6.2f} s")
    for name, command in COMMANDS.items():
        walls, cpus = [], []
        for _ in range(args.rounds):
            wall, cpu, _ = _run(root, script, command)
            walls.append(wall)
            cpus.append(cpu)
        print(f"{name:58s} {statistics.median(walls):6.2f} s wall  {statistics.median(cpus):6.2f} s CPU")


if __name__ == "__main__":
    main()
