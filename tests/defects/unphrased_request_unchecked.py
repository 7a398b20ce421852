"""Unphrased requests unchecked: someone asks for a fact in words no list of question phrases holds ("Need the
renewal date of the Ibis Homes contract before my call.", "Reply with the escalation code for Bison Hotels when you
can.", "Find the answer and get back to me with it and the file it came from."), and the check on the answer reads
only what was asked about or the source, not the answer: a wrong answer passes.

Two ways in: a colleague asks in their DM or by mail and the task answers with a message outside the request's thread
(a DM, a new mail or draft: no `in_reply_to`); or the user asks the agent to be told the answer and only the final
reply states it, checked by the source it names or not at all. Before defects122 the gates read a request as one only
when it held a question mark or one of the phrases of `_answered_questions._QUESTION` ("let me know", "could you
send", "tell me", "I need"), and a reply as asked for only when a check read it or the request held one of
`_mutation_core._ASKS`'s ("tell me", "report back"), so these requests got no "without its facts" near miss, and a
reply no check reads, no "no answer" one.

Since defects127 also: a channel request from someone the user's turns name only by role ("the on-call engineer",
"someone from another team"), a request put in the channel (or the DM) by a later turn's changes, and a DM's request
answered by mail. Until then a channel's message counted only where it read as a question or came from a person the
turns name and was in the world from the start, a mail's requests were only its recipients' mails, and a DM's were
read from the world's table as the last episode played had left it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Edit, Spec, call
from tests.defects.told_answer_unchecked import _checked, _told
from tests.defects.told_answer_unchecked import _wrong as _wrong_told
from tests.defects.unmarked_question_unchecked import _case as _unmarked_case
from tests.defects.unmarked_question_unchecked import _unmarked
from tests.defects.unthreaded_answer_unchecked import (
    _ABOUT,
    _in_channel,
    _message,
    _question_words,
    _unthreaded,
    _wrong_answer,
)

CLASS = "unphrased_request_unchecked"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "take a message of the recipient in the conversation an answer goes to (a DM, a mail), and a turn whose reply a "
    "check reads, as the request whatever its wording: the answer or the reply without its facts must fail a check"
)


def _colleague(name: str, base: str, request: str, mail: bool) -> Defect:
    """The colleague's question restated as `request` (`{}` for what is asked), no question mark, no phrase of a
    question; the check on the answering message reads only what was asked about."""
    made = _unmarked_case(name, base, request, mail)
    return Defect(CLASS, name, base,
                  "answers a colleague's request for a fact, worded as no question is, with a wrong answer outside the "
                  "request's thread: the message check reads only what was asked about",
                  breaks=made.breaks, fix=made.fix, witness=made.witness, gate="mutations", code="content_unchecked")


def _asked_as(words: str) -> Callable[[Edit], Edit]:
    """An edit of the told answer's spec whose turn asks for the answer in `words` instead of "tell me"."""
    def wrap(edit: Edit) -> Edit:
        def reworded(spec: Spec) -> None:
            edit(spec)
            turn = spec["turns"][0]
            asked, n = re.subn(r"Find the answer .*?\. ", f"Find the answer in our documents (the current ones) and "
                               f"{words}. ", turn["content"], count=1)
            if not n:
                raise CorpusError(f"{spec['capability']}: the turn asks for the answer otherwise: {turn['content']!r}")
            turn["content"] = asked
        return reworded
    return wrap


def _user(name: str, seed: int, words: str) -> Defect:
    """The user asks to be told the answer in `words`; only the source is checked (told_answer_unchecked's edit)."""
    asked = _asked_as(words)
    return Defect(CLASS, name, f"synth:lookup_answer_source@{seed}",
                  "tells the user a wrong answer they asked for in words no question phrase holds: the check on the "
                  "answer reads only the source file", breaks=asked(_told), fix=asked(_checked), witness=_wrong_told,
                  gate="mutations", code="content_unchecked")


def _told_unread(spec: Spec) -> None:
    """The told answer with no check on the reply at all: only that the current document was read."""
    _told(spec)
    spec["checks"] = [c for c in spec["checks"] if c["rule"]["kind"] != "reply_states"]


