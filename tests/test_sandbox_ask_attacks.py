"""Attacks on the sandbox's way out (`run_sandboxed(..., ask=handler)`), each class measured against main first.

- the host's work on requests it refuses (too many, not texts, not JSON) stopped the wall clock as a judge's answer
  does: refused requests are unbounded in number, so a code kept asking for them ran past its wall clock for as long
  as its CPU limit let it write (4.6 s under a 1 s clock, the handler called only 16 times);
- a judge that failed told the code its URL, port, model, retry policy and the server's error body;
- an answer whose JSON frame outgrew the answer channel's room (control characters escape to six bytes each) stopped
  the run as if the code had asked without reading;
- a code need not wait in read() while the host answers: it kept working while its clock was stopped (0.3-0.4 s of
  CPU during a 1 s answer; 70 MB written into a 4 MiB scratch where no tmpfs caps it, the host's scratch watch busy).
"""

from __future__ import annotations

import http.server
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from coworkenv.checks.judge import JUDGE_LIMITS, judge_asker, judge_backend
from coworkenv.sandbox import SandboxLimits, _execute, run_sandboxed
from tests.test_sandbox_ask import _ASKS

# The code writes the same request line for 30 s of its wall clock, reading each answer: the host must not let the
# time it spends refusing them stop the clock (only its handler's answers do). With the clock stopped while the host
# refused, a 1 s clock let such a code run its whole loop; 30 s (not the 3 s of the first version, which a loaded
# machine's start-up alone could approach) keeps the two outcomes apart under any load.
_SPAM = r'''
import posix, time
def check(line):
    line = line.encode("utf-8", "surrogateescape")
    began, sent = time.monotonic(), 0
    while time.monotonic() - began < 30.0:
        posix.write(3, line)
        posix.read(4, 65536)
        sent += 1
    return sent
'''
_MANY_KEYS = '{"ask":{' + ",".join(f'"k{i}":""' for i in range(20000)) + "}}\n"  # texts, refused by count
_NOT_TEXTS = '{"ask":{' + ",".join(f'"k{i}":[{i}]' for i in range(20000)) + "}}\n"  # parsed, then refused
_ESCAPES = '{"ask":{"k":"' + "\\u00e9" * 40000 + '"}}\n'  # one text of escapes, refused by count
_BAD_UTF8 = '{"ask":{"k":"' + "é" * 100000 + '\udcff"}}\n'  # not UTF-8 (its last byte): refused undecoded


@pytest.mark.parametrize("line", [_MANY_KEYS, _NOT_TEXTS, _ESCAPES, _BAD_UTF8],
                         ids=["many-keys", "not-texts", "escapes", "bad-utf8"])
def test_refusing_requests_does_not_stop_the_wall_clock(line: str) -> None:
    calls: list[dict[str, str]] = []
    limits = SandboxLimits(wall_seconds=1.0, cpu_seconds=10, max_asks=16)
    began = time.monotonic()
    result = run_sandboxed(_SPAM, "check", {"line": line}, limits, ask=lambda request, left: calls.append(request) or "x")
    elapsed = time.monotonic() - began
    assert result.error_kind == "timeout", (result, elapsed)
    assert elapsed < 15.0, elapsed  # the 1 s clock plus start-up (under any load), not the code's 30 s
    assert len(calls) <= 16


def test_the_handlers_own_time_still_stops_the_clock() -> None:
    """The other side of the bound: what the handler takes is not the code's time."""
    def slow(request: dict[str, str], left: float) -> str:
        time.sleep(0.4)
        return "ok"
    result = run_sandboxed("def check():\n    return [ask_host({'u': 'a'}) for _ in range(4)]\n", "check", {},
                           SandboxLimits(wall_seconds=1.0), ask=slow)
    assert result.ok and result.value == ["ok"] * 4, result


