"""Case pinned: the user asks for the label "tracked" or the report at `reports/errors-2026-02-23.csv`; the writer's
reference writes `Tracked` or `Reports/Errors-2026-02-23.csv`, and the checks want it so (a case-sensitive `contains`
on the mail's labels, `equals` on the file's path). An honest agent that copies the user's spelling fails; the sound
twin writes and checks the value as the user gave it."""

from __future__ import annotations

import re
from typing import Any

import orjson

from tests.defects._core import CorpusError, Defect, Spec, calls, reference

CLASS = "case_pinned"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "replay the reference with each written value the user spelled in another letter case or spacing as the user "
    "spelled it; where the tool takes it and a check then fails, the check pins the writer's casing"
)


def _recased(value: str) -> str:
    """The writer's casing: each word's first letter upper case (`reports/errors-x.csv` -> `Reports/Errors-x.csv`)."""
    return re.sub(r"(?:^|(?<=[/\s-]))([a-z])", lambda m: m.group(1).upper(), value)


def _value(spec: Spec, tool: str, arg: str) -> str:
    found = next(calls(spec, tool), None)
    if found is None:
        raise CorpusError(f"{spec['capability']}: the reference never calls {tool}")
    value = found[2]["arguments"][arg]
    value = value[0] if isinstance(value, list) else value
    said = " ".join(t["content"] for t in spec["turns"])
    if value not in said or _recased(value) == value:
        raise CorpusError(f"{spec['capability']}: the user never spells {value!r} so, or it has no letter to raise")
    return str(value)


# Keys naming structure (an app, a table, a tool, a field), never a value the agent writes.
_STRUCTURE = frozenset({"app", "table", "kind", "tool", "field", "op", "name", "role", "entrypoint"})


def _respelled(spec: Spec, value: str, parts: tuple[str, ...]) -> None:
    new = _recased(value)
    pattern = re.compile(rf"(?<![\w/.-]){re.escape(value)}(?![\w/-])")

    def walk(node: Any) -> Any:
        if isinstance(node, str):
            return pattern.sub(lambda _: new, node)
        if isinstance(node, list):
            return [walk(n) for n in node]
        if isinstance(node, dict):
            return {k: v if k in _STRUCTURE else walk(v) for k, v in node.items()}
        return node

    for part in parts:
        if not pattern.search(orjson.dumps(spec[part]).decode()):
            raise CorpusError(f"{spec['capability']}: {part} never names {value!r}")
        spec[part] = walk(spec[part])


def _writer_case(tool: str, arg: str):  # type: ignore[no-untyped-def]
    """The reference and the checks spell the written value in the writer's casing; the turns keep the user's."""

    def edit(spec: Spec) -> None:
        _respelled(spec, _value(spec, tool, arg), ("reference", "checks"))
    return edit


def _users_spelling(spec: Spec) -> list[dict[str, Any]]:
    """The honest agent: the reference as the user spelled every value (the twin's own)."""
    return reference(spec)


def _pair(name: str, base: str, tool: str, arg: str, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_writer_case(tool, arg), witness=_users_spelling,
                  witness_kind="honest", gate="mutations", code="case_pinned")


_LABEL = "fails the agent that labels the mail as the user spelled the label: the check wants the writer's casing"
_PATH = "fails the agent that writes the file at the path the user gave: the checks want the writer's casing"

DEFECTS = [
    _pair("label-title-cased", "synth:todo_track_mail_requests@1", "mail_label", "add", _LABEL),
    _pair("label-title-cased-2", "synth:todo_track_mail_requests@2", "mail_label", "add", _LABEL),
    _pair("label-title-cased-3", "synth:todo_track_mail_requests@3", "mail_label", "add", _LABEL),
    _pair("report-path-title-cased", "synth:report_from_data@2", "files_write_file", "path", _PATH),
    _pair("handoff-path-title-cased", "synth:oncall_handoff@1", "files_write_file", "path", _PATH),
    _pair("handoff-path-title-cased-2", "synth:oncall_handoff@2", "files_write_file", "path", _PATH),
]
