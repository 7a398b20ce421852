"""Attempts credited: a check that passes a call the tool refused, as if it had done what it asks.

The audit keeps every call with its arguments as the agent wrote them, and whether the tool carried it out (`ok`,
`error`). A Python check that finds the task's call in the audit by its tool and arguments, and never asks whether
it succeeded (`a["ok"]`) or reads its effect in the state, credits an agent whose call was refused: a config write
with a stale `expected_version`, a mail whose attachment does not exist, a ticket update the workflow refuses, a
job id in capitals the scheduler does not know (the check compares case-blind), a transfer of more stock than the
shelf holds. The agent did nothing, and passes. The declarative call matchers (`called`, `order`, turn conditions,
dynamics rules) count successful calls only, so only code reads the attempt.

For each reference write whose dropping fails a check (the write is needed), where some Python check reads the
audit, the reference is played once more with that very call refused by the tool (same arguments, an error in
place of the result, the world left as it was: the dropped write's state with the attempt in the audit). A sound
verifier fails it as it fails the dropped write; where it passes, and a check the dropped write failed passes it
only because the refused call is in the audit (a Python check reading the audit), the verifier credits the
attempt: `attempt_credited`. A read is an attempt too: a check that the agent consulted a source ("read the
runbook", "opened the customer's mail") by finding the read in the audit credits a read the tool refused (the path
in capitals, an id the app does not know, an argument the tool does not take), which opened nothing; each reference
read whose drop fails a check is refused the same way. A check that reads `ok`, or the record, fails the refusal like the drop. A call the
reference's own run saw refused (a task that has the agent try, and report the refusal) is not replayed.

A read of another record or scope is one too: a check that the agent consulted the source with a call matcher on
the reading tool that does not pin it (`called` with no arguments, a `where` every runbook meets, `order` with a loose
`first`), or a Python check that finds any read of the tool, credits an agent that opened another runbook, message
or note (one that exists: the read succeeds), or searched for other words, listed another person's or status's
tickets, another service's logs or another week's events, and answered from memory. Each needed reference read (its
drop fails a check) is moved one argument at a time: an argument naming a record of the world onto each other record
the reference does not name, a list of records or people (whose calendars a free/busy read asks about) onto others
the reference does not name, every item at once and every item but one, a choice among fixed values onto each other value, the window its date-times bound a
week later, the words it searches for onto other words. A loose matcher (one that takes the read and the move and
pins no argument the move keeps) is tried on the first few moves it takes; a Python check reading the audit on the
first move onto another record, or for a search (no record to open) on the search moved in every argument that
bounds it, where each text argument moves. Where a move passes, and a check reading the calls passes it though it
failed the drop, the verifier credits a read of any record or scope: `read_elsewhere_credited`.

A draft saved and then sent (`mail_save_draft`, `mail_send_draft` of the id it returned) can have its words checked
on the saving call (`called mail_save_draft` whose body holds the answer) while the sent-mail check reads only the
folder and recipients: an agent that saves a first version with other words, then the right draft, and sends the
first version passes. For each such pair in the reference whose words a check reads (the draft saved with other
words fails a check), the reference is played with an earlier version (other words, the same recipients) saved
before the draft and sent instead; where that passes: `sent_draft_unchecked`. The pair is found by the op each call
runs (a spec's declared draft tools, `gmail_save_draft` and `gmail_send_draft`, count as theirs), the earlier version
and its sending written back through the same tools' bindings.

A message prepared and not sent is an attempt too: a check on the mail `messages` table that finds the reply by
its recipient and words but not its folder (`folder == sent`), or a frame that lets a draft in, is met by the same
mail saved as a draft, which nobody receives. For each needed reference `mail_send` (its drop fails a check) where
the agent is given `mail_save_draft`, the reference is played with the mail saved as a draft instead (the same
arguments); where that passes, the verifier credits the draft: `draft_credited`. A spec's declared mail tools count
too (an imported `gmail_send_message` bound to `mail_send`, `gmail_save_draft` to `mail_save_draft`): a send through
any tool bound to the sending op is replayed through each drafting tool the agent is given, built-in or declared,
the message carried through the bindings (the sending call's op arguments; a declared drafting tool's arguments
found by its renames and conversions, kept only where they bind to that same message).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from typing import Any, Literal, get_args, get_origin

from coworkenv.agents import OraclePolicy
from coworkenv.bindings import DeclaredTool, exposed_tools, spec_catalog
from coworkenv.checks.primitives import call_matches
from coworkenv.env import base_world
from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn, ToolCallSpec
from coworkenv.spec_checks import CalledRule, OrderRule
from coworkenv.tools import ToolDef, ToolOutcome
from coworkenv.validate._check_reads import nested_rules, parts_read, python_rules
from coworkenv.validate._declared_calls import as_op, bound_message, declared_arguments, made_through
from coworkenv.validate._episodes import EpisodeOutcome, SpecEpisodes
from coworkenv.validate._mutation_core import replaced, turn_of, without
from coworkenv.validate.gates import GateError
from coworkenv.validate.mutations import Mutation, is_write, step_of
from coworkenv.world import Table, World

# What the refusing tool answers: the reason a real service gives varies (a permission, a state, a validation); the
# verdict on a call that changed nothing must not depend on which.
REFUSAL = "refused: the service did not carry out this request (permission denied for this record in its state)"
# A tool that delivers a message at once -> the tool that saves the same message (same arguments) without sending it.
UNSENT = {"mail_send": "mail_save_draft"}
# Words a read searches for in place of the reference's: another search, which finds other records or none.
OTHER_WORDS = "weekly report"
# The most moves of one read played (each is one episode).
MOVES = 3
# An earlier version of a draft: other words, the same recipients (and no thread: a first try).
OTHER_MESSAGE = {"subject": "Re: your message", "body": "Thanks for your message, I will come back to you shortly.",
                 "attachments": []}


def audit_readers(spec: EnvSpec) -> set[str]:
    """The ids of the checks with a Python rule that reads the audit (in a tier too)."""
    return {c.id for c in spec.checks if any("audit" in parts_read(r.code, r.entrypoint) for r in python_rules(c.rule))}


@contextmanager
def _refusing(episodes: SpecEpisodes, call: ToolCallSpec, nth: int) -> Iterator[None]:
    """While open, the `nth` (0-based) call equal to `call` that reaches the episodes' tools is refused."""
    toolbox = episodes.env.toolbox
    real = toolbox.call
    seen = [0]

    def call_or_refuse(name: str, arguments: Any, *, rendered: bool = False) -> ToolOutcome:
        if name == call.name and arguments == call.arguments:
            seen[0] += 1
            if seen[0] == nth + 1:
                return ToolOutcome(False, error=REFUSAL)
        return real(name, arguments, rendered=rendered)

    toolbox.call = call_or_refuse  # type: ignore[method-assign]
    try:
        yield
    finally:
        del toolbox.call  # the class's method again


