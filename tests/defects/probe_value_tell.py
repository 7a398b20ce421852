"""Probe value tell: a Python check that compares the real clock with the end of 2026 (a correct agent fails every
run from 2027 on) tells the clock probes from a real run by a value the moved `datetime` made, bound to a name of its
own, rather than by the patched objects: `type(now) is not type(start)` where `now = datetime.now()` and `start =
datetime(2026, 1, 1)` (the probes' `now()` answered with the original class, their constructor with the subclass),
`isinstance(now, type(start))`, `now.__class__`, the MRO of `type(start)`, a `__dict__` on the instance (the subclass
had one), `repr(start)` (the subclass's instances printed as `datetime(...)`, not `datetime.datetime(...)`). The
eighteenth round's static reading followed only names bound to the patched objects themselves; main accepted every
such defect.

The sound twins are the same Python check without the clock; three of them also normalise the value with
`isinstance(v, datetime)` (a date-time shown as ISO text), as a check that reads dates writes: main rejected those as
`probe_aware`, though a class test on a value the check did not get from the probes tells nothing.

Caught by the sandbox gate: the probes' moved `datetime` makes every value of its own class (`now()`, `utcnow()`,
`min`, `max`), prints it as the original does and gives it no `__dict__`, so two values' classes agree as in a real
run; a check that inspects a value the moved class made (a name bound to a call of it: `type`, `isinstance`,
`hasattr`, a dunder attribute, through another name too) is rejected unrun (`probe_aware`); `isinstance(v,
datetime)` on a value of the check's own is left alone.
"""

from __future__ import annotations

from tests.defects._core import CorpusError, Defect
from tests.defects.probe_aware import python_check, rewritten_twin

CLASS = "probe_value_tell"
DETECTION = (
    "make the probes' moved classes answer as the originals do for the values they make (one class for every "
    "value, the original's repr, no instance dict); reject, unrun, a Python check that inspects a value a patched "
    "class made (type, isinstance, hasattr, a dunder attribute, through names bound to it), and accept a class test "
    "on a value of the check's own"
)

# Values the moved class makes, bound at module level (as a check keeps its constants).
_VALUES = "from datetime import datetime as _dt\nNOW = _dt.now()\nSTART = _dt(2026, 1, 1)\n"
# name: (tell, imports, base, check id)
_TELLS: dict[str, tuple[str, str, str, str | None]] = {
    "value-types": ("type(NOW) is not type(START)", _VALUES, "synth:scheduler_pause_failing_jobs@1", "paused-job-843"),
    "value-isinstance": ("not isinstance(NOW, type(START))", _VALUES, "synth:incident_investigate_fix@1", "fixed"),
    "value-class-attr": ("NOW.__class__ is not START.__class__", _VALUES, "synth:feature_flag_rollout@1",
                         "staging-rolled-back"),
    "value-mro": ("len(type(START).__mro__) != 3", _VALUES, "synth:incident_investigate_fix@1", "service-healthy"),
    "value-instance-dict": ("hasattr(START, '__dict__')", _VALUES, "synth:scheduler_pause_failing_jobs@1",
                            "paused-job-842"),
    "value-repr": ("not repr(START).startswith('datetime.datetime(')", _VALUES, "synth:feature_flag_rollout@2", None),
    "value-format-repr": ("not f'{{START!r}}'.startswith('datetime.')", _VALUES, "synth:incident_investigate_fix@1",
                          "fixed"),
    "value-size": ("sys.getsizeof(START) > 48", _VALUES, "synth:scheduler_pause_failing_jobs@1", "paused-job-843"),
    "value-gc-tracked": ("gc.is_tracked(START)", "import gc\n" + _VALUES, "synth:incident_investigate_fix@1",
                         "fixed"),
    "value-dir": ("'__weakref__' in dir(START)", _VALUES, "synth:feature_flag_rollout@1", "staging-rolled-back"),
    "value-rebound": ("type(LATER) is not type(START)", _VALUES + "LATER = NOW\n", "synth:feature_flag_rollout@1",
                      "staging-rolled-back"),
}
# Twins that normalise the value with `isinstance(v, datetime)`: sound, rejected by main.
_NORMALISED = frozenset({"value-isinstance", "value-repr", "value-rebound"})
_NORMALISE = ("    def _plain(v):\n"
              "        return v.isoformat() if isinstance(v, datetime) else v\n\n"
              "    done = _plain(row) == _plain(")


def _normalise(code: str) -> str:
    """The check comparing the value through `isinstance(v, datetime)`."""
    at = code.find("    done = row == ")
    if at < 0:
        raise CorpusError("the Python check has no `done = row == ...` line")
    end = code.index("\n", at)
    return code[:at] + _NORMALISE + code[at + len("    done = row == "):end] + ")" + code[end:]


# Told by a repr: no name inspected, the probes' moved class prints as the original does (the clock probes catch it).
_BEHAVIOURAL = frozenset({"value-repr", "value-format-repr"})


def _defect(name: str) -> Defect:
    tell, imports, base, check_id = _TELLS[name]
    return Defect(CLASS, name, base,
                  "passes a correct agent until the end of 2026 and fails every one after (the real clock), while "
                  f"the clock probes see a check that ignores the clock: it tells them by `{tell}`",
                  breaks=python_check(check_id, tell, clock=True, imports=imports),
                  fix=rewritten_twin(check_id, _normalise) if name in _NORMALISED else python_check(check_id, None, clock=False),
                  gate="sandbox", code="clock_dependent" if name in _BEHAVIOURAL else "probe_aware")


DEFECTS = [_defect(name) for name in _TELLS]
