"""A date-time a Python check parses and then reads a day or a clock of without choosing the zone it is read in.

`_python_times` names a time compared as text; parsing it (`datetime.fromisoformat`) is what its message asks for. But
a parsed time keeps the offset it was written in, and its day and clock (`.date()`, `.weekday()`, `.isoweekday()`,
`.day`, `.hour`, `.time()`, `.strftime("%A")`, `.strftime("%H:%M")`, ...) are read at that offset:

- a call's argument is what the agent wrote: `_t(e['args']['start']).hour == 10` holds for one spelling of the
  instant and not for the same instant written at another offset (the honest agent writing a colleague's time
  fails, a guard misses the forbidden call so written). Always named;
- a stored time is UTC (the tools store `YYYY-MM-DDTHH:MM:SSZ`): its day and clock read so are the UTC day and
  clock, hours off the user's while the user lives off UTC (world times near midnight fall on another day, a clock
  the user names is another UTC clock). Named where the user's zone is known and off UTC on a day of a time the
  spec knows, and the field's seeds are stored UTC date-times (a field of days is a day as written).

A time converted first (`.astimezone(ZoneInfo(...))`, `.astimezone(timezone.utc)`: the zone is chosen, the reading is
the author's) is not named, nor a constant's (`_t("2026-09-25T09:00:00+02:00").hour`), nor a reply's text. The
parsed values followed: a call of `datetime.fromisoformat`/`strptime`/`isoparse`/`dateutil.parser.parse`, of a
function of the code that returns one (`_t(text)`), and names bound to either; `.replace(...)` keeps the offset.
`python_utc_reads(spec)` yields (path, message), reported by the references gate as `time_read_in_utc`. Static, no
run.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from datetime import timedelta

from coworkenv.spec import EnvSpec
from coworkenv.validate._python_times import _bound_once, _field, _params, _Spec, _Taint, parsed_rules
from coworkenv.validate._time_fragments import _STORED

_PARSERS = frozenset({"fromisoformat", "strptime", "isoparse", "parse"})
_DAY_CALLS = frozenset({"date", "weekday", "isoweekday", "isocalendar", "time", "timetuple"})
_DAY_ATTRS = frozenset({"day", "hour"})
# strftime directives that read the day or the clock (not the minute, second, year or offset)
_DAY_FORMAT = re.compile(r"%[-#]?[aAdejuwHIpcxXDFTRkl]")


class _Parsed:
    """Which expressions are parsed times, and the text each was parsed from."""

    def __init__(self, tree: ast.AST) -> None:
        self.helpers = {node.name: node.args.args[0].arg for node in ast.walk(tree)
                        if isinstance(node, ast.FunctionDef) and node.args.args and self._returns_parse(node)}
        self.names: dict[str, ast.AST] = {}
        for name, value in _bound_once(tree).items():
            source = self.source(value)
            if source is not None:
                self.names[name] = source

    def _returns_parse(self, fn: ast.FunctionDef) -> bool:
        return any(isinstance(n, ast.Return) and n.value is not None and self._parse_call(n.value) is not None
                   for n in ast.walk(fn))

    @staticmethod
    def _parse_call(node: ast.AST) -> ast.AST | None:
        """The text argument of a parsing call (`datetime.fromisoformat(x)`, `strptime(x, f)`)."""
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in _PARSERS and (name != "parse" or isinstance(func, ast.Attribute)):
                return node.args[0]
        return None

    def source(self, node: ast.AST, depth: int = 0) -> ast.AST | None:
        """The text `node` parses, where `node` is a parsed time read at its own offset; None otherwise (not a
        parsed time, or one converted to a zone the code chose)."""
        if depth > 8:
            return None
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "replace":
            return self.source(node.func.value, depth + 1)  # a relabelled copy keeps the offset's day and clock
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in self.helpers \
                and node.args:
            return node.args[0]
        return self._parse_call(node)


def _day_reads(tree: ast.AST, parsed: _Parsed) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(the reading node, the text parsed) for each day or clock read of a parsed time at its own offset."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr, base = node.func.attr, node.func.value
            if attr == "strftime" and not (node.args and isinstance(node.args[0], ast.Constant)
                                           and isinstance(node.args[0].value, str)
                                           and _DAY_FORMAT.search(node.args[0].value)):
                continue
            if attr not in _DAY_CALLS and attr != "strftime":
                continue
        elif isinstance(node, ast.Attribute) and node.attr in _DAY_ATTRS and isinstance(node.ctx, ast.Load):
            base = node.value
        else:
            continue
        source = parsed.source(base)
        if source is not None:
            yield node, source


def _constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr == "replace" and _constant(node.func.value))


def _off_utc(known: _Spec) -> str | None:
    """The user's zone where it is known and off UTC on the day of a time the spec knows."""
    zones, user = known.zones
    if not user or not zones:
        return None
    for moment in known.instants:
        if (moment.astimezone(zones[0]).utcoffset() or timedelta(0)) != timedelta(0):
            return str(zones[0])
    return None


def python_utc_reads(spec: EnvSpec) -> Iterator[tuple[str, str]]:
    """(path, message) for each Python check that reads a parsed time's day or clock at the offset it was written in
    where that is the agent's spelling or UTC while the user lives elsewhere."""
    known = _Spec(spec)
    for i, check, rule, tree in parsed_rules(spec):
        parsed, once = _Parsed(tree), _bound_once(tree)
        taint = _Taint(tree, *_params(tree, rule.entrypoint))
        for node, source in _day_reads(tree, parsed):
            why = _why(node, source, taint, known, rule.code, once)
            if why is not None:
                yield f"checks[{i}].rule.code", f"check {check.id!r}: {why}"
                break


def _why(node: ast.AST, source: ast.AST, taint: _Taint, known: _Spec, code: str,
         once: dict[str, ast.AST]) -> str | None:
    shown = ast.get_source_segment(code, node) or ast.unparse(node)
    shown = shown if len(shown) <= 160 else shown[:157] + "..."
    if _constant(source) or taint.reads_replies(source):
        return None
    if taint.reads_args(source):
        return (f"`{shown}` reads the day or clock of a parsed date-time argument at the offset the agent wrote it "
                "in: the same instant written at another offset (the tool takes any, it stores UTC) has another "
                "clock and maybe another day, so the check holds for one spelling and not another (a completion "
                "fails the honest agent writing a colleague's time, a guard misses the call so written); convert "
                "first (`.astimezone(ZoneInfo(<the user's zone>))`) or compare instants")
    zone = _off_utc(known)
    seeds = known.seeds(_field(source, once))
    if zone is None or not all(_STORED.match(s) for s in seeds):
        return None
    return (f"`{shown}` reads the day or clock of a stored date-time, and the tools store UTC: it is the UTC day "
            f"and clock, not the user's ({zone}, off UTC on the task's days), so a time near the user's midnight is "
            "read as another day and a clock the user names as another hour; convert first "
            f"(`.astimezone(ZoneInfo({zone!r}))`), or `.astimezone(timezone.utc)` where UTC is meant")

