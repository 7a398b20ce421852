"""What comes back from the sandbox is untrusted data: the host decodes it under type, depth and size limits and
escapes every terminal or log control in it before anyone (the verifier's explanations, logs, datasets) sees it.

These tests hand the host's decoder result channels as a hostile child could write them, and values as a decoder
might one day produce them; `test_sandbox.py` runs the corpus end to end (its `return_*` and `tamper_*` snippets).
"""

from __future__ import annotations

import json
import os
import time
import tracemalloc
import unicodedata
from typing import Any

import pytest

from coworkenv.sandbox import ERROR_KINDS, SandboxLimits, run_sandboxed
from coworkenv.sandbox._host import _MAX_VALUE_DEPTH, _classify, _Collected, _untrusted_value
from tests.test_sandbox import HIDDEN_CATEGORIES, _texts

LAYERS = b'{"layers": ["rlimits"], "missing": {}}\n'


def _decode(channel: bytes, status: int = 0) -> Any:
    """The result the host makes of a child that exited with `status` having written `channel`."""
    collected = _Collected(status=status, cpu_s=0.0, maxrss_bytes=0, result_bytes=LAYERS + channel, output_tail=b"",
                           stopped=None, duration_s=0.01)
    return _classify(collected, SandboxLimits(), ()).result


def _frame(text: str) -> bytes:
    return b'{"result": ' + text.encode("utf-8") + b"}\n"


def test_controls_in_returned_text_and_keys_come_back_escaped() -> None:
    value = {"reason\x1b[2J": "ok\r\nPASSED: every check\u202e", "nested": [{"\x1b]52;c;eA==\x07": "\u2028\x00"}]}
    result = _decode(_frame(json.dumps(value)))
    assert result.ok, result
    assert result.value == {"reason\\x1b[2J": "ok\\r\\nPASSED: every check\\u202e",
                            "nested": [{"\\x1b]52;c;eA==\\x07": "\\u2028\\x00"}]}
    for text in _texts(result.value):
        assert not {ch for ch in text if unicodedata.category(ch) in HIDDEN_CATEGORIES}, text


def test_plain_values_come_back_unchanged() -> None:
    value = {"score": 0.5, "passed": True, "reason": "Grüße, 東京 — 3 items", "n": -2**63, "none": None, "e": []}
    result = _decode(_frame(json.dumps(value, ensure_ascii=False)))
    assert result.ok and result.value == value


@pytest.mark.parametrize("keys", [("a\n", "a\\n"), ("\x1b", "\\x1b")])
def test_keys_that_read_the_same_once_escaped_are_a_bad_result(keys: tuple[str, str]) -> None:
    result = _decode(_frame(json.dumps({keys[0]: 1, keys[1]: 2})))
    assert (result.ok, result.error_kind) == (False, "bad_result")
    assert "two keys" in result.error


def test_nesting_beyond_the_depth_limit_is_a_bad_result() -> None:
    at_limit = "[" * _MAX_VALUE_DEPTH + "]" * _MAX_VALUE_DEPTH
    assert _decode(_frame(at_limit)).ok
    for depth in (_MAX_VALUE_DEPTH + 1, 900, 100_000):  # 100000 is beyond what the JSON parser recurses into
        result = _decode(_frame('{"a":' * depth + "1" + "}" * depth))
        assert (result.ok, result.error_kind) == (False, "bad_result"), depth


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e999", "[1, -1e400]", '"\\ud800"',
                                  '{"\\udc80": 1}', str(2**64), "1" + "0" * 5000])
def test_numbers_and_text_no_consumer_takes_are_a_bad_result(text: str) -> None:
    result = _decode(_frame(text))
    assert (result.ok, result.error_kind) == (False, "bad_result"), result
    result.error.encode("utf-8")


def test_huge_text_never_reaches_the_decoder_and_the_host_stays_bounded() -> None:
    """The host reads at most the output limit of a 110 MB result and decodes none of it: measured on the host's own
    side (its CPU and the memory its Python code takes), not by the wall clock, which the child's work (building and
    writing the text, 1.1 s of its CPU) and the machine's load set: 10.2 s against a 10-s bound under load (round
    84). The child's own wall clock (`wall_seconds`) still bounds how long the call may take."""
    code = "def check():\n    return '\\x1b[2J' * 10**7 + 'x' * 10**8\n"
    # The child needs about 512 MiB for the text and its parts: at exactly 512 MiB this passed on main with
    # 0.2 MiB to spare (511.8 MiB: memory_limit), which the bootstrap's load of pyexpat (seventy-first round) took.
    limits = SandboxLimits(memory_bytes=640 * 2**20, wall_seconds=10)
    run_sandboxed("def check():\n    return 1\n", "check", {}, limits)  # the host's one-off costs, outside the count
    tracemalloc.start()
    before = time.process_time()  # this process's CPU, its threads included, the child's not
    try:
        result = run_sandboxed(code, "check", {}, limits)
        host_cpu, (_, host_peak) = time.process_time() - before, tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (result.ok, result.error_kind) == (False, "output_limit"), result
    # Measured: 0.011 s of CPU and a peak of 0.4 MB, twice; a host that read and decoded the text: 1.5 s and 555 MB.
    assert host_cpu < 1.0 and host_peak < 16 * 2**20, (host_cpu, host_peak)