_ASK_ONCE = ("def check():\n    try:\n        return ask_host({'user': 'hi'})\n"
             "    except RuntimeError as exc:\n        return str(exc)\n")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Failing(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = b'{"error": "bad request: config /srv/judge/secret-config.yaml, token JUDGE-INTERNAL-7731"}'
        self.send_response(400)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def failing_server() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Failing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def test_a_judge_that_cannot_be_reached_tells_the_code_only_that(caplog: pytest.LogCaptureFixture) -> None:
    port = _closed_port()
    backend = judge_backend(f"http://127.0.0.1:{port}/v1", "judge-model-x")
    assert backend is not None
    result = run_sandboxed(_ASK_ONCE, "check", {}, JUDGE_LIMITS, ask=judge_asker(backend))
    assert result.ok, result
    assert result.value.startswith("the host refused: the judge did not answer"), result.value
    for detail in (str(port), "127.0.0.1", "judge-model-x", "attempts", "ClientConnectorError"):
        assert detail not in result.value
    assert str(port) in caplog.text  # the operator still reads why, in the host's log


def test_a_judge_servers_error_body_stays_in_the_host(failing_server: int, caplog: pytest.LogCaptureFixture) -> None:
    backend = judge_backend(f"http://127.0.0.1:{failing_server}/v1", "judge-model-x")
    assert backend is not None
    result = run_sandboxed(_ASK_ONCE, "check", {}, JUDGE_LIMITS, ask=judge_asker(backend))
    assert result.ok, result
    assert result.value.startswith("the host refused: the judge did not answer"), result.value
    for detail in ("secret-config", "JUDGE-INTERNAL-7731", str(failing_server), "judge-model-x", "HTTP 400"):
        assert detail not in result.value
    assert "JUDGE-INTERNAL-7731" in caplog.text


_LENGTH = "def check():\n    return len(ask_host({'user': 'hi'}).encode())\n"


@pytest.mark.parametrize(("limits", "text"), [
    (JUDGE_LIMITS, "\x01" * 2**14),  # each escapes to \u0001: 96 KiB on the channel for a 16 KiB answer
    (SandboxLimits(), "".join(chr(i % 32) for i in range(2**16))),  # every control character, the default limits
    (JUDGE_LIMITS, "\x1b[2J" * 2**12),  # an answer that is all terminal escapes
])
def test_an_answer_that_escapes_long_on_the_channel_is_cut_not_blamed_on_the_code(
        limits: SandboxLimits, text: str) -> None:
    result = run_sandboxed(_LENGTH, "check", {}, limits, ask=lambda request, left: text)
    assert result.ok, result
    assert 0 < result.value <= limits.max_answer_bytes


# The code asks, then works until its answer is there instead of waiting for it: what it did while the host answered.
_WORK_WHILE_ASKING = r'''
import os, posix, time
def check(disk):
    os.set_blocking(4, False)
    posix.write(3, b'{"ask":{"user":"a"}}\n')
    cpu, wrote = time.thread_time(), 0
    while True:
        try:
            posix.read(4, 65536)
            return [time.thread_time() - cpu, wrote]
        except BlockingIOError:
            pass
        if disk:
            with open(f"f{wrote}", "wb") as f:
                wrote += f.write(b"x" * 65536)
'''
DEGRADED = frozenset({"netns", "timens", "pidns", "mountns", "cgroup", "uid"})  # no tmpfs scratch: the host watches it


@pytest.mark.parametrize("disk", [False, True], ids=["cpu", "scratch-without-tmpfs"])
def test_the_code_stops_while_the_host_answers(disk: bool) -> None:
    def slow(request: dict[str, str], left: float) -> str:
        time.sleep(1.0)
        return "ok"
    limits = SandboxLimits(wall_seconds=3, cpu_seconds=5, scratch_bytes=2**30)  # no scratch stop: count it all
    result = _execute(_WORK_WHILE_ASKING, "check", {"disk": disk}, limits, disable=DEGRADED if disk else frozenset(),
                      ask=slow).result
    assert result.ok, result
    cpu_s, wrote = result.value
    assert cpu_s < 0.15, cpu_s  # on main, 0.3-0.4 s of the 1 s answer
    # On main, 70 MB (the whole second of the answer). Stopped, it is 64-450 KiB on a quiet machine; a host process
    # kept off the CPU for a few ms on a loaded one lets the code write more before the stop (8.06 MB once in a fresh
    # clone's suite, 2026-12-06): a quarter-second of work is still far from the whole answer.
    assert wrote < 24 * 2**20, wrote


# What the stop and the resume tell the code: SIGSTOP nothing; a kill()'s SIGCONT its sender's pid and uid, read
# back with sigtimedwait after blocking SIGCONT (no audit event). Measured on this round's first stop, which resumed
# with kill(): [18, <the host's pid>, 0] in the full, degraded and kernel-only sets (main sent no signal).
_WHO_RESUMED_ME = r'''
import signal
def check():
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCONT})
    ask_host({"user": "a"})
    info = signal.sigtimedwait({signal.SIGCONT}, 0)
    return None if info is None else [info.si_pid, info.si_uid]
'''


@pytest.mark.parametrize("disable", [frozenset(), DEGRADED, DEGRADED | {"hook"}], ids=["full", "degraded", "kernel"])
def test_the_resume_does_not_name_the_host(disable: frozenset[str]) -> None:
    result = _execute(_WHO_RESUMED_ME, "check", {}, SandboxLimits(), disable=disable, ask=lambda r, left: "x").result
    assert result.ok, result
    assert result.value in (None, [0, 0]), result.value  # never the host's pid


# The kernel signals the host on the code's behalf: the host writes each answer on the answer channel (fd 4), and a
# write to a socket whose reader is gone raises SIGPIPE in the writer before it fails with EPIPE. The code chose when:
# it closed fd 4, put another file over it, shut it down for reading (native code) or wrote its request itself and
# dropped the channel, then asked. A host whose SIGPIPE is at its default action (an embedding that keeps Python's
# signal set-up out, a command line restoring it for `| head`) died of it, and whatever it ran with it (measured on
# main: SIGPIPE in the host in all 10 runs below; the test host, like any Python, ignores it, so a handler records it).
# A close of fd 4 now returns without closing (a channel's number is never freed), so the code reads its answer there;
# a file put over fd 4 still drops the reader.
_DROP_THE_ANSWER_CHANNEL = {
    "close-then-ask": "    os.close(4)\n",
    "dup2-over-then-ask": "    os.dup2(os.open('over', os.O_CREAT | os.O_WRONLY), 4)\n",
    "raw-request-without-a-reader": "    os.dup2(os.open('over', os.O_CREAT | os.O_WRONLY), 4)\n"
                                    "    posix.write(3, b'{\"ask\":{\"user\":\"x\"}}\\n')\n"
                                    "    time.sleep(0.5)\n",
    "shutdown-for-reading-then-ask": "    import ctypes\n    ctypes.CDLL(None).shutdown(4, 0)\n",
}
_DROP_SETS = {"full": frozenset(), "degraded": DEGRADED, "kernel": DEGRADED | {"hook"}}


@pytest.mark.parametrize(("how", "layers"), [
    (how, layers) for how in _DROP_THE_ANSWER_CHANNEL for layers in _DROP_SETS
    if layers == "kernel" or "ctypes" not in _DROP_THE_ANSWER_CHANNEL[how]])
def test_a_code_that_drops_its_answer_channel_signals_nothing_to_the_host(how: str, layers: str) -> None:
    code = ("import os, posix, time\ndef check():\n" + _DROP_THE_ANSWER_CHANNEL[how]
            + "    try:\n        return ask_host({'user': 'x'})\n    except (RuntimeError, OSError) as exc:\n"
              "        return type(exc).__name__\n")
    answered: list[dict[str, str]] = []
    received: list[int] = []
    previous = signal.signal(signal.SIGPIPE, lambda signum, _frame: received.append(signum))
    try:
        outcome = _execute(code, "check", {}, SandboxLimits(), disable=_DROP_SETS[layers],
                           ask=lambda request, left: answered.append(request) or "the answer")
        time.sleep(0.05)  # a signal is handled between bytecodes: let it land
    finally:
        signal.signal(signal.SIGPIPE, previous)
    assert answered, outcome  # the host did answer, into a channel no one reads
    assert not received, f"the code made the kernel send the host SIGPIPE: {outcome}"  # on main: SIGPIPE
    assert outcome.result.ok, outcome


def test_a_host_whose_sigpipe_is_at_its_default_action_survives_a_dropped_answer_channel(tmp_path: Path) -> None:
    """The same from a host that never ignored SIGPIPE (on main: it died of the signal, status -13)."""
    script = tmp_path / "host.py"
    script.write_text(
        "import signal, sys\nsignal.signal(signal.SIGPIPE, signal.SIG_DFL)\n"
        "from coworkenv.sandbox import run_sandboxed\n"
        "result = run_sandboxed('import os\\ndef check():\\n    os.dup2(os.open(\"o\", os.O_CREAT | os.O_WRONLY), 4)\\n'"
        "                       '    try:\\n        ask_host({\"u\": \"x\"})\\n'"
        "                       '    except OSError:\\n        return 1\\n', 'check', {}, ask=lambda r, left: 'a')\n"
        "print('host alive', result.ok, result.value)\n")
    repo = str(Path(__file__).resolve().parents[1])
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, cwd=repo,
                          env={**os.environ, "PYTHONPATH": repo})
    assert done.returncode == 0 and "host alive True 1" in done.stdout, (done.returncode, done.stdout, done.stderr)


