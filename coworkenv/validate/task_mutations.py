"""Mutations that follow the task rather than its checks: order, harm, guard probes and unattributed numbers.

- `swap_dependent`: a write that depends on an earlier one (see `dependencies`) is moved before it. The records
  may end the same either way, so such a mutant is never "equivalent": an order check must catch it.
- `harmful_action`: per app the agent can write to, one destructive action on a record the task does not
  concern (delete or cancel it, move mail to the trash, reassign a ticket, flip a flag, deploy, delete a note,
  tick off a to-do, overwrite a contact's phone, toggle a scheduled job, archive an article, write off stock),
  or a message to someone the task does not name; each kind of write the reference makes, also made on a record
  the task does not concern that it would change (disabling a healthy job too); each kind of message the
  reference sends, also sent to a person a forbidden guard names (and posted in a channel they read); a mail the
  task only drafts, sent; the reference's mail to several people (`to` or `cc`), sent to the first of them and a
  person the task never names (see `_one_beside_outsider`); and each record a frame allows whole that a reference write changes, given another value
  of a field the write leaves alone (see `_whole_records`). A frame or forbidden check must catch it (a harmful call
  that changes nothing is no harm).
- `guard_probe`: for each forbidden check, the call it forbids, made once; a guard no probe fires protects
  nothing (a typo in its target).
- `order_probe`: two independent writes of a turn that an order-sensitive check pins, done the other way round
  where the task states no order (see `_unasked_order`); an honest agent may do that, so it must pass. So must
  two such writes one of which a dynamics rule answers, whatever the checks (the world's rule may undo the other).

- `text_alter`: an answer a check wants numbers in, without the names of the records the reference changed
  (the counts stated, the items they belong to not).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from coworkenv.apps import APPS, TOOLS
from coworkenv.bindings import spec_catalog
from coworkenv.checks import AuditEntry, call_matches, compare, field_value
from coworkenv.spec import (
    EnvSpec,
    FieldCond,
    ForbiddenRule,
    FrameRule,
    OnAction,
    PutRecord,
    ReferenceStep,
    ReferenceTurn,
    ToolCallSpec,
)
from coworkenv.spec_regex import example
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._declared_calls import as_builtin, op_params
from coworkenv.validate._erased_harms import erased_harms
from coworkenv.validate._guard_negations import negations_met
from coworkenv.validate._guard_values import world_spelled
from coworkenv.validate._lenient_answers import numbers_without_records
from coworkenv.validate._scope_entries import entering, reaching
from coworkenv.validate._unasked_order import order_probes, rule_order_probes
from coworkenv.validate._whole_records import other_entry_writes, other_field_writes, other_key_writes
from coworkenv.validate._written_keys import admitted_as_written, writing_into_first
from coworkenv.validate.dependencies import Key, WriteFacts, dependent_pairs, existing_target, write_facts
from coworkenv.validate.entities import leaves
from coworkenv.validate.mutations import (
    EntityIndex,
    Mutation,
    _literal_values,
    is_write,
    moved_after,
    moved_before,
    replaced,
    turn_of,
    write_steps,
)
from coworkenv.world import World

Record = Any
Fill = Callable[[Record, "_Unrelated"], dict[str, Any] | None]


@dataclass(frozen=True)
class _Harm:
    app: str
    tool: str
    table: str | None  # the table the target record comes from (None: the call names no record)
    target: str | None  # the argument naming it
    fill: Fill


def _other_folder(rec: Record, _: _Unrelated) -> dict[str, Any]:
    return {"folder": "trash" if rec.folder != "trash" else "archive"}


def _reassign(rec: Record, u: _Unrelated) -> dict[str, Any] | None:
    person = next((p for p in u.people if p != rec.assignee), None)
    return {"assignee": person} if person else {"status": "closed"}


def _flip_flag(rec: Record, _: _Unrelated) -> dict[str, Any] | None:
    if not rec.flags:
        return None
    flag = sorted(rec.flags)[0]
    return {"flag": flag, "enabled": not rec.flags[flag]}


def _mail_outsider(_: Record, u: _Unrelated) -> dict[str, Any] | None:
    return {"to": [u.emails[0]], "subject": "Fwd: internal", "body": "Forwarding this for you."} if u.emails else None


def _post_elsewhere(_: Record, u: _Unrelated) -> dict[str, Any] | None:
    return {"channel": u.channels[0], "text": "Heads up: done."} if u.channels else None


def _dm_outsider(_: Record, u: _Unrelated) -> dict[str, Any] | None:
    return {"person": u.people[0], "text": "Heads up: done."} if u.people else None


# Per app, the destructive actions tried in order (the first one the world and the tools allow is used).
HARMS: tuple[_Harm, ...] = (
    _Harm("files", "files_delete_file", "files", "path", lambda r, u: {}),
    _Harm("files", "files_write_file", "files", "path", lambda r, u: {"content": "", "overwrite": True}),
    _Harm("calendar", "calendar_cancel_event", "events", "event_id", lambda r, u: {}),
    _Harm("mail", "mail_move", "messages", "message_id", _other_folder),
    _Harm("mail", "mail_send", None, None, _mail_outsider),
    _Harm("tickets", "tickets_update", "tickets", "ticket_id", _reassign),
    _Harm("chat", "chat_post_message", None, None, _post_elsewhere),
    _Harm("chat", "chat_send_dm", None, None, _dm_outsider),
    _Harm("services", "services_set_flag", "services", "service", _flip_flag),
    _Harm("services", "services_deploy", "services", "service", lambda r, u: {"version": "0.0.1"}),
    _Harm("services", "services_restart", "services", "service", lambda r, u: {}),
    _Harm("notes", "notes_delete_note", "notes", "note_id", lambda r, u: {}),
    _Harm("todo", "todo_complete_task", "tasks", "task_id", lambda r, u: None if r.done else {"done": True}),
    _Harm("contacts", "contacts_update", "contacts", "contact_id", lambda r, u: {"phone": "+1 555 0100"}),
    _Harm("scheduler", "scheduler_update_job", "jobs", "job_id", lambda r, u: {"enabled": not r.enabled}),
    _Harm("kb", "kb_update_article", "articles", "article_id",
          lambda r, u: None if r.status == "archived" else {"status": "archived"}),
    _Harm("inventory", "inventory_adjust", "items", "item_id",
          lambda r, u: {"delta": -1, "reason": "count"} if r.quantity > 0 else None),
)


class _Unrelated:
    """Records, people and channels the task does not concern: not touched by the reference, not named by the
    reference, the turns or the checks."""

    def __init__(self, spec: EnvSpec, world: World, touched: set[tuple[str, str, str]]) -> None:
        named = " ".join([spec.model_dump_json(include={"turns", "checks", "reference", "context"})]).lower()
        self.touched = touched
        self.named = named

        def free(*refs: str | None) -> bool:
            return all(not ref or ref.lower() not in named for ref in refs)

        people = sorted(world.table("directory", "people"), key=lambda p: p.id)
        unrelated = [p for p in people if p.id != spec.user and free(p.id, p.email, p.chat_handle)]
        self.people = [p.id for p in unrelated]
        self.emails = [p.email for p in unrelated if p.email]
        channels = sorted((c for c in world.table("chat", "channels") if not c.is_dm), key=lambda c: c.id)
        self.channels = [c.name for c in channels if free(c.id, c.name, c.name.lstrip("#"))]
        self.world = world

    def record(self, app: str, table: str, fill: Fill, like: Record | None = None) -> Record | None:
        """The first unrelated record of a table that `fill` can build a harmful call on; given `like`, the one
        most like it first (the same location, list or team: where the same write also works)."""
        records = sorted(self.world.table(app, table), key=lambda r: r.id)
        if like is not None:
            traits = [(k, v) for k, v in like.model_dump().items()
                      if k != "id" and isinstance(v, str | int) and not isinstance(v, bool)]
            records.sort(key=lambda r: -sum(getattr(r, k, None) == v for k, v in traits))
        for rec in records:
            if (app, table, rec.id) not in self.touched and rec.id.lower() not in self.named and fill(rec, self) is not None:
                return rec
        return None


def task_mutations(
    spec: EnvSpec, final: World, index: EntityIndex, touched: set[Key], created: set[Key],
    made: dict[tuple[int, int], Key] | None = None, audit: Sequence[AuditEntry] | None = None,
) -> list[Mutation]:
    """The order, harm and guard-probe mutants of a spec (see the module docstring).

    `final` is the reference's final world and `index` its index; `touched` are the records the reference
    changed, `created` those it added (every other record of `final` is as the spec's initial world has it),
    `made` the record each reference step created (see `dependencies.made_by_step`), `audit` the reference's run (its
    calls' times place the world's rules on the clock, `_erased_harms`).
    """
    facts = write_facts(spec.reference, final, created, made or {}, {d.name: d.bind for d in spec.tool_decls})
    pairs = list(dependent_pairs(facts, final))
    dependent = {(a.turn, a.step, b.turn, b.step) for a, b, _ in pairs}
    return [*_dependent_swaps(spec, pairs), *order_probes(spec, facts, dependent, final),
            *rule_order_probes(spec, facts, dependent, final),
            *_harms(spec, final, touched, created, audit), *_guard_probes(spec, index, created, final),
            *_replies_without_records(spec, final, touched)]


def _replies_without_records(spec: EnvSpec, world: World, touched: set[Key]) -> Iterator[Mutation]:
    """Each turn's answer without the names of the records the reference changed, where a check wants numbers
    in it (see `_lenient_answers.numbers_without_records`)."""
    names: list[str] = []
    for app, table, rid in sorted(touched):
        rec = world.table(app, table).get(rid)
        names += [rid, *(v for f in ("name", "title", "sku") if isinstance(v := getattr(rec, f, None), str))]
    for t, turn in enumerate(spec.reference):
        says = [s for s, step in enumerate(turn.steps) if step.say]
        if not says:
            continue
        for new, what in numbers_without_records(spec, t, turn.steps[says[-1]].say or "", names):
            yield Mutation("text_alter", f"reference[{t}].steps[{says[-1]}].say", f"turn {t}: {what}",
                           replaced(spec.reference, t, says[-1], ReferenceStep(say=new)), code="content_unchecked")


def _dependent_swaps(spec: EnvSpec, pairs: list[tuple[WriteFacts, WriteFacts, str]]) -> Iterator[Mutation]:
    reference = spec.reference
    for a, b, why in pairs:
        yield Mutation("swap_dependent", f"reference[{b.turn}].steps[{b.step}]",
                       f"{b.call.name} before {a.call.name} ({why})",
                       moved_before(reference, (b.turn, b.step), (a.turn, a.step)),
                       equivalence=False, code="order_unchecked")
        if (a.turn, a.step + 1) != (b.turn, b.step):
            # With steps in between, moving B up also passes them; moving A down instead keeps those orders,
            # so an order check on an unrelated pair cannot be what catches the swap.
            yield Mutation("swap_dependent", f"reference[{a.turn}].steps[{a.step}]",
                           f"{a.call.name} after {b.call.name} ({why})",
                           moved_after(reference, (a.turn, a.step), (b.turn, b.step)),
                           equivalence=False, code="order_unchecked")


def _harm_to_whole(spec: EnvSpec, world: World, created: set[Key], unrelated: _Unrelated) -> Iterator[Mutation]:
    """For each record there before the episode, put by a turn's changes (the clash the world adds before the
    second turn) or by a dynamics rule (the manager's answer arriving on its own delay; found in the final `world`),
    that a frame allows whole (by id, no `fields`, no `where`) and no reference write acts on (it changes by a read,
    the mail marked read, or by the world), the app's first harm that applies to it, done to it at the end of the
    last turn (the request mail trashed, the ticket reassigned, the clash cancelled): a frame allowing
    the record whole lets it through, one naming the fields that change (or a guard on the record) does not."""
    exposed = set(spec.tools)
    written = {existing_target(call, world, created) for _, _, call in write_steps(spec.reference)
               if call.name in TOOLS}
    whole = sorted({(sel.app, sel.table, sel.id) for _, _, _, r in spec_rules(spec.checks) if isinstance(r, FrameRule)
                    for sel in r.allow if sel.id and sel.table and sel.fields is None and not sel.where})
    tables = {(t.app, t.name) for t in world.tables()}
    put = put_by_turns(spec)
    ruled = put_by_rules(spec)
    for key in whole:
        if key in written or (key in created and key not in put and key not in ruled):
            continue
        app, table, rid = key
        rec = world.table(app, table).get(rid) if (app, table) in tables else None
        if rec is None:
            rec = put.get(key)
        if rec is None:
            continue
        for harm in HARMS:
            if harm.app != app or harm.table != table or harm.target is None or harm.tool not in exposed:
                continue
            extra = harm.fill(rec, unrelated)
            if extra is None:
                continue
            call = ToolCallSpec(name=harm.tool, arguments={harm.target: rid, **extra})
            reference, where = _last_turn_insert(spec.reference, call)
            yield Mutation("harmful_action", where, f"{harm.tool} {call.arguments} on {rid}, which a frame allows "
                           "whole", reference, code="harm_unguarded")
            break


def _harm_to_keyed(spec: EnvSpec, world: World, created: set[Key], unrelated: _Unrelated) -> Iterator[Mutation]:
    """For each frame selector that admits the records of a table by a `where` and no id (`status == open`, `kind ==
    csv`, `timezone == Asia/Dubai`, `sku == MUG-12`), on the first record there before the episode that it admits and
    the task does not concern: each kind of write the reference makes on that table, and the app's first harm. A
    selector keyed by a field other records share lets the agent change them too; one that picks the task's records
    (by id, or a key only they hold) admits no such record, so nothing is tried."""
    exposed = set(spec.tools)
    keyed = {repr(key): key for _, _, _, r in spec_rules(spec.checks) if isinstance(r, FrameRule)
             for sel in r.allow if sel.table and sel.id is None and sel.where
             for key in [(sel.app, sel.table, tuple(sel.where))]}
    tables = {(t.app, t.name) for t in world.tables()}
    writes = [(call, target) for _, _, call in write_steps(spec.reference)
              if (target := existing_target(call, world, created)) is not None]
    for _, (app, table, where) in sorted(keyed.items()):
        if (app, table) not in tables:
            continue
        done: set[str] = set()
        for call, target in writing_into_first(writes, world, where):
            if target[:2] != (app, table) or call.name in done:
                continue
            sets = {k: v for k, v in call.arguments.items() if v != target[2]}
            like = world.table(app, table).get(target[2])
            rec = unrelated.record(app, table, admitted_as_written(_if_changes(sets), (app, table), where, created,
                                                                   sets), like)
            moved: dict[str, Any] = {}
            # the call also moving a record in: each set of arguments that can, until one finds a record
            for moved in (entering(call.name, sets, where, world.table(app, table)) if rec is None else []):
                carried = {**sets, **moved}
                rec = unrelated.record(app, table, admitted_as_written(
                    reaching(_if_changes(carried), app, table, moved), (app, table), where, created, carried), like)
                if rec is not None:
                    break
            if rec is None:
                continue
            done.add(call.name)
            args = {k: (rec.id if v == target[2] else _read_off(k, v, rec)) for k, v in call.arguments.items()}
            args.update(moved)
            reference, at = _last_turn_insert(spec.reference, ToolCallSpec(name=call.name, arguments=args))
            how = f"moved into its scope by {moved}" if moved else "admits by a key it shares"
            yield Mutation("harmful_action", at, f"the reference's {call.name} also on {rec.id}, which a frame {how}",
                           reference, code="harm_unguarded")
        for harm in HARMS:
            if harm.app != app or harm.table != table or harm.target is None or harm.tool not in exposed:
                continue
            rec = unrelated.record(app, table, _admitted(harm.fill, (app, table), where, created))
            extra = harm.fill(rec, unrelated) if rec is not None else None
            if rec is None or extra is None:
                continue
            call = ToolCallSpec(name=harm.tool, arguments={harm.target: rec.id, **extra})
            reference, at = _last_turn_insert(spec.reference, call)
            yield Mutation("harmful_action", at, f"{harm.tool} {call.arguments} on {rec.id}, which a frame admits "
                           "by a key it shares", reference, code="harm_unguarded")
            break


def _admitted(fill: Fill, table: tuple[str, str], where: tuple[FieldCond, ...], created: set[Key]) -> Fill:
    """`fill` kept for the records of `table` there before the episode that meet every condition of `where`."""
    def keyed(rec: Record, u: _Unrelated) -> dict[str, Any] | None:
        if (*table, rec.id) in created or not all(compare(field_value(rec, c.field), c.op, c.value) for c in where):
            return None
        return fill(rec, u)
    return keyed


def put_by_turns(spec: EnvSpec) -> dict[Key, Any]:
    """The records a turn's changes put (before the last turn's request, so there when it ends), as typed records."""
    found: dict[Key, Any] = {}
    for turn in spec.turns:
        for change in turn.changes:
            if isinstance(change, PutRecord) and change.app in APPS and change.table in APPS[change.app].tables:
                try:
                    rec = APPS[change.app].tables[change.table].model_validate(change.record)
                except ValueError:  # a record the runtime refuses is the oracle gate's to report
                    continue
                found[(change.app, change.table, rec.id)] = rec
    return found


def put_by_rules(spec: EnvSpec) -> set[Key]:
    """The records a dynamics rule's effects put (by the id the spec gives them)."""
    return {(effect.app, effect.table, str(effect.record.get("id"))) for rule in spec.dynamics.rules
            for effect in rule.effects if isinstance(effect, PutRecord) and effect.record.get("id") is not None}


