"""A validation's sandboxed runs: which run may stand in for a mutant's, and which probe runs are repeats.

No sandbox runs here: the memo is judged on its keys, the probes with `run_check` replaced by a recorder.
"""

from __future__ import annotations

from typing import Any

import pytest

from coworkenv.checks import Reply
from coworkenv.spec import PythonRule
from coworkenv.validate import python_probes
from coworkenv.validate._check_reads import job_reads
from coworkenv.validate._run_memo import RunMemo

STATE_ONLY = PythonRule(code="def check(state, audit, messages):\n    return state['clock'] > 0\n")
READS_ALL = PythonRule(code="def check(state, audit, messages):\n    return bool(state and audit and messages)\n")
PASSED = (1.0, "", False, None)
FAILED = (0.0, "python check returned false", False, None)
SAID = "The ticket is closed. All set."


def _payload(clock: int = 1, calls: int = 1, said: str = SAID) -> dict[str, Any]:
    return {"state": {"clock": clock, "apps": {}}, "audit": [{"index": i, "tool": "mail_send"} for i in range(calls)],
            "messages": [{"turn": 0, "text": said}]}


def _memo(*rules: PythonRule) -> RunMemo:
    memo = RunMemo()
    memo.trust({r.code for r in rules})
    memo.replaying = True
    return memo


def test_a_mutant_reuses_a_run_of_the_same_job_and_only_the_parts_the_check_reads_make_the_job() -> None:
    memo = _memo(STATE_ONLY, READS_ALL)
    memo.put(STATE_ONLY, _payload(), PASSED)
    memo.put(READS_ALL, _payload(), PASSED)
    # another audit and another reply: the same job for a check that reads the state alone, not for one reading all
    assert memo.get(STATE_ONLY, _payload(calls=2, said="sent")) == PASSED
    assert memo.get(READS_ALL, _payload(calls=2)) is None
    assert memo.get(READS_ALL, _payload(said="sent")) is None
    assert memo.get(STATE_ONLY, _payload(clock=2)) is None  # what it reads changed
    assert memo.get(READS_ALL, _payload()) == PASSED
    assert memo.reused == 2


def test_no_run_is_reused_outside_a_mutant_for_an_untrusted_or_judged_check_or_once_runs_disagree() -> None:
    judged = PythonRule(code=STATE_ONLY.code + "# asks\n", judge=True)
    memo = _memo(STATE_ONLY, judged)
    for rule in (STATE_ONLY, READS_ALL, judged):
        memo.put(rule, _payload(), PASSED)
    assert memo.get(READS_ALL, _payload()) is None  # not trusted: its probes found something, or never ran
    assert memo.get(judged, _payload()) is None  # its judge is an LLM
    memo.replaying = False  # the reference's second run, the noop, the probes: reruns on purpose
    assert memo.get(STATE_ONLY, _payload()) is None
    memo.replaying = True
    assert memo.get(STATE_ONLY, _payload()) == PASSED
    memo.put(STATE_ONLY, _payload(calls=3), FAILED)  # the same job answered otherwise: the check's runs differ
    assert memo.get(STATE_ONLY, _payload()) is None
    assert RunMemo().get(STATE_ONLY, _payload()) is None  # nothing trusted before the probes ran


def test_a_memo_keeps_a_key_it_cannot_serialise_out() -> None:
    memo = _memo(READS_ALL)
    huge = {"state": {"clock": 1, "apps": {"notes": {"n": [{"id": "x", "big": 2 ** 70}]}}}, "audit": [],
            "messages": []}
    memo.put(READS_ALL, huge, PASSED)
    assert memo.get(READS_ALL, huge) is None


def _world(clock: int = 1, mail: str = "unread", chat: str = "quiet") -> dict[str, Any]:
    return {"state": {"clock": clock, "apps": {"mail": {"messages": [{"id": "m1", "status": mail}]},
                                               "chat": {"messages": [{"id": "c1", "text": chat}]}}},
            "audit": [], "messages": []}


MAIL_ONLY = PythonRule(code="import sys\n\n\ndef check(state, audit, messages):\n"
                            "    rows = state.get('apps', {}).get('mail', {})['messages']\n"
                            "    return all(r['status'] == 'read' for r in rows)\n")