def _nth(spec: EnvSpec, t: int, s: int) -> int:
    """How many calls equal to the one at turn `t`, step `s` the reference makes before it."""
    call = spec.reference[t].steps[s].call
    assert call is not None
    return sum(1 for k, turn in enumerate(spec.reference) for j, step in enumerate(turn.steps)
               if (k, j) < (t, s) and step.call is not None and step.call.name == call.name
               and step.call.arguments == call.arguments)


def _carried_out(spec: EnvSpec, oracle: EpisodeOutcome, t: int, s: int) -> bool:
    """Whether the reference's own run carried the call at turn `t`, step `s` out (a task may have the agent try a
    call the world refuses, and report it: refusing that call again is the reference itself)."""
    call = spec.reference[t].steps[s].call
    assert call is not None
    same = [e for e in oracle.audit if e.tool == call.name and e.args == call.arguments]
    nth = _nth(spec, t, s)
    return nth < len(same) and same[nth].ok


def refused_outcome(episodes: SpecEpisodes, t: int, s: int) -> EpisodeOutcome:
    """The reference played with its call at turn `t`, step `s` refused by the tool (every other call as it is)."""
    call = episodes.spec.reference[t].steps[s].call
    assert call is not None
    with _refusing(episodes, call, _nth(episodes.spec, t, s)):  # its checks' results are read where it passes
        return episodes.run(OraclePolicy(episodes.spec), lazy=True)


