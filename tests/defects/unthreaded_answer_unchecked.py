"""Unthreaded answers unchecked: a colleague asked the user a question (in their DM, by mail), the task answers it
with a message outside the question's thread (a direct message, a new mail: no `in_reply_to`), and the check on that
message reads only the question's words (the customer, the service asked about) and the source, not the answer."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import orjson

from tests.defects._core import CorpusError, Defect, Edit, Spec, call, drop_cond, with_args

CLASS = "unthreaded_answer_unchecked"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "where a message with no in_reply_to goes to the conversation in which its recipient asked the user a question "
    "and states facts the world holds that the question does not, leave its facts out; if every check still passes "
    "the message, the answer is unchecked"
)

# The message tools whose text answers the question, and the argument the text is in.
_MESSAGES = (("chat_send_dm", "text"), ("chat_post_message", "text"), ("mail_send", "body"), ("mail_save_draft", "body"))
# What the question is about, as the reference's message says it: "The renewal date for Yarrow Bank is ...",
# "svc-geo runs timeout_ms=600 ...", "the SLA review date for Aurochs Air is ...".
_ABOUT = (re.compile(r"\bfor (.+?) is "), re.compile(r"^(\S+) runs \w+="))
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _message(spec: Spec) -> tuple[str, str, str, dict[str, Any]]:
    """(tool, argument, text, the check condition on the text that wants the answer) of the reference's message."""
    for tool, arg in _MESSAGES:
        try:
            said = str(call(spec, tool)["arguments"][arg])
        except CorpusError:
            continue
        for c in spec["checks"]:
            if c["rule"]["kind"] != "records":
                continue
            for w in c["rule"]["where"]:  # the value the message states as the answer: "... is X", "key=X"
                if w["field"] == arg and _answer(said, w) is not None:
                    return tool, arg, said, w
    raise CorpusError(f"{spec['capability']}: no check wants the answer a message states")


def _answer(said: str, cond: dict[str, Any]) -> str | None:
    """The answer `said` states ("... is X", "key=X") where the condition wants it (a `contains` of it, or a `matches`
    pattern finding it); None otherwise."""
    value = str(cond["value"])
    pattern = re.escape(value) if cond.get("op") == "contains" else value if cond.get("op") == "matches" else None
    found = None if pattern is None else re.search(rf"(?: is |=)({pattern})", said)
    return None if found is None else found.group(1)


def _question_words(spec: Spec) -> None:
    """The answer's condition reads what the question is about in place of the answer."""
    _tool, _arg, said, cond = _message(spec)
    about = next((m.group(1) for p in _ABOUT if (m := p.search(said))), None)
    if about is None:
        raise CorpusError(f"{spec['capability']}: the reference's message does not say what it answers about")
    cond["value"] = about


def _unthreaded(spec: Spec) -> None:
    """The answer sent as a new message, not in the question's thread: no `in_reply_to` in the reference's mail,
    none in its check."""
    tool, _arg, _said, _cond = _message(spec)
    found = call(spec, tool)
    if not found["arguments"].pop("in_reply_to", None):
        raise CorpusError(f"{spec['capability']}: the reference's {tool} is no reply")
    for c in spec["checks"]:
        if c["rule"]["kind"] == "records" and any(w["field"] == "in_reply_to" for w in c["rule"]["where"]):
            drop_cond(c, "in_reply_to")


def _in_channel(spec: Spec) -> None:
    """The colleague's question asked in a team channel instead of the DM, and answered there by a post: the
    question, the reads, the checks and the request name the channel where they named the DM."""
    dm_call = call(spec, "chat_send_dm")
    dm = next((c["channel"] for c in spec["world"]["apps"]["chat"]["messages"]
               if "?" in c["text"] and c["channel"].startswith("dm-")), None)
    team = next((c for c in spec["world"]["apps"]["chat"]["channels"] if not c["is_dm"]), None)
    if dm is None or team is None:
        raise CorpusError(f"{spec['capability']}: no question in a DM, or no team channel")
    chat = spec["world"]["apps"]["chat"]
    chat["channels"] = [c for c in chat["channels"] if c["id"] != dm]
    text = orjson.dumps(spec).decode().replace(f'"{dm}"', f'"{team["id"]}"')
    spec.clear()
    spec.update(orjson.loads(text))
    for turn in spec["turns"]:
        turn["content"] = re.sub(r"\b(?:our |that |the )?DMs?\b", f"{team['name']}", turn["content"])
    for turn in spec["reference"]:
        for step in turn["steps"]:
            if step.get("call") == dm_call:
                step["call"] = {"name": "chat_post_message",
                                "arguments": {"channel": team["name"], "text": dm_call["arguments"]["text"]}}


def _in_channel_question_words(spec: Spec) -> None:
    _in_channel(spec)
    _question_words(spec)


def _unthreaded_question_words(spec: Spec) -> None:
    _unthreaded(spec)
    _question_words(spec)


