"""A request for the reply read by its grammar, not by a list of phrases (defects150).

`_mutation_core.reply_is_content` takes the reply to a turn as task content where a check reads it, where the turn
only tells a fact (`_told_only`), or where the request asks for it. The last was a list of phrases (`_ASKS`: "tell
me", "let me know", "report back", a question with a question mark), and a turn that also writes and asks in other
words ("Put the value in your reply to me as well.", "Give me the time you picked.", "I'd like to know which service
caused it.", "Say when each one last ran.", "I wonder whether Mei got back to you.") got no reply near miss: a spec
whose checks never read the answer passed the agent that answers "Done.".

`asks_for_reply(request)` reads each sentence of the request for the shapes a request for an answer takes:
- the user as the one told: an imperative with "me" as its (indirect) object ("give me", "show me", "walk me
  through", "remind me"; not "let me", "help me"), or the answer passed to the user ("share the count with me",
  "back to me"); not where the sentence names another conversation the words go to (a DM, a mail, a post);
- the reply named as where the answer goes: "in your reply/answer/response", "your reply should ...", "write back";
- a wish to know: "I'd like to know", "I want to hear", "I need to know", "I'm curious", "I wonder whether", "let me
  hear how it went";
- an imperative of saying, at the start of a sentence ("say", "mention", "state", "specify", "spell out"), where the
  sentence names no other place the words go;
- a question put to the agent (defects152): a sentence that ends in "?" and opens, after a lead word ("And", "So,",
  "Quick check:"), with an auxiliary or a question word: "Has Grace come back on the report?", "Were any of them
  broken?", "Will the deploy be done by noon?", "Also, is it fixed now?". `_mutation_core._ASKS` read a question only
  at a sentence's very start and only after "is/are/does/did/do" or a question word, and a turn asking "Has Mei got
  back to you?" had its answer left out of the near misses. A request in a question's form is not one ("Can you pause
  the job?", "Could you send the file to Grace?", "Would you mind posting it?"): its answer is the doing;
- an imperative of explaining at a sentence's start ("explain", "describe", "recap", "outline", "relay"), or the
  answer passed on to the user by a verb of telling ("report it to me", "pass the count on to me"), often a sentence
  of its own after the one that asks for the work ("Find out when each job last ran. Relay that to me.") (defects152);
  not where the sentence names another place the words go or another person they go to ("Explain it to Dev",
  "Describe the change in the ticket"). "Send it to me" and "send it my way" are not read: what is sent may be a
  mail or a file.
- (defects155) a question anywhere in a sentence that ends in "?", not only at its start: after the work, past a
  semicolon, a colon, a dash or a comma ("Disable the failing jobs; when did each one last run?", "Do it by the book
  — did it go smoothly?"), an elliptical one ("Any idea which service was at fault?", "Anything new on the list?",
  "You found the time?"), and a polite request whose doing is finding something out ("Could you find out which
  service was at fault?", "Can you check when each of them last ran?"; not where it goes on to other work, "... and
  assign it to them?"). The question is the sentence's last clause that opens with an auxiliary or a question word
  (else its first clause); not a polite request ("Once it's paused, could you send the log to Grace?"), a polite tag
  ("Pause the job, would you?"), or a question put to someone else, the clause before it naming them ("Ask Mei: is
  the room free?", "Ping Dev on chat and ask: who owns it?");
- (defects155) the imperatives above after a fronted clause ("When you are done, give me the count.", "If any are
  broken, say how many.", "Once it is paused, explain why."), the user told by a gerund ("Finish by telling me the
  count.") and the reply named as what the answer is added to ("Add the count to your reply."). Words that make the
  user a party to a write ("invite me", "cc me", "add me") are not a request to be told;
- (defects155) a wish to know in other words: "I'd appreciate knowing", "It would help to know", "It'd be good to
  know", and "Curious when ..." at a sentence's start.
- (defects158) the answer handed over to the user with no "me" as the object: "Send the count my way.", "Let me have
  the time you picked.", "Get the count to me." (not a pronoun's, "Send it to me.", or a thing's that is sent, a
  file, a log, a report; nor where the sentence names another place or person), and an imperative of naming or
  listing at a sentence's start: "Identify the service at fault.", "Name the service that caused it.", "List the
  tasks you added.", and "report", "confirm", "provide", "note down" where what is asked is what the agent did or
  found ("Report the number of broken pages.", "Confirm the time you picked."): "Report the bug." and "Confirm the
  booking." are writes. (`_mutation_core._ASKS` read only "list what/which", "report/confirm which ...", "report
  back", and "and report"/"then confirm" with no object after them.)
- (defects158) an elliptical question whose noun is also a verb of addressing: "Any reply from Mei?", "No message
  from Diego yet?" put a question to the agent, as "Any word from Diego?" did; the clause reader took "reply" for
  the question being put to someone else.
"""

