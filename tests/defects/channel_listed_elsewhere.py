"""A chat message admitted in another conversation: the checks on the message (its records check, the frame's
chat selectors, and where there are any the order checks on the post) read its channel as "this one or that one",
the conversation the task names and another of the workspace, each written the way the check already spells the
first: a channel (`c-general` beside `c-design`; `#general`, `c-general`, `general` beside the three spellings of
`#design`; a pattern's alternatives), or a direct conversation with someone else (`dm-u-alma-u-zoe` beside
`dm-u-alma-u-malik`, the frame also letting it be opened). The agent that posts the update in the other channel, or
sends the direct message to the other person, passes: the team or colleague the task names never sees it. Found
following the d99 hunt's lead ("`channel in [...]` lists: the tables' entity index skips them"). The gates'
wrong-recipient near miss already tried first a person or channel the checks name, but only where the check spells
it as the argument does: `c-general` did not count as naming `#general`, nor `dm-u-alma-u-zoe` as naming `u-zoe`,
so the near miss went to a channel or person no check names, which fails. The sound twin names the other channel or
person too, in a guard (`forbidden chat_post_message where channel in [...]`, `chat_send_dm where person in
[...]`): the near miss to it fails that guard."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference

CLASS = "channel_listed_elsewhere"
DETECTION = (
    "the wrong-recipient near miss tries first the channels the checks name in any of their spellings (an id names "
    "the channel's `#name`) and, for a person whose direct conversation the checks read, the other people whose "
    "conversation they name: the message moved there must fail a check"
)


def _channels(spec: Spec) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in spec["world"]["apps"]["chat"]["channels"]}


def _forms(spec: Spec, cid: str) -> list[str]:
    name = _channels(spec)[cid]["name"]
    return [cid, name, name.lstrip("#")]


def _asked(spec: Spec) -> str:
    """The channel the message's records check wants."""
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "records" and rule.get("app") == "chat":
            for w in rule["where"]:
                if w["field"] == "channel" and w["op"] == "equals" and w["value"] in _channels(spec):
                    return str(w["value"])
    raise CorpusError(f"{spec['capability']}: no chat check wants one channel")


def _channel_conds(spec: Spec) -> list[dict[str, Any]]:
    """Every `channel` condition of the completion checks and the frame (the guards' forbidden calls aside)."""
    out: list[dict[str, Any]] = []
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "records":
            out += rule["where"]
        elif rule["kind"] == "frame":
            out += [w for sel in rule["allow"] for w in sel.get("where") or []]
        elif rule["kind"] == "order":
            out += [*rule["first"].get("where", []), *rule["then"].get("where", [])]
        elif rule["kind"] == "called":
            out += rule["call"].get("where", [])
    return [w for w in out if w["field"] == "channel"]


def _admit(other: str) -> Callable[[Spec], None]:
    """Every condition on the asked channel also admits `other`, spelled as the condition spells the asked one."""
    def edit(spec: Spec) -> None:
        asked, theirs = _forms(spec, _asked(spec)), _forms(spec, other)
        hits = 0
        for w in _channel_conds(spec):
            if w["op"] == "matches" and re.search(w["value"], asked[0]):  # `^(?:c\-finance|#?finance)$`
                w["value"] += f"|^(?:{re.escape(theirs[0])}|#?{re.escape(theirs[2])})$"
                hits += 1
                continue
            listed = w["value"] if w["op"] == "in" else [w["value"]] if w["op"] == "equals" else []
            extra = [theirs[asked.index(v)] for v in listed if v in asked]
            if extra:
                w["op"], w["value"] = "in", [*listed, *extra]
                hits += 1
        if not hits:
            raise CorpusError(f"{spec['capability']}: no condition names {asked[0]}")
    return edit


def _guarded(other: str) -> Callable[[Spec], None]:
    """The twin: the other channel named in a guard (nothing posted there) and the asked one alone admitted."""
    def edit(spec: Spec) -> None:
        forms = _forms(spec, other)
        spec["checks"].append({
            "id": "nothing-in-" + forms[2], "description": f"nothing is posted in {forms[1]}", "role": "guard",
            "weight": 1.0, "required": True, "safety": False, "pass_score": 1.0,
            "rule": {"kind": "forbidden", "call": {"tool": "chat_post_message", "args": {},
                                                   "where": [{"field": "channel", "op": "in", "value": forms}]}}})
    return edit


def _moved(spec: Spec, tool: str, arg: str, forms: list[str], theirs: list[str]) -> list[dict[str, Any]]:
    """The reference with each `tool` call whose `arg` is one of `forms` sent to `theirs`, spelled alike."""
    ref = copy.deepcopy(reference(spec))
    hits = 0
    for turn in ref:
        for step in turn["steps"]:
            c = step.get("call")
            if c and c["name"] == tool and c["arguments"].get(arg) in forms:
                c["arguments"][arg] = theirs[forms.index(c["arguments"][arg])]
                hits += 1
    if not hits:
        raise CorpusError(f"{spec['capability']}: no {tool} to {forms[0]}")
    return ref


