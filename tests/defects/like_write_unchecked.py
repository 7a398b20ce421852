"""One of like writes left unchecked: the reference makes the same write on several records (pauses each failing
job, `scheduler_update_job` with `enabled: false` on `job-842` and on `job-843`), and the checks on one of those
records are left out (the writer checked "the jobs" by the first one's field, or lost a line). Dropping that write
then fails no check and nothing concerns what it changes, so the strict policy took it for incidental and trimmed it
from the reference: the spec shipped passing an agent that pauses one failing job of two (the outsider's sixth
hunt, `benchmarks/hunt_mutants.py --family d65`, `check.drop` of `paused-job-842` on scheduler_pause_failing_jobs 1:
the reference without the first pause passed). The sound twin keeps every record's check (the base). The other like
writes of today's generators (inbox_triage_reply's `mail_move`s, oncall_handoff's `tickets_update`s) were already
rejected so (`named_write_unchecked`: the folder or assignee is told; a frame naming the record)."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference, without

CLASS = "like_write_unchecked"
DETECTION = (
    "a dropped write no check notices is not incidental where the reference makes the same write (the same tool and "
    "arguments but the one naming the record, a record of the world in both) on another record and dropping that "
    "one fails a check: the task makes it on each record, so each must be checked"
)
GATE, CODE = "mutations", "like_write_unchecked"


def _first_alike(spec: Spec, tool: str, arg: str) -> str:
    """The record the first of two like `tool` writes names by `arg`."""
    found = [st["call"]["arguments"] for turn in reference(spec) for st in turn["steps"]
             if st.get("call") and st["call"]["name"] == tool]
    for i, a in enumerate(found):
        for b in found[i + 1:]:
            if set(a) == set(b) and [k for k in a if a[k] != b[k]] == [arg]:
                return str(a[arg])
    raise CorpusError(f"{spec['capability']}: no two {tool} calls differ only by {arg}")


def _names(rule: dict[str, Any], arg: str, rid: str) -> bool:
    """Whether a check's rule reads the record `rid` (a field check on it, a matcher naming it)."""
    if rule["kind"] == "field":
        return bool(rule["target"]["id"] == rid)
    matchers = [rule.get(k) for k in ("call", "first", "then")]
    return any(isinstance(m, dict) and m.get("args", {}).get(arg) == rid for m in matchers)


def _one_unchecked(tool: str, arg: str) -> Any:
    def edit(spec: Spec) -> None:
        rid = _first_alike(spec, tool, arg)
        kept = [c for c in spec["checks"] if c["role"] == "guard" or not _names(c["rule"], arg, rid)]
        if len(kept) == len(spec["checks"]):
            raise CorpusError(f"{spec['capability']}: no check reads {rid}")
        spec["checks"] = kept
    return edit


def _one_left_out(tool: str, arg: str) -> Any:
    def witness(spec: Spec) -> list[dict[str, Any]]:
        return without(spec, tool, **{arg: _first_alike(spec, tool, arg)})
    return witness


_WHAT = {"scheduler_update_job": "pauses one failing job and leaves the other running"}

DEFECTS = [
    Defect(CLASS, f"{cap}-{seed}", f"synth:{cap}@{seed}", _WHAT[tool], breaks=_one_unchecked(tool, arg),
           witness=_one_left_out(tool, arg), gate=GATE, code=CODE)
    for cap, tool, arg, seeds in (
        ("scheduler_pause_failing_jobs", "scheduler_update_job", "job_id", (1, 2, 3, 4, 5, 6, 7)),
    )
    for seed in seeds
]