from __future__ import annotations

import re

# Words that may open a sentence before its verb: "Then", "Also,", "Afterwards,", "At the end,", "Please". At most
# `_LEADS` of them: `_OPEN` puts two runs of them around a fronted clause, and the clause reader matches them at each
# comma, so a run without a bound made a turn repeating "then, " take time quadratic in its length (20,000 of them:
# minutes in the host process, where the validation reads untrusted spec text).
_LEADS = 6
_LEAD = (r"(?:(?:and|then|also|please|afterwards|after\s+that|at\s+the\s+end|finally|lastly|once\s+(?:you\s+are\s+|"
         rf"you're\s+)?done|when\s+(?:you\s+are|you're)\s+done|oh|ok|okay|so)\b,?\s+){{0,{_LEADS}}}")
# A fronted clause before the imperative: "When you are done, ", "If any are broken, " (bounded: no scan past 120).
_FRONTED = r"(?:(?:when|whenever|once|after|before|if|as\s+soon\s+as|while|unless)\b[^,.!?;:]{1,120},\s+)?"
_OPEN = rf"{_LEAD}{_FRONTED}{_LEAD}"
# Another place the words go: a message, a post, a record (the answer is then that write's, not the reply's).
_ELSEWHERE = re.compile(r"\b(?:in|into|on|to|via|by|through)\s+(?:the|a|an|our|their|his|her|that|this|each|#)?\s*"
                        r"(?:\w+\s+)?(?:dm|direct\s+message|e-?mail|mail|post|channel|thread|ticket|comment|note|"
                        r"invite|invitation|event|message|chat|page|file|doc|document|draft)s?\b|#[\w-]+|"
                        r"\b(?:reply|write|respond|answer)\s+to\s+(?!me\b)\w+", re.IGNORECASE)
# The user as the one told: "give me", "show me", "walk me through"; not "let me", "help me", "excuse me".
_TO_ME = re.compile(rf"^{_OPEN}(?!(?:let|help|excuse|forgive|pardon|allow|bear|trust|count|leave|invite|cc|bcc|copy|add|"
                    r"tag|assign|book|schedule|subscribe)\b)[a-z]+\s+me\b|\b(?:with|back\s+to|over\s+to)\s+me\b|"
                    r"\bby\s+(?:telling|giving|showing|walking|reminding|updating|briefing)\s+me\b|"
                    r"\bto\s+your\s+(?:final\s+|last\s+)?(?:reply|answer|response)\b", re.IGNORECASE)
# The reply as where the answer goes.
_IN_REPLY = re.compile(r"\b(?:in|into|within|with)\s+your\s+(?:final\s+|last\s+)?(?:reply|answer|response)\b|"
                       r"\byour\s+(?:final\s+|last\s+)?(?:reply|answer|response)\s+(?:should|must|needs?|has|to\s+me)\b|"
                       r"\b(?:write|reply|answer|respond)\s+back\b(?!\s+to\s+(?!me\b))", re.IGNORECASE)