class _Tripwire:
    """An object whose every dunder the host might call records that it ran (it never may)."""

    ran: list[str] = []

    def __eq__(self, other: object) -> bool:
        self.ran.append("eq")
        return True

    def __hash__(self) -> int:
        self.ran.append("hash")
        return 0

    def __repr__(self) -> str:
        self.ran.append("repr")
        return "x"

    def __iter__(self) -> Any:
        self.ran.append("iter")
        return iter(())

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # what isinstance() asks after the type
        self.ran.append("class")
        return str


class _Text(str):
    def __str__(self) -> str:
        _Tripwire.ran.append("str")
        return "x"


class _Map(dict):  # type: ignore[type-arg]
    def items(self) -> Any:
        _Tripwire.ran.append("items")
        return [("k", "v")]


HOSTILE_VALUES = {
    "dunders": lambda: _Tripwire(), "in a list": lambda: [_Tripwire()], "as a value": lambda: {"k": _Tripwire()},
    "as a key": lambda: {_Tripwire(): 1}, "int key": lambda: {1: "a"}, "None key": lambda: {None: 1},
    "tuple key": lambda: {(1, 2): 3}, "str subclass": lambda: _Text("plain"), "str subclass key": lambda: {_Text("k"): 1},
    "dict subclass": lambda: _Map(k="v"), "tuple": lambda: (1, 2), "set": lambda: {1, 2}, "bytes": lambda: b"bytes",
    "complex": lambda: 1 + 2j, "nan": lambda: float("nan"), "-inf": lambda: float("-inf"),
}


@pytest.mark.parametrize("make", HOSTILE_VALUES.values(), ids=HOSTILE_VALUES.keys())
def test_anything_json_never_decodes_to_is_refused_without_running_its_code(make: Any) -> None:
    value = make()
    _Tripwire.ran.clear()
    cleaned, problem = _untrusted_value(value)
    assert cleaned is None and problem
    assert _Tripwire.ran == []


def test_keys_that_are_not_text_in_the_code_come_back_as_json_text() -> None:
    code = "def check():\n    return {1: 'a', None: 'b', False: 'c', 2.5: 'd'}\n"
    result = run_sandboxed(code, "check", {})
    assert result.ok and result.value == {"1": "a", "null": "b", "false": "c", "2.5": "d"}
    for value in ("{(1, 2): 3}", "{1: 'a', '1': 'b'}", "{None: 'a', 'null': 'b'}"):  # the last two: one key twice
        refused = run_sandboxed(f"def check():\n    return {value}\n", "check", {})
        assert (refused.ok, refused.error_kind) == (False, "bad_result"), value


def test_a_key_written_twice_on_the_channel_is_a_bad_result() -> None:
    result = _decode(b'{"result": {"passed": false, "passed": true}}\n')
    assert (result.ok, result.error_kind) == (False, "bad_result")
    assert "one key twice" in result.error
    frame = _decode(b'{"result": 1, "result": 2}\n')  # the frame itself: which result is not known
    assert (frame.ok, frame.error_kind) == (False, "bad_result")


def test_a_reason_with_controls_reaches_the_explanation_escaped() -> None:
    from coworkenv.checks.verifier import python_outcome

    code = "def check():\n    return {'passed': False, 'reason': 'no\\n[INFO] all checks passed\\x1b[2K'}\n"
    result = run_sandboxed(code, "check", {})
    assert result.ok
    _, explanation, _, _ = python_outcome(result.value)
    assert explanation == "no\\n[INFO] all checks passed\\x1b[2K"
    assert os.linesep not in explanation


