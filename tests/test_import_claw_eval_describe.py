"""The narrating oracle's phrasings (`rollout/describe.py`) fall back to the generic wording only for what they are
not written for (import47; the last test passes on main too: it holds what the narrowing keeps). Since import46 a phrasing that could not read a tool's answer fell back on any
KeyError, TypeError, AttributeError, IndexError or ValueError, for every tool: a bug in a built-in phrasing, on the
built-in app's own answer, was hidden behind "tickets_get returned one item." and no test saw it. Now only a tool the
spec declares under a built-in name (an imported tool: it may answer in any shape) falls back on a shape error, and
only a call whose arguments the built-in tool does not take (a defective reference call) is not phrased as the
built-in's; the built-in tool's own call, answered by its app, gets its phrasing or the phrasing's error."""

from __future__ import annotations

import random

import pytest

from coworkenv import Env
from coworkenv.examples import load_example
from coworkenv.rollout import describe
from coworkenv.rollout.describe import Phrasing, action, finding, intent

_TICKET = {"id": "T-1", "title": "Checkout is down", "status": "open", "priority": "p1", "assignee": None}


def _buggy(*_: object) -> str:  # a phrasing with a bug: it reads a field the app's answer never has
    return str(_TICKET["reporter_name"])


@pytest.fixture(scope="module")
def world() -> object:
    return Env(load_example("incident_rollback")).state


@pytest.mark.parametrize(("table", "tool", "args", "describe_it"), [
    ("FINDINGS", "tickets_get", {"ticket_id": "T-1"}, lambda p: finding("tickets_get", {"ticket_id": "T-1"}, _TICKET, p)),
    ("ACTIONS", "tickets_update", {"ticket_id": "T-1", "status": "resolved"},
     lambda p: action("tickets_update", {"ticket_id": "T-1", "status": "resolved"}, _TICKET, p)),
    ("INTENTS", "tickets_get", {"ticket_id": "T-1"}, lambda p: intent("tickets_get", {"ticket_id": "T-1"}, p)),
])
def test_a_bug_in_a_built_in_phrasing_is_raised_not_hidden(world: object, monkeypatch: pytest.MonkeyPatch,
                                                           table: str, tool: str, args: dict[str, object],
                                                           describe_it: object) -> None:
    monkeypatch.setitem(getattr(describe, table), tool, _buggy)
    p = Phrasing(world, random.Random(0))  # type: ignore[arg-type]
    # main: 'tickets_get returned one item: T-1 "Checkout is down".' / 'ran tickets_update (...)' / 'call tickets_get'
    with pytest.raises(KeyError, match="reporter_name"):
        describe_it(p)  # type: ignore[operator]
    # the same name declared by the spec (an imported tool): its answer may be of any shape, so the generic wording
    declared = Phrasing(world, random.Random(0), frozenset({tool}))  # type: ignore[arg-type]
    said = describe_it(declared)  # type: ignore[operator]
    assert said and "reporter_name" not in said and tool in said, said


def test_a_call_the_built_in_tool_would_refuse_is_described_as_any_tool_s(world: object) -> None:
    """A reference call of a defective spec (the verifier's corpus) whose arguments the built-in tool does not take:
    not the built-in's call, so not its phrasing (which would read `len(5)`)."""
    p = Phrasing(world, random.Random(0))  # type: ignore[arg-type]
    assert intent("calendar_free_busy", {"people": 5, "start": "x", "end": "y"}, p) == "call calendar_free_busy"
    assert intent("tickets_get", {"ticket_id": "T-1"}, p) == "pull up T-1"  # the built-in's own call, phrased
    assert finding("tickets_get", {"ticket_id": "T-1"}, _TICKET, p) == \
        'T-1 "Checkout is down" is open (p1), assigned to nobody, with no comments.'
