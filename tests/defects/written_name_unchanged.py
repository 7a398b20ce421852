"""A written name no near miss changed, its check moved onto another field of the same record: the check "the
paused-jobs entry lists the one job paused" (`runbook/paused-jobs value equals payments-cert-renew`) written on the
entry's `version`, which the config write bumps whatever value it writes. The near misses changed ids,
people, lists, times and numbers, never a single name a record holds (a job's name): so no near miss set the entry to
another job, and the check that reads the right record but the wrong field passed. Found by the outsider hunt
(`benchmarks/hunt_mutants.py --family d141`, kind `field_other_written`). The sound twin is the shipped spec."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, call, check, reference, world

CLASS = "written_name_unchanged"
DETECTION = (
    "for each string argument of a write that is one name a record of the world holds in a field (not an id, a person, "
    "a time, a zone or a closed value), try the write with that field of another record of the table: a near miss "
    "that passes every required check shows no check reads the written name"
)

def _moved(spec: Spec) -> None:
    """The value check moved onto the entry's `version`, at what the config write leaves there (one up)."""
    c = check(spec, "recorded")
    target, value = c["rule"]["target"], c["rule"].get("value")
    if "," in str(value):
        raise CorpusError(f"{spec['capability']}: the entry lists several jobs ({value})")
    entry = next((r for r in world(spec, "config", "entries") if r["id"] == target["id"]), None)
    if entry is None:
        raise CorpusError(f"{spec['capability']}: no config entry {target['id']!r}")
    target["field"], c["rule"]["value"] = "version", entry["version"] + 1


def _other_job(spec: Spec) -> list[dict[str, Any]]:
    """The reference with the entry set to another job's name."""
    key = check(spec, "recorded")["rule"]["target"]["id"]
    written = call(spec, "config_set", key=key)["arguments"]["value"]
    other = next(j["name"] for j in world(spec, "scheduler", "jobs") if j["name"] != written)
    ref = reference(spec)
    for turn in ref:
        for st in turn["steps"]:
            if st.get("call") and st["call"]["name"] == "config_set" and st["call"]["arguments"].get("key") == key:
                st["call"]["arguments"]["value"] = other
    return ref


def _entry(name: str, base: str) -> Defect:
    return Defect(CLASS, name, base, _AWAY, breaks=_moved, witness=_other_job, gate="mutations",
                  code="mutant_survived")


_AWAY = "records another job as paused: the check reads the entry's version, not its value"

DEFECTS = [
    _entry("paused-entry-version-8", "synth:scheduler_pause_failing_jobs@8"),
    _entry("paused-entry-version-11", "synth:scheduler_pause_failing_jobs@11"),
    _entry("paused-entry-version-12", "synth:scheduler_pause_failing_jobs@12"),
    _entry("paused-entry-version-14", "synth:scheduler_pause_failing_jobs@14"),
    _entry("paused-entry-version-15", "synth:scheduler_pause_failing_jobs@15"),
]