# A wish to know, in the user's words.
_WISH = re.compile(r"\bI(?:'d|\s+would|'m|\s+am)?\s+(?:(?:like|want|love|need|wish)\s+to\s+(?:know|hear|learn|find\s+out|"
                   r"understand)|curious\b|wondering\b|wonder\b)|\blet\s+me\s+(?:hear|see|learn)\b|"
                   # (defects155) "I'd appreciate knowing", "It would help to know", "Curious when ..." (no "I'm")
                   r"\bI(?:'d|\s+would)\s+(?:appreciate|welcome)\s+(?:knowing|hearing|learning)\b|"
                   r"\b(?:it\s+would|it'd|it\s+will|it'll)\s+(?:help|be\s+(?:good|great|nice|useful|handy|helpful))\s+"
                   r"(?:me\s+)?to\s+(?:know|hear|learn)\b|"
                   rf"^{_LEAD}(?:just\s+)?curious\s+(?:about|whether|if|who|what|which|when|where|why|how)\b",
                   re.IGNORECASE)
# An imperative of saying at a sentence's start.
_SAY = re.compile(rf"^{_OPEN}(?:say|mention|state|specify|spell\s+out)\b", re.IGNORECASE)
# A question put to the agent (after the lead words, "quick check:", "one more thing:", "btw"), not a polite request.
_ASIDE = r"(?:(?:quick\s+(?:check|question)|one\s+more\s+thing|btw|by\s+the\s+way|oh\s+and|question)\s*[:,-]?\s+)?"
_AUX = (r"(?:has|have|had|was|were|is|are|am|isn't|aren't|wasn't|weren't|hasn't|haven't|will|won't|would|can|could|"
        r"should|shall|may|might|does|doesn't|do|don't|did|didn't|what|which|who|whom|whose|when|where|why|how)\b")
_QUESTION = re.compile(rf"^{_LEAD}{_ASIDE}{_AUX}[^?]*\?", re.IGNORECASE)
# A request in a question's form, read at a clause's start (`.match(text, pos)`): "Can you pause the job?".
_POLITE = re.compile(rf"{_LEAD}{_ASIDE}(?:(?:can|could|would|will|won't)\s+you\s+(?:please\s+)?(?!tell\b)|"
                     r"(?:would|do)\s+you\s+mind\b)", re.IGNORECASE)
# A question anywhere in a sentence ending in "?" (defects155): read at each clause's start.
_CLAUSE = re.compile(r"[;:,]\s+|\s[-\u2013\u2014]+\s+")
_OPENS = re.compile(rf"{_LEAD}{_ASIDE}{_AUX}", re.IGNORECASE)
_FIND_OUT = re.compile(rf"{_LEAD}(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:find\s+out|check|see|look\s+up|"
                       r"figure\s+out|work\s+out|confirm|double-check|tell)\s+(?:for\s+me\s+)?(?:whether|if|who|what|"
                       r"which|when|where|why|how)\b", re.IGNORECASE)
_MORE_WORK = re.compile(r"\b(?:and|then|so)\b", re.IGNORECASE)
_TAG = re.compile(r"(?:(?:can|could|would|will|won't|wouldn't)\s+you|ok(?:ay)?|please|thanks|alright|all\s+right)\s*\?",
                  re.IGNORECASE)
# The clause before a question put to someone else: "Ask Mei:", "ping Dev and ask", "Mei wrote:".
_ADDRESSED = re.compile(r"(?<!\bany\s)(?<!\bno\s)(?<!\ba\s)(?<!\bthe\s)(?<!\byour\s)(?<!\bher\s)(?<!\bhis\s)"  # a noun: "Any reply"
                        r"(?<!\btheir\s)\b(?:ask|asking|tell|telling|message|ping|e-?mail|mail|dm|text|write|reply|respond|post|say|"
                        r"check\s+with|quote|forward|asked|asks|wrote|writes|said|says|wonders|wondered)\b(?!\s+me\b)",
                        re.IGNORECASE)
