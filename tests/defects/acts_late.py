"""A turn's result the world puts back between the turns, checked only on the final state: adapt_silent_change's
reconciler rolls the bad release (or the flag) out again before the user's second turn, incident_rollback's deploy bot
re-applies the bad config, and the user asks to fix it again. The state checks read the final state, where the second
fix hides the first; the writer drops the check that the fix was made in each turn (`called` twice) as redundant with
the final release check, or wants the call once. An agent that only says it fixed the problem in the first turn and
does the work once, after the user came back, passes. The sound twin is the spec as generated (the fix wanted twice)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coworkenv.validate.mutations import is_write
from tests.defects._core import CorpusError, Defect, Spec, check, reference

CLASS = "acts_late"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "where a later turn's changes set a field of a record an earlier turn's write names to another value than that "
    "turn left it (the world undoes the turn), replay the reference with that turn's writes made once at the start "
    "of the later turn; if it still passes, the earlier turn's result is unchecked"
)


def _late(spec: Spec) -> list[dict[str, Any]]:
    """The reference with turn 0's writes left out of turn 0 (its reply kept) and made first in turn 1, where turn
    1's own writes that repeat one (same tool, same arguments) are left out: the fix done once, a turn late."""
    ref = reference(spec)
    first, second = ref[0]["steps"], ref[1]["steps"]
    moved = [s for s in first if s.get("call") and is_write(s["call"]["name"])]
    if not moved:
        raise CorpusError(f"{spec['capability']}: the first turn writes nothing")
    same = [(s["call"]["name"], s["call"]["arguments"]) for s in moved]
    ref[0]["steps"] = [s for s in first if s not in moved]
    ref[1]["steps"] = moved + [s for s in second if not (s.get("call") and is_write(s["call"]["name"])
                                                          and (s["call"]["name"], s["call"]["arguments"]) in same)]
    return ref


def _dropped(check_id: str) -> Callable[[Spec], None]:
    def edit(spec: Spec) -> None:
        spec["checks"].remove(check(spec, check_id))
    return edit


def _once(check_id: str) -> Callable[[Spec], None]:
    def edit(spec: Spec) -> None:
        rule = check(spec, check_id)["rule"]
        if rule.get("min_times", 1) < 2:
            raise CorpusError(f"{spec['capability']}: {check_id} already wants one call")
        rule["min_times"] = 1
    return edit


def _defect(name: str, base: str, away: str, breaks: Callable[[Spec], None]) -> Defect:
    return Defect(CLASS, name, base, away, breaks=breaks, witness=_late, witness_kind="cheat",
                  gate="mutations", code="acts_late")


_RELEASE = ("says it fixed the service in the first turn without redeploying, and redeploys the good release once, "
            "after the user reports the problem back")
_FLAG = "says it fixed the service in the first turn without touching the flag, and flips it once in the second"
_CONFIG = "says it rolled the config back in the first turn, and rolls it back once, in the second"

DEFECTS = [
    _defect("release-fixed-once", "synth:adapt_silent_change@1", _RELEASE, _dropped("fixed-twice")),
    _defect("release-fixed-once-2", "synth:adapt_silent_change@2", _RELEASE, _dropped("fixed-twice")),
    _defect("release-called-once-3", "synth:adapt_silent_change@3", _RELEASE, _once("fixed-twice")),
    _defect("release-called-once-5", "synth:adapt_silent_change@5", _RELEASE, _once("fixed-twice")),
    _defect("flag-fixed-once-4", "synth:adapt_silent_change@4", _FLAG, _dropped("fixed-twice")),
    _defect("config-rolled-back-once", "example:incident_rollback", _CONFIG, _dropped("regression-fixed")),
    _defect("config-called-once", "example:incident_rollback", _CONFIG, _once("regression-fixed")),
]