def credited_attempts(spec: EnvSpec, episodes: SpecEpisodes,
                      results: list[tuple[Mutation, EpisodeOutcome]]) -> list[GateError]:
    """`attempt_credited` for each needed reference call (its drop fails a check: a write's drop from `results`, a
    read's played here) that passes every check when the tool refuses it, a check reading the audit passing the
    refusal though it failed the drop."""
    readers = audit_readers(spec)
    if not readers:
        return []
    needed = [(step_of(m.path), dropped) for m, dropped in results if m.kind == "drop_write"]
    tools = spec_catalog(spec)
    for t, turn in enumerate(spec.reference):  # a read a check asks for ("the agent read the runbook")
        for s, step in enumerate(turn.steps):
            if step.call is not None and not is_write(step.call.name, tools):
                needed.append(((t, s), episodes.mutant(without(spec.reference, t, s), keep_reads=True)))
    errors = []
    for (t, s), dropped in needed:
        if dropped.result is None or dropped.passed or not _carried_out(spec, episodes.oracle(), t, s):
            continue
        refused = refused_outcome(episodes, t, s)
        if refused.result is None or not refused.passed:
            continue
        before, after = dropped.check_passed(), refused.check_passed()
        credited = sorted(c for c in readers if after.get(c) and not before.get(c, True))
        if not credited:  # the verdicts differ for another reason (e.g. the clock a refused call still moves)
            continue
        call = spec.reference[t].steps[s].call
        assert call is not None
        errors.append(GateError(
            "mutations", "attempt_credited", f"reference[{t}].steps[{s}]",
            f"the reference with its {call.name} call refused by the tool (same arguments, nothing changed or read) "
            f"passes every required check, while dropping the call fails {', '.join(credited)}: the check finds the "
            "call in the audit and credits the attempt; read whether the call succeeded (`ok`) or its effect in the "
            "state"))
    return errors


def _literals(annotation: Any) -> list[Any]:
    """The values a `Literal` annotation (in a union, an `Optional` too) allows."""
    if get_origin(annotation) is Literal:
        return list(get_args(annotation))
    return [v for a in get_args(annotation) for v in _literals(a)]


def _instant(value: Any) -> datetime | None:
    """`value` as an ISO-8601 date-time (with a time of day), or None."""
    if not isinstance(value, str) or "T" not in value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _day(value: Any) -> date | None:
    """`value` as an ISO-8601 calendar date (`2026-11-03`: a day's events), or None."""
    if not isinstance(value, str) or len(value) != 10:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def _addressed(tables: list[Table[Any]], address: str) -> tuple[str, list[str]] | None:
    """(the app, every address of its table in order of id) for the table whose record has `address` as its `email`
    (a person of the directory read by address: `directory_get_person`, `calendar_list_events`' person), or None."""
    folded = address.strip().lower()
    for table in tables:
        records = sorted(table, key=lambda r: str(getattr(r, "id", "")))
        emails = [e for r in records if isinstance(e := getattr(r, "email", None), str) and "@" in e]
        if any(e.lower() == folded for e in emails):
            return table.app, [e for e in emails if e.lower() != folded]
    return None


def _others_of(tables: list[Table[Any]], value: Any) -> tuple[str, list[str]] | None:
    """(the app, the other values in order) for a value naming a record of the world: its table's other ids for an
    id, its table's other addresses for an address some record holds as its `email`; None for anything else."""
    if not isinstance(value, str):
        return None
    table = next((tb for tb in tables if tb.get(value) is not None), None)
    if table is not None:
        return table.app, [r for r in sorted(table.ids()) if r != value]
    return _addressed(tables, value) if "@" in value else None


def _list_moves(call: ToolCallSpec, arg: str, tables: list[Table[Any]], listed: set[str],
                opens: str | None) -> list[tuple[bool, ToolCallSpec]]:
    """A list argument whose every item names a record or person (free/busy of the attendees) moved onto records the
    reference does not name: every item at once, then every item but one (a matcher pinning one person of several
    takes it); the first with whether it moves the records the read opens (every item of app `opens`). Empty where
    an item names nothing; the moves the world holds enough others for (defects101)."""
    items = call.arguments[arg]
    pools = [p for v in items if (p := _others_of(tables, v)) is not None]
    if not items or len(pools) != len(items):
        return []
    moves: list[tuple[bool, ToolCallSpec]] = []
    for kept in (None, *(range(len(items)) if len(items) > 1 else ())):
        taken: set[str] = set()
        moved = []
        for i, (value, (_, others)) in enumerate(zip(items, pools, strict=True)):
            new = value if i == kept else next((o for o in others if o not in listed and o not in taken), None)
            if new is None:
                return moves
            taken.add(new)
            moved.append(new)
        source = kept is None and all(app == opens for app, _ in pools)
        moves.append((source, ToolCallSpec(name=call.name, arguments={**call.arguments, arg: moved})))
    return moves