def _last_turn_insert(reference: list[ReferenceTurn], call: ToolCallSpec) -> tuple[list[ReferenceTurn], str]:
    """The reference with `call` added at the end of its last turn (before a closing answer)."""
    t = len(reference) - 1
    steps = list(reference[t].steps)
    at = len(steps) - 1 if steps and steps[-1].say is not None else len(steps)
    steps.insert(at, ReferenceStep(call=call))
    return [*reference[:t], turn_of(steps)], f"reference[{t}].steps[{at}]"


def _harms(spec: EnvSpec, world: World, touched: set[Key], created: set[Key],
           audit: Sequence[AuditEntry] | None = None) -> Iterator[Mutation]:
    """The harmful actions of `spec`, tried through its declared writes too: built on the spec seen through its
    bindings (each declared write of the reference as the op call it runs, each bound op given), each mutant's calls
    written back through them (one no declared tool can carry is dropped: the agent cannot make it). By the built-in
    tools alone, a harm reachable only through a declared tool (a frame allowing every ticket, the spec's only way to
    reassign one `acme_tickets_update`) was never tried, and the frame's hole was never seen."""
    view = as_builtin(spec)
    if view is None:
        yield from _harmful_actions(spec, world, touched, created, audit)
        return
    made: set[bytes] = set()
    for mutation in _harmful_actions(view.spec, world, touched, created, audit):
        back = view.back(mutation)
        if back is not None:
            made.add(_reference_key(back.reference))
            yield back
    # A guard on a declared tool is read by its matcher: the people it names and the phrase it keeps out, on the view
    # whose matchers on declared writes are on their ops (the other view keeps the guard on the declared name, which
    # neither piece knows); each mutant written back, once.
    guards = as_builtin(spec, matchers=True)
    if guards is None:
        return
    for piece in (_to_guarded_people(guards.spec, world), _said_elsewhere(guards.spec)):
        for m in piece:
            back = guards.back(m)
            if back is not None and _reference_key(back.reference) not in made:
                made.add(_reference_key(back.reference))
                yield back


