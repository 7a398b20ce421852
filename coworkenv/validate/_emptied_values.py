"""A written value admitted "or empty": a check that takes the value the task sets, or nothing there.

An author who allows for a record that lacks the field writes the value's check as `phone in ["+31 650 750 659",
"", null]`, `assignee matches ^(u-ivan)?$`, or a tier of full score `in_reply_to equals ""` beside the right one.
The agent that clears the field passes: a contact's phone wiped, a ticket filed unassigned, a reply's draft saved
outside its thread. The outsider's hunt (`--family d157`, `value_or_empty`) found it accepted and witnessed on
contact_phone_update, draft_only_reply, feature_flag_rollout and mail_ticket_chat_coordination: no near miss of the
mutation gate writes an empty value.

Probed as pairs (the `_note_values` way): for each text argument of a write (not one of a closed set of values),
the value with its last character changed (the control: another value) and the value emptied (the probe: `""`).
Where the control fails a check (the checks read the value) but the probe passes every check, the checks admit the
field left empty (`empty_value_admitted`, `emptied_reads`). A value no check reads passes both; a tool that refuses
an empty value fails the probe: neither says anything. Only values the checks name (the value's letters and digits
inside the checks' text, a pattern's escapes aside): a value no check names is not what one admits "or empty", and
each pair is two plays (a sandboxed grader's runs too). At most `_MAX_VALUES` values, the first ones.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping

from coworkenv.spec import EnvSpec, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate._loose_values import _literal
from coworkenv.validate._mutation_core import Mutation
from coworkenv.validate._note_values import split_pairs
from coworkenv.validate._padded_values import changed_pairs

EMPTIED_GROUP = "emptied "  # a probe pair's group: this, then the path of the argument it empties
_MAX_VALUES = 12  # written text values probed per spec


def emptied_probes(spec: EnvSpec, writes: Iterable[tuple[int, int, ToolCallSpec]],
                   tools: Mapping[str, ToolDef]) -> Iterator[Mutation]:
    """For each text argument of a write: the value changed in its last character, and the value emptied, as one
    group (`emptied_reads` judges it)."""
    named = _alnum(json.dumps([c.rule.model_dump(mode="json") for c in spec.checks]))
    yield from changed_pairs(spec, writes, tools, lambda tool, arg, value: isinstance(value, str) and
                             bool(_alnum(value)) and _alnum(value) in named and not _literal(tool, arg), _MAX_VALUES,
                             EMPTIED_GROUP, "empty_value_admitted", lambda value: ("left empty", ""))


def _alnum(text: str) -> str:
    """The text's letters and digits, folded: a value and its escaped pattern (`\\+31\\ 650`) alike."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def emptied_reads(probes: Mapping[str, list[tuple[Mutation, bool]]]) -> list[tuple[Mutation, str]]:
    """(probe, message) for each pair whose control fails a check while its probe passes every check (the gate
    reports them); `probes` holds the `emptied ` groups."""
    return [(probe, f"near miss passes every required check: {probe.description}, while "
                    f"{control.description.split(': ', 1)[-1]} fails one: the checks admit the field left empty "
                    "beside the value the task sets (`in [v, \"\"]`, an optional pattern, a tier on the empty value); "
                    "compare the value alone")
            for control, probe in split_pairs(probes)]
