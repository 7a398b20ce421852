"""Spec regular expressions under bounds (coworkenv/spec_regex.py): attack patterns a spec can carry (a text
rule's `regex`, the `matches` operator of a field, records, called or forbidden rule), each against the agent's
input that makes it slow.

Each case runs in a subprocess with a time bound, so a case that hangs (as every `hang` case did on main: Python's
`re` has no time bound) fails its test instead of holding the run. A spec whose pattern is refused gets a
SpecError naming the check's path; a search too slow on the agent's text scores the check failed with a reason
(`check error (regex): ...`), never passed, guards included.

Measure the cases on any checkout (`main` too): `python tests/test_regex_limits.py` prints each case's outcome
and seconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

if __name__ == "__main__":  # `python tests/test_regex_limits.py`: the project's root is not on the path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.support.preloaded_python import PreloadedPython

ROOT = Path(__file__).resolve().parent.parent
# generous: a bounded case takes ~1-3 s (the package is imported once, by the server the cases are forked from)
BOUND_S = float(os.environ.get("REGEX_CASE_BOUND_S", "60"))

LONG_A = "a" * 50_000 + "!"
WORDS = "word " * 20_000 + "!"
DIGITS = "1" * 20_000
POST = "chat_post_message"


def _post(text: str) -> tuple[str, dict[str, Any]]:
    return (POST, {"channel": "c-ops", "text": text})


def _text(pattern: str) -> dict[str, Any]:
    return {"kind": "text", "regex": pattern}


def _forbidden(pattern: str) -> dict[str, Any]:
    return {"kind": "forbidden", "call": {"tool": POST, "where": [{"field": "text", "op": "matches", "value": pattern}]}}


def _records(pattern: str) -> dict[str, Any]:
    return {"kind": "records", "app": "chat", "table": "messages",
            "where": [{"field": "text", "op": "matches", "value": pattern}]}


def _field(pattern: str) -> dict[str, Any]:
    return {"kind": "field", "op": "matches", "value": pattern,
            "target": {"app": "tickets", "table": "tickets", "id": "OPS-7", "field": "title"}}


# (id, rule, calls, final reply, expected, what main did (measured with `python tests/test_regex_limits.py` on a
# main checkout, 30 s bound): "refused" at load with the check's path; "timeout": the search ran past its bound and
# the check failed with the reason; "failed": the `regex` engine answered "no match" in time (it has guards against
# some nested repeats), the check failed as it should)
CASES: list[tuple[str, dict[str, Any], list[tuple[str, dict[str, Any]]], str | None, str, str]] = [
    # nested quantifiers, overlapping alternation: exponential backtracking on the agent's reply
    ("text-nested-plus", _text(r"(a+)+$"), [], LONG_A, "timeout", "hang"),
    ("text-nested-words", _text(r"^(\w+\s?)*$"), [], WORDS, "failed", "hang"),
    ("text-overlap-digits", _text(r"(\d+)*\d+\."), [], DIGITS, "failed", "hang"),
    ("text-overlap-alternation", _text(r"(a|aa)+$"), [], LONG_A, "timeout", "hang"),
    # a huge counted repetition: quadratic in the reply's length (re), an expanded program (regex)
    ("text-counted-range", _text(r".{0,65535}x"), [], "a" * 200_000, "refused", "hang"),
    ("text-counted-nested", _text(r"(?:a{1000}){1000}b"), [], "a" * 2_000_000, "refused", "hang"),
    # invalid patterns that are no re.error: a traceback at load on main
    ("text-deep-nesting", _text("(" * 499 + ")" * 499), [], "done", "refused", "traceback"),
    ("text-count-overflow", _text("a{4294967296}"), [], "done", "refused", "traceback"),
    # `matches` conditions: never checked at load on main (a traceback when scored), and run on the agent's input
    ("field-invalid", _field("[unclosed"), [], "done", "refused", "traceback"),
    ("forbidden-invalid", _forbidden("(?P<x"), [_post("hello")], "done", "refused", "traceback"),
    ("forbidden-nested", _forbidden(r"(a+)+$"), [_post(LONG_A)], "done", "timeout", "hang"),
    ("records-nested", _records(r"^(\w+\s?)*$"), [_post(WORDS)], "done", "failed", "hang"),
    ("called-overlap", {"kind": "called", "call": {
        "tool": POST, "where": [{"field": "text", "op": "matches", "value": r"(\d+)*\d+\."}]}},
     [_post(DIGITS)], "done", "failed", "hang"),
    ("forbidden-counted-range", _forbidden(r".{0,65535}x"), [_post("a" * 500_000)], "done", "refused", "hang"),
]

_RUN = """
import json, sys
from coworkenv.loading import SpecError
from tests.test_checks import _check, _env, _play
case = json.loads(sys.stdin.read())
try:
    env = _env(_check(case["rule"]))
except SpecError as exc:
    print(json.dumps({"outcome": "refused", "message": str(exc)}))
    raise SystemExit(0)
