"""Phrase pinned: a text check on the reply, or a `contains` condition on a message the agent writes, wants a
phrase of several words copied from the reference ("Triaged 3 tickets", "Here are the quarterly planning notes"),
which no turn, context or world record states. An agent that reports the same facts, or writes the same mail, in
its own words fails. The sound twin is the base spec (its checks want the facts, not the phrasing)."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, call, reference, with_args

CLASS = "phrase_pinned"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "a text-check term (every alternative of it) or a `contains` on a free-text field that is a phrase of three "
    "or more words no turn, context or world record states: the reference's wording, so an honest paraphrase fails"
)


def _final_say(spec: Spec, turn: int) -> str:
    says = [s["say"] for s in spec["reference"][turn]["steps"] if s.get("say")]
    if not says:
        raise CorpusError(f"{spec['capability']}: the reference says nothing in turn {turn}")
    return str(says[-1])


def _reply_copied(turn: int):  # type: ignore[no-untyped-def]
    """A text check that the turn's final reply contains the reference's reply, word for word."""

    def edit(spec: Spec) -> None:
        said = _final_say(spec, turn).rstrip(".!")
        spec["checks"].append({"id": "reply-as-written", "description": "the reply reports the work",
                               "rule": {"kind": "text", "scope": "final", "turn": turn, "all_of": [said]}})
    return edit


def _reworded(text: str) -> str:
    """The same words with a comma after the first one: the facts unchanged, the phrase broken."""
    first, _, rest = text.partition(" ")
    return f"{first}, {rest}" if rest else text


def _reply_reworded(turn: int):  # type: ignore[no-untyped-def]
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        steps = ref[turn]["steps"]
        last = max(i for i, s in enumerate(steps) if s.get("say"))
        steps[last]["say"] = _reworded(steps[last]["say"])
        return ref
    return witness


def _body_copied(tool: str, field: str):  # type: ignore[no-untyped-def]
    """A records check that the message the reference writes with `tool` contains its `field` word for word."""

    def edit(spec: Spec) -> None:
        args = call(spec, tool)["arguments"]
        text = str(args[field]).rstrip(".!")
        if len(text.split()) < 3:
            raise CorpusError(f"{spec['capability']}: the {tool} {field} is not a phrase")
        table = {"mail_send": ("mail", "messages"), "chat_send_dm": ("chat", "messages"),
                 "chat_post_message": ("chat", "messages")}[tool]
        spec["checks"].append({"id": f"{field}-as-written", "description": f"the message's {field} is right",
                               "rule": {"kind": "records", "app": table[0], "table": table[1],
                                        "where": [{"field": field, "op": "contains", "value": text}],
                                        "count_op": "gte", "count": 1}})
    return edit


def _body_reworded(tool: str, field: str):  # type: ignore[no-untyped-def]
    def witness(spec: Spec) -> list[dict[str, Any]]:
        args = call(spec, tool)["arguments"]
        return with_args(spec, tool, {field: args[field]}, **{field: _reworded(str(args[field]))})
    return witness


def _reply(name: str, base: str, turn: int, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_reply_copied(turn), witness=_reply_reworded(turn),
                  witness_kind="honest", gate="reads_state", code="wording_pinned")


def _body(name: str, base: str, tool: str, field: str, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_body_copied(tool, field), witness=_body_reworded(tool, field),
                  witness_kind="honest", gate="reads_state", code="wording_pinned")


DEFECTS = [
    _reply("triage-reply-as-written", "synth:ticket_triage_update@1", 0,
           "is failed for reporting the triage in other words than the reference's reply"),
    _reply("restock-reply-as-written", "synth:inventory_restock_policy@1", 0,
           "is failed for reporting the transfers in other words than the reference's reply"),
    _reply("namesake-done-as-written", "synth:clarify_ambiguous_request@1", 1,
           "is failed for confirming the mail to the right person in other words than the reference's reply"),
    _body("namesake-mail-body-as-written", "synth:clarify_ambiguous_request@3", "mail_send", "body",
          "is failed for writing the mail that carries the file in other words than the reference's body"),
    _body("inbox-reply-body-as-written", "synth:inbox_triage_reply@1", "mail_send", "body",
          "is failed for answering the colleague's question in other words than the reference's mail"),
]
