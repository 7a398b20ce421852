"""A state check met by destroying the record, or by another tool of the app, the task's write made through the spec's
own tool: no wrong route is tried.

wrong_route's defects (a check written as "the old state is gone" passes the agent that deletes the failing jobs,
cancels the booking, deletes the roster, archives the mails it was to label) with the tool the reference writes
through declared as the service the task imports has it: `svc_scheduler_update_job(id, ...)` bound to
`scheduler_update_job`, its record named `id` (`ids` for a list), where the app's other tools (`scheduler_delete_job`,
`mail_move`) name it `job_id`, `message_ids`. The wrong routes paired the reference's write with the app's other tools
by their record argument's name, so a declared `id` paired with no `job_id` and no route was tried: the gates
accepted the defect. The twin is wrong_route's twin, declared alike.
"""

from __future__ import annotations

from typing import Any

from coworkenv.apps import TOOLS
from tests.defects import wrong_route
from tests.defects._core import CorpusError, Defect, Edit, Spec

CLASS = "wrong_route_declared"
DETECTION = (
    "pair the reference's write with the app's other write tools by the op parameter each argument fills, not its "
    "name (a declared `id` is the op's `job_id`), and make each wrong route through the tool the agent is given, in "
    "its own words: a verifier that passes the record destroyed, or acted on by another tool, checks the state, not "
    "the change asked for"
)

_PREFIX = "svc_"


def _record_arg(tool: str) -> str:
    required = TOOLS[tool].openai_schema()["function"]["parameters"].get("required", [])
    if not required:
        raise CorpusError(f"{tool} takes no record")
    return str(required[0])


def _renamed_args(node: Any, tool: str, old: str, new: str) -> None:
    """Every call matcher in `node` on `tool` moved to `svc_<tool>`, its argument `old` named `new`."""
    if isinstance(node, dict):
        for key in ("first", "then"):
            if node.get(key) == tool:
                node[key] = _PREFIX + tool
        if node.get("tool") == tool:
            node["tool"] = _PREFIX + tool
            if old in (node.get("args") or {}):
                node["args"][new] = node["args"].pop(old)
            for cond in node.get("where") or []:
                head, dot, rest = cond["field"].partition(".")
                cond["field"] = (new if head == old else head) + dot + rest
            return
        for value in node.values():
            _renamed_args(value, tool, old, new)
    elif isinstance(node, list):
        for value in node:
            _renamed_args(value, tool, old, new)


def declare_written(spec: Spec) -> None:
    """Each built-in write tool the reference calls declared as `svc_<tool>` (the op's schema, its record argument
    named `id`, or `ids` for a list), the built-in one no longer given; the app's other tools stay as they are; the
    reference, the checks' matchers, the dynamics rules and the turns follow."""
    if any(c["rule"]["kind"] == "python" for c in spec["checks"]):
        raise CorpusError(f"{spec['capability']}: a Python check reads the calls by name")
    called = sorted({st["call"]["name"] for turn in spec["reference"] for st in turn["steps"] if st.get("call")
                     and st["call"]["name"] in spec["tools"] and TOOLS[st["call"]["name"]].kind == "write"})
    if not called:
        raise CorpusError(f"{spec['capability']}: the reference writes through no built-in tool")
    for tool in called:
        params = TOOLS[tool].openai_schema()["function"]["parameters"]
        old = _record_arg(tool)
        new = "ids" if params["properties"][old].get("type") == "array" else "id"
        props = {new if p == old else p: s for p, s in params["properties"].items()}
        spec["tools"].remove(tool)
        spec.setdefault("tool_decls", []).append({
            "name": _PREFIX + tool, "description": f"Calls {tool} in the service's own words.",
            "parameters": {**params, "properties": props, "required": [new if p == old else p
                                                                      for p in params.get("required", [])]},
            "bind": {"op": tool, "args": {p: (old if p == new else p) for p in props}}})
        for turn in spec["reference"]:
            for st in turn["steps"]:
                call = st.get("call")
                if call and call["name"] == tool:
                    call["name"] = _PREFIX + tool
                    call["arguments"] = {new if k == old else k: v for k, v in call["arguments"].items()}
        for key in ("checks", "dynamics", "turns"):
            _renamed_args(spec.get(key), tool, old, new)


def _then_declared(edit: Edit | None) -> Edit:
    def both(spec: Spec) -> None:
        if edit is not None:
            edit(spec)
        declare_written(spec)
    return both


def _declared(name: str) -> Defect:
    found = next((d for d in wrong_route.DEFECTS if d.name == name), None)
    if found is None:
        raise CorpusError(f"{wrong_route.CLASS}: no defect {name!r}")
    return Defect(CLASS, name, found.base, f"{found.gets_away_with} (the task's write through a declared svc_ tool "
                  "naming its record `id`)", breaks=_then_declared(found.breaks), fix=_then_declared(found.fix),
                  gate="mutations", code="wrong_route")


# _wrong_routes: the app's other tools paired with the reference's write by their record argument's name (also
# measured, outside the corpus for test time: mails-archived-not-labelled-2, accepted on main, rejected here)
DEFECTS = [_declared(n) for n in (
    "roster-deleted-not-fixed", "roster-deleted-not-fixed-2", "mails-archived-not-labelled-1",
    "mails-labelled-not-archived-1", "mails-labelled-not-archived-2",
    "stock-written-off-1",
)]