# A handler that ignores the seconds it is given: the host waited for it however long it took, with the code stopped
# and its wall clock with it, so the call (and the host's caller: a verification, an episode) outlived its
# `ask_seconds` by whatever the handler took (a judge's client waits up to 2 x 120 s for a slow server). Each handler
# below blocks until the test releases it, after the call; measured on main, each call lasted until the release.
_HELD_S = 20.0  # how long a held handler waits at most: main's calls lasted this long
_ASK_THEN_SPIN = _ASKS.replace("    return out\n", "    while True:\n        pass\n")
_SPENT = "refused: the host refused: the call's {:g}s for requests are spent"


@pytest.fixture
def release() -> Iterator[threading.Event]:
    event = threading.Event()
    try:
        yield event
    finally:
        event.set()  # a handler the host stopped waiting for ends now, its answer dropped


def _held(release: threading.Event, calls: list[str], quick: int = 0) -> Any:
    """A handler that answers its first `quick` requests at once and then holds each until `release`."""
    def ask(request: dict[str, str], left: float) -> str:
        calls.append(request["user"])
        if len(calls) > quick:
            release.wait(_HELD_S)
        return "late" if len(calls) > quick else "ok"
    return ask


@pytest.mark.parametrize(("quick", "expected"), [
    (0, [_SPENT.format(2), _SPENT.format(2)]),  # the first request overruns: every later one is refused
    (2, ["ok", "ok", _SPENT.format(2), _SPENT.format(2)]),  # the budget's last part overrun (2 s: room for the
], ids=["first-request", "after-answers"])                  # quick answers on a loaded machine)
def test_a_handler_that_overruns_the_budget_is_not_waited_for(
        release: threading.Event, quick: int, expected: list[str]) -> None:
    calls: list[str] = []
    limits = SandboxLimits(ask_seconds=2.0, wall_seconds=10)
    began = time.monotonic()
    result = run_sandboxed(_ASKS, "check", {"requests": [{"user": str(i)} for i in range(quick + 2)]}, limits,
                           ask=_held(release, calls, quick))
    elapsed = time.monotonic() - began
    assert elapsed < _HELD_S / 2, elapsed  # on main: until the handler was released (20 s)
    assert result.ok, result
    assert result.value == expected
    assert len(calls) == quick + 1  # the request after the overrun never reached the handler


