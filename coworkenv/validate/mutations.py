"""Near-miss mutations of a reference solution: plausible mistakes a sound verifier must catch.

Kinds (each mutant differs from the reference in one place):
- `drop_write`: one write call is left out;
- `change_arg`: one argument of a write call gets another valid-looking value: an enum value becomes the next
  one, a number is off by one, a flag flips, a time moves by an hour, an id names another record of its table;
- `wrong_recipient`: a person (id, email or chat handle) or channel argument of a write names another one;
- `swap_order`: where an `order` check exists, the call it wants second is moved before the one it wants first;
- `stop_early`: the last turn is left undone (no calls, no answer); for a single-turn spec only when that turn
  writes nothing (a write turn left undone is the noop episode, which the noop gate covers).

Free text (anything with whitespace or longer than 40 characters), names that match no record, paths of files
that do not exist, and arguments the reference leaves out are not mutated: changing them is not a mistake
the task defines. An optional argument naming another record (`in_reply_to`, `attachments`, a ticket's
`service`) gives a context mutant (`core=False`): whether the task cares is for its checks to say.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from coworkenv.bindings import spec_catalog
from coworkenv.checks import call_matches
from coworkenv.spec import EnvSpec, OrderRule, ReferenceStep, ReferenceTurn, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.world import World

MutationKind = Literal["drop_write", "change_arg", "wrong_recipient", "swap_order", "stop_early"]
MUTATION_KINDS: tuple[MutationKind, ...] = typing.get_args(MutationKind)
_MAX_ID_CHARS = 40
_SKIPPED_TABLES = frozenset({("logs", "lines")})  # agents never pass log line ids to writes


@dataclass(frozen=True)
class Mutation:
    """One near-miss variant of the reference solution."""

    kind: MutationKind
    path: str  # where the reference was changed, e.g. reference[0].steps[3].call.arguments.to_version
    description: str
    reference: list[ReferenceTurn]
    # Core mutants change what a write does or to whom; context mutants only change an optional link to
    # another record (a reply's thread, an attachment): their survival is reported, not failed.
    core: bool = True


class EntityIndex:
    """The people, channels and record ids of a world, to pick a plausible wrong alternative from."""

    def __init__(self, world: World) -> None:
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

    def recipient(self, value: str, avoid: set[str]) -> str | None:
        """Another person or channel written the same way as `value` (None: `value` is neither)."""
        lowered = value.lower()
        avoided = {a.lower() for a in avoid}
        if lowered in self.person_of:
            index, form = self.person_of[lowered]
            for i, forms in enumerate(self.people):
                alt = forms[form]
                if i != index and alt and alt.lower() not in avoided:
                    return "@" + alt if value.startswith("@") else alt
            return None
        if lowered in self.channel_of:
            index, form = self.channel_of[lowered]
            for i, names in enumerate(self.channels):
                alt = names[form]
                if i != index and alt.lower() not in avoided:
                    return alt.lstrip("#") if form == 1 and not value.startswith("#") else alt
        return None

    def is_recipient(self, value: str) -> bool:
        lowered = value.lower()
        return lowered in self.person_of or lowered in self.channel_of

    def other_record(self, value: str, avoid: set[str]) -> str | None:
        """Another id of the table `value` is an id of (None: it is no record's id)."""
        key = self.table_of.get(value)
        if key is None:
            return None
        return next((i for i in self.table_ids[key] if i != value and i not in avoid), None)


def near_miss_mutations(spec: EnvSpec, world: World | EntityIndex) -> list[Mutation]:
    """Every near-miss mutation of `spec.reference`, drawing wrong alternatives from `world`.

    Pass the oracle's final world (or its index), so records the reference itself creates (a new ticket it
    later comments on) can be swapped for another.
    """
    index = world if isinstance(world, EntityIndex) else EntityIndex(world)
    tools = spec_catalog(spec)
    reference = spec.reference
    out: list[Mutation] = []
    writes = [(t, s, step.call) for t, turn in enumerate(reference) for s, step in enumerate(turn.steps)
              if step.call is not None and _is_write(tools.get(step.call.name))]
    for t, s, call in writes:
        where = f"reference[{t}].steps[{s}]"
        out.append(Mutation("drop_write", where, f"drop {call.name} at {where}", _without(reference, t, s)))
    for t, s, call in writes:
        for kind, arg_path, new_args, what, core in _argument_mutations(call, tools[call.name], index):
            where = f"reference[{t}].steps[{s}].call.arguments.{arg_path}"
            step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments=new_args))
            out.append(Mutation(kind, where, f"{call.name}: {what}", _replaced(reference, t, s, step), core))
    moves: set[tuple[tuple[int, int], tuple[int, int]]] = set()  # two order checks may ask for the same swap
    for i, check in enumerate(spec.checks):
        if isinstance(check.rule, OrderRule):
            swapped = _swap_order(reference, check.rule)
            if swapped is not None and swapped[0] not in moves:
                moves.add(swapped[0])
                out.append(Mutation("swap_order", f"checks[{i}]",
                                    f"{check.rule.then.tool} before {check.rule.first.tool} (check {check.id})",
                                    swapped[1]))
    last = len(reference) - 1
    if last >= 0 and reference[last].steps and (last > 0 or not any(w[0] == last for w in writes)):
        stopped = [*reference[:last], ReferenceTurn(steps=[])]
        out.append(Mutation("stop_early", f"reference[{last}]", f"leave turn {last} undone", stopped))
    return out