def _elsewhere(spec: EnvSpec, call: ToolCallSpec, tools: dict[str, ToolDef],
               world: World) -> list[tuple[bool, ToolCallSpec]]:
    """The read moved onto another record or scope, one argument (or its window) at a time: an argument naming a
    record of a table of the world (the tool's app's first) set to each other record's id that no reference call
    names (an address some record holds as its `email` onto each other one's); a list of such (free/busy of the
    attendees) onto other records whole, and whole but one; a choice among fixed values (a status, a level, a
    folder) set to each other value; the window its
    date-times bound shifted a week later; the words it searches for set to other words. Each with whether it
    moves the record the read opens (a required argument naming a record of the tool's app). Empty where nothing
    moves."""
    tool = tools[call.name]
    named = {v for turn in spec.reference for st in turn.steps if st.call is not None
             for v in st.call.arguments.values() if isinstance(v, str)}
    tables = sorted(world.tables(), key=lambda tb: tb.app != tool.app)
    moves: list[tuple[bool, ToolCallSpec]] = []
    texts = []
    listed = named | {v for turn in spec.reference for st in turn.steps if st.call is not None
                      for a in st.call.arguments.values() if isinstance(a, list) for v in a if isinstance(v, str)}
    for arg, field in tool.params.model_fields.items():
        value = call.arguments.get(arg)
        if isinstance(value, list):
            moves += _list_moves(call, arg, tables, listed, tool.app if field.is_required() else None)
        if not isinstance(value, str):
            continue
        allowed = _literals(field.annotation)
        held = _others_of(tables, value)  # a record's id, or a person's address (defects98): onto each other one's
        if held is not None:
            source = field.is_required() and held[0] == tool.app
            moves += [(source, ToolCallSpec(name=call.name, arguments={**call.arguments, arg: r}))
                      for r in held[1] if r not in named]
        elif allowed:
            moves += [(False, ToolCallSpec(name=call.name, arguments={**call.arguments, arg: v}))
                      for v in allowed if v != value]
        elif _instant(value) is None and _day(value) is None and "@" not in value:
            texts.append(arg)
    window = {k: _instant(v) for k, v in call.arguments.items()}
    days = {k: _day(v) for k, v in call.arguments.items()}
    if any(window.values()) or any(days.values()):
        # the same window (a `since` alone too) or day a week later: another day's events, another stretch of the logs
        moves.append((False, ToolCallSpec(name=call.name, arguments={
            k: (t + timedelta(days=7)).isoformat().replace("+00:00", "Z") if t is not None else
            (d + timedelta(days=7)).isoformat() if (d := days[k]) is not None else call.arguments[k]
            for k, t in window.items()})))
    moves += [(False, ToolCallSpec(name=call.name, arguments={**call.arguments, arg: OTHER_WORDS})) for arg in texts
              if call.arguments[arg] != OTHER_WORDS]
    return moves


def _changed(call: ToolCallSpec, moved: ToolCallSpec) -> set[str]:
    return {k for k in {*call.arguments, *moved.arguments} if call.arguments.get(k) != moved.arguments.get(k)}


def _loose_matchers(spec: EnvSpec, call: ToolCallSpec, moved: ToolCallSpec) -> set[str]:
    """The ids of the checks with a call matcher (`called`, `order`) that takes the read and its move alike, and
    pins no argument the move leaves as it was (a matcher on a log search's service does not judge its window)."""
    changed = _changed(call, moved)
    out = set()
    for check in spec.checks:
        for _, rule in nested_rules(check.rule):
            matchers = [rule.call] if isinstance(rule, CalledRule) else \
                [rule.first, rule.then] if isinstance(rule, OrderRule) else []
            if any({*m.args, *(c.field.split(".")[0] for c in m.where)} <= changed
                   and call_matches(m, call.name, call.arguments) and call_matches(m, moved.name, moved.arguments)
                   for m in matchers):
                out.add(check.id)
    return out


def _tried_moves(spec: EnvSpec, call: ToolCallSpec, moves: list[tuple[bool, ToolCallSpec]],
                 audit: set[str]) -> list[tuple[ToolCallSpec, set[str]]]:
    """The moves worth playing, each with the checks that could take it for the read: the first few a loose matcher
    takes; else, where a Python check reads the audit, the first move onto another record, or for a search (no
    record to open) the search moved in every argument that bounds it."""
    loose = [(m, audit | found) for _, m in moves if (found := _loose_matchers(spec, call, m))]
    if loose or not audit:
        return loose[:MOVES]
    record = next((m for source, m in moves if source), None)
    if record is not None:
        return [(record, audit)]
    # A search or list: every argument that bounds it moved at once (a grader pinning any of them fails it), where
    # each of its text arguments moves (a recipient's address does not, and a grader may pin the search by it).
    every: dict[str, Any] = {}
    for _, m in moves:
        every.update({k: v for k, v in m.arguments.items() if k not in every and v != call.arguments.get(k)})
    moved = ToolCallSpec(name=call.name, arguments={**call.arguments, **every})
    whole = all(k in every for k, v in call.arguments.items() if isinstance(v, str))
    return [(moved, audit)] if every and whole else []


