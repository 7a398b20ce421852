"""A time read from the world and told, read by a class: the answer tells when each paused job last ran, when the
log line the agent traced was written, when the first error was logged (`01:39 UTC`, read off the job's `last_run`
or the log line's `ts`), and the check's pattern reads the hour by a class of its digit and the one below
(`0[01]:39`), so an answer an hour off passes beside the right one. The clock near miss of defects82 tried every
digit a class admits only for a clock naming an instant the spec states (the user's turns, the reference's answers and
writes); a clock read from the world named none, so the digit went one up only (`02:39`), which the class refuses.

The sound twins read the time as stated.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, with_say, world

CLASS = "clock_world_class_read"
DETECTION = (
    "for a clock time an answer states that names no instant the spec states, take the instants the initial world "
    "holds (a job's last run, a log line's time) and their readings in every zone of the spec; every digit a check's "
    "class or alternation admits in the clock is tried, and a clock naming none of the instants the stated one names "
    "is a wrong time: a near miss stating it that passes every check means the check reads the time loosely"
)
GATE, CODE = "mutations", "content_unchecked"
_ISO_RUN = re.compile(r"([\w-]+) \(last run (\d{4}-\d\d-\d\d)T(\d\d:\d\d):\d\dZ\)")


def _below(clock: str) -> str:
    """The clock with its hour's last digit one lower (`01:39` -> `00:39`, `10:00` -> `19:00`)."""
    return f"{clock[0]}{(int(clock[1]) - 1) % 10}{clock[2:]}"


def _classed(clock: str) -> str:
    return f"{clock[0]}[{_below(clock)[1]}{clock[1]}]{re.escape(clock[2:])}"


def _answer(spec: Spec, turn: int = 0) -> str:
    return [s["say"] for s in spec["reference"][turn]["steps"] if s.get("say")][-1]  # type: ignore[no-any-return]


def _text_check(spec: Spec, check_id: str, what: str, regex: str) -> None:
    spec["checks"].append({"id": check_id, "description": what, "role": "completion", "weight": 1.0,
                           "rule": {"kind": "text", "turn": 0, "regex": regex}})


# -- scheduler_pause_failing_jobs ("Tell me when each one last ran"): the answer's last runs in prose.
def _last_runs(read: Callable[[str], str]) -> Callable[[Spec], None]:
    """The answer's last runs as `(last ran 2026-11-15 at 01:39 UTC)`, each read by a text check with the clock as
    `read` spells it (in place of the `reply_states` checks on `last_run`)."""
    def edit(spec: Spec) -> None:
        said = _answer(spec)
        runs = [(m.group(1), m.group(2), m.group(3)) for m in _ISO_RUN.finditer(said)]
        if not runs:
            raise CorpusError(f"{spec['capability']}: the answer states no last run")
        said = _ISO_RUN.sub(r"\1 (last ran \2 at \3 UTC)", said)
        # What the answer says of the config entry (checked in the state) left out: the reply checks read the runs.
        with_say(spec, said[:said.index(" UTC).", said.rindex("(last ran")) + len(" UTC).")], 0, spec["reference"])
        spec["checks"] = [c for c in spec["checks"]
                          if not (c["rule"]["kind"] == "reply_states" and c["rule"]["source"]["field"] == "last_run")]
        for n, (job, day, clock) in enumerate(runs):
            _text_check(spec, f"reply-last-run-{n}", f"the reply says {job} last ran {day} {clock} UTC",
                        rf"{re.escape(job)}\D{{0,20}}{re.escape(day)}\D{{1,5}}{read(clock)}\b")
    return edit


def _runs_wrong(spec: Spec) -> list[dict[str, Any]]:
    """Witness: the answer with each last run's hour one lower."""
    said = _answer(spec)
    wrong = re.sub(r"(last ran \S+ at )(\d\d:\d\d)", lambda m: m.group(1) + _below(m.group(2)), said)
    return with_say(spec, wrong, 0)


# -- incident_rollback: the traced log line's time (`at 08:15:31 UTC`).
def _logged_at(read: Callable[[str], str]) -> Callable[[Spec], None]:
    def edit(spec: Spec) -> None:
        m = re.search(r"at (\d\d:\d\d)(:\d\d) UTC", _answer(spec))
        if m is None:
            raise CorpusError(f"{spec['capability']}: the answer states no log time")
        _text_check(spec, "reply-logged-at", f"the reply says when the error was logged ({m.group(1)} UTC)",
                    rf"\b{read(m.group(1))}(?:{m.group(2)})? UTC")
    return edit


def _logged_wrong(spec: Spec) -> list[dict[str, Any]]:
    said = _answer(spec)
    return with_say(spec, re.sub(r"at (\d\d:\d\d)(:\d\d UTC)", lambda m: f"at {_below(m.group(1))}{m.group(2)}", said,
                                 count=1), 0)


# -- incident_investigate_fix, asked "Tell me when the first error was logged.": the failing service's first ERROR.
def _first_error(read: Callable[[str], str]) -> Callable[[Spec], None]:
    def edit(spec: Spec) -> None:
        service = check(spec, kind="reply_states")["rule"]["source"]["id"]
        errors = sorted(line["ts"] for line in world(spec, "logs", "lines")
                        if line["service"] == service and line["level"] == "ERROR")
        if not errors:
            raise CorpusError(f"{spec['capability']}: {service} logged no error")
        clock = errors[0][11:16]
        spec["turns"][0]["content"] += " Tell me when the first error was logged."
        with_say(spec, f"{_answer(spec)} The first error was logged at {clock} UTC.", 0, spec["reference"])
        _text_check(spec, "reply-first-error", f"the reply says when the first error was logged ({clock} UTC)",
                    rf"\b{read(clock)} UTC")
    return edit


def _first_wrong(spec: Spec) -> list[dict[str, Any]]:
    said = _answer(spec)
    return with_say(spec, re.sub(r"logged at (\d\d:\d\d)", lambda m: f"logged at {_below(m.group(1))}", said), 0)


def _exact(clock: str) -> str:
    return re.escape(clock)


def _defect(name: str, base: str, what: str, edit: Callable[[Callable[[str], str]], Callable[[Spec], None]],
            witness: Any) -> Defect:
    return Defect(CLASS, name, base, what, breaks=edit(_classed), fix=edit(_exact), witness=witness, gate=GATE,
                  code=CODE)


DEFECTS = [
    *(_defect(f"last-run-class-{seed}", f"synth:scheduler_pause_failing_jobs@{seed}",
              "tells the user each paused job last ran an hour before it did (the pattern reads the hour by a class)",
              _last_runs, _runs_wrong)
      for seed in (1, 2, 3)),
    _defect("logged-at-class", "example:incident_rollback",
            "tells the user the traced error was logged an hour before it was (the pattern reads the hour by a class)",
            _logged_at, _logged_wrong),
    *(_defect(f"first-error-class-{seed}", f"synth:incident_investigate_fix@{seed}",
              "tells the user the first error was logged an hour before it was (the pattern reads the hour by a "
              "class)", _first_error, _first_wrong)
      for seed in (1, 2)),
]
