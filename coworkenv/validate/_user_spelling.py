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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn, ToolCallSpec
from coworkenv.validate._mutation_core import replaced
from coworkenv.validate._spelling import FORMS
from coworkenv.validate.entities import leaves
from coworkenv.validate.mutations import CONTENT_ARGS, is_write, write_steps

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
    for t, s, call in write_steps(spec.reference, spec):  # a declared write's values too
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


def told_spellings(spec: EnvSpec, seen: Mapping[int, Callable[[], str]] | None = None) -> Iterator[UserSpelled]:
    """One replay per answer (a turn's last reply) or message text (a content argument of a write) that states a
    value a check names (a title, a label, a status: `Contract Renewal Memo`) which the user, or what the reference's
    read calls were shown so far (`seen`, per turn: the mail asking for a `contract renewal memo`), spells only in
    another letter case or spacing: the text with each such value as they spell it. An honest agent copies the
    spelling it was given; a check that then fails (a text check with `normalize.case` off, a case-sensitive
    `contains` on the message) pins the writer's (defects82)."""
    named = sorted({v for c in spec.checks for v in leaves(c.rule.model_dump(mode="json"))
                    if isinstance(v, str) and _nameable(v)}, key=len, reverse=True)
    shown: list[str] = []
    for t, turn in enumerate(spec.reference[:len(spec.turns)]):
        if seen is not None and t in seen:
            shown.append(seen[t]())
        said = " ".join([*(x.content for x in spec.turns[:t + 1]), *shown])
        says = [s for s, step in enumerate(turn.steps) if step.say]
        for s, step in enumerate(turn.steps):
            if step.say is not None and says and s == says[-1]:
                new = _respelled(step.say, named, said)
                if new is not None:
                    yield UserSpelled(f"reference[{t}].steps[{s}].say",
                                      f"the reply of turn {t} with the values it names as the user or the source "
                                      f"spelled them ({new!r})", "", replaced(spec.reference, t, s, ReferenceStep(say=new)))
            call = step.call
            if call is None or not is_write(call.name, spec):
                continue
            args = {a: _respelled(v, named, said) if a in CONTENT_ARGS and isinstance(v, str) else None
                    for a, v in call.arguments.items()}
            changed = {a: v for a, v in args.items() if v is not None}
            if changed:
                step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, **changed}))
                yield UserSpelled(f"reference[{t}].steps[{s}].call.arguments.{next(iter(changed))}",
                                  f"{call.name} with the values its text names as the user or the source spelled "
                                  "them", call.name, replaced(spec.reference, t, s, step))


def _nameable(value: str) -> bool:
    """A check's value a text may name: three characters or more (a short one only with a digit and a letter, a
    priority `P2` or a version `v3`, not a word `in`), and no longer than `_MAX_LEN`."""
    core = value.strip()
    return 3 <= len(core) <= _MAX_LEN or (len(core) == 2 and bool(re.fullmatch(r"[^\W\d_]\d|\d[^\W\d_]", core)))


def _respelled(text: str, named: list[str], said: str) -> str | None:
    """`text` with each value of `named` it states, exactly, as `said` spells it otherwise (also where `said` spells
    it as the text does too: a mail's subject `Contract Renewal Memo` and its body `contract renewal memo`, either an
    honest copy, defects93); None where none."""
    theirs = {value: spelled for value in named if value in text
              and (spelled := _as_user_spelled(value, said, also_as_is=True)) is not None}
    if not theirs:
        return None
    # One pass over the text as written, longest value first: a value respelled is not respelled back by another
    # check's value spelled the other way (`Contract Renewal Memo` and a condition's `contract renewal memo`).
    values = "|".join(re.escape(v) for v in sorted(theirs, key=len, reverse=True))
    out = re.sub(rf"(?<![\w/.-])(?:{values})(?![\w/-])", lambda m: theirs[m.group(0)], text)
    return out if out != text else None


@lru_cache(maxsize=8192)
def _spelled(core: str) -> re.Pattern[str]:
    """`core` as a whole term in any letter case and spacing (compiled once: the replays ask it of every text)."""
    pattern = r"\s+".join(re.escape(part) for part in core.split())
    return re.compile(rf"(?<![\w/.-]){pattern}(?![\w/-])", re.IGNORECASE)


def _as_user_spelled(value: str, said: str, also_as_is: bool = False) -> str | None:
    """The user's spelling of `value` (the same characters but for letter case and spacing) where it differs; where
    `said` also spells it exactly as `value`, None, or with `also_as_is` its first other spelling."""
    core = value.strip()
    if not _nameable(core) or not re.search(r"[^\W\d_]", core):
        return None
    spelled = [m.group(0) for m in _spelled(core).finditer(said)]
    other = [s for s in spelled if s != value]
    if not other or (value in spelled and not also_as_is):
        return None  # the user never wrote it otherwise, or also wrote it exactly so
    return other[0]
