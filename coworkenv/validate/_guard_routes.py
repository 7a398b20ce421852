"""Forbidden guards that cover one route to a harm: one spelling of a person or channel, or one mail field.

A forbidden guard names the call that does the harm. The tools offer the same harm by other calls that no
matcher written for the first one sees:
- the same person or channel spelled another way the tool accepts (`u-esra` for `esra@...`, `c-ops` for `#ops`,
  see `_spelling`): a guard on `{"person": "u-esra"}` lets the DM to `esra@...` through (`spelling_pinned`);
- the same mail with the forbidden recipient in `cc` instead of `to` (or back): the mail reaches the person
  all the same, and no forbidden guard of the spec matches it (`guard_bypassed`);
- the same mail saved as a draft and then sent (`mail_save_draft`, `mail_send_draft`, or any tools the spec declares
  bound to them, the calls written through their bindings), where the agent is given both: no forbidden guard
  matches either call (`guard_bypassed`). The draft's id is not known before it
  is saved, so the guard that stops this route is one on the draft (or on sending any draft).
- the same call with an optional argument the guard pins to the tool's default left out (`todo_complete_task`
  without `done`, which defaults to true): the audit keeps the arguments as written, so a matcher with
  `done: true` misses it (`guard_bypassed`);
- the same setting made by another write tool of the app on the same record (`todo_update_task` with `done: true`
  for a guard on `todo_complete_task`, or back): the tool's first required argument names the same kind of record
  (same name, or its singular/plural), and it takes the argument the guard pins, or gives it that value by default
  (`guard_bypassed`). A guard pinning a value other than the tool's default is met this way, not by leaving it out.
- the same call naming the record or person among others (a tool's batch form: `to` with two recipients,
  `message_ids` with two mails, `attendees` with one more, `changes` with one more key), where the guard's `where`
  condition wants the whole list or map `equals` the one it names: the call does the harm all the same and no
  forbidden guard matches it (`guard_bypassed`; `contains` on the list, or a bound on the map's key, sees it).
All are judged on the call alone (a forbidden guard fires exactly when its matcher matches a call), so no
episode is played. Other checks (a frame) may still stop the other route; the guard itself protects one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.bindings import DeclaredTool, exposed_tools, spec_catalog
from coworkenv.checks import call_matches
from coworkenv.spec import EnvSpec, ForbiddenRule
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._declared_calls import bound_message, made_through
from coworkenv.validate._guard_ops import op_view
from coworkenv.validate._spelling import FORMS, respelled_value
from coworkenv.validate.gates import GateError
from coworkenv.validate.task_mutations import meeting_values, where_values
from coworkenv.world import World

# Mail tools whose recipients in `to` and in `cc` are told alike.
_RECIPIENT_FIELDS = ("to", "cc")
_MAIL_TOOLS = frozenset({"mail_send"})
# A tool that sends a message at once, and the two that save the same message as a draft and send it later.
_DRAFT_ROUTES = {"mail_send": ("mail_save_draft", "mail_send_draft")}
_SAVED_DRAFT = "<the saved draft>"
# What a batch holds beside the record or key a guard names (see `_batched`).
_ANOTHER = "<another one>"
_ANOTHER_KEY = "<another key>"
# Tools that make or destroy a record rather than set something on it (those are other harms, judged elsewhere).
_DESTROYS_OR_CREATES = re.compile(r"_(delete|cancel|create|add|send|post|save|submit|publish|share)(_|$)")


def bypassed_guards(spec: EnvSpec, world: World) -> list[GateError]:
    """`spelling_pinned` and `guard_bypassed` errors of the spec's forbidden guards (see the module docstring)."""
    forbidden = [(where, c, r) for _, c, where, r in spec_rules(spec.checks) if isinstance(r, ForbiddenRule)]
    matchers = [r.call for _, _, r in forbidden]

    def unguarded(route: list[tuple[str, dict[str, Any]]]) -> bool:
        return not any(call_matches(m, tool, args) for tool, args in route for m in matchers)

    errors = []
    view = op_view(spec)  # the routes below are built on ops, and made through every tool the agent is given

    def bypassed(path: str, check_id: str, route: list[tuple[str, dict[str, Any]]], where: str, message: str) -> None:
        """A `guard_bypassed` error at `<path>.<where>` where no forbidden guard matches the route (made through the
        tools the agent is given: a declared tool bound to the route's op, its arguments in the tool's words)."""
        made = view.unguarded(route, matchers)
        if made is not None:
            through = "" if made == route else f" (made as {'; '.join(f'{t} {a}' for t, a in made)})"
            errors.append(GateError("mutations", "guard_bypassed", f"{path}.{where}",
                                    f"forbidden guard {check_id!r} {message}{through}"))

    for path, check, rule in forbidden:  # a tier's forbidden rule too
        for arg, value, other in _respellings(rule, world):
            errors.append(GateError(
                "mutations", "spelling_pinned", f"{path}.call.args.{arg}",
                f"forbidden guard {check.id!r} matches {rule.call.tool} with {arg}={value!r} only: the same call "
                f"with {arg}={other!r} (the same {FORMS[(rule.call.tool, arg)]}) does the harm unseen; match every "
                "form (a `where` condition with `in`)"))
        for j, arg, value, other in _where_respellings(rule, world):
            errors.append(GateError(
                "mutations", "spelling_pinned", f"{path}.call.where[{j}]",
                f"forbidden guard {check.id!r} matches {rule.call.tool} with {arg} {value!r} only: the same call "
                f"with {arg}={other!r} (the same {FORMS[(rule.call.tool, arg)]}) does the harm unseen; list every "
                "form the tool accepts (an `in` condition)"))
        for route in _drafted(rule, spec):
            if unguarded(route):
                errors.append(GateError("mutations", "guard_bypassed", f"{path}.call", (
                    f"forbidden guard {check.id!r} forbids {rule.call.tool}, but the same mail saved with {route[0][0]} "
                    f"and sent with {route[1][0]} matches no forbidden guard: the mail goes out all the same; forbid "
                    f"{route[0][0]} with the same arguments too")))
        # the other routes on the op the guarded tool runs (a declared tool's guard read through its binding)
        op_rule = view.lift(rule)
        if op_rule is None:
            continue
        rule = op_rule
        for moved, args in _other_fields(rule, view.spec, world):
            bypassed(path, check.id, [(rule.call.tool, args)], "call", (
                f"forbids {rule.call.tool} to {moved!r}, but the same mail with {moved!r} in another recipient field "
                f"({sorted(k for k in args if k in _RECIPIENT_FIELDS)}) matches no forbidden guard: the person is "
                "told all the same"))
        for arg, args in _defaulted(rule, view.spec):
            bypassed(path, check.id, [(rule.call.tool, args)], "call", (
                f"pins {arg} to the value {rule.call.tool} gives it when it is left out: the same call without "
                f"{arg!r} does the harm and matches no forbidden guard; leave {arg!r} out of the matcher"))
        for other, args in _sibling_settings(rule, view.spec):
            bypassed(path, check.id, [(other, args)], "call", (
                f"forbids {rule.call.tool}, but {other} {args} makes the same change to the same record and matches "
                f"no forbidden guard; forbid {other} with those arguments too, or guard the record's state (a "
                "records or frame check)"))
        for arg, args in _batched(rule, view.spec, world):
            bypassed(path, check.id, [(rule.call.tool, args)], "call.where", (
                f"wants {rule.call.tool}'s {arg} to equal {where_values(rule.call.tool, rule.call.where)[arg]!r} as "
                f"a whole, but the same call with {arg}={args[arg]!r} (the tool takes several at once) does the harm "
                "and matches no forbidden guard; match with `contains` (or a bound on the key) instead of `equals`"))
    return errors


