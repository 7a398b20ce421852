"""A reply's thread admitted as "the asker's question or the asker's other mail": the check on the reply (a draft, a
sent mail) wants its `in_reply_to` in a list of two ids, both the asker's, the question the task is about and a mail
the asker sent about another matter (visitor parking, an old invoice), in a thread of its own. The author reads "any
mail from them is fine"; the agent that threads the answer under the other matter passes, and the asker finds the
answer filed under a question they did not ask. The gates (defects102) took a shared sender as a shared matter: the
list's two records share the sender, a field that tells the inbox's messages apart, so no near miss threaded the reply
to the other one. The sound twin lists the asker's second mail on the same question: their follow-up in the same
thread (it names the first), or the same question sent again in a thread of its own (the same subject)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.defects._core import Defect, Spec
from tests.defects.reply_threaded_unrelated import (
    _FOLLOW_UP,
    _cond,
    _follow_up,
    _messages,
    _other_thread,
    _wanted,
    rethreaded,
)

CLASS = "reply_threaded_other_matter"
DETECTION = (
    "an `in` list on a written id naming another record that shares with the written one only a person (the same "
    "sender: neither names the other, no subject or thread in common) is replayed: the write naming that record must "
    "fail a check"
)
_OTHER = "msg-other-matter"
_MATTERS = {
    "draft_only_reply": ("Visitor parking next week", "Could you send me the visitor parking details for my visit "
                         "next Tuesday? Separate from my other mail. Thanks."),
    "refuse_forbidden_action": ("Invoice 4471 still open", "Our accounts team says invoice 4471 from March is still "
                                "open on your side. Could you check with finance? Thanks."),
    "inbox_triage_reply": ("Team lunch on Thursday?", "Are you joining the team lunch on Thursday? We are booking "
                           "a table for twelve."),
}


def _other_matter(spec: Spec) -> None:
    """The asker's mail about another matter, a day before the question, in a thread of its own, already read."""
    wanted = _wanted(spec)
    me = next(m for m in _messages(spec) if m["id"] == wanted)
    subject, body = _MATTERS[spec["capability"]]
    at = me["sent_at"]
    day = int(at[8:10])
    earlier = at[:8] + f"{day - 1:02d}" + at[10:] if day > 1 else at
    _messages(spec).append({**me, "id": _OTHER, "thread_id": "thr-" + _OTHER, "in_reply_to": None, "read": True,
                            "sent_at": earlier, "subject": subject, "body": body})


def _either(second_mail: Callable[[Spec], None], other_matter: bool) -> Callable[[Spec], None]:
    """The edit adding the asker's other-matter mail and second mail on the question (`second_mail`), and listing
    beside the question the other-matter mail (the defect) or the second mail (the twin)."""
    def edit(spec: Spec) -> None:
        _other_matter(spec)
        second_mail(spec)
        w = _cond(spec)
        w["op"], w["value"] = "in", [w["value"], _OTHER if other_matter else _FOLLOW_UP]
    return edit


def _threaded_other_matter(spec: Spec) -> list[dict[str, Any]]:
    return rethreaded(spec, _OTHER)


_AWAY = {"draft_only_reply": "drafts the reply threaded to the asker's mail about visitor parking",
         "refuse_forbidden_action": "sends the document threaded to the asker's mail about an open invoice",
         "inbox_triage_reply": "sends the answer threaded to the asker's mail about a team lunch"}

DEFECTS = [
    Defect(CLASS, f"{cap}-{seed}", f"synth:{cap}@{seed}", _AWAY[cap], breaks=_either(_follow_up, True),
           fix=_either(_follow_up, False), witness=_threaded_other_matter, gate="mutations",
           code="loose_value_accepted")
    for cap, seeds in (("draft_only_reply", (1, 2)), ("refuse_forbidden_action", (2, 3)), ("inbox_triage_reply", (1, 2)))
    for seed in seeds
] + [  # the twin's second id is the asker's same question sent again in a thread of its own (the same subject)
    Defect(CLASS, f"{cap}-{seed}-other-thread", f"synth:{cap}@{seed}", _AWAY[cap], breaks=_either(_other_thread, True),
           fix=_either(_other_thread, False), witness=_threaded_other_matter, gate="mutations",
           code="loose_value_accepted")
    for cap, seed in (("draft_only_reply", 3), ("refuse_forbidden_action", 7))
]
