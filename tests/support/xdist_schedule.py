"""How `make test` spreads the suite over pytest-xdist workers: by file, the longest first, big files in chunks.

pytest-xdist's `--dist loadfile` sends each test file whole to one worker (so a module fixture, such as the vLLM
server, starts once) and hands the files out largest test count first. With two workers that was balanced (a
replay of 60370c3's JUnit report: 3,651 s against the 3,722 s pytest took); with a third worker, which fills the CPU
two leave idle, `tests/test_defects.py` (about 4,000 tests, 2,745 s of that run's 7,289) would run whole on one
worker while the others finished and waited, and a file of a few slow tests (a server, a killed pipeline) is handed
out by its count, not its time. So under `--dist loadfile` the suite uses `DurationScheduling`:

- files are ordered by their measured time (`tests/durations.json`, the seconds each file took in a recorded
  run; a file not in it counts as `DEFAULT_S`), longest first, so the long ones start early and the short ones
  fill in at the end;
- the files in `SPREAD` (many independent tests, no module- or session-scoped fixture) are cut into chunks of
  about `CHUNK_S` seconds, each chunk a unit of work of its own.

Test node ids are not touched (unlike `--dist loadgroup`, which appends `@group` to them and so breaks
`--last-failed`, which `make test` uses to rerun a failure alone). The recorded times only order the work: a stale
or missing `durations.json` costs balance, never a test. Refresh it from a run's JUnit XML:

    python -m tests.support.xdist_schedule --junit report.xml   # writes tests/durations.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DURATIONS = ROOT / "tests" / "durations.json"
# Files whose tests share nothing more expensive than a function fixture or a per-process cache: safe to spread.
SPREAD = ("tests/test_defects.py", "tests/test_sandbox.py")
CHUNK_S = 60.0
DEFAULT_S = 10.0


def load_durations(path: Path = DURATIONS) -> dict[str, float]:
    """Seconds per test file from the recorded run; an unreadable file gives no estimates (files keep their order)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = raw.get("files", {}) if isinstance(raw, dict) else {}
    return {str(k): float(v) for k, v in files.items() if isinstance(v, (int, float)) and v >= 0}


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def groups_of(nodeids: Sequence[str], durations: dict[str, float]) -> dict[str, str]:
    """The unit of work of each test: its file, or for a file in SPREAD one of its chunks of about CHUNK_S."""
    counts: dict[str, int] = {}
    for nodeid in nodeids:
        counts[_file_of(nodeid)] = counts.get(_file_of(nodeid), 0) + 1
    seen: dict[str, int] = {}
    groups = {}
    for nodeid in nodeids:
        file = _file_of(nodeid)
        if file not in SPREAD:
            groups[nodeid] = file
            continue
        n = counts[file]
        chunks = max(1, min(n, math.ceil(durations.get(file, DEFAULT_S) / CHUNK_S)))
        index = seen.get(file, 0)
        seen[file] = index + 1
        groups[nodeid] = f"{file}::chunk{index * chunks // n}"
    return groups


def order_longest_first(nodeids: Sequence[str], durations: dict[str, float]) -> list[int]:
    """Positions of the tests, units of work longest first (estimated), each unit's tests in their own order."""
    groups = groups_of(nodeids, durations)
    members: dict[str, list[int]] = {}
    for position, nodeid in enumerate(nodeids):
        members.setdefault(groups[nodeid], []).append(position)
    per_file_units: dict[str, int] = {}
    for group in members:
        per_file_units[_file_of(group)] = per_file_units.get(_file_of(group), 0) + 1

    def estimate(group: str) -> float:
        file = _file_of(group)
        return durations.get(file, DEFAULT_S) / per_file_units[file]

    ordered = sorted(members, key=lambda g: -estimate(g))  # stable: ties keep the collection's order
    return [position for group in ordered for position in members[group]]


# pytest-xdist sets a worker's own `--dist` to "no" (xdist.remote.setup_config), so a worker cannot tell from its
# options that the controller schedules by file: the controller says so in what it hands each worker.
WORKER_KEY = "coworkenv_dist"


def tell_worker(node: Any) -> None:
    """In the controller, as a worker is configured: hand it the controller's `--dist`."""
    node.workerinput[WORKER_KEY] = node.config.getvalue("dist")


def sorts_here(config: Any) -> bool:
    """Whether this process is an xdist worker under `--dist loadfile`, whose collection `make_scheduler`'s
    scheduler takes as the order of the units of work."""
    return getattr(config, "workerinput", {}).get(WORKER_KEY) == "loadfile"


def make_scheduler(config: Any, log: Any) -> Any:
    """A LoadScopeScheduling whose units are `groups_of`'s, taken in the collection's (already sorted) order."""
    from xdist.scheduler import LoadScopeScheduling

    class DurationScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def __init__(self, config: Any, log: Any) -> None:
            super().__init__(config, log)
            config.option.loadscopereorder = False  # the workers' collections are already longest first
            self._groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self._groups is None:
                self._groups = groups_of(self.collection or [], load_durations())
            return self._groups.get(nodeid, _file_of(nodeid))

    return DurationScheduling(config, log)


def _file_of_case(classname: str, root: Path) -> str | None:
    """`tests.faults.test_x.TestY` -> `tests/faults/test_x.py` (the longest dotted prefix that is a file)."""
    parts = classname.split(".")
    for end in range(len(parts), 0, -1):
        candidate = "/".join(parts[:end]) + ".py"
        if (root / candidate).is_file():
            return candidate
    return None


def durations_from_junit(reports: Iterable[Path], root: Path = ROOT) -> dict[str, float]:
    """Seconds per test file (setup, call and teardown of its tests) summed over JUnit XML reports."""
    files: dict[str, float] = {}
    for report in reports:
        for case in ET.parse(report).iter("testcase"):
            file = _file_of_case(case.get("classname", ""), root)
            if file is not None:
                files[file] = files.get(file, 0.0) + float(case.get("time", "0") or 0)
    return files


def write_durations(files: dict[str, float], path: Path = DURATIONS) -> None:
    body = {"note": "seconds per test file in a recorded `make test` run; orders the xdist workers' work (see "
                    "tests/support/xdist_schedule.py); refresh with `python -m tests.support.xdist_schedule "
                    "--junit REPORT.xml`",
            "files": {k: round(v, 1) for k, v in sorted(files.items())}}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(body, out, indent=1)
        out.write("\n")
    os.replace(tmp, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Record seconds per test file from JUnit XML reports.")
    parser.add_argument("--junit", type=Path, nargs="+", required=True, help="pytest --junitxml report(s)")
    parser.add_argument("--out", type=Path, default=DURATIONS)
    args = parser.parse_args(argv)
    try:
        files = durations_from_junit(args.junit)
    except (OSError, ET.ParseError) as exc:
        print(f"error: cannot read the JUnit report: {exc}", file=sys.stderr)
        return 2
    if not files:
        print("error: no test case in the report names a file under this checkout", file=sys.stderr)
        return 2
    write_durations(files, args.out)
    print(f"{len(files)} files, {sum(files.values()):.0f} s in all -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
