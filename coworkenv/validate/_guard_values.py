"""Guards and triggers that name a value no call can carry: they never fire on the calls an agent really makes.

A `forbidden` guard counts every call matching its matcher, refused attempts too; a dynamics rule answers a call
matching its `on` matcher while its `when` holds. Each names
the record it is about by value: a task id, a service, a file path, a flag, an address. A value cut short
(`task_id: "tas"`), misspelled (`svc_media`, `smart-retry`), of a record that does not exist (`task-9` where the
list holds task-1..task-4), or, where the comparison is exact (a matcher's `where` condition, a `when`'s `equals`),
in another case than the world's (`SVC-KYC`), matches no call an agent makes on the real record: the guard stays
silent while the forbidden act is tried (refused attempts go uncounted: the frame sees only state changes) or done
(where no frame covers it), and the rule never fires. The probe of the mutations gate tries the guard's own call,
which always matches it, so it misses a value the tool takes without complaint (a new file, a declared tool, a
flag whose refusal names no missing record).

The reading is static. The values a call can carry are the world's: every record's id and string fields (list
items and map keys too) in the initial world, in the records the dynamics and the turns put or set, and in the
reference's calls, with a person's `@handle` and a channel's `#name`; and what the texts name (the user's turns,
the context, any text of a record: a path or an address the user forbids that no record holds yet). A guard value
that none of these holds (case aside where the matcher folds case: a call's `args`) is named when it is a near miss
of one an identifier holds (`_near`): a prefix of it (cut short), it with a tail (`svc-search-prod`), the same
letters and digits with other separators or case, one or two letters off, or the same shape with other digits (an id
of a record that does not exist: `evt-1014`, `task-9`). A value near nothing (free text: a subject, a body) is not
judged. A `matches` condition on an argument a tool takes only as an existing record (an id, a service, a flag, a
person, a channel, an attachment) that matches none of the world's values is named too, and so is a version number
(`to_version: 999`) outside the versions the world and the reference name (and the few an episode may add).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel

from coworkenv.apps import TOOLS
from coworkenv.bindings import spec_catalog
from coworkenv.spec import (
    CallMatcher,
    EnvSpec,
    FieldCond,
    FieldRule,
    ForbiddenRule,
    OnAction,
    PutRecord,
    RecordsRule,
    UpdateRecord,
)
from coworkenv.spec_regex import PatternRefused, PatternTimeout, search
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._held_values import map_keys
from coworkenv.world import World

# Arguments a tool takes only as a record the world holds (an id, a key, a service, a flag, a person, a channel, an
# attachment): a pattern on one must match something the world has. An address, a path or a URL may name something
# new (a mail to anyone, a file made), so a pattern on it is not judged.
_IDENT_ARG = re.compile(r"(?:^|_)(?:ids?|keys?|service|flag|person|channel|attachments)$")
_TOKEN = re.compile(r"[\w.@#/+:~-]+")
_EXACT_OPS = ("equals", "in")
_NAMED = re.compile(r"\w[\d@/._-]|\d")
_WHEN = re.compile(r"\d{4}-\d\d-\d\d|\b\d{1,2}:\d\d\b")
_MAX_LEAVES = 200_000  # string leaves read from a world at most (a very large world is read in part)
_VERSION = re.compile(r"(?:^|_)version$")
# Versions an episode may make past the highest one the world and the reference name (a config updated again).
_NEW_VERSIONS = 3


def _literal_values(annotation: Any, found: set[str]) -> None:
    if get_origin(annotation) is Literal:
        found.update(str(a) for a in get_args(annotation) if isinstance(a, str))
        return
    for arm in get_args(annotation):
        _literal_values(arm, found)


@lru_cache(maxsize=64)
def _state_literals(state: type[BaseModel]) -> frozenset[str]:
    """The values an app's record models' fields may take by their type (`folder: 'sent'`), held or not: the same
    for every spec, so read once."""
    found: set[str] = set()
    for field in state.model_fields.values():
        model = get_args(field.annotation)[0] if get_args(field.annotation) else None
        if isinstance(model, type) and issubclass(model, BaseModel):
            for record_field in model.model_fields.values():
                _literal_values(record_field.annotation, found)
    return frozenset(found)


@lru_cache(maxsize=1)
def _tool_literals() -> frozenset[str]:
    """The values the built-in tools' arguments may take by their type."""
    found: set[str] = set()
    for tool in TOOLS.values():
        for param in tool.params.model_fields.values():
            _literal_values(param.annotation, found)
    return frozenset(found)


