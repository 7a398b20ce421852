"""A reply's thread admitted as "this one or an unrelated message": the check on the reply (a draft, a sent mail)
wants its `in_reply_to` in a list of two ids, the asker's message and another message of the inbox that has nothing
to do with the task (a newsletter, a colleague's out-of-office: another sender, another thread). The agent that
threads the reply to that message passes: the person asking gets a reply filed under a mail they never wrote. The
gates took an `in` list of ids as naming each on purpose. Found by the outsider's seventh hunt
(`benchmarks/hunt_mutants.py --family d99`, kind `id_in_similar`, witnessed on draft_only_reply 1-5 and
refuse_forbidden_action 2-4). The sound twin holds a genuinely fair second thread: the asker's follow-up in the same
thread (or the asker's same question sent again in a thread of its own), added to the inbox, is the list's other id."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference

CLASS = "reply_threaded_unrelated"
DETECTION = (
    "an `in` list on a written id naming another record that shares nothing with the written one (neither names the "
    "other; no value setting them apart from the rest of the table, a thread or a sender) is replayed: the write "
    "naming that record must fail a check"
)
_FOLLOW_UP = "msg-follow-up"


def _cond(spec: Spec) -> dict[str, Any]:
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "records" and rule.get("app") == "mail":
            for w in rule["where"]:
                if w["field"] == "in_reply_to" and w["op"] in ("equals", "in"):
                    return w  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: no mail check wants in_reply_to exactly")


def _wanted(spec: Spec) -> str:
    """The asker's message: the id the shipped check wants (the first of the list once made one)."""
    v = _cond(spec)["value"]
    return str(v[0] if isinstance(v, list) else v)


def _messages(spec: Spec) -> list[dict[str, Any]]:
    return spec["world"]["apps"]["mail"]["messages"]  # type: ignore[no-any-return]


def _unrelated(spec: Spec) -> str:
    """The message most like the asker's (most equal fields) from another sender in another thread."""
    wanted = _wanted(spec)
    msgs = _messages(spec)
    me = next(m for m in msgs if m["id"] == wanted)
    others = [m for m in msgs if m["sender"] != me["sender"] and m["thread_id"] != me["thread_id"]]
    if not others:
        raise CorpusError(f"{spec['capability']}: no unrelated message")
    return str(max(others, key=lambda o: (sum(o.get(f) == v for f, v in me.items() if f != "id"), o["id"]))["id"])


def _follow_up(spec: Spec) -> None:
    """The asker's follow-up in the same thread, an hour after the first message."""
    wanted = _wanted(spec)
    me = next(m for m in _messages(spec) if m["id"] == wanted)
    at = me["sent_at"]
    later = at[:11] + f"{(int(at[11:13]) + 1) % 24:02d}" + at[13:] if int(at[11:13]) < 23 else at
    _messages(spec).append({**me, "id": _FOLLOW_UP, "sent_at": later, "in_reply_to": wanted, "read": False,
                            "subject": "Re: " + me["subject"], "body": "Any news on this? Thanks."})


def _other_thread(spec: Spec) -> None:
    """The asker's second mail on the same question, in a thread of its own (sent again, not as a reply)."""
    _follow_up(spec)
    mail = _messages(spec)[-1]
    mail["thread_id"], mail["in_reply_to"], mail["subject"] = "thr-" + _FOLLOW_UP, None, mail["subject"][4:]


def _either(second_mail: Callable[[Spec], None], unrelated: bool) -> Callable[[Spec], None]:
    """The edit adding the asker's second mail (`second_mail`) and listing, beside the asker's first mail, the
    unrelated message (the defect) or that second mail (the twin)."""
    def edit(spec: Spec) -> None:
        other = _unrelated(spec) if unrelated else _FOLLOW_UP
        second_mail(spec)
        w = _cond(spec)
        w["op"], w["value"] = "in", [w["value"], other]
    return edit


def _threaded_elsewhere(spec: Spec) -> list[dict[str, Any]]:
    return rethreaded(spec, _unrelated(spec))


def rethreaded(spec: Spec, other: str) -> list[dict[str, Any]]:
    """The reference with every write replying to the asker's message replying to `other` instead."""
    wanted = _wanted(spec)
    ref = reference(spec)
    hits = 0
    for turn in ref:
        for step in turn["steps"]:
            c = step.get("call")
            if c and c["arguments"].get("in_reply_to") == wanted:
                c["arguments"]["in_reply_to"] = other
                hits += 1
    if not hits:
        raise CorpusError(f"{spec['capability']}: no write replies to {wanted}")
    return ref


_AWAY = {"draft_only_reply": "drafts the reply threaded to a newsletter in the inbox",
         "refuse_forbidden_action": "sends the document threaded to a colleague's out-of-office mail",
         "inbox_triage_reply": "sends the reply threaded to another sender's mail"}

DEFECTS = [
    Defect(CLASS, f"{cap}-{seed}", f"synth:{cap}@{seed}", _AWAY[cap], breaks=_either(_follow_up, True),
           fix=_either(_follow_up, False), witness=_threaded_elsewhere, gate="mutations", code="loose_value_accepted")
    for cap, seeds in (("draft_only_reply", (1, 2)), ("refuse_forbidden_action", (2, 3)), ("inbox_triage_reply", (1, 2)))
    for seed in seeds
] + [  # the twin's second id is the asker's same question sent again in a thread of its own: the sender is shared
    Defect(CLASS, f"{cap}-{seed}-other-thread", f"synth:{cap}@{seed}", _AWAY[cap], breaks=_either(_other_thread, True),
           fix=_either(_other_thread, False), witness=_threaded_elsewhere, gate="mutations", code="loose_value_accepted")
    for cap, seed in (("draft_only_reply", 3), ("refuse_forbidden_action", 4))
]