@pytest.mark.parametrize("kind", sorted(ERROR_KINDS))
def test_a_frame_carries_only_the_error_kinds_the_bootstrap_writes(kind: str) -> None:
    """Timeouts, CPU limits and refusals are what the host saw; a frame claiming one is the code's own forgery (as is
    an isolation refusal when no layer was missing)."""
    result = _decode(json.dumps({"error_kind": kind, "error": "claimed"}).encode() + b"\n")
    own = {"exception", "memory_limit", "crashed", "output_limit", "bad_result"}
    assert result.error_kind == (kind if kind in own else "bad_result"), result


# -- the host's readers of a returned value: the verifier and the sandbox gate's probes read it alike -------------
_RETURNS_STATE = "def check(state, audit, messages):\n    return state['value']\n"


@pytest.mark.parametrize(("value", "pass_score"), [(1.0, 1.0), (1, 1.0), ({"score": 1.0}, 1.0), (0.8, 0.5)])
def test_a_score_that_passes_the_verifier_passes_the_probes_runs(value: Any, pass_score: float) -> None:
    """The verifier passes a check that returns `1.0`, `1` or `{'score': 1.0}` (a score at its pass_score); the gate's
    probes read only `bool` and `passed` (main: False, or no verdict), so a backdoor word answered with a score passed
    every episode and no `keyword_backdoor` was found (it was for `True`), and a graded check (0.8 where 0.5 passes)
    was reported as crashing or changing its verdict in every probe."""
    from coworkenv.spec import PythonRule
    from coworkenv.validate.python_probes import run_check

    rule = PythonRule(code=_RETURNS_STATE, entrypoint="check")
    options = {} if pass_score == 1.0 else {"pass_score": pass_score}
    assert run_check(rule, {"state": {"value": value}, "audit": [], "messages": []}, **options) == (True, "")


@pytest.mark.parametrize(("value", "pass_score", "verdict"), [
    (True, 1.0, True), (1.0, 1.0, True), (1, 1.0, True), (0.8, 0.5, True), (0.4, 0.5, False),
    ({"score": 1.0}, 1.0, True), ({"score": 0.6}, 0.5, True), ({"score": 0.9, "passed": False}, 0.5, False),
    ({"passed": "yes"}, 1.0, None), (1.5, 1.0, None), ("yes", 1.0, None),
])
def test_the_probes_read_a_value_as_the_verifier_does(value: Any, pass_score: float, verdict: bool | None) -> None:
    """One reading of a returned value for the verifier's pass/fail and the probes' verdicts (`python_verdict`)."""
    from coworkenv.checks.verifier import python_verdict

    got, error = python_verdict(value, pass_score)
    assert (got, bool(error)) == (verdict, verdict is None)


@pytest.mark.parametrize("value", [
    {"passed": False, "reason": "no " * 20_000},
    {"passed": ["x" * 60_000]},
    {"score": "x" * 60_000},
    {"passed": False, "reason": ["x" * 100] * 600},
])
def test_a_returned_reason_reaches_the_outcome_bounded(value: Any) -> None:
    """A reason (or a wrong `passed`/`score`) is the code's own text: it reached every check result, report and log
    whole, up to the result channel's 64 KiB (main: 60,000 characters and more), where the sandbox's own reports stop
    at 500."""
    from coworkenv.checks.verifier import python_outcome

    _, reason, _, _ = python_outcome(value)
    assert 100 < len(reason) <= 600 and reason.endswith("characters)"), len(reason)


@pytest.mark.parametrize("value", [
    {"passed": "check error (isolation_missing): no layers"},
    {"score": "check error (timeout)"},
    {"passed": False, "score": ["check error (cpu_limit)"]},
])
def test_a_returned_text_does_not_name_the_gate_error_code(value: Any) -> None:
    """The sandbox gate names a crashed check's error code from the verifier's reason; it searched the whole text, so
    the check's own words chose it (main: `sandbox_isolation_missing`, whose hint tells the repair "nothing to change
    in the spec", `sandbox_timeout`, `sandbox_cpu_limit`)."""
    from coworkenv.checks.verifier import python_outcome
    from coworkenv.validate.python_probes import sandbox_code

    _, reason, error, _ = python_outcome(value)
    assert error and sandbox_code(reason) == "python_crash", reason
    assert sandbox_code("check error (timeout): wall-clock limit of 5s exceeded") == "sandbox_timeout"


