"""A frame allowing whole the config version the task creates: the task changes one key of a service's config (the
setting the standard fixes, the viewers an approval grants) with `services_update_config`, which creates a new
version, and the frame allows that version whole (a frame allows a record's arrival only whole; it cannot name the
keys of its `values`). The checks want the asked key's value, so a second setting changed in the same call passes;
the sound twin guards the version's other keys (a records check on each `values.<key>`)."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls, drop_checks, reference

CLASS = "frame_config_values"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "for the last reference write passing a map of keys to values, replay it with another key of the record holding "
    "those keys changed too; a replay that still passes lets the agent change settings nobody asked about"
)


def _unguarded(spec: Spec) -> None:
    """The spec without its guards on the new versions' other keys (the frame alone stands)."""
    drop_checks(spec, lambda c: c["id"].endswith("other-config-kept"))


def _second_key_changed(spec: Spec) -> list[dict[str, Any]]:
    """The reference with its last config update also changing another key of the service's active config."""
    found = list(calls(spec, "services_update_config"))
    if not found:
        raise CorpusError(f"{spec['capability']}: the reference updates no config")
    t, s, call = found[-1]
    service = call["arguments"]["service"]
    active = next(r["config_version"] for r in spec["world"]["apps"]["services"]["services"] if r["id"] == service)
    values = next(c["values"] for c in spec["world"]["apps"]["services"]["configs"]
                  if c["service"] == service and c["version"] == active)
    key = next((k for k in sorted(values) if k not in call["arguments"]["changes"]
                and isinstance(values[k], int) and not isinstance(values[k], bool)), None)
    if key is None:
        raise CorpusError(f"{spec['capability']}: {service}'s config has no other number to change")
    ref = reference(spec)
    ref[t]["steps"][s]["call"]["arguments"]["changes"] = {**call["arguments"]["changes"], key: values[key] + 1}
    return ref


def _pair(name: str, base: str, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_unguarded, witness=_second_key_changed, gate="mutations",
                  code="harm_unguarded")


_ACCESS = "grants the viewer and, in the same config update, changes another setting of the service"
_STANDARD = "fixes the setting the standard names and, in the same config update, changes another one"

DEFECTS = [
    *(_pair(f"access-other-key-{seed}", f"synth:access_request_approval@{seed}", _ACCESS) for seed in (1, 2, 4, 6)),
    *(_pair(f"standard-other-key-{seed}", f"synth:correct_bad_data@{seed}", _STANDARD) for seed in (3, 4, 5, 7)),
]