def credited_elsewhere(spec: EnvSpec, episodes: SpecEpisodes) -> list[GateError]:
    """`read_elsewhere_credited` for each needed reference read (its drop fails a check) that passes every check
    moved onto another record or scope (another message, another query, status or window), a check reading the
    calls (a loose matcher, a Python check reading the audit) passing the move though it failed the drop."""
    tools, world, audit = spec_catalog(spec), base_world(spec), audit_readers(spec)
    errors = []
    for t, turn in enumerate(spec.reference):
        for s, step in enumerate(turn.steps):
            call = step.call
            if call is None or is_write(call.name, tools):
                continue
            tried = _tried_moves(spec, call, _elsewhere(spec, call, tools, world), audit)
            if not tried or not _carried_out(spec, episodes.oracle(), t, s):
                continue
            dropped = episodes.mutant(without(spec.reference, t, s), keep_reads=True)
            if dropped.result is None or dropped.passed:
                continue
            for moved, readers in tried:
                kept = episodes.mutant(replaced(spec.reference, t, s, ReferenceStep(call=moved)), keep_reads=True,
                                       lazy=True)
                if kept.result is None or not kept.passed or \
                        not any(e.ok and e.tool == moved.name and e.args == moved.arguments for e in kept.audit):
                    continue
                before, after = dropped.check_passed(), kept.check_passed()
                credited = sorted(c for c in readers if after.get(c) and not before.get(c, True))
                if credited:
                    errors.append(GateError(
                        "mutations", "read_elsewhere_credited", f"reference[{t}].steps[{s}]",
                        f"the reference with its {call.name} moved onto another record or scope ({moved.arguments}, "
                        f"the read succeeds) passes every required check, while dropping the read fails "
                        f"{', '.join(credited)}: the check credits a read of any record or scope; name the record, "
                        "query or window the task says to consult (in the matcher's `args`)"))
                    break
    return errors


def draft_calls(spec: EnvSpec, catalog: dict[str, ToolDef], call: ToolCallSpec) -> list[ToolCallSpec]:
    """The message `call` sends (through a built-in or declared tool bound to a sending op) saved, not sent, through
    each drafting tool the agent is given (built-in or declared): the same op arguments, carried through the
    bindings; a declared drafting tool whose arguments cannot carry the message is left out."""
    tool = catalog.get(call.name)
    draft_op = UNSENT.get(tool.op) if tool is not None else None
    if tool is None or draft_op is None or draft_op not in catalog:
        return []
    take = set(catalog[draft_op].params.model_fields)
    if isinstance(tool, DeclaredTool):
        found = bound_message(tool.decl.bind, dict(call.arguments), take)
        if found is None:
            return []
        message = found
    else:
        message = {k: v for k, v in call.arguments.items() if k in take and v is not None}
    out = []
    for name in exposed_tools(spec):
        draft = catalog.get(name)
        if draft is None or draft.op != draft_op:
            continue
        if not isinstance(draft, DeclaredTool):
            out.append(ToolCallSpec(name=name, arguments=dict(message)))
            continue
        for arguments in (dict(call.arguments), declared_arguments(draft.decl.bind, message)):
            if bound_message(draft.decl.bind, arguments, take) == message:
                out.append(ToolCallSpec(name=name, arguments=arguments))
                break
    return out


def credited_drafts(spec: EnvSpec, episodes: SpecEpisodes,
                    results: list[tuple[Mutation, EpisodeOutcome]]) -> list[GateError]:
    """`draft_credited` for each needed reference message (its drop fails a check) that passes every check when it is
    saved as a draft instead of sent, where the agent is given the drafting tool."""
    catalog = spec_catalog(spec)
    errors = []
    for mutation, dropped in results:
        if mutation.kind != "drop_write" or dropped.result is None or dropped.passed:
            continue
        t, s = step_of(mutation.path)
        call = spec.reference[t].steps[s].call
        if call is None or not _carried_out(spec, episodes.oracle(), t, s):
            continue
        for saved in draft_calls(spec, catalog, call):
            kept = episodes.mutant(replaced(spec.reference, t, s, ReferenceStep(call=saved)), lazy=True)
            if kept.result is not None and kept.passed and any(e.ok and e.tool == saved.name for e in kept.audit):
                break
        else:
            continue
        errors.append(GateError(
            "mutations", "draft_credited", mutation.path,
            f"the reference with its {call.name} saved as a draft ({saved.name}, the same message) passes every "
            "required check, while dropping it fails: no one receives a draft, and the checks credit it as sent; "
            "check the message's folder (`folder` equals `sent`), in the frame too"))
    return errors