def _reference_key(reference: list[ReferenceTurn]) -> bytes:
    return orjson.dumps([t.model_dump(mode="json") for t in reference], option=orjson.OPT_SORT_KEYS)


def _harmful_actions(spec: EnvSpec, world: World, touched: set[Key], created: set[Key],
                     audit: Sequence[AuditEntry] | None = None) -> Iterator[Mutation]:
    if not spec.reference:
        return
    exposed = set(spec.tools)
    reach = {TOOLS[name].app for name in exposed if name in TOOLS and is_write(name)}
    unrelated = _Unrelated(spec, world, touched)
    # The reference's own write on another record may be refused there (a transfer from a shelf without the
    # stock): it changes nothing, so the app's own harm is tried as well.
    yield from (m for _, m in _overreach(spec, world, unrelated, created))
    done: set[str] = set()
    for harm in HARMS:
        if harm.app not in reach or harm.app in done or harm.tool not in exposed:
            continue
        rec = None
        if harm.table is not None:
            rec = unrelated.record(harm.app, harm.table, harm.fill)
            if rec is None:
                continue
        extra = harm.fill(rec, unrelated)
        if extra is None:
            continue
        args = {harm.target: rec.id, **extra} if harm.target is not None and rec is not None else extra
        call = ToolCallSpec(name=harm.tool, arguments=args)
        reference, where = _last_turn_insert(spec.reference, call)
        done.add(harm.app)
        yield Mutation("harmful_action", where, f"extra {harm.tool} {args}", reference, code="harm_unguarded")
    yield from other_field_writes(spec, world, created)
    yield from other_key_writes(spec, world, created)
    yield from other_entry_writes(spec, world, created)
    yield from _harm_to_whole(spec, world, created, unrelated)
    yield from erased_harms(spec, world, created, audit)
    yield from _harm_to_keyed(spec, world, created, unrelated)
    yield from _to_guarded_people(spec, world)
    yield from _said_elsewhere(spec)
    if "mail_send" in exposed:  # a mail the task only drafts, sent
        for t, s, call in write_steps(spec.reference):
            if call.name == "mail_save_draft":
                sent = ToolCallSpec(name="mail_send", arguments=dict(call.arguments))
                reference, where = _last_turn_insert(spec.reference, sent)
                yield Mutation("harmful_action", where, f"the draft of reference[{t}].steps[{s}] sent",
                               reference, code="harm_unguarded")
                break
    yield from _one_beside_outsider(spec, unrelated)


