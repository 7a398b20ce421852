"""Date-times a Python check compares as text (`_python_times`): each case is a check's code written by hand into the
shipped meeting_reschedule example (user at +02:00), read statically (no episode is played, no code is run)."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from coworkenv.validate._python_times import python_times
from tests.support.python_check_specs import CALLS, EVENTS, example_with_check

_PARSE = "from datetime import datetime\n\ndef _t(s):\n    return datetime.fromisoformat(s.replace('Z', '+00:00'))\n\n"


def _spec(body: str) -> Any:
    return example_with_check(_PARSE, body)


_EVENTS, _CALLS = EVENTS, CALLS


@pytest.mark.parametrize("body", [
    _CALLS + "    if a.get('start', '') >= '2026-04-15T13:00:00Z':\n        return True\nreturn False",
    _CALLS + "    if a.get('start') == '2026-04-15T14:00:00Z':\n        return True\nreturn False",
    _CALLS + "    if str(a.get('start'))[:13] == '2026-04-15T14':\n        return True\nreturn False",
    "return not any('2026-04-14' in e['args'].get('start', '') for e in audit)",
    _EVENTS + "    if r['start'] == '2026-04-15T16:00:00+02:00':\n        return False\nreturn True",
    "WANT = '2026-04-15T14:00Z'\n" + _EVENTS + "    if r['start'] == WANT:\n        return False\nreturn True",
    _EVENTS + "    start = r.get('start') or ''\n    if start == '2026-04-15':\n        return False\nreturn True",
    _EVENTS + "    if r['start'].startswith('2026-04-15T16:00'):\n        return False\nreturn True",
    _EVENTS + "    if r['start'][:10] != '2026-04-15':\n        return False\nreturn True",
    _EVENTS + "    if '2026-04-15T13:00:00+02:00' <= r['start'] < '2026-04-15T18:00:00+02:00':\n"
              "        return False\nreturn True",
], ids=["call-order", "call-equal", "call-hour-prefix", "call-day-in", "stored-offset", "stored-no-seconds-named",
        "stored-bare-day", "stored-local-clock", "stored-utc-day", "stored-window-at-offset"])
def test_reported(body: str) -> None:
    found = list(python_times(_spec(body)))
    assert found and found[0][0].endswith(".rule.code"), found
    assert "as text" in found[0][1] and "'probe'" in found[0][1]


@pytest.mark.parametrize("body", [
    _CALLS + "    if a.get('start') and _t(a['start']) == _t('2026-04-15T16:00:00+02:00'):\n        return True\n"
             "return False",  # parsed instants
    _EVENTS + "    if r['start'] == '2026-04-15T14:00:00Z':\n        return True\nreturn False",  # as stored
    _EVENTS + "    if r['start'] >= '2026-04-15T12:00:00Z':\n        return True\nreturn False",  # a UTC bound
    "return any('2026-04-15' in m['text'] for m in messages)",  # a reply's text (`_user_formats` reads it)
    _EVENTS + "    if r['title'] == 'Design review' and r['start'] in ('2026-04-15T14:00:00Z',):\n        return True\n"
              "return False",
    "return e['args'].get('status') == 'confirmed' if (e := audit[-1]) else False",  # no time compared
], ids=["call-parsed", "stored-as-stored", "stored-utc-bound", "reply-text", "stored-in-tuple", "no-time"])
def test_not_reported(body: str) -> None:
    assert list(python_times(_spec(body))) == []


def test_unparsable_code_left_to_the_sandbox_gate() -> None:
    assert list(python_times(_spec("return (("))) == []


@pytest.mark.parametrize("body", [
    _CALLS + "    if a.get('start', '') >= datetime(2026, 4, 15, 13, tzinfo=timezone.utc).isoformat():\n"
             "        return True\nreturn False",
    "DAY = date(2026, 4, 15)\n" + _EVENTS + "    if r['start'][:10] == f'{DAY:%Y-%m-%d}':\n        return False\n"
                                           "return True",
    _EVENTS + "    if r['start'][:10] == str(date(2026, 4, 14) + timedelta(days=1)):\n        return False\nreturn True",
    "HOUR = 16\n" + _EVENTS + "    if r['start'].startswith(f'2026-04-15T{HOUR:02d}:00'):\n        return False\n"
                              "return True",
], ids=["call-order-built", "stored-utc-day-fstring", "stored-utc-day-computed", "stored-local-clock-fstring"])
def test_reported_built_at_run_time(body: str) -> None:
    """A constant built at run time (`_built_times`) is read as the text it makes."""
    code = "from datetime import date, timedelta, timezone\n" + body
    found = list(python_times(_spec(code)))
    assert found and "as text" in found[0][1], found


def test_not_reported_built_from_the_state() -> None:
    """A text built from a value of the state is no constant."""
    body = ("from datetime import date\n" + _EVENTS + "    day = r['start'][:10]\n"
            "    if r['start'][:10] == f'{day}':\n        return False\nreturn True")
    assert list(python_times(_spec(body))) == []


@pytest.mark.parametrize("source", ['f"{1:>300000000}"', 'f"{1:.300000000f}"', '"2026-09-25".replace("", "-" * 200)',
                                    '"-" * 200 + "-" * 200'])
def test_a_built_text_past_any_date_time_is_not_made(source: str) -> None:
    """The spec's code is only read: an expression that would build a huge text (a width, a precision, a replace of
    every gap) is not folded, so a short check cannot have the verifier allocate gigabytes."""
    from coworkenv.validate._built_times import built_text

    assert built_text(ast.parse(source, mode="eval").body, {}) is None