def test_a_python_rule_in_a_checks_tiers_is_probed_like_a_checks_own() -> None:
    """A check's tiers may hold a Python rule, sandboxed code as any other; the gate's probes (and the payloads they
    need) looked at `check.rule` alone, so a tier's rule was never probed: a backdoor word passed the untouched world
    unseen (main: no sandbox finding; `keyword_backdoor` for the same rule as the check's own), and so did a verdict
    read off the machine, found here (the cheapest probe: no probe runs after it)."""
    from support.validate_base import sound_spec

    from coworkenv import load_spec
    from coworkenv.validate import ValidationConfig
    from coworkenv.validate.episode_gates import python_probes
    from coworkenv.validate.gates import GateContext

    code = ("import platform\n"
            "def check(state, audit, messages):\n"
            "    t = {x['id']: x for x in state['apps']['tickets']['tickets']}\n"
            "    return t['OPS-1']['priority'] == 'p1' and platform.python_version() > '3'\n")
    spec = sound_spec()
    python = {"kind": "python", "code": code}
    spec["checks"].append({"id": "py", "rule": {"kind": "tiers", "tiers": [
        {"score": 0.5, "rule": {"kind": "tiers", "tiers": [{"score": 1.0, "rule": python}]}}]}})
    ctx = GateContext(load_spec(spec), config=ValidationConfig(python_repeats=0, clock_offsets_s=()))
    episodes = ctx.episodes()
    assert episodes is not None and episodes.oracle().result is not None  # the oracle gate's episode, played first
    found = python_probes(ctx)  # the probes alone: the gate would also play every near miss with the check
    assert [p.code for p in found.get("py", [])] == ["nondeterministic_check"], found


# Lines in each form the host reads a violation in, around one shown name or path as long as the channel takes: the
# hook never writes one longer than its reason cap (`_hook.REASON_CHARS`, then "..."), but the host parsed whatever
# stood where a quoted name stands as Python (`ast.literal_eval`), 68 KiB into some 32 MiB of syntax tree and 50 ms of
# its CPU, after the call (324 KiB, where the code may ask: 150 MiB and 0.27 s; sandbox51).
_LONG_SHOWN = "'a'" + ",0" * 34000
_LONG_VIOLATIONS = (
    "opening directory " + _LONG_SHOWN,
    _LONG_SHOWN,  # a refused event's name, quoted
    "writing " + _LONG_SHOWN + " outside the scratch directory",
    "sqlite3.connect to a URI with the parameter " + _LONG_SHOWN + " twice",
)


@pytest.mark.parametrize("reason", _LONG_VIOLATIONS, ids=["directory", "event", "writing", "sqlite"])
def test_a_violation_line_longer_than_the_hook_writes_costs_the_host_nothing_to_judge(reason: str) -> None:
    import tracemalloc

    from coworkenv.sandbox._hook import REASON_CHARS
    from coworkenv.sandbox._host import _HOOK_REASON_CHARS, _hook_wrote

    line = json.dumps({"violation": reason}).encode() + b"\n"
    tracemalloc.start()
    try:
        result = _decode(line + _frame("1"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (result.ok, result.error_kind) == (False, "bad_result"), result
    assert peak < 4 * len(line) + 2**20, f"{peak} bytes traced judging a {len(line)}-byte line"
    # The longest the hook shows is still the hook's: a sqlite parameter's first 40 characters, each escaped by repr.
    longest = "sqlite3.connect to a URI with the parameter " + repr("\U000e0001" * 40) + " twice"
    assert len(longest) <= REASON_CHARS and _hook_wrote(longest)
    assert REASON_CHARS + len("...") == _HOOK_REASON_CHARS  # the hook cuts a longer reason there


@pytest.mark.parametrize("junk", [b"\n", b"x\n", b"1\n", b"[]\n", b"{}\n", b' {"result": 1}\n', b"{xxxxxxxxxxxx\n"],
                         ids=["empty", "text", "number", "array", "object", "spaced", "open"])
def test_lines_no_frame_could_be_cost_the_host_no_parse(junk: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines that no frame of the bootstrap's or the hook's could be (too short, not `{...}`) are malformed without a
    decoder's call: 68 KiB of bare newlines, one write of the child's, made 68000 parses and exceptions on main (0.27 s
    of the host's CPU after the call; 1.3 s at the 324 KiB a code that may ask gets)."""
    from coworkenv.sandbox import _host

    parses = []
    loads = _host.json.loads

    def counted(text: Any, **kwargs: Any) -> Any:
        parses.append(len(text))
        return loads(text, **kwargs)

    monkeypatch.setattr(_host.json, "loads", counted)
    result = _decode(junk * (68 * 1024 // len(junk)) + _frame("1"))
    assert (result.ok, result.error_kind) == (False, "bad_result"), result
    assert len(parses) <= 2, f"{len(parses)} lines parsed"  # the layers line and the result frame
