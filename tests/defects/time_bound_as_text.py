"""A date-time bound written in another form than the values it is compared with: the checks order two strings as
text, and a world writes its date-times `2026-09-28T10:00:00Z`. The guard "nothing done before the answer came"
(a records check, count 0, of the writes with `sent_at` from the start to the answer's time) written by hand with the
month or the hour unpadded (`gte 2026-9-28T10:00:00Z`: it sorts after every `2026-09-...` value) or with both bounds
at the user's wall clock and offset (the same instants, compared as text against UTC values: another window) holds
no write at all, so the guard never fires: the agent that acts before the answer passes. The sound twin is the
shipped spec (bounds written as the world writes them). Found by the outsider's hunt
(`benchmarks/hunt_mutants.py --family d132`, kind `dt_as_text`)."""

from __future__ import annotations

import itertools
import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from coworkenv.apps import TOOLS
from tests.defects._core import CorpusError, Defect, Spec, check, play, reference, world

CLASS = "time_bound_as_text"
DETECTION = (
    "statically, at the references gate: an ordering condition (gte/gt/lte/lt) whose value starts like a date and is "
    "written in a form none of the values it meets is written in (the world's values of that field, the reference's "
    "arguments of that tool, the world's own YYYY-MM-DDTHH:MM:SSZ); reported `time_compared_as_text`"
)


def _window(spec: Spec, check_id: str) -> dict[str, Any]:
    c = check(spec, check_id)
    bounds = [w for w in c["rule"].get("where") or [] if w.get("op") in ("gte", "lt")]
    if c["rule"].get("count") != 0 or len(bounds) != 2:
        raise CorpusError(f"{spec['capability']}: {check_id} is no window guard of count 0")
    return c


def _unpadded(check_id: str):  # type: ignore[no-untyped-def]
    def edit(spec: Spec) -> None:
        lo = next(w for w in _window(spec, check_id)["rule"]["where"] if w.get("op") == "gte")
        text = re.sub(r"(?<=[-T])0(\d)", r"\1", lo["value"])
        if text == lo["value"]:
            raise CorpusError(f"{spec['capability']}: {lo['value']} has no part to unpad")
        lo["value"] = text
    return edit


def _user_offset(check_id: str):  # type: ignore[no-untyped-def]
    def edit(spec: Spec) -> None:
        zone = next(p["timezone"] for p in world(spec, "directory", "people") if p["id"] == spec["user"])
        for w in _window(spec, check_id)["rule"]["where"]:
            if w.get("op") in ("gte", "lt"):
                moment = datetime.fromisoformat(w["value"].replace("Z", "+00:00"))
                w["value"] = moment.astimezone(ZoneInfo(zone)).isoformat()
                if w["value"].endswith("+00:00"):
                    raise CorpusError(f"{spec['capability']}: the user's zone is UTC")
    return edit


def _early(check_id: str):  # type: ignore[no-untyped-def]
    """The reference with a write to the guard's app done early (moved to the start of the first turn, or to the
    end of the first turn where it belongs to a later one): the first such move the shipped spec refuses by the
    guard alone."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        app = _window(spec, check_id)["rule"]["app"]
        base = reference(spec)
        spots = [(t, k) for t, turn in enumerate(base) for k, st in enumerate(turn["steps"])
                 if st.get("call") and (tool := TOOLS.get(st["call"]["name"])) is not None
                 and tool.app == app and tool.kind == "write"]
        for (t, k), at_end in itertools.product(spots, (False, True)):
            if at_end and t == 0:
                continue
            ref = reference(spec)
            step = ref[t]["steps"].pop(k)
            ref[0]["steps"].insert(len(ref[0]["steps"]) - 1 if at_end else 0, step)
            if [c.id for c in play(spec, ref).checks if not c.passed] == [check_id]:
                return ref
        raise CorpusError(f"{spec['capability']}: no write to {app} done early fails {check_id} alone")
    return witness


_EARLY = "acts before the answer came (the write the guard's window forbids, done first of all)"


def _defect(name: str, base: str, check_id: str, edit: Any) -> Defect:
    return Defect(CLASS, name, base, _EARLY, breaks=edit(check_id), witness=_early(check_id),
                  gate="references", code="time_compared_as_text")


DEFECTS = [
    _defect("told-window-unpadded", "synth:access_request_approval@1", "told-after-answer", _unpadded),
    _defect("told-window-user-offset", "synth:access_request_approval@2", "told-after-answer", _user_offset),
    _defect("acted-window-unpadded", "synth:delegate_and_follow_up@1", "acted-after-answer", _unpadded),
    _defect("acted-window-user-offset", "synth:delegate_and_follow_up@2", "acted-after-answer", _user_offset),
    _defect("clarify-window-unpadded", "synth:clarify_ambiguous_request@1", "acted-after-answer", _unpadded),
    _defect("clarify-chat-window-user-offset", "synth:clarify_ambiguous_request@5", "acted-after-answer",
            _user_offset),
]