# An imperative of explaining, or the answer passed on to the user; not to another person ("to Dev", "for them").
# The verb and its "to me" within `_TELL_SPAN` characters: a scan with no bound from each verb made a sentence
# repeating one (a spec's turn, 140 KB) take minutes.
_TELL_SPAN = 160
_EXPLAIN = re.compile(rf"^{_OPEN}(?:explain|describe|recap|outline|relay)\b|\b(?:report|explain|describe|relay|pass|"
                      rf"read)\b[^.!?]{{0,{_TELL_SPAN}}}?\b(?:(?:on|back|over|out)\s+)?to\s+me\b", re.IGNORECASE)
_OTHER_PERSON = re.compile(r"\b(?:[Tt]o|[Ff]or|[Ww]ith)\s+(?:[A-Z][a-z]+\b|him\b|her\b|them\b|everyone\b|the\s+team\b|@)")
# (defects158) The answer handed over to the user: "send the count my way", "let me have the count", "get the count to
# me"; not a pronoun ("send it to me": what is sent may be a mail or a file), not a thing that is sent (`_SENT`).
_PRONOUN = r"(?!(?:it|them|this|that|those|these|me|one|some|all|any|anything|nothing|something|everything)\b)"
# Read from the words that end it ("my way", "to me"; one scan of the sentence) back to a verb of handing in the
# `_TELL_SPAN` characters before them, in the same clause: a lazy scan forward from each verb cost `_TELL_SPAN` steps
# of an alternation per verb (a turn repeating "send " took seconds).
_LET_ME_HAVE = re.compile(rf"\blet\s+me\s+have\s+{_PRONOUN}(?!(?:a|an|another)\s+(?:look|go|try|think|minute|moment|"
                          r"second|word|chat|crack|shot|stab|peek|glance|break|rest)\b)", re.IGNORECASE)
