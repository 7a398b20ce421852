"""Lists whose order nobody asked for: the reference's reply or message lists several records of one kind ("I fixed
the roster rows of Dario Adeyemi, Viktor Kowalski", "Paused a (last run ...); b (last run ...)", "Moved 12 x HSET-53,
8 x CAM-20 from ..."), in the order its run happened to meet them, and a check wants that order (a regex
`dario.*viktor`, a `contains` of "Dario Adeyemi, Viktor Kowalski"). An honest agent that lists the same records in
another order fails (`list_order_pinned`).

A list is a run of two or more items, cut at `; `, `, `, ` and ` or a new line (a bullet or a number after it), each
item naming one record of the same table of the initial world (by its id, name, title or sku; one name of that table
in the item, names of other tables aside), no two the same. Each
item keeps what it says about its record: the first item starts where its words before the record match, by shape
(digits and plurals aside), those of the second item ("Moved | 12 x HSET-53" after "8 x CAM-20"), and the last ends
where its words after the record match those of the one before; a run whose ends do not line up so is cut short from
its end until they do (a run of fewer than two items is left alone).
The replay has every such list of the text (within one sentence) in reverse. Outputs of a turn are tried only
where no clause of the turn that asks for an output ("tell me", "send ... a message", "list", "report") words a sort
or an order ("sorted", "highest first", "by priority", "in order"); a sort asked for a stored value ("write their
names, sorted, into the config entry") counts too where its clause says "write", which leaves the list alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from coworkenv.spec import EnvSpec, ReferenceStep
from coworkenv.validate._user_formats import UserFormatted, rewritten
from coworkenv.validate.mutations import is_write
from coworkenv.world import World

# Where items of a list part: "; ", ", " (", and "), " and ", a new line (with a bullet or a number).
_SEP = re.compile(r";[ \t]+|,[ \t]+(?:and[ \t]+)?|[ \t]+and[ \t]+|\n+[ \t]*(?:[-*\u2022][ \t]+|\d+[.)][ \t]+)?")
# Words by which a request asks for a sort ("sorted by", "highest first", "by priority", "in order").
_SORT = re.compile(
    r"\b(sort(?:ed)?|rank(?:ed|ing)?|alphabetic\w*|chronolog\w*|ascending|descending|highest|lowest|largest|smallest|"
    r"biggest|oldest|newest|earliest|latest|most|least|top|by (?:priority|severity|date|time|name|size|count|value)|"
    r"in (?:the |that |this |\w+ )?order|order(?:ed)? by|ordered|one by one|numbered)\b", re.IGNORECASE)
# Words by which a clause asks for an output (a reply or a message).
_OUTPUT = re.compile(
    r"\b(tell|let \w+ know|report|list|summar\w*|show|give|answer|repl(?:y|ies)|confirm|message|dm|mail|e-?mail|post|"
    r"write|send|notify)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[.!?;:]\s+|,?\s+(?:and\s+)?then\s+")
_FIELDS = ("id", "name", "title", "sku")
_MAX_TABLE = 500  # larger tables are streams (log lines), whose records a reply does not list by name
_TOKEN = re.compile(r"\w+|[^\w\s]")
# A word of a record's name: "svc-payments", "HSET-53", "reports/q4-review.md", "Dario" (ends on a letter or digit,
# so a sentence's full stop is not part of it).
_WORD = re.compile(r"\w(?:[\w./@+-]*\w)?")
_SENTENCE = re.compile(r"(?<=[.!?])(\s+)(?=\S)")  # kept by split: the space between two sentences


def reordered_lists(spec: EnvSpec, world: World) -> Iterator[UserFormatted]:
    """One replay per reply or written free text holding a list of records (see the module docstring) in reverse."""
    names: _Names | None = None
    for t, turn in enumerate(spec.reference[:len(spec.turns)]):
        texts = [(s, step) for s, step in enumerate(turn.steps) if _texts(spec, step)]
        if not texts or _asks_sorted(spec.turns[t].content):
            continue
        for s, _ in texts:
            if names is None:
                names = _Names(world)
            found = rewritten(spec, t, s, names.rewrite,
                              "the reply of turn {t} with its list in reverse: {new!r}",
                              "{tool} with its list in reverse: {shown}")
            if found is not None:
                yield found


def _asks_sorted(turn: str) -> bool:
    """Whether a clause of the turn that asks for an output (a reply, a message) words a sort or an order; a sort
    asked for elsewhere ("record their names in the config entry: alphabetical") is the stored value's."""
    return any(_OUTPUT.search(clause) and _SORT.search(clause) for clause in _CLAUSE.split(turn))


def _texts(spec: EnvSpec, step: ReferenceStep) -> bool:
    """Whether a step writes text that may hold a list: a reply, or a write (a declared one too) with a free-text
    argument."""
    if step.say is not None:
        return len(_SEP.findall(step.say)) > 0
    call = step.call
    return (call is not None and is_write(call.name, spec)
            and any(isinstance(v, str) and " " in v.strip() and _SEP.search(v) for v in call.arguments.values()))


