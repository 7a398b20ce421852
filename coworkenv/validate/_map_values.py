"""A write's map argument whose value for a key is a word: another value for that key.

A write passing a map (`services_update_config(changes={"region": "eu-west-1"})`) had near misses for each key's
value only where the value is a number, a flag, a time, a person or an id (`_mutate_scalar`): a word such as a region,
or a version as text (`tls_min_version: "1.2"`, correct_bad_data 7), got none. A check reading the key's presence, not its value (`values contains region`, an outsider's "the region was
set"), or a check on another key, was then never put against a config set to the wrong region: the agent that
writes `eu-west-2`, or leaves the region the bad value it was asked to correct, passes. Found by the outsider hunt
(`benchmarks/hunt_mutants.py --family d117`, kind `dict_key_present`: 8 of 8 mutants on correct_bad_data 3-5 accepted,
every one witnessed by `changes.region=eu-west-2`).

`map_value_mutations` gives each such value (a word or a version of the map, no id, address, time, count or free
text) up to two others: the values the world's records hold under the same key in a map field (another service's region, the bad one
the task corrects), the record the call names first; else the value with its last digit moved (`eu-west-2`). Each is
a replay of the write that must fail a check (`mutant_survived`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from coworkenv.apps import APPS
from coworkenv.spec import EnvSpec, ReferenceStep, ToolCallSpec
from coworkenv.validate._mutation_core import Mutation, replaced
from coworkenv.validate.entities import MAX_ID_CHARS, EntityIndex

_WORD = re.compile(r"^[A-Za-z0-9][\w.:/-]*$")  # a region, a tier, a version (`1.2`): no sentence, no count
_TIME = re.compile(r"^\d{4}-\d\d-\d\d")
_LIMIT = 2


def _held(spec: EnvSpec, key: str, named: set[str]) -> Iterator[tuple[bool, str]]:
    """(names the call's record, value) for each text a map field of an initial world record holds under `key`."""
    for app_name, app in APPS.items():
        state = getattr(spec.world.apps, app_name)
        for table in app.tables:
            for rec in getattr(state, table):
                mine = rec.id in named or any(isinstance(v, str) and v in named for v in rec.__dict__.values())
                for v in rec.__dict__.values():
                    if isinstance(v, dict) and isinstance(v.get(key), str):
                        yield mine, v[key]


def _others(spec: EnvSpec, key: str, leaf: str, named: set[str]) -> list[str]:
    found = sorted(((not mine, i, x) for i, (mine, x) in enumerate(_held(spec, key, named))
                    if x.lower() != leaf.lower()), key=lambda t: (t[0], t[1]))
    out = list(dict.fromkeys(x for _, _, x in found))[:_LIMIT]
    if not out and re.search(r"\d", leaf):  # none held: the value with its last digit moved
        out = [re.sub(r"(\d)(?!.*\d)", lambda m: str((int(m.group(1)) + 1) % 10), leaf)]
    return out


def _word(leaf: Any, index: EntityIndex) -> bool:
    return isinstance(leaf, str) and len(leaf) <= MAX_ID_CHARS and bool(_WORD.match(leaf)) \
        and not leaf.isdigit() and not _TIME.match(leaf) and leaf not in index.table_of and not index.is_recipient(leaf)


def map_value_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]],
                        index: EntityIndex) -> list[Mutation]:
    """Each write's map argument with a word for a key's value replaced by another value for that key."""
    out: list[Mutation] = []
    for t, s, call in writes:
        args = dict(call.arguments)
        named = {v for v in args.values() if isinstance(v, str)}
        for name, value in args.items():
            if not isinstance(value, dict):
                continue
            for key, leaf in value.items():
                if not _word(leaf, index):
                    continue
                for other in _others(spec, key, leaf, named):
                    new = {**args, name: {**value, key: other}}
                    step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments=new))
                    out.append(Mutation("change_arg", f"reference[{t}].steps[{s}].call.arguments.{name}.{key}",
                                        f"{call.name}: {name}.{key} {leaf!r} -> {other!r} (another value of the key)",
                                        replaced(spec.reference, t, s, step)))
    return out
