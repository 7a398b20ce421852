"""A time the world holds only once it changed, read by a class: as clock_world_class_read (the answer tells when each
paused job last ran, when the traced log line or the first error was logged, and the check reads the hour by a class
of its digit and the one below, `0[01]:39`), but the instant is not in the initial world: the jobs ran again before
the user wrote (the turn's changes set each job's `last_run`; the initial world holds an older run), or the log lines
arrive with the user's turn (its changes put them). An answer an hour off passes beside the right one.

Main's gates missed every one: the clock near miss falls back, for a clock naming no instant the spec states, to the
instants the INITIAL world holds (`_clock_readings.same_clocks`); this one named none of those either, so the digit
went one up only, which the class refuses. Now the fallback reads the instants the world holds at any moment
(`entities.held_leaves`: what the dynamics and the turns' changes write too). The sound twins read the time as stated.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from tests.defects._core import Defect, Spec
from tests.defects.clock_world_class_read import (
    CODE,
    GATE,
    _classed,
    _exact,
    _first_error,
    _first_wrong,
    _last_runs,
    _runs_wrong,
)

CLASS = "clock_later_class_read"
DETECTION = (
    "for a clock time an answer states that names no instant the spec states, take the instants the world holds at "
    "any moment (the initial records and what the dynamics and the turns' changes write) and their readings in the "
    "spec's zones; every digit a check's class admits in the clock is tried, and a clock naming none of the instants "
    "the stated one names is a wrong time: a near miss stating it that passes every check reads the time loosely"
)
_EARLIER = timedelta(days=1, hours=7, minutes=13)  # the older run the initial world holds


def _later_runs(spec: Spec) -> None:
    """Each job's `last_run` as the user's turn finds it (its changes set it); the initial world holds an older run."""
    for job in spec["world"]["apps"]["scheduler"]["jobs"]:
        if job.get("last_run"):
            older = datetime.fromisoformat(job["last_run"].replace("Z", "+00:00")) - _EARLIER
            spec["turns"][0]["changes"].append({"kind": "update_record", "app": "scheduler", "table": "jobs",
                                                "id": job["id"], "set": {"last_run": job["last_run"]}})
            job["last_run"] = older.strftime("%Y-%m-%dT%H:%M:%SZ")


def _later_lines(spec: Spec) -> None:
    """The log lines arrive with the user's turn (its changes put them); the initial world holds none."""
    lines = spec["world"]["apps"]["logs"]["lines"]
    spec["turns"][0]["changes"] += [{"kind": "put_record", "app": "logs", "table": "lines", "record": line}
                                    for line in lines]
    spec["world"]["apps"]["logs"]["lines"] = []


def _then(later: Callable[[Spec], None], edit: Callable[[Callable[[str], str]], Callable[[Spec], None]],
          read: Callable[[str], str]) -> Callable[[Spec], None]:
    def both(spec: Spec) -> None:
        edit(read)(spec)  # on the world as the turn finds it (the edits read the answer and the lines)
        later(spec)
    return both


def _defect(name: str, base: str, what: str, later: Callable[[Spec], None],
            edit: Callable[[Callable[[str], str]], Callable[[Spec], None]], witness: object) -> Defect:
    return Defect(CLASS, name, base, what, breaks=_then(later, edit, _classed), fix=_then(later, edit, _exact),
                  witness=witness, gate=GATE, code=CODE)  # type: ignore[arg-type]


DEFECTS = [
    *(_defect(f"last-run-later-{seed}", f"synth:scheduler_pause_failing_jobs@{seed}",
              "tells the user each paused job last ran an hour before it did, a run the turn's changes set (the "
              "pattern reads the hour by a class)", _later_runs, _last_runs, _runs_wrong)
      for seed in (1, 2, 3, 4)),
    *(_defect(f"first-error-later-{seed}", f"synth:incident_investigate_fix@{seed}",
              "tells the user the first error was logged an hour before it was, a line the turn's changes put (the "
              "pattern reads the hour by a class)", _later_lines, _first_error, _first_wrong)
      for seed in (2,)),
]
