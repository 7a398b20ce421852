"""The facts of an answer that the user's request asks for, told from the request and the world, not the checks.

A prose answer states more than was asked (`I traced req-7f3a91: svc-payments logged ... at 08:15:31 ... opened
OPS-102`): a check that reads the answer reads what the request asks, and a check that skips a detail is sound.
So a fact of the answer counts as asked only where the request names what holds it: a sentence that asks for an
answer (`Tell me which failing request you traced`, `Tell me when each one last ran`, `Which service caused it?`)
names a field of a world record the fact is the value of (`request_id`, `last_run`, a config's `values`), or the
table of the record the fact is the id of (`which service` -> `svc-kyc`, `which P1 tickets` -> `SUP-2204`). A
record's other fields (the ticket's customer, the log line's time) are not asked by naming the record.

`asked_probes` makes one near miss per group of asked facts of a turn's answer (the facts one word of the request
names: `which tickets`) with every fact of the group left out (`text_drop`), whatever kind of check reads the answer
(a Python grader's code may read any part of a text; a `reply_states` check may read a sibling of the asked fact, the
log line's service for its request id, and a text check the answer's other facts). Where the request asks what the
agent did (`tell me what you moved`, `what you changed`), the values the turn's writes passed are one more group
(`written_facts`: the units moved, the new assignee; a time is read in any zone by the time group). The mutation gate (`mutation_gate._unread_asked`)
names one whose answer passes every check while the answer left out altogether (the `no answer` near miss) fails
one: the checks read the answer, but none of what the request asks. A group is judged whole: an answer naming the
records it leaves out beside the one asked for (`I left out tx-4; tx-2, tx-3 are in`) is read through the one, and
a list read but for some items is `sibling_unchecked`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any

from coworkenv.bindings import spec_catalog
from coworkenv.env import base_world
from coworkenv.spec import EnvSpec, ReferenceStep
from coworkenv.validate._mentions import mentions
from coworkenv.validate._mutation_core import ASKED_PHRASES, Mutation, replaced, reply_is_content
from coworkenv.validate.entities import EntityIndex, leaves
from coworkenv.world import World, parse_time
from coworkenv.world._time import zone

ASKED_GROUP = "asked "  # a probe's group: this, then the path of the answer it leaves a fact out of
# A sentence that asks for an answer: a request to be told, or a question.
_ASK = re.compile(r"\b(?:tell me|tell us|let me know|report back|list what|list which|answer me|confirm to me)\b|"
                  rf"{ASKED_PHRASES}|"
                  r"^\s*(?:also\s+)?(?:what|which|who|when|where|how many|how much)\b[^?]*\?", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_WORD = re.compile(r"[a-z]+")
# Words of field and table names that name no fact of their own (every record has an id, a name, a status).
_GENERIC = frozenset({"id", "ids", "name", "title", "text", "content", "body", "status", "type", "kind", "at", "by",
                      "of", "to", "in", "on", "is", "s", "ms", "url", "key", "data", "info", "note", "notes", "app",
                      "line", "lines", "item", "items", "record", "records", "entry", "entries", "list", "lists",
                      "message", "messages", "file", "files", "mail", "mails", "event", "events", "user", "users",
                      "people", "person", "time", "date", "created", "updated"})
_IRREGULAR = {"ran": "run", "ran.": "run", "went": "go", "sent": "send", "paid": "pay", "held": "hold",
              "people": "person", "began": "begin", "took": "take", "made": "make", "found": "find"}
# A word of an answer, its punctuation aside (`svc-kyc:` is `svc-kyc`, `2026-11-15T19:21:30Z).` the time).
_TOKEN = re.compile(r"[\w@#+/$€£%'’-](?:[\w.@#:+/$€£%'’-]*[\w@#/%$€£])?")
_MAX_WORDS = 4
_MAX_GROUPS = 4  # groups of asked facts probed per answer (each probe is one more episode)


@lru_cache(maxsize=4096)
def _stem(word: str) -> str:
    """A word's singular (`services` -> `service`, `entries` -> `entry`, `statuses` -> `status`, `ran` -> `run`)."""
    word = _IRREGULAR.get(word, word)
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and re.search(r"(?:ss|x|ch|sh|us)es$", word):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us")):
        return word[:-1]
    return word


_GENERIC_STEMS = frozenset(_stem(g) for g in _GENERIC)


def asked_words(request: str) -> set[str]:
    """The stems of the words of the request's sentences that ask for an answer (empty when none asks)."""
    out: set[str] = set()
    for sentence in _SENTENCE.findall(request):
        if _ASK.search(sentence):
            out |= {_stem(w) for w in _WORD.findall(sentence.lower())}
    return out


@lru_cache(maxsize=4096)
def _name_words(name: str) -> frozenset[str]:
    """The stems of a field path's or table name's words that name a fact (cached: `holders` asks it of every field
    of every record, and a world has few distinct paths)."""
    return frozenset({_stem(w) for w in _WORD.findall(name.lower()) if w not in _GENERIC and len(w) >= 3}
                     - _GENERIC_STEMS)


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v, path)
    else:
        yield path, value


