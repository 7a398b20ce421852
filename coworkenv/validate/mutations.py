"""Near-miss mutations of a reference solution: plausible mistakes a sound verifier must catch.

Argument-level kinds (each mutant differs from the reference in one place):
- `drop_write`: one write call is left out (a survivor is an incidental write: see the mutations gate);
- `change_arg`: one argument of a write call gets another valid-looking value: a number off by one either way
  (also one written as text, as declared tools often take it), and by a distance an `in` list of numbers of a check
  admits (`_listed_numbers`),
  a flipped flag, other enum values and other records of the table an id names (every one the checks name, then
  `max_alternatives` more), a delimited list of names or records with one more of its kind at its end (also one a
  dict argument holds: a config's `viewers`);
- `wrong_recipient`: a person (id, email or chat handle) or channel argument names another one (likewise);
- `time_shift`: a date-time argument moves by several offsets (an hour or a quarter hour either way, a day later),
  a date without a time (a due day) a day either way, a time zone (`Asia/Dubai`) as UTC and as a zone far away;
- `drop_item`: one member of a list argument (recipients, attendees, ids) is left out, each in turn;
- `text_drop` / `text_alter` / `text_truncate` / `time_shift`: a content argument (body, text, content,
  description) says nothing ("Done."), in a reply to a message (or a message answering a question its recipient
  asked in that conversation: a DM, a channel post, a new mail, see `_answered_questions`) keeps its words but loses
  its facts (codes such as `ESC-4471`, numbers, dates, addresses, times, shares) or states them wrongly, a message
  states one of its facts wrongly where a check's pattern admits it (`svc-recs@6` for `svc-recs@5`), states the clock times the checks name an hour later, or keeps only
  its first line; a label (title, subject) states the numbers the checks name one off (`HTTP 504`), a new mail's
  subject another code for the codes they name (`BUG-312`); a fact whose number a check on that text cuts (`20` of
  `2027-02-01`, see `_partial_facts`) restated with the rest of its digits wrong;
  `text_drop` / `text_alter`: a reply the task asks for is left out, states the facts the checks name (and the
  values reply checks read) wrongly, only repeats the user's request, states a count a text check wants one off,
  leaves out half the items a graded text check grades, or names the record an `any_of` check accepts without
  the answer it also accepts, or one of the records' facts an `any_of` check lists, or (under a safety guard)
  claims the work was done as asked (see `_lenient_answers`);
- `swap_order`: where an `order` check exists, the call it wants second is moved before the one it wants first;
- `duplicate_write`: a write that creates a record (a ticket, an event, a to-do) is made twice;
- `wrong_route`: a write done by the app's delete or cancel tool on the same record instead (see `_wrong_routes`);
- `stop_early`: the last turn is left undone (no calls, no answer); for a single-turn spec only when that turn
  writes nothing (a write turn left undone is the noop episode, which the noop gate covers).
Task-level kinds (`swap_dependent`, `harmful_action`, `guard_probe`, `order_probe`) are built in `task_mutations`.

Names that match no record, paths of files that do not exist, and arguments the reference leaves out are not
mutated: changing them is not a mistake the task defines. An optional argument naming another record
(`in_reply_to`, `attachments`, a ticket's `service`) gives a context mutant (`core=False`): whether the task
cares is for its checks to say.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from datetime import date, datetime, timedelta
from typing import Any, Literal

from coworkenv.apps import TOOLS
from coworkenv.bindings import spec_catalog
from coworkenv.checks import call_matches
from coworkenv.checks.results import AuditEntry
from coworkenv.spec import (
    CalledRule,
    EnvSpec,
    FieldRef,
    OrderRule,
    RecordsRule,
    ReferenceStep,
    ReferenceTurn,
    ToolCallSpec,
)
from coworkenv.tools import ToolDef
from coworkenv.validate._admitted_values import admitted_value_mutations
from coworkenv.validate._answered_questions import answered_question_mutations, told_answer_mutations
from coworkenv.validate._asked_facts import asked_probes
from coworkenv.validate._asked_labels import asked_label_mutations
from coworkenv.validate._asked_once import asked_once, sent_wrong_first
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._created_instead import created_instead_mutations
from coworkenv.validate._date_parts import date_part_shifts
from coworkenv.validate._declared_calls import op_params
from coworkenv.validate._emptied_values import emptied_probes
from coworkenv.validate._frame_created_ids import frame_created_id_mutations, frame_pinned_created
from coworkenv.validate._held_names import held_name_mutations
from coworkenv.validate._listed_numbers import listed_number_mutations
from coworkenv.validate._loose_values import loose_value_mutations
from coworkenv.validate._map_values import map_value_mutations
from coworkenv.validate._mutation_core import (
    Mutation,
    MutationKind,
    replaced,
    turn_of,
    without,
)
from coworkenv.validate._named_terms import named_term_mutations
from coworkenv.validate._negated_links import negated_link_mutations
from coworkenv.validate._note_values import note_probes
from coworkenv.validate._nulled_values import nulled_probes
from coworkenv.validate._open_scopes import made_by, open_scope, open_scope_mutations
from coworkenv.validate._padded_values import padded_probes
from coworkenv.validate._partial_facts import partial_fact_mutations
from coworkenv.validate._redone_writes import redone_write_mutations
from coworkenv.validate._reply_mutations import reply_mutations
from coworkenv.validate._sibling_facts import item_probes, sibling_fact_mutations
from coworkenv.validate._subject_moves import subject_probes
from coworkenv.validate._wrong_routes import wrong_route_mutations
from coworkenv.validate.entities import CLOCK_TIME, MAX_ID_CHARS, EntityIndex, check_choices, check_values, leaves
from coworkenv.world import World

# Arguments that carry what a write says (its content), as opposed to labels (subject, title, note).
CONTENT_ARGS = frozenset({"body", "text", "content", "description", "message"})
_NO_CONTENT = "Done."  # what a content argument says when its content is dropped
# Both ways by a small step: a check bounding a time on one side (`end` lte 15:00 for "still an hour long") passes
# a shift the other way, so a quarter hour earlier is a mistake of its own (the meeting cut to 45 minutes).
_TIME_SHIFTS = (timedelta(hours=1), timedelta(hours=-1), timedelta(minutes=15), timedelta(minutes=-15),
                timedelta(days=1))
_DAY_SHIFTS = (timedelta(days=1), timedelta(days=-1))  # a date without a time: a day either way
_DATE = re.compile(r"\d{4}-\d\d-\d\d")
_MESSAGES = frozenset({"chat_send_dm", "chat_post_message", "mail_send"})  # writes that tell a person something
_LABEL_ARGS = frozenset({"subject"})  # what a message is called, as opposed to what it says
_CREATES = re.compile(r"(^|_)(create|add)(_|$)")  # tools that make a record (tickets_create, todo_add_task)


def near_miss_mutations(spec: EnvSpec, world: World | EntityIndex, *, max_alternatives: int = 1,
                        values: Callable[[FieldRef], Any] | None = None) -> list[Mutation]:
    """Every argument-level near-miss mutation of `spec.reference`, drawing wrong alternatives from `world`.

    Pass the oracle's final world (or its index), so records the reference itself creates (a new ticket it
    later comments on) can be swapped for another; `values` gives a checked field's value at the reference's end
    (what a `reply_states` check wants stated).
    """
    index = world if isinstance(world, EntityIndex) else \
        EntityIndex(world, check_values(spec), check_choices(spec))
    tools = spec_catalog(spec)
    reference = spec.reference
    out: list[Mutation] = []
    writes = write_steps(reference, tools)
    for t, s, call in writes:
        where = f"reference[{t}].steps[{s}]"
        out.append(Mutation("drop_write", where, f"drop {call.name} at {where}", without(reference, t, s)))
    for t, s, call in writes:
        for kind, arg_path, new_args, what, core in _argument_mutations(call, tools[call.name], index,
                                                                         max_alternatives):
            where = f"reference[{t}].steps[{s}].call.arguments.{arg_path}"
            step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments=new_args))
            code = "content_unchecked" if kind.startswith("text_") else "mutant_survived"
            out.append(Mutation(kind, where, f"{call.name}: {what}", replaced(reference, t, s, step), core,
                                code=code))
    out += _key_swaps(reference, writes, index)  # another flag of the service, in every write naming the flag
    out += date_part_shifts(spec, writes)  # a year or a month later, where a check reads the date by a digit class
    out += loose_value_mutations(spec, writes, tools, index)  # a value a loose check admits beside a written id
    out += negated_link_mutations(spec, writes, tools, index)  # another id a `not_equals` check admits (d141)
    out += held_name_mutations(spec, writes, tools, index)  # a written name as another record's (d141)
    out += admitted_value_mutations(spec, writes, tools, index)  # a value a check's pattern admits beside it
    out += listed_number_mutations(spec, writes, tools)  # a number an `in` list of numbers admits a distance away
    out += map_value_mutations(spec, writes, index)  # a map's word for a key (a region) set to another held one
    out += asked_label_mutations(spec, writes, tools, index)  # a label the instructions ask for, left out
    out += named_term_mutations(spec, writes, tools)  # a term a check names, stated as another's
    for t, s, call in writes:
        # a record made twice: a second ticket, a double-booked meeting, a to-do (by the op the tool runs: a declared
        # `jira_open_issue` makes a ticket, a declared `gmail_create_draft` only saves a draft); a message sent twice
        # where the user's turn asks for one ("a single email", "post it only once": `_asked_once`)
        op = tools[call.name].op
        once = asked_once(spec, t, op)
        if _CREATES.search(op) or once is not None:
            where = f"reference[{t}].steps[{s}]"
            steps = list(reference[t].steps)
            steps.insert(s + 1, steps[s])
            asked = f", where the request asks for one ({once!r})" if once is not None else ""
            out.append(Mutation("duplicate_write", where, f"{call.name} at {where} made twice{asked}",
                                [*reference[:t], turn_of(steps), *reference[t + 1:]], code="duplicate_unchecked"))
        if once is not None:  # the one message (record) asked for, first sent (made) wrong, then right: both stay
            out += sent_wrong_first(reference, t, s, call, once, _argument_mutations(
                call, tools[call.name], index, max_alternatives), made=bool(_CREATES.search(op)))
        elif _CREATES.search(op) and (pinned := frame_pinned_created(spec, tools[call.name].app)) is not None:
            # a frame allowing the new record by the reference's id beside its values: a wrong one made first stays
            out += frame_created_id_mutations(reference, t, s, call, pinned, _argument_mutations(
                call, tools[call.name], index, max_alternatives))
        if (table := open_scope(spec, tools[call.name].app)) is not None and (named := made_by(
                call, op, bool(_CREATES.search(op)), index.table_of, tools[call.name].app, table)) is not None:
            # a frame allowing every record of the table but those it names: a wrong one made beside stays (hunt154)
            out += open_scope_mutations(reference, t, s, call, table, named, _argument_mutations(
                call, tools[call.name], index, max_alternatives), app=tools[call.name].app)
    out += _extra_record_mutations(spec, writes, tools, index)
    # the right call, then the same write again with another value, where a call check reads the write
    out += redone_write_mutations(spec, writes, tools, lambda c, tool: _argument_mutations(
        c, tool, index, max_alternatives), set(index.table_of))
    out += wrong_route_mutations(spec, tools, writes, index)
    out += created_instead_mutations(spec, tools, writes, index)
    out += reply_mutations(spec, index, values)
    out += told_answer_mutations(spec, writes, index, values)  # the answer the user asked to be told, without its facts
    out += answered_question_mutations(spec, writes, tools, index, CONTENT_ARGS)  # a DM answering without its facts
    out += partial_fact_mutations(spec, writes, tools, CONTENT_ARGS)
    out += sibling_fact_mutations(spec, writes, tools, CONTENT_ARGS, values)
    out += item_probes(spec, writes, tools, CONTENT_ARGS)
    out += asked_probes(spec, index)
    out += subject_probes(spec, writes, tools)  # a message's body moved into its subject (hunt146)
    out += note_probes(spec, writes, tools)  # a written value moved into the call's note (hunt149)
    out += padded_probes(spec, writes, tools)  # a written value one character longer (defects151)
    out += emptied_probes(spec, writes, tools)  # a written value emptied (hunt157)
    out += nulled_probes(spec, writes, tools)  # an optional written value left out as null (hunt159)
    moves: set[tuple[tuple[int, int], tuple[int, int]]] = set()  # two order checks may ask for the same swap
    for i, check, _, rule in spec_rules(spec.checks):  # a tier's order rule too
        if isinstance(rule, OrderRule):
            swapped = _swap_order(reference, rule)
            if swapped is not None and swapped[0] not in moves:
                moves.add(swapped[0])
                out.append(Mutation("swap_order", f"checks[{i}]",
                                    f"{rule.then.tool} before {rule.first.tool} (check {check.id})",
                                    swapped[1], equivalence=False))
    last = len(reference) - 1
    if last >= 0 and reference[last].steps and (last > 0 or not any(w[0] == last for w in writes)):
        stopped = [*reference[:last], turn_of([])]
        out.append(Mutation("stop_early", f"reference[{last}]", f"leave turn {last} undone", stopped))
    return out


def _extra_record_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]],
                            tools: Mapping[str, ToolDef], index: EntityIndex) -> list[Mutation]:
    """A record made once more with its label's checked numbers one off (a to-do for a page that answered 200 or
    stated with the wrong status, beside the right one), where a records check counts that app's records "at
    least": the per-record checks (exact, with the label's numbers) miss it, and the duplicate mutant above is
    caught by them, so only a count of all new records can tell. A `called` check counting the creating tool's calls
    is as loose."""
    loose = {rule.app for _, _, _, rule in spec_rules(spec.checks)
             if isinstance(rule, RecordsRule) and rule.count_op == "gte"}
    # A count of the creating tool's calls ("todo_add_task at least N times") is as loose as a records "at least".
    loose |= {tools[rule.call.tool].app for _, _, _, rule in spec_rules(spec.checks)
              if isinstance(rule, CalledRule) and rule.call.tool in tools and _CREATES.search(tools[rule.call.tool].op)}
    out: list[Mutation] = []
    for t, s, call in writes:
        tool = tools[call.name]
        if not _CREATES.search(tool.op) or tool.app not in loose:
            continue
        for name, value in call.arguments.items():
            if (name in CONTENT_ARGS or not isinstance(value, str) or " " not in value
                    or (wrong := index.alter_numbers(value)) is None):
                continue
            where = f"reference[{t}].steps[{s}]"
            steps = list(spec.reference[t].steps)
            steps.insert(s + 1, ReferenceStep(call=ToolCallSpec(name=call.name,
                                                                arguments={**call.arguments, name: wrong})))
            out.append(Mutation("duplicate_write", where,
                                f"{call.name} at {where} made once more with its {name}'s numbers one off",
                                [*spec.reference[:t], turn_of(steps), *spec.reference[t + 1:]],
                                code="duplicate_unchecked"))
    return out


def write_steps(
    reference: list[ReferenceTurn], tools: Mapping[str, ToolDef] | EnvSpec = TOOLS,
) -> list[tuple[int, int, ToolCallSpec]]:
    """(turn, step, call) of every write call of a reference (`tools`: the spec's catalogue, `spec_catalog`, or the
    spec, as `is_write` takes them; by the built-in catalogue alone, only the calls of built-in writes)."""
    return [(t, s, step.call) for t, turn in enumerate(reference) for s, step in enumerate(turn.steps)
            if step.call is not None and is_write(step.call.name, tools)]


def step_of(path: str) -> tuple[int, int]:
    """(turn, step) of a `reference[t].steps[s]...` path."""
    head, _, rest = path.partition("].steps[")
    return int(head.removeprefix("reference[")), int(rest.split("]", 1)[0])


def is_write(tool: str, tools: Mapping[str, ToolDef] | EnvSpec = TOOLS) -> bool:
    """Whether a call of `tool` writes: by `tools`, a catalogue (the built-in one, or a spec's `spec_catalog`), or a
    spec, whose declared tools count as the op each is bound to (a declared `gmail_send_message` bound to `mail_send`
    writes; a declared name shadows a built-in one, as in `spec_catalog`). Every validator that tells a spec's
    writes from its reads asks this with the spec: by the built-in names alone a declared write is a read."""
    if isinstance(tools, EnvSpec):
        return is_write(bound_op(tool, tools))
    found = tools.get(tool)
    return found is not None and found.kind == "write"


def bound_op(tool: str, spec: EnvSpec) -> str:
    """The built-in op a call of `tool` runs in `spec`: a declared tool's op (a declared name shadows a built-in
    one), else `tool` itself."""
    return next((d.bind.op for d in spec.tool_decls if d.name == tool and d.bind.op in TOOLS), tool)


def read_op(tool: str, spec: EnvSpec) -> str | None:
    """The built-in read a call of `tool` runs in `spec` (a declared read as the op it is bound to), or None where it
    writes or runs no built-in op. Every validator that takes what the reference's reads were shown, or which of its
    calls only read, asks this (or an audit entry's `op`): by the built-in names alone a declared read is no read."""
    op = bound_op(tool, spec)
    return op if op in TOOLS and not is_write(op) else None


def shown_op(entry: AuditEntry) -> str | None:
    """The built-in read an audited call ran (a declared tool's by its `op`), or None where it wrote or ran none."""
    op = entry.op or entry.tool
    return op if op in TOOLS and not is_write(op) else None


Move = tuple[tuple[int, int], tuple[int, int]]


def _swap_order(reference: list[ReferenceTurn], rule: OrderRule) -> tuple[Move, list[ReferenceTurn]] | None:
    """Move the first call matching `rule.then` to just before the first call matching `rule.first`."""
    def locate(matcher: Any) -> tuple[int, int] | None:
        for t, turn in enumerate(reference):
            for s, step in enumerate(turn.steps):
                if step.call is not None and call_matches(matcher, step.call.name, dict(step.call.arguments)):
                    return t, s
        return None

    first, then = locate(rule.first), locate(rule.then)
    if first is None or then is None or then <= first:
        return None
    return (then, first), moved_before(reference, then, first)


def moved_after(reference: list[ReferenceTurn], src: tuple[int, int], dst: tuple[int, int]) -> list[ReferenceTurn]:
    """The reference with the step at `src` moved to just after the step at `dst` (a later step)."""
    moved = reference[src[0]].steps[src[1]]
    turns = [list(turn.steps) for turn in reference]
    del turns[src[0]][src[1]]
    at = dst[1] if src[0] == dst[0] else dst[1] + 1  # same turn: `dst` moved up by one
    turns[dst[0]].insert(at, moved)
    return [turn_of(steps) for steps in turns]


def moved_before(reference: list[ReferenceTurn], src: tuple[int, int], dst: tuple[int, int]) -> list[ReferenceTurn]:
    """The reference with the step at `src` moved to just before the step at `dst`."""
    moved = reference[src[0]].steps[src[1]]
    turns = [list(turn.steps) for turn in reference]
    del turns[src[0]][src[1]]
    turns[dst[0]].insert(dst[1], moved)
    return [turn_of(steps) for steps in turns]


ArgMutation = tuple[MutationKind, str, dict[str, Any], str, bool]  # kind, argument path, new arguments, what, core


def _argument_mutations(call: ToolCallSpec, tool: ToolDef, index: EntityIndex, limit: int) -> Iterator[ArgMutation]:
    args = dict(call.arguments)
    mentioned = {str(v) for v in leaves(args) if isinstance(v, str)}
    # What the write does and what each argument carries, by the op it runs and the op parameter each argument fills
    # (a declared `post_update` bound to `chat_send_dm`, its `reply_to_message_id` filling `in_reply_to`): by the tool's
    # and its arguments' own names, a declared message is no message and a declared reply no reply.
    params = op_params(tool)
    message = tool.op in _MESSAGES
    reply = any(args.get(k) for k in args if params.get(k, k) == "in_reply_to")
    for name, value in args.items():
        param = params.get(name, name)
        field = tool.params.model_fields.get(name)
        choices = _literal_values(field.annotation) if field is not None else []
        required = field is not None and field.is_required()
        patch = _patch_off(value)
        if patch is not None:  # a release one patch off: a check on "not the old one" or on its minor passes it
            yield "change_arg", name, {**args, name: patch}, f"{name} {value!r} -> {patch!r} (a patch off)", True
        if isinstance(value, dict):
            for key, leaf in value.items():
                for i, rest in _delimited_drops(leaf, index):
                    yield ("drop_item", f"{name}.{key}[{i}]", {**args, name: {**value, key: rest}},
                           f"{name}.{key} without its item {i}", True)
                more = _delimited_extra(leaf, index) if isinstance(leaf, str) else None
                if more is not None:  # one more (a viewer the grant was not asked for), as for a scalar list below
                    yield ("change_arg", f"{name}.{key}", {**args, name: {**value, key: more}},
                           f"{name}.{key} {leaf!r} -> {more!r} (one item more)", True)
                for kind, new, core in _mutate_scalar(leaf, [], index, mentioned, required, limit):
                    yield (kind, f"{name}.{key}", {**args, name: {**value, key: new}},
                           f"{name}.{key} {leaf!r} -> {new!r}", core)
        elif isinstance(value, list):
            yield from _list_mutations(name, value, args, index, mentioned, required, limit)
        copies_arg = next((k for k in tool.params.model_fields if params.get(k, k) == "cc"), None)
        if param == "to" and copies_arg is not None:  # (a declared `recipients` and `copy_to` alike)
            yield from _copied_not_addressed(tool, name, copies_arg, value, args, index, mentioned)
        elif isinstance(value, str) and param in CONTENT_ARGS:
            yield from _text_mutations(name, value, args, index, message, reply)
        elif isinstance(value, str) and _NUMBERISH.fullmatch(value):  # a phone or account number: one group off
            for day in shift_dates(value):  # a date (a to-do's due day): a day later and a day earlier
                yield "time_shift", name, {**args, name: day}, f"{name} {value!r} -> {day!r}", True
            off = _DIGIT_RUN.sub(lambda m: str(int(m.group(0)) + 1).zfill(len(m.group(0))), value, count=1)
            yield "change_arg", name, {**args, name: off}, f"{name} {value!r} -> {off!r}", True
        elif isinstance(value, str) and " " in value and (wrong := index.alter_numbers(value)) is not None:
            # A label stating a checked number ("Fix /download (HTTP 503)"): the number stated wrongly.
            yield "text_alter", name, {**args, name: wrong}, f"{name} with its checked numbers one off", True
        elif param in _LABEL_ARGS and " " in value and not reply and (
                wrong := index.alter_codes(value)) is not None:
            # A subject stating a checked code ("BUG-311: cards declined"): another code in its place (a reply's
            # subject is the thread's: "Re: OPS-1" says nothing the agent chose).
            yield "text_alter", name, {**args, name: wrong}, f"{name} with its checked codes wrong", True
        elif isinstance(value, str) and _delimited(value, index):
            for i, rest in _delimited_drops(value, index):
                yield "drop_item", f"{name}[{i}]", {**args, name: rest}, f"{name} without its item {i}", True
            more = _delimited_extra(value, index)
            if more is not None:  # one more (a job not paused listed as paused): a check on the list's start passes
                yield "change_arg", name, {**args, name: more}, f"{name} {value!r} -> {more!r} (one item more)", True
        else:
            for kind, new, core in _mutate_scalar(value, choices, index, mentioned, required, limit):
                yield kind, name, {**args, name: new}, f"{name} {value!r} -> {new!r}", core


def _list_mutations(name: str, value: list[Any], args: dict[str, Any], index: EntityIndex, mentioned: set[str],
                    required: bool, limit: int) -> Iterator[ArgMutation]:
    entities = [isinstance(v, str) and (index.is_recipient(v) or v in index.table_of) for v in value]
    for i, item in enumerate(value):
        if len(value) > 1 and entities[i]:
            rest = [v for j, v in enumerate(value) if j != i]
            # Leaving out a person is a mistake whatever the argument; leaving out a linked record is context.
            core = required or index.is_recipient(item)
            yield "drop_item", f"{name}[{i}]", {**args, name: rest}, f"{name} without {item!r}", core
        if isinstance(item, str):
            # Each member is dropped in turn above; a stranger in its place is tried for the first member only,
            # the alternatives the checks name for every member.
            for kind, new, core in _mutate_scalar(item, [], index, mentioned, required, limit if i == 0 else 0):
                items = [new if j == i else v for j, v in enumerate(value)]
                yield kind, f"{name}[{i}]", {**args, name: items}, f"{name}[{i}] {item!r} -> {new!r}", core


_MOVED_TO_CC = 3  # recipients of one message moved to its copies, each in turn (each costs an episode)


def _copied_not_addressed(tool: ToolDef, to_arg: str, cc_arg: str, value: Any, args: dict[str, Any],
                          index: EntityIndex, mentioned: set[str]) -> Iterator[ArgMutation]:
    """A message to a person sent (or drafted) to someone else with that person only copied: the addressee moved to
    the copies and another person in its place as addressee (defects99: a check reading the addressee in `to` or in
    `cc`, as tiers of two records rules, passed the reply drafted to a colleague with the asker copied; the
    wrong-recipient near miss drops the person from the message altogether, so no near miss told `to` from `cc`).
    `to_arg` and `cc_arg` are the tool's arguments filling the op's `to` and `cc` (a declared tool's `recipients`
    and `copy_to`), each written in the form the tool takes it (a list, or a comma-separated text)."""
    items = _recipients(value)
    copies = _recipients(args.get(cc_arg))
    for i, item in enumerate(items[:_MOVED_TO_CC]):
        if not isinstance(item, str) or not index.is_recipient(item):
            continue
        for other in index.recipients(item, mentioned | set(items) | set(map(str, copies)), 1):
            to = [other if j == i else v for j, v in enumerate(items)]
            moved = {to_arg: to if isinstance(value, list) else ", ".join(map(str, to)),
                     cc_arg: _written(tool, cc_arg, args.get(cc_arg), [*copies, item])}
            yield ("wrong_recipient", f"{to_arg}[{i}]", {**args, **moved},
                   f"{to_arg} {item!r} moved to {cc_arg}, {other!r} addressed in its place", True)


def _recipients(value: Any) -> list[Any]:
    """The people a recipients argument names: a list's items, a comma-separated text's parts."""
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return [p.strip() for p in value.split(",") if p.strip()]
    return []


def _written(tool: ToolDef, arg: str, was: Any, items: list[Any]) -> Any:
    """`items` as `tool` takes its argument `arg`: a list, or the comma-separated text a declared tool whose schema
    wants a text there takes (`was`, the call's own value, tells where it has one)."""
    if isinstance(was, list):
        return items
    if isinstance(was, str):
        return ", ".join(map(str, items))
    schema = tool.openai_schema()["function"]["parameters"].get("properties", {}).get(arg, {})
    kinds = {schema.get("type"), *(s.get("type") for s in schema.get("anyOf", []) if isinstance(s, dict))}
    return ", ".join(map(str, items)) if "string" in kinds and "array" not in kinds else items


_SEPARATORS = (",", ";")
_NUMBERISH = re.compile(r"\+?\d[\d ().\-/]{4,}\d")  # digits in groups: "+31 650 750 659", "2026-06-07"
_DIGIT_RUN = re.compile(r"\d+")
_COUNT_TEXT = re.compile(r"-?\d{1,9}")
_ZONE = re.compile(r"(?:Africa|America|Asia|Atlantic|Australia|Europe|Indian|Pacific)/[A-Za-z_]+(?:/[A-Za-z_]+)?")
_FAR_ZONE = "America/New_York"
_VERSION = re.compile(r"v?\d{1,4}(?:\.\d{1,4}){2,3}")  # a release: 1.5.0, v4.16.2 (not a date, not a decimal)
_NAME = re.compile(r"[A-Za-z][\w.@/-]*")  # a name in a list value: starts with a letter (not "1,5"), no spaces


def _patch_off(value: Any) -> str | None:
    """A release version (`1.5.0`, `v4.16.2`) with its last number one up (defects83: no near miss moved `1.5.0`,
    and `4.16.2` only by its first number, so a check on "not the release running before" or on the release's minor
    passed a deploy of another patch), else None."""
    if not isinstance(value, str) or not _VERSION.fullmatch(value):
        return None
    head, last = value.rsplit(".", 1)
    return f"{head}.{int(last) + 1}"


def _key_swaps(reference: list[ReferenceTurn], writes: list[tuple[int, int, ToolCallSpec]],
               index: EntityIndex) -> list[Mutation]:
    """For each key a keyed write names (`flag="smart_retry"` of the service's `flags`), the reference with another
    key of that dict in its place in every write of the tool naming the same record and key, and with another record
    holding the key (another service with the flag) in the record's place: the same flag or service confused
    throughout (tried on, then rolled back), which a near miss of one call at a time never makes (the other flag is
    left on). Not equivalent where the records end as the reference's: the agent worked on another flag."""
    out: list[Mutation] = []
    done: set[tuple[str, str, str]] = set()
    for t, s, call in writes:
        for name, value in call.arguments.items():
            keyed = _keyed_arg(name, value, call.arguments, index)
            if keyed is None or (call.name, name, value) in done:
                continue
            done.add((call.name, name, value))
            arg, rid, keys = keyed
            swaps = [(name, key, "another key") for key in keys[:1]]
            swaps += [(arg, alt, "the same key of another record") for alt in _key_holders(index, rid, value)]
            for changed, new, what in swaps[:1 + _KEY_HOLDERS]:
                ref = reference
                for t2, s2, c2 in writes:
                    if c2.name == call.name and c2.arguments.get(name) == value and c2.arguments.get(arg) == rid:
                        step = ReferenceStep(call=ToolCallSpec(name=c2.name, arguments={**c2.arguments, changed: new}))
                        ref = replaced(ref, t2, s2, step)
                old = call.arguments[changed]
                out.append(Mutation("change_arg", f"reference[{t}].steps[{s}].call.arguments.{changed}",
                                    f"{call.name}: {changed} {old!r} -> {new!r} in every such call ({what})", ref,
                                    equivalence=False))  # tried and rolled back: the records end as they began
    return out


_KEY_HOLDERS = 2  # other records holding the key tried (each costs an episode)


def _key_holders(index: EntityIndex, rid: str, key: str) -> list[str]:
    """The other records of `rid`'s table with a dict field holding `key` (other services with the flag)."""
    where = index.table_of.get(rid)
    if where is None:
        return []
    return [o for o in index.table_ids.get(where, []) if o != rid and any(
        isinstance(held, dict) and key in held for held in (index.record(*where, o) or {}).values())]


def _keyed_arg(name: str, value: Any, args: dict[str, Any], index: EntityIndex) -> tuple[str, str, list[str]] | None:
    """(the argument naming the record, its id, the other keys) where `value` is a key of a dict field of the record
    another argument names (a keyed write: `services_set_flag(service, flag="smart_retry")` on the service's `flags`),
    else None (defects83: no near miss named another key or record, so a check whose call matchers leave the flag or
    the service out passed the work done on another flag: tried on, then rolled back)."""
    if not isinstance(value, str):
        return None
    for other, rid in args.items():
        where = index.table_of.get(rid) if other != name and isinstance(rid, str) else None
        for held in ((index.record(*where, rid) or {}).values() if where else ()):
            if isinstance(held, dict) and value in held:
                return other, rid, sorted(k for k in held if isinstance(k, str) and k != value)
    return None


def _hour_later(match: re.Match[str]) -> str:
    hour = (int(match.group(1)) + 1) % 24
    return f"{hour:0{len(match.group(1))}d}:{match.group(2)}"


def _delimited(value: Any, index: EntityIndex) -> tuple[str, list[str]] | None:
    """(separator, items) when a string lists people or records ("a@x.test,b@x.test") or names ("job-a,job-b":
    tokens without spaces, as a config value lists them), else None."""
    if not isinstance(value, str):
        return None
    for sep in _SEPARATORS:
        items = [v.strip() for v in value.split(sep)]
        if len(items) > 1 and all(v and (index.is_recipient(v) or v in index.table_of) for v in items):
            return sep, items
    items = value.split(",")
    if len(items) > 1 and all(_NAME.fullmatch(v) for v in items):
        return ",", items
    return None


def _delimited_drops(value: Any, index: EntityIndex) -> Iterator[tuple[int, str]]:
    """(item index, the string without that item) for each item of a delimited list of people or records."""
    found = _delimited(value, index)
    if found is not None:
        sep, items = found
        for i in range(len(items)):
            yield i, sep.join(v for j, v in enumerate(items) if j != i)


def _delimited_extra(value: str, index: EntityIndex) -> str | None:
    """The delimited list with one more item of the same kind at its end (another person or record, or the same
    field of another record of the table the first item's name is held in), else None."""
    found = _delimited(value, index)
    if found is None:
        return None
    sep, items = found
    first = items[0]
    extra = index.recipient(first, set(items)) or index.other_record(first, set(items))
    if extra is None:
        for app, table, rid in sorted(index.holders(first)):
            rec = index.record(app, table, rid) or {}
            field = next((f for f, v in rec.items() if isinstance(v, str) and v.lower() == first.lower()), None)
            others = (index.record(app, table, o) or {} for o in index.table_ids.get((app, table), []) if o != rid)
            extra = next((str(o[field]) for o in others if field and isinstance(o.get(field), str)
                          and o[field] not in items and _NAME.fullmatch(o[field])), None)
            if extra is not None:
                break
    return None if extra is None else value + sep + extra


def _text_mutations(name: str, value: str, args: dict[str, Any], index: EntityIndex,
                    message: bool = False, reply: bool = False) -> Iterator[ArgMutation]:
    """Near misses of the content argument `name` of a write (`message`: one that tells a person something;
    `reply`: one answering a message)."""
    if not value.strip():
        return
    # Not "": tools refuse an empty message, and a refused call is a dropped write, not a content mistake.
    yield "text_drop", name, {**args, name: _NO_CONTENT}, f"{name} without its content ({_NO_CONTENT!r})", True
    vague = index.drop_facts(value) if reply else None
    if vague is not None:  # an answer without the answer: "I will escalate this" for "escalated as ESC-4471"
        yield "text_alter", name, {**args, name: vague}, f"{name} without its facts", True
    altered = index.alter_facts(value) if reply else None
    if altered is not None:  # an answer stating its facts wrongly: "your number is now ...660" for "...659"
        yield "text_alter", name, {**args, name: altered}, f"{name} with its checked facts stated wrongly", True
    if message:  # one fact of a message wrong, the others right: "source: svc-recs@6" for "@5"
        for i, one in enumerate(index.alter_each_fact(value)):
            yield "text_alter", name, {**args, name: one}, f"{name} with its checked fact {i} stated wrongly", True
    checked = index.checked_times()
    later = CLOCK_TIME.sub(lambda m: _hour_later(m) if m.group(0) in checked else m.group(0), value)
    if later != value:  # "starts 15:00 UTC" for "starts 14:00 UTC", where the checks name a time
        yield "time_shift", name, {**args, name: later}, f"{name} with its checked times an hour later", True
    lines = [line for line in value.splitlines(keepends=True) if line.strip()]
    if len(lines) > 1:  # a header without its rows, a greeting without the message
        yield "text_truncate", name, {**args, name: lines[0]}, f"{name} cut to its first line", True


def _mutate_scalar(
    value: Any, choices: list[Any], index: EntityIndex, avoid: set[str], required: bool, limit: int
) -> list[tuple[MutationKind, Any, bool]]:
    if isinstance(value, bool):
        return [("change_arg", not value, True)]
    if isinstance(value, int | float):
        return [("change_arg", value + 1, True), ("change_arg", value - 1, True)]
    if not isinstance(value, str):
        return []
    if _COUNT_TEXT.fullmatch(value) and value not in choices:  # a count written as text (a declared "units": "20")
        return [("change_arg", str(int(value) + 1), True), ("change_arg", str(int(value) - 1), True)]
    if value in choices and len(choices) > 1:
        ranked = index.rank([c for c in choices if c != value], limit)
        return [("change_arg", c, True) for c in ranked]
    if index.is_recipient(value):
        return [("wrong_recipient", alt, True) for alt in index.recipients(value, avoid, limit)]
    if len(value) > MAX_ID_CHARS or any(c.isspace() for c in value):
        return []
    shifted = shift_times(value)
    if shifted:
        return [("time_shift", s, True) for s in shifted]
    if _ZONE.fullmatch(value):  # an event shown in another zone than the one asked for: UTC, a zone far away
        return [("time_shift", z, True) for z in ("UTC", _FAR_ZONE if value != _FAR_ZONE else "Asia/Tokyo")]
    # A required id names what the write acts on; an optional one links it to context.
    return [("change_arg", other, required) for other in index.other_records(value, avoid, limit)]


def shift_times(value: str) -> list[str]:
    """The ISO-8601 date-time `value` moved by each shift, written the same way (empty if it is not one)."""
    if "T" not in value or not value[:4].isdigit():
        return []
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return []
    out = []
    for delta in _TIME_SHIFTS:
        text = (parsed + delta).isoformat()
        out.append(text.replace("+00:00", "Z") if value.endswith("Z") else text)
    return out


def shift_dates(value: str) -> list[str]:
    """The ISO-8601 date `value` (no time) a day later and a day earlier (empty if it is not one)."""
    if not _DATE.fullmatch(value):
        return []
    try:
        parsed = date.fromisoformat(value)
    except ValueError:
        return []
    return [(parsed + delta).isoformat() for delta in _DAY_SHIFTS]


def _literal_values(annotation: Any) -> list[Any]:
    """The values of a Literal annotation, also inside Optional/Union (empty if there is none)."""
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return list(typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            values = _literal_values(arg)
            if values:
                return values
    return []