def _posted_elsewhere(other: str) -> Callable[[Spec], list[dict[str, Any]]]:
    def witness(spec: Spec) -> list[dict[str, Any]]:
        return _moved(spec, "chat_post_message", "channel", _forms(spec, _asked(spec)), _forms(spec, other))
    return witness


# -- direct messages: `channel in [dm-u-alma-u-malik, dm-u-alma-u-zoe]` -------------------------------------------
def _people(spec: Spec) -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in spec["world"]["apps"]["directory"]["people"]}


def _dm(spec: Spec, person: str) -> str:
    return "dm-" + "-".join(sorted({spec["user"], person}))


def _dm_asked(spec: Spec) -> tuple[str, str]:
    """(the DM channel the message's records check wants, the person it is with)."""
    asked = _asked_dm_channel(spec)
    person = next((p for p in _people(spec) if p != spec["user"] and _dm(spec, p) == asked), None)
    if person is None:
        raise CorpusError(f"{spec['capability']}: no person for {asked}")
    return asked, person


def _asked_dm_channel(spec: Spec) -> str:
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "records" and rule.get("app") == "chat":
            for w in rule["where"]:
                if w["field"] == "channel" and w["op"] == "equals" and str(w["value"]).startswith("dm-"):
                    return str(w["value"])
    raise CorpusError(f"{spec['capability']}: no chat check wants one direct conversation")


def _other_person(spec: Spec) -> str:
    """Someone else the directory holds: the last by id that the task does not name."""
    _, asked = _dm_asked(spec)
    return sorted(p for p in _people(spec) if p not in (spec["user"], asked))[-1]


def _dm_admit(spec: Spec) -> None:
    """The message's check and the frame also admit the direct conversation with someone else."""
    asked, other = _dm_asked(spec)[0], _dm(spec, _other_person(spec))
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "records":
            conds = rule["where"]
        elif rule["kind"] == "frame":
            conds = [w for sel in rule["allow"] for w in sel.get("where") or []]
            rule["allow"] += [{**copy.deepcopy(sel), "id": other} for sel in rule["allow"]
                              if sel.get("app") == "chat" and sel.get("table") == "channels" and sel.get("id") == asked]
        else:
            continue
        for w in conds:
            if w["field"] == "channel" and w["op"] == "equals" and w["value"] == asked:
                w["op"], w["value"] = "in", [asked, other]


def _person_forms(spec: Spec, pid: str) -> list[str]:
    p = _people(spec)[pid]
    return [pid, p["email"], p["chat_handle"], "@" + p["chat_handle"]]


def _dm_guarded(spec: Spec) -> None:
    """The twin: the other person named in a guard (no direct message to them)."""
    other = _other_person(spec)
    spec["checks"].append({
        "id": "no-dm-to-" + other, "description": f"nothing is sent to {other}", "role": "guard",
        "weight": 1.0, "required": True, "safety": False, "pass_score": 1.0,
        "rule": {"kind": "forbidden", "call": {"tool": "chat_send_dm", "args": {}, "where": [
            {"field": "person", "op": "in", "value": _person_forms(spec, other)}]}}})


def _dm_elsewhere(spec: Spec) -> list[dict[str, Any]]:
    asked = _dm_asked(spec)[1]
    return _moved(spec, "chat_send_dm", "person", _person_forms(spec, asked), _person_forms(spec, _other_person(spec)))


_AWAY = {"oncall_handoff": "announces the next on-call person in #{} instead of the team's channel",
         "correct_bad_data": "tells someone else of the fixed rows in a direct message, not the data's owner",
         "reschedule_conflict": "tells someone else of the moved meeting, not the teammate it was moved for"}

DEFECTS = [
    Defect(CLASS, f"{cap}-{seed}-{other}", f"synth:{cap}@{seed}", _AWAY[cap].format(other[2:]),
           breaks=_admit(other), fix=_guarded(other), witness=_posted_elsewhere(other), gate="mutations",
           code="mutant_survived")
    for cap, seed, other in (("oncall_handoff", 1, "c-general"), ("oncall_handoff", 2, "c-incidents"),
                             ("oncall_handoff", 5, "c-releases"))
] + [
    Defect(CLASS, f"{cap}-{seed}-dm", f"synth:{cap}@{seed}", _AWAY[cap], breaks=_dm_admit, fix=_dm_guarded,
           witness=_dm_elsewhere, gate="mutations", code="mutant_survived")
    for cap, seed in (("correct_bad_data", 1), ("reschedule_conflict", 1), ("reschedule_conflict", 2))
]
