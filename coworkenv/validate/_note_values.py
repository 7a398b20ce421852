"""A written value read anywhere in the record: the value the task sets found in the note the same call keeps.

A check made lenient with a Python grader that finds the record by its id and tests `str(value) in str(record)`
("the phone is in the contact", a tier of full score beside the field check) passes an agent that leaves the field
as it was and writes the value into a free-text argument of the same call (a contact's `add_note`, a config change's
`note`, an adjustment's `reason`): the outsider's hunt (`--family d149`, `py_value_in_record`) found it accepted and
witnessed on contact_phone_update. The field is what the task sets; a note about it is not the change.

Probed as pairs (the `_subject_moves` way), so a value the checks do not grade says nothing: for each scalar argument
of a write whose tool takes a free-text note (`NOTE_ARGS`), the argument left out (the control) and the argument left
out with `name: value` appended to the note. Where the control fails a check (the checks read the value) but the moved
one passes every check, the checks read the value from the note (`value_read_in_note`, `moved_reads`). A required
argument left out fails the call both times and says nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from coworkenv.spec import EnvSpec, ReferenceStep, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate._mutation_core import Mutation, replaced

NOTE_GROUP = "note "  # a probe pair's group: this, then the path of the argument it moves
NOTE_ARGS = ("add_note", "note", "reason", "comment")  # free text a write keeps beside the fields it sets


def _pair(spec: EnvSpec, t: int, s: int, name: str, path: str, group: str, code: str,
          control: tuple[str, dict[str, Any]], probe: tuple[str, dict[str, Any]]) -> Iterator[Mutation]:
    for what, args in (control, probe):
        step = ReferenceStep(call=ToolCallSpec(name=name, arguments=args))
        yield Mutation("text_alter", path, f"{name}: {what}", replaced(spec.reference, t, s, step), code=code,
                       group=group + path)


def note_probes(spec: EnvSpec, writes: Iterable[tuple[int, int, ToolCallSpec]],
                tools: Mapping[str, ToolDef]) -> Iterator[Mutation]:
    """For each scalar argument of a write whose tool takes a note: the argument dropped, and the argument dropped
    with its value written into the note, as one group (`moved_reads` judges it)."""
    for t, s, call in writes:
        tool = tools.get(call.name)
        params = tool.params.model_fields if tool is not None else {}
        note = next((p for p in NOTE_ARGS if p in params), None)
        held = call.arguments.get(note) if note is not None else None
        if note is None or not (held is None or isinstance(held, str)):
            continue
        for arg, value in call.arguments.items():
            if arg == note or isinstance(value, bool) or not isinstance(value, str | int | float) or value == "":
                continue
            rest = {k: v for k, v in call.arguments.items() if k != arg}
            moved = {**rest, note: f"{held or ''} {arg}: {value}".strip()}
            yield from _pair(spec, t, s, call.name, f"reference[{t}].steps[{s}].call.arguments.{arg}", NOTE_GROUP,
                             "value_read_in_note", (f"the {arg} left out", rest),
                             (f"the {arg} left out, its value {value!r} written in the {note}", moved))


def split_pairs(probes: Mapping[str, list[tuple[Mutation, bool]]]) -> list[tuple[Mutation, Mutation]]:
    """(control, probe) for each pair of probe groups whose control fails a check while its probe passes every check."""
    out: list[tuple[Mutation, Mutation]] = []
    for pair in probes.values():
        if len(pair) == 2 and not pair[0][1] and pair[1][1]:
            out.append((pair[0][0], pair[1][0]))
    return out


def moved_reads(probes: Mapping[str, list[tuple[Mutation, bool]]]) -> list[tuple[Mutation, str]]:
    """(probe, message) for each pair whose control fails a check while its probe passes every check (the gate
    reports them); `probes` holds the `note ` groups."""
    return [(probe, f"near miss passes every required check: {probe.description}, while "
                    f"{control.description.split(': ', 1)[-1]} fails one: the checks read the value "
                    "from the note, not from the field the task sets; read the field")
            for control, probe in split_pairs(probes)]
