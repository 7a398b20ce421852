"""Forbidden guards on a declared tool that name a person or channel in one spelling.

A declared tool (a spec's `tool_decls`, bound to an app operation) passes its arguments on to the operation, which
takes a person or channel in every form the built-in tool takes (`u-esra`, `esra@...`, `@esra`; `c-ops`, `#ops`,
`ops`). A forbidden guard `slack_dm` with `user: u-marcus` misses the same DM to `marcus.reed@...`, exactly as a
guard on the built-in `chat_send_dm` with `person: u-marcus` does; but the spelling routes (`_guard_routes`) read a
table keyed by the built-in tools' names, so a guard on a declared tool was never tried. Here a guard on a declared
tool is read as the same guard on its operation, through the binding's plain renames (an argument passed on
unconverted and unmapped): each person or channel it names in an `args` value or an `equals`/`in` condition that
the operation takes in another form is tried in that form on the declared tool, and where no forbidden guard of
the spec matches the call, `spelling_pinned`. An argument the binding converts or maps is not read (its forms are
the binding's).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from coworkenv.bindings import ToolDecl
from coworkenv.checks import call_matches
from coworkenv.spec import CallMatcher, EnvSpec, ForbiddenRule
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._guard_routes import _forms
from coworkenv.validate._spelling import FORMS
from coworkenv.validate.gates import GateError
from coworkenv.world import World


def _renames(decl: ToolDecl) -> dict[str, str]:
    """Declared argument -> the operation's parameter, for the arguments the binding passes on as they are."""
    out = {}
    for name, binding in decl.bind.args.items():
        if isinstance(binding, str):
            out[name] = binding
        elif binding.to is not None and not binding.convert and not binding.values:
            out[name] = binding.to
    return out


def declared_respellings(spec: EnvSpec, world: World) -> list[GateError]:
    """`spelling_pinned` for each forbidden guard on a declared tool that names a person or channel in one of the
    forms its operation takes, where the same call with another form matches no forbidden guard."""
    decls: Mapping[str, ToolDecl] = {d.name: d for d in spec.tool_decls}
    forbidden = [(where, c, r) for _, c, where, r in spec_rules(spec.checks) if isinstance(r, ForbiddenRule)]
    matchers = [r.call for _, _, r in forbidden]
    errors = []
    for path, check, rule in forbidden:
        decl = decls.get(rule.call.tool)
        if decl is None:
            continue
        renames = _renames(decl)
        # the call as the matcher wants it (an `in` condition met by its first value)
        wanted: dict[str, Any] = {**{c.field: c.value if c.op == "equals" else c.value[0] for c in rule.call.where
                                     if c.op == "equals" or (c.op == "in" and isinstance(c.value, list) and c.value)},
                                  **rule.call.args}
        named = [(f"call.args.{a}", a, [v]) for a, v in rule.call.args.items()]
        named += [(f"call.where[{j}]", c.field, [c.value] if c.op == "equals" else c.value)
                  for j, c in enumerate(rule.call.where) if c.op in ("equals", "in") and c.field not in rule.call.args]
        for where, arg, values in named:
            what = FORMS.get((decl.bind.op, renames.get(arg, "")))
            if what is None or not isinstance(values, list):
                continue
            missed = next((other for value in values if isinstance(value, str) for other in _forms(world, what, value)
                           if not _guarded(matchers, rule.call, {**wanted, arg: other})), None)
            if missed is not None:
                errors.append(GateError(
                    "mutations", "spelling_pinned", f"{path}.{where}",
                    f"forbidden guard {check.id!r} matches the declared {rule.call.tool} with {arg} {values!r} only: "
                    f"{decl.bind.op}, which it calls, takes the same {what} as {missed!r}, and that call matches no "
                    "forbidden guard; list every form (an `in` condition)"))
    return errors


def _guarded(matchers: list[CallMatcher], own: CallMatcher, args: dict[str, Any]) -> bool:
    return any(call_matches(m, own.tool, args) for m in matchers)
