"""Probe aware: a Python check that can tell the sandbox gate's probes from the verifier's run answers right when
probed and as it likes otherwise. Here each one also compares the real clock with the end of 2026 (a correct agent
fails every run from 2027 on), which the clock probes (a day, a year, ten years ahead) catch, unless the check
sees that it is probed: by the probes' names in its globals, its own line numbers shifted by a prepended prelude,
the prelude's text in the job its caller's frame holds, the patched `datetime` class's name, or a `time.time()`
that disagrees with `time.time_ns()`. One more, `future-import`, starts with `from __future__ import annotations`,
which a prepended prelude turned into a SyntaxError: every probe run crashed (main rejected the defect, but its sound
twin too, as `nondeterministic_check`).

The sound twins are the same Python check without the clock: what the verifier sees when it checks the field.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.defects._core import CorpusError, Defect, Spec, check

CLASS = "probe_aware"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "run the probes' setup as a unit of its own before the check, so that nothing the check can read (globals, "
    "source, line numbers, frames, patched names, one clock against another) tells a probe from a real run; then "
    "the clock probes see the check's real-clock dependence"
)

# How each defect tells a probe from the verifier's run (None: it does not try).
_TELLS = {
    "globals": "'_cw_offset' in globals()",
    "line-numbers": "check.__code__.co_firstlineno != {line}",
    "caller-frame": "'_cw' + '_offset =' in str(sys._getframe(1).f_locals.get('job'))",  # not its own source's text
    "patched-class": "datetime.__name__ != 'datetime'",
    "two-clocks": "abs(datetime.now(timezone.utc).timestamp() - time.time_ns() / 1e9) > 3600",
}


_CLOCK = "datetime.now(timezone.utc).year < 2027"


def _code(target: dict, value: object, tell: str | None, *, clock: bool, future: bool = False,  # type: ignore[type-arg]
          clock_expr: str = _CLOCK, imports: str = "") -> str:
    head = "from __future__ import annotations\n" if future else ""
    head += f"import sys\nimport time\n{imports}from datetime import datetime, timezone\n\n\n"
    line = head.count("\n") + 1  # the line of `def check`
    body = (
        "def check(state, audit, messages):\n"
        f"    rows = state['apps'][{target['app']!r}][{target['table']!r}]\n"
        f"    row = next((r for r in rows if r['id'] == {target['id']!r}), None)\n"
        "    if row is None:\n"
        "        return False\n"
        f"    for part in {target['field'].split('.')!r}:\n"
        "        row = row.get(part) if isinstance(row, dict) else None\n"
        f"    done = row == {value!r}\n"
    )
    if clock:
        if tell is not None:
            body += f"    if {tell.format(line=line)}:\n        return done\n"
        body += f"    # the rollout window closes with the year\n    return done and {clock_expr}\n"
    else:
        body += "    return done\n"
    return head + body


def python_check(check_id: str | None, tell: str | None, *, clock: bool, future: bool = False,  # type: ignore[no-untyped-def]
                 clock_expr: str = _CLOCK, imports: str = ""):
    """The edit that makes `check_id` (None: the first field check) a Python check of the same field (with the clock
    `clock_expr` and the tell, or without)."""

    def edit(spec: Spec) -> None:
        c = check(spec, check_id, kind=None if check_id else "field")  # None: the first field check
        rule = c["rule"]
        if rule["kind"] != "field" or rule.get("op", "equals") != "equals":
            raise CorpusError(f"{check_id}: expected a field check with op 'equals', got {rule}")
        c["rule"] = {"kind": "python", "entrypoint": "check", "apps": [rule["target"]["app"]],
                     "code": _code(rule["target"], rule["value"], tell, clock=clock, future=future,
                                   clock_expr=clock_expr, imports=imports)}
    return edit


def rewritten_twin(check_id: str | None, rewrite: Callable[[str], str], imports: str = "") -> Callable[[Spec], None]:
    """A sound twin: the Python check of `check_id` without the clock, its code passed through `rewrite` (which raises
    CorpusError where the code lacks what it rewrites)."""
    plain = python_check(check_id, None, clock=False, imports=imports)

    def edit(spec: Spec) -> None:
        plain(spec)
        c = check(spec, check_id, kind=None if check_id else "python")
        c["rule"]["code"] = rewrite(c["rule"]["code"])
    return edit


def _defect(name: str, base: str, check_id: str | None, tell: str | None, *, future: bool = False) -> Defect:
    return Defect(CLASS, name, base,
                  "passes a correct agent until the end of 2026 and fails every one after (the real clock), "
                  "while the clock probes " + ("crash on its `from __future__`" if future else
                                               "see a check that ignores the clock (it can tell it is probed)"),
                  breaks=python_check(check_id, tell, clock=True, future=future),
                  fix=python_check(check_id, None, clock=False, future=future),
                  gate="sandbox", code="clock_dependent")


DEFECTS = [
    _defect("globals", "synth:scheduler_pause_failing_jobs@1", "paused-job-843", _TELLS["globals"]),
    _defect("line-numbers", "synth:incident_investigate_fix@1", "fixed", _TELLS["line-numbers"]),
    _defect("caller-frame", "synth:scheduler_pause_failing_jobs@1", "paused-job-842", _TELLS["caller-frame"]),
    _defect("patched-class", "synth:feature_flag_rollout@1", "staging-rolled-back", _TELLS["patched-class"]),
    _defect("two-clocks", "synth:incident_investigate_fix@1", "service-healthy", _TELLS["two-clocks"]),
    _defect("future-import", "synth:feature_flag_rollout@2", None, None, future=True),
]