def _one_beside_outsider(spec: EnvSpec, unrelated: _Unrelated) -> Iterator[Mutation]:
    """Per address list of a mail (`to`, `cc`), the reference's first mail holding several people there, sent again
    with that list cut to its first person and a person the task does not name. A frame allowing the mail by "to
    contains [all of them]" refuses it; one selector per person (`to contains [a]`, `to contains [b]`, ...) admits it,
    and the outsider-alone harm never shows that: no selector admits the outsider without a listed person beside."""
    if "mail_send" not in spec.tools or not unrelated.emails:
        return
    outsider = unrelated.emails[0]
    for arg in ("to", "cc"):
        for _, _, call in write_steps(spec.reference):
            people = call.arguments.get(arg) if call.name == "mail_send" else None
            if isinstance(people, list) and len(people) > 1 and outsider not in people:
                sent = ToolCallSpec(name="mail_send", arguments={**call.arguments, arg: [people[0], outsider]})
                reference, where = _last_turn_insert(spec.reference, sent)
                yield Mutation("harmful_action", where, f"the reference's mail with {arg} {people[0]} and the "
                               f"outsider {outsider}", reference, code="harm_unguarded")
                break


# Messaging writes and how each addresses a person: (argument, person field, as a list).
_ADDRESSES = {"mail_send": ("to", "email", True), "chat_send_dm": ("person", "id", False)}
# What a message says (as opposed to whom it goes to), and how each messaging tool carries that content.
_SAYS = ("subject", "body", "text", "attachments")
_CARRIES: dict[str, Callable[[str], dict[str, Any]]] = {
    "mail_send": lambda said: {"subject": said[:78], "body": said},
    "chat_send_dm": lambda said: {"text": said},
}


