"""The sandbox's one way out, `run_sandboxed(..., ask=handler)`: the code asks the host in texts and gets texts back.

Only a flat object of texts crosses, within the limits' count, size and time; the wall clock stops while the host
answers; a code that asks without reading its answers is stopped; without `ask` the code has no such channel.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from coworkenv.sandbox import AskRefused, SandboxLimits, run_sandboxed

_ASKS = """
def check(requests):
    out = []
    for request in requests:
        try:
            out.append(ask_host(request))
        except RuntimeError as exc:
            out.append("refused: " + str(exc))
    return out
"""


def _echo(seen: list[dict[str, str]]) -> Any:
    def ask(request: dict[str, str], seconds_left: float) -> str:
        seen.append(request)
        if request.get("user") == "no":
            raise AskRefused("not this one")
        if request.get("user") == "crash":
            raise KeyError("a bug the request found")  # refused, the host goes on
        return "re: " + request.get("user", "")

    return ask


def test_the_code_asks_the_host_in_texts_and_reads_its_answers() -> None:
    seen: list[dict[str, str]] = []
    requests = [{"system": "判断", "user": "héllo\n{\"x\": 1}"}, {"user": "no"}, {"user": "crash"}, {"user": "again"}]
    result = run_sandboxed(_ASKS, "check", {"requests": requests}, ask=_echo(seen))
    assert result.ok, result.error
    # (the returned value has its control characters escaped, as every sandboxed value does)
    assert result.value == ["re: héllo\\n{\"x\": 1}", "refused: the host refused: not this one",
                            "refused: the host refused: the host could not answer (KeyError)", "re: again"]
    assert seen == requests  # each request reached the host as the code sent it, nothing else


@pytest.mark.parametrize(("request_", "why"), [
    ({"user": 5}, "ask_host takes one dict of texts"),  # checked in the sandbox before it is sent
    ({"user": ["a"]}, "ask_host takes one dict of texts"),
])
def test_only_texts_are_sent(request_: dict[str, Any], why: str) -> None:
    seen: list[dict[str, str]] = []
    code = "def check(r):\n    return ask_host(r)\n"
    result = run_sandboxed(code, "check", {"r": request_}, ask=_echo(seen))
    assert not result.ok and why in (result.error or "") and not seen


def test_the_host_refuses_a_request_that_is_not_texts_whatever_the_code_writes() -> None:
    """The code can write the channel itself: the host parses each request line and answers only texts."""
    seen: list[dict[str, str]] = []
    code = ("import posix\n"
            "def check():\n"
            "    out = []\n"
            "    for line in (b'{\"ask\":{\"user\":5}}\\n', b'{\"ask\":[1]}\\n', b'{\"ask\":{\"user\":\"\\\\ud800\"}}\\n'):\n"
            "        posix.write(3, line)\n"
            "        out.append(posix.read(4, 4096).decode())\n"
            "    return out\n")
    result = run_sandboxed(code, "check", {}, ask=_echo(seen))
    assert result.ok, result.error
    assert all('"refused"' in answer and "object of texts" in answer for answer in result.value)
    assert not seen  # none reached the handler


def test_requests_are_bounded_in_count_size_and_time() -> None:
    seen: list[dict[str, str]] = []
    limits = SandboxLimits(max_asks=2, max_ask_bytes=2000, max_answer_bytes=8)
    requests = [{"user": "a"}, {"user": "x" * 3000}, {"user": "b"}]
    result = run_sandboxed(_ASKS, "check", {"requests": requests}, limits, ask=_echo(seen))
    assert result.ok, result.error
    assert result.value == ["re: a", "refused: the host refused: a request larger than 2000 bytes",
                            "refused: the host refused: more than 2 requests in one call"]
    assert seen == [{"user": "a"}]

    answered: list[str] = []

    def slow(request: dict[str, str], seconds_left: float) -> str:
        answered.append(request["user"])
        if request["user"] == "2":
            time.sleep(3.0)  # beyond the 2 s left (room for the first, quick answer on a loaded machine): refused
        return "x" * 100  # cut to max_answer_bytes
    limits = SandboxLimits(ask_seconds=2.0, max_answer_bytes=8)
    requests = [{"user": "1"}, {"user": "2"}, {"user": "3"}]
    result = run_sandboxed(_ASKS, "check", {"requests": requests}, limits, ask=slow)
    assert result.ok, result.error
    spent = "refused: the host refused: the call's 2s for requests are spent"
    assert result.value == ["x" * 8, spent, spent]
    assert answered == ["1", "2"]  # once spent, no request reaches the handler


def test_the_wall_clock_stops_while_the_host_answers() -> None:
    def slow(request: dict[str, str], seconds_left: float) -> str:
        time.sleep(0.6)
        return "ok"

    limits = SandboxLimits(wall_seconds=1.0)
    result = run_sandboxed(_ASKS, "check", {"requests": [{"user": "1"}] * 3}, limits, ask=slow)
    assert result.ok, result.error  # 1.8 s of answers within a 1 s wall clock
    assert result.value == ["ok"] * 3
    loop = "def check():\n    while True:\n        pass\n"
    assert run_sandboxed(loop, "check", {}, SandboxLimits(wall_seconds=1.0, cpu_seconds=5), ask=slow).error_kind \
        == "timeout"  # the clock runs while the code does


def test_a_code_that_leaves_answers_unread_is_stopped() -> None:
    # It stays alive after asking (a code that exits at once races the host: requests it did not wait for are
    # dropped, as below), so the host meets the unread answers while the code still runs.
    code = ("import posix, time\n"
            "def check():\n"
            "    for _ in range(50):\n"
            "        posix.write(3, b'{\"ask\":{\"user\":\"' + b'y' * 1000 + b'\"}}\\n')\n"
            "    time.sleep(2)\n"
            "    return 1\n")
    result = run_sandboxed(code, "check", {}, SandboxLimits(max_answer_bytes=60000, max_asks=100),
                           ask=lambda request, left: "z" * 60000)
    assert result.error_kind == "bad_result" and "without reading its answer" in (result.error or "")
    # A request the code does not wait for changes nothing, whether the host answered it before the exit or not.
    code = "import posix\ndef check():\n    posix.write(3, b'{\"ask\":{\"user\":\"a\"}}\\n')\n    return 7\n"
    for _ in range(3):
        assert run_sandboxed(code, "check", {}, ask=lambda request, left: "z").value == 7


def test_the_answer_channel_answers_no_identity_and_is_never_copied() -> None:
    # A socket the host made just before the spawn: its inode number is the machine's counter then (fstat, no audit
    # event; on main it answered). Still read and asked through.
    code = ("import errno, fcntl, os\ndef check():\n    out = []\n"
            "    for how in (lambda: os.fstat(4).st_ino, lambda: os.dup(4), lambda: fcntl.fcntl(4, fcntl.F_DUPFD, 9)):\n"
            "        try:\n            out.append(how())\n"
            "        except OSError as exc:\n            out.append(errno.errorcode[exc.errno])\n"
            "    return out + [ask_host({'user': 'x'})]\n")
    result = run_sandboxed(code, "check", {}, ask=lambda request, left: "y")
    assert result.value == ["EPERM", "EPERM", "EPERM", "y"], result


def test_without_ask_the_code_has_no_way_to_ask() -> None:
    result = run_sandboxed(_ASKS, "check", {"requests": [{"user": "a"}]})
    assert result.error_kind == "exception" and "ask_host" in (result.error or "")
    fd4 = "import os\ndef check():\n    os.fstat(4)\n    return 1\n"
    assert run_sandboxed(fd4, "check", {}).error_kind == "exception"  # EBADF: no answer channel either
    # A request line written anyway is not a result: the run fails as tampered output.
    forged = "import posix\ndef check():\n    posix.write(3, b'{\"ask\":{\"user\":\"a\"}}\\n')\n    return 1\n"
    assert run_sandboxed(forged, "check", {}).error_kind == "bad_result"
