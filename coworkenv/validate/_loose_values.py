"""A written identifier a check reads loosely: the near misses another value the loose reading admits too.

A check that wants an id or a config value a write passes exactly (`in_reply_to equals msg-391`, a config entry
`equals payments-log-rotate,payments-nightly-export`) is sometimes written loosely: a case-, space- and
punctuation-blind regex (`(?i)^[\\W_]*m[\\W_]*s[\\W_]*g...`), `contains` (which folds case), or the value's digits
(`in_reply_to contains "391"`). Where nothing can collide with the value under that reading the check is as good as
exact; where something can, an agent writing the colliding value passes: a draft replying to `MSG-391` (the mail
tool keeps a draft's unknown reply-to as written, unthreaded), a paused-jobs entry in capitals that names no job,
a reply to `msg-1391`, another message whose id has the same digits.

So for each string argument of a write that names what the world holds (an id of a record, or names records hold,
one or a comma-separated list of them; not a person or a channel, which the tools take in any case), and each condition of a check on that field (the field's last part is the
argument's name; a records or field check on the app the tool writes, or a `called`/`order` matcher of the tool)
that holds for the written value but is not an exact comparison, the colliding values are tried as near misses:
the value in capitals, in lower case, with its `-` and `_` exchanged (a state condition only: a call matcher's
`args` fold case by design, and the tool, not the call, is what stores the value), and the other ids of the value's
table that the condition admits too (an `in` list's own ids among them where one shares nothing with the written
record but a person: `in_reply_to in [msg-391, msg-390]`, msg-390 a newsletter, defects102, or the asker's mail about
another matter, defects106). Each must fail a check (`loose_value_accepted`); a tool that refuses the
colliding value fails the write, and one that folds it back to the written value ends where the reference ends
(an equivalent mutant, not counted). Where no condition reads a written value loosely, no near miss is made.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from coworkenv.checks import compare
from coworkenv.spec import CalledRule, EnvSpec, FieldRule, OrderRule, RecordsRule, ReferenceStep, ToolCallSpec
from coworkenv.spec_regex import PatternRefused, PatternTimeout
from coworkenv.tools import ToolDef
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._mutation_core import Mutation, replaced
from coworkenv.validate.entities import EntityIndex

# Exact comparisons, and `in`, whose list names each value it accepts on purpose. A list of two or more is read all
# the same: one naming a value in two spellings (`[msg-391, MSG-391]`) admits the capitals a loose pattern would
# (defects92), one naming another record unrelated to the written one admits a wrong record (`_unrelated`).
_EXACT = frozenset({"equals", "not_equals", "not_contains", "in", "gte", "lte", "gt", "lt"})
_ITEMS = re.compile(r"\s*[,;]\s*")
_MAX_ALTERNATIVES = 4  # colliding values tried per argument
_MAX_CHARS = 200  # a longer value is text, not a name or a list of names

# (check id, whether it reads the state, op, expected) of one loose condition
_Cond = tuple[str, bool, str, Any]


def loose_value_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]], tools: Mapping[str, ToolDef],
                          index: EntityIndex) -> list[Mutation]:
    """One near miss per colliding value a loose condition admits beside a written identifier (see the module)."""
    conds = _loose_conditions(spec)
    if not conds:
        return []
    out: list[Mutation] = []
    for t, s, call in writes:
        tool = tools.get(call.name)
        if tool is None:
            continue
        for name, value in call.arguments.items():
            if not isinstance(value, str) or not value or len(value) > _MAX_CHARS or _literal(tool, name) \
                    or index.is_recipient(value):  # a person or channel spelled otherwise is the same one
                continue
            reading = [c for c in _reading(conds, tool, call.name, name) if _holds(value, c[2], c[3])]
            if not reading or not _names_held(value, index):
                continue
            for other, check_id in _colliding(value, reading, index):
                where = f"reference[{t}].steps[{s}]"
                step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, name: other}))
                out.append(Mutation("change_arg", f"{where}.call.arguments.{name}",
                                    f"{call.name}: {name} {value!r} -> {other!r}, which check {check_id} reads "
                                    "loosely and admits as well: compare the value exactly",
                                    replaced(spec.reference, t, s, step), code="loose_value_accepted"))
    return out


def _loose_conditions(spec: EnvSpec) -> dict[tuple[str, str], list[_Cond]]:
    """Loose conditions by (app or `call:` tool, field's last part)."""
    out: dict[tuple[str, str], list[_Cond]] = {}

    def add(key: tuple[str, str], cond: _Cond) -> None:
        if cond[2] not in _EXACT or (cond[2] == "in" and isinstance(cond[3], list) and len(cond[3]) > 1):
            out.setdefault(key, []).append(cond)

    for _, check, _, rule in spec_rules(spec.checks):
        if isinstance(rule, RecordsRule):
            for w in rule.where:
                add((rule.app, w.field.rsplit(".", 1)[-1]), (check.id, True, w.op, w.value))
        elif isinstance(rule, FieldRule):
            add((rule.target.app, rule.target.field.rsplit(".", 1)[-1]), (check.id, True, rule.op, rule.value))
        elif isinstance(rule, CalledRule | OrderRule):
            matchers = [rule.call] if isinstance(rule, CalledRule) else [rule.first, rule.then]
            for m in matchers:
                for w in m.where:
                    add(("call:" + m.tool, w.field.rsplit(".", 1)[-1]), (check.id, False, w.op, w.value))
    return out


def _reading(conds: dict[tuple[str, str], list[_Cond]], tool: ToolDef, tool_name: str, arg: str) -> list[_Cond]:
    return [*conds.get((tool.app, arg), []), *conds.get(("call:" + tool_name, arg), [])]


def _holds(value: Any, op: str, expected: Any) -> bool:
    try:
        return compare(value, op, expected)  # type: ignore[arg-type]
    except (PatternRefused, PatternTimeout, ValueError):
        return False


def _names_held(value: str, index: EntityIndex) -> bool:
    """Whether `value`, or each item of a comma-separated list of it, is a record's id or a name a record holds
    as written (not free text: a title in capitals says the same)."""
    items = [i for i in _ITEMS.split(value.strip()) if i]
    return bool(items) and all(not any(c.isspace() for c in i) and (i in index.table_of or _held_as_written(i, index))
                               for i in items)


def _held_as_written(item: str, index: EntityIndex) -> bool:
    for app, table, record_id in index.holders(item):
        record = index.record(app, table, record_id)
        if record is not None and item in (v for v in record.values() if isinstance(v, str)):
            return True
    return False


def _colliding(value: str, reading: list[_Cond], index: EntityIndex) -> Iterator[tuple[str, str]]:
    """(another value, the check that admits it) for the first few values a loose condition admits beside `value`."""
    seen = {value}
    found = 0
    state = [c for c in reading if c[1]]
    variants = [value.upper(), value.lower(), value.translate(str.maketrans("-_", "_-"))] if state else []
    key = index.table_of.get(value)
    others = [i for i in index.table_ids.get(key, []) if i != value] if key is not None else []
    for other, conds, named_ok in [*((v, state, True) for v in variants), *((o, reading, False) for o in others)]:
        if other in seen:
            continue
        seen.add(other)
        # Another record the condition names itself (`^(svc-a|svc-b)$`) is one it accepts on purpose, unless an
        # `in` list names it beside a record it has nothing in common with (`_unrelated`).
        admitting = next((c for c in conds if _holds(other, c[2], c[3])
                          and (named_ok or other.lower() not in str(c[3]).lower()
                               or (c[2] == "in" and key is not None and _unrelated(index, key, value, other)))),
                         None)
        if admitting is None:
            continue
        yield other, admitting[0]
        found += 1
        if found >= _MAX_ALTERNATIVES:
            return


def _unrelated(index: EntityIndex, key: tuple[str, str], value: str, other: str) -> bool:
    """Whether record `other` of table `key`, which an `in` list names beside the written record `value`, has nothing
    in common with it (defects102): neither names the other and they share no value of a field (the id aside) that
    tells the table's records apart (a thread, a subject: a field of more distinct values than half its records; not
    a state such as the folder). The asker's follow-up in the same thread is a fair second answer; a newsletter or a
    colleague's out-of-office that happens to sit in the same inbox is a record the task is not about, and a reply
    threaded to it answers no one. A person (an address, a person's id) shared is not a matter shared: the asker's
    mail about another matter has their address as its sender too, and a reply threaded to it files the answer
    under the wrong question (defects106)."""
    mine, theirs = index.record(*key, value), index.record(*key, other)
    if mine is None or theirs is None:
        return False
    if value in _strings(theirs) or other in _strings(mine):
        return False
    rows = [r for r in (index.record(*key, i) for i in index.table_ids.get(key, [])) if r is not None]
    for field, held in mine.items():
        if field == "id" or not isinstance(held, str) or not held or theirs.get(field) != held \
                or index.is_recipient(held):  # one author writes about many matters (defects106)
            continue
        if 2 * len({str(r.get(field)) for r in rows}) > len(rows):  # a field that tells records apart, not a state
            return False
    return True


def _strings(record: dict[str, Any]) -> set[str]:
    """The strings a record's fields hold, the items of its list fields among them, its id aside."""
    out: set[str] = set()
    for field, held in record.items():
        if field != "id":
            out.update(v for v in (held if isinstance(held, list) else [held]) if isinstance(v, str))
    return out


def _literal(tool: ToolDef, name: str) -> bool:
    """Whether the argument takes one of a closed set of values (the tool refuses another spelling)."""
    field = tool.params.model_fields.get(name)
    return field is not None and bool(_literal_values(field.annotation))


def _literal_values(annotation: Any) -> list[Any]:
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return list(typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return [v for arg in typing.get_args(annotation) for v in _literal_values(arg)]
    return []
