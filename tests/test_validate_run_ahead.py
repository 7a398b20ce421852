"""Sandboxed runs started ahead of the episode or probe that reads them: each read is a run of its own exact job,
taken once; a run nobody reads is dropped; the runs keep the caller's required layers.

No sandbox runs here: the runs are stand-ins (`run_check` replaced by a recorder, the memo handed plain callables).
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from coworkenv.checks import Reply
from coworkenv.sandbox import required_layers, requiring_layers
from coworkenv.spec import PythonRule
from coworkenv.validate import python_probes
from coworkenv.validate._run_memo import RunMemo

RULE = PythonRule(code="def check(state, audit, messages):\n    return bool(state and audit and messages)\n"
                       "WORDS = ['zebra', 'quokka']\n")
SAID = "The ticket is closed. All set."


def _payload(clock: int = 1, calls: int = 1) -> dict[str, Any]:
    return {"state": {"clock": clock, "apps": {"mail": {"messages": [{"id": "m1"}, {"id": "m2"}]}}},
            "audit": [{"index": i, "tool": "mail_send", "ok": True, "args": {"to": ["a@x.io", "b@x.io"]}}
                      for i in range(calls)],
            "messages": [{"turn": 0, "text": SAID}]}


def test_a_run_started_ahead_is_handed_to_its_exact_job_once_and_the_rest_dropped() -> None:
    memo = RunMemo()
    started: list[dict[str, Any]] = []

    def run(job: dict[str, Any]) -> tuple[str, int]:
        started.append(job)
        return "ran", job["state"]["clock"]

    memo.collecting = True
    memo.start(RULE, _payload(1), "setup", run)
    memo.start(RULE, _payload(1), "setup", run)  # an untrusted check's repeat is run again: started twice
    memo.start(RULE, _payload(2), "setup", run)
    memo.start(RULE.model_copy(update={"judge": "is it done?"}), _payload(3), "setup", run)  # a judged one: never
    memo.collecting = False
    assert memo.take(RULE, _payload(1), "other setup") is None  # another setup: another job
    assert memo.take(RULE, _payload(1), "setup") == ("ran", 1)
    assert memo.take(RULE, _payload(1), "setup") == ("ran", 1)
    assert memo.take(RULE, _payload(1), "setup") is None  # each run handed over once
    memo.drop_ahead()
    assert memo.take(RULE, _payload(2), "setup") is None  # dropped: the episode runs it itself
    assert len(started) == 3 and all(job["state"]["clock"] != 3 for job in started)


def test_a_trusted_checks_repeat_is_not_started_ahead_where_the_memo_will_answer_it() -> None:
    memo = RunMemo()
    memo.trust({RULE.code})
    memo.collecting = memo.replaying = True
    done: list[int] = []
    memo.start(RULE, _payload(1), "setup", lambda job: done.append(1))
    memo.start(RULE, _payload(1), "setup", lambda job: done.append(2))
    memo.drop_ahead()
    assert len(done) <= 1


def test_a_run_started_ahead_takes_the_payload_as_it_was_and_the_callers_required_layers() -> None:
    memo = RunMemo()
    payload = _payload(1)
    memo.collecting = True
    gate = threading.Event()

    def run(job: dict[str, Any]) -> tuple[tuple[str, ...], int]:
        gate.wait(5)
        return required_layers(), job["state"]["clock"]

    with requiring_layers(["seccomp"]):
        memo.start(RULE, payload, "setup", run)
    payload["state"]["clock"] = 99  # the episode goes on: the run started has its own copy
    gate.set()
    layers, clock = memo.take(RULE, _payload(1), "setup")
    assert "seccomp" in layers and clock == 1
    memo.drop_ahead()


@pytest.mark.parametrize("wrong", [None, "seed", "clock", "paraphrase", "word"])
def test_probes_started_ahead_find_what_probes_run_one_by_one_find(monkeypatch: pytest.MonkeyPatch,
                                                                    wrong: str | None) -> None:
    """The probes' findings are the same with their runs started ahead (`_Ahead`) as one by one; each run read is a
    run of the job its probe asked for; runs planned past a probe that stopped are not read."""
    calls: list[tuple[bool, tuple[Any, ...]]] = []
    lock = threading.Lock()

    def recorded(rule: PythonRule, payload: dict[str, Any], *, offset: int = 0, seed: int | None = None,
                 pin: float | None = None, costs: list[tuple[float, float]] | None = None,
                 pass_score: float = 1.0) -> tuple[bool | None, str]:
        with lock:
            calls.append((threading.current_thread() is threading.main_thread(), (offset, seed, pin)))
        if costs is not None:
            costs.append((0.01, 0.02))
        text = " ".join(m["text"] for m in payload["messages"])
        untouched = payload["state"]["clock"] == 1
        if wrong == "seed" and seed is not None:
            return False, ""
        if wrong == "clock" and offset:
            return None, "exception: the year is wrong"
        if wrong == "paraphrase" and text == SAID.lower():
            return False, ""
        if wrong == "word" and text == "quokka":
            return True, ""
        return not untouched, ""

    monkeypatch.setattr(python_probes, "run_check", recorded)
    oracle, untouched = _payload(2), _payload(1, calls=0)
    found = {}
    for mode in ("ahead", "one by one"):
        calls.clear()
        if mode == "one by one":
            found[mode] = python_probes._probe_check(
                RULE, True, oracle, [Reply(0, SAID)], untouched, False, repeats=3, offsets=(86_400, 864_000),
                pass_score=1.0, found=[], ahead=None)
        else:
            found[mode] = python_probes.probe_check(RULE, True, oracle, [Reply(0, SAID)], untouched, False,
                                                    repeats=3, offsets=(86_400, 864_000))
        if mode == "ahead":
            assert any(not main for main, _ in calls), "no run was started ahead"
    assert [(p.code, p.message.split(" gives ")[-1]) for p in found["ahead"]] == \
        [(p.code, p.message.split(" gives ")[-1]) for p in found["one by one"]]
    expected = {None: [], "seed": ["nondeterministic_check"], "clock": ["clock_dependent"],
                "paraphrase": ["paraphrase_fails"], "word": ["keyword_backdoor"]}[wrong]
    assert [p.code for p in found["ahead"]] == expected
