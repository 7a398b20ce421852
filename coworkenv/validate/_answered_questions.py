"""Answers to a colleague's question sent outside the question's thread: a direct message, a channel post or a new
mail (no `in_reply_to`) that answers a question its recipient asked the user in that conversation, left without the
facts that answer it.

A reply (a write with `in_reply_to`) already gets a "without its facts" near miss (`mutations._text_mutations`): a
check that reads only the question's words ("Yarrow Bank" of "the renewal date for Yarrow Bank is 2026-11-10") passes
the reply without its date, and is rejected. A direct message answering the question the colleague asked in that
DM (`lookup_answer_source`: "Hi Nia, what's the renewal date of the Yarrow Bank contract?") got none, and the same
check was accepted (defects115). Made for every message, that near miss rejected sound specs whose messages state
numbers no check needs (status posts, hand-overs: defects113 measured 198 of 987 twins). What tells an answer apart:
- a recipient of the message sent the user a message before it, whatever its wording: the person a DM or a mail goes to,
  in their DM with the user or by mail, whichever way the answer goes; in a team channel, anyone but the user there,
  and its members in their DM with the user (not by mail: an incident report mailed by a member of #incidents, "Could
  you take a look?", shares a word with the status post, and 8 sound twins were rejected so). Until defects122 a DM's
  or a mail's request had to read as a question ("Need the renewal date before my call." did not); until defects127 a
  channel's had to read as one (`_QUESTION`, a list of phrases) or come from a person the user's turns name and be in
  the world from the start, so "Somebody post the value here when you can." from someone the turn names by role ("the
  on-call engineer asked in #incidents"), or put in the channel by a later turn's changes, let a wrong post pass, and
  so did a DM's request answered by mail or in a channel. "Before" is by the run's clock: a message in the world from
  the start, or one the run added (a turn's changes, a world rule: the index's `created`, as the run left it; the
  world's table may have been rewound by another episode since) sent before the answer. A message after it asks
  nothing it answers (Jon's "Thanks! Checkout looks good from our side." in #incidents after incident_rollback's
  update; Mei's reply to delegate_and_follow_up's DM, which until defects127 made that DM, itself a request, an
  "answer"). Over every corpus twin (1,670 distinct, 1,143 with a message write) the near misses changed for 16: the 9
  new defects' twins gained one (accepted) and 7 delegate_and_follow_up twins lost Mei's reply as their "request";
  over the strict sweep no spec was newly rejected;
- the request and the message share a word of what it is about (`renewal`, `Yarrow`, `svc-geo`: not "Can someone
  review my PR?" in the channel a status post goes to, a question nobody answered there, adapt_silent_change@16);
- the message states a fact (`entities.stated_facts`: a date, a day by its name or from today, a code, a number, an
  amount, a time, an address) that the world holds (a document's row, a config value, a record's field: the answer
  looked up) and that no request states (a ticket the colleague asked about is what the answer is about, not the
  answer).
The near miss leaves every fact the message states out (`EntityIndex.drop_facts`): a check that reads any of them
catches it, so a spec whose checks read the answer is not touched.

An answer given by another route than a message (defects133: a comment on the ticket the asker opened, a file, a
note, an invite's description, a to-do's notes) gets the same near miss (`_route_requests`): its requests are those of
whoever it is for (a comment's ticket's people, its reporter, assignee and commenters, and its own text; the people a reader's parameter names, an
invite's attendees), or of anyone where it names nobody (a file, a note, a to-do); a write naming a person otherwise
(a new ticket's assignee) hands work to them and answers nothing. A DM's or a mail's requests also take the tickets
its recipients reported and the events they organized (`_ticket_requests`). Over every corpus twin 29 gained a near miss (report and hand-over
files), all still accepted; over the strict sweep none was newly rejected.
Since defects137 a post's requests take what the channel's members asked so too, and a write for nobody what anyone
but the user asked so; a ticket counts only where the task opens it by id and nobody else works it, an invite only
where the user is invited (a backlog's "svc-recs: slow responses for large accounts", reported by a member of
#incidents, is no request the status post on svc-recs answers: 11 adapt_silent_change specs of the strict sweep's
first 200 were rejected so before these rules, 2 with the assignee rule alone).
Since defects142 a write that is no message also takes the requests a world rule put in the world before it was made,
by the run's clock (the audit's time of the reference's call, `EntityIndex.call_times`): a colleague's question a rule
puts in their DM as the task starts was never read, as only the world's first messages and those the turns' changes
put counted (by turn), and a file, a note or a ticket comment answering it wrongly passed a check on its subject.
A DM's or a mail's requests, and those of a write addressed to people, also take the files its recipients own that
the task reads by path (`_file_requests`: "Anya's questions are in shared/questions/anya.md", answered by DM).

The final answer to the user (`told_answer_mutations`, defects121) gets the same near miss where a check reads the
reply (`content_replies`; until defects122 also only where the request read as a question, so "reply here with the
answer and the file it came from" escaped), the answer states a fact the world holds that the request does not, and
no check names any fact it states (a check that reads one, a message's record, a `reply_states` value, a text term,
already fails the reply near miss stating the checked facts wrongly, `_reply_mutations`). Only the sentences a
reply check reads part of (a term, a value it wants stated, a match of its pattern) lose their facts: a sentence no
check reads is told beyond what the checks take for the answer ("I traced req-7f3a91 to it and opened INC-299." beside "The root cause was svc-kyc."). Made for every
content reply and every fact it rejected 80 sound sweep specs (defects118): their answers repeat facts a record check
reads (the DM's answer, the ticket's request id, the to-dos' due dates).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any

from coworkenv.bindings import spec_catalog
from coworkenv.checks import MISSING, render_value
from coworkenv.spec import (
    EnvSpec,
    FieldRef,
    PutRecord,
    PythonRule,
    ReferenceStep,
    ReplyStatesRule,
    TextRule,
    ToolCallSpec,
)
from coworkenv.tools import ToolDef
from coworkenv.validate._check_reads import spec_rules, turns_read
from coworkenv.validate._declared_calls import op_params
from coworkenv.validate._mutation_core import Mutation, content_replies, replaced
from coworkenv.validate.entities import (
    EntityIndex,
    check_choices,
    held_leaves,
    leaves,
    relative_days,
    stated_facts,
    whole,
)

_DM, _POST = "chat_send_dm", "chat_post_message"
_MAILS = frozenset({"mail_send", "mail_save_draft"})
_WORD = re.compile(r"[a-z][\w-]{3,}")  # a word of four characters or more, lower case
# Words any question and any message may share without being about the same thing.
_COMMON = frozenset({"about", "after", "again", "also", "anyone", "anything", "asked", "before", "been", "being",
    "cheers", "could", "does", "doing", "done", "from", "have", "hello", "here", "just", "know", "like", "more",
    "need", "needs", "please", "question", "quick", "right", "should", "some", "someone", "something", "than",
    "thank", "thanks", "that", "their", "them", "then", "there", "these", "they", "this", "today", "tomorrow",
    "want", "were", "what", "when", "where", "which", "while", "will", "with", "would", "your", "yours"})
_MAX_HELD_CHARS = 2_000_000  # the world's text searched for the facts; beyond it a world is not searched further


def answered_question_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]],
                                tools: Mapping[str, ToolDef], index: EntityIndex,
                                content_args: frozenset[str]) -> Iterator[Mutation]:
    """For each message write without `in_reply_to` that answers a question its recipient asked, and each write that
    is no message answering a request of whoever it is for (see the module docstring): the write with its content
    arguments' facts left out, reported as `content_unchecked`."""
    held: str | None = None  # the world's text, joined on first need
    days: tuple[date, date] | None = None  # the first and the last day of an episode's clock
    for t, s, call in writes:
        tool = tools.get(call.name)
        if tool is None:
            continue
        params = op_params(tool)
        args = {params.get(k, k): v for k, v in call.arguments.items()}  # by the op parameter each fills
        if tool.op in (_DM, _POST) or tool.op in _MAILS:
            if args.get("in_reply_to"):
                continue  # a reply: `_text_mutations` leaves its facts out already
            questions, texts = _questions(spec, index, tool.op, args), content_args
        else:
            # what a write that is no message says: its content, or a to-do's details where it has none
            said = {k for k, v in call.arguments.items() if params.get(k, k) in content_args and isinstance(v, str)}
            said = said or {k for k, v in call.arguments.items() if params.get(k, k) == "notes" and isinstance(v, str)}
            if not said:
                continue
            texts = frozenset(params.get(k, k) for k in said)
            questions = _route_requests(spec, index, tool.op, args, t, s)  # a ticket comment, a file, a note, ...
        if not questions:
            continue
        asked = "\n".join(questions)
        about = _words(asked)
        for name, value in call.arguments.items():
            if params.get(name, name) not in texts or not isinstance(value, str):
                continue
            facts = [f for f in stated_facts(value) if not whole(f).search(asked)]
            if not facts or not about & _words(value):
                continue
            if held is None:
                held = _held_text(spec)
            if days is None:
                days = _episode_days(spec)
            if not any(p.search(held) for f in facts for p in _held_forms(f, days)):
                continue  # no fact of the world's: not an answer looked up
            vague = index.drop_facts(value)
            if vague is None:
                continue
            step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, name: vague}))
            yield Mutation("text_alter", f"reference[{t}].steps[{s}].call.arguments.{name}",
                           f"{call.name}: {name} answers the question asked in that conversation without its facts",
                           replaced(spec.reference, t, s, step), code="content_unchecked")