class _Names:
    """The names of the initial world's records (id, name, title, sku), each with the tables holding it."""

    def __init__(self, world: World) -> None:
        tables: dict[str, set[str]] = {}
        for table in world.tables():
            if len(table) > _MAX_TABLE:
                continue
            key, fields = f"{table.app}.{table.name}", None
            for record in table:
                if fields is None:  # the record type's own fields (a missing attribute is slow on a model)
                    fields = [f for f in _FIELDS if f in type(record).model_fields]
                for value in (record.__dict__.get(f) for f in fields):
                    if isinstance(value, str) and 4 <= len(value) <= 60 and not value.isdigit():
                        tables.setdefault(value.lower(), set()).add(key)
        self.tables = tables
        self.longest = max((len(_WORD.findall(name)) for name in tables), default=0)

    def find(self, text: str) -> list[tuple[str, int, int]]:
        """(name, start, end) of each record name in the text, whole words, the longest first, not overlapping."""
        words = list(_WORD.finditer(text))
        found, k = [], 0
        while k < len(words):
            for n in range(min(self.longest, len(words) - k), 0, -1):
                last = words[k + n - 1]
                if any(text[words[j].end():words[j + 1].start()] != " " for j in range(k, k + n - 1)):
                    continue  # a name's words are one space apart
                name = text[words[k].start():last.end()].lower()
                if name in self.tables:
                    found.append((name, words[k].start(), last.end()))
                    k += n
                    break
            else:
                k += 1
        return found

    def rewrite(self, text: str, _reply: bool) -> str | None:
        """`reversed`, for replies and written text alike (`rewritten`)."""
        return self.reversed(text)

    def reversed(self, text: str) -> str | None:
        """The text with every list of records in reverse (a list ends with its sentence), or None where it holds
        none."""
        if not self.tables or not _SEP.search(text):
            return None
        parts, changed = [], False
        for sentence in _SENTENCE.split(text):
            new = self._reversed_in(sentence) if _SEP.search(sentence) else None
            parts.append(sentence if new is None else new)
            changed = changed or new is not None
        return "".join(parts) if changed else None

    def _reversed_in(self, text: str) -> str | None:
        cuts = [0]
        for m in _SEP.finditer(text):
            cuts += [m.start(), m.end()]
        cuts.append(len(text))
        items = [(cuts[k], cuts[k + 1]) for k in range(0, len(cuts), 2)]  # (start, end) of each item
        named = [self._named(text[a:b]) for a, b in items]
        out: list[str] = []
        at, changed, k = 0, False, 0
        while k < len(items):
            (run, names), spans = self._run(named, k), None
            while len(run) >= 2 and spans is None:  # the longest run from k whose ends line up
                spans = _cores(text, [items[i] for i in run], names[:len(run)])
                run = run if spans is not None else run[:-1]
            if spans is None:
                k += 1
                continue
            k = run[-1] + 1
            cores = [text[a:b] for a, b in spans]
            out.append(text[at:spans[0][0]])
            for n, core in enumerate(reversed(cores)):
                out.append(core)
                if n + 1 < len(cores):
                    out.append(text[spans[n][1]:spans[n + 1][0]])
            at, changed = spans[-1][1], True
        if not changed:
            return None
        out.append(text[at:])
        return "".join(out)

    def _named(self, item: str) -> dict[str, tuple[tuple[int, int], str]]:
        """{table: (span of the name, the name)} for each table of which the item names exactly one record."""
        by_table: dict[str, list[tuple[str, int, int]]] = {}
        for name, start, end in self.find(item):
            tables = self.tables[name]
            if len(tables) == 1:
                by_table.setdefault(next(iter(tables)), []).append((name, start, end))
        return {table: ((found[0][1], found[0][2]), found[0][0]) for table, found in by_table.items()
                if len({f[0] for f in found}) == 1}

    @staticmethod
    def _run(named: list[dict[str, tuple[tuple[int, int], str]]], k: int) -> tuple[list[int], list[tuple[int, int]]]:
        """The longest run of items from `k` on naming distinct records of one table, and the names' spans."""
        best: tuple[list[int], list[tuple[int, int]]] = ([], [])
        for table, (span, name) in sorted(named[k].items()):
            run, spans, seen = [k], [span], {name}
            while run[-1] + 1 < len(named) and (nxt := named[run[-1] + 1].get(table)) is not None \
                    and nxt[1] not in seen:
                run.append(run[-1] + 1)
                spans.append(nxt[0])
                seen.add(nxt[1])
            if len(run) > len(best[0]):
                best = (run, spans)
        return best


def _shape(token: str) -> str:
    return re.sub(r"\d+", "#", token.lower()).removesuffix("s")


def _cores(text: str, items: list[tuple[int, int]], names: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """The spans of the items' own words: the first item from where its words before the name line up with the
    second's, the last up to where its words after the name line up with the one's before it; None where they do
    not line up."""
    spans = [(a, b) for a, b in items]
    (a0, b0), (n0s, _) = items[0], names[0]
    a1, _ = items[1]
    before = [_shape(m[0]) for m in _TOKEN.finditer(text[a1:a1 + names[1][0]])]
    mine = list(_TOKEN.finditer(text[a0:a0 + n0s]))
    if before:
        if len(mine) < len(before) or [_shape(m[0]) for m in mine[-len(before):]] != before:
            return None
        spans[0] = (a0 + mine[-len(before)].start(), b0)
    else:
        spans[0] = (a0 + n0s, b0)
    (al, bl), (_, nle) = items[-1], names[-1]
    ap, _ = items[-2]
    after = [_shape(m[0]) for m in _TOKEN.finditer(text[ap + names[-2][1]:items[-2][1]])]
    mine = list(_TOKEN.finditer(text[al + nle:bl]))
    start = spans[-1][0]
    if after:
        if len(mine) < len(after) or [_shape(m[0]) for m in mine[:len(after)]] != after:
            return None
        spans[-1] = (start, al + nle + mine[len(after) - 1].end())
    else:
        spans[-1] = (start, al + nle)
    return spans
