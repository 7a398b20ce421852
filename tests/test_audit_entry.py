"""An audit entry keeps a result given as the JSON the agent was shown and decodes it when read: it equals, pickles,
copies and dumps as the entry made from the value, and stays read-only."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coworkenv import Action, Env
from coworkenv.checks import AuditEntry
from coworkenv.examples import load_example

_json = st.recursive(st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                     max_leaves=12)


def _entry(result: Any = None, result_json: str | bytes | None = None) -> AuditEntry:
    return AuditEntry(3, 1, "mail_search", {"query": "x"}, True, result, None, "2026-01-01T00:00:00Z", "a", "b",
                      result_json=result_json)


@given(_json)
def test_a_result_given_as_json_is_the_value(value: Any) -> None:
    eager = _entry(value)
    for lazy in (_entry(result_json=orjson.dumps(value)), _entry(result_json=orjson.dumps(value).decode())):
        for entry in (lazy, copy.deepcopy(lazy), pickle.loads(pickle.dumps(lazy))):
            assert entry == eager and entry.result == value
            assert entry.as_dict() == eager.as_dict() == {**entry.as_dict(), "result": value}
            assert repr(entry) == repr(eager)


def test_an_entry_is_read_only_and_takes_one_form_of_result() -> None:
    entry = _entry([1])
    with pytest.raises(AttributeError, match="read-only"):
        entry.ok = False  # type: ignore[misc]
    with pytest.raises(ValueError, match="not both"):
        _entry([1], result_json=b"[1]")


def test_env_audit_results_are_what_the_agent_was_shown() -> None:
    env = Env(load_example("incident_rollback"))
    env.reset()
    shown = env.step(Action.call("tickets_search", {"query": "gateway"})).messages[0]["content"]
    failed = env.step(Action.call("tickets_get", {"ticket_id": "nope"})).messages[0]["content"]
    ok, bad = env.audit
    assert ok.ok and ok.result == orjson.loads(shown) and ok.result
    assert not bad.ok and bad.result is None and orjson.loads(failed) == {"error": bad.error}