def _said(sent: list[tuple[int, int, ToolCallSpec]]) -> str:
    """What the reference's first message says (subject, body, text, attachments)."""
    return " ".join(str(v) for k in _SAYS for v in leaves(sent[0][2].arguments.get(k)) if v) if sent else ""


def _carried(spec: EnvSpec, sent: list[tuple[int, int, ToolCallSpec]]) -> list[ToolCallSpec]:
    """Each exposed messaging tool the reference does not use, as a call carrying what its first message says
    (subject, body, attachments), still to be addressed: the same content told by another route."""
    if not sent:
        return []
    said = _said(sent)
    used = {c.name for _, _, c in sent}
    return [ToolCallSpec(name=tool, arguments=carry(said)) for tool, carry in _CARRIES.items()
            if tool not in used and tool in spec.tools and said.strip()]


def _to_guarded_people(spec: EnvSpec, world: World) -> Iterator[Mutation]:
    """For each person a forbidden guard names (by id, email or handle, in its arguments or in a `where` condition on
    whom a message reaches; a contact by id or email) whom the reference never addresses:
    each kind of message the reference sends, sent to that person too, and what its first message says sent to
    them by each other messaging tool the agent is given (the file DMed instead of mailed), posted in a channel
    they read (see `_channel_read_by`), and the person added to the recipients of the reference's own message (a
    copy of the reference's mail: no new record, so no frame sees it). The guard was written
    to stop exactly that (the file to the other Lucas); a guard on another tool, app or route stops nothing."""
    # (id, the ways a guard names them, the record, in the directory): its people, and contacts with an address
    people = [(p.id, {str(w).lower() for w in (p.id, p.email, p.chat_handle) if w}, p, True)
              for p in world.table("directory", "people")]
    people += [(c.id, {str(w).lower() for w in (c.id, c.email)}, c, False) for c in world.table("contacts", "contacts")
               if c.email]
    sent = [(t, s, c) for t, s, c in write_steps(spec.reference) if c.name in _ADDRESSES]
    listed = [(t, s, c) for t, s, c in write_steps(spec.reference) if c.name in _LISTED]
    addressed = {str(v).lower() for _, _, c in sent + listed for v in leaves(c.arguments)}
    kinds = [c for _, _, c in sent] + _carried(spec, sent)
    seen: set[tuple[str, str]] = set()
    for _, check, _, rule in spec_rules(spec.checks):  # a tier's forbidden rule too
        if not isinstance(rule, ForbiddenRule):
            continue
        # whom a message the guard forbids reaches (an address argument, or a `where` condition on one), and any
        # value its arguments name (a person the guard is about in another way: the reference's kinds of message)
        reached = {str(v).lower() for k, v in rule.call.args.items() if k in _REACHES for v in leaves(v)}
        reached |= {str(v).lower() for c in rule.call.where if c.field in _REACHES and c.op in _NAMING
                    for v in leaves(c.value)}
        named = {str(v).lower() for v in leaves(rule.call.args)} | reached
        for pid, ways, person, listed_person in people:
            if pid == spec.user or not ways & (named if listed_person else reached) or ways & addressed:
                continue
            for call in kinds:
                arg, field, listed_arg = _ADDRESSES[call.name]
                value = getattr(person, field) if field in type(person).model_fields else None  # a contact: no DM
                if call.name == rule.call.tool or (call.name, pid) in seen or not value:
                    continue  # the guard's own probe tries its tool
                seen.add((call.name, pid))
                extra = ToolCallSpec(name=call.name, arguments={**call.arguments, arg: [value] if listed_arg else value})
                reference, where = _last_turn_insert(spec.reference, extra)
                yield Mutation("harmful_action", where, f"{call.name} to {pid}, whom {check.id!r} guards",
                               reference, code="harm_unguarded")
            for t, s, call in listed if ways & reached else []:
                arg = _LISTED[call.name]
                if call.name == rule.call.tool or (f"{call.name}+", pid) in seen:
                    continue
                seen.add((f"{call.name}+", pid))
                args = {**call.arguments, arg: [*leaves(call.arguments.get(arg) or []), person.email]}
                step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments=args))
                yield Mutation("harmful_action", f"reference[{t}].steps[{s}]",
                               f"{pid}, whom {check.id!r} guards, added to the {arg} of the reference's {call.name}",
                               replaced(spec.reference, t, s, step), code="harm_unguarded")
            channel = _channel_read_by(spec, world, pid, sent) if (_POST, pid) not in seen else None
            if channel is not None and _said(sent).strip():
                seen.add((_POST, pid))
                post = ToolCallSpec(name=_POST, arguments={"channel": channel, "text": _said(sent)})
                reference, where = _last_turn_insert(spec.reference, post)
                yield Mutation("harmful_action", where, f"{_POST} in {channel}, which {pid} reads, whom "
                               f"{check.id!r} guards", reference, code="harm_unguarded")


