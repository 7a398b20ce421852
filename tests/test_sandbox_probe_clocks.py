"""Clocks a check reads past the setup's stand-ins: what the clock probes must move, or a check tells them apart.

The clock probes (`coworkenv.validate.python_probes`) move the machine clock through the setup every run of a Python
check starts with (`coworkenv.checks.run_setup`). A clock the setup leaves alone reads the real date in a probe: a check
that fails from next year on passes every clock probe, and one that compares it with `time.time()` knows it is probed.
sqlite's date functions ('now', or no time at all) read the clock in C, and a wall clock passed to `clock_gettime` by
an id the code computed (CLOCK_REALTIME_COARSE, which `time` does not name) was not in the setup's list (sandbox52).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from coworkenv.checks.run_setup import setup
from coworkenv.sandbox import run_sandboxed
from coworkenv.spec import PythonRule
from coworkenv.validate._probe_tells import introspection
from coworkenv.validate.python_probes import run_check

YEAR = 366 * 86_400

# Every door to sqlite's clock, each read as seconds since the epoch; and the date functions given a time, which
# must answer as the library does.
_READS = r'''
def check():
    import time, sqlite3, _sqlite3

    def seconds(conn, sql, *args):
        value = conn.execute(sql, args).fetchone()[0]
        return int(float(value)) if not isinstance(value, float) else int((value - 2440587.5) * 86400)

    class Mine(sqlite3.Connection):
        pass

    conn = sqlite3.connect(":memory:")
    conn.execute("create table t(a default current_timestamp, b)")
    conn.execute("insert into t(b) values (1)")
    moved = {
        "strftime now": seconds(conn, "select strftime('%s', 'now')"),
        "strftime of no time": seconds(conn, "select strftime('%s')"),
        "julianday()": seconds(conn, "select julianday()"),
        "unixepoch()": seconds(conn, "select unixepoch()"),
        "NOW": seconds(conn, "select unixepoch('NOW')"),
        "a blob": seconds(conn, "select unixepoch(?)", b"now"),
        "up to a NUL": seconds(conn, "select unixepoch(?)", "now\x00later"),
        "current_timestamp": seconds(conn, "select unixepoch(current_timestamp)"),
        "a column's default": seconds(conn, "select unixepoch(a) from t"),
        "Connection()": seconds(sqlite3.Connection(":memory:"), "select unixepoch()"),
        "_sqlite3.connect": seconds(_sqlite3.connect(":memory:"), "select unixepoch()"),
        "a factory": seconds(sqlite3.connect(":memory:", factory=Mine), "select unixepoch()"),
        "dbapi2": seconds(sqlite3.dbapi2.connect(":memory:"), "select unixepoch('now', 'start of day', '+1 day')")
        - 86400 + int(time.time()) % 86400,
        "CLOCK_REALTIME_COARSE by a number": int(time.clock_gettime(int("5"))),
    }
    given = conn.execute(
        "select date('2020-02-28', '+1 day'), datetime(1700000000, 'unixepoch'), julianday('2000-01-01'), "
        "strftime('%Y-%j', '2021-12-31'), time('12:34:56', '+1 hour'), date(' now'), date('nov')").fetchone()
    return {"time": int(time.time()), "moved": moved, "given": list(given)}
'''


def _reads(offset: int) -> dict[str, Any]:
    result = run_sandboxed(_READS, "check", {}, prelude=setup(offset))
    assert result.ok, result
    return result.value


@pytest.mark.parametrize("offset", [0, YEAR])
def test_every_door_to_sqlites_clock_reads_the_setups_clock(offset: int) -> None:
    value = _reads(offset)
    off = {what: seconds - value["time"] for what, seconds in value["moved"].items() if abs(seconds - value["time"]) > 5}
    assert off == {}, f"read past the setup's clock (seconds off its time.time()): {off}"
    assert value["given"] == ["2020-02-29", "2023-11-14 22:13:20", 2451544.5, "2021-365", "13:34:56", None, None]


def test_a_check_that_stops_passing_next_year_by_sqlites_clock_fails_the_clock_probe_and_its_twin_does_not() -> None:
    # The bomb passes today and fails every episode from half a year on: on main the clock probe saw it pass (sqlite's
    # 'now' was never moved), and `validate_spec` accepted it with no finding. Its twin uses sqlite's date functions
    # on a given time: sound, the same verdict with the clock moved. The clock probe is `run_check` with an offset.
    deadline = int(time.time()) + YEAR // 2
    bomb = PythonRule(code=(
        "import sqlite3\n"
        "def check(state, audit, messages):\n"
        "    now = sqlite3.connect(':memory:').execute(\"select unixepoch('now')\").fetchone()[0]\n"
        f"    return now < {deadline}\n"))
    twin = PythonRule(code=(
        "import sqlite3\n"
        "def check(state, audit, messages):\n"
        "    day = sqlite3.connect(':memory:').execute(\"select date(?, '+1 day')\", ('2026-01-01',)).fetchone()[0]\n"
        "    return day == '2026-01-02'\n"))
    payload = {"state": {"clock": "2026-01-01T00:00:00Z", "apps": {}}, "audit": [], "messages": []}
    verdicts = {name: (run_check(rule, payload), run_check(rule, payload, offset=YEAR))
                for name, rule in (("bomb", bomb), ("twin", twin))}
    assert verdicts == {"bomb": ((True, ""), (False, "")), "twin": ((True, ""), (True, ""))}


@pytest.mark.parametrize(("code", "told"), [
    ("import sqlite3\ndef check(s, a, m):\n    return sqlite3.Connection.__base__(':memory:')\n",
     "sqlite3.Connection.__base__"),
    ("from sqlite3 import connect\ndef check(s, a, m):\n    c = connect(':memory:')\n    return type(c).__mro__[1]\n",
     "type(c).__mro__"),
    ("import _sqlite3\ndef check(s, a, m):\n    return _sqlite3.Connection.__bases__\n", "_sqlite3.Connection.__bases__"),
    ("import sqlite3\ndef check(s, a, m):\n    return type(sqlite3.dbapi2.connect(':memory:')).__base__\n",
     "type(sqlite3.dbapi2.connect(':memory:')).__base__"),
    ("import sqlite3\ndef check(s, a, m):\n    c = sqlite3.connect(':memory:')\n"
     "    return c.execute('select date(?)', ('2020-01-01',)).fetchone()[0] == '2020-01-01'\n", None),
])
def test_a_check_reaching_sqlites_unmoved_connection_class_is_rejected_unrun(code: str, told: str | None) -> None:
    """The stand-in connection class's base is the C module's own, whose connections read the real clock."""
    assert introspection(code) == told
