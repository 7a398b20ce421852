"""A message the user asks for once: sending it twice is a near miss, where a records count of "at least one" passes.

The duplicate near miss (`mutations.near_miss_mutations`, `duplicate_write`) makes each write that creates a record (a
ticket, an event, a to-do) twice. A message is not made twice there: a second mail or DM to the same person is not
judged a mistake by itself (an honest agent may follow up), so nearly every sound spec counts its messages "at least
one" (`count gte 1`, the schema's default). Where the user's turn asks for one message ("send Ravi a single email",
"just one DM", "post it only once", "put everything in one mail"), the second copy is what the request rules out: the
agent that sends the same mail twice passed every check (found as a lead by the outsider hunt, d132's
`count_at_least`: triage_escalation's mail count loosened to "at least one").

The same request rules out a wrong message sent before the right one: a mail or a post cannot be taken back, so the
recipient has read the wrong figure, and a count whose conditions hold what the message says (`text contains 900`)
misses the first message, which says otherwise. `sent_wrong_first` makes, for such a write, the message first sent
with its content near misses (`text_drop`, `text_alter`, `text_truncate`: its facts left out or stated wrongly, at
most `_WRONG_FIRST` of them), then the right one; a survivor is `sent_wrong_first` (count the messages the request asks
one of by whom they reach, not by what they say). A record the turn asks for one of ("file a single ticket", "book
one meeting") is likewise first made with a wrong value of any argument, then right (`made_wrong_first`): a count that
holds the asked values, or a frame admitting the record by the id the reference's run gave it (which the first,
wrong record takes), misses it; a total of the new records catches it.

`asked_once(spec, turn, op)` returns the words of turn `turn` that ask for one item of what the write `op` sends (by
the op the tool runs: a declared `gmail_send_message` is a mail), or None: a numeral or "a single" directly before a
noun naming that kind of message ("one email", "a single short DM", "just one update"), or an adverb limiting the
turn's sends to one ("only once", "exactly once", "no more than once", "email her once.", "not twice", "no
duplicates", "avoid duplicates"). A "once" that starts a clause ("once it is fixed") or means "now" ("at once") asks
for nothing. An earlier turn's ask holds for a later turn's write where no turn from it up to the write's makes a write
of that op: "When you send it, keep it to a single email." before a clarifying question, the mail sent after the
answer (defects142: until then only the sending turn's words were read, and the duplicate was never made); an adverb
("only once") carries so only from a turn that writes nothing (it limits that turn's sends otherwise). Creating writes are not asked here: their duplicate is always
made; made wrong first, only where asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn, ToolCallSpec
from coworkenv.validate._mutation_core import Mutation, turn_of

_WRONG_FIRST = 2  # content near misses sent first, per write asked once

# What each sending op makes, as a user names it (a mail is also a "message", a "note", a "reply").
_MESSAGE = r"messages?|notes?|repl(?:y|ies)|updates?|notices?"
_NOUNS: dict[str, str] = {
    "mail_send": rf"e-?mails?|mails?|{_MESSAGE}|summar(?:y|ies)|reports?|notifications?",
    "mail_send_draft": rf"e-?mails?|mails?|{_MESSAGE}",
    "chat_send_dm": rf"dms?|direct\s+messages?|{_MESSAGE}|pings?|texts?|chats?",
    "chat_post_message": rf"posts?|{_MESSAGE}|announcements?|status\s+updates?",
    "contacts_send_message": rf"texts?|sms|{_MESSAGE}",
    "news_publish": r"articles?|posts?|announcements?|bulletins?|news\s+items?|stor(?:y|ies)|updates?",
    "web_notify": rf"notifications?|alerts?|pings?|{_MESSAGE}",
    "tickets_comment": r"comments?|notes?|updates?|repl(?:y|ies)",
    "finance_submit_report": r"reports?|submissions?|expense\s+reports?",
    "contacts_export_report": r"reports?|exports?",
    # records a creating write makes (their plain duplicate is always made; asked for once, also the wrong one first)
    "tickets_create": r"tickets?|issues?|incidents?|bugs?|cases?",
    "calendar_create_event": r"events?|meetings?|invites?|invitations?|bookings?|slots?",
    "calendar_add_event": r"events?|meetings?|invites?|invitations?|bookings?|slots?",
    "todo_add_task": r"to-?dos?|tasks?|reminders?|items?",
    "notes_create_note": r"notes?",
    "kb_create_article": r"articles?|pages?|entr(?:y|ies)",
    "inventory_create_order": r"orders?|purchase\s+orders?|pos?",
    "scheduler_create_job": r"jobs?",
    "contacts_create": r"contacts?|cards?|entr(?:y|ies)",
}
# The near misses made first, then the right write: what a message says; any value of a record made.
_FIRST_KINDS = {"sent": ("text_drop", "text_alter", "text_truncate"),
                "made": ("change_arg", "time_shift", "text_alter", "wrong_recipient")}
# "one", "a single", "just one", ... directly before the noun, at most two words between ("one short status update"),
# none of them "of", "or", "and" ("one of the mails" names a mail, "one or two lines" asks for no count); not after
# "the", "that", "each", ... ("reply to the one message from Kai" names the mail answered, not how many to send).
_ONE = (r"(?<!\bthe\s)(?<!\bthat\s)(?<!\bthis\s)(?<!\beach\s)(?<!\bany\s)(?<!\bno\s)(?<!\bevery\s)\b(?:(?:just|only|exactly|no\s+more\s+than|not\s+more\s+than|at\s+most)\s+(?:one|1|a\s+single)|"
        r"one\s+single|a\s+single|one(?:\s+\(1\))?|1|a\s+one-off)\s+(?:(?!(?:of|or|and|to|for)\b)[\w'-]+\s+){0,2}?(?:NOUNS)\b")
# Limits on how often the turn's writes happen, whatever they make.
_ONCE = re.compile(r"\b(?:(?:only|just|exactly|strictly|no\s+more\s+than|not\s+more\s+than)\s+once|"
                   r"once\s+(?:and\s+)?only(?:\s+once)?|one\s+time\s+only|a\s+single\s+time|"
                   # "email Ravi once." at a clause's end; not "at once" (now), "not even once" (a refusal), "once it is fixed" (a clause)
                   r"(?<!\bat\s)(?<!\beven\s)(?<!\bnot\s)(?<!\bnever\s)once(?=\s*(?:[.!;,)]|$))|"
                   r"one\s+time(?=\s*(?:[.!;,)]|$))|"
                   r"(?:avoid|without)\s+(?:sending\s+|posting\s+)?(?:any\s+)?duplicates?|"
                   # "don't double-post", "no double booking", "no second mail", "don't send her a second one"
                   r"(?:do\s+not|don't|never|no|avoid)\s+double[- ]?(?:send|post|book|fil|mail|messag|text|notif)\w*|"
                   r"no\s+second|(?:do\s+not|don't|never)\s+\w+\s+(?:\w+\s+)?a\s+second|"
                   r"(?:do\s+not|don't|never)\s+(?:send|post|publish|repeat|mail|dm|message|notify)\w*\s+"
                   r"(?:(?!(?:of|or|and)\b)\w+\s+){0,3}?twice|not\s+twice|no\s+duplicates?|no\s+double[- ]posts?)\b",
                   re.IGNORECASE)
_PATTERNS = {op: re.compile(_ONE.replace("NOUNS", nouns), re.IGNORECASE) for op, nouns in _NOUNS.items()}


def asked_once(spec: EnvSpec, turn: int, op: str) -> str | None:
    """The words of the user's turn `turn`, or of an earlier turn whose ask is still open, that ask for one item of
    what `op` sends (see the module docstring), or None where none asks for a count, or `op` sends nothing."""
    pattern = _PATTERNS.get(op)
    if pattern is None or not 0 <= turn < len(spec.turns):
        return None
    content = spec.turns[turn].content
    found = pattern.search(content) or _ONCE.search(content)
    if found:
        return found.group(0)
    for k in range(turn - 1, -1, -1):  # the nearest earlier turn first
        ops = _written_ops(spec, k)
        if op in ops:
            return None  # that turn made its own: what it asked was for that one
        content = spec.turns[k].content
        # "one email" for the kind `op` sends; "only once" for whatever comes, where that turn wrote nothing
        found = pattern.search(content) or (None if ops else _ONCE.search(content))
        if found:
            return found.group(0)
    return None


def _written_ops(spec: EnvSpec, turn: int) -> set[str]:
    """The ops of the writes the reference makes in turn `turn` (a declared tool's as the op it is bound to)."""
    if turn >= len(spec.reference):
        return set()
    bound = {d.name: d.bind.op for d in spec.tool_decls if d.bind.op in TOOLS}
    ops = {bound.get(step.call.name, step.call.name) for step in spec.reference[turn].steps if step.call is not None}
    return {op for op in ops if op in TOOLS and TOOLS[op].kind == "write"}


def sent_wrong_first(reference: list[ReferenceTurn], t: int, s: int, call: ToolCallSpec, once: str,
                     arg_mutations: Iterable[tuple[str, str, dict[str, Any], str, bool]], *, made: bool = False
                     ) -> list[Mutation]:
    """The write at `reference[t].steps[s]`, which its turn asks for once (`once`: the words), first made with one of
    its near misses from `arg_mutations` (`_argument_mutations`' (kind, path, arguments, what, core)), then as the
    reference makes it: at most `_WRONG_FIRST`, one per kind first. A message (`made` False) is first sent saying the
    wrong thing (`sent_wrong_first`); a record the write creates (`made`) is first made with another value of any
    argument, another time or person (`made_wrong_first`: a P1 ticket filed, then the P3 one asked for)."""
    kinds = _FIRST_KINDS["made" if made else "sent"]
    wrong = [(kind, new, what) for kind, _, new, what, core in arg_mutations if core and kind in kinds]
    firsts = [w for i, w in enumerate(wrong) if w[0] not in {k for k, _, _ in wrong[:i]}]
    firsts += [w for w in wrong if w not in firsts]
    out = []
    where = f"reference[{t}].steps[{s}]"
    done, code = ("made", "made_wrong_first") if made else ("sent", "sent_wrong_first")
    for kind, new, what in firsts[:_WRONG_FIRST]:
        steps = list(reference[t].steps)
        steps.insert(s, ReferenceStep(call=ToolCallSpec(name=call.name, arguments=new)))
        out.append(Mutation("duplicate_write", where, f"{call.name} at {where} first {done} with {what} ({kind}), then "
                            f"right, where the request asks for one ({once!r}): the wrong one stays",
                            [*reference[:t], turn_of(steps), *reference[t + 1:]], code=code))
    return out
