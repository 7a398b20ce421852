"""Probe reached tell: a Python check that compares the real clock with the end of 2026 (a correct agent fails every
run from 2027 on) tells the clock probes from a real run by what the probes patch, reached by a route the static
reading did not follow: a value the moved `datetime` made held in a list, a dict, a tuple unpacked, a class attribute,
a helper's default argument or a loop's variable (`len(type(BOUNDS[0]).__mro__) != 3`, `'__slots__' in
type(WINDOW['start']).__dict__`); the patched modules looked up at run time (`sys.modules['time']`,
`__import__('time')`, `importlib.import_module('datetime')`, `globals()['time']`); the moved class found through its
base (`date.__subclasses__()`); the original class kept by the C module (`type(v) is not _datetime.datetime`, the same
by `id()`), and the real clock read through it (`_datetime.datetime.now()`, which the probes never moved). The
twentieth round read only names bound to a patched object or to a call of the moved class; main accepted every case
here.

The sound twins are the same Python check without the clock; three of them also make sure the clock answers with a
number (`type(time.time()) in (int, float)`, `isinstance(random.random(), float)`), which main rejected as
`probe_aware`: the type of a value a patched function returned (a float) tells nothing.

Caught by the sandbox gate: the static reading follows what a patched object or a value of the moved class flows into
(containers, subscripts, unpacking, defaults, loops, class attributes, helpers' returns) and the run-time lookups of
a patched module, and reads `__subclasses__` as introspection (`probe_aware`); a call of a patched function returns a
plain value, not the function. The probes move `_datetime.datetime` with `datetime.datetime`, so the C module's
class is the moved one (`clock_dependent` for its clock).
"""

from __future__ import annotations

from collections.abc import Callable

from tests.defects._core import CorpusError, Defect
from tests.defects.probe_aware import python_check, rewritten_twin

CLASS = "probe_reached_tell"
DETECTION = (
    "follow what a patched object or a value of the moved class flows into (containers, unpacking, defaults, loops, "
    "class attributes, helpers) and the run-time lookups of a patched module (sys.modules, __import__, importlib, "
    "globals()), and reject, unrun, a check that inspects any of it or calls __subclasses__; move the C module's "
    "class with the pure one; leave alone the type of a value a patched function returned"
)

_MADE = ("from datetime import datetime as _dt, date as _day\n"
         "BOUNDS = [_dt(2026, 1, 1), _dt(2027, 1, 1)]\n"
         "WINDOW = {'start': _dt(2026, 1, 1)}\n"
         "START, END = _dt(2026, 1, 1), _dt(2027, 1, 1)\n\n\n"
         "class _Window:\n    start = _dt(2026, 1, 1)\n\n\n")
_HELPER = _MADE + "def _kind(v=_dt(2026, 1, 1)):\n    return type(v)\n\n\n"
_C = "import _datetime\n" + _MADE
_S, _I, _F1, _F2 = ("synth:scheduler_pause_failing_jobs@1", "synth:incident_investigate_fix@1",
                    "synth:feature_flag_rollout@1", "synth:feature_flag_rollout@2")
# name: (tell, imports, base, check id); a tell of None reads the clock `_C_CLOCK` instead of `datetime.now`
_TELLS: dict[str, tuple[str | None, str, str, str | None]] = {
    "list-held-mro": ("len(type(BOUNDS[0]).__mro__) != 3", _MADE, _S, "paused-job-843"),
    "dict-held-class-dict": ("'__slots__' in type(WINDOW['start']).__dict__", _MADE, _I, "fixed"),
    "tuple-unpacked-mro": ("len(type(END).__mro__) != 3", _MADE, _F1, "staging-rolled-back"),
    "default-arg-mro": ("len(_kind().__mro__) != 3", _HELPER, _I, "service-healthy"),
    "class-attribute-mro": ("len(type(_Window.start).__mro__) != 3", _MADE, _S, "paused-job-842"),
    "loop-variable-mro": ("any(len(type(v).__mro__) != 3 for v in BOUNDS)", _MADE, _F2, None),
    "sys-modules": ("type(sys.modules['time'].time).__name__ == 'function'", "", _S, "paused-job-843"),
    "dunder-import": ("type(__import__('time').time).__name__ != 'builtin_function_or_method'", "", _I, "fixed"),
    "import-module": ("len(importlib.import_module('datetime').datetime.__mro__) != 3", "import importlib\n", _F1,
                      "staging-rolled-back"),
    "globals-lookup": ("type(globals()['time'].time).__name__ == 'function'", "", _I, "service-healthy"),
    "base-subclasses": ("len(_day.__subclasses__()[0].__subclasses__()) > 0", _MADE, _S, "paused-job-842"),
    "c-module-class": ("type(BOUNDS[0]) is not _datetime.datetime", _C, _F2, None),
    "c-module-id": ("id(type(WINDOW['start'])) != id(_datetime.datetime)", _C, _I, "fixed"),
    "c-module-clock": (None, "import _datetime\n", _F1, "staging-rolled-back"),
}
_C_CLOCK = "_datetime.datetime.now(timezone.utc).year < 2027"
# Sound twins that make sure the clock or the random source answers with a number: rejected by main.
_NUMBER_TESTS = {"list-held-mro": "type(time.time()) not in (int, float)",
                 "sys-modules": "not isinstance(random.random(), float)",
                 "import-module": "type(time.time_ns()) is not int"}


def _tests_number(test: str) -> Callable[[str], str]:
    """The check first making sure the clock answers with a number (`test` true where it does not)."""
    def rewrite(code: str) -> str:
        at = code.find("    rows = ")
        if at < 0:
            raise CorpusError("the Python check has no `rows = ...` line")
        return code[:at] + f"    if {test}:\n        return False\n" + code[at:]
    return rewrite


def _defect(name: str) -> Defect:
    tell, imports, base, check_id = _TELLS[name]
    clock = _C_CLOCK if tell is None else "datetime.now(timezone.utc).year < 2027"
    how = "it reads the clock the probes left alone" if tell is None else f"it tells them by `{tell}`"
    return Defect(CLASS, name, base,
                  "passes a correct agent until the end of 2026 and fails every one after (the real clock), while "
                  f"the clock probes see a check that ignores the clock: {how}",
                  breaks=python_check(check_id, tell, clock=True, imports=imports, clock_expr=clock),
                  fix=rewritten_twin(check_id, _tests_number(_NUMBER_TESTS[name]), "import random\n")
                  if name in _NUMBER_TESTS
                  else python_check(check_id, None, clock=False),
                  gate="sandbox", code="clock_dependent" if tell is None else "probe_aware")


DEFECTS = [_defect(name) for name in _TELLS]
