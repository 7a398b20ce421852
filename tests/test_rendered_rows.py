"""Rows rendered once per record (`ToolBox.call(..., rendered=True)`, what `Env.step` runs): the JSON the agent is
shown, the audit's results and every plain caller's dicts stay exactly what they were."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from benchmarks.bench_tool_scaling import WORKLOADS, agent_actions, agent_env, big_workspace
from coworkenv import Action, Env
from coworkenv.apps._common import _dump_plan, dump, dump_many
from coworkenv.apps.directory import Person, Team
from coworkenv.apps.inventory import Item
from coworkenv.bindings import spec_catalog
from coworkenv.env import ToolCallRequest
from coworkenv.examples import example_names, load_example
from coworkenv.rollout import OracleTeacher
from coworkenv.tools import RENDERING
from coworkenv.world import Record


def _rendered(records: list[Any], *fields: str) -> list[Any]:
    token = RENDERING.set(True)
    try:
        return dump_many(records, *fields)
    finally:
        RENDERING.reset(token)


def test_rendered_rows_of_several_models_and_odd_floats() -> None:
    person = Person(id="u-1", name="A", email="a@x", team="t-1", role="r")
    mixed: list[Record] = [person, Team(id="t-1", name="T"), person]
    assert orjson.dumps(_rendered(mixed)) == orjson.dumps([dump(r) for r in mixed])
    items = [Item(id=f"SKU{k}@loc-1", sku=f"SKU{k}", name="bolt", location="loc-1", unit_cost=cost)
             for k, cost in enumerate([1.5, float("nan"), float("inf"), None])]
    for fields in ((), ("id", "unit_cost")):
        expected = orjson.dumps([dump(i, *fields) for i in items])
        assert orjson.dumps(_rendered(items, *fields)) == expected
        assert orjson.dumps(_rendered(items, *fields)) == expected


def test_a_record_gone_takes_its_rendered_row_with_it() -> None:
    """Rows are kept by the record's id() only while it lives: a new record at a freed address (CPython reuses them
    at once) gets its own row, never the old record's."""
    cache = _dump_plan(Team, ()).rendered  # type: ignore[union-attr]
    assert cache is not None
    seen = set()
    for k in range(50):
        team = Team(id=f"t-{k}", name=f"Team {k}")
        seen.add(id(team))
        assert orjson.dumps(_rendered([team])) == orjson.dumps([dump(team)])
        key = id(team)
        assert key in cache.json
        del team  # freed at once (no cycle): its weak reference's callback drops the row
        assert key not in cache.json and key not in cache.refs
    assert len(seen) < 50  # addresses were reused: the check above did meet a reused id


@pytest.fixture(scope="module")
def env_and_box() -> Any:
    records, _ = big_workspace(200_000)
    env = agent_env(records)
    return env, env.toolbox


@pytest.mark.parametrize("tool", list(WORKLOADS))
def test_env_shows_the_plain_results_of_every_list_and_search_tool(env_and_box: Any, tool: str) -> None:
    env, box = env_and_box
    env.reset()
    for action in agent_actions(env, tool)[:40] * 2:  # the second pass from the kept rows
        call = action.tool_calls[0]
        plain = box.call(call.name, call.arguments)
        shown = env.step(action).messages[0]["content"]
        assert shown == orjson.dumps(plain.observation()).decode()
        assert env.audit[-1].result == plain.result


def test_a_written_record_is_shown_as_it_is_now(env_and_box: Any) -> None:
    env, box = env_and_box
    env.reset()
    listing = Action.call("mail_list_messages", {"folder": "inbox", "unread_only": True, "limit": 5})
    before = orjson.loads(env.step(listing).messages[0]["content"])
    assert before and not before[0]["read"]
    env.step(Action.call("mail_mark_read", {"message_ids": [before[0]["id"]]}))
    env.step(Action.call("mail_label", {"message_ids": [before[1]["id"]], "add": ["urgent"]}))
    after = orjson.loads(env.step(Action.call("mail_list_messages", {"folder": "inbox", "limit": 200})).messages[0][
        "content"])
    changed = {row["id"]: row for row in after}
    assert changed[before[1]["id"]]["labels"][-1] == "urgent"
    if before[0]["id"] in changed:
        assert changed[before[0]["id"]]["read"] is True
    assert after == box.call("mail_list_messages", {"folder": "inbox", "limit": 200}).result


@pytest.mark.parametrize("name", example_names())
def test_every_example_shows_the_plain_results_declared_tools_included(name: str) -> None:
    """The oracle's episode of each shipped example replayed: every read (built-in or declared: a declared tool picks
    fields of its op's rows) shows the JSON of what a plain `ToolBox.call` returns at that point."""
    spec = load_example(name)
    record = OracleTeacher(0).run(spec)[0]
    env = Env(spec, max_steps=10**6)
    env.reset()
    catalog, reads = spec_catalog(spec), 0
    for message in record.messages:
        if message["role"] != "assistant" or not message.get("tool_calls"):
            continue
        calls = tuple(ToolCallRequest(c["function"]["name"], c["function"]["arguments"]) for c in message["tool_calls"])
        plain = [env.toolbox.call(c.name, c.arguments) if catalog[c.name].kind == "read" else None for c in calls]
        shown = env.step(Action(message["content"], calls)).messages
        for outcome, tool_message in zip(plain, shown, strict=True):
            if outcome is not None:
                reads += 1
                assert tool_message["content"] == orjson.dumps(outcome.observation()).decode(), tool_message["name"]
        if env.done:
            break
    assert reads >= 1
