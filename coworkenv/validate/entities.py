"""The people, channels and records of a world that wrong alternatives are drawn from, and the facts a text states.

`EntityIndex` ranks alternatives: the values the checks name first (a check accepting "the right one or
another" names the other), then a few more in world order. It also rewrites texts: facts stated wrongly, facts
dropped, clock times the checks name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from coworkenv.spec import EnvSpec
from coworkenv.spec_regex import PatternRefused, PatternTimeout, compiled, search
from coworkenv.world import World

MAX_ID_CHARS = 40
_SKIPPED_TABLES = frozenset({("logs", "lines")})  # agents never pass log line ids to writes
_MIN_PHRASE = 4  # a shorter term ("p1", "ok") is a word many texts hold, not one record's fact
_FACT = re.compile(r"[\w.@#+/-]*\d[\w.@#:+/-]*|[\w.+-]+@[\w.-]+|#[\w-]+")
_DIGITS = re.compile(r"\d+")
# A code ends at a space, a bracket or a sentence's full stop, not inside a path or a file name (cost-2026.md).
_CODE = re.compile(r"(?<![\w/.-])[A-Za-z]+-[A-Za-z0-9]*\d[A-Za-z0-9-]*(?![\w/-]|\.\w)")
_NUMBER = re.compile(r"(?<![\w/.-])\d[\d,.]*\d(?![\w/-])")
_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|"
          r"Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)")
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
# A date an answer states (defects113): ISO with or without its time (2027-04-19, 2027-04-19T14:00Z), numeric with
# slashes (19/04/2027, 2027/04/19) and spelled (19 April 2027, April 19, 2027, 19 Apr, Apr 19). `_NUMBER` stops at a
# hyphen or slash, so a reply whose answer is such a date kept it in its "without its facts" near miss.
_DATE = re.compile(
    r"(?<![\w/.-])(?:\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
    r"|\d{4}/\d{1,2}/\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4})(?![\w/-])"
    rf"|\b(?:{_DAY}\s+(?:of\s+)?{_MONTH}\.?(?:,?\s+\d{{4}})?|{_MONTH}\.?\s+{_DAY}(?:,?\s+\d{{4}})?)\b"
    rf"|\b{_MONTH}\.?\s+\d{{4}}\b")
# A day an answer states by its name or from today (defects118): "Thursday", "next Monday", "tomorrow", "in 3 days",
# "in two weeks". The world holds it as an ISO date (`relative_days` reads which), so a reply whose answer is such a
# day kept it in its "without its facts" near miss, and a check reading only the question's words passed a wrong day.
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_COUNT_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "a couple of": 2}
_RELATIVE_DAY = re.compile(
    r"\b(?:(?P<which>next|this|coming|last)\s+)?(?P<weekday>(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b(?!\.\w)"
    r"|\b(?P<near>the\s+day\s+after\s+tomorrow|today|tonight|tomorrow|yesterday)\b"
    r"|\bin\s+(?P<count>\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|a\s+couple\s+of)\s+"
    r"(?P<unit>days?|weeks?)\b", re.IGNORECASE)
_NEAR_DAYS = {"today": (0,), "tonight": (0,), "tomorrow": (1,), "yesterday": (-1,)}
# Other shapes an answer takes (defects115): a link, a mail address, a time of day (`2:30 pm`, `9:30`), an amount
# with its currency sign (`$5`), a share (`7%`), a version (`v2.3`), a duration or size with its unit (`3 days`,
# `5 GB`). `_NUMBER` drops only numbers of two or more digits, and those only where no letter or sign is glued to
# them, so a reply whose answer is `7%`, `v2.3` or an address kept it in its "without its facts" near miss.
_SHAPES = re.compile(
    r"\bhttps?://[^\s<>()\"']*[^\s<>()\"'.,;:!?]"
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|\b\d{1,2}(?::[0-5]\d){0,2}\s?[ap](?:\.m\.|m\b)|(?<![\d:.])\b\d{1,2}:[0-5]\d(?::[0-5]\d)?\b(?![:.]\d)"
    r"|[$\u20ac\u00a3\u00a5]\s?\d(?:[\d,.]*\d)?"
    r"|(?<![\w.])\d+(?:[.,]\d+)?\s?%"
    r"|\bv\d+(?:\.\d+)+\b"
    r"|(?<![\w.,/-])\d+(?:[.,]\d+)?\s?(?:ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|"
    r"years?|[KMGT]i?B)\b", re.IGNORECASE)
CLOCK_TIME = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")
# People one condition admits for it to read as "this one or that one" (more: "anyone of the team", another matter).
_MAX_LISTED = 3


class EntityIndex:
    """The people, channels and record ids of a world, to pick plausible wrong alternatives from.

    `preferred` are values the checks name (lower case): alternatives among them are tried first, since a
    check that accepts "the right one or another" names the other.
    """

    def __init__(self, world: World, preferred: set[str] | None = None,
                 choices: list[str | tuple[str, ...]] | None = None) -> None:
        self.preferred = preferred or set()
        # What the checks' conditions accept as "this one or that one": each `in` list, each `matches` pattern
        # (`check_choices`); people two of them admit were named together.
        self._choices = choices or []
        self._listed: list[set[tuple[int, str]]] | None = None
        people = sorted(world.table("directory", "people"), key=lambda p: p.id)
        self.people = [(p.id, p.email, p.chat_handle) for p in people]
        self.person_of: dict[str, tuple[int, int]] = {}  # lowered ref -> (person index, form: 0 id 1 email 2 handle)
        for i, forms in enumerate(self.people):
            for form, ref in enumerate(forms):
                if ref:
                    self.person_of.setdefault(ref.lower(), (i, form))
            if forms[2]:
                self.person_of.setdefault("@" + forms[2].lower(), (i, 2))
        channels = sorted((c for c in world.table("chat", "channels") if not c.is_dm), key=lambda c: c.id)
        self.channels = [(c.id, c.name) for c in channels]
        self.channel_of: dict[str, tuple[int, int]] = {}
        for i, (cid, name) in enumerate(self.channels):
            self.channel_of.setdefault(cid.lower(), (i, 0))
            self.channel_of.setdefault(name.lower(), (i, 1))
            self.channel_of.setdefault(name.lower().lstrip("#"), (i, 1))
        # Addresses outside the directory (customers, vendors) that the world's mail names.
        known = {forms[1].lower() for forms in self.people if forms[1]}
        outside: set[str] = set()
        for message in world.table("mail", "messages"):
            for address in (message.sender, *message.to, *message.cc):
                if "@" in address and address.lower() not in known:
                    outside.add(address)
        self.emails = [forms[1] for forms in self.people if forms[1]] + sorted(outside)
        self._world = world
        # Records the indexed run changed, their fields as it left them (filled by whoever ran it).
        self.changed: dict[tuple[str, str, str], dict[str, Any]] = {}
        # Records the indexed run created, their fields as it left them (filled by whoever ran it): a fact of the
        # answer may be one of them (the title of a to-do the task adds).
        self.created: dict[tuple[str, str, str], dict[str, Any]] = {}
        # When the indexed run made each reference call (ISO, the audit's clock), by (turn, step) (filled likewise).
        self.call_times: dict[tuple[int, int], str] = {}
        self._holders: dict[str, set[tuple[str, str, str]]] | None = None
        self.table_ids: dict[tuple[str, str], list[str]] = {}
        self.table_of: dict[str, tuple[str, str]] = {}
        for table in world.tables():
            key = (table.app, table.name)
            if key in _SKIPPED_TABLES or key in (("directory", "people"), ("chat", "channels")):
                continue
            ids = sorted(table.ids())
            self.table_ids[key] = ids
            for record_id in ids:
                self.table_of.setdefault(record_id, key)

    def record(self, app: str, table: str, record_id: str) -> dict[str, Any] | None:
        """The fields of the record of `app.table` with that id as the run that made the index left it: the
        snapshot taken where the run changed it (`changed`: the world may be rewound since), else the world's."""
        found = self.changed.get((app, table, record_id))
        if found is not None:
            return found
        record = self._world.table(app, table).get(record_id)
        return None if record is None else record.model_dump(mode="json")  # type: ignore[no-any-return]

    def holders(self, value: str) -> set[tuple[str, str, str]]:
        """The records (app, table, id) a field of which holds exactly `value` (case aside), ids excepted, and those
        the run created whose text holds it as a phrase (a to-do titled `vendor shortlist (msg-225)`); the index of
        field values is built on first use."""
        if self._holders is None:
            self._holders = {}
            for table in self._world.tables():
                if (table.app, table.name) in _SKIPPED_TABLES:
                    continue
                for rec in table:
                    for name in type(rec).model_fields:
                        v = getattr(rec, name)
                        if name != "id" and isinstance(v, str | int) and not isinstance(v, bool):
                            self._holders.setdefault(str(v).lower(), set()).add((table.app, table.name, rec.id))
        lowered = value.lower()
        found = set(self._holders.get(lowered, set()))
        if len(lowered) >= _MIN_PHRASE:  # a record the run made, whose text holds the value as a phrase
            phrase = re.compile(rf"(?<!\w){re.escape(lowered)}(?!\w)")
            found |= {key for key, fields in self.created.items() if key[:2] not in _SKIPPED_TABLES and any(
                k != "id" and isinstance(v, str) and phrase.search(v.lower()) for k, v in fields.items())}
        return found

    def rank(self, options: list[Any], limit: int) -> list[Any]:
        """Options the checks name first (all of them), then up to `limit` others, in the given order."""
        named = [o for o in options if str(o).lower() in self.preferred]
        return named + [o for o in options if str(o).lower() not in self.preferred][:limit]

    def recipients(self, value: str, avoid: set[str], limit: int = 1) -> list[str]:
        """Other people or channels written the same way as `value` (empty: `value` is neither). Those the checks
        name come first, whatever spelling they name them in: a channel by its id, name or bare name (`c-general`
        names `#general`), and, where the checks read the direct conversation with the person `value` names, the
        others whose conversation with the user they name (`dm-u-alma-u-zoe` names `u-zoe`): a check admitting
        "this conversation or that one" names the other (defects105). Likewise a person whom one condition of a check
        (an `in` list, a `matches` pattern) accepts beside the person `value` names, in whatever spelling it names
        them (`assignee in [u-oscar, u-lin]` for an argument `oscar@...`): tried as that condition spells them
        (the tools take every spelling; a call matcher compares the written one), defects110."""
        lowered = value.lower()
        avoided = {a.lower() for a in avoid}
        options: list[str] = []
        named: list[str] = []  # those the checks name in another spelling than the option's
        if lowered in self.person_of:
            index, form = self.person_of[lowered]
            by_dm = self._dm_named(self.people[index][0])  # the checks read the conversation with this person
            for i, forms in enumerate(self.people):
                alt = forms[form]
                if i != index and alt and alt.lower() not in avoided:
                    options.append("@" + alt if value.startswith("@") else alt)
                    if by_dm and self._dm_named(forms[0]):
                        named.append(options[-1])
                        continue
                    other = self._listed_with(index, i)  # `assignee in [u-oscar, u-lin]` for an argument oscar@...
                    if other is not None and other.lower() not in avoided:
                        named.append(other)
        elif lowered in self.channel_of:
            index, form = self.channel_of[lowered]
            for i, names in enumerate(self.channels):
                alt = names[form]
                if i != index and alt.lower() not in avoided:
                    options.append(alt.lstrip("#") if form == 1 and not value.startswith("#") else alt)
                    if self._named(*names, names[1].lstrip("#")):
                        named.append(options[-1])
        elif _EMAIL.fullmatch(value):  # an address outside the directory: another address the world knows
            options = [e for e in self.emails if e.lower() != lowered and e.lower() not in avoided]
        return named + [o for o in self.rank(options, limit) if o not in named]

    def _listed_with(self, person: int, other: int) -> str | None:
        """`other`'s spelling (id, email, handle, `@handle`) that a check's `in` list or `matches` pattern accepts
        beside a spelling of `person` (None: no condition accepts both): the check admits "this person or that one",
        whatever spelling the written argument uses (the tools take every spelling, the state keeps one)."""
        if self._listed is None:
            self._listed = [found for found in map(self._admitted_people, self._choices)
                            if 1 < len({i for i, _ in found}) <= _MAX_LISTED]
        for found in self._listed:
            if any(i == person for i, _ in found):
                spelling = next((s for i, s in found if i == other), None)
                if spelling is not None:
                    return spelling
        return None

    def _admitted_people(self, choice: str | tuple[str, ...]) -> set[tuple[int, str]]:
        """(person index, spelling) of each spelling of a person (id, email, handle, `@handle`) that an `in` list (a
        tuple) names or a `matches` pattern (a string) finds."""
        pattern: Any = None
        if isinstance(choice, str):
            try:
                pattern = compiled(choice)
            except PatternRefused:
                return set()
        listed = {v.lower() for v in choice} if isinstance(choice, tuple) else set()
        out: set[tuple[int, str]] = set()
        for i, forms in enumerate(self.people):
            for spelling in (*forms, "@" + forms[2] if forms[2] else ""):
                if spelling and (spelling.lower() in listed if pattern is None else _admits(pattern, spelling)):
                    out.add((i, spelling))
        return out

    def _named(self, *forms: str) -> bool:
        """Whether the checks name a channel by any of its forms (id, name, bare name)."""
        return any(f.lower() in self.preferred for f in forms)

    def _dm_named(self, person: str) -> bool:
        """Whether the checks name the user's direct conversation with `person` (`dm-u-anya-u-lin`, as the chat tool
        names it: its members' ids, sorted)."""
        return "dm-" + "-".join(sorted({self._world.user or "me", person})).lower() in self.preferred

    def recipient(self, value: str, avoid: set[str]) -> str | None:
        """Another person or channel written the same way as `value` (None: `value` is neither)."""
        found = self.recipients(value, avoid)
        return found[0] if found else None

    def is_entity(self, value: str) -> bool:
        """Whether `value` names a person, channel or record of the world (an id, an email, a handle)."""
        return self.is_recipient(value) or value in self.table_of or value.lower() in self.table_of

    def is_recipient(self, value: str) -> bool:
        lowered = value.lower()
        return lowered in self.person_of or lowered in self.channel_of or _EMAIL.fullmatch(value) is not None

    def other_records(self, value: str, avoid: set[str], limit: int = 1) -> list[str]:
        """Other ids of the table `value` is an id of (empty: it is no record's id)."""
        key = self.table_of.get(value)
        if key is None:
            return []
        return self.rank([i for i in self.table_ids[key] if i != value and i not in avoid], limit)

    def other_record(self, value: str, avoid: set[str]) -> str | None:
        """Another id of the table `value` is an id of (None: it is no record's id)."""
        found = self.other_records(value, avoid)
        return found[0] if found else None

    def alter_facts(self, text: str) -> str | None:
        """`text` with every fact the checks name (`preferred`) stated wrongly: another record, person or
        channel of the same kind, a number moved by one, or a letter changed (None when it states none)."""
        altered = text
        for fact in sorted(self.preferred, key=len, reverse=True):
            if len(fact) < 2 or fact not in altered.lower():
                continue
            whole = _whole(fact)
            if not whole.search(altered):
                continue
            wrong = self._wrong(fact).replace("\\", "\\\\")  # a literal replacement, not a template
            altered = whole.sub(wrong, altered)
        return altered if altered != text else None

    def alter_codes(self, text: str) -> str | None:
        """`text` with every code the checks name (letters and digits: `BUG-311`, `svc-recs@5`) stated as another
        one (None when it states none)."""
        altered = text
        for fact in sorted(self.preferred, key=len, reverse=True):
            if _CODE.fullmatch(fact) and fact in altered.lower() and (whole := _whole(fact)).search(altered):
                altered = whole.sub(self._wrong(fact).replace("\\", "\\\\"), altered)
        return altered if altered != text else None

    def alter_each_fact(self, text: str, limit: int = 3) -> list[str]:
        """`text` with one fact the checks name stated wrongly, for each of its first `limit` facts that have a
        digit and that a check's pattern admits together with the wrong value (a version `svc-recs@5` a condition
        matches as `svc-recs@\\d+`, which `svc-recs@6` meets too). Empty when the text states fewer than two facts:
        `alter_facts` already covers one."""
        found = [f for f in sorted(self.preferred, key=len, reverse=True)
                 if len(f) >= 2 and f in text.lower() and _whole(f).search(text)]
        if len(found) < 2:
            return []
        patterns = [p for p in (_pattern(v) for v in self.preferred) if p is not None]
        out: list[str] = []
        for fact in found:
            digits = list(_DIGITS.finditer(fact))
            if len(out) == limit or not digits:
                continue
            last = digits[-1]
            bumped = f"{fact[:last.start()]}{int(last.group(0)) + 1}{fact[last.end():]}"  # svc-recs@6 for @5
            wrong = next((w for w in (self._wrong(fact), bumped)
                          if any(_admits(p, fact) and _admits(p, w) for p in patterns)), None)
            if wrong is None:
                continue
            altered = _whole(fact).sub(wrong.replace("\\", "\\\\"), text)
            if altered != text:
                out.append(altered)
        return out

    def alter_numbers(self, text: str) -> str | None:
        """`text` with every number the checks name (an HTTP status, a count: digits only) one higher (None when
        it states none)."""
        altered = text
        for fact in self.preferred:
            if len(fact) >= 2 and fact.isdigit() and fact in altered:
                altered = _whole(fact).sub(str(int(fact) + 1).zfill(len(fact)), altered)
        return altered if altered != text else None

    def drop_facts(self, text: str) -> str | None:
        """`text` without its facts: the dates it states (`2027-04-19`, `19 April 2027`, `Thursday`, `tomorrow`), its links, addresses, times
        of day, amounts, shares, versions and durations (`_SHAPES`), the codes it quotes (`ESC-4471`, `req-7f3a91`)
        and its numbers of two or more digits (None when it states none, or nothing would be left)."""
        vague = " ".join(_NUMBER.sub("", _CODE.sub("", _SHAPES.sub("", _RELATIVE_DAY.sub("", _DATE.sub("", text)))))
                         .split())
        return vague if vague and vague != " ".join(text.split()) else None

    @property
    def user(self) -> str | None:
        """The directory id of the person the agent works for (None: the world names none)."""
        return self._world.user

    def person_id(self, ref: str) -> str | None:
        """The directory id of the person `ref` names (an id, an email, a handle, `@handle`); None: nobody."""
        found = self.person_of.get(ref.lower())
        return None if found is None else self.people[found[0]][0]

    def channel_id(self, ref: str) -> str | None:
        """The id of the channel `ref` names (its id, `#name` or bare name); None: no channel (a DM is none)."""
        found = self.channel_of.get(ref.lower())
        return None if found is None else self.channels[found[0]][0]

    def address(self, ref: str) -> str | None:
        """The mail address (lower case) of the person `ref` names, or `ref` itself where it is an address."""
        found = self.person_of.get(ref.lower())
        if found is not None:
            email = self.people[found[0]][1]
            return email.lower() if email else None
        return ref.lower() if _EMAIL.fullmatch(ref) else None

    def rows(self, app: str, table: str) -> list[dict[str, Any]]:
        """The records of `app.table` in the indexed world (as the run that made the index left it), as JSON."""
        return [record.model_dump(mode="json") for record in self._world.table(app, table)]

    def checked_times(self) -> set[str]:
        """The clock times (HH:MM) the checks name, e.g. in a body pattern `14:00|15:00`."""
        return {m.group(0) for value in self.preferred for m in CLOCK_TIME.finditer(value)}

    def _wrong(self, fact: str) -> str:
        alts = self.recipients(fact, set()) or self.other_records(fact, set())
        if alts:
            return alts[0]
        digits = list(_DIGITS.finditer(fact))
        if digits:
            last = digits[-1]
            bumped = str(int(last.group(0)) + 1).zfill(len(last.group(0)))
            return fact[:last.start()] + bumped + fact[last.end():]
        i = next((k for k, c in enumerate(fact) if c.isalpha()), 0)
        return fact[:i] + ("x" if fact[i:i + 1].lower() != "x" else "y") + fact[i + 1:]