def _is_write(tool: ToolDef | None) -> bool:
    return tool is not None and tool.kind == "write"


def _without(reference: list[ReferenceTurn], t: int, s: int) -> list[ReferenceTurn]:
    steps = [step for j, step in enumerate(reference[t].steps) if j != s]
    return [*reference[:t], ReferenceTurn(steps=steps), *reference[t + 1:]]


def _replaced(reference: list[ReferenceTurn], t: int, s: int, new: ReferenceStep) -> list[ReferenceTurn]:
    steps = [new if j == s else step for j, step in enumerate(reference[t].steps)]
    return [*reference[:t], ReferenceTurn(steps=steps), *reference[t + 1:]]


Move = tuple[tuple[int, int], tuple[int, int]]


def _swap_order(reference: list[ReferenceTurn], rule: OrderRule) -> tuple[Move, list[ReferenceTurn]] | None:
    """Move the first call matching `rule.then` to just before the first call matching `rule.first`."""
    def locate(matcher: Any) -> tuple[int, int] | None:
        for t, turn in enumerate(reference):
            for s, step in enumerate(turn.steps):
                if step.call is not None and call_matches(matcher, step.call.name, dict(step.call.arguments)):
                    return t, s
        return None

    first, then = locate(rule.first), locate(rule.then)
    if first is None or then is None or then <= first:
        return None
    moved = reference[then[0]].steps[then[1]]
    turns = [list(turn.steps) for turn in reference]
    del turns[then[0]][then[1]]
    turns[first[0]].insert(first[1], moved)
    return (then, first), [ReferenceTurn(steps=steps) for steps in turns]


ArgMutation = tuple[MutationKind, str, dict[str, Any], str, bool]  # kind, argument path, new arguments, what, core


def _argument_mutations(call: ToolCallSpec, tool: ToolDef, index: EntityIndex) -> Iterator[ArgMutation]:
    args = dict(call.arguments)
    mentioned = {str(v) for v in _leaves(args) if isinstance(v, str)}
    for name, value in args.items():
        field = tool.params.model_fields.get(name)
        choices = _literal_values(field.annotation) if field is not None else []
        required = field is not None and field.is_required()
        if isinstance(value, dict):
            for key, leaf in value.items():
                found = _mutate_scalar(leaf, [], index, mentioned, required)
                if found is not None:
                    kind, new, core = found
                    yield (kind, f"{name}.{key}", {**args, name: {**value, key: new}},
                           f"{name}.{key} {leaf!r} -> {new!r}", core)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                found = _mutate_scalar(item, [], index, mentioned, required) if isinstance(item, str) else None
                if found is not None:
                    kind, new, core = found
                    items = [new if j == i else v for j, v in enumerate(value)]
                    yield kind, f"{name}[{i}]", {**args, name: items}, f"{name}[{i}] {item!r} -> {new!r}", core
                    break  # one wrong item per list is the near miss; more is a different task
        else:
            found = _mutate_scalar(value, choices, index, mentioned, required)
            if found is not None:
                kind, new, core = found
                yield kind, name, {**args, name: new}, f"{name} {value!r} -> {new!r}", core


def _mutate_scalar(
    value: Any, choices: list[Any], index: EntityIndex, avoid: set[str], required: bool
) -> tuple[MutationKind, Any, bool] | None:
    if isinstance(value, bool):
        return "change_arg", not value, True
    if isinstance(value, int | float):
        return "change_arg", value + 1, True
    if not isinstance(value, str):
        return None
    if value in choices and len(choices) > 1:
        return "change_arg", choices[(choices.index(value) + 1) % len(choices)], True
    if index.is_recipient(value):
        alt = index.recipient(value, avoid)
        return ("wrong_recipient", alt, True) if alt is not None else None
    if len(value) > _MAX_ID_CHARS or any(c.isspace() for c in value):
        return None
    shifted = _shift_time(value)
    if shifted is not None:
        return "change_arg", shifted, True
    other = index.other_record(value, avoid)
    # A required id names what the write acts on; an optional one links it to context.
    return ("change_arg", other, required) if other is not None else None


def _shift_time(value: str) -> str | None:
    """An ISO-8601 date-time one hour later, written the same way (None if `value` is not one)."""
    if "T" not in value or not value[:4].isdigit():
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    text = (parsed + timedelta(hours=1)).isoformat()
    return text.replace("+00:00", "Z") if value.endswith("Z") else text


def _literal_values(annotation: Any) -> list[Any]:
    """The values of a Literal annotation, also inside Optional/Union (empty if there is none)."""
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return list(typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            values = _literal_values(arg)
            if values:
                return values
    return []


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    else:
        yield value
