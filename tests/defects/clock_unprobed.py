"""Clock unprobed: a Python check compares the real clock with the end of 2026 (a correct agent fails every run
from 2027 on), read through a clock the sandbox gate's clock probes did not move: `time.strftime("%Y")` or
`time.asctime()` of now, `time.clock_gettime(time.CLOCK_REALTIME)` or its `_ns` twin. The probes moved `time.time`,
`time_ns`, `localtime`, `gmtime`, `ctime` and `datetime.now`, so the check answered the same a day, a year and ten
years ahead and main accepted every case here. It need not even try to hide: these are ordinary ways to read the time.

The sound twins are the same Python check without the clock (probe_aware's twins).

Caught by the clock probes (`clock_dependent`): every wall clock moves together, the forms that read now without a
time given (`strftime`, `asctime`) and `clock_gettime` of the real-time clocks included.
"""

from __future__ import annotations

from tests.defects._core import Defect
from tests.defects.probe_aware import python_check

CLASS = "clock_unprobed"
DETECTION = (
    "move every wall clock the check can read in the clock probes (strftime and asctime of now, clock_gettime of the "
    "real-time clocks, besides time.time and datetime.now), so that a real-clock dependence shows whichever clock it "
    "reads"
)

_CLOCKS = {
    "strftime-year": "int(time.strftime('%Y')) < 2027",
    "strftime-date": "time.strftime('%Y-%m-%d') < '2027-01-01'",
    "asctime": "int(time.asctime().split()[-1]) < 2027",
    "clock-gettime": "datetime.fromtimestamp(time.clock_gettime(time.CLOCK_REALTIME), timezone.utc).year < 2027",
    "clock-gettime-ns": "time.clock_gettime_ns(time.CLOCK_REALTIME) < 1798761600 * 10**9",
    "clock-gettime-deadline": "time.clock_gettime(time.CLOCK_REALTIME) < 1798761600",
}
_BASES = {
    "strftime-year": ("synth:scheduler_pause_failing_jobs@1", "paused-job-843"),
    "strftime-date": ("synth:incident_investigate_fix@1", "fixed"),
    "asctime": ("synth:feature_flag_rollout@1", "staging-rolled-back"),
    "clock-gettime": ("synth:incident_investigate_fix@1", "service-healthy"),
    "clock-gettime-ns": ("synth:scheduler_pause_failing_jobs@1", "paused-job-842"),
    "clock-gettime-deadline": ("synth:feature_flag_rollout@2", None),
}


def _defect(name: str) -> Defect:
    base, check_id = _BASES[name]
    return Defect(CLASS, name, base,
                  "passes a correct agent until the end of 2026 and fails every one after, reading the real clock "
                  f"through `{_CLOCKS[name]}`, a clock the probes did not move",
                  breaks=python_check(check_id, None, clock=True, clock_expr=_CLOCKS[name]),
                  fix=python_check(check_id, None, clock=False),
                  gate="sandbox", code="clock_dependent")


DEFECTS = [_defect(name) for name in _CLOCKS]
