"""A message's body read in its subject: the facts a message must state moved from its body into its subject line.

A check on a mail's content written as "the body holds it, or the subject does" (a tier of full score with the
body's condition moved onto `subject`, a `called` matcher reading the subject where the reference's call has a
body, a Python grader testing `subject + body`) passes a mail whose body says nothing, "See the subject.", with
every fact crammed into its subject line: the outsider's hunt (`--family d146`, `body_or_subject`) found the tiers
form accepted on every base that sends or drafts a mail whose body a check reads. The task asks for a message that
says it; a subject line is not the message.

For each reference write with a subject and a text body (`CONTENT_ARGS`), two probes, grouped: the body bare (the
subject left as it is) and the body bare with its text appended to the subject. The gate judges the pair: where the
bare body fails a check (the checks read the body) but the moved one passes every check, the checks admit the
body's facts from the subject (`body_read_in_subject`, `subject_read`). Where the bare body passes too, the body is not what the
checks grade and nothing is said (the existing `content_unchecked` mutants judge that).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from coworkenv.spec import EnvSpec, ReferenceStep, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate._mutation_core import Mutation, replaced

SUBJECT_GROUP = "subject "  # a probe's group: this, then the path of the body it moves
_BARE = "See the subject."  # what the body says once its facts are moved out of it
_BODY_ARGS = ("body", "text", "content", "message")


def subject_probes(spec: EnvSpec, writes: Iterable[tuple[int, int, ToolCallSpec]],
                   tools: Mapping[str, ToolDef]) -> Iterator[Mutation]:
    """For each write of a message with a subject and a body: the body bare, and the body bare with its text moved
    into the subject, as one group (`subject_read` judges it)."""
    for t, s, call in writes:
        tool = tools.get(call.name)
        if tool is None or "subject" not in tool.params.model_fields:
            continue
        subject = call.arguments.get("subject")
        arg = next((a for a in _BODY_ARGS if isinstance(call.arguments.get(a), str) and call.arguments[a].strip()
                    and a in tool.params.model_fields), None)
        if arg is None or not (subject is None or isinstance(subject, str)):
            continue
        body = call.arguments[arg]
        path = f"reference[{t}].steps[{s}].call.arguments.{arg}"
        moved = f"{subject or ''} {' '.join(body.split())}".strip()
        for what, args in ((f"{call.name}: the {arg} bare ({_BARE!r})", {**call.arguments, arg: _BARE}),
                           (f"{call.name}: the {arg}'s text moved into the subject, the {arg} bare ({_BARE!r})",
                            {**call.arguments, arg: _BARE, "subject": moved})):
            step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments=args))
            yield Mutation("text_alter", path, what, replaced(spec.reference, t, s, step),
                           code="body_read_in_subject", group=SUBJECT_GROUP + path)


def subject_read(probes: Mapping[str, list[tuple[Mutation, bool]]]) -> list[tuple[Mutation, str]]:
    """(probe, message) for each message whose bare body fails a check while the same body moved into its subject
    passes every check: the checks read the body's facts from the subject too (the gate reports them)."""
    out: list[tuple[Mutation, str]] = []
    for group in probes.values():
        if len(group) != 2:
            continue
        (_, bare_passes), (moved, moved_passes) = group
        if not bare_passes and moved_passes:
            out.append((moved, f"near miss passes every required check: {moved.description}, while the bare body "
                               "alone fails one: the checks admit the message's facts from its subject line; read "
                               "them in the body alone"))
    return out