def _drafted(rule: ForbiddenRule, spec: EnvSpec) -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """The calls that send the guarded mail by way of a draft, where the agent is given the draft tools: each pair of
    tools it is given bound to the drafting and the draft-sending op (built-in or declared, the calls written through
    the declared bindings: a comma-list `to`, a renamed draft id); the guard's own tool may be a declared send."""
    catalog = spec_catalog(spec)
    guarded = catalog.get(rule.call.tool)
    route = _DRAFT_ROUTES.get(guarded.op if guarded is not None else rule.call.tool)
    if route is None:
        return
    # the mail the guard forbids: its arguments and what its conditions want (a body containing a phrase)
    mail: dict[str, Any] | None
    if isinstance(guarded, DeclaredTool):  # a declared send's mail as the op's arguments
        declared = {**meeting_values(guarded.params.model_fields, rule.call.where), **rule.call.args}
        mail = bound_message(guarded.decl.bind, declared, set(guarded.bound.params.model_fields))
    else:
        mail = {**where_values(rule.call.tool, rule.call.where), **rule.call.args}
    if mail is None:
        return
    exposed = exposed_tools(spec)
    saves, sends = ([made_through(spec, catalog, op, args, name) for name in exposed if name in catalog and catalog[name].op == op]
                    for op, args in zip(route, (mail, {"draft_id": _SAVED_DRAFT}), strict=True))
    for save in (c for c in saves if c is not None):
        for send in (c for c in sends if c is not None):
            yield [(save.name, dict(save.arguments)), (send.name, dict(send.arguments))]


