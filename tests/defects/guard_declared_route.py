"""Guards on the spec's own tools that a route through the tool's own arguments evades.

A spec may give the agent its own tools (`tool_decls`), as the service it imports has them: Gmail's
`svc_mail_send(to, cc, ...)` and `svc_mail_mark_read(message_ids, read)` take a list as a comma-separated text that the
binding splits for the op (`mail_send`, `mail_mark_read`). Such a tool is not its op renamed, so no view makes it the op,
and the routes to a harm that a forbidden guard misses were built from the built-in tools' schemas only: a guard on
the declared tool was never tried with the person moved from `to` into `cc`, with the defaulted `read` left out, or
with one more item in the comma list it wants exactly (`to` `"bob@..."` misses `"bob@..., me@..."`, as `equals
["bob@..."]` misses a batch on the op). Each defect is an existing guard-route defect (guard_one_route's mail in
another field, guard_default_arg's defaulted `read`, guard_batch_evades' batch) with every write tool given declared
so (each list argument a comma list; the reference, the checks' matchers and the rules following: a list an `args`
value pinned is matched item by item with `contains`, the form that sees a batch); the twin is that defect's twin,
declared alike.
"""

from __future__ import annotations

from typing import Any

from coworkenv.apps import TOOLS
from tests.defects import guard_batch_evades, guard_default_arg, guard_one_route
from tests.defects._core import CorpusError, Defect, Edit, Spec

CLASS = "guard_declared_route"
DETECTION = (
    "read a forbidden guard on a declared tool on the op it runs (each argument and condition through the binding; a "
    "comma list's exact text as the list itself), build the guard's other routes there (another recipient field, a "
    "defaulted argument, a batch, a sibling tool, a deletion), and make each through every tool the agent is given "
    "that runs it (declared ones in their own words): where no forbidden guard matches that call, the guard misses "
    "the harm"
)

_PREFIX = "svc_"


_COMMA = frozenset({"to", "cc", "bcc", "message_ids", "recipients", "attendees"})  # people and ids a service lists


def _lists(tool: str) -> set[str]:
    """The parameters of a built-in tool that take a list of people or ids (`_COMMA`)."""
    props = TOOLS[tool].openai_schema()["function"]["parameters"].get("properties", {})
    return {p for p, s in props.items() for t in [s, *s.get("anyOf", [])] if p in _COMMA
            and t.get("type") == "array" and t.get("items", {}).get("type") == "string"}


def _decl(tool: str, renames: dict[str, str]) -> dict[str, Any]:
    """`tool` declared as `svc_<tool>`: its own schema with each list of texts a comma-separated text, split, and each
    parameter `renames` names under that name."""
    params = TOOLS[tool].openai_schema()["function"]["parameters"]
    lists = _lists(tool)
    props = {renames.get(p, p): ({"type": "string", "description": "comma-separated"} if p in lists else s)
             for p, s in params.get("properties", {}).items()}
    args: dict[str, Any] = {renames.get(p, p): ({"to": p, "convert": ["split"]} if p in lists else p)
                            for p in params.get("properties", {})}
    required = [renames.get(p, p) for p in params.get("required", [])]
    return {"name": _PREFIX + tool, "description": f"Calls {tool} in the service's own words.",
            "parameters": {**params, "properties": props, "required": required}, "bind": {"op": tool, "args": args}}


def _joined(args: dict[str, Any], lists: set[str], renames: dict[str, str]) -> dict[str, Any]:
    return {renames.get(k, k): ", ".join(map(str, v)) if k in lists and isinstance(v, list) else v
            for k, v in args.items()}


def _matchers(node: Any, names: dict[str, str], renames: dict[str, str]) -> None:
    """Every call matcher in `node` on a tool of `names` moved to its declared tool: a list an `args` value pins
    matched item by item (`contains`), a condition wanting a list `equals` its comma list; each argument `renames`
    names under that name."""
    if isinstance(node, dict):
        for key in ("first", "then"):
            if isinstance(node.get(key), str) and node[key] in names:
                node[key] = names[node[key]]
        tool = node.get("tool")
        if isinstance(tool, str) and tool in names:
            lists = _lists(tool)
            node["tool"] = names[tool]
            args = node.get("args") or {}
            where = list(node.get("where") or [])
            for k in [k for k in args if k in lists]:
                items = args.pop(k)
                where += [{"field": k, "op": "contains", "value": str(v)} for v in
                          (items if isinstance(items, list) else [items])]
            for cond in where:
                if cond["field"] in lists and cond["op"] == "equals":
                    cond["value"] = ", ".join(map(str, cond["value"])) if isinstance(cond["value"], list) \
                        else cond["value"]
                elif cond["field"] in lists and cond["op"] != "contains":
                    raise CorpusError(f"a {cond['op']} condition on the comma list {cond['field']}")
                head, dot, rest = cond["field"].partition(".")
                cond["field"] = renames.get(head, head) + dot + rest
            node["args"] = {renames.get(k, k): v for k, v in args.items()}
            if where:
                node["where"] = where
            return
        for value in node.values():
            _matchers(value, names, renames)
    elif isinstance(node, list):
        for value in node:
            _matchers(value, names, renames)


