"""Tolerance admits a later value: a text check reads the answer's amount as a `number` with a tolerance wide enough
to take another amount that only the CHANGED world holds. The user asks what one account's annual value (or approval
limit, or the figure a mail asks for) is; while the agent works a colleague's unsigned renegotiation draft with a
figure 2% off appears (a change the user's turn brings) or an empty draft is filled in (a dynamics rule fired by the
agent's first call rewrites it: a file updated under the agent). The writer's reply check takes any amount within
3%, and the agent that copies the draft's figure passes. The sound twin is the same check with a tolerance only
rounding needs (0.5 of a euro).

Main's gates missed every one: the admitted-number near misses (`_admitted_numbers._offered`) tried the numbers the
INITIAL world holds (and the user's turns' text), so a figure a dynamics effect or a turn's changes put or set was
never written in the expected one's place: the check was judged against the wrong moment of the world.

Caught by the same near misses (`content_unchecked`), whose offered numbers now also read what the dynamics'
effects, the log streams and the turns' changes write (every value the world holds at some moment of the episode).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.defects._core import Defect, Spec, with_say
from tests.defects.tolerance_admits_other import _ROUNDING, _amount_check, _answer

CLASS = "tolerance_admits_later"
DETECTION = (
    "for each text check with a numeric tolerance, replay the reference's reply with each number the world holds at "
    "any moment of the episode (the initial records, what the dynamics' effects, streams and the turns' changes "
    "write) that lies within the tolerance but is not the expected value; a replay that passes every check admits "
    "the wrong value"
)

_DRAFT = "notes/renegotiation-draft.md"
_OFF = 0.98  # the draft's figure: 2% below the right one, inside the writer's 3%


def _draft_text(spec: Spec) -> str:
    return (f"# Renegotiation draft (not signed)\n\nProposed figure under discussion: EUR {round(_answer(spec)[1] * _OFF):,}"
            ".\nNothing here is agreed yet.\n")


def _record(content: str) -> dict[str, Any]:
    return {"id": _DRAFT, "kind": "markdown", "content": content, "owner": "u-diego", "modified_at": "2025-12-05T08:30:00Z"}


def _later(how: str) -> Callable[[Spec], None]:
    """The draft's figure enters the world after the start: `turn`, put by the first turn's changes; `rule`, an empty
    draft of the initial world rewritten by a dynamics rule on the agent's first call (the frame allows exactly that
    rewrite: the world's own changes are changes too)."""
    def edit(spec: Spec) -> None:
        text = _draft_text(spec)
        if how == "turn":
            put = {"kind": "put_record", "app": "files", "table": "files", "record": _record(text)}
            spec["turns"][0]["changes"] = [*spec["turns"][0].get("changes", []), put]
            return
        spec["world"]["apps"]["files"]["files"].append(_record("# Renegotiation draft\n\n(to be filled in)\n"))
        first = next(s["call"] for s in spec["reference"][0]["steps"] if s.get("call"))
        spec["dynamics"]["rules"].append({
            "id": "draft-filled-in", "on": {"kind": "action", "call": {"tool": first["name"], "args": {}, "where": []}},
            "when": [], "delay_s": 0, "once": True,
            "effects": [{"kind": "update_record", "app": "files", "table": "files", "id": _DRAFT,
                         "set": {"content": text}}]})
        for c in spec["checks"]:
            if c["rule"]["kind"] == "frame":
                c["rule"]["allow"].append({"app": "files", "table": "files", "id": _DRAFT, "fields": ["content"],
                                           "where": [{"field": "content", "op": "equals", "value": text}]})
    return edit


def _stated_draft(spec: Spec) -> list[dict[str, Any]]:
    """The reply stating the draft's figure in the right one's place."""
    say, right = _answer(spec)
    return with_say(spec, say.replace(f"{right:,}", f"{round(right * _OFF):,}"))


def _then(*edits: Callable[[Spec], None]) -> Callable[[Spec], None]:
    def edit(spec: Spec) -> None:
        for e in edits:
            e(spec)
    return edit


def _case(how: str, base: str, cite: bool = False) -> Defect:
    away = ("tells the user the unsigned draft's figure, which the world holds only once it changed "
            f"({'a turn puts it' if how == 'turn' else 'a dynamics rule writes it'}): the reply check takes any "
            "amount within 3%")
    name = f"{how}-3pct-{base.split(':')[1].replace('@', '-')}"
    return Defect(CLASS, name, base, away,
                  breaks=_then(_later(how), _amount_check(lambda _: (0.03, True), cite)),
                  fix=_then(_later(how), _amount_check(lambda _: (_ROUNDING, False), cite)),
                  witness=_stated_draft, gate="mutations", code="content_unchecked")


DEFECTS = [
    _case("turn", "synth:lookup_answer_source@2"),
    _case("rule", "synth:lookup_answer_source@2"),
    _case("turn", "synth:inbox_triage_reply@14", cite=True),
    _case("rule", "synth:draft_only_reply@32", cite=True),
    _case("rule", "synth:lookup_answer_source@47"),
]