def test_the_wall_clock_runs_again_after_an_overrun(release: threading.Event) -> None:
    """Once the host stops waiting, the code is resumed on its own clock: a code that then spins times out."""
    calls: list[str] = []
    began = time.monotonic()
    result = run_sandboxed(_ASK_THEN_SPIN, "check", {"requests": [{"user": "a"}]},
                           SandboxLimits(ask_seconds=0.5, wall_seconds=1.0, cpu_seconds=10), ask=_held(release, calls))
    elapsed = time.monotonic() - began
    assert result.error_kind == "timeout", result
    assert elapsed < _HELD_S / 2, elapsed  # on main: the handler's 20 s, then the clock


class _Slow(http.server.BaseHTTPRequestHandler):
    """A judge server that answers only once the test releases it (a judge swamped by other work)."""
    release = threading.Event()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.release.wait(_HELD_S)
        body = (b'{"choices": [{"message": {"role": "assistant", "content": "score: 1"}, "finish_reason": "stop"}],'
                b' "usage": {"prompt_tokens": 1, "completion_tokens": 1}}')
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_slow_judge_does_not_hold_the_check_past_its_budget() -> None:
    """The judge's client waits up to 2 x 120 s whatever the call has left; the check's budget bounds it now."""
    _Slow.release.clear()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        backend = judge_backend(f"http://127.0.0.1:{server.server_address[1]}/v1", "judge-model-x")
        assert backend is not None
        limits = replace(JUDGE_LIMITS, ask_seconds=1.0)
        began = time.monotonic()
        result = run_sandboxed(_ASKS, "check", {"requests": [{"user": "grade this"}] * 2}, limits,
                               ask=judge_asker(backend))
        elapsed = time.monotonic() - began
    finally:
        _Slow.release.set()
        server.shutdown()
        server.server_close()
    assert elapsed < _HELD_S / 2, elapsed  # on main: until the server answered (20 s)
    assert result.ok, result
    assert result.value == [_SPENT.format(1.0)] * 2


