"""Counts the live world keeps adding to, stated in a reply: the user asks how many error lines the failing service
had logged by the fix, and the reference states the count its own pace left. The pace replays (`_pace`) play the
reference's reply as written, so a check wanting that number passes them, though an honest agent that reads a little
longer before its fix sees more lines and says so.

For each slower replay (not the quicker agent), the reference's and the replay's final worlds are compared: a table
whose records the world added at its own pace (another number of rows) is counted whole, by each field's value and
by each pair of fields' values. A whole number the last turn's replies state that is such a count in the reference's
world, and another count in the replay's, is replaced by the replay's count in the replay's replies: the slower agent
saying what it saw. A check the reference passes that this replay fails is pinned to the reference's pace. The last
turn's replies are read against the final worlds (its reply comes at the end of the episode); an earlier turn's
against the worlds as they were when each episode ended that turn (its last message without tool calls: the count
the agent told then, defects93)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace
from itertools import combinations
from typing import Any

from coworkenv.agents import OraclePolicy, Policy
from coworkenv.env import Action, Env
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


class _TurnWorlds:
    """A policy as it is, keeping the world's rows whenever it ends one of the `turns` (a message without tool
    calls; the last such message of a turn wins)."""

    def __init__(self, policy: Policy, turns: set[int]) -> None:
        self.policy, self.name, self.turns = policy, policy.name, turns
        self.rows: dict[int, dict[tuple[str, str], list[dict[str, Any]]]] = {}

    def act(self, env: Env) -> Action:
        action = self.policy.act(env)
        if not action.tool_calls and env.turn in self.turns:
            self.rows[env.turn] = _rows(env.state)
        return action


def _worlds(episodes: SpecEpisodes, policy: Policy, earlier: set[int],
            last: int) -> dict[int, dict[tuple[str, str], list[dict[str, Any]]]] | None:
    """The rows each turn's replies are read against: the final world's for `last`, the world at the end of each
    turn of `earlier`; None where the episode crashed."""
    watched = _TurnWorlds(policy, earlier)
    if episodes.run(watched).result is None:
        return None
    return {**watched.rows, last: _rows(episodes.env.state)}


def paced_counts(spec: EnvSpec, episodes: SpecEpisodes, paced: Iterable[Paced]) -> Iterator[Paced]:
    """Each slower replay with a number a turn's replies state, where it counts records the world added at another
    pace, restated as the replay's world counts it."""
    if not spec.reference or (not spec.dynamics.streams and not spec.dynamics.rules):
        return
    last = len(spec.turns) - 1
    said = {t: _said(spec.reference[t]) for t in range(min(len(spec.turns), len(spec.reference)))}
    said = {t: numbers for t, numbers in said.items() if numbers}
    if not said:
        return
    earlier = set(said) - {last}
    oracle: dict[int, dict[tuple[str, str], list[dict[str, Any]]]] | None = None
    for found in paced:
        if found.calls_must_succeed or len(found.reference) <= max(said):
            continue
        if oracle is None:
            oracle = _worlds(episodes, OraclePolicy(spec), earlier, last)
            if oracle is None:
                return
        replay = _worlds(episodes, OraclePolicy(spec, reference=found.reference), earlier, last)
        if replay is None:
            continue
        for t in sorted(said):
            if t not in oracle or t not in replay:
                continue
            ours, theirs = oracle[t], replay[t]
            moved = sorted(k for k in theirs if len(ours.get(k, ())) != len(theirs[k]))
            if not moved:
                continue
            before, after = _counts(ours, moved), _counts(theirs, moved)
            for number in sorted(said[t]):
                seen = sorted({after[s] for s, n in before.items() if n == number and after[s] != number})
                for count in seen[:_MAX_COUNTS]:
                    turns = list(found.reference)
                    turns[t] = _restated(turns[t], number, count)
                    yield replace(found, reference=turns,
                                  description=f"{found.description}, its reply of turn {t} stating {count} where the "
                                              f"reference states {number} (the world's count of the records it added "
                                              "meanwhile)")