def told_answer_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]], index: EntityIndex,
                          values: Callable[[FieldRef], Any] | None = None) -> Iterator[Mutation]:
    """For each turn's last reply that answers what the user asked to be told (see the module docstring): the reply
    with the facts of the sentences a reply check reads left out, reported as `content_unchecked`; `values` gives a
    checked field's value at the reference's end (what a `reply_states` check wants stated)."""
    choices = [re.compile(c, re.IGNORECASE) for c in check_choices(spec) if isinstance(c, str) and _compiles(c)]
    written = {str(v).lower() for _, _, call in writes for v in leaves(call.arguments) if isinstance(v, str) and v}
    for t, s, text in content_replies(spec):
        if t >= len(spec.turns):
            continue
        request = spec.turns[t].content
        facts = [f for f in stated_facts(text) if not whole(f).search(request)]
        if not facts or any(_named(f, index.preferred, choices) for f in facts):
            continue  # nothing told beyond the request, or a check names a fact told (the altered reply fails it)
        held, days = _held_text(spec), _episode_days(spec)
        if not any(p.search(held) for f in facts for p in _held_forms(f, days)):
            continue  # no fact of the world's: not an answer looked up
        terms, patterns = _reply_reads(spec, t, values)
        if any(x in written for x in terms) or any(p.fullmatch(w) for p in patterns for w in written):
            continue  # the reply check reads a record the task wrote (the service it fixed): the task's outcome
        parts = [(index.drop_facts(x) or x) if _read(x, terms, patterns) else x for x in _SENTENCE.split(text)]
        vague = " ".join(" ".join(parts).split())
        if vague == " ".join(text.split()):
            continue  # no sentence a reply check reads states a fact
        yield Mutation("text_alter", f"reference[{t}].steps[{s}].say",
                       f"turn {t}: the answer the user asked to be told without its facts",
                       replaced(spec.reference, t, s, ReferenceStep(say=vague)), code="content_unchecked")


