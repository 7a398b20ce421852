"""A mail the task wants drafted and then sent, its words checked on the draft saved, not on the mail sent.

A task asks the agent to prepare a reply as a draft and send it once it is right (`mail_save_draft`, then
`mail_send_draft` of that draft). The writer checks that a mail went to the customer (`folder` equals `sent`, `to`)
and checks its words on the saving call (a `called mail_save_draft` whose body holds the answer). An agent that
saves a first version with other words, then the right draft, and sends the first version passes: the customer receives the
wrong mail, and the checks see the right words in a draft nobody reads. The sound twin checks the words on the sent
message. Both are the base spec with the reference's `mail_send` made a saved draft that is then sent (an order
check on the mail reads the sending of that draft), and the frame letting drafts stay (a draft left over harms no
one).
"""

from __future__ import annotations

from typing import Any

from coworkenv.agents import OraclePolicy
from coworkenv.env import Env
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import ReferenceTurn
from tests.defects._core import CorpusError, Defect, Spec, reference
from tests.defects.draft_credited import _sent_mail_check

CLASS = "sent_draft_unchecked"
GATE, CODE = "mutations", "sent_draft_unchecked"
DETECTION = ("replay the reference with each draft it saves and sends saved a second time with other words and the "
             "second sent instead: a verifier that passes it, while the draft saved with those words alone fails a "
             "check, reads the words of the draft, not of the mail sent")
# What the second draft says instead (the recipients kept).
OTHER = {"subject": "Re: following up", "body": "Hi, a quick note: I am still looking into this one.",
         "attachments": []}
_KEPT = {"folder", "to", "cc"}


def _saved_ids(spec: Spec, ref: list[dict[str, Any]]) -> list[str]:
    """The ids of the drafts `ref` saves, in order (played once)."""
    parsed = parse_spec({**spec, "reference": ref})
    env = Env(parsed)
    run_episode(env, OraclePolicy(parsed, [ReferenceTurn.model_validate(t) for t in ref]))
    return [e.result["id"] for e in env.audit if e.tool == "mail_save_draft" and e.ok]


def _drafted_then_sent(spec: Spec) -> None:
    """The reference's mail_send made a mail_save_draft of the same message and a mail_send_draft of that draft."""
    ref = spec["reference"]
    found = [(t, s) for t, turn in enumerate(ref) for s, st in enumerate(turn["steps"])
             if st.get("call") and st["call"]["name"] == "mail_send"]
    if len(found) != 1:
        raise CorpusError(f"{spec['capability']}: {len(found)} mail_send calls")
    t, s = found[0]
    args = ref[t]["steps"][s]["call"]["arguments"]
    ref[t]["steps"][s] = {"call": {"name": "mail_save_draft", "arguments": args}}
    [draft] = _saved_ids(spec, ref)
    ref[t]["steps"].insert(s + 1, {"call": {"name": "mail_send_draft", "arguments": {"draft_id": draft}}})
    for rule in (c["rule"] for c in spec["checks"] if c["rule"]["kind"] == "order"):  # "the ticket before the reply"
        for side in ("first", "then"):
            if rule[side]["tool"] == "mail_send" and side == "then":  # written after the ticket it reports
                rule[side]["tool"] = "mail_save_draft"
            elif rule[side]["tool"] == "mail_send":  # sent before what it asks leave for
                rule[side] = {"tool": "mail_send_draft", "args": {"draft_id": draft}}
    for frame in (c for c in spec["checks"] if c["rule"]["kind"] == "frame"):  # a draft left over harms no one
        frame["rule"]["allow"].append({"app": "mail", "table": "messages", "where": [
            {"field": "folder", "op": "equals", "value": "drafts"}]})


def _words_on_the_draft(spec: Spec) -> None:
    """The sent-mail check keeps the folder and recipients; its other conditions judge the saving call."""
    _drafted_then_sent(spec)
    sent = _sent_mail_check(spec)
    words = [w for w in sent["rule"]["where"] if w["field"] not in _KEPT]
    if not words:
        raise CorpusError(f"{spec['capability']}: the sent-mail check has no condition on the words")
    sent["rule"]["where"] = [w for w in sent["rule"]["where"] if w["field"] in _KEPT]
    spec["checks"].append({
        "id": "draft-has-the-answer", "description": "the reply drafted says what the customer needs",
        "role": "completion", "weight": 1.0, "required": True, "safety": False, "pass_score": 1.0,
        "rule": {"kind": "called", "call": {"tool": "mail_save_draft", "where": words}}})


def _other_draft_sent(spec: Spec) -> list[dict[str, Any]]:
    """The reference with a first version of the draft saved before it (other words) and that version sent: the
    agent corrects the draft, then sends the old one."""
    ref = reference(spec)
    found = [(t, s) for t, turn in enumerate(ref) for s, st in enumerate(turn["steps"])
             if st.get("call") and st["call"]["name"] == "mail_save_draft"]
    if len(found) != 1:
        raise CorpusError(f"{spec['capability']}: {len(found)} mail_save_draft calls")
    t, s = found[0]
    save = ref[t]["steps"][s]["call"]
    other = {k: v for k, v in {**save["arguments"], **OTHER}.items() if k != "in_reply_to"}
    ref[t]["steps"].insert(s, {"call": {"name": "mail_save_draft", "arguments": other}})
    send = next(st["call"] for st in ref[t]["steps"][s:] if st.get("call") and st["call"]["name"] == "mail_send_draft")
    send["arguments"]["draft_id"] = _saved_ids(spec, ref)[0]
    return ref


def _defect(base: str) -> Defect:
    return Defect(CLASS, f"reply-first-version-sent-{base.replace('_', '-')}", f"synth:{base}",
                  "saves a first version of the reply with other words, then the right draft, and sends the first "
                  "version, and passes: the checks find the words in the draft saved and a mail in the sent folder, "
                  "not the words in the mail sent", breaks=_words_on_the_draft, fix=_drafted_then_sent,
                  witness=_other_draft_sent, witness_kind="cheat", gate=GATE, code=CODE)


DEFECTS = [_defect(base) for base in ("inbox_triage_reply@1", "inbox_triage_reply@2", "inbox_triage_reply@3",
                                      "mail_ticket_chat_coordination@1", "mail_ticket_chat_coordination@2",
                                      "report_from_data@1", "report_from_data@2")]