def _user_unread(name: str, seed: int, words: str) -> Defect:
    """The user asks to be told the answer in `words`; no check reads the reply (the gates took it for no content)."""
    asked = _asked_as(words)
    return Defect(CLASS, name, f"synth:lookup_answer_source@{seed}",
                  "tells the user a wrong answer (or none) they asked for in words no request phrase holds: no check "
                  "reads the reply, only that the source was read", breaks=asked(_told_unread), fix=asked(_checked),
                  witness=_wrong_told, gate="mutations", code="content_unchecked")


def _channel(name: str, seed: int, request: str) -> Defect:
    """The colleague's question asked in a team channel as the request `request` (`{}` for what is asked: no
    question mark, no phrase of a question), answered there by a post; the turn names the colleague ("Keiko asked me
    about a production setting"). The post check reads only what was asked about (defects126: a channel's request
    had to read as a question, `_QUESTION`)."""
    def fix(spec: Spec) -> None:
        _in_channel(spec)
        _unmarked(request)(spec)

    def breaks(spec: Spec) -> None:
        fix(spec)
        _question_words(spec)
    return Defect(CLASS, name, f"synth:lookup_answer_source@{seed}",
                  "posts a wrong answer to a colleague's request for a fact, worded as no question is, in the team "
                  "channel it was made in: the post check reads only what was asked about",
                  breaks=breaks, fix=fix, witness=_wrong_answer, gate="mutations", code="content_unchecked")


DEFECTS = [
    _colleague("dm-need-1", "synth:lookup_answer_source@1", "Need {} before my call.", mail=False),
    _colleague("new-mail-reply-with-1", "synth:inbox_triage_reply@1", "Reply with {} when you can.", mail=True),
    _colleague("new-mail-looking-for-2", "synth:inbox_triage_reply@2", "Looking for {}, for the renewal.", mail=True),
    _colleague("new-draft-after-2", "synth:draft_only_reply@2", "I am after {}.", mail=True),
    _user("told-reply-here-4", 4, "reply here with the answer and the file it came from"),
    _user("told-get-back-10", 10, "get back to me with it and the file it came from"),
    _user("told-in-your-reply-8", 8, "put the answer in your reply, with the file it came from"),
    _user_unread("told-unread-reply-here-5", 5, "reply here with the answer and the file it came from"),
    _channel("post-somebody-post-3", 3, "Somebody post {} here when you can."),
    _channel("post-need-1", 1, "Need {} before the release."),
    _channel("post-after-9", 9, "I am after {}."),
    _user_unread("told-unread-in-your-reply-10", 10, "put the answer in your reply, with the file it came from"),
]



def _request(spec: Spec) -> dict[str, Any]:
    """The one message of the conversation the reference's chat message goes to (a team channel, the DM) that states
    what the message answers about."""
    chat = spec["world"]["apps"]["chat"]
    try:
        sent = call(spec, "chat_post_message")["arguments"]
        channels = {c["id"] for c in chat["channels"] if sent["channel"] in (c["id"], c["name"])}
        text = sent["text"]
    except CorpusError:
        text = call(spec, "chat_send_dm")["arguments"]["text"]
        channels = {c["id"] for c in chat["channels"] if c["id"].startswith("dm-")}
    about = next((m.group(1) for p in _ABOUT if (m := p.search(text))), None)
    found = [m for m in chat["messages"] if m["channel"] in channels and about is not None and about in m["text"]]
    if len(found) != 1:
        raise CorpusError(f"{spec['capability']}: no one message of {sorted(channels)} asks about {about!r}")
    return found[0]  # type: ignore[no-any-return]


def _unnamed(role: str) -> Edit:
    """The turns name the request's sender by `role` ("the on-call engineer") where they named them (a full name, a
    first name): the sender is named nowhere in the user's turns (defects127: only a named sender's channel message
    counted)."""
    def edit(spec: Spec) -> None:
        sender = _request(spec)["sender"]
        person = next(p for p in spec["world"]["apps"]["directory"]["people"] if p["id"] == sender)
        names = rf"\b(?:{re.escape(person['name'])}|{re.escape(person['name'].split()[0])})\b"
        for turn in spec["turns"]:
            said = turn["content"]
            said = re.sub(rf"(^|[.!?]\s+){names}", lambda m: m.group(1) + role[0].upper() + role[1:], said)
            turn["content"] = re.sub(names, role, said)
        if not any(role[1:] in t["content"] for t in spec["turns"]):
            raise CorpusError(f"{spec['capability']}: the turns do not name {person['name']}")
    return edit