# A sentence's end: a stop, a question or exclamation mark and a space (not "3.5", not "cost-centers-2026.md)").
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _reply_reads(spec: EnvSpec, turn: int,
                 values: Callable[[FieldRef], Any] | None) -> tuple[list[str], list[re.Pattern[str]]]:
    """What the checks on the replies of `turn` read: the terms of text checks and the values `reply_states` checks
    want stated (as they render them), lower case; the patterns of text checks (ones that do not compile left out)."""
    terms: list[str] = []
    patterns: list[re.Pattern[str]] = []
    for _, _, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if isinstance(rule, TextRule) and rule.turn in (None, turn):
            for term in [*rule.all_of, *rule.any_of]:
                terms += [x.lower() for x in ([term] if isinstance(term, str) else term) if x.strip()]
            if rule.regex:
                try:
                    patterns.append(re.compile(rule.regex, re.IGNORECASE))
                except re.error:
                    continue
        elif isinstance(rule, PythonRule) and _reads_turn(rule, turn):
            terms += _python_terms(rule.code)
        elif isinstance(rule, ReplyStatesRule) and rule.turn in (None, turn) and values is not None:
            value = values(rule.source)
            if value is not MISSING and value is not None:
                terms += [x.lower() for x in render_value(value, rule.format) if x.strip()]
    return terms, patterns