# The request the host stopped waiting for went on: the judge's client waited for the server (2 x 120 s) in a daemon
# thread, holding the verification's judge seconds and a connection, after its call had returned (measured on main:
# the thread lived until the server answered, 20 s here, the seconds held as long). The judge's request is bounded
# by the seconds the sandbox gives it now, and ends with them.
def test_a_judge_request_the_host_stopped_waiting_for_ends_with_its_seconds() -> None:
    from coworkenv.checks.judge import JudgeBudget

    _Slow.release.clear()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    before = {t.ident for t in threading.enumerate()}
    budget = JudgeBudget(4, 10.0)
    try:
        backend = judge_backend(f"http://127.0.0.1:{server.server_address[1]}/v1", "judge-model-x")
        assert backend is not None
        result = run_sandboxed(_ASKS, "check", {"requests": [{"user": "grade this"}]},
                               replace(JUDGE_LIMITS, ask_seconds=1.0), ask=judge_asker(backend, budget=budget))
        returned = time.monotonic()

        def running() -> list[threading.Thread]:
            return [t for t in threading.enumerate() if t.name == "sandbox-ask" and t.ident not in before]

        while running() and time.monotonic() - returned < 5:
            time.sleep(0.05)
        left, held = running(), budget.seconds_left
    finally:
        _Slow.release.set()
        server.shutdown()
        server.server_close()
    assert result.ok and result.value == [_SPENT.format(1.0)], result
    assert not left, "the judge's request outlived its call by 5 s"  # on main: until the server answered (20 s)
    assert held > 8.5, held  # its unused seconds are the verification's again (on main: 9 s held for 20 s)


# Many judged checks in one spec: each sandboxed call has its own 16 requests and 300 s, so a spec asked its judge
# N x 16 times per episode scored, however large N (measured on main: 4 checks of 16 requests each, 64 requests; 48
# requests of 0.4 s each, 19.6 s of judge time, from 3 checks whose verification may use 1 s). A verification
# shares one budget.
_ASK_SIXTEEN = r'''
def check(state, audit, messages):
    answers = []
    for i in range(16):
        try:
            answers.append(ask_host({"user": "grade part %d" % i}))
        except RuntimeError as exc:
            answers.append(str(exc))
    return {"score": 0.5, "reason": answers[-1]}  # not a full score: its reason is kept
'''