class _Universe:
    """The values a call or a record can carry in this spec's world, exact and case-folded."""

    def __init__(self, spec: EnvSpec) -> None:
        self.exact: set[str] = set()
        self.mentioned: set[str] = set()  # tokens of texts as written
        self.versions: set[int] = set()  # version numbers records and calls name
        self._seen = 0
        for app_name in type(spec.world.apps).model_fields:
            state = getattr(spec.world.apps, app_name)
            if not isinstance(state, BaseModel):
                continue
            self.exact.update(_state_literals(type(state)))
            for table in type(state).model_fields:
                for record in getattr(state, table, None) or []:
                    if isinstance(record, BaseModel):
                        self._record(record.model_dump(mode="json"))
                    if app_name == "directory" and getattr(record, "chat_handle", None):
                        self.exact.update({"@" + record.chat_handle.lstrip("@"), record.chat_handle.lstrip("@")})
                    if app_name == "chat" and getattr(record, "name", None):
                        self.exact.update({"#" + str(record.name).lstrip("#"), str(record.name).lstrip("#")})
        self.exact.update(_tool_literals())
        for effect in [e for r in spec.dynamics.rules for e in r.effects] + [e for t in spec.turns for e in t.changes]:
            if isinstance(effect, PutRecord):
                self._record(effect.record)
            elif isinstance(effect, UpdateRecord):
                self._record({k.rsplit(".", 1)[-1]: v for k, v in effect.set.items()} | {
                    k.split(".", 1)[1]: None for k in effect.set if "." in k})
        for reference_turn in spec.reference:
            for step in reference_turn.steps:
                if step.call is not None:
                    self._leaves(step.call.arguments)
                    self._versions(step.call.arguments)
                if step.say:
                    self._text(step.say)
        for user_turn in spec.turns:
            self._text(user_turn.content)
            if user_turn.announce:
                self._text(user_turn.announce)
        self._text(spec.context)
        self.folded = {v.lower() for v in self.exact | self.mentioned}
        # A text's token is a candidate where it reads as a name (a path, an address, an id: a digit or a separator
        # inside), not a word.
        self.identifiers = sorted({v for v in self.exact if 3 <= len(v) <= 120 and not any(c.isspace() for c in v)}
                                  | {t for t in self.mentioned if 5 <= len(t) <= 120 and _NAMED.search(t)})

    def _record(self, fields: dict[str, Any]) -> None:
        """A record's values: its fields' names are not values (a map field's keys are)."""
        self._versions(fields)
        for value in fields.values():
            self._leaves(value)

    def _versions(self, fields: dict[str, Any]) -> None:
        """The version numbers a record or a call names (`version: 3`, `config_version: 5`, `to_version: 3`)."""
        for key, value in fields.items():
            if _VERSION.search(str(key)) and isinstance(value, int) and not isinstance(value, bool):
                self.versions.add(value)

    def _leaves(self, value: Any) -> None:
        if self._seen > _MAX_LEAVES:
            return
        if isinstance(value, dict):
            for k, v in value.items():
                self.exact.add(str(k))
                if v is not None:
                    self._leaves(v)
        elif isinstance(value, list | tuple):
            for v in value:
                self._leaves(v)
        elif isinstance(value, str):
            self._seen += 1
            self.exact.add(value)
            if any(c.isspace() for c in value):
                self._text(value)

    def _text(self, text: str) -> None:
        for token in _TOKEN.findall(text):
            self.mentioned.add(token.rstrip(".:;,)"))

    def near(self, value: str) -> str | None:
        """The world's identifier `value` is a near miss of (None: near none)."""
        for ident in self.identifiers:
            if _near(value, ident):
                return ident
        return None