def holders(world: World, *runs: Mapping[tuple[str, str, str], Mapping[str, Any]]) -> dict[str, set[str]]:
    """Each field value (lower case) -> the words naming what holds it: the field's path, and for a record's id
    the table's name; of the records of `world` and of those a run changed or made (`runs`: (app, table, id) ->
    the record's fields as the run left it)."""
    out: dict[str, set[str]] = {}

    def add(table: str, fields: Mapping[str, Any]) -> None:
        for path, v in _leaves(fields):
            if isinstance(v, bool) or not isinstance(v, str | int | float) or str(v) == "":
                continue
            words = _name_words(table) if path == "id" else _name_words(path)
            if words:
                out.setdefault(str(v).lower(), set()).update(words)
    for table in world.tables():
        for rec in table:
            add(table.name, rec.model_dump(mode="json"))
    for run in runs:
        for (_, table_name, _), fields in run.items():
            add(table_name, fields)
    return out


def answer_facts(text: str, holders: dict[str, set[str]]) -> list[str]:
    """The world values an answer states, each once, in order: a token or up to four words (`svc-kyc`, `900`,
    `Olga Mwangi`), the longest where they overlap."""
    tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    found: list[tuple[int, int]] = []
    for i in range(len(tokens)):
        for n in range(min(_MAX_WORDS, len(tokens) - i), 0, -1):
            a, b = tokens[i][0], tokens[i + n - 1][1]
            if text[a:b].lower() in holders and not any(x <= a and b <= y for x, y in found):
                found.append((a, b))
                break
    seen: dict[str, str] = {}
    for a, b in sorted(found):
        seen.setdefault(text[a:b].lower(), text[a:b])
    return list(seen.values())


def asked_facts(text: str, request: str, holders: dict[str, set[str]]) -> list[list[str]]:
    """The facts of `text` that `request` asks for (see the module docstring), none the request itself states,
    grouped by what the request names of them (`which tickets`: every ticket id of the answer, one group)."""
    words = asked_words(request)
    groups: list[tuple[set[str], list[str]]] = []
    for fact in answer_facts(text, holders) if words else []:
        named = holders[fact.lower()] & words
        if not named or re.search(rf"(?<![\w-]){re.escape(fact)}(?![\w-])", request, re.IGNORECASE):
            continue
        joined = [i for i, g in enumerate(groups) if g[0] & named]  # in the order the answer states them
        merged = (named.union(*(groups[i][0] for i in joined)), [f for i in joined for f in groups[i][1]] + [fact])
        for i in reversed(joined[1:]):
            del groups[i]
        if joined:
            groups[joined[0]] = merged
        else:
            groups.append(merged)
    return [facts for _, facts in groups]


def _dropped(text: str, fact: str) -> str:
    return re.sub(rf"(?<![\w-]){re.escape(fact)}(?![\w-])", "", text, flags=re.IGNORECASE)


def asked_probes(spec: EnvSpec, index: EntityIndex) -> list[Mutation]:
    """Each turn's answer with one fact its request asks for left out (`index`: the reference's run, for the records
    it changed or made): where a Python check reads the replies, every asked fact; whatever reads them, the written
    ones (`written_facts`, and the times the run wrote where the request asks for a time by a generic word)."""
    held: dict[str, set[str]] | None = None
    out: list[Mutation] = []
    for t, turn in enumerate(spec.reference):
        says = [s for s, step in enumerate(turn.steps) if step.say]
        if not says or t >= len(spec.turns) or not reply_is_content(spec, t):
            continue
        s = says[-1]
        text = turn.steps[s].say or ""
        request = spec.turns[t].content
        if held is None:
            held = holders(base_world(spec), index.changed, index.created)
        groups: list[tuple[list[str], str | None]] = [(g, None) for g in asked_facts(text, request, held)]
        timed = _without_times(text, request, _written_instants(spec, t), zones(spec))
        if timed is not None:  # the time asked by a generic word: the answer without its clock times
            groups.append((timed[1], timed[0]))
        grouped = {f.lower() for g, _ in groups for f in g}
        written = [f for f in written_facts(spec, t, text, index) if f.lower() not in grouped]
        if written:  # "tell me what you moved": the values the turn's writes passed, one group
            groups.append((written, None))
        for facts, without in groups[:_MAX_GROUPS]:
            if without is None:
                without = text
                for fact in facts:
                    without = _dropped(without, fact)
            out.append(Mutation("text_drop", f"reference[{t}].steps[{s}].say",
                                f"turn {t}: the answer without {', '.join(map(repr, facts))} (what the request asks "
                                "for)", replaced(spec.reference, t, s, ReferenceStep(say=without)),
                                code="asked_unchecked", group=ASKED_GROUP + f"reference[{t}].steps[{s}].say"))
    return out


