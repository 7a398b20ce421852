"""Built-in policies (oracle, noop); `coworkenv.rollout.agent_loop` is the episode loop that plays them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from coworkenv.env import Action, Env
from coworkenv.faults import FAILING
from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn

# Actions are immutable: the messages every episode ends turns with are built once.
_DONE = Action.say("Done.")
_OKAY = Action.say("Okay.")


class Policy(Protocol):
    """Chooses the next assistant message given the env (its messages, tools and state through tools)."""

    name: str

    def act(self, env: Env) -> Action: ...


class OraclePolicy:
    """Plays the spec's reference solution: its tool calls, then its message, turn by turn.

    Like a careful agent it repeats a call that an injected fault (429, 500, timeout, truncated) made fail,
    up to `max_retries` times in a row.
    """

    name = "oracle"

    def __init__(self, spec: EnvSpec, reference: list[ReferenceTurn] | None = None, max_retries: int = 5) -> None:
        self.reference = reference if reference is not None else spec.reference
        self.max_retries = max_retries
        self._plan: Iterator[Action] | None = None
        self._turn = -1
        self._last: Action | None = None
        self._retries = 0

    def act(self, env: Env) -> Action:
        if self._turn != env.turn or self._plan is None:
            self._turn = env.turn
            steps = self.reference[env.turn].steps if env.turn < len(self.reference) else []
            self._plan = iter(turn_actions(steps))
        elif self._retry_due(env):
            self._retries += 1
            return self._last  # type: ignore[return-value]
        self._retries = 0
        self._last = next(self._plan, _DONE)
        return self._last

    def _retry_due(self, env: Env) -> bool:
        """Whether the last call failed by an injected fault and may be repeated once more."""
        if self._last is None or not self._last.tool_calls or not env.audit or self._retries >= self.max_retries:
            return False
        return env.audit[-1].fault in FAILING


def turn_actions(steps: list[ReferenceStep]) -> list[Action]:
    """The actions of one reference turn: its tool calls in order, then one message that ends the turn."""
    actions = [Action.call(s.call.name, dict(s.call.arguments)) if s.call else Action.say(s.say or "") for s in steps]
    if not actions or actions[-1].tool_calls:
        actions.append(_DONE)
    # Text before the last message does not end the turn; fold it into the final message.
    said = [a.content for a in actions[:-1] if not a.tool_calls and a.content]
    calls = [a for a in actions[:-1] if a.tool_calls]
    final = actions[-1]
    if said:
        final = Action.say("\n\n".join([*said, final.content or ""]))
    return [*calls, final]


class NoopPolicy:
    """Does nothing: answers every turn without touching any tool."""

    name = "noop"

    def act(self, env: Env) -> Action:
        return _OKAY
