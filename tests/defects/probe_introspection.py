"""Probe introspection: a Python check that compares the real clock with the end of 2026 (a correct agent fails
every run from 2027 on) tells the clock probes from a real run by looking at what they patch, and answers honestly
only when probed: `time.time` is no builtin (`type(time.time)`, `inspect.isbuiltin`, a `__code__`, its `str`), the
moved `datetime` is a subclass (`len(datetime.__mro__)`, `datetime.now.__func__`, `type(datetime.now)`), or the same
through a name bound to it (`clock = time.time`). One more reads `date.today()` against `datetime.now()`: the probes
moved `date.today` twice (it reads the patched `time.time` itself, and was shifted again), so the two disagree only
when probed. probe_aware's round hid the probes' globals, line numbers, frames and class name; main accepted every
case here.

The sound twins are the same Python check without the clock (probe_aware's twins).

Caught by the sandbox gate: a check that inspects the patched modules' objects (`type`, `inspect`, a dunder
attribute, `str` of a function, `isinstance` on one) is rejected unrun (`probe_aware`: what a stand-in is cannot be
hidden); the two-clocks one by the clock probes once `date.today` moves once (`clock_dependent`).
"""

from __future__ import annotations

from tests.defects._core import Defect
from tests.defects.probe_aware import python_check

CLASS = "probe_introspection"
DETECTION = (
    "reject, unrun, a Python check that inspects the objects the probes patch (type, inspect, dunder attributes, the "
    "str of a function, also through a name bound to one); move every clock by the same offset, so that no two "
    "clocks disagree only when probed"
)

# How each defect tells a probe (a Python expression true only when probed); the imports it needs.
_TELLS: dict[str, tuple[str, str, str, str | None]] = {
    # name: (tell, imports, base, check id)
    "callable-type": ("type(time.time).__name__ != 'builtin_function_or_method'", "",
                      "synth:scheduler_pause_failing_jobs@1", "paused-job-843"),
    "code-object": ("hasattr(time.time, '__code__')", "", "synth:incident_investigate_fix@1", "fixed"),
    "isbuiltin": ("not inspect.isbuiltin(time.time)", "import inspect\n", "synth:feature_flag_rollout@1",
                  "staging-rolled-back"),
    "mro": ("len(datetime.__mro__) != 3", "", "synth:incident_investigate_fix@1", "service-healthy"),
    "classmethod-func": ("hasattr(datetime.now, '__func__')", "", "synth:scheduler_pause_failing_jobs@1",
                         "paused-job-842"),
    "bound-method-type": ("type(datetime.now).__name__ == 'method'", "", "synth:feature_flag_rollout@2", None),
    "alias": ("type(CLOCK).__name__ == 'function'", "CLOCK = time.time\n", "synth:incident_investigate_fix@1",
              "fixed"),
    "function-text": ("str(time.time).startswith('<function')", "", "synth:feature_flag_rollout@1",
                      "staging-rolled-back"),
    "function-format": ("f'{{time.time}}'.startswith('<function')", "", "synth:scheduler_pause_failing_jobs@1",
                        "paused-job-842"),
    "two-clocks-today": ("__import__('datetime').date.today() != datetime.now().date()", "",
                         "synth:scheduler_pause_failing_jobs@1", "paused-job-843"),
}


def _defect(name: str) -> Defect:
    tell, imports, base, check_id = _TELLS[name]
    behavioural = name.startswith("two-clocks")
    return Defect(CLASS, name, base,
                  "passes a correct agent until the end of 2026 and fails every one after (the real clock), while "
                  f"the clock probes see a check that ignores the clock: it tells them by `{tell}`",
                  breaks=python_check(check_id, tell, clock=True, imports=imports),
                  fix=python_check(check_id, None, clock=False),
                  gate="sandbox", code="clock_dependent" if behavioural else "probe_aware")


DEFECTS = [_defect(name) for name in _TELLS]
