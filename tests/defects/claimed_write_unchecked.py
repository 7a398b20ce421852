"""A write checked only by the reply stating its value: the state check on the record the task writes (the config
entry ops/paused-jobs holding the paused jobs' names) replaced by a text check that the reply (any text the agent
writes) states that value. Dropping the write then passes every check, so the strict policy trimmed it from the
reference as incidental and accepted the spec: the agent that only says it recorded the names passes. The sound twin
is the shipped spec (the field check on the entry). Found by the outsider's hunt (`benchmarks/hunt_mutants.py
--family d119`, kind `state_to_reply_value`)."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, without

CLASS = "claimed_write_unchecked"
DETECTION = (
    "a dropped reference write that no check concerns is not incidental where a completion text check asks the "
    "reply to state a value the write puts on a record (a text the untouched world holds nowhere, or a number): "
    "the check reads what the agent says it wrote; reported `claimed_write_unchecked`"
)


def _as_reply(spec: Spec) -> None:
    chk = check(spec, kind="field", where=lambda c: c["rule"]["target"]["table"] == "entries")
    value = chk["rule"]["value"]
    if not isinstance(value, str):
        raise CorpusError(f"{spec['capability']}: the config entry's check holds no text")
    chk["rule"] = {"kind": "text", "scope": "all", "all_of": [value]}


def _claimed(spec: Spec) -> list[dict[str, Any]]:
    return without(spec, "config_set")


def _defect(seed: int) -> Defect:
    return Defect(CLASS, f"config-entry-said-{seed}", f"synth:scheduler_pause_failing_jobs@{seed}",
                  "never writes the config entry, only says what it holds", breaks=_as_reply, witness=_claimed,
                  gate="mutations", code="claimed_write_unchecked")


DEFECTS = [_defect(1), _defect(2), _defect(3), _defect(4), _defect(5)]