def _channel_unnamed(name: str, seed: int, request: str, role: str) -> Defect:
    """`_channel`'s request, the turns naming its sender by `role` only (`_unnamed`)."""
    def fix(spec: Spec) -> None:
        _in_channel(spec)
        _unmarked(request)(spec)
        _unnamed(role)(spec)

    def breaks(spec: Spec) -> None:
        fix(spec)
        _question_words(spec)
    return Defect(CLASS, name, f"synth:lookup_answer_source@{seed}",
                  "posts a wrong answer to a request for a fact, worded as no question is, in the team channel it was "
                  "made in by someone the user names only by role: the post check reads only what was asked about",
                  breaks=breaks, fix=fix, witness=_wrong_answer, gate="mutations", code="content_unchecked")


def _arrives_later(spec: Spec) -> None:
    """The colleague's request comes during the episode: a first turn asks only for a service's status (answered by
    a reply), and the request is put in the channel by the second turn's changes; the second turn asks what the
    first asked, and the checks of the first turn move to the second (defects127: only a channel message in the world
    from the start counted)."""
    request = _request(spec)
    spec["world"]["apps"]["chat"]["messages"].remove(request)
    service = spec["world"]["apps"]["services"]["services"][0]
    status = {"content": f"Morning. Is {service['id']} up right now? Just the status, please.",
              "condition": {"kind": "after_reply"}, "changes": [], "announce": None, "advance_s": 0}
    first = spec["turns"][0]
    spec["turns"] = [status, {**first, "advance_s": 600,
                              "changes": [{"kind": "put_record", "app": "chat", "table": "messages",
                                           "record": {**request, "ts": "$now"}}]}]
    spec["reference"] = [{"steps": [
        {"call": {"name": "services_get_service", "arguments": {"service": service["id"]}}, "say": None},
        {"call": None, "say": f"{service['id']} is {service['status']}."}]}, *spec["reference"]]
    for c in spec["checks"]:
        if c["rule"].get("turn") == 0:
            c["rule"]["turn"] = 1
    spec["checks"].append({"id": "status-stated", "description": "the first reply states the service's status",
                           "role": "completion", "weight": 1.0, "required": True, "safety": False, "pass_score": 1.0,
                           "rule": {"kind": "reply_states", "source": {"app": "services", "table": "services",
                                                                       "id": service["id"], "field": "status"},
                                    "turn": 0, "format": "raw", "partial": False}})
    for c in spec["checks"]:
        if c["rule"]["kind"] == "frame":  # the request the world puts in the channel is no change of the agent's
            c["rule"]["allow"].append({"app": "chat", "table": "messages", "id": request["id"], "fields": None,
                                       "where": []})


def _channel_later(name: str, seed: int, request: str) -> Defect:
    """`_channel`'s request, put in the channel by a later turn's changes (`_arrives_later`)."""
    def fix(spec: Spec) -> None:
        _in_channel(spec)
        _unmarked(request)(spec)
        _arrives_later(spec)

    def breaks(spec: Spec) -> None:
        fix(spec)
        _question_words(spec)
    return Defect(CLASS, name, f"synth:lookup_answer_source@{seed}",
                  "posts a wrong answer to a colleague's request for a fact, worded as no question is, that came into "
                  "the team channel during the episode: the post check reads only what was asked about",
                  breaks=breaks, fix=fix, witness=_wrong_answer, gate="mutations", code="content_unchecked")


DEFECTS += [
    _channel_unnamed("post-unnamed-oncall-3", 3, "Somebody post {} here when you can.", "the on-call engineer"),
    _channel_unnamed("post-unnamed-someone-13", 13, "Need {} before the release.", "someone from another team"),
    _channel_unnamed("post-unnamed-lead-1", 1, "I am after {}.", "the release lead"),
    _channel_later("post-later-somebody-3", 3, "Somebody post {} here when you can."),
    _channel_later("post-later-need-13", 13, "Need {} before the release."),
]


