"""Told answers unchecked: the user asks to be told the answer to a colleague's question (asked in their DM) and
nothing else is written; the final answer states the fact looked up, and the check on it reads only the source
or the question's words (the customer the question is about), not the answer: a wrong answer passes."""

from __future__ import annotations

import re
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, call, frame, with_say

CLASS = "told_answer_unchecked"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "where the user's turn asks to be told something and the final answer states facts the world holds that the "
    "request does not, and no check names any of them, leave them out of the answer; if every check still passes, "
    "the answer is unchecked"
)

# The reference's DM: "The cost center for Escarpment is CC-3511 (source: finance/cost-centers-2026.md)."
_DM = re.compile(r"^The (?P<what>.+?) for (?P<about>.+?) is (?P<answer>.+?) \(source: (?P<source>[^)]+)\)\.$")


def _parts(spec: Spec) -> re.Match[str]:
    text = str(call(spec, "chat_send_dm")["arguments"]["text"])
    found = _DM.match(text)
    if found is None:
        raise CorpusError(f"{spec['capability']}: the reference's DM is no 'The X for Y is Z (source: F).'")
    return found


def _told(spec: Spec) -> None:
    """The answer told to the user only: no DM sent (its call and its check gone, the frame allowing no change), the
    request asking for the answer and the file, the final answer stating both, a check that the current document
    was read."""
    parts = _parts(spec)
    person = call(spec, "chat_send_dm")["arguments"]["person"]
    people = spec["world"]["apps"]["directory"]["people"]
    who = next((p["name"].split()[0] for p in people if person in (p["id"], p.get("chat_handle"))), None)
    if who is None:
        raise CorpusError(f"{spec['capability']}: the DM goes to nobody of the directory")
    spec["turns"][0]["content"] = (
        f"Hi, {who} asked me something in our DM. Find the answer in our documents (the current ones) and tell me "
        "the answer and the file it came from. Don't reply to them yet, I will. Thanks.")
    for turn in spec["reference"]:
        turn["steps"] = [s for s in turn["steps"] if (s.get("call") or {}).get("name") != "chat_send_dm"]
    spec["reference"] = with_say(spec, parts.group(0))
    spec["checks"] = [c for c in spec["checks"] if c["id"] != "answered-with-source"]
    frame(spec)["rule"]["allow"] = []
    spec["checks"].append({"id": "current-read", "description": "the current document is read", "role": "completion",
                           "weight": 1.0, "required": True,
                           "rule": {"kind": "called", "call": {"tool": "files_read_file",
                                                               "args": {"path": parts.group("source")}}}})


def _checked(spec: Spec) -> None:
    """The twin: the told answer, its answer read by a check on the final reply."""
    _told(spec)
    spec["checks"].append({"id": "answer-told", "description": "the reply states the answer", "role": "completion",
                           "weight": 2.0, "required": True, "rule": {"kind": "text", "scope": "final", "turn": 0,
                                                                      "all_of": [_parts_of_say(spec)["answer"]]}})


def _parts_of_say(spec: Spec) -> dict[str, str]:
    say = next(s["say"] for s in spec["reference"][0]["steps"] if s.get("say"))
    found = _DM.match(say)
    if found is None:
        raise CorpusError(f"{spec['capability']}: the reference's answer is no 'The X for Y is Z (source: F).'")
    return found.groupdict()


def _question_words(spec: Spec) -> None:
    """The told answer, the check on it a pattern of what the question is about (the customer's name as a whole
    word) beside the source check."""
    _told(spec)
    about = _parts_of_say(spec)["about"]
    spec["checks"].append({"id": "answer-told", "description": f"the reply answers about {about}",
                           "role": "completion", "weight": 2.0, "required": True,
                           "rule": {"kind": "text", "scope": "final", "turn": 0, "regex": rf"\b{re.escape(about)}\b"}})


def _wrong(spec: Spec) -> list[dict[str, Any]]:
    """The final answer with the answer wrong (its last digit one up), the source right."""
    parts = _parts_of_say(spec)
    right = parts["answer"]
    last = max(i for i, ch in enumerate(right) if ch.isdigit())
    wrong = right[:last] + str((int(right[last]) + 1) % 10) + right[last + 1:]
    say = next(s["say"] for s in spec["reference"][0]["steps"] if s.get("say"))
    return with_say(spec, say.replace(right, wrong))


def _checked_about(spec: Spec) -> None:
    """The twin of the question-words defect: the pattern also wants the answer."""
    _question_words(spec)
    answer = _parts_of_say(spec)["answer"]
    spec["checks"][-1]["rule"]["regex"] += rf".*{re.escape(answer)}"


def _told_python(spec: Spec, answer: bool = False) -> None:
    """The told answer whose one check on the reply is a Python check that the source is named (defects122: the
    near miss took only text and `reply_states` checks for readers of the answer's sentence); with `answer`, the
    twin's, that the answer is stated too."""
    parts = _parts(spec)
    _told(spec)
    source = parts.group("source").lower()
    wants = f" and {parts.group('answer').lower()!r} in said" if answer else ""
    spec["checks"] = [c for c in spec["checks"] if c["rule"]["kind"] != "reply_states"]
    spec["checks"].append({"id": "source-named", "description": "the reply names the source", "role": "completion",
                           "weight": 1.0, "required": True, "rule": {"kind": "python", "code": (
                               "def check(state, audit, messages):\n"
                               "    said = ' '.join(m['text'] for m in messages if m['turn'] == 0).lower()\n"
                               f"    return {source!r} in said{wants}\n")}})


DEFECTS = [
    *(Defect(CLASS, f"told-source-only-{seed}", f"synth:lookup_answer_source@{seed}",
             "tells the user a wrong answer to the colleague's question: the check on the answer reads only the "
             "source file", breaks=_told, fix=_checked, witness=_wrong) for seed in (4, 5, 8, 10)),
    *(Defect(CLASS, f"told-question-words-{seed}", f"synth:lookup_answer_source@{seed}",
             "tells the user a wrong answer to the colleague's question: the check on the answer reads only the name "
             "the question is about", breaks=_question_words, fix=_checked_about, witness=_wrong) for seed in (4, 8)),
    Defect(CLASS, "told-python-source-4", "synth:lookup_answer_source@4",
           "tells the user a wrong answer to the colleague's question: the one check on the reply, a Python check, "
           "reads only the source file", breaks=_told_python, fix=lambda spec: _told_python(spec, answer=True),
           witness=_wrong, gate="mutations", code="content_unchecked"),
]