class _CountingJudge:
    """A judge backend that counts the requests it answers, each after `delay_s`."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.delay_s, self.requests = delay_s, 0

    def complete_batch(self, requests: Any) -> list[Any]:
        from coworkenv.llm import LLMResponse
        self.requests += len(requests)
        time.sleep(self.delay_s)
        return [LLMResponse("score: 1", [], 1, 1, "stop", False, "counting-judge") for _ in requests]


def _judged_spec(checks: int, nested: bool) -> Any:
    from coworkenv import load_spec

    def rule(i: int) -> dict[str, Any]:
        python = {"kind": "python", "code": _ASK_SIXTEEN, "judge": True}
        return {"kind": "tiers", "tiers": [{"score": 1.0, "rule": python}]} if nested and i % 2 else python

    return load_spec({
        "capability": "judge_budget_test", "user": "u-me",
        "world": {"start": "2026-05-04T09:00:00Z", "apps": {"directory": {"people": [
            {"id": "u-me", "name": "Sam Ortega", "email": "me@acme.test", "team": "t-ops", "role": "Ops",
             "timezone": "Europe/Madrid"}]}}},
        "tools": ["mail_send"], "turns": [{"content": "Grade it."}], "reference": [{"steps": []}],
        "checks": [{"id": f"judged{i}", "rule": rule(i)} for i in range(checks)]})


@pytest.mark.parametrize("nested", [False, True], ids=["checks", "checks-in-tiers"])
def test_a_verification_asks_its_judge_within_one_budget(nested: bool) -> None:
    from coworkenv import Env
    from coworkenv.checks.judge import JUDGE_VERIFICATION_ASKS, judging

    judge = _CountingJudge()
    env = Env(_judged_spec(4, nested))
    env.reset()
    with judging(judge):  # type: ignore[arg-type]
        result = env.score()
    assert judge.requests == JUDGE_VERIFICATION_ASKS == 32, judge.requests  # on main: 64 (4 x 16)
    reasons = [c.reason for c in result.checks]
    assert sum("this verification's 32 judge requests are spent" in r for r in reasons) == 2, reasons
    again = Env(env.spec)  # another episode: a verification, and a budget, of its own
    again.reset()
    with judging(judge):  # type: ignore[arg-type]
        again.score()
    assert judge.requests == 64


def test_a_verification_asks_its_judge_within_one_time_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    from coworkenv import Env
    from coworkenv.checks import judge as judge_module

    monkeypatch.setattr(judge_module, "JUDGE_VERIFICATION_SECONDS", 1.0)
    judge = _CountingJudge(delay_s=0.4)
    env = Env(_judged_spec(3, False))
    env.reset()
    began = time.monotonic()
    with judge_module.judging(judge):  # type: ignore[arg-type]
        result = env.score()
    elapsed = time.monotonic() - began
    # 1 s of 0.4 s answers: two, and a third the host stops waiting for (a slower machine fits fewer); a later check
    # starts one more only where the host's own overhead left it 50 ms or more
    assert 1 <= judge.requests <= 5, judge.requests  # on main: 48 (3 x 16, 19.6 s)
    reasons = [c.reason for c in result.checks]
    assert all("spent" in r for r in reasons), reasons
    assert elapsed < 30, elapsed


# validate's probes of a judged Python check (repeats, seeds, pinned randomness, clocks ahead, paraphrases, literals):
# each probe was a sandboxed call of its own with the check's 16 requests and 300 s, outside any verification, so
# the probes of one judged check asked its judge 16 times per probe run, however many runs (measured on main below).
# The probes of a spec share one verification's budget now, and a judged check's probing stops where it is spent.
def _probe_context(code: str) -> Any:
    from support.validate_base import sound_spec

    from coworkenv.validate import ValidationConfig
    from coworkenv.validate.gates import GateContext

    spec = sound_spec()
    spec["checks"].append({"id": "judged", "rule": {"kind": "python", "code": code, "judge": True}})
    from coworkenv import load_spec
    return GateContext(load_spec(spec), config=ValidationConfig(python_repeats=1, clock_offsets_s=(366 * 86_400,)))


def test_validates_probes_of_a_judged_check_ask_within_one_verifications_budget() -> None:
    from coworkenv.checks.judge import JUDGE_VERIFICATION_ASKS, judging
    from coworkenv.validate.episode_gates import python_probes

    judge = _CountingJudge()
    ctx = _probe_context(_ASK_SIXTEEN)
    with judging(judge):  # type: ignore[arg-type]
        ctx.episodes().oracle()  # the episodes' own verifications (a budget each) are not counted here
        ctx.episodes().initial  # noqa: B018
        judge.requests = 0
        found = python_probes(ctx)
    assert judge.requests <= JUDGE_VERIFICATION_ASKS, judge.requests  # on main: 16 per probe run (hundreds)
    assert found == {"judged": []}, found


_ANSWERED = r'''
def check(state, audit, messages):
    try:
        return ask_host({"user": "did the agent do it?"}) == "score: 1"
    except RuntimeError:
        return False
'''


def test_a_judged_checks_probes_stop_where_the_budget_is_spent_without_a_false_defect(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A check whose verdict is the judge's answer: once the probes' budget is spent its runs are refused and their
    verdicts say nothing of the check (they would read as `nondeterministic_check`): probing it stops there."""
    from coworkenv.checks import judge as judge_module
    from coworkenv.validate.episode_gates import python_probes

    monkeypatch.setattr(judge_module, "JUDGE_VERIFICATION_ASKS", 3)
    judge = _CountingJudge()
    ctx = _probe_context(_ANSWERED)
    with judge_module.judging(judge):  # type: ignore[arg-type]
        ctx.episodes().oracle()
        ctx.episodes().initial  # noqa: B018
        judge.requests = 0
        found = python_probes(ctx)
    assert judge.requests == 3, judge.requests
    assert found == {"judged": []}, found


