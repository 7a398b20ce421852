"""Labels the task's instructions ask for: a write's list argument holding a free word (`labels: ["sla-review"]`, a
tag) that no near miss moved, since it names no person, record or number. Where the request, or a message the agent
is given (a mail, a chat message, in the world or put there by a rule: "open a follow-up ticket ... priority p2,
label sla-review"), or a document it is shown (a file, note, article or page the request or a reference call names:
"label them the way notes/mail-conventions.md says"), states the word, the write without it, and with another word in
its place, are near misses: a check on the ticket that lost its `labels` condition passes the ticket with no label
(hunt70's witness on report_from_files), and one that reads only that the labels changed passes another label.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import orjson

from coworkenv.spec import EnvSpec, ReferenceStep, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate._mutation_core import Mutation, MutationKind, replaced
from coworkenv.validate.entities import EntityIndex

# A free word of a label: letters first, then letters, digits and dashes (not a sentence, an id or a number).
_LABEL = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*", re.IGNORECASE)


def instructions(spec: EnvSpec) -> str:
    """The text the agent is told by: the requests, and the world's and the rules' mail and chat messages."""
    apps = spec.world.apps
    said = [f"{m.subject}\n{m.body}" for m in apps.mail.messages] + [m.text for m in apps.chat.messages]
    # the turns' requests and the records they put, and the messages a rule puts
    said.append(orjson.dumps([t.model_dump(mode="json") for t in spec.turns]).decode())
    # what the rules put (their effects: a follow-up mail), not when they fire (a condition no agent is told)
    said.append(orjson.dumps([e.model_dump(mode="json") for r in spec.dynamics.rules for e in r.effects]).decode())
    return "\n".join(said + _shown_documents(spec, said[-2]))


# The document tables, each with its text fields: what an agent reading one is told.
_DOCUMENTS = (("files", "files", ("content",)), ("notes", "notes", ("title", "body")),
              ("kb", "articles", ("title", "body")), ("web", "pages", ("title", "body")))


def _shown_documents(spec: EnvSpec, requests: str) -> list[str]:
    """The text of each document the agent is shown: one whose id (a path, an article id, a url) the requests
    state or a reference call passes (a conventions note the reference reads before labelling)."""
    passed: set[str] = set()
    for turn in spec.reference:
        for step in turn.steps:
            for value in (step.call.arguments.values() if step.call is not None else ()):
                passed.update(v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str))
    out = []
    for app, table, fields in _DOCUMENTS:
        for doc in getattr(getattr(spec.world.apps, app, None), table, None) or []:
            if doc.id in passed or (len(doc.id) > 3 and doc.id in requests):
                out.append("\n".join(str(getattr(doc, f, "")) for f in fields))
    return out


def asked_label_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]], tools: Mapping[str, ToolDef],
                          index: EntityIndex) -> list[Mutation]:
    """Each write's list argument with one free word the instructions state left out (see the module docstring)."""
    told: str | None = None
    out: list[Mutation] = []
    for t, s, call in writes:
        for name, value in call.arguments.items():
            if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
                continue
            for i, item in enumerate(value):
                if not _LABEL.fullmatch(item) or index.is_entity(item) or len(item) > 40:
                    continue
                told = instructions(spec) if told is None else told
                if not re.search(rf"(?<![\w-]){re.escape(item)}(?![\w-])", told, re.IGNORECASE):
                    continue
                path = f"reference[{t}].steps[{s}].call.arguments.{name}[{i}]"
                rest = [v for j, v in enumerate(value) if j != i]
                other = [f"not-{item}" if j == i else v for j, v in enumerate(value)]  # another word in its place
                moves: tuple[tuple[MutationKind, list[str], str], ...] = (
                    ("drop_item", rest, f"without {item!r}"), ("change_arg", other, f"with {other[i]!r} for {item!r}"))
                for kind, items, what in moves:
                    step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, name: items}))
                    out.append(Mutation(kind, path, f"{call.name}: {name} {what} (the instructions ask for it)",
                                        replaced(spec.reference, t, s, step)))
    return out