def test_a_check_reading_one_table_reuses_a_run_where_only_the_clock_or_another_app_changed() -> None:
    memo = _memo(MAIL_ONLY)
    memo.put(MAIL_ONLY, _world(), FAILED)
    assert memo.get(MAIL_ONLY, _world(clock=9, chat="hello")) == FAILED  # neither is read
    assert memo.get(MAIL_ONLY, _world(mail="read")) is None  # what it reads changed
    gone = _world()
    del gone["state"]["apps"]["mail"]
    assert memo.get(MAIL_ONLY, gone) is None  # a path that is not there is told from one that is


# Checks that read the clock or the chat app only dynamically: each reads more than its constant keys show, so a
# run of theirs must never stand in for one on another clock or chat (a memo keyed on the constant paths alone
# would answer these from the first run).
DYNAMIC = {
    "variable key": "def check(state, audit, messages):\n    key = 'cl' + 'ock'\n"
                    "    return state['apps']['mail'] is not None and state[key] < 5\n",
    "handed on": "def _clock(s):\n    return s['clock']\n\n\ndef check(state, audit, messages):\n"
                 "    return state['apps']['mail'] is not None and _clock(state) < 5\n",
    "aliased": "def check(state, audit, messages):\n    s = state\n"
               "    return state['apps']['mail'] is not None and s['clock'] < 5\n",
    "iterated": "def check(state, audit, messages):\n"
                "    return state['apps']['mail'] is not None and 'quiet' in str([v for v in state.values()])\n",
    "method of the whole": "def check(state, audit, messages):\n"
                           "    return state['apps']['mail'] is not None and state.get(min(state)) < 5\n",
    "stored into": "def check(state, audit, messages):\n    state['apps']['mail'] = state['clock']\n"
                   "    return state['apps']['mail'] < 5\n",
    "frame": "import sys\n\n\ndef check(state, audit, messages):\n"
             "    return state['apps']['mail'] is not None and sys._getframe().f_locals['state']['clock'] < 5\n",
    "garbage collector": "import gc\n\n\ndef check(state, audit, messages):\n    m = state['apps']['mail']\n"
                         "    return m is not None and gc.get_referrers(m)[0]['chat']['messages'][0]['text'] == 'quiet'\n",
    "globals": "def check(state, audit, messages):\n    return state['apps']['mail'] is not None and "
               "check.__globals__['__builtins__'] is not None and state['clock'] < 5\n",
    "rebound": "def check(state, audit, messages):\n    state = dict(state)\n"
               "    return state['apps']['mail'] is not None and state['clock'] < 5\n",
    "kwargs": "def check(**parts):\n    return parts['state']['clock'] < 5\n",
}


@pytest.mark.parametrize("name", sorted(DYNAMIC))
def test_a_check_reading_the_state_dynamically_is_never_answered_from_another_clock_or_chat(name: str) -> None:
    rule = PythonRule(code=DYNAMIC[name])
    memo = _memo(rule)
    memo.put(rule, _world(clock=1), PASSED)
    assert memo.get(rule, _world(clock=9)) is None
    assert memo.get(rule, _world(clock=1, chat="hello")) is None
    assert memo.get(rule, _world(clock=1)) == PASSED  # the same job: still reused
    assert job_reads(rule.code)[1] is None  # the whole state is read


@pytest.mark.parametrize(("rule", "runs_with_other_replies"), [(STATE_ONLY, 0), (READS_ALL, 6 + 2)])
def test_paraphrase_and_backdoor_runs_of_a_check_that_never_reads_the_replies_are_left_out(
        monkeypatch: pytest.MonkeyPatch, rule: PythonRule, runs_with_other_replies: int) -> None:
    seen: list[dict[str, Any]] = []

    def recorded(rule: PythonRule, payload: dict[str, Any], **kwargs: Any) -> tuple[bool | None, str]:
        seen.append(payload)
        return payload["state"]["clock"] == 2, ""  # True on the reference's final state, False untouched

    monkeypatch.setattr(python_probes, "run_check", recorded)
    oracle, untouched = _payload(clock=2), _payload(clock=1, calls=0)
    rule = rule.model_copy(update={"code": rule.code + "CODES = ['zebra', 'quokka']\n"})
    found = python_probes.probe_check(rule, True, oracle, [Reply(0, SAID)], untouched, False, repeats=1,
                                      offsets=(86_400,))
    assert found == []
    other = [p for p in seen if p["messages"] != oracle["messages"] and p["messages"] != untouched["messages"]]
    assert len(other) == runs_with_other_replies  # 6 paraphrases and the 2 words, or none
    assert len(seen) - len(other) >= 1 + 2 + 2 + 1  # the repeats, seeds, pins and clock still run
