"""Counts the live world keeps adding to, stated in a reply: the user asks how many error lines the failing service
had logged by the fix, and the reference states the count its own pace left. The pace replays (`_pace`) play the
reference's reply as written, so a check wanting that number passes them, though an honest agent that reads a little
longer before its fix sees more lines and says so.

For each slower replay (not the quicker agent), the reference's and the replay's final worlds are compared: a table
whose records the world added at its own pace (another number of rows) is counted whole, by each field's value and
by each pair of fields' values. A whole number the last turn's replies state that is such a count in the reference's
world, and another count in the replay's, is replaced by the replay's count in the replay's replies: the slower agent
saying what it saw. A check the reference passes that this replay fails is pinned to the reference's pace. Only the
last turn's replies are read (its reply comes at the end of the episode, where the final worlds are read)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace
from itertools import combinations
from typing import Any

from coworkenv.agents import OraclePolicy
from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn
from coworkenv.validate._episodes import SpecEpisodes
from coworkenv.validate._pace import Paced
from coworkenv.world import World

_WHOLE = re.compile(r"(?<![\w.:/@#-])(\d{1,6})(?![\w:/@-]|[.,]\d)")
_MAX_VALUES = 64  # a field with more distinct values than this (ids, times, messages) is no grouping
_MAX_COUNTS = 2  # replays per stated number (the slower world's counts for it)
Selection = tuple[str, str, tuple[tuple[str, Any], ...]]


def _rows(world: World, only: Iterable[tuple[str, str]] | None = None) -> dict[tuple[str, str], list[dict[str, Any]]]:
    keep = None if only is None else set(only)
    return {(t.app, t.name): [r.model_dump() for r in t] for t in world.tables()
            if keep is None or (t.app, t.name) in keep}


def _counts(tables: dict[tuple[str, str], list[dict[str, Any]]], moved: Iterable[tuple[str, str]]) -> Counter[Selection]:
    """The rows of each moved table, whole, by one field's value and by two fields' values (scalar fields with few
    values)."""
    out: Counter[Selection] = Counter()
    for app, name in moved:
        rows = tables.get((app, name), [])
        values: dict[str, set[Any]] = {}
        for row in rows:
            for k, v in row.items():
                if k != "id" and isinstance(v, str | int | bool):
                    values.setdefault(k, set()).add(v)
        fields = sorted(k for k, vs in values.items() if len(vs) <= _MAX_VALUES)
        for row in rows:
            out[(app, name, ())] += 1
            picked = [(k, row[k]) for k in fields if k in row and isinstance(row[k], str | int | bool)]
            for one in picked:
                out[(app, name, (one,))] += 1
            for pair in combinations(picked, 2):
                out[(app, name, pair)] += 1
    return out


def _said(turn: ReferenceTurn) -> set[int]:
    return {int(m.group(1)) for s in turn.steps if s.say for m in _WHOLE.finditer(s.say)}


def _restated(turn: ReferenceTurn, old: int, new: int) -> ReferenceTurn:
    pattern = re.compile(rf"(?<![\w.:/@#-]){old}(?![\w:/@-]|[.,]\d)")
    steps = [s if not s.say else ReferenceStep.model_validate({**s.model_dump(), "say": pattern.sub(str(new), s.say)})
             for s in turn.steps]
    return ReferenceTurn.model_validate({**turn.model_dump(), "steps": [s.model_dump() for s in steps]})


def paced_counts(spec: EnvSpec, episodes: SpecEpisodes, paced: Iterable[Paced]) -> Iterator[Paced]:
    """Each slower replay with a number the last turn's replies state, where it counts records the world added at
    another pace, restated as the replay's world counts it."""
    if not spec.reference or (not spec.dynamics.streams and not spec.dynamics.rules):
        return
    last = len(spec.turns) - 1
    said = _said(spec.reference[last]) if last < len(spec.reference) else set()
    if not said:
        return
    oracle: dict[tuple[str, str], list[dict[str, Any]]] | None = None
    for found in paced:
        if found.calls_must_succeed or len(found.reference) <= last:
            continue
        if oracle is None:
            if episodes.run(OraclePolicy(spec)).result is None:
                return
            oracle = _rows(episodes.env.state)
        outcome = episodes.run(OraclePolicy(spec, reference=found.reference))
        if outcome.result is None:
            continue
        world = episodes.env.state
        moved = sorted((t.app, t.name) for t in world.tables() if len(oracle.get((t.app, t.name), ())) != len(t))
        if not moved:
            continue
        before, after = _counts(oracle, moved), _counts(_rows(world, moved), moved)
        for number in sorted(said):
            seen = sorted({after[s] for s, n in before.items() if n == number and after[s] != number})
            for count in seen[:_MAX_COUNTS]:
                turns = list(found.reference)
                turns[last] = _restated(turns[last], number, count)
                yield replace(found, reference=turns,
                              description=f"{found.description}, its reply stating {count} where the reference "
                                          f"states {number} (the world's count of the records it added meanwhile)")
