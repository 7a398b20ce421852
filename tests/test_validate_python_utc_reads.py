"""Parsed date-times whose day or clock a Python check reads at the offset they were written in
(`_python_utc_reads`): each case is a check's code written by hand into the shipped meeting_reschedule example (user
at +02:00, stored times UTC), read statically (no episode is played, no code is run)."""

from __future__ import annotations

from typing import Any

import pytest

from coworkenv.validate._python_utc_reads import python_utc_reads
from tests.support.python_check_specs import CALLS, EVENTS, example_with_check

_PARSE = ("from datetime import datetime, date, timezone\nfrom zoneinfo import ZoneInfo\n\n"
          "def _t(s):\n    return datetime.fromisoformat(s.replace('Z', '+00:00'))\n\n")


def _spec(body: str, user_zone: str | None = None) -> Any:
    return example_with_check(_PARSE, body, user_zone)


_EVENTS, _CALLS = EVENTS, CALLS


@pytest.mark.parametrize("body", [
    _CALLS + "    if a.get('start') and _t(a['start']).hour == 16:\n        return True\nreturn False",
    _CALLS + "    t = datetime.fromisoformat(a.get('start', ''))\n    if t.date() == date(2026, 4, 15):\n"
             "        return True\nreturn False",
    _CALLS + "    if a.get('start') and _t(a['start']).replace(tzinfo=None).strftime('%H:%M') == '16:00':\n"
             "        return True\nreturn False",
    _EVENTS + "    s = _t(r['start'])\n    if s.weekday() == 2 and s.hour == 16:\n        return False\nreturn True",
    _EVENTS + "    if _t(r['start']).strftime('%A') == 'Wednesday':\n        return False\nreturn True",
    _EVENTS + "    if datetime.strptime(r['start'], '%Y-%m-%dT%H:%M:%SZ').day == 15:\n        return False\nreturn True",
], ids=["call-hour", "call-date-bound", "call-strftime-replaced", "stored-weekday-hour", "stored-strftime-day",
        "stored-strptime-day"])
def test_reported(body: str) -> None:
    found = list(python_utc_reads(_spec(body)))
    assert found and found[0][0].endswith(".rule.code"), found
    assert "'probe'" in found[0][1] and ("offset" in found[0][1] or "UTC" in found[0][1])


@pytest.mark.parametrize("body", [
    _EVENTS + "    if _t(r['start']).astimezone(ZoneInfo('Europe/Berlin')).hour == 16:\n        return False\n"
              "return True",  # converted to the user's zone
    _CALLS + "    if a.get('start') and _t(a['start']).astimezone(timezone.utc).date() == date(2026, 4, 15):\n"
             "        return True\nreturn False",  # UTC chosen
    _CALLS + "    if a.get('start') and _t(a['start']) == _t('2026-04-15T16:00:00+02:00'):\n        return True\n"
             "return False",  # instants compared
    "return _t('2026-04-15T16:00:00+02:00').hour == 16",  # a constant's clock
    _EVENTS + "    if _t(r['start']).minute == 30:\n        return False\nreturn True",  # the minute: not a day or clock
    _EVENTS + "    if _t(r['start']).strftime('%Y') == '2026':\n        return False\nreturn True",  # the year
], ids=["stored-converted", "call-utc-chosen", "call-instants", "constant", "stored-minute", "stored-year"])
def test_not_reported(body: str) -> None:
    assert list(python_utc_reads(_spec(body))) == []


def test_stored_read_at_utc_where_the_user_lives_at_utc() -> None:
    """A stored time's UTC day is the user's own where the user's zone is UTC on every day the spec knows; a call's
    argument is still read at the agent's offset."""
    stored = _EVENTS + "    if _t(r['start']).hour == 14:\n        return False\nreturn True"
    call = _CALLS + "    if a.get('start') and _t(a['start']).hour == 14:\n        return True\nreturn False"
    assert list(python_utc_reads(_spec(stored, "UTC"))) == []
    assert list(python_utc_reads(_spec(call, "UTC")))
