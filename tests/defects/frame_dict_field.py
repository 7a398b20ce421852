"""A frame allowing a dict field where the task changes one key of it: the task turns one feature flag of a service on
or off, and the frame allows the service's `flags`. A frame names fields, not keys, so a second flag flipped by the
same tool passes; the sound twin guards the service's other flags (a records check on each `flags.<name>`)."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls, drop_checks, record, with_call

CLASS = "frame_dict_field"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "for a reference write naming a key of a dict field of its record (a flag of a service), call the same tool on "
    "another key of that field with its value flipped; a replay that still passes lets the agent change other keys"
)


def _unguarded(spec: Spec) -> None:
    """The spec without its guards on the service's other flags (the frame alone stands)."""
    drop_checks(spec, lambda c: c["id"].endswith(("other-flags-kept", "other-flags-untouched")))


def _other_flag_flipped(spec: Spec) -> list[dict[str, Any]]:
    """The reference, then another flag of the first service whose flag it sets, flipped."""
    found = next(calls(spec, "services_set_flag"), None)
    if found is None:
        raise CorpusError(f"{spec['capability']}: the reference sets no flag")
    args = found[2]["arguments"]
    flags = record(spec, "services", "services", args["service"])["flags"]
    other = next((f for f in sorted(flags) if f != args["flag"]), None)
    if other is None:
        raise CorpusError(f"{spec['capability']}: {args['service']} has one flag")
    return with_call(spec, "services_set_flag", {"service": args["service"], "flag": other, "enabled": not flags[other]})


def _pair(name: str, base: str, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_unguarded, witness=_other_flag_flipped, gate="mutations",
                  code="harm_unguarded")


_ROLLOUT = "flips another flag of the service it rolls the flag out on: the frame allows the service's flags"
_FIX = "flips another flag of the service whose bad flag it turns off: the frame allows the service's flags"

DEFECTS = [
    _pair("rollout-other-flag", "synth:feature_flag_rollout@4", _ROLLOUT),
    _pair("rollout-other-flag-5", "synth:feature_flag_rollout@5", _ROLLOUT),
    _pair("rollout-other-flag-prod", "synth:feature_flag_rollout@6", _ROLLOUT),
    _pair("incident-other-flag", "synth:incident_investigate_fix@1", _FIX),
    _pair("incident-other-flag-2", "synth:incident_investigate_fix@2", _FIX),
    _pair("silent-change-other-flag", "synth:adapt_silent_change@4", _FIX),
]
