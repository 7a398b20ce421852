"""Shaped answers unchecked: the answer a message gives a colleague's question is an address, a time of day, a link,
a share, a version or a duration (not a code, a number of two digits or a date), and the check on the message reads
only the question's words (the customer asked about) and the source, not the answer."""

from __future__ import annotations

from tests.defects._core import Defect
from tests.defects.unthreaded_answer_unchecked import _respelled, _respelled_question_words, wrong_as

CLASS = "shaped_answer_unchecked"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "leave out of an answer its facts of every shape (addresses, links, times of day, amounts with their sign, shares, "
    "versions, durations, as well as codes, numbers and dates); if every check still passes it, the answer is unchecked"
)

# (name, base, column, answer, a wrong answer): the asked-about column renamed and its cell respelled.
_CASES = (
    ("dm-address-4", "synth:lookup_answer_source@4", "finance contact", "ines.ortiz@kestrel-audit.example",
     "ines.ortez@kestrel-audit.example"),
    ("dm-time-5", "synth:lookup_answer_source@5", "support cutoff", "2:30 pm", "3:30 pm"),
    ("dm-link-8", "synth:lookup_answer_source@8", "status page", "https://status.example.test/hazel",
     "https://status.example.test/hazle"),
    ("dm-share-16", "synth:lookup_answer_source@16", "volume discount", "7%", "8%"),
    ("dm-version-17", "synth:lookup_answer_source@17", "client SDK", "v3.2", "v3.1"),
    ("dm-duration-18", "synth:lookup_answer_source@18", "response window", "36h", "48h"),
    ("reply-time-1", "synth:inbox_triage_reply@1", "renewal cutoff", "9am", "10am"),
    ("reply-address-2", "synth:inbox_triage_reply@2", "renewal contact", "lena.moss@fennel-legal.example",
     "lena.mess@fennel-legal.example"),
    ("draft-link-1", "synth:draft_only_reply@1", "SLA page", "https://sla.example.test/aurochs",
     "https://sla.example.test/auroch"),
    ("draft-share-2", "synth:draft_only_reply@2", "SLA credit", "5%", "6%"),
)

DEFECTS = [
    Defect(CLASS, f"{name}-question-words", base,
           f"answers the colleague with a wrong {column}: the message check reads only what the question was about",
           breaks=_respelled_question_words(column, value), fix=_respelled(column, value),
           witness=wrong_as(wrong))
    for name, base, column, value, wrong in _CASES
]
