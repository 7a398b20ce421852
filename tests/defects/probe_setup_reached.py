"""Probe setup reached: a Python check that compares the real clock with the end of 2026 (a correct agent fails every
run from 2027 on) tells the clock probes from a real run by reading the probe's settings out of the run's setup, which
it reaches without importing anything the probes patch or by routes the static reading did not follow: the setup's
classes found from `object` by an attribute named at run time (`getattr(object, '__sub' + 'classes__')()`,
`operator.methodcaller('__subclasses__')`, `eval` of text made at run time), its finder on `sys.meta_path`, or the stand-ins of `random`'s generators (`random.Random.getrandbits`), whose
functions' `__globals__` hold the settings (the clock's offset is 0 in a real run only).
Main's reading flagged `__subclasses__` only in a check that imports a patched module and dunders only of a patched
object: it accepted every case here.

The sound twins are the same Python check without the clock (those of `probe_reached_tell`: no gate run of their own).

Caught by the sandbox gate: a check that names what leads to the setup (`__globals__`, `__closure__`, `__defaults__`,
`__subclasses__`, frames, `sys.meta_path`, the setup's `_cw_` names), an attribute or a namespace entry by a name
made at run time, or source text run that is not a literal, is rejected unrun (`probe_aware`).
"""

from __future__ import annotations

from tests.defects._core import Defect
from tests.defects.probe_aware import python_check

CLASS = "probe_setup_reached"
DETECTION = (
    "reject, unrun, a check that reaches for the run's setup: names __globals__, __closure__, __defaults__, "
    "__subclasses__, frames, sys.meta_path or the setup's names, reads an attribute or a namespace entry by a name "
    "made at run time, or runs source text that is not a literal"
)

# The probe's clock offset, out of a setup function's globals: 0 in a real run, the probe's seconds otherwise.
_SET = "any(v for k, v in ({}).items() if str(k).endswith('_offset'))"
_S, _I, _F1, _F2 = ("synth:scheduler_pause_failing_jobs@1", "synth:incident_investigate_fix@1",
                    "synth:feature_flag_rollout@1", "synth:feature_flag_rollout@2")
_OPERATOR = "import operator\n"
# name: (tell, imports, base, check id)
_TELLS: dict[str, tuple[str, str, str, str | None]] = {
    "subclasses-named-late": (_SET.format("[c for c in getattr(object, '__sub' + 'classes__')() "
                                          "if c.__name__.endswith('wDirEntry')][0].__init__.__globals__"),
                              "", _S, "paused-job-843"),
    "method-caller": (_SET.format("[c for c in operator.methodcaller('__subclasses__')(object) "
                                  "if c.__name__.endswith('wFinder')][0].find_spec.__globals__"),
                      _OPERATOR, _F1, "staging-rolled-back"),
    "eval-made": (_SET.format("[c for c in eval('object.__sub' + 'classes__()') "
                              "if c.__name__.endswith('wLoader')][0].__init__.__globals__"), "", _I, "service-healthy"),
    "meta-path-finder": ("any(v for f in sys.meta_path if hasattr(f, 'find_spec') for k, v in getattr(getattr("
                         "f.find_spec, '__func__', None), '__globals__', dict()).items() if str(k).endswith('_offset'))",
                         "", _S, "paused-job-842"),
    "attribute-joined": (_SET.format("getattr(random.Random.getrandbits, ''.join(['__glo', 'bals__']))"),
                         "import random\n", _I, "fixed"),
}


def _defect(name: str) -> Defect:
    tell, imports, base, check_id = _TELLS[name]
    return Defect(CLASS, name, base,
                  "passes a correct agent until the end of 2026 and fails every one after (the real clock), while "
                  f"the clock probes see a check that ignores the clock: it reads the probe's offset by `{tell}`",
                  breaks=python_check(check_id, tell, clock=True, imports=imports),
                  fix=python_check(check_id, None, clock=False),
                  gate="sandbox", code="probe_aware")


DEFECTS = [_defect(name) for name in _TELLS]
