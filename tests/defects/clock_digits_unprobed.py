"""Clock digits unprobed: a Python check fails a correct agent at random, by a reading of the wall clock finer than a
day, which the clock probes (a day, a year, ten years ahead: whole days) leave as random as it was: the clock's text
cut past its date (`str(time.time_ns())[-3:]`, `repr(now)[-4:-1]`, `f"{time.time():.6f}"[-3:]`, the fraction after
`split('.')`, `endswith('999')`, `json.dumps` of it), a format of the time of day alone (`strftime('%f')`,
`time.strftime('%S')`, `f"{now:%H%M%S}"`), the time of day itself (`now.time()`, `now.second`, `localtime()[3:6]`,
`gmtime().tm_min`), or its fraction by arithmetic (`divmod(time.time_ns(), 1000)[1]`, `math.modf(time.time())[0]`).
The static reading of entropy_unpinned named only a clock's `microsecond` and its value taken modulo; main accepted
every defect here.

The sound twins are the same Python check without the clock, and look-alikes that read the clock down to the date
only, which the probes do move: a prefix of its text (`isoformat()[:4]`), a format of the date, the year, a date's
day (`now.date().isoformat()[-2:]`), the length of its text, `divmod`/`modf` of no clock.

Caught unrun by the sandbox gate (`nondeterministic_check`): the reading (`coworkenv/validate/_entropy_tells.py`)
follows a clock read into its text (`str`, `repr`, `format`, `isoformat`, an f-string, `%`, `.format`, `dumps`) and
flags a cut that starts past the date (or from the end), a split part after the first (but on `-` or `/`), an
`endswith`, a strftime format or f-string spec showing the time of day and no date, the time-of-day attributes and
`struct_time` fields, and `divmod`/`modf`/`fmod` or `t - int(t)` of a clock; a check judging an agent's work has no
use for the time of day to the second.
"""

from __future__ import annotations

import dataclasses

from tests.defects._core import Defect
from tests.defects.random_unpinned import flaky_defect

CLASS = "clock_digits_unprobed"
DETECTION = (
    "follow a clock read into its text, its time-of-day fields and its fraction (divmod, modf, t - int(t)), and reject "
    "unrun a reading finer than a day (a cut of its text past the date or from the end, a format of the time of day "
    "alone), which no clock probe moving by whole days reaches"
)

_BASES = (("synth:incident_investigate_fix@1", "service-healthy"), ("synth:scheduler_pause_failing_jobs@1",
                                                                    "paused-job-843"),
          ("synth:feature_flag_rollout@1", "staging-rolled-back"), ("synth:feature_flag_rollout@2", None),
          ("synth:incident_investigate_fix@1", "fixed"), ("synth:scheduler_pause_failing_jobs@1", "paused-job-842"))
# name: (the reading, imports, the look-alike reading the date only or None, its imports)
_READS: dict[str, tuple[str, str, str | None, str]] = {
    "text-tail": ("int(str(time.time_ns())[-3:]) < 999", "", "len(str(time.time_ns())) >= 19", ""),
    "repr-tail": ("repr(datetime.now())[-4:-1] != '999'", "", None, ""),
    "fixed-format-tail": ("int(f'{time.time():.6f}'[-3:]) < 999", "", None, ""),
    "strftime-micro": ("datetime.now().strftime('%f') < '999000'", "",
                       "datetime.now().strftime('%Y-%m-%d') > '2000'", ""),
    "isoformat-tail": ("int(datetime.now().isoformat(timespec='microseconds')[-6:]) < 999000", "",
                       "datetime.now().isoformat()[:4] >= '2000'", ""),
    "split-fraction": ("int(str(time.time()).split('.')[-1][:3] or 0) < 999", "",
                       "datetime.now().isoformat().split('T')[0] > '2000'", ""),
    "time-of-day": ("datetime.now().time().isoformat() != '03:33:33'", "",
                    "datetime.now().date().isoformat()[-2:] <= '31'", ""),
    "seconds-of-hour": ("datetime.now().minute * 60 + datetime.now(timezone.utc).second != 2013", "",
                        "datetime.now().year >= 2000", ""),
    "localtime-fields": ("time.localtime()[3:6] != (3, 33, 33)", "", "time.localtime()[0] >= 2000", ""),
    "strftime-seconds": ("time.strftime('%H%M%S') != '033333'", "", None, ""),
    "fstring-time": ("f'{datetime.now():%H:%M:%S}' != '03:33:33'", "", None, ""),
    "gmtime-field": ("(time.gmtime().tm_hour, time.gmtime().tm_min) != (3, 33)", "", None, ""),
    "divmod-fraction": ("divmod(time.time_ns(), 1000)[1] < 999", "", "divmod(len(rows), 1)[1] == 0", ""),
    "modf-fraction": ("math.modf(time.time())[0] < 0.999", "import math\n", "math.modf(2.5)[0] == 0.5",
                      "import math\n"),
    "endswith": ("not str(time.time_ns()).endswith('999')", "", None, ""),
    "json-tail": ("int(json.dumps(time.time_ns())[-3:]) < 999", "import json\n", None, ""),
}


def _defect(i: int, name: str) -> Defect:
    read, imports, twin, twin_imports = _READS[name]
    base, check_id = _BASES[i % len(_BASES)]
    defect = flaky_defect(CLASS, name, base, check_id, read, imports, "", twin, twin_imports)
    return dataclasses.replace(defect, gets_away_with=(
        f"fails a correct agent at random, by a reading of the clock finer than a day (`{read}`), while every clock "
        "probe, moving the clocks by whole days, sees a check that always passes"))


DEFECTS = [_defect(i, name) for i, name in enumerate(_READS)]