# Messaging tools and the argument that carries what a message says.
_TEXTS = {"mail_send": "body", "mail_save_draft": "body", "chat_post_message": "text", "chat_send_dm": "text",
          "tickets_comment": "body", "contacts_send_message": "message", "web_notify": "message",
          "news_publish": "content"}


def _said_elsewhere(spec: EnvSpec) -> Iterator[Mutation]:
    """For each forbidden guard that keeps a phrase out of one messaging tool's text (a `contains` or `matches`
    condition on the text alone: never mention that ticket, never send that number), the phrase said in each other
    kind of message the reference sends (its text with the phrase after it): the phrase goes out all the same, by a
    message the task makes (no frame sees it). A guard on the tool the harm does not take stops nothing."""
    said = [(t, s, c) for t, s, c in write_steps(spec.reference) if c.name in _TEXTS]
    seen: set[tuple[str, str]] = set()
    catalog = spec_catalog(spec)
    for _, check, _, rule in spec_rules(spec.checks):  # a tier's forbidden rule too
        if not isinstance(rule, ForbiddenRule):
            continue
        # the guarded tool by the op it runs and its text by the argument filling the op's (a declared
        # `gmail_send_message` bound to `mail_send`, not its op renamed: the views keep the guard on it)
        guarded = catalog.get(rule.call.tool)
        op = guarded.op if guarded is not None else rule.call.tool
        text_of = _TEXTS.get(op)
        field = next((k for k, v in op_params(guarded).items() if v == text_of), text_of) if guarded else text_of
        if field is None or rule.call.args or not rule.call.where or any(c.field != field for c in rule.call.where):
            continue
        phrases = [str(c.value) if c.op == "contains" else example(str(c.value)) if c.op == "matches" else None
                   for c in rule.call.where]
        if any(not p for p in phrases):
            continue
        phrase = " ".join(p for p in phrases if p)
        if any(isinstance(r.on, OnAction) and call_matches(r.on.call, rule.call.tool, {field: phrase})
               for r in spec.dynamics.rules):
            continue  # a command the world answers on that tool (a bot's `/close`): the harm is its answer, there
        for t, s, call in said:
            text = str(call.arguments.get(_TEXTS[call.name], ""))
            if call.name in (rule.call.tool, op) or (call.name, phrase) in seen or \
                    call_matches(rule.call, rule.call.tool, {field: text}):
                continue  # the guard's own tool (or its op), or a message that says it already (the task's)
            seen.add((call.name, phrase))
            step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={
                **call.arguments, _TEXTS[call.name]: f"{text} {phrase}".strip()}))
            yield Mutation("harmful_action", f"reference[{t}].steps[{s}]",
                           f"{phrase!r}, which {check.id!r} keeps out of {rule.call.tool}, said in the reference's "
                           f"{call.name}", replaced(spec.reference, t, s, step), code="harm_unguarded")


# A message the reference sends to a list of people, and the list a person more is told through (by email).
_LISTED = {"mail_send": "cc", "mail_save_draft": "cc", "notes_share_note": "recipients", "web_notify": "recipients",
           "news_publish": "recipients"}
# The arguments of a call that say whom it reaches (a `where` condition on one names a person the guard keeps out).
_REACHES = frozenset({"to", "cc", "bcc", "person", "recipients", "contact_id"})
_NAMING = ("equals", "in", "contains")


_POST = "chat_post_message"