def _respelled(column: str, value: str) -> Edit:
    """The asked-about column of the document renamed `column` and the answer `value`, everywhere the spec states
    them (the document, the question, the reference's message and answer, the check): an answer of another shape
    (an address, a time of day, a link, a share, a version, a duration)."""
    def edit(spec: Spec) -> None:
        said, cond = _message(spec)[2:]
        was = re.search(r"\b[Tt]he (.+?) for ", said)
        if was is None:
            raise CorpusError(f"{spec['capability']}: the reference's message names no column")
        text = orjson.dumps(spec).decode()
        for old, new in ((str(cond["value"]), value), (was.group(1), column)):
            text = text.replace(orjson.dumps(old).decode()[1:-1], orjson.dumps(new).decode()[1:-1])
        spec.clear()
        spec.update(orjson.loads(text))
    return edit


def _restated(value: str, threaded: bool = True) -> Edit:
    """The answer stated as `value` (a date spelled out) in the reference, the world holding it as it was (`2027-04-29`
    in the document), the check on the message taking either spelling: a message spells a date as its writer likes;
    `threaded` False: also sent as a new message (`_unthreaded`)."""
    def edit(spec: Spec) -> None:
        if not threaded:
            _unthreaded(spec)
        cond = _message(spec)[3]
        right = str(cond["value"])
        quoted = orjson.dumps(right).decode()[1:-1]
        spec["reference"] = orjson.loads(orjson.dumps(spec["reference"]).decode().replace(quoted, value))
        cond.update(op="matches", value=f"{re.escape(right)}|{re.escape(value)}")  # either spelling
    return edit


def _restated_question_words(value: str, threaded: bool = True) -> Edit:
    def edit(spec: Spec) -> None:
        _restated(value, threaded)(spec)
        _question_words(spec)
    return edit


def _respelled_question_words(column: str, value: str) -> Edit:
    def edit(spec: Spec) -> None:
        _respelled(column, value)(spec)
        _question_words(spec)
    return edit


def wrong_as(wrong: str) -> Callable[[Spec], list[dict[str, Any]]]:
    """The witness stating the answer as `wrong` (see `_wrong_answer`)."""
    return lambda spec: _wrong_answer(spec, wrong)


def _wrong_answer(spec: Spec, wrong: str | None = None) -> list[dict[str, Any]]:
    """The reference's message with its answer wrong: `wrong`, else a date a day later, else its last digit one up
    (played on the twin: its fix is made already)."""
    tool, arg, said, cond = _message(spec)
    right = _answer(said, cond) or ""
    if wrong is not None:
        pass
    elif _ISO.match(right):
        wrong = (date.fromisoformat(right) + timedelta(days=1)).isoformat()
    else:
        last = max(i for i, ch in enumerate(right) if ch.isdigit())
        wrong = right[:last] + str((int(right[last]) + 1) % 10) + right[last + 1:]
    return with_args(spec, tool, {}, **{arg: said.replace(right, wrong)})


DEFECTS = [
    *(Defect(CLASS, f"dm-answer-question-words-{seed}", f"synth:lookup_answer_source@{seed}",
             "tells the colleague a wrong answer in the DM: the DM check reads only what the question was about and "
             "the source", breaks=_question_words, witness=_wrong_answer) for seed in (1, 4, 5, 8, 10, 13)),
    *(Defect(CLASS, f"new-mail-answer-question-words-{seed}", f"synth:inbox_triage_reply@{seed}",
             "answers the colleague's mail with a new mail stating a wrong date: the mail check reads only the "
             "contract's name", breaks=_unthreaded_question_words, fix=_unthreaded, witness=_wrong_answer)
      for seed in (1, 2)),
    *(Defect(CLASS, f"post-answer-question-words-{seed}", f"synth:lookup_answer_source@{seed}",
             "posts a wrong answer to the colleague's question in the channel it was asked in: the post check reads "
             "only what the question was about and the source", breaks=_in_channel_question_words, fix=_in_channel,
             witness=_wrong_answer) for seed in (4, 9)),
    # The date spelled otherwise than the document holds it (2027-04-29).
    *(Defect(CLASS, f"dm-{how}-date-question-words-10", "synth:lookup_answer_source@10",
             "tells the colleague a wrong renewal date, spelled out: the DM check reads only the customer's name",
             breaks=_restated_question_words(value), fix=_restated(value), witness=wrong_as(wrong))
      for how, value, wrong in (("spelled", "29 April 2027", "30 April 2027"), ("slashed", "29/04/2027", "30/04/2027"))),
    Defect(CLASS, "new-mail-spelled-date-question-words-1", "synth:inbox_triage_reply@1",
           "answers the colleague's mail with a new mail stating a wrong date, spelled out: the mail check reads only "
           "the contract's name", breaks=_restated_question_words("April 19, 2027", threaded=False),
           fix=_restated("April 19, 2027", threaded=False),
           witness=wrong_as("April 20, 2027")),
    Defect(CLASS, "new-draft-answer-question-words-1", "synth:draft_only_reply@1",
           "drafts a new mail answering the customer with a wrong date: the draft check reads only the customer's name",
           breaks=_unthreaded_question_words, fix=_unthreaded, witness=_wrong_answer),
]