# The words a Python check names the episode's parts by (the messages' and the audit's keys, the result's), no term it
# looks for in a reply.
_PY_KEYS = frozenset({"text", "turn", "role", "kind", "content", "reply", "replies", "note", "notes", "messages",
                      "assistant", "user", "state", "audit", "score", "passed", "reason", "tool", "args", "arguments",
                      "result", "check", "lower", "strip", "split", "join"})


def _reads_turn(rule: PythonRule, turn: int) -> bool:
    if "messages" not in rule.code:
        return False
    turns = turns_read(rule.code, rule.entrypoint)
    return turns is None or turn in turns


def _python_terms(code: str) -> list[str]:
    """The strings a Python check's code holds (4 characters or more, not a key of its inputs), lower case: what it
    may look for in a reply, as a text check's terms (defects122: an answer checked by Python code alone got no
    near miss, no reply check reading any of its sentences)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    return [node.value.lower() for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and len(node.value.strip()) >= 4 and node.value.lower() not in _PY_KEYS]


def _named(fact: str, named: set[str], patterns: list[re.Pattern[str]]) -> bool:
    """Whether a check names `fact`: a value it names holds it whole, or a `matches` pattern of it finds it (a date
    as `2027-04-29|29 April 2027`)."""
    return any(whole(fact).search(v) for v in named) or any(p.search(fact) for p in patterns)


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def _read(sentence: str, terms: list[str], patterns: list[re.Pattern[str]]) -> bool:
    """Whether a reply check reads part of `sentence` (a term or value it wants stated, a match of its pattern). A
    sentence no check reads (an aside: "I traced req-7f3a91 to it and opened INC-299.") is told beyond what the
    checks take for the answer, and its facts are kept."""
    lowered = sentence.lower()
    return any(p.search(sentence) for p in patterns) or any(x in lowered for x in terms)


def _first_ids(spec: EnvSpec) -> frozenset[str]:
    """The ids of the chat and mail messages the world holds before the episode starts."""
    chat, mail = spec.world.apps.chat, spec.world.apps.mail
    return frozenset([*(m.id for m in (chat.messages if chat is not None else [])),
                      *(m.id for m in (mail.messages if mail is not None else []))])


def _messages(index: EntityIndex, app: str, first: frozenset[str]) -> list[dict[str, Any]]:
    """The messages of `app` (chat, mail) of the run the index was made of: those the world holds from the start
    (`first`) and those the run added (a turn's changes, a world rule, the task's own), as the run left them; the
    world's table is read for the first only, as the run that last played may have rewound it since. An index that
    records no run's additions (one made of a final world, `near_miss_mutations` given a `World`) is read whole."""
    if not index.created:
        return index.rows(app, "messages")
    kept = [m for m in index.rows(app, "messages") if m.get("id") in first]
    return kept + [r for (a, t, _), r in index.created.items() if a == app and t == "messages"]


