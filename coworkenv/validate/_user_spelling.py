"""Values the reference writes in another case or spacing than the user gave them: the user asks for the label
"tracked" or the report at `reports/errors-2026-02-23.csv`, and the reference writes `Tracked` or
`Reports/Errors-2026-02-23.csv`. An honest agent copies the user's spelling; where the reference replayed with it
fails a check, the check pins the writer's casing (a case-sensitive `equals`, or `contains` on a list of labels),
which no user asked for (`case_pinned`).

Only a write argument that is not a person or channel (those have their own spellings, `_spelling`) and whose value
the turns so far hold, whole, with other letter case or spacing is tried; the replay counts only where the tool
took the user's spelling (a tool that refuses it, an enum or a flag name, leaves the agent to retry).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn, ToolCallSpec
from coworkenv.validate._mutation_core import replaced
from coworkenv.validate._spelling import FORMS
from coworkenv.validate.mutations import write_steps

_MAX_LEN = 80  # longer values are prose (a body), where wording, not spelling, is judged (`_pinned_wording`)


@dataclass(frozen=True)
class UserSpelled:
    """The reference with one write argument spelled as the user spelled it."""

    path: str
    description: str
    tool: str
    reference: list[ReferenceTurn]


def user_spellings(spec: EnvSpec) -> Iterator[UserSpelled]:
    """One replay per written value the user spelled otherwise (see the module docstring)."""
    seen: set[str] = set()
    for t, s, call in write_steps(spec.reference):
        said = " ".join(turn.content for turn in spec.turns[:t + 1])
        for arg, value in call.arguments.items():
            if (call.name, arg) in FORMS:
                continue
            items = value if isinstance(value, list) else [value]
            for i, item in enumerate(items):
                if not isinstance(item, str) or item in seen:
                    continue
                theirs = _as_user_spelled(item, said)
                if theirs is None:
                    continue
                seen.add(item)
                new = [*items[:i], theirs, *items[i + 1:]] if isinstance(value, list) else theirs
                step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, arg: new}))
                yield UserSpelled(f"reference[{t}].steps[{s}].call.arguments.{arg}",
                                  f"{call.name} with {arg} {theirs!r} as the user wrote it (the reference: {item!r})",
                                  call.name, replaced(spec.reference, t, s, step))


def _as_user_spelled(value: str, said: str) -> str | None:
    """The user's spelling of `value` (the same characters but for letter case and spacing) where it differs."""
    core = value.strip()
    if len(core) < 3 or len(core) > _MAX_LEN or not re.search(r"[^\W\d_]", core):
        return None
    pattern = r"\s+".join(re.escape(part) for part in core.split())
    spelled = [m.group(0) for m in re.finditer(rf"(?<![\w/.-]){pattern}(?![\w/-])", said, re.IGNORECASE)]
    if not spelled or value in spelled:
        return None  # the user never wrote it, or also wrote it exactly so
    return spelled[0]