def _pattern(value: str) -> Any:
    """A check value that is a regular expression (it has a class, an escape or a repeat), compiled under the
    bounds of spec patterns (`coworkenv.spec_regex`); None for one they refuse."""
    if not any(c in value for c in "\\[]*+?"):
        return None
    try:
        return compiled(value, ignorecase=True)
    except PatternRefused:
        return None


def _admits(pattern: Any, text: str) -> bool:
    """Whether a check value's pattern matches `text`; one too slow on it counts as not (this only picks a wrong
    value to try)."""
    try:
        return search(pattern, text) is not None
    except PatternTimeout:
        return False


def stated_facts(text: str) -> list[str]:
    """The facts `drop_facts` leaves out of `text`, as it finds them: its dates, its days by name or from today
    (`relative_days`), then its other shapes (`_SHAPES`),
    its codes, its numbers of two or more digits."""
    found = [m.group(0) for m in _DATE.finditer(text)]
    rest = _DATE.sub("", text)
    found += [m.group(0) for m in _RELATIVE_DAY.finditer(rest)]
    rest = _RELATIVE_DAY.sub("", rest)
    found += [m.group(0) for m in _SHAPES.finditer(rest)]
    rest = _SHAPES.sub("", rest)
    found += [m.group(0) for m in _CODE.finditer(rest)]
    found += [m.group(0) for m in _NUMBER.finditer(_CODE.sub("", rest))]
    return found