def _when(message: dict[str, Any]) -> datetime | None:
    """When a message was sent (a chat message's `ts`, a mail's `sent_at`); None where it names no time."""
    try:
        when = datetime.fromisoformat(str(message.get("ts") or message.get("sent_at")).replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _questions(spec: EnvSpec, index: EntityIndex, op: str, args: dict[str, Any]) -> list[str]:
    """The messages the recipients of a message sent the user before it, whatever their wording: the requests it may
    answer (see the module docstring). For a DM or a mail, the recipient's messages in their DM with the user and
    their mails to the user, whichever way the answer goes (defects127: a DM's request answered by mail was not
    read); in a team channel, anyone's messages there but the user's (defects127: until then one had to read as a
    question, `_QUESTION`, or come from a person the user's turns name, and be in the world from the start), and
    its members' DMs with the user (a DM's question answered in a channel they read; not their mails, see
    below). A
    message counts that is in the world from the start or was sent before the answer during the episode (a turn's
    changes, a world rule): one after it (a colleague's "Thanks! Checkout looks good from our side." after the
    update) asks nothing it answers; where the answer is not found among the run's messages (a tool storing its text
    otherwise), only the world's first messages count."""
    user, first = index.user, _first_ids(spec)
    mine = (user, "me")
    chat, mail = _messages(index, "chat", first), _messages(index, "mail", first)
    if op in (_DM, _POST):
        sent = [m for m in chat if m.get("sender") in mine and m.get("text") == args.get("text")]
    else:
        sent = [m for m in mail if m.get("folder") in ("sent", "drafts") and m.get("body") == args.get("body")]
    answered = min((w for m in sent if (w := _when(m)) is not None), default=None)
    # a draft has no time: every message the run added counts (a colleague rarely mails again before it is sent)
    undated = answered is None and op in _MAILS and any(m.get("folder") == "drafts" for m in sent)

    def before(m: dict[str, Any]) -> bool:
        when = _when(m)
        return m.get("id") in first or undated or (answered is not None and when is not None and when < answered)

    if op == _POST:
        channel = index.channel_id(str(args.get("channel", "")))
        if channel is None:
            return []
        out = [str(m["text"]) for m in chat if m.get("channel") == channel and m.get("sender") not in mine
               and before(m)]
        # its members read a post: one who asked the user in their DM is answered there too (not by mail: an incident
        # reporter's mail, "Could you take a look?", is answered by the fix, and the channel's status post tells more)
        members = {str(p) for c in index.rows("chat", "channels") if c.get("id") == channel
                   for p in c.get("members") or [] if p not in mine}
        dms = {"dm-" + "-".join(sorted({user or "me", p})): p for p in members}
        out += [str(m["text"]) for m in chat if dms.get(str(m.get("channel"))) == m.get("sender") and before(m)]
        # and what they asked by ticket or invite (defects137), as for a DM's recipient
        return out + _ticket_requests(spec, index, members, {a for p in members if (a := index.address(p)) is not None})
    if op == _DM:
        refs = [str(args.get("person", ""))]
    else:
        to = args.get("to")
        refs = [str(r) for r in (to if isinstance(to, list) else [to]) if r]
    people = {p for r in refs if (p := index.person_id(r)) is not None}
    addresses = {a for r in refs if (a := index.address(r)) is not None}
    dms = {"dm-" + "-".join(sorted({user or "me", p})): p for p in people}
    out = [str(m["text"]) for m in chat if dms.get(str(m.get("channel"))) == m.get("sender") and before(m)]
    out += _ticket_requests(spec, index, people, addresses) + _file_requests(spec, index, people)
    return out + [f"{m.get('subject', '')}\n{m.get('body', '')}" for m in mail
                  if str(m.get("sender", "")).lower() in addresses and m.get("folder") not in ("sent", "drafts")
                  and before(m)]


def _ticket_requests(spec: EnvSpec, index: EntityIndex, people: set[str] | None, addresses: set[str]) -> list[str]:
    """What `people` (directory ids) or `addresses` asked the user by another route than a message (defects133): the
    tickets they reported, each its title and description, their comments there, and the descriptions of the events
    they organized. `people` None: what anyone but the user asked so (defects137: a file, a note, a to-do answering a
    ticket). A ticket counts that the task opens by its id (reads, updates, comments on): a backlog's tickets assigned
    to the user are work, not questions (defects137: "Rotate credentials used by svc-quotes" beside a status post
    on svc-quotes)."""
    mine = {index.user or "me", "me"}
    opened = {v for turn in spec.reference for step in turn.steps if step.call is not None
              for v in leaves(step.call.arguments) if isinstance(v, str)}
    own = index.address(index.user or "")

    def by(ref: str) -> bool:
        if people is None:
            return bool(ref) and ref not in mine and index.person_id(ref) not in mine and ref.lower() != own
        return ref in people or index.person_id(ref) in people or ref.lower() in addresses

    def to_me(refs: list[Any]) -> bool:
        return any(str(r) in mine or index.person_id(str(r)) in mine or str(r).lower() == own for r in refs)

    # an invite the user got, a ticket the user works or nobody does: one assigned to another is no request of the
    # user's (defects137: #incidents' members' tickets "svc-recs: slow responses" beside a status post on svc-recs)
    out = [str(e.get("description") or "") for e in index.rows("calendar", "events")
           if e.get("description") and by(str(e.get("organizer") or "")) and to_me(e.get("attendees") or [])]
    for ticket in index.rows("tickets", "tickets"):
        if ticket.get("id") not in opened or (ticket.get("assignee") and not to_me([ticket["assignee"]])):
            continue
        if by(str(ticket.get("reporter") or "")):
            out.append(f"{ticket.get('title', '')}\n{ticket.get('description', '')}")
        out += [str(c.get("body", "")) for c in ticket.get("comments") or [] if by(str(c.get("author", "")))]
    return out


def _file_requests(spec: EnvSpec, index: EntityIndex, people: set[str]) -> list[str]:
    """What `people` (directory ids) asked the user in a file of theirs on the shared drive that the task reads by its
    path (defects142: "Anya's questions are in shared/questions/anya.md", answered by DM), as the world held it before
    the episode (a file the task then rewrites with the answer still asks only what it asked). Only for a message or a
    write addressed to people: a report for nobody cites the documents it was made of, which ask nothing."""
    files = spec.world.apps.files
    if files is None or not people:
        return []
    tools = spec_catalog(spec)
    read = {v for turn in spec.reference for step in turn.steps if step.call is not None
            and (tool := tools.get(step.call.name)) is not None and tool.kind == "read"
            for v in leaves(step.call.arguments) if isinstance(v, str)}
    return [f.content for f in files.files if f.id in read and f.owner not in (index.user, "me", "")
            and (f.owner in people or index.person_id(f.owner) in people)]


# The parameters naming who reads a write that is no message (an invite's attendees, a note's recipients); a person
# named otherwise (a new ticket's assignee, an owner) is handed work by it.
_READERS = frozenset({"attendees", "recipients", "to", "cc", "person", "contact_id"})


def _route_requests(spec: EnvSpec, index: EntityIndex, op: str, args: dict[str, Any], turn: int,
                    step: int) -> list[str]:
    """The requests an answer written by another route than a message may answer (defects133): a comment on a ticket,
    a file, a note, an event's description, a to-do. Whoever the write is addressed to asked for it: for a ticket's
    comment, its reporter (and the ticket's own text: its description, its comments by others than the user); for a
    write naming people (an invite's attendees, a note's recipients), those people; their DMs with the user and
    their mails to the user count. A write addressed to nobody (a file, a note, a to-do) answers whoever sent the
    user a DM or a mail. A message counts that is in the world from the start, put there by the changes of a turn
    up to the write's, or added by a world rule before the write was made (by the run's clock: the audit's time of
    the reference's call, `EntityIndex.call_times`; defects142: a question a rule put in the asker's DM mid-turn
    was never read, as the turns' changes alone were). A message a later turn's changes put counts by its turn, not
    its `ts` (a spec may date it in the past)."""
    user, first = index.user, _first_ids(spec)
    mine = (user, "me")
    put = {k: {str(change.record.get("id")) for change in later.changes
               if isinstance(change, PutRecord) and change.app in ("chat", "mail")}
           for k, later in enumerate(spec.turns)}
    up_to = set().union(*(ids for k, ids in put.items() if k <= turn))
    later = set().union(*(ids for k, ids in put.items() if k > turn))
    made = _when({"ts": index.call_times.get((turn, step))})

    def counts(m: dict[str, Any]) -> bool:
        ref = str(m.get("id"))
        if m.get("id") in first or ref in up_to:
            return True
        when = _when(m)  # a world rule's: sent before the write
        return ref not in later and made is not None and when is not None and when < made

    chat = [m for m in _messages(index, "chat", first) if counts(m)]
    mail = [m for m in _messages(index, "mail", first) if counts(m)]
    out: list[str] = []
    refs: list[str] = []
    if op == "tickets_comment":
        ticket = next((r for r in index.rows("tickets", "tickets") if r.get("id") == args.get("ticket_id")), None)
        if ticket is None:
            return []
        comments = [c for c in ticket.get("comments") or [] if index.person_id(str(c.get("author", ""))) not in mine
                    and c.get("author") not in mine]
        # its people: who reported it, who works it, who commented on it
        refs += [str(ticket.get("reporter") or ""), str(ticket.get("assignee") or "")]
        refs += [str(c.get("author", "")) for c in comments]
        if index.person_id(refs[0]) not in mine:
            out.append(f"{ticket.get('title', '')}\n{ticket.get('description', '')}")
        out += [str(c.get("body", "")) for c in comments]
    else:
        for key, value in args.items():
            named = [v for v in leaves(value) if isinstance(v, str) and v and " " not in v
                     and (index.person_id(v) is not None or index.address(v) is not None)]
            if named and key not in _READERS:
                return []  # work handed to someone (a new ticket's assignee): a report of it, no answer
            refs += named
    people = {p for r in refs if (p := index.person_id(r)) is not None and p not in mine}
    addresses = {a for r in refs if (a := index.address(r)) is not None} - {index.address(user or "")}
    addressed = bool(people or addresses)

    def dm_from(m: dict[str, Any]) -> bool:
        channel, sender = str(m.get("channel", "")), m.get("sender")
        return (channel.startswith("dm-") and sender not in mine and channel == "dm-" + "-".join(sorted(
            {user or "me", str(sender)})) and (not addressed or sender in people))

    out += [str(m["text"]) for m in chat if dm_from(m)]
    if op != "tickets_comment":  # what they asked by ticket or invite (defects137); for nobody: anyone but the user
        out += _ticket_requests(spec, index, people if addressed else None, addresses)
    if addressed:  # and in a file of theirs the task reads (defects142)
        out += _file_requests(spec, index, people)
    return out + [f"{m.get('subject', '')}\n{m.get('body', '')}" for m in mail
                  if m.get("folder") not in ("sent", "drafts")
                  and (not addressed or str(m.get("sender", "")).lower() in addresses)]


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_SPELLED = re.compile(r"(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([a-z]{3})[a-z]*\.?(?:,?\s+(\d{4}))?"
                      r"|([a-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?", re.IGNORECASE)
_SLASHED = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")


def _episode_days(spec: EnvSpec) -> tuple[date, date]:
    """The first and the last day of an episode's clock: from the world's start, every turn's advance on, and a day
    more for the tool calls' ticks."""
    try:
        first = datetime.fromisoformat(spec.world.start.replace("Z", "+00:00"))
    except ValueError:
        first = datetime(1970, 1, 1)
    advance = sum(turn.advance_s for turn in spec.turns)
    return first.date(), (first + timedelta(seconds=advance, days=1)).date()


def _held_forms(fact: str, clock: tuple[date, date]) -> list[re.Pattern[str]]:
    """How the world may hold a fact a message states: as stated, and a date also as ISO (`2027-04-19` for
    "19 April 2027", "April 19" or "19/04/2027", either way round): a message spells a date as its writer likes; a
    day by its name or from today ("Thursday", "tomorrow", "in 3 days") only as the ISO dates it may name while the
    episode's clock runs (`clock`; defects118): "today" is no fact a text of the world holds as such."""
    named = relative_days(fact, *clock)
    if named is not None:
        return [re.compile(rf"(?<!\d){d.isoformat()}(?!\d)") for d in sorted(named)]
    out = [whole(fact)]
    days: list[tuple[str, int, int]] = []  # (year or a pattern of one, month, day)
    spelled = _SPELLED.fullmatch(fact)
    if spelled is not None:
        month = spelled.group(2) or spelled.group(4)
        if month.lower() in _MONTHS:
            days.append((spelled.group(3) or spelled.group(6) or r"\d{4}", _MONTHS.index(month.lower()) + 1,
                         int(spelled.group(1) or spelled.group(5))))
    slashed = _SLASHED.fullmatch(fact)
    if slashed is not None:
        a, b = int(slashed.group(1)), int(slashed.group(2))
        days += [(slashed.group(3), b, a), (slashed.group(3), a, b)]
    out += [re.compile(rf"(?<!\d){year}-{month:02d}-{day:02d}(?!\d)") for year, month, day in days
            if 1 <= month <= 12 and 1 <= day <= 31]
    return out


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower())) - _COMMON


def _held_text(spec: EnvSpec) -> str:
    """Every text and number the world holds at some moment of an episode (`held_leaves`), one per line."""
    out: list[str] = []
    size = 0
    for leaf in held_leaves(spec):
        if isinstance(leaf, str | int | float) and not isinstance(leaf, bool):
            text = str(leaf)
            out.append(text)
            size += len(text) + 1
            if size > _MAX_HELD_CHARS:
                break
    return "\n".join(out)
