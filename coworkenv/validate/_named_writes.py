"""Writes the instructions name: a reference update that puts on an existing record a value the agent is told or
shown (the request, a mail, a document it reads: "assign it to Esra Larsen", "set its priority from its label:
bug: p4" in the triage file). Such a write is the task's even where no check reads what it changes; a spec whose
checks on it were swapped for stand-ins (a count of another tool's calls, another record's field) passes an agent
that leaves the record alone, so dropping it is not incidental.
"""

from __future__ import annotations

import re
from typing import Any

from coworkenv.spec import EnvSpec, ToolCallSpec
from coworkenv.validate._asked_labels import instructions


def _spoken(spec: EnvSpec, value: str) -> list[str]:
    """The ways the instructions state `value`: itself, and for a person (an id, an email, a handle) their name."""
    ref = value.lower().lstrip("@")
    people = getattr(getattr(spec.world.apps, "directory", None), "people", None) or []
    for p in people:
        if ref in {str(r).lower().lstrip("@") for r in (p.id, p.email, p.chat_handle) if r}:
            return [value, str(p.name)] if p.name else [value]
    return [value]


def named_write(spec: EnvSpec, call: ToolCallSpec, before: dict[str, Any], after: dict[str, Any]) -> str | None:
    """A field `call` changes on an existing record (`before`: the record without the write, `after`: with it)
    whose new value the instructions state, as `field 'value' (stated as ...)`; None where there is none."""
    told: str | None = None
    for name, value in call.arguments.items():
        field = str(name).split(".")[0]
        if not isinstance(value, str) or len(value) < 2 or field not in after or before.get(field) == after.get(field):
            continue
        if after.get(field) != value:
            continue  # the record holds another value than the call passed (a tool's own rewrite)
        told = instructions(spec) if told is None else told
        for word in _spoken(spec, value):
            if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", told, re.IGNORECASE):
                return f"{field} {value!r} (stated as {word!r})"
    return None