result = _play(env, *[tuple(c) for c in case["calls"]], say=case["say"])
(check,) = result.checks
print(json.dumps({"outcome": "scored", "passed": check.passed, "reason": check.reason, "error": check.error}))
"""


def run_case(server: PreloadedPython, rule: dict[str, Any], calls: list[Any], say: str | None,
             bound: float = BOUND_S) -> dict[str, Any]:
    """The case's outcome in a child process (forked from `server`, which imported what `_RUN` imports once):
    refused / scored (with the check's result) / hang / traceback."""
    start = time.monotonic()
    try:
        done = server.run(_RUN, json.dumps({"rule": rule, "calls": calls, "say": say}), timeout=bound)
    except subprocess.TimeoutExpired:
        return {"outcome": "hang", "seconds": time.monotonic() - start}
    seconds = time.monotonic() - start
    if done.returncode != 0:
        return {"outcome": "traceback", "seconds": seconds, "stderr": done.stderr.strip().splitlines()[-1:]}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "seconds": seconds}


def preloaded() -> PreloadedPython:
    return PreloadedPython(("coworkenv.loading", "tests.test_checks"), cwd=ROOT)


@pytest.fixture(scope="module")
def server() -> Iterator[PreloadedPython]:
    started = preloaded()
    yield started
    started.close()


@pytest.mark.slow
@pytest.mark.parametrize(("rule", "calls", "say", "expected"), [pytest.param(*c[1:5], id=c[0]) for c in CASES])
def test_spec_regex_is_bounded(server: PreloadedPython, rule: dict[str, Any], calls: list[Any], say: str | None,
                               expected: str) -> None:
    got = run_case(server, rule, calls, say)
    assert got["outcome"] in ("refused", "scored"), got
    if expected == "refused":
        assert got["outcome"] == "refused", got
        assert "checks[0].rule" in got["message"], got["message"]  # where: the check's path in the spec
        assert any(w in got["message"] for w in ("use ", "write it", "flatten")), got["message"]  # what to do
    else:
        assert got["outcome"] == "scored" and got["passed"] is False and got["reason"], got
    if expected == "timeout":  # unknown, never "no match": the forbidden guard fails instead of passing
        assert got["error"] is True and "check error (regex)" in got["reason"] and "longer than" in got["reason"], got


def test_pattern_limits() -> None:
    """The load-time limits, in process: what is refused and what the shipped specs' patterns look like."""
    from coworkenv.spec_regex import MAX_PATTERN_CHARS, pattern_problem

    for fine in (r"(?i)14:00.{0,12}utc", r"(?m)^Felix\ Bianchi,felix\.bianchi@x\.test\r?$", r"(?<!\d)42(?!\d)",
                 r"\d{4}-\d{2}-\d{2}", r"(?:\d{1,3}\.){3}\d{1,3}", "a" * MAX_PATTERN_CHARS):
        assert pattern_problem(fine) is None, fine
    for bad, why in ((r"(", "does not compile"), ("a" * (MAX_PATTERN_CHARS + 1), "characters long"),
                     (r"a{10001}", "repeats 10001 times"), (r"(?:a{100}){101}", "repeats 10201 times"),
                     ("(" * 499 + ")" * 499, "nests groups too deeply"), (r"a{4294967296}", "does not compile")):
        problem = pattern_problem(bad)
        assert problem is not None and why in problem, (bad[:40], problem)


def test_search_times_out_and_spends_one_budget() -> None:
    from coworkenv.spec_regex import PatternTimeout, regex_budget, search

    start = time.monotonic()
    with pytest.raises(PatternTimeout, match="longer than"):
        search(r"(a+)+$", LONG_A)
    with regex_budget(0.5), pytest.raises(PatternTimeout):
        search(r"(a+)+$", LONG_A)
    assert time.monotonic() - start < 10
    assert search(r"ops-\d+", "see OPS-7", ignorecase=True) is not None  # the same results as re for the rest


if __name__ == "__main__":  # measure every case on this checkout
    measuring = preloaded()
    for name, rule, calls, say, expected, on_main in CASES:
        got = run_case(measuring, rule, calls, say)
        shown = got.get("message", got.get("reason", got.get("stderr", "")))
        print(f"{name:26s} {got['outcome']:9s} {got['seconds']:6.1f}s  (expected {expected}, main: {on_main})  "
              f"{str(shown)[-100:]}", flush=True)
    measuring.close()


def test_example_builds_a_string_the_pattern_matches_or_none() -> None:
    # Guard probes call a forbidden `matches` condition with this string (a sound `matches` guard must fire).
    from coworkenv.spec_regex import example, search

    for pattern in (r"(?i)plat[\W_]*108", r"\+40[\W_]*635", r"^a(b|c)+\d{3}$", r"[^x]y", r"(?:ops|inc).?7"):
        text = example(pattern)
        assert text is not None and search(pattern, text) is not None, pattern
    assert example(r"(a)\1") is None  # a backreference: no guess
    # Its check against the guess runs past the time bound: about 5 s of CPU against the 1 s bound (`(a+)+` * 200
    # needed about 1.0 s, so whether it ran past the bound depended on the machine's load).
    assert example("(a+a+a+a+)+" * 90) is None