# A vLLM-offline judge generates in the host's own engine, which no one can stop midway, and takes turns on it behind
# a lock. The engine here is a test double that takes `per_token_s` for every token a request may generate (it answers
# at its full length) and records when each generation ran.
class _TimedEngine:
    def __init__(self, per_token_s: float) -> None:
        self.per_token_s, self.runs = per_token_s, []  # (start, end, max_tokens) per generation ended
        self.starts: list[float] = []

    def chat(self, conversations: Any, sampling_params: Any, tools: Any = None, use_tqdm: bool = False) -> list[Any]:
        from types import SimpleNamespace
        start = time.monotonic()
        self.starts.append(start)
        out = []
        for params in sampling_params:
            time.sleep(params.max_tokens * self.per_token_s)
            tokens = list(range(params.max_tokens))
            out.append(SimpleNamespace(prompt_token_ids=[1, 2, 3], outputs=[SimpleNamespace(
                text="score: 1 " + "x" * params.max_tokens, token_ids=tokens, finish_reason="length")]))
        self.runs.append((start, time.monotonic(), [p.max_tokens for p in sampling_params]))
        return out


@pytest.fixture
def timed_engine(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, _TimedEngine]]:
    """A vLLM-offline judge (`vllm-offline`) on a `_TimedEngine` of 5 ms a token: its 2048-token answers take 10 s."""
    import sys
    from types import ModuleType, SimpleNamespace

    from coworkenv.llm._vllm_offline import VLLMOfflineBackend

    fake = ModuleType("vllm")
    fake.SamplingParams = lambda **kwargs: SimpleNamespace(**kwargs)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", fake)
    engine = _TimedEngine(0.005)
    yield VLLMOfflineBackend("judge-model-x", llm=engine), engine


def _generations(engine: _TimedEngine, count: int) -> list[tuple[float, float, list[int]]]:
    """The engine's generations once there are `count` (waiting up to 15 s for those under way)."""
    deadline = time.monotonic() + 15
    while len(engine.runs) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return engine.runs


# A request the host stopped waiting for went on in the engine: its whole answer (10 s here) was generated after the
# call had returned at its 1 s (measured on main), the engine busy meanwhile for whoever else uses it (the agent under
# evaluation, the next check). Once the engine has shown its speed, a request may generate only what fits its seconds
# (more would be refused anyway: it is refused the same, `timeout`), so the engine is free about when the call ends.
def test_a_vllm_offline_judge_generates_no_longer_than_the_seconds_it_was_given(timed_engine: Any) -> None:
    from coworkenv.checks.judge import JudgeBudget

    backend, engine = timed_engine
    warm = judge_asker(backend, max_tokens=100, budget=JudgeBudget(4, 60.0))
    assert warm({"user": "warm up"}, 10.0).startswith("score: 1")  # 0.5 s: the engine's speed is known
    budget = JudgeBudget(4, 10.0)
    result = run_sandboxed(_ASKS, "check", {"requests": [{"user": "grade this"}]},
                           replace(JUDGE_LIMITS, ask_seconds=1.0), ask=judge_asker(backend, budget=budget))
    returned = time.monotonic()
    busy = max(end for _, end, _ in _generations(engine, 2)) - returned
    assert result.ok and result.value == [_SPENT.format(1.0)], result
    assert busy < 1.5, (busy, engine.runs)  # on main: 9 s after the call returned, all 2048 tokens generated


# The engine's first generation had no measured speed to bound it: a judged check whose request came first (a fresh
# host process, the first episode scored) made the engine generate its whole 2048 tokens (10 s here) under a 1 s budget,
# 9 s of it after the call had returned (measured on main). The first generation now measures the speed on a few
# tokens first, then generates only what fits the seconds left, as every later one does.
def test_a_vllm_offline_judges_first_generation_is_bounded_by_its_seconds_too(timed_engine: Any) -> None:
    from coworkenv.checks.judge import JudgeBudget

    backend, engine = timed_engine
    result = run_sandboxed(_ASKS, "check", {"requests": [{"user": "grade this"}]},
                           replace(JUDGE_LIMITS, ask_seconds=1.0), ask=judge_asker(backend, budget=JudgeBudget(4, 10.0)))
    returned = time.monotonic()
    time.sleep(0.2)  # a generation still under way is one that started before the call returned
    busy = max(end for _, end, _ in _generations(engine, len(engine.starts))) - returned
    assert result.ok and result.value == [_SPENT.format(1.0)], result
    assert busy < 1.5, (busy, engine.runs)  # on main: 9 s after the call returned, all 2048 tokens generated
    assert sum(sum(tokens) for _, _, tokens in engine.runs) < 512, engine.runs  # on main: 2048