def _by_mail(spec: Spec) -> None:
    """The colleague asked in their DM, and the task answers by a new mail to them, not in the DM: the reference's
    DM becomes a mail, the check and the frame read the sent mail to them, the turn asks for a mail (defects127: a
    mail's requests were only its recipients' mails)."""
    dm = call(spec, "chat_send_dm")
    person = next((p for p in spec["world"]["apps"]["directory"]["people"]
                   if dm["arguments"]["person"] in (p["id"], p.get("chat_handle"), "@" + str(p.get("chat_handle")))),
                  None)
    if person is None:
        raise CorpusError(f"{spec['capability']}: the DM goes to no person of the directory")
    dm["name"] = "mail_send"
    dm["arguments"] = {"to": [person["email"]], "subject": "Your question", "body": dm["arguments"]["text"]}
    if spec.get("tools") is not None and "mail_send" not in spec["tools"]:
        spec["tools"].append("mail_send")
    conversation = [{"field": "to", "op": "contains", "value": person["email"]},
                    {"field": "folder", "op": "equals", "value": "sent"}]

    def as_mail(where: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept = [{**w, "field": "body"} for w in where if w["field"] == "text"]
        return conversation + kept

    changed = 0
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "records" and rule["app"] == "chat":
            rule.update(app="mail", where=as_mail(rule["where"]))
            changed += 1
        elif rule["kind"] == "frame":
            for allowed in rule["allow"]:
                if allowed["app"] == "chat":
                    allowed.update(app="mail", where=as_mail(allowed["where"]))
    if not changed:
        raise CorpusError(f"{spec['capability']}: no records check reads the DM")
    for turn in spec["turns"]:
        turn["content"] = re.sub(r"\b(?:in |to them in )?(?:our |that |the )?DMs?\b", "by mail", turn["content"])


def _dm_by_mail(name: str, seed: int, request: str) -> Defect:
    """The colleague's DM question, worded as `request`, answered by a new mail (`_by_mail`) whose check reads only
    what was asked about."""
    def fix(spec: Spec) -> None:
        _unmarked(request)(spec)
        _by_mail(spec)

    def breaks(spec: Spec) -> None:
        fix(spec)
        _question_words(spec)
    return Defect(CLASS, name, f"synth:lookup_answer_source@{seed}",
                  "answers a colleague's request for a fact made in their DM by a mail stating a wrong answer: the "
                  "mail check reads only what was asked about", breaks=breaks, fix=fix, witness=_wrong_answer,
                  gate="mutations", code="content_unchecked")


def _dm_later(name: str, seed: int, request: str) -> Defect:
    """The colleague's DM request, worded as `request`, put in the DM by a later turn's changes (`_arrives_later`)."""
    def fix(spec: Spec) -> None:
        _unmarked(request)(spec)
        _arrives_later(spec)

    def breaks(spec: Spec) -> None:
        fix(spec)
        _question_words(spec)
    return Defect(CLASS, name, f"synth:lookup_answer_source@{seed}",
                  "tells a colleague a wrong answer to a request for a fact, worded as no question is, that came into "
                  "their DM during the episode: the DM check reads only what was asked about",
                  breaks=breaks, fix=fix, witness=_wrong_answer, gate="mutations", code="content_unchecked")


DEFECTS += [
    # main rejects it too, by chance: the DM was read from the world's table as the last episode left it (kept as the
    # guard of the DM path of a request the run adds)
    _dm_later("dm-later-need-1", 1, "Need {} before my call."),
    _dm_by_mail("dm-answered-by-mail-3", 3, "could you send me {}."),
    _dm_by_mail("dm-need-answered-by-mail-1", 1, "Need {} before my call."),
]


def _posted_for_dm(spec: Spec) -> None:
    """The colleague asked in their DM (as the world has it), and the task answers in a team channel both are in:
    the reference's DM becomes a post there, the check and the frame read the user's post in that channel, the turn
    asks for it there (defects127: a post's requests were only the channel's messages)."""
    dm = call(spec, "chat_send_dm")
    chat = spec["world"]["apps"]["chat"]
    dm_id = next((m["channel"] for m in chat["messages"] if m["channel"].startswith("dm-") and "?" in m["text"]), None)
    pair = set(next((c["members"] for c in chat["channels"] if c["id"] == dm_id), []))
    team = next((c for c in chat["channels"] if not c["is_dm"] and pair and pair <= set(c["members"])), None)
    if dm_id is None or team is None:
        raise CorpusError(f"{spec['capability']}: no question in a DM, or no team channel of both")
    dm["name"] = "chat_post_message"
    dm["arguments"] = {"channel": team["name"], "text": dm["arguments"]["text"]}
    changed = 0
    for c in spec["checks"]:
        rule = c["rule"]
        wheres = [rule["where"]] if rule["kind"] == "records" and rule["app"] == "chat" else \
            [a["where"] for a in rule.get("allow", []) if a["app"] == "chat"] if rule["kind"] == "frame" else []
        for where in wheres:
            for w in where:
                if w["field"] == "channel" and w["value"] == dm_id:
                    w["value"] = team["id"]
                    changed += 1
    if not changed:
        raise CorpusError(f"{spec['capability']}: no check reads the DM")
    for turn in spec["turns"]:
        turn["content"] = re.sub(r"\b(?:our |that |the )?DMs?\b", team["name"], turn["content"])


def _dm_posted(name: str, seed: int) -> Defect:
    """The colleague's DM question answered by a post in a team channel (`_posted_for_dm`), the post check reading
    only what was asked about."""
    def breaks(spec: Spec) -> None:
        _posted_for_dm(spec)
        _question_words(spec)
    return Defect(CLASS, name, f"synth:lookup_answer_source@{seed}",
                  "answers a colleague's question asked in their DM by a post in a team channel stating a wrong "
                  "answer: the post check reads only what was asked about", breaks=breaks, fix=_posted_for_dm,
                  witness=_wrong_answer, gate="mutations", code="content_unchecked")


DEFECTS += [_dm_posted("dm-answered-in-channel-3", 3), _dm_posted("dm-answered-in-channel-13", 13)]


def _mail_later(spec: Spec) -> None:
    """The customer's mail comes during the episode: a first turn only announces the work (answered by a reply no
    check needs), and the second turn's changes put the mail in the inbox (defects127: a request the run adds is
    read from the run's own records; an answer kept as a draft has no time to order it by)."""
    text = _message(spec)[2]
    about = next((m.group(1) for p in _ABOUT if (m := p.search(text))), None)
    mails = spec["world"]["apps"]["mail"]["messages"]
    found = [m for m in mails if m["folder"] == "inbox" and about is not None and about in m["body"]]
    if len(found) != 1:
        raise CorpusError(f"{spec['capability']}: no one mail of the inbox asks about {about!r}")
    request = found[0]
    mails.remove(request)
    first = spec["turns"][0]
    spec["turns"] = [{"content": "Morning! I'm heading into meetings; more from me shortly.",
                      "condition": {"kind": "after_reply"}, "changes": [], "announce": None, "advance_s": 0},
                     {**first, "advance_s": 600, "changes": [{"kind": "put_record", "app": "mail", "table": "messages",
                                                              "record": {**request, "sent_at": "$now"}}]}]
    spec["reference"] = [{"steps": [{"call": None, "say": "Sure, I'll be here."}]}, *spec["reference"]]
    for c in spec["checks"]:
        if c["rule"].get("turn") == 0:
            c["rule"]["turn"] = 1
        if c["rule"]["kind"] == "frame":  # the mail the world puts in the inbox is no change of the agent's
            c["rule"]["allow"].append({"app": "mail", "table": "messages", "id": request["id"], "fields": None,
                                       "where": [{"field": "folder", "op": "equals", "value": "inbox"}]})


def _draft_later(name: str, seed: int, request: str) -> Defect:
    """The customer's mailed request, worded as `request`, put in the inbox by a later turn's changes and answered by
    a new draft (`_unthreaded`, `_mail_later`) whose check reads only what was asked about."""
    def fix(spec: Spec) -> None:
        _unthreaded(spec)
        _unmarked(request)(spec)
        _mail_later(spec)

    def breaks(spec: Spec) -> None:
        fix(spec)
        _question_words(spec)
    return Defect(CLASS, name, f"synth:draft_only_reply@{seed}",
                  "drafts a wrong answer to a customer's mailed request for a fact, worded as no question is, that "
                  "came during the episode: the draft check reads only what was asked about",
                  breaks=breaks, fix=fix, witness=_wrong_answer, gate="mutations", code="content_unchecked")


# main rejects it too (it read the inbox as the last episode left it); it guards the draft's answer, which has no time
# to order the run's messages by
DEFECTS += [_draft_later("new-draft-later-need-1", 1, "Need {} before the renewal.")]
