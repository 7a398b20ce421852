"""Which writes of a reference depend on each other, so that doing them the other way round is a mistake.

Write B depends on an earlier write A (same turn unless noted) when:
- B acts on A's record with nothing but its id (a restart after a config change, a draft sent after editing);
- B reports: its content (body, text, description...) names the record A changed or created, by id, name or
  title (announcing a fix, posting the id of a ticket just filed, a ticket saying a staging try failed);
- A asks: A's content is a question naming the existing record B then changes, also when B comes in a later
  turn (asking the manager before granting access on their answer);
- A changes a record whose fields name B's record (acknowledging the alert ticket of a service, then
  redeploying that service);
- B quotes a value A wrote to its record (a reply confirming the new phone number A saved);
- B ticks off a to-do and A, in the same turn, did work in another app (the to-do tracks that work).
A declared tool's call counts as the app operation it is bound to.
The records may end the same in both orders, so only an order check catches such a swap.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.bindings import Binding, bind_arguments
from coworkenv.spec import ReferenceTurn, ToolCallSpec
from coworkenv.validate.mutations import CONTENT_ARGS, is_write
from coworkenv.world import World

Key = tuple[str, str, str]  # app, table, record id
_MIN_QUOTED = 6  # shorter written values ("p1", "open", "true") are ordinary words of a report


@dataclass(frozen=True)
class WriteFacts:
    """What one reference write acts on and says."""

    turn: int
    step: int
    call: ToolCallSpec
    target: Key | None  # the record it changes (existing) or creates
    existing: bool  # whether that record was there before the reference
    content: str  # its content arguments, lower case
    only_target: bool  # it passes nothing but the target's id


def write_facts(reference: list[ReferenceTurn], world: World, created: set[Key],
                made: dict[tuple[int, int], Key], bindings: Mapping[str, Binding] | None = None) -> list[WriteFacts]:
    """The facts of every write; `world` is the reference's final world, `made` the record each step created.
    A call of a declared tool (`bindings`: declared name -> binding) counts as the app operation it runs."""
    out = []
    for t, s, call in _builtin_writes(reference, bindings or {}):
        # The record a call names comes first (a deploy acts on its service, though it also adds a deployment).
        target = existing_target(call, world, created) or made.get((t, s))
        content = " ".join(str(v) for k, v in call.arguments.items() if k in CONTENT_ARGS).lower()
        only = target is not None and list(call.arguments.values()) == [target[2]]
        out.append(WriteFacts(t, s, call, target, target is not None and target not in created, content, only))
    return out


def _builtin_writes(reference: list[ReferenceTurn],
                    bindings: Mapping[str, Binding]) -> Iterator[tuple[int, int, ToolCallSpec]]:
    for t, turn in enumerate(reference):
        for s, step in enumerate(turn.steps):
            call = step.call
            if call is None:
                continue
            binding = bindings.get(call.name)
            if binding is not None:
                call = ToolCallSpec(name=binding.op, arguments=bind_arguments(binding, call.arguments))
            if is_write(call.name):
                yield t, s, call


def existing_target(call: ToolCallSpec, world: World, created: set[Key]) -> Key | None:
    """The record that was there before the reference and that a write acts on (its first required argument
    naming a record of the tool's app), or None."""
    tool = TOOLS[call.name]
    for name, field in tool.params.model_fields.items():
        value = call.arguments.get(name)
        if not field.is_required() or not isinstance(value, str):
            continue
        for table in world.tables():
            if table.app == tool.app and table.get(value) is not None:
                key = (tool.app, table.name, value)
                return None if key in created else key
    return None


def dependent_pairs(facts: list[WriteFacts], world: World) -> Iterator[tuple[WriteFacts, WriteFacts, str]]:
    """(A, B, why) for every write B that depends on an earlier write A (see the module docstring)."""
    for i, a in enumerate(facts):
        for b in facts[i + 1:]:
            why = _depends(a, b, world)
            if why is not None:
                yield a, b, why


def _depends(a: WriteFacts, b: WriteFacts, world: World) -> str | None:
    same_turn = a.turn == b.turn
    if a.target is not None and same_turn:
        if b.only_target and b.target == a.target and b.call.name != a.call.name:
            return f"{b.call.name} acts on {a.target[2]} as {a.call.name} left it"
        if b.content and _named(world, a.target, b.content):
            return f"{b.call.name} reports on {a.target[2]}"
        if b.content and _quotes_write(a, b.content):
            return f"{b.call.name} reports what {a.call.name} wrote to {a.target[2]}"
        if _closes_todo(b) and a.target[0] != "todo":
            return f"{b.call.name} closes the to-do before {a.call.name} did the work"
    if b.target is not None and b.existing and "?" in a.content and _named(world, b.target, a.content):
        return f"{a.call.name} asks about {b.target[2]} before {b.call.name} changes it"
    if same_turn and a.existing and a.target is not None and b.existing and b.target is not None \
            and a.target != b.target and b.target[2] in _field_values(world, a.target):
        return f"{a.target[2]} concerns {b.target[2]}"
    return None


def _quotes_write(a: WriteFacts, content: str) -> bool:
    """Whether `content` quotes a value `a` wrote (a new phone number, a new title), not just its target."""
    assert a.target is not None
    return any(isinstance(v, str) and len(v) >= _MIN_QUOTED and v.lower() != a.target[2].lower()
               and v.lower() in content for k, v in a.call.arguments.items() if k not in CONTENT_ARGS)


def _closes_todo(b: WriteFacts) -> bool:
    """Whether `b` ticks off a to-do: the record that tracks the work, closed once the work is done."""
    return b.call.name == "todo_complete_task" and b.call.arguments.get("done", True) is True


def _named(world: World, key: Key, text: str) -> bool:
    """Whether `text` names the record: its id, or its name or title when distinctive."""
    if key[2].lower() in text:
        return True
    record = world.table(key[0], key[1]).get(key[2])
    for attr in ("name", "title"):
        value = getattr(record, attr, None)
        if isinstance(value, str) and len(value) >= 4 and value.lower() in text:
            return True
    return False


def _field_values(world: World, key: Key) -> set[str]:
    record = world.table(key[0], key[1]).get(key[2])
    if record is None:
        return set()
    return {v for v in record.model_dump(mode="json").values() if isinstance(v, str)}


def call_times(reference: list[ReferenceTurn], audit: list[Any]) -> dict[tuple[int, int], str]:
    """When the reference episode made each reference call (the audit's clock, ISO), by (turn, step); calls align
    per turn as in `made_by_step`."""
    per_turn = [[s for s, step in enumerate(turn.steps) if step.call is not None] for turn in reference]
    seen: dict[int, int] = {}
    out: dict[tuple[int, int], str] = {}
    for entry in audit:
        k = seen.get(entry.turn, 0)
        seen[entry.turn] = k + 1
        if entry.turn < len(per_turn) and k < len(per_turn[entry.turn]) and entry.time:
            out[(entry.turn, per_turn[entry.turn][k])] = str(entry.time)
    return out


def made_by_step(reference: list[ReferenceTurn], audit: list[Any], world: World, created: set[Key]) -> dict[
        tuple[int, int], Key]:
    """The record each reference call created, from the reference episode's audit (calls align per turn)."""
    per_turn = [[s for s, step in enumerate(turn.steps) if step.call is not None] for turn in reference]
    seen: dict[int, int] = {}
    out: dict[tuple[int, int], Key] = {}
    for entry in audit:
        k = seen.get(entry.turn, 0)
        seen[entry.turn] = k + 1
        if entry.turn >= len(per_turn) or k >= len(per_turn[entry.turn]) or not entry.ok:
            continue
        result = entry.result
        made = result.get("id") if isinstance(result, dict) else None
        if not isinstance(made, str):
            continue
        op = entry.op or entry.tool
        app = TOOLS[op].app if op in TOOLS else ""
        for table in world.tables():
            if table.app == app and (app, table.name, made) in created:
                out[(entry.turn, per_turn[entry.turn][k])] = (app, table.name, made)
    return out