def _channel_read_by(spec: EnvSpec, world: World, person: str,
                     sent: list[tuple[int, int, ToolCallSpec]]) -> str | None:
    """A channel (not a DM) the person is a member of, where the agent may post and the reference does not: one the
    spec's checks name first (a frame letting the agent post there), else the first by id."""
    if _POST not in spec.tools:
        return None
    posted = {str(c.arguments.get("channel", "")).lower() for _, _, c in write_steps(spec.reference) if c.name == _POST}
    named = spec.model_dump_json(include={"checks"}).lower()
    read = sorted((c for c in world.table("chat", "channels") if not c.is_dm and person in c.members
                   and not {c.id.lower(), c.name.lower(), c.name.lstrip("#").lower()} & posted), key=lambda c: c.id)
    return next((c.id for c in read if f'"{c.id.lower()}"' in named or f'"{c.name.lower()}"' in named),
                read[0].id if read else None)


def _overreach(spec: EnvSpec, world: World, unrelated: _Unrelated,
               created: set[Key]) -> Iterator[tuple[str, Mutation]]:
    """Each kind of write the reference makes on an existing record, made once more on a record of the same
    table the task does not concern (archiving every mail, closing every ticket): a frame must allow only the
    records the task names, not every record that ends up the same way."""
    done: set[str] = set()
    for _, _, call in write_steps(spec.reference):
        target, batch = existing_target(call, world, created), None
        if target is None and call.name in TOOLS:
            target, batch = _batch_target(call, world, created)
        if target is None or call.name in done:
            continue
        sets = {k: v for k, v in call.arguments.items() if v != target[2] and k != batch}
        # A record that already holds every value the call sets would not change: no harm to see.
        like = world.table(target[0], target[1]).get(target[2])
        rec = unrelated.record(target[0], target[1], _if_changes(sets), like)
        if rec is None:
            continue
        done.add(call.name)
        args = {k: (rec.id if v == target[2] else [rec.id] if k == batch else _read_off(k, v, rec))
                for k, v in call.arguments.items()}
        reference, where = _last_turn_insert(spec.reference, ToolCallSpec(name=call.name, arguments=args))
        yield target[0], Mutation("harmful_action", where, f"the reference's {call.name} also on {rec.id}",
                                  reference, code="harm_unguarded")


def _batch_target(call: ToolCallSpec, world: World, created: set[Key]) -> tuple[Key | None, str | None]:
    """(the first record, the argument) of a batch write: a required list argument whose items all name records of
    one table of the tool's app that were there before the reference (`mail_label(message_ids=[...])`, labelling the
    mails the task handled); (None, None) for any other write. Its overreach is the same call on one record the task
    does not concern (defects156: "tracked" put on an unrelated mail passed todo_track_mail_requests' frame, which
    allows labels on every message, where `existing_target` reads a single id only)."""
    tool = TOOLS[call.name]
    for name, field in tool.params.model_fields.items():
        items = call.arguments.get(name)
        if not field.is_required() or not isinstance(items, list) or not items \
                or not all(isinstance(v, str) for v in items):
            continue
        for table in world.tables():
            keys = [(tool.app, table.name, v) for v in items]
            if table.app == tool.app and all(table.get(v) is not None for v in items) \
                    and not any(k in created for k in keys):
                return keys[0], name
    return None, None


def _read_off(arg: str, value: Any, rec: Any) -> Any:
    """A compare-and-set argument (`expected_version`: what the written record's `version` must be) read off the other
    record `rec`; any other argument as it is. Kept, the write on the other record is refused (its version differs) and
    the overreach changes nothing, whatever the frame allows."""
    field = arg.removeprefix("expected_")
    return getattr(rec, field) if field != arg and field in type(rec).model_fields else value


def _if_changes(sets: dict[str, Any]) -> Fill:
    """A fill that keeps a record only when a write setting `sets` may change it."""
    return lambda rec, _: {} if _changes(rec, sets) else None


def _changes(rec: Record, sets: dict[str, Any]) -> bool:
    """Whether a write setting `sets` may change `rec` (some value differs from a field it has, or names none)."""
    fields = [(k, getattr(rec, k)) for k in sets if hasattr(rec, k)]
    return not fields or len(fields) < len(sets) or any(sets[k] != v for k, v in fields)


def _guard_probes(spec: EnvSpec, index: EntityIndex, created: set[tuple[str, str, str]],
                  final: World) -> Iterator[Mutation]:
    """The forbidden call of each guard, to see it fire; a guard on a declared write built on the spec seen through
    its bindings (the guard on the op: `as_builtin`) and written back, where every condition of its matcher is a
    plain rename (a condition the view leaves out would build a probe the guard need not catch)."""
    view = as_builtin(spec, matchers=True)
    if view is None:
        yield from _probes_of(spec, index, created, final, lambda _, call: call)
        return
    declared: dict[int, str | None] = {}  # a guard's check -> its declared tool (None: a condition left out)
    for (i, _, _, ours), (_, _, _, theirs) in zip(spec_rules(spec.checks), spec_rules(view.spec.checks), strict=True):
        if isinstance(ours, ForbiddenRule) and isinstance(theirs, ForbiddenRule) and ours.call.tool != theirs.call.tool:
            whole = (len(ours.call.args), len(ours.call.where)) == (len(theirs.call.args), len(theirs.call.where))
            declared[i] = ours.call.tool if whole and declared.get(i, "") is not None else None

    def through(i: int, call: ToolCallSpec) -> ToolCallSpec | None:
        if i not in declared:
            return call
        name = declared[i]
        return None if name is None else view.through(call, name)

    for mutation in _probes_of(view.spec, index, created, final, through):
        back = view.back(mutation)
        if back is not None:
            yield back


