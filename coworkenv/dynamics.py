"""Dynamics: declarative rules that change the world by themselves and in answer to actions."""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from typing import Any

from coworkenv.apps import APPS
from coworkenv.apps.logs import LogLine
from coworkenv.checks import call_matches, holds
from coworkenv.spec import AppendLog, AtTime, DeleteRecord, EnvSpec, OnAction, PutRecord, Rule, UpdateRecord
from coworkenv.spec_regex import PatternRefused, PatternTimeout
from coworkenv.world import World, parse_time

# A stream writes at most this many lines per clock advance; a long jump skips ahead instead of flooding.
MAX_LINES_PER_ADVANCE = 200


class Dynamics:
    """Runs a spec's rules and log streams against a world as its clock moves."""

    def __init__(self, spec: EnvSpec, world: World) -> None:
        self.world = world
        # A rule answers calls of one tool: a call looks only at the rules of its tool (in the spec's order).
        self._action_rules: dict[str, list[Rule]] = {}
        for rule in spec.dynamics.rules:
            if isinstance(rule.on, OnAction):
                self._action_rules.setdefault(rule.on.call.tool, []).append(rule)
        self._streams = list(spec.dynamics.streams)
        self._fired: set[str] = set()
        self._seq = 0
        self._pending: list[tuple[int, int, Any]] = []  # (time, seq, Rule | list of effects)
        for rule in spec.dynamics.rules:
            if isinstance(rule.on, AtTime):
                self._push(parse_time(rule.on.time), rule)
        self._next_line = {s.id: world.clock + s.every_s for s in self._streams}
        self._line_count = {s.id: 0 for s in self._streams}

    def _push(self, at: int, item: Any) -> None:
        self._seq += 1
        heapq.heappush(self._pending, (at, self._seq, item))

    def triggered(self, tool: str, args: dict[str, Any]) -> list[Rule]:
        """The action rules a successful call of `tool` with `args` sets off now (its matcher, then its `when` on the
        world), in the spec's order, whether or not a `once` rule fired before."""
        out = []
        for rule in self._action_rules.get(tool, ()):
            try:  # a spec pattern too slow on the call's arguments (coworkenv.spec_regex): the rule does not fire
                if call_matches(rule.on.call, tool, args) and all(holds(self.world, p) for p in rule.when):  # type: ignore[union-attr]
                    out.append(rule)
            except (PatternTimeout, PatternRefused):
                continue
        return out

    def after_call(self, tool: str, args: dict[str, Any]) -> None:
        """Fire the rules triggered by a successful tool call."""
        for rule in self.triggered(tool, args):
            if rule.once and rule.id in self._fired:
                continue
            self._fired.add(rule.id)
            if rule.delay_s:
                self._push(self.world.clock + rule.delay_s, list(rule.effects))
            else:
                self.apply(rule.effects)

    def advance(self, seconds: int) -> None:
        """Move the clock forward, applying scheduled effects and stream lines in time order."""
        target = self.world.clock + max(0, seconds)
        if (not self._pending or self._pending[0][0] > target) and min(self._next_line.values(), default=target + 1) > target:
            self.world.clock = target  # nothing falls due on the way (the common case of one tool call's tick)
            return
        emitted = dict.fromkeys(self._next_line, 0)
        while True:
            t_event = self._pending[0][0] if self._pending else None
            stream = min(self._streams, key=lambda s: self._next_line[s.id], default=None)
            t_line = self._next_line[stream.id] if stream is not None else None
            candidates = [t for t in (t_event, t_line) if t is not None and t <= target]
            if not candidates:
                break
            now = min(candidates)
            self.world.clock = max(self.world.clock, now)
            if t_event == now:
                _, _, item = heapq.heappop(self._pending)
                self._run_scheduled(item)
                continue
            assert stream is not None
            if emitted[stream.id] >= MAX_LINES_PER_ADVANCE:
                skip = (target - now) // stream.every_s + 1
                self._next_line[stream.id] = now + skip * stream.every_s
                continue
            self._next_line[stream.id] = now + stream.every_s
            if all(_holds(self.world, p) for p in stream.while_):
                self._line_count[stream.id] += 1
                emitted[stream.id] += 1
                n = self._line_count[stream.id]
                self._log(stream.service, stream.level, stream.message.replace("{n}", str(n)), f"{stream.id}-{n}")
        self.world.clock = target

    def _run_scheduled(self, item: Rule | list[Any]) -> None:
        if isinstance(item, Rule):
            if all(_holds(self.world, p) for p in item.when):
                self._fired.add(item.id)
                self.apply(item.effects)
        else:
            self.apply(item)

    def apply(self, effects: Iterable[Any]) -> None:
        """Apply effects now; the string "$now" in any value becomes the current clock time."""
        for effect in effects:
            if isinstance(effect, AppendLog):
                self._log(effect.service, effect.level, effect.message, effect.request_id)
                continue
            table = self.world.table(effect.app, effect.table)
            if isinstance(effect, PutRecord):
                table.put(APPS[effect.app].tables[effect.table].model_validate(self._now(effect.record)))
            elif isinstance(effect, UpdateRecord):
                record = table.get(effect.id)
                if record is not None:
                    table.put(record.model_copy(update=self._now(effect.set)))
            elif isinstance(effect, DeleteRecord):
                table.delete(effect.id)

    def _log(self, service: str, level: str, message: str, request_id: str) -> None:
        line_id = self.world.new_id("log", "logs", "lines")
        self.world.table("logs", "lines").put(LogLine(
            id=line_id, service=service, ts=self.world.now_iso, level=level,  # type: ignore[arg-type]
            request_id=request_id, message=message,
        ))

    def _now(self, value: Any) -> Any:
        if value == "$now":
            return self.world.now_iso
        if isinstance(value, dict):
            return {k: self._now(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._now(v) for v in value]
        return value


def _holds(world: World, predicate: Any) -> bool:
    """`holds`, with a spec pattern too slow on the state (coworkenv.spec_regex) taken as not holding."""
    try:
        return holds(world, predicate)
    except (PatternTimeout, PatternRefused):
        return False