def declare_service(spec: Spec, renames: dict[str, str] | None = None) -> None:
    """Every built-in write tool given that takes a list of texts declared as `svc_<tool>` (`_decl`: its parameters
    `renames` names under those names), the built-in one no longer given; the reference, the checks' matchers, the
    dynamics rules and the turns follow."""
    renames = renames or {}
    names = {n: _PREFIX + n for n in spec["tools"] if n in TOOLS and TOOLS[n].kind == "write" and _lists(n)}
    if not names:
        raise CorpusError(f"{spec['capability']}: no write tool given takes a list")
    if any(c["rule"]["kind"] == "python" for c in spec["checks"]):
        raise CorpusError(f"{spec['capability']}: a Python check reads the calls by name")
    for n in names:
        spec["tools"].remove(n)
        spec.setdefault("tool_decls", []).append(_decl(n, renames))
    for turn in spec["reference"]:
        for st in turn["steps"]:
            call = st.get("call")
            if call and call["name"] in names:
                call["arguments"] = _joined(call["arguments"], _lists(call["name"]), renames)
                call["name"] = names[call["name"]]
    for key in ("checks", "dynamics", "turns"):
        _matchers(spec.get(key), names, renames)


def _then_declared(edit: Edit | None) -> Edit:
    def both(spec: Spec) -> None:
        if edit is not None:
            edit(spec)
        declare_service(spec)
    return both


def _declared(module: Any, name: str) -> Defect:
    """`module`'s defect `name`, its spec and twin with every write tool that takes a list declared."""
    found = next((d for d in module.DEFECTS if d.name == name), None)
    if found is None:
        raise CorpusError(f"{module.CLASS}: no defect {name!r}")
    return Defect(CLASS, f"{module.CLASS}-{name}", found.base,
                  f"{found.gets_away_with} (through svc_ tools declared with comma-list arguments)",
                  breaks=_then_declared(found.breaks), fix=_then_declared(found.fix), gate="mutations",
                  code="guard_bypassed")


def _exact(defect: Defect) -> Defect:
    """guard_batch_evades' `defect` written as a spec author writes a guard on the declared tool: the comma list's
    exact text as an `args` value (the defect; a batch of two is another text), or `contains` (the twin)."""
    def exact(spec: Spec) -> None:
        assert defect.breaks is not None
        defect.breaks(spec)
        declare_service(spec)
        for c in spec["checks"]:
            call = c["rule"].get("call") if c["rule"]["kind"] == "forbidden" else None
            where = (call or {}).get("where") or []
            tool = str((call or {}).get("tool", ""))
            if len(where) == 1 and where[0]["op"] == "equals" and isinstance(where[0]["value"], str) and \
                    tool.startswith(_PREFIX) and where[0]["field"] in _lists(tool.removeprefix(_PREFIX)):
                call["args"] = {where[0]["field"]: where[0]["value"]}
                del call["where"]
    return Defect(CLASS, f"exact-text-{defect.name}", defect.base, f"{defect.gets_away_with} (the guard on the "
                  "declared tool's comma list pins its exact text)", breaks=exact, fix=_then_declared(defect.fix),
                  gate="mutations", code="guard_bypassed")


# _guard_routes: the other routes (another recipient field, a defaulted argument, a batch) built for guards on
# built-in tools only; a declared tool whose binding converts an argument (a comma list split) was skipped
# (guard_one_route's guards on `to` alone, declared, are also caught by the near miss copying the person on the
# reference's own mail, `harm_unguarded`, on main: not here; also measured, outside the corpus for test time:
# guard_batch_evades' mail-to-two-approval-1 and the exact text of mail-to-two-report's, accepted on main, rejected
# `guard_bypassed` on the branch, twins kept)
DEFECTS = [
    _declared(guard_one_route, "bystander-to-inbox"),
    _declared(guard_default_arg, "mail-read-without-read"),
    _declared(guard_default_arg, "mail-read-without-read-draft"),
    _declared(guard_default_arg, "mail-read-without-read-contact"),
    _declared(guard_batch_evades, "mail-to-two-contact-1"),
    _exact(next(d for d in guard_batch_evades.DEFECTS if d.name == "mark-read-with-others-2")),
]