# A short answer comes whole from the first, measuring generation: no second one runs.
def test_a_vllm_offline_judges_first_short_answer_takes_one_generation(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    from types import ModuleType, SimpleNamespace

    from coworkenv.llm import LLMRequest
    from coworkenv.llm._vllm_offline import VLLMOfflineBackend

    class Short(_TimedEngine):
        def chat(self, conversations: Any, sampling_params: Any, tools: Any = None, use_tqdm: bool = False) -> Any:
            (out,) = super().chat(conversations, [SimpleNamespace(max_tokens=3)], tools, use_tqdm)
            out.outputs[0].finish_reason = "stop"
            return [out]

    fake = ModuleType("vllm")
    fake.SamplingParams = lambda **kwargs: SimpleNamespace(**kwargs)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", fake)
    engine = Short(0.005)
    backend = VLLMOfflineBackend("judge-model-x", llm=engine)
    answer = backend.complete_within(LLMRequest(messages=[{"role": "user", "content": "grade"}], max_tokens=2048), 5.0)
    assert not isinstance(answer, Exception) and answer.content.startswith("score: 1"), answer
    assert len(engine.runs) == 1, engine.runs


# A request waiting for the engine (another generation holds it: the agent's, a late one) waited on after the sandbox
# stopped waiting for it, then generated its whole answer for no one (measured on main: started 2 s after the call
# returned and ran 10 s). Now it waits no longer than its seconds and generates nothing once they are spent.
def test_a_vllm_offline_judge_request_queued_past_its_seconds_never_runs(timed_engine: Any) -> None:
    from coworkenv.checks.judge import JudgeBudget
    from coworkenv.llm import LLMRequest

    backend, engine = timed_engine
    hold = threading.Thread(target=backend.complete_batch, daemon=True,
                            args=([LLMRequest(messages=[{"role": "user", "content": "the agent's turn"}],
                                              max_tokens=600)],))
    hold.start()  # 3 s of the engine's time
    time.sleep(0.2)
    result = run_sandboxed(_ASKS, "check", {"requests": [{"user": "grade this"}]},
                           replace(JUDGE_LIMITS, ask_seconds=1.0), ask=judge_asker(backend, budget=JudgeBudget(4, 10.0)))
    returned = time.monotonic()
    hold.join()
    time.sleep(1.0)  # a queued request would have taken the engine by now
    assert result.ok and result.value == [_SPENT.format(1.0)], result
    late = [start - returned for start in engine.starts if start > returned]
    assert not late, late  # on main: the judge's 2048 tokens, started after the call had returned


def test_lines_that_ask_nothing_cost_the_host_no_step_each() -> None:
    """The host looks for requests on the result channel as its data arrives; it stepped through it line by line in
    Python, so 324 KiB of bare newlines (one write of the code's) cost 0.15 s of its CPU, 3.3 MB here 1.4 s (main).
    Requests between them, and one still being written, are found as before."""
    from coworkenv.sandbox._host import _Asks

    host, child = socket.socketpair()
    with host, child:
        asks = _Asks(lambda request, seconds_left: "unused", host.fileno(), SandboxLimits(), pid=-1)
        junk = b"\n" * 3_300_000
        result = bytearray(b"x\n" + junk + b'{"ask": 1}\n' + junk + b'y\n{"ask": "partial')
        started = time.process_time()
        asks.take(result)
        assert time.process_time() - started < 0.2
        assert child.recv(4096).startswith(b'{"refused": "a request is one object of texts')  # parsed, no handler
        assert bytes(result) == b"x\n" + junk + junk + b'y\n{"ask": "partial'
        assert bytes(result[asks.scanned:]) == b'{"ask": "partial'  # waits for the rest of its line
        result += b'"}\n'
        asks.take(result)
        assert child.recv(4096).startswith(b'{"refused": "a request is one object of texts')
        assert bytes(result) == b"x\n" + junk + junk + b"y\n"