def _sent_draft_saves(spec: EnvSpec, oracle: EpisodeOutcome) -> Iterator[tuple[int, int, int, int]]:
    """(turn, step) of each reference save of a draft (a call of any tool bound to `mail_save_draft`, built-in or
    declared) and of the reference's call sending it (any tool bound to `mail_send_draft`, its `draft_id` carried
    through the binding the id the save returned in the reference's own run)."""
    catalog = spec_catalog(spec)
    calls = [(t, s, st.call) for t, turn in enumerate(spec.reference) for s, st in enumerate(turn.steps)
             if st.call is not None]
    saved = [e for e in oracle.audit if (e.op or e.tool) == "mail_save_draft" and e.ok and isinstance(e.result, dict)]
    for t, s, call in calls:
        op, arguments = as_op(catalog, call)
        if op != "mail_send_draft":
            continue
        entry = next((e for e in saved if e.result.get("id") == arguments.get("draft_id")), None)
        save = next(((k, j) for k, j, c in calls if entry is not None and c.name == entry.tool
                     and c.arguments == entry.args and (k, j) < (t, s)), None)
        if save is not None:
            yield (*save, t, s)


def _inserted(reference: list[ReferenceTurn], t: int, s: int, new: ReferenceStep) -> list[ReferenceTurn]:
    steps = [*reference[t].steps[:s], new, *reference[t].steps[s:]]
    return [*reference[:t], turn_of(steps), *reference[t + 1:]]


def sent_drafts_unchecked(spec: EnvSpec, episodes: SpecEpisodes) -> list[GateError]:
    """`sent_draft_unchecked` for each draft the reference saves and sends whose words a check reads (the draft
    saved with other words fails a check), where an earlier version with other words saved before it and sent
    instead passes every check: the checks read the words of the draft saved, not of the mail sent."""
    oracle = episodes.oracle()
    catalog = spec_catalog(spec)
    errors = []
    for t0, s0, t, s in _sent_draft_saves(spec, oracle):
        save, send = spec.reference[t0].steps[s0].call, spec.reference[t].steps[s].call
        assert save is not None and send is not None
        _, message = as_op(catalog, save)  # the earlier version written through the same (declared) drafting tool
        other = made_through(spec, catalog, "mail_save_draft", {k: v for k, v in {**message, **OTHER_MESSAGE}.items()
                                                                 if k != "in_reply_to"}, save.name)
        if other is None:
            continue
        plain = episodes.mutant(replaced(spec.reference, t0, s0, ReferenceStep(call=other)), lazy=True)
        if plain.result is None or plain.passed:
            continue  # the words are not checked at all: the near misses judge that
        versions = _inserted(spec.reference, t0, s0, ReferenceStep(call=other))
        probe = episodes.mutant(versions, lazy=True)  # the draft ids as the world gives them with the earlier version saved
        first = next((e.result.get("id") for e in probe.audit if e.tool == other.name and e.args == other.arguments
                      and e.ok and isinstance(e.result, dict)), None)
        if first is None:
            continue
        _, sent = as_op(catalog, send)
        resent = made_through(spec, catalog, "mail_send_draft", {**sent, "draft_id": first}, send.name)
        if resent is None:
            continue
        kept = probe if first == sent.get("draft_id") else \
            episodes.mutant(replaced(versions, t, s + (t == t0), ReferenceStep(call=resent)), lazy=True)
        if kept.result is None or not kept.passed or \
                not any(e.ok and e.tool == send.name and e.args == resent.arguments for e in kept.audit):
            continue
        errors.append(GateError(
            "mutations", "sent_draft_unchecked", f"reference[{t}].steps[{s}]",
            f"the reference with an earlier version of its draft (other words, the same recipients) saved before it "
            f"and sent instead ({send.name} of {first}) passes every required check, while the draft saved with those "
            "words alone fails: the checks read the words of the draft saved, not of the mail sent; check the words "
            "on the sent message (`folder` equals `sent`)"))
    return errors
