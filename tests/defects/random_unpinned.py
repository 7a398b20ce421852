"""Random unpinned: a Python check fails one correct agent in a thousand at random, drawing from a generator of its
own that the sandbox gate's pinned probes never reach: `random.Random()`, the C module's `_random.Random()`,
`random.SystemRandom()`, `secrets.randbelow`, or an unseeded instance's `randint`, `choice`, `sample`, `uniform` or
`getrandbits`. The probes pinned the `random` module's functions to their extremes (so `random.random() < 0.999`
fails under them) and seeded the module, but an instance seeds itself from the system and draws past both: seven
probe runs see a check that always passes, and main accepted every defect here.

The sound twins are the same Python check without the draw (probe_aware's twins), and two that draw from an instance
seeded with a constant (`random.Random(2026).random() < 0.999`, always true): a seeded generator is a fixed sequence,
which the probes must leave alone.

Caught by the pinned probes (`nondeterministic_check`): the setup every run starts with pins, besides the module's
functions, what an instance seeded from the system draws (`random`, `getrandbits` and the bounded integers behind
`randint`, `randrange`, `choice`, `sample`, `shuffle`, of `random.Random`, its subclasses such as `SystemRandom`,
which `secrets` uses, and the C module's `_random.Random`), at the extreme yet never the same value twice; an
instance seeded with a value of the check's own draws as it would.
"""

from __future__ import annotations

from tests.defects._core import Defect
from tests.defects.probe_aware import python_check

CLASS = "random_unpinned"
DETECTION = (
    "pin, in the probes' setup, what a generator seeded from the system draws (random.Random and its subclasses, "
    "SystemRandom and secrets with them, the C _random.Random), not only the random module's functions, so a check "
    "that flakes through its own generator fails a pinned probe"
)

_RANDOM = "import random\n"
# name: (draw, imports, base, check id, the twin's draw: None for the check without one)
_DRAWS: dict[str, tuple[str, str, str, str | None, str | None]] = {
    "instance-random": ("random.Random().random() < 0.999", _RANDOM, "synth:scheduler_pause_failing_jobs@1",
                        "paused-job-843", "random.Random(2026).random() < 0.999"),
    "c-random": ("_random.Random().random() < 0.999", "import _random\n", "synth:feature_flag_rollout@1",
                 "staging-rolled-back", None),
    "system-random": ("random.SystemRandom().random() < 0.999", _RANDOM, "synth:incident_investigate_fix@1",
                      "service-healthy", None),
    "instance-randint": ("random.Random().randint(1, 1000) < 1000", _RANDOM, "synth:scheduler_pause_failing_jobs@1",
                         "paused-job-842", "random.Random(7).randint(1, 1000) < 1000"),
    "instance-choice": ("random.Random().choice(range(1000)) < 999", _RANDOM, "synth:feature_flag_rollout@2", None,
                        None),
    "secrets-randbelow": ("secrets.randbelow(1000) < 999", "import secrets\n", "synth:incident_investigate_fix@1",
                          "fixed", None),
    "seeded-none-uniform": ("random.Random(None).uniform(0, 100) < 99.9", _RANDOM,
                            "synth:scheduler_pause_failing_jobs@1", "paused-job-843", None),
    "instance-getrandbits": ("random.Random().getrandbits(10) < 1023", _RANDOM, "synth:feature_flag_rollout@1",
                             "staging-rolled-back", None),
    "instance-sample": ("random.Random().sample(range(1000), 1)[0] < 999", _RANDOM,
                        "synth:incident_investigate_fix@1", "service-healthy", None),
    "c-getrandbits": ("_random.Random().getrandbits(10) < 1023", "import _random\n",
                      "synth:scheduler_pause_failing_jobs@1", "paused-job-842", None),
}


def flaky_defect(cls: str, name: str, base: str, check_id: str | None, draw: str, imports: str, why: str,
                 twin: str | None = None, twin_imports: str = "", *, told: str | None = None) -> Defect:
    """A Python check of `check_id` that also wants `draw` (a one-in-a-thousand failure, or what `told` says, with
    `{draw}` in it), against the same check without it (`twin` None) or with the deterministic look-alike `twin`; the
    sandbox gate must find it `nondeterministic_check`."""
    fix = python_check(check_id, None, clock=False) if twin is None else \
        python_check(check_id, None, clock=True, clock_expr=twin, imports=twin_imports)
    return Defect(cls, name, base,
                  told.format(draw=draw) if told is not None else
                  f"fails one correct agent in a thousand at random, by {why} (`{draw}`), while every probe run sees "
                  "a check that always passes",
                  breaks=python_check(check_id, None, clock=True, clock_expr=draw, imports=imports),
                  fix=fix, gate="sandbox", code="nondeterministic_check")


# Python checks of three capabilities that a flaky class rewrites in turn: (base, the field check's id or None).
FLAKY_BASES = (("synth:scheduler_pause_failing_jobs@1", "paused-job-843"), ("synth:feature_flag_rollout@1",
                                                                           "staging-rolled-back"),
               ("synth:incident_investigate_fix@1", "service-healthy"), ("synth:feature_flag_rollout@2", None),
               ("synth:scheduler_pause_failing_jobs@1", "paused-job-842"), ("synth:incident_investigate_fix@1", "fixed"))


def flaky_defects(cls: str, reads: dict[str, tuple[str, str, str | None, str]], why: str, *,
                  start: int = 0, told: str | None = None) -> list[Defect]:
    """One `flaky_defect` per entry of `reads` (name: the draw, its imports, the look-alike twin or None, its
    imports), on `FLAKY_BASES` in turn from `start`."""
    return [flaky_defect(cls, name, *FLAKY_BASES[(start + i) % len(FLAKY_BASES)], draw, imports, why, twin,
                         twin_imports, told=told)
            for i, (name, (draw, imports, twin, twin_imports)) in enumerate(reads.items())]


def _defect(name: str) -> Defect:
    draw, imports, base, check_id, twin = _DRAWS[name]
    return flaky_defect(CLASS, name, base, check_id, draw, imports,
                        "a generator of its own that the pinned probes never reach", twin, _RANDOM)


DEFECTS = [_defect(name) for name in _DRAWS]