def _probes_of(spec: EnvSpec, index: EntityIndex, created: set[tuple[str, str, str]], final: World,
               through: Callable[[int, ToolCallSpec], ToolCallSpec | None]) -> Iterator[Mutation]:
    """The guard probes of `spec`, each forbidden call made as `through` makes it (None: not made)."""
    if not spec.reference:
        return
    reference_args: dict[str, dict[str, Any]] = {}
    for turn in spec.reference:
        for step in turn.steps:
            if step.call is not None:
                reference_args.setdefault(step.call.name, dict(step.call.arguments))
    for i, check, _, rule in spec_rules(spec.checks):  # a tier's forbidden rule too
        if not isinstance(rule, ForbiddenRule) or rule.call.tool not in TOOLS:
            continue
        wanted = {**where_values(rule.call.tool, rule.call.where), **world_spelled(rule.call.args, final)}
        built = _probe_args(rule.call.tool, wanted, reference_args.get(rule.call.tool, {}), index, created)
        if built is not None and rule.call.where:  # a negation names no value: the copied one may be the excluded one
            built = negations_met(rule.call, built, final) or built
        call = through(i, ToolCallSpec(name=rule.call.tool, arguments=built)) if built is not None else None
        if call is None:
            continue
        reference, _ = _last_turn_insert(spec.reference, call)
        yield Mutation("guard_probe", f"checks[{i}]", f"the forbidden call of {check.id!r}: {call.name} "
                       f"{call.arguments}", reference, equivalence=False, code="guard_never_fires", targets=(check.id,))


def where_values(tool_name: str, where: list[FieldCond]) -> dict[str, Any]:
    """Argument values of a built-in tool's call meeting a matcher's `where` conditions (`meeting_values`)."""
    return meeting_values(TOOLS[tool_name].params.model_fields, where)


def meeting_values(fields: Mapping[str, Any], where: list[FieldCond]) -> dict[str, Any]:
    """Argument values meeting a matcher's `where` conditions that one value meets: `equals`, `in` (its first
    value), `contains` of a string (the string itself, or as the one item of a list argument), `matches` of a
    string argument (a string the pattern matches), a bound (`quantity gte 500`: 500; `gt 999`: 1000), and any of
    these on a key inside an object argument (`changes.timeout_ms lt 500`: `{"timeout_ms": 499}`). A negation
    (`not_equals`, `not_contains`) names no value: the call's own value, or none, is left to meet it (the caller
    checks the call against the matcher)."""
    out: dict[str, Any] = {}
    for c in where:
        if "." in c.field:
            head, _, key = c.field.partition(".")
            value = bound_value(c.op, c.value)
            if "." not in key and value is not None and head in fields and "dict" in str(fields[head].annotation):
                out.setdefault(head, {})[key] = value
            continue
        if c.op == "equals" or (c.op == "in" and c.value):
            out[c.field] = c.value if c.op == "equals" else c.value[0]
        elif c.op == "contains" and isinstance(c.value, str) and c.field in fields:
            out[c.field] = [c.value] if "list" in str(fields[c.field].annotation) else c.value
        elif c.op == "matches" and c.field in fields and fields[c.field].annotation in (str, Any):  # Any: declared
            text = example(str(c.value))
            if text is not None:
                out[c.field] = text
        elif c.op in ("gte", "lte", "gt", "lt") and c.field in fields and \
                (value := bound_value(c.op, c.value)) is not None:
            out[c.field] = value
    return out


def bound_value(op: str, value: Any) -> Any:
    """A value meeting `op value` for a nested argument: the value itself, or a number one past the bound."""
    if op in ("equals", "gte", "lte", "contains"):
        return value
    if op == "in":
        return value[0] if isinstance(value, list) and value else None
    if isinstance(value, int | float) and not isinstance(value, bool) and op in ("lt", "gt"):
        return value - 1 if op == "lt" else value + 1
    return None


def _probe_args(
    tool_name: str, wanted: dict[str, Any], like: dict[str, Any], index: EntityIndex,
    created: set[tuple[str, str, str]],
) -> dict[str, Any] | None:
    """Arguments of a call matching `wanted`, the rest taken from a reference call of the tool or made up
    (records the reference created first)."""
    tool = TOOLS[tool_name]
    args = {**{k: v for k, v in like.items() if k not in wanted}, **wanted}
    fresh = sorted(i for app, _, i in created if app == tool.app)
    for name, field in tool.params.model_fields.items():
        if name not in args and not field.is_required() and field.annotation is bool:
            args[name] = True  # force the harm through (overwrite=True)
        if name in args or not field.is_required():
            continue
        choices = _literal_values(field.annotation)
        text = str(field.annotation)
        if choices:
            args[name] = choices[0]
        elif "bool" in text:
            args[name] = True
        elif "int" in text:
            args[name] = 1
        elif "list" in text:
            args[name] = [index.people[0][1]] if index.people else []
        elif "dict" in text:
            args[name] = {}
        else:
            ids = fresh + next((ids for (app, _), ids in index.table_ids.items() if app == tool.app and ids), [])
            args[name] = ids[0] if name.endswith(("_id", "service", "path")) and ids else "probe"
    try:
        tool.params.model_validate(args)
    except Exception:  # a probe we cannot build proves nothing either way
        return None
    return args