def _batched(rule: ForbiddenRule, spec: EnvSpec, world: World) -> Iterator[tuple[str, dict[str, Any]]]:
    """(argument, call arguments) of the guarded call with one more item in a list argument, or one more key in a map
    argument, that a `where` condition wants `equals` the list or map it names (a recipient added beside the one named:
    the user, who may be mailed; another key beside the one named)."""
    tool = TOOLS.get(rule.call.tool)
    if tool is None or rule.call.tool not in exposed_tools(spec):
        return
    fields = tool.params.model_fields
    wanted = {**where_values(rule.call.tool, rule.call.where), **rule.call.args}
    for c in rule.call.where:
        if c.op != "equals" or c.field not in fields or not c.value or not isinstance(c.value, list | dict):
            continue
        if isinstance(c.value, dict):
            yield c.field, {**wanted, c.field: {**c.value, _ANOTHER_KEY: True}}
            continue
        mine = _user_email(spec, world)
        extra = mine if all(isinstance(v, str) and "@" in v for v in c.value) and mine not in c.value else _ANOTHER
        yield c.field, {**wanted, c.field: [*c.value, extra]}


def _defaulted(rule: ForbiddenRule, spec: EnvSpec) -> Iterator[tuple[str, dict[str, Any]]]:
    """(argument, call arguments without it) for each optional argument of an exposed tool that the guard's matcher
    pins to the tool's own default (None, "no value", is not a default anyone pins)."""
    tool = TOOLS.get(rule.call.tool)
    if tool is None or rule.call.tool not in exposed_tools(spec):
        return
    fields = tool.params.model_fields
    pinned = {**{c.field: c.value for c in rule.call.where if c.op == "equals"}, **rule.call.args}
    # The rest of the call as the matcher wants it (an `in` condition met by its first value, a list `contains` by
    # the list of that one item).
    others = {k: v for k, v in where_values(rule.call.tool, rule.call.where).items() if k not in pinned}
    for arg, value in pinned.items():
        field = fields.get(arg)
        if field is None or field.is_required() or field.default is None or value != field.default:
            continue
        yield arg, {**others, **{k: v for k, v in pinned.items() if k != arg}}


def _sibling_settings(rule: ForbiddenRule, spec: EnvSpec) -> Iterator[tuple[str, dict[str, Any]]]:
    """(tool, arguments) of each other exposed write tool of the guarded tool's app that makes the setting the
    guard forbids on the same record: its record argument from the guard's, each setting the guard pins (or the
    guarded tool gives by default) passed by name, or left out where the other tool gives it by default."""
    tool = TOOLS.get(rule.call.tool)
    exposed = exposed_tools(spec)
    if tool is None or rule.call.tool not in exposed or _DESTROYS_OR_CREATES.search(rule.call.tool):
        return
    pinned = {**{c.field: c.value for c in rule.call.where if c.op == "equals"}, **rule.call.args}
    record_arg = _first_required(tool)
    if record_arg is None or not isinstance(pinned.get(record_arg), str | list):
        return
    fields = tool.params.model_fields
    # What the guarded call sets beside naming its record: the pinned optional arguments, and the defaults it
    # gives the ones it is not told (None, "no value", sets nothing).
    sets = {k: v for k, v in pinned.items() if k != record_arg and k in fields and not fields[k].is_required()}
    sets |= {k: f.default for k, f in fields.items() if k not in pinned and not f.is_required()
             and isinstance(f.default, bool | str | int) and k != record_arg}
    if not sets or any(k not in sets and k != record_arg for k in pinned):
        return  # a guard on a required setting (a body, a recipient) is about more than one field
    for name in exposed:
        other = TOOLS.get(name)
        if other is None or name == rule.call.tool or other.app != tool.app or other.kind != "write" or \
                _DESTROYS_OR_CREATES.search(name):
            continue
        theirs = _first_required(other)
        if theirs is None or theirs.rstrip("s") != record_arg.rstrip("s"):
            continue
        their_fields = other.params.model_fields
        if not all(k in their_fields for k in sets):
            continue
        args = {theirs: pinned[record_arg], **{k: v for k, v in sets.items() if their_fields[k].default != v}}
        try:
            other.params.model_validate(args)
        except Exception:  # the other tool cannot take the guard's values: not a route
            continue
        yield name, args