# An asking sentence about the agent's own work ("tell me what you moved", "let me know what you changed", "how many
# you added"): what it asks for is what the writes did, not a field a word names.
_ASKS_DONE = re.compile(r"\b(?:what|how\s+many|how\s+much)\s+(?:\w+\s+){0,2}?you(?:'ve|\s+have|\s+just)?\s+"
                        r"(?!are\b|were\b|can\b|could\b|think\b|need\b|want\b|see\b|find\b|found\b|read\b|know\b)"
                        r"[a-z]{3,}", re.IGNORECASE)


def asks_done(request: str) -> bool:
    """Whether a sentence of `request` that asks for an answer asks what the agent did (`_ASKS_DONE`)."""
    return any(_ASK.search(s) and _ASKS_DONE.search(s) for s in _SENTENCE.findall(request))


def _stated(text: str, value: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", text, re.IGNORECASE) is not None


def written_facts(spec: EnvSpec, t: int, text: str, index: EntityIndex) -> list[str]:
    """The values turn `t`'s writes passed that its answer `text` states, where its request asks what the agent did
    (`asks_done`): each a number, a word or a phrase the request does not state, not a date-time (read in any zone by
    `_without_times`) and not a record, person or channel the call names (the store a transfer goes to) unless it is
    the new value of a field the run changed (the new assignee). A reply check that reads none of them (the items
    moved, not how many) passes an answer that misreports the work."""
    if t >= len(spec.turns) or not asks_done(spec.turns[t].content):
        return []
    request = spec.turns[t].content
    tools = spec_catalog(spec)
    before = base_world(spec)
    new_values: set[str] = set()  # the values fields of existing records took in the run
    for (app, table, rid), fields in index.changed.items():
        try:
            old = before.table(app, table).get(rid)
        except KeyError:
            continue
        was = {} if old is None else old.model_dump(mode="json")
        for name, value in fields.items():
            if value != was.get(name):
                new_values |= {str(v).lower() for v in leaves(value)} - {str(v).lower() for v in leaves(was.get(name))}
    out: list[str] = []
    for step in spec.reference[t].steps:
        call = step.call
        tool = tools.get(call.name) if call is not None else None
        if call is None or tool is None or tool.kind != "write":
            continue
        for leaf in leaves(call.arguments):
            if isinstance(leaf, bool) or not isinstance(leaf, str | int | float):
                continue
            value = str(leaf).strip()
            if (not value or value in out or _ISO_TIME.search(value) or not _stated(text, value)
                    or _stated(request, value) or (index.is_entity(value) and value.lower() not in new_values)):
                continue
            out.append(value)
    return out


# Words of an asking sentence that ask for a time without naming a field: "the time you picked", "the slot you chose",
# "when it is", "what time", "the new start".
_TIME_WORDS = frozenset({"time", "slot", "when", "hour", "start"})
_ISO_TIME = re.compile(r"\b(?P<date>\d{4}-\d{2}-\d{2})T(?P<h>\d{2}):(?P<m>\d{2})(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})(?![\w:])")


def zones(spec: EnvSpec) -> set[str]:
    """The time zones of the spec's directory, and UTC."""
    try:
        people = base_world(spec).table("directory", "people")
    except KeyError:
        return {"UTC"}
    return {p.timezone for p in people if p.timezone} | {"UTC"}


def _written_instants(spec: EnvSpec, t: int) -> set[int]:
    """The instants (epoch seconds) of the date-times the reference's writes pass up to turn `t`."""
    out: set[int] = set()
    tools = spec_catalog(spec)  # a declared write too (`gcal_book_event`), by the op it runs
    for turn in spec.reference[:t + 1]:
        for step in turn.steps:
            call = step.call
            tool = tools.get(call.name) if call is not None else None
            if call is None or tool is None or tool.kind != "write":
                continue
            for leaf in leaves(call.arguments):
                if isinstance(leaf, str):
                    out |= {parse_time(m.group(0)) for m in _ISO_TIME.finditer(leaf)}
    return out


def _without_times(text: str, request: str, instants: set[int], zone_names: set[str]) -> tuple[str, list[str]] | None:
    """(the answer without the clock times of the instants the run wrote, in any zone of `zone_names` (an ISO
    date-time keeps its date), the times left out), where the request asks for a time by a generic word
    (`_TIME_WORDS`: no field names it); None where it asks none or the answer states none."""
    if not instants or not asked_words(request) & _TIME_WORDS:
        return None
    clocks = {(local.hour, local.minute) for i in instants for z in zone_names
              for local in (datetime.fromtimestamp(i, zone(z)),)}
    spans = [(m.start("date") + 10, m.end()) for m in _ISO_TIME.finditer(text) if parse_time(m.group(0)) in instants]
    spans += [(w.start, w.end) for w in mentions(text) if w.kind == "time" and w.values[0][1:] in clocks
              and not any(a <= w.start < b for a, b in spans)]
    if not spans:
        return None
    out, at = [], 0
    for a, b in sorted(spans):
        out.append(text[at:a])
        at = b
    return "".join(out) + text[at:], [text[a:b] for a, b in sorted(spans)]
