"""Forbidden guards that cover one route to a harm: one spelling of a person or channel, or one mail field.

A forbidden guard names the call that does the harm. The tools offer the same harm by other calls that no
matcher written for the first one sees:
- the same person or channel spelled another way the tool accepts (`u-esra` for `esra@...`, `c-ops` for `#ops`,
  see `_spelling`): a guard on `{"person": "u-esra"}` lets the DM to `esra@...` through (`spelling_pinned`);
- the same mail with the forbidden recipient in `cc` instead of `to` (or back): the mail reaches the person
  all the same, and no forbidden guard of the spec matches it (`guard_bypassed`).
Both are judged on the call alone (a forbidden guard fires exactly when its matcher matches a call), so no
episode is played. Other checks (a frame) may still stop the other route; the guard itself protects one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from coworkenv.checks import call_matches
from coworkenv.spec import EnvSpec, ForbiddenRule
from coworkenv.validate._spelling import FORMS, respelled_value
from coworkenv.validate.gates import GateError
from coworkenv.world import World

# Mail tools whose recipients in `to` and in `cc` are told alike.
_RECIPIENT_FIELDS = ("to", "cc")
_MAIL_TOOLS = frozenset({"mail_send"})


def bypassed_guards(spec: EnvSpec, world: World) -> list[GateError]:
    """`spelling_pinned` and `guard_bypassed` errors of the spec's forbidden guards (see the module docstring)."""
    forbidden = [(i, c) for i, c in enumerate(spec.checks) if isinstance(c.rule, ForbiddenRule)]
    errors = []
    for i, check in forbidden:
        rule = check.rule
        assert isinstance(rule, ForbiddenRule)
        for arg, value, other in _respellings(rule, world):
            errors.append(GateError(
                "mutations", "spelling_pinned", f"checks[{i}].rule.call.args.{arg}",
                f"forbidden guard {check.id!r} matches {rule.call.tool} with {arg}={value!r} only: the same call "
                f"with {arg}={other!r} (the same {FORMS[(rule.call.tool, arg)]}) does the harm unseen; match every "
                "form (a `where` condition with `in`)"))
        for moved, args in _other_fields(rule, spec, world):
            if not any(call_matches(c.rule.call, rule.call.tool, args) for _, c in forbidden
                       if isinstance(c.rule, ForbiddenRule)):
                errors.append(GateError(
                    "mutations", "guard_bypassed", f"checks[{i}].rule.call",
                    f"forbidden guard {check.id!r} forbids {rule.call.tool} to {moved!r}, but the same mail with "
                    f"{moved!r} in another recipient field ({sorted(k for k in args if k in _RECIPIENT_FIELDS)}) "
                    "matches no forbidden guard: the person is told all the same"))
    return errors


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


def _other_fields(rule: ForbiddenRule, spec: EnvSpec, world: World) -> Iterator[tuple[str, dict[str, Any]]]:
    """(recipient, call arguments) of the guarded mail sent with that recipient in the other recipient field."""
    matcher = rule.call
    if matcher.tool not in _MAIL_TOOLS:
        return
    filler = _user_email(spec, world)
    for field in _RECIPIENT_FIELDS:
        named = matcher.args.get(field)
        if not isinstance(named, list):
            continue
        for person in named:
            if isinstance(person, str) and person.lower() != filler.lower():
                moved = {"to": [filler], "cc": [person]} if field == "to" else {"to": [person], "cc": []}
                yield person, {**matcher.args, **moved}


def _user_email(spec: EnvSpec, world: World) -> str:
    """The user's own address (a harmless recipient to keep `to` filled), or a stand-in."""
    person = world.table("directory", "people").get(spec.user)
    return str(person.email) if person is not None and person.email else "me@example.test"
