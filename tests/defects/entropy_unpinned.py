"""Entropy unpinned: a Python check fails one correct agent in a thousand at random, by randomness the sandbox gate's
probes neither pin nor seed: a generator seeded from the clock (`random.Random(time.time_ns())`, the microsecond of
`datetime.now()`, `time.monotonic()`, a clock read bound to a name first), the module re-seeded from the OS
(`random.seed(os.urandom(8))`), or a number drawn straight from the OS, a clock's sub-second digits
(`time.time_ns() % 1000`, `datetime.now().microsecond`: the clock probes move by whole days) or the process:
`os.urandom`, `uuid.uuid4()`, `uuid.uuid1()`, `secrets.token_bytes`, `time.perf_counter_ns()`, `os.getpid()`, an
address (`id(object())`) or a randomised hash (`hash(str(messages))`, `hash(object())`). The probes pin the `random`
module and the generators seeded from the system (`random_unpinned`), and a generator seeded with a value of the
check's own draws as it would (a fixed sequence); a seed from the clock or the OS is no value of the check's own, yet
it passed as one, and the other sources are no generator at all: every probe run sees a check that always passes, and
main accepted every defect here.

The sound twins are the same Python check without the draw, and deterministic look-alikes the gates must leave alone:
a generator seeded with a constant or with a value of the state (`random.Random(len(rows))`), a name-based
`uuid.uuid5`, `id()` to tell records apart (`len({id(r) for r in rows}) == len(rows)`), and the hash of an int.

Caught unrun by the sandbox gate (`nondeterministic_check`): a static reading of the check names the calls that draw
on randomness no probe controls (the OS's, a monotonic or CPU clock's, the process's, an address or a string's
randomised hash, when the value is computed with or compared) and a generator or the module seeded from a clock or
from such a draw, following names bound to them; a check that judges an agent's work has no use for either.
"""

from __future__ import annotations

from tests.defects._core import Defect
from tests.defects.random_unpinned import flaky_defect

CLASS = "entropy_unpinned"
DETECTION = (
    "read the check's code for randomness the probes neither pin nor seed: the OS's (os.urandom, uuid4, secrets' "
    "tokens), a monotonic or CPU clock's, the process's, an address or a randomised hash computed with, and a generator "
    "or the module seeded from a clock or such a draw (names bound to them followed); reject the check unrun"
)

_R, _OS, _UUID = "import random\n", "import os\n", "import uuid\n"
# name: (draw, imports, base, check id)
_DRAWS: dict[str, tuple[str, str, str, str | None]] = {
    "clock-seeded": ("random.Random(time.time_ns()).random() < 0.999", _R, "synth:scheduler_pause_failing_jobs@1",
                     "paused-job-843"),
    "microsecond-seeded": ("random.Random(datetime.now().microsecond).random() < 0.999", _R,
                           "synth:feature_flag_rollout@1", "staging-rolled-back"),
    "monotonic-seeded": ("random.Random(time.monotonic()).randint(1, 1000) < 1000", _R,
                         "synth:incident_investigate_fix@1", "service-healthy"),
    "os-reseeded-module": ("(random.seed(os.urandom(8)), random.getrandbits(10))[1] < 1023", _R + _OS,
                           "synth:scheduler_pause_failing_jobs@1", "paused-job-842"),
    "seeded-by-name": ("(t := time.time()) and random.Random(str(t)).random() < 0.999", _R,
                       "synth:feature_flag_rollout@2", None),
    "urandom": ("int.from_bytes(os.urandom(4), 'big') % 1000 < 999", _OS, "synth:incident_investigate_fix@1",
                "fixed"),
    "uuid4": ("uuid.uuid4().int % 1000 < 999", _UUID, "synth:scheduler_pause_failing_jobs@1", "paused-job-843"),
    "uuid1": ("uuid.uuid1().int % 1000 < 999", _UUID, "synth:feature_flag_rollout@1", "staging-rolled-back"),
    "token-bytes": ("secrets.token_bytes(2)[0] < 255", "import secrets\n", "synth:incident_investigate_fix@1",
                    "service-healthy"),
    "perf-counter": ("time.perf_counter_ns() % 1000 < 999", "", "synth:scheduler_pause_failing_jobs@1",
                     "paused-job-842"),
    "process-id": ("os.getpid() % 1000 < 999", _OS, "synth:feature_flag_rollout@2", None),
    "clock-digits": ("time.time_ns() % 1000 < 999", "", "synth:incident_investigate_fix@1", "service-healthy"),
    "microsecond": ("datetime.now(timezone.utc).microsecond < 999000", "", "synth:feature_flag_rollout@1",
                    "staging-rolled-back"),
    "address": ("id(object()) % 997 != 0", "", "synth:incident_investigate_fix@1", "fixed"),
    "string-hash": ("hash(str(messages)) % 1000 < 999", "", "synth:scheduler_pause_failing_jobs@1",
                    "paused-job-843"),
    "object-hash": ("hash(object()) % 997 != 0", "", "synth:feature_flag_rollout@1", "staging-rolled-back"),
}

# name: (the deterministic look-alike, imports)
_TWINS: dict[str, tuple[str, str]] = {
    "clock-seeded": ("random.Random(2026).random() < 0.999", _R),
    "monotonic-seeded": ("random.Random(len(rows)).random() < 0.999", _R),
    "uuid4": ("uuid.uuid5(uuid.NAMESPACE_DNS, 'coworkenv').int % 1000 < 999", _UUID),
    "address": ("len({id(r) for r in rows}) == len(rows)", ""),
    "object-hash": ("hash(7) % 1000 < 999", ""),
}


def _defect(name: str) -> Defect:
    draw, imports, base, check_id = _DRAWS[name]
    twin, twin_imports = _TWINS.get(name, (None, ""))
    return flaky_defect(CLASS, name, base, check_id, draw, imports,
                        "randomness the probes neither pin nor seed", twin, twin_imports)


DEFECTS = [_defect(name) for name in _DRAWS]