def relative_days(fact: str, first: date, last: date) -> set[date] | None:
    """The dates a day stated by its name or from today (`_RELATIVE_DAY`: "Thursday", "next Monday", "tomorrow",
    "in 3 days") may name while the episode's clock runs from the day `first` to the day `last`: a weekday any such
    day of the week before `last` two weeks on, or after `first` a week back; a day from today counted from each day
    of the episode. None where `fact` is no such day."""
    found = _RELATIVE_DAY.fullmatch(fact.strip())
    if found is None:
        return None
    span = [first + timedelta(days=k) for k in range(max(0, (last - first).days) + 1)]
    if found.group("weekday"):
        wanted = _WEEKDAYS.index(found.group("weekday").lower())
        start = first - timedelta(days=7)
        days = [start + timedelta(days=k) for k in range((last - start).days + 15)]
        return {d for d in days if d.weekday() == wanted}
    if found.group("near"):
        near = found.group("near").lower()
        offsets: tuple[int, ...] = (2,) if near.startswith("the") else _NEAR_DAYS[near]
    else:
        count = found.group("count").lower()
        n = int(count) if count.isdigit() else _COUNT_WORDS[" ".join(count.split())]
        offsets = (n * (7 if found.group("unit").lower().startswith("week") else 1),)
    return {d + timedelta(days=k) for d in span for k in offsets}


