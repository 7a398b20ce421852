"""A listed value read by its start: the check on a config entry that lists names ("payments-log-rotate,
payments-nightly-export", the jobs the agent paused) is written as a pattern anchored at the start only
(`^payments-log-rotate,payments-nightly-export`), so the list with one more name passes: the agent that records a
job it never paused, or pauses one more and lists it, passes (the third hunt's `rx_half_anchor` on
scheduler_pause_failing_jobs 1-5). The mutations gate tried each name left out, never one name too many."""

from __future__ import annotations

import re
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls

CLASS = "list_value_prefix"
DETECTION = (
    "a delimited list argument (names, ids, people) is also written with one more item of the same kind (another "
    "record's name): a check that passes it reads the list by its start"
)


def _listed(spec: Spec) -> dict[str, Any]:
    """The field check whose value lists names."""
    for c in spec["checks"]:
        r = c["rule"]
        if r["kind"] == "field" and r.get("op", "equals") == "equals" and isinstance(r.get("value"), str) \
                and "," in r["value"]:
            return c  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: no field check on a listed value")


def _start_only(spec: Spec) -> None:
    rule = _listed(spec)["rule"]
    rule["op"], rule["value"] = "matches", "^" + re.escape(rule["value"])


def _one_more(spec: Spec) -> list[dict[str, Any]]:
    """The reference, the list written with another job's name at its end."""
    value = _listed(spec)["rule"]["value"]
    names = [j["name"] for j in spec["world"]["apps"]["scheduler"]["jobs"] if j["name"] not in value.split(",")]
    for _, _, call in calls(spec, "config_set", value=value):
        call["arguments"]["value"] = value + "," + names[0]
        return spec["reference"]  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: no call writes the listed value")


DEFECTS = [
    Defect(CLASS, f"paused-jobs-start-only-{seed}", f"synth:scheduler_pause_failing_jobs@{seed}",
           "records a job it never paused after the right ones: the list is checked by its start",
           breaks=_start_only, witness=_one_more, gate="mutations", code="mutant_survived")
    for seed in (1, 2, 3, 4, 5)
]
