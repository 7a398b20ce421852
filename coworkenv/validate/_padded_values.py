"""A written value read as a substring: the value the task sets found inside a longer one.

A check made lenient with a Python grader that tests `str(value) in str(record)` ("the release is in the service",
a tier of full score beside the field check) or `str(value) in r['deployed_version']` passes an agent that writes a
longer value holding the wanted one: a deploy of `1.5.01` (or `11.5.0`) for `1.5.0`, a quantity of 570 for 57. The
outsider's hunt (`--family d149`, `py_value_in_record`) found it accepted and witnessed on refuse_forbidden_action.
A declarative `contains` or `matches` is probed by `_admitted_values` (it reads the pattern); a Python grader cannot
be read, so it is probed by play.

Probed as pairs (the `_note_values` way), only where a check has a Python rule: for each written scalar that names
or counts something (a version, an id, a number, a phone number: `_admitted_values._kind` text or number, not a
closed set of values), the value with its last character changed (the control: another value of the same length)
and the value with a character appended (the probe: a digit after a digit, else `x`; a number one digit longer).
Where the control fails a check (the checks read the value) but the probe passes every check, the checks read the
written value as a substring of a longer one (`value_read_as_substring`, `padded_reads`). A value no check reads
passes both, and a tool that refuses both fails both: neither says anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from coworkenv.spec import EnvSpec, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate._admitted_values import _kind
from coworkenv.validate._check_reads import python_rules
from coworkenv.validate._loose_values import _literal
from coworkenv.validate._mutation_core import Mutation
from coworkenv.validate._note_values import _pair, split_pairs

PADDED_GROUP = "padded "  # a probe pair's group: this, then the path of the argument it pads
_MAX_VALUES = 8  # written values probed per spec (each pair is two plays of a sandboxed grader)


def _changed(value: str | int | float) -> str | int | float:
    """Another value of the same length: the last digit one up (mod 10), or the last letter another."""
    if isinstance(value, int):
        return value + 1 if value % 10 != 9 else value - 1
    if isinstance(value, float):
        return value + 1
    last = value[-1]
    other = str((int(last) + 1) % 10) if last.isdigit() else ("y" if last.lower() == "x" else "x")
    return value[:-1] + other


def _padded(value: str | int | float) -> str | int | float:
    """The value one character longer, holding the value itself: a digit after a digit, else `x`."""
    if isinstance(value, int):
        return value * 10 + 1 if value >= 0 else value * 10 - 1
    if isinstance(value, float):
        return float(f"{value!r}1") if "e" not in repr(value) else value * 10
    return value + ("1" if value[-1].isdigit() else "x")


def written_args(writes: Iterable[tuple[int, int, ToolCallSpec]], tools: Mapping[str, ToolDef],
                 keep: Callable[[ToolDef, str, Any], bool], limit: int
                 ) -> Iterator[tuple[int, int, ToolCallSpec, str, Any]]:
    """(turn, step, call, argument, value) of the first `limit` arguments of the writes that `keep` takes."""
    made = 0
    for t, s, call in writes:
        tool = tools.get(call.name)
        if tool is None:
            continue
        for arg, value in call.arguments.items():
            if not keep(tool, arg, value):
                continue
            if made >= limit:
                return
            made += 1
            yield t, s, call, arg, value


def padded_probes(spec: EnvSpec, writes: Iterable[tuple[int, int, ToolCallSpec]],
                  tools: Mapping[str, ToolDef]) -> Iterator[Mutation]:
    """For each written scalar a Python check may read: the value changed in its last character, and the value one
    character longer, as one group (`padded_reads` judges it). Nothing where no check has a Python rule."""
    if not any(python_rules(c.rule) for c in spec.checks):
        return
    yield from changed_pairs(spec, writes, tools, lambda tool, arg, value: _kind(value) in ("text", "number") and
                             not _literal(tool, arg), _MAX_VALUES, PADDED_GROUP, "value_read_as_substring",
                             lambda value: (f"-> {_padded(value)!r}, one character longer", _padded(value)))


def changed_pairs(spec: EnvSpec, writes: Iterable[tuple[int, int, ToolCallSpec]], tools: Mapping[str, ToolDef],
                  keep: Callable[[ToolDef, str, Any], bool], limit: int, group: str, code: str,
                  probe: Callable[[Any], tuple[str, Any]]) -> Iterator[Mutation]:
    """For the first `limit` arguments of the writes that `keep` takes, a pair in `group`: the value changed in its
    last character (the control), and the value `probe` makes (what it says of it, the new value)."""
    for t, s, call, arg, value in written_args(writes, tools, keep, limit):
        said, new = probe(value)
        shown = repr(value) if len(repr(value)) <= 60 else f"{repr(value)[:57]}..."
        changed: dict[str, Any] = {**call.arguments, arg: _changed(value)}
        yield from _pair(spec, t, s, call.name, f"reference[{t}].steps[{s}].call.arguments.{arg}", group, code,
                         (f"{arg} {shown} -> {repr(changed[arg])[:60]}", changed),
                         (f"{arg} {shown} {said}", {**call.arguments, arg: new}))


def padded_reads(probes: Mapping[str, list[tuple[Mutation, bool]]]) -> list[tuple[Mutation, str]]:
    """(probe, message) for each pair whose control fails a check while its probe passes every check (the gate
    reports them); `probes` holds the `padded ` groups."""
    return [(probe, f"near miss passes every required check: {probe.description}, while "
                    f"{control.description.split(': ', 1)[-1]} fails one: the checks find the written value inside "
                    "a longer one (a substring test); compare the value whole")
            for control, probe in split_pairs(probes)]