_HAND_END = re.compile(r"\b(?:my\s+way|(?:over\s+|back\s+)?to\s+me)\b", re.IGNORECASE)
_HAND_VERB = re.compile(rf"\b(?:send|get|bring|hand|shoot|drop|pass)\s+{_PRONOUN}", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[.!?;:]")
_SENT = re.compile(r"\b(?:files?|docs?|documents?|attachments?|pdfs?|spreadsheets?|sheets?|csvs?|logs?|invites?|"
                   r"invitations?|links?|e-?mails?|mails?|messages?|drafts?|reports?|screenshots?|cop(?:y|ies)|"
                   r"notes?|minutes|slides?|decks?|exports?|backups?|keys?|passwords?|tokens?|"
                   # or handed over by a write: a ticket, a task, a shift, a role assigned to the user
                   r"tickets?|tasks?|cases?|issues?|jobs?|shifts?|on-call|pager|rota|ownership|access|roles?|"
                   r"permissions?|licen[cs]es?|seats?|rooms?|devices?|laptops?|packages?|orders?|parcels?)\b",
                   re.IGNORECASE)
# (defects158) An imperative of naming or listing at a sentence's start, with no other work after it ("Identify the
# failing jobs and pause them." names a step of the work): "identify" and its kin always, "name" and
# "list" where a relative clause says what is named ("the service that caused it", "the tasks you added"); "report",
# "confirm", "provide", "note down" where what is asked is what the agent did or found ("the time you picked", "the
# number of broken pages"): "Report the bug.", "Confirm the booking.", "Name the file notes.md." are writes.
_NAMING = re.compile(rf"^{_OPEN}(?:identify|enumerate|itemi[sz]e|pinpoint|point\s+out)\b|"
                     rf"^{_OPEN}(?:name|list)\s+{_PRONOUN}[^.!?;:]{{0,{_TELL_SPAN}}}?\b(?:that|which|who|whose)\s+"
                     rf"(?!you\b)[a-z]+(?:ed|s)\b|"
                     rf"^{_OPEN}(?:name|list|report|confirm|provide|note\s+down)\s+{_PRONOUN}"
                     rf"[^.!?;:]{{0,{_TELL_SPAN}}}?\b(?:you(?:'ve|'d|\s+have|\s+had|\s+just)?\s+[a-z]+|"
                     r"(?:number|count|total|tally)\s+of)\b", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")


def asks_for_reply(request: str) -> bool:
    """Whether a sentence of `request` asks the agent to tell the user something (see the module docstring)."""
    for sentence in _SENTENCES.split(request):
        sentence = sentence.strip()
        if _IN_REPLY.search(sentence) or _WISH.search(sentence):
            return True
        if (_QUESTION.search(sentence) and not _POLITE.match(sentence)) or _asks_question(sentence):
            return True
        if (_TO_ME.search(sentence) or _SAY.search(sentence)) and not _ELSEWHERE.search(sentence):
            return True
        if _EXPLAIN.search(sentence) and not _ELSEWHERE.search(sentence) and not _OTHER_PERSON.search(sentence):
            return True
        if _handed_or_named(sentence):
            return True
    return False


def _asks_question(sentence: str) -> bool:
    """Whether a sentence ending in "?" puts a question to the agent (defects155): its question, the last clause that
    opens with an auxiliary or a question word (else its first), is no polite request (unless one of finding out, with
    no other work after it), no polite tag, and not put to someone the clause before it names. Linear in the sentence:
    each clause's start is read once, with patterns of bounded reach."""
    if not sentence.endswith("?"):
        return False
    body = sentence[sentence.rfind("?", 0, len(sentence) - 1) + 1:]  # what follows a quoted question, if any
    starts = [0, *(m.end() for m in _CLAUSE.finditer(body))]
    opening = [i for i, start in enumerate(starts) if _OPENS.match(body, start)]
    q = opening[-1] if opening else 0
    start = starts[q]
    if _TAG.fullmatch(body, starts[-1]):
        return False
    # put to someone else: named by the clause before the question, or anywhere in an elliptical one
    addressed = _ADDRESSED.search(body, starts[q - 1], start) if q > 0 else not opening and _ADDRESSED.search(body)
    if addressed:
        return False
    if (found := _FIND_OUT.match(body, start)) is not None:
        return _MORE_WORK.search(body, found.end()) is None
    return _POLITE.match(body, start) is None


def _handed_or_named(sentence: str) -> bool:
    """Whether a sentence hands the answer over to the user ("send the count my way", "let me have the count") or
    names or lists what the agent found at its start ("Identify the service at fault.", "List the tasks you added.";
    no other work after it) (defects158), with no other place or person the words go to. Linear in the sentence:
    each pattern reads it once, or at most `_TELL_SPAN` characters before each "my way" or "to me"."""
    named = _NAMING.search(sentence)
    if named is not None:
        # not a step of the work: "Identify the failing jobs and pause them."
        return _MORE_WORK.search(sentence, named.end()) is None and _goes_to_user(sentence)
    handed = _LET_ME_HAVE.search(sentence) is not None or any(_handed_before(sentence, end.start())
                                                              for end in _HAND_END.finditer(sentence))
    return handed and _SENT.search(sentence) is None and _goes_to_user(sentence)


def _handed_before(sentence: str, end: int) -> bool:
    """Whether a verb of handing opens the words before `end` ("send the count" before "my way"), within `_TELL_SPAN`
    characters and the same clause."""
    start = max(0, end - _TELL_SPAN)
    breaks = [m.end() for m in _CLAUSE_END.finditer(sentence, start, end)]
    return _HAND_VERB.search(sentence, breaks[-1] if breaks else start, end) is not None


def _goes_to_user(sentence: str) -> bool:
    """Whether a sentence names no other place (a DM, a post, a ticket) or person its words go to."""
    return _ELSEWHERE.search(sentence) is None and _OTHER_PERSON.search(sentence) is None