def _squeezed(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def _shape(text: str) -> str:
    return re.sub(r"\d+", "0", text.lower())


def _near(value: str, ident: str) -> bool:
    v, u = value.lower().strip(), ident.lower()
    if not v or v == u or any(c.isspace() for c in v):
        return False  # free text (a subject, a body) is not a name
    if u.startswith(v) and len(v) >= 2:
        return True  # cut short
    if v.startswith(u) and v[len(u)] in "-_./@" and len(u) >= 3:
        return True  # a tail the world does not have (svc-search-prod)
    if _squeezed(v) == _squeezed(u) and _squeezed(v):
        return True  # other separators or case
    if any(c.isdigit() for c in v) and any(c.isdigit() for c in u) and _shape(v) == _shape(u) \
            and re.sub(r"\d", "", v) == re.sub(r"\d", "", u):
        return True  # the same kind of id, a record that does not exist
    return min(len(v), len(u)) >= 5 and _edits(v, u) <= (1 if min(len(v), len(u)) < 8 else 2)


def _edits(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (optimal string alignment), cut off above 2."""
    if abs(len(a) - len(b)) > 2:
        return 3
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


class _Reader:
    def __init__(self, spec: EnvSpec) -> None:
        self.spec = spec
        self.catalog = spec_catalog(spec)
        self._universe: _Universe | None = None

    @property
    def world(self) -> _Universe:
        if self._universe is None:
            self._universe = _Universe(self.spec)
        return self._universe

    def value(self, value: str, exact: bool) -> str | None:
        """Why `value` names nothing a call or record can carry (None: it names something, or nothing near). A date
        or a clock time is a value a write computes (a booking's end), not a name: not judged."""
        if _WHEN.search(value):
            return None
        world = self.world
        if value in world.exact or value in world.mentioned:
            return None
        if value.lower() in world.folded:
            if not exact:
                return None
            spelled = next(v for v in sorted(world.exact | world.mentioned) if v.lower() == value.lower())
            return f"the world spells it {spelled!r} and the comparison is exact"
        near = world.near(value)
        return None if near is None else f"nothing the world holds is {value!r}; it is a near miss of {near!r}"

    def version(self, value: int) -> str | None:
        """Why a version number names no version (None: one the world, the reference or an episode's few new
        versions hold, or the world names no version at all)."""
        held = self.world.versions
        if not held or value in held or min(held) <= value <= max(held) + _NEW_VERSIONS:
            return None
        return f"no record or call names version {value} (the world's run {min(held)} to {max(held)})"

    def matcher(self, where: str, matcher: CallMatcher) -> Iterator[tuple[str, str]]:
        for key, expected in matcher.args.items():
            if _VERSION.search(key) and isinstance(expected, int) and not isinstance(expected, bool):
                why = self.version(expected)
                if why is not None:
                    yield f"{where}.args.{key}", f"{matcher.tool} argument {key} = {expected}: {why}"
            for value in _strings(expected):
                why = self.value(value, exact=False)
                if why is not None:
                    yield f"{where}.args.{key}", f"{matcher.tool} argument {key} = {value!r}: {why}"
        tool = self.catalog.get(matcher.tool)
        params = getattr(getattr(tool, "params", None), "model_fields", {})
        for k, cond in enumerate(matcher.where):
            param = params.get(cond.field)
            listed = param is not None and "list" in str(param.annotation)  # `contains` on a list: membership
            yield from self.cond(f"{where}.where[{k}]", f"{matcher.tool} argument {cond.field}", cond, arg=True,
                                 listed=listed)

    def cond(self, where: str, what: str, cond: FieldCond | FieldRule, arg: bool,
             listed: bool = False) -> Iterator[tuple[str, str]]:
        field = cond.field if isinstance(cond, FieldCond) else cond.target.field
        if cond.op in _EXACT_OPS or (cond.op == "contains" and (listed or not isinstance(cond.value, str))):
            for value in _strings(cond.value):
                why = self.value(value, exact=True)
                if why is not None:
                    yield f"{where}.value", f"{what} {cond.op} {value!r}: {why}"
        elif cond.op == "matches" and arg and _IDENT_ARG.search(field.rsplit(".", 1)[-1]) and \
                isinstance(cond.value, str):
            try:
                if any(search(cond.value, v) is not None for v in self.world.identifiers):
                    return
            except (PatternRefused, PatternTimeout):
                return
            yield f"{where}.value", f"{what} matches {cond.value!r}: no value the world holds matches the pattern"


def unreal_guard_values(spec: EnvSpec) -> Iterator[tuple[str, str]]:
    """(path, message) for each value of a forbidden guard or of a dynamics rule's trigger or `when` that names
    nothing a call or record can carry, so the guard or the rule never fires. (A turn's `after_call` that never
    fires is the turns_reachable gate's: the reference must reach every turn.)"""
    reader = _Reader(spec)
    tail = ("so the guard never fires on the call an agent makes (a refused attempt goes uncounted); name the "
            "value as the world spells it")
    for _, check, where, rule in spec_rules(spec.checks):
        if isinstance(rule, ForbiddenRule):
            for path, why in reader.matcher(f"{where}.call", rule.call):
                yield path, f"forbidden guard {check.id!r}: {why}, {tail}"
    rule_tail = "so the rule never fires; name the value as the world spells it"
    for i, dyn in enumerate(spec.dynamics.rules):
        if isinstance(dyn.on, OnAction):
            for path, why in reader.matcher(f"dynamics.rules[{i}].on.call", dyn.on.call):
                yield path, f"dynamics rule {dyn.id!r}: {why}, {rule_tail}"
        for j, pred in enumerate(dyn.when):
            for path, why in _predicate(reader, f"dynamics.rules[{i}].when[{j}]", pred):
                yield path, f"dynamics rule {dyn.id!r}: {why}, {rule_tail}"


def _predicate(reader: _Reader, where: str, pred: FieldRule | RecordsRule) -> Iterator[tuple[str, str]]:
    if isinstance(pred, FieldRule):
        target = pred.target
        yield from _key(reader.spec, f"{where}.target.field", target.app, target.table, target.field)
        yield from reader.cond(where, f"{target.table}[{target.id}].{target.field}", pred, arg=False)
        return
    for k, cond in enumerate(pred.where):
        yield from _key(reader.spec, f"{where}.where[{k}].field", pred.app, pred.table, cond.field)
        yield from reader.cond(f"{where}.where[{k}]", f"{pred.table}.{cond.field}", cond, arg=False)


def _key(spec: EnvSpec, where: str, app: str, table: str, path: str) -> Iterator[tuple[str, str]]:
    """A condition's map key (`flags.smart_retr`) that no record of the table holds, a near miss of one that one
    does: the path never resolves (a key spelled otherwise, case and separators aside, is `respelled_keys`')."""
    head, _, rest = path.partition(".")
    if not rest:
        return
    key = rest.split(".", 1)[0]
    keys = map_keys(spec, app, table, head)
    if not keys or key in keys or any(_squeezed(k) == _squeezed(key) for k in keys):
        return
    near = next((k for k in sorted(keys) if _near(key, k)), None)
    if near is not None:
        yield where, f"{path}: no record of {app}.{table} holds the key {key!r} of {head}, a near miss of {near!r}"


def world_spelled(args: dict[str, Any], world: World) -> dict[str, Any]:
    """A matcher's arguments with each value naming a record, a person or a channel in another case (`SVC-KYC`)
    spelled as the world spells it. A matcher's argument folds case, so such a guard is about that record; a call
    built to fire it (a probe) must reach the record, and the tools look ids up as written."""
    spelled: dict[str, str] = {}
    for table in world.tables():
        spelled.update((i.lower(), i) for i in table.ids())
    for person in world.table("directory", "people"):
        spelled.update((ref.lower(), ref) for ref in (person.email, person.chat_handle) if ref)
    for channel in world.table("chat", "channels"):
        if channel.name:
            spelled.setdefault(channel.name.lower(), channel.name)

    def one(value: Any) -> Any:
        if isinstance(value, str):
            return spelled.get(value.strip().lower(), value)
        if isinstance(value, list):
            return [one(v) for v in value]
        return value
    return {k: one(v) for k, v in args.items()}