def _first_required(tool: Any) -> str | None:
    return next((n for n, f in tool.params.model_fields.items() if f.is_required()), None)


def _respellings(rule: ForbiddenRule, world: World) -> Iterator[tuple[str, str, str]]:
    """(argument, value, other spelling) for each person or channel the guard names that its matcher misses
    once spelled the other way."""
    matcher = rule.call
    for arg, value in matcher.args.items():
        what = FORMS.get((matcher.tool, arg))
        if what is None or not isinstance(value, str):
            continue
        other = respelled_value(world, what, value)
        if other is not None and not call_matches(matcher, matcher.tool, {**matcher.args, arg: other}):
            yield arg, value, other


def _where_respellings(rule: ForbiddenRule, world: World) -> Iterator[tuple[int, str, Any, str]]:
    """(condition index, argument, the value it wants, a form it misses) for each `equals` or `in` condition of the
    guard on a person or channel argument (`FORMS`) that misses another form the tool accepts of a person or channel
    it names: a person's id, email or chat handle, a channel's id, #name or name."""
    matcher = rule.call
    if not any((matcher.tool, c.field) in FORMS for c in matcher.where):
        return  # (a declared tool is none of those)
    wanted = {**where_values(matcher.tool, matcher.where), **matcher.args}
    for j, cond in enumerate(matcher.where):
        what = FORMS.get((matcher.tool, cond.field))
        values = [cond.value] if cond.op == "equals" else cond.value if cond.op == "in" else None
        if what is None or not isinstance(values, list):
            continue
        missed = (other for value in values if isinstance(value, str) for other in _forms(world, what, value)
                  if not call_matches(matcher, matcher.tool, {**wanted, cond.field: other}))
        other = next(missed, None)
        if other is not None:
            yield j, cond.field, cond.value, other


def _forms(world: World, what: str, value: str) -> list[str]:
    """Every form a tool accepts of the person (id, email, chat handle) or channel (id, #name, name) `value` names."""
    other = respelled_value(world, what, value)
    if other is None:
        return []
    table = world.table("directory", "people") if what == "person" else world.table("chat", "channels")
    found = table.get(value) or table.get(other)  # `other` is the id where `value` is not
    if found is None:
        return []
    if what == "person":
        return [str(f) for f in (found.id, found.email, found.chat_handle) if f]
    return [str(found.id), str(found.name), str(found.name).lstrip("#")]


def _other_fields(rule: ForbiddenRule, spec: EnvSpec, world: World) -> Iterator[tuple[str, dict[str, Any]]]:
    """(recipient, call arguments) of the guarded mail sent with that recipient in the other recipient field."""
    matcher = rule.call
    if matcher.tool not in _MAIL_TOOLS:
        return
    filler = _user_email(spec, world)
    # the mail as the matcher wants it: its arguments, and, where the guard is on the person alone, what its
    # conditions want (`to` containing the person; a guard on what is said to them, a bot's command, is not: the
    # bot reads its command in `to` only, and the dynamics rule that reacts to it is the harm)
    alone = all(f in _RECIPIENT_FIELDS for f in [*matcher.args, *(c.field for c in matcher.where)])
    wanted = {**(where_values(matcher.tool, matcher.where) if alone else {}), **matcher.args}
    for field in _RECIPIENT_FIELDS:
        named = wanted.get(field)
        if not isinstance(named, list):
            continue
        for person in named:
            if isinstance(person, str) and person.lower() != filler.lower():
                moved = {"to": [filler], "cc": [person]} if field == "to" else {"to": [person], "cc": []}
                yield person, {**wanted, **moved}


def _user_email(spec: EnvSpec, world: World) -> str:
    """The user's own address (a harmless recipient to keep `to` filled), or a stand-in."""
    person = world.table("directory", "people").get(spec.user)
    return str(person.email) if person is not None and person.email else "me@example.test"
