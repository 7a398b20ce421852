"""The narrating oracle: plays a spec's reference solution and writes the assistant messages a real assistant
would, from what its calls actually returned (what it looked at, what it found, what it did).

Phrasing varies with the seed; the facts come from the world, so no message holds a placeholder.
"""

from __future__ import annotations

import random

from coworkenv.apps import TOOLS
from coworkenv.checks import AuditEntry
from coworkenv.env import Action, Env, ToolCallRequest
from coworkenv.faults import FAILING
from coworkenv.rollout.describe import Phrasing, action, finding, intent, join, source
from coworkenv.rollout.grounding import discovery_call
from coworkenv.spec import EnvSpec, ToolCallSpec


def _is_read(entry: AuditEntry) -> bool:
    tool = TOOLS.get(entry.op or entry.tool)  # a declared tool reads or writes as its bound op does
    return tool is not None and tool.kind == "read"


def observed(entry: AuditEntry, p: Phrasing) -> str:
    """One sentence on the outcome of an audited call."""
    if not entry.ok:
        return f"That call failed: {entry.error}."
    if _is_read(entry):
        return finding(entry.tool, entry.args, entry.result, p)
    did = action(entry.tool, entry.args, entry.result, p)
    return p.rng.choice((f"Done: I {did}.", f"I {did}.", f"That went through; I {did}."))


def preface(p: Phrasing, previous: AuditEntry | None, call: ToolCallSpec, turn: int) -> str:
    """The text sent with a tool call: what the last call showed, then what this one is for."""
    goal = intent(call.name, dict(call.arguments), p)
    if previous is None:
        opener = p.rng.choice((f"Let me {goal} first.", f"First, I'll {goal}.", f"To start, I'll {goal}.",
                               f"I'll {goal} to begin with."))
        return f"{p.rng.choice(('On it.', 'Sure.', 'Okay.'))} {opener}" if turn > 0 else opener
    then = p.rng.choice((f"Next, I'll {goal}.", f"Now let me {goal}.", f"Then I'll {goal}.", f"Let me {goal} next."))
    return f"{observed(previous, p)} {then}"


def final_message(p: Phrasing, entries: list[AuditEntry], says: list[str]) -> str:
    """The message that ends the turn: the reference's statement with what was looked at and changed."""
    ok = [e for e in entries if e.ok]
    actions = [action(e.tool, e.args, e.result, p) for e in ok if not _is_read(e)]
    sources = list(dict.fromkeys(source(e.tool, e.args) for e in ok if _is_read(e)))
    last_read = next((e for e in reversed(ok) if _is_read(e)), None)
    say = "\n\n".join(s.strip() for s in says if s.strip())
    layout = p.rng.randrange(4)
    if say and actions:
        if layout == 0:
            lead = p.rng.choice(("To recap the changes:", "What I changed:", "For the record:"))
            text = f"{say}\n\n{lead} I {join(actions)}."
        elif layout == 1:
            text = f"{p.rng.choice(('All done.', 'Done.', 'Finished.'))} I {join(actions)}.\n\n{say}"
        elif layout == 2:
            text = f"{say}\n\nChanges made:\n" + "\n".join(f"- {a[0].upper()}{a[1:]}" for a in actions)
        else:
            text = say
    elif say:
        if layout == 0 and sources:
            text = f"I went through {join(sources)}.\n\n{say}"
        elif layout == 1 and sources:
            text = f"{say}\n\n(Checked: {join(sources)}.)"
        else:
            text = say
    elif actions:
        text = f"{p.rng.choice(('Done.', 'All set.', 'Finished.'))} I {join(actions)}."
        if last_read is not None and layout < 2:
            text += f" {observed(last_read, p)}"
    elif last_read is not None:
        text = f"I checked {join(sources)}. {observed(last_read, p)}"
    else:
        text = p.rng.choice(("Done.", "All done.", "That's taken care of."))
    closer = p.rng.choice(("", "", "", " Let me know if you need anything else.", " Anything else I should look at?"))
    return text + closer


class NarratedOracle:
    """A Policy playing the reference solution turn by turn, one call per message, narrating as it goes.

    `terse` leaves the narration out: tool calls carry no text, and a turn ends with the reference's own statement
    (or a one-word acknowledgement when it has none). Demonstrations for a small model trained from scratch, which
    cannot afford to learn the narration (see docs/learning.md).

    `grounded` looks before it acts: before a reference call that writes a value the agent has not seen (an id the
    generator knew), it makes the listing or search call that shows it (`coworkenv.rollout.grounding`), at most
    `MAX_DISCOVERY` per reference call. A demonstration then never teaches guessing an id.
    """

    MAX_DISCOVERY = 3

    name = "oracle"

    def __init__(self, spec: EnvSpec, seed: int = 0, *, terse: bool = False, grounded: bool = False) -> None:
        self.spec = spec
        self.seed = seed
        self._declared = frozenset(d.name for d in spec.tool_decls)  # may answer in any shape
        self.terse = terse
        self.grounded = grounded
        self._looked = 0  # discovery calls made for the current reference call
        self._discovered = False  # the last action was a discovery call
        self._turn = -1
        self._calls: list[ToolCallSpec] = []
        self._says: list[str] = []
        self._next = 0
        self._audit_start = 0

    def _discovery(self, env: Env) -> ToolCallSpec | None:
        """The listing or search call to make before the next reference call, when `grounded` and one is needed."""
        if self.grounded and self._next < len(self._calls) and self._looked < self.MAX_DISCOVERY:
            look = discovery_call(env, self._calls[self._next].arguments)
            if look is not None:
                self._looked += 1
                self._discovered = True
                return look
        self._looked = 0
        return None

    def act(self, env: Env) -> Action:
        if env.turn != self._turn:
            self._turn = env.turn
            steps = self.spec.reference[env.turn].steps if env.turn < len(self.spec.reference) else []
            self._calls = [s.call for s in steps if s.call is not None]
            self._says = [s.say for s in steps if s.say]
            self._next = 0
            self._audit_start = len(env.audit)
        # One generator per message: phrasing depends on the seed, the env and the position, never on history.
        entries = env.audit[self._audit_start:]
        discovered, self._discovered = self._discovered, False
        if entries and entries[-1].fault in FAILING and 0 < self._next <= len(self._calls) and not discovered:
            self._next -= 1  # repeat the call an injected fault made fail, as a careful agent would
        call = self._discovery(env)
        where = f"{self._next}:look{self._looked}" if call is not None else str(self._next)
        p = Phrasing(env.state, random.Random(f"{self.seed}:{self.spec.id}:{env.turn}:{where}"), self._declared)
        if call is None:
            step, self._next = self._next, self._next + 1
            call = self._calls[step] if step < len(self._calls) else None
        if call is not None:
            text = "" if self.terse else preface(p, entries[-1] if entries else None, call, env.turn)
            return Action(text, (ToolCallRequest(call.name, dict(call.arguments)),))
        if self.terse:
            return Action.say("\n\n".join(s.strip() for s in self._says if s.strip()) or "Done.")
        return Action.say(final_message(p, entries, self._says))