def whole(fact: str) -> re.Pattern[str]:
    """`fact` as a whole token of a text (see `_whole`), case aside."""
    return _whole(fact)


@lru_cache(maxsize=8192)
def _whole(fact: str) -> re.Pattern[str]:
    """`fact` as a whole token: not inside a longer word or number (the field name "id" is no fact of "Astrid",
    "13" none of "2013"), though a plural counts ("mug" of "mugs") and an ISO time's "13:30" may follow its "T"."""
    left = r"(?<![a-z])" if fact[0].isalpha() else r"(?<!\d)" if fact[0].isdigit() else ""
    right = r"(?=(?:e?s)?(?![a-z]))" if fact[-1].isalpha() else r"(?!\d)" if fact[-1].isdigit() else ""
    return re.compile(left + re.escape(fact) + right, flags=re.IGNORECASE)


def check_values(spec: EnvSpec) -> set[str]:
    """Every string value the checks name, lower case (members of `in` lists included)."""
    out: set[str] = set()
    for check in spec.checks:
        for leaf in leaves(check.rule.model_dump(mode="json")):
            if isinstance(leaf, str) and len(leaf) <= MAX_ID_CHARS * 2:
                out.add(leaf.lower())
    return out


def check_choices(spec: EnvSpec) -> list[str | tuple[str, ...]]:
    """What the checks' conditions accept as one of several: each `in` list of strings (a tuple) and each `matches`
    pattern (a string), in the completion checks, the guards and the frame alike."""
    out: list[str | tuple[str, ...]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            op, expected = value.get("op"), value.get("value")
            if op == "in" and isinstance(expected, list) and all(isinstance(v, str) for v in expected):
                out.append(tuple(expected))
            elif op == "matches" and isinstance(expected, str):
                out.append(expected)
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for check in spec.checks:
        walk(check.rule.model_dump(mode="json"))
    return list(dict.fromkeys(out))


def leaves(value: Any) -> Iterator[Any]:
    """Every scalar inside nested dicts and lists."""
    if isinstance(value, dict):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from leaves(v)
    else:
        yield value


def held_leaves(spec: EnvSpec) -> Iterator[Any]:
    """Every scalar the world holds at some moment of an episode: the initial world's (its clock settings too), then
    what the dynamics' effects and log streams write and what the turns' changes put or set (a record a colleague
    uploads mid-episode, a config a rule rewrites). A fallback that looks in the world for the values an agent could
    read must read these too: read from the initial world alone, a check is judged against the wrong moment."""
    yield from leaves(spec.world.model_dump(mode="json"))
    yield from leaves([e.model_dump(mode="json") for r in spec.dynamics.rules for e in r.effects])
    yield from (s.message for s in spec.dynamics.streams)
    yield from leaves([e.model_dump(mode="json") for t in spec.turns for e in t.changes])
