"""Copy-on-write worlds: a fork gives the same results, hashes, diffs and scores as a world of its own, and never
leaks its writes into its base or into other forks."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coworkenv import Action, Env, OraclePolicy
from coworkenv.apps import APPS, TOOLS
from coworkenv.examples import example_names, load_example
from coworkenv.tools import ToolBox
from coworkenv.world import World, format_time
from tests.test_index import START, _check_queries, _state, event, line, message, text, ticket, when

Write = tuple[str, Any, Any]


def _draw_write(world: World, step: int, data: st.DataObject, kinds: list[str]) -> Write:
    """One write, drawn against `world`'s records: (kind, target, value)."""
    kind = data.draw(st.sampled_from(kinds))
    ids = sorted(m.id for m in world.table("mail", "messages"))
    if kind in ("label", "move", "delete") and ids:
        return kind, data.draw(st.sampled_from(ids)), None
    if kind == "ticket":
        return kind, data.draw(text) or "t", data.draw(text)
    if kind == "event":
        return kind, data.draw(text) or "e", step
    return "put", f"log-new-{step}", (data.draw(when), data.draw(text))


def _apply(world: World, box: ToolBox, write: Write) -> None:
    kind, target, value = write
    if kind == "label":
        box.call("mail_label", {"message_ids": [target], "add": ["q1"]})
    elif kind == "move":
        box.call("mail_move", {"message_id": target, "folder": "archive"})
    elif kind == "delete":
        world.table("mail", "messages").delete(target)
    elif kind == "ticket":
        box.call("tickets_create", {"title": target, "description": value})
    elif kind == "event":
        box.call("calendar_create_event", {"title": target, "attendees": ["bo@x.test"],
                                           "start": format_time(START + 3600 * value),
                                           "end": format_time(START + 3600 * value + 7200)})
    else:
        table = world.table("logs", "lines")
        table.put(table.model(id=target, service="svc-b", ts=value[0], level="ERROR", message=value[1]))


def _same(a: World, b: World) -> None:
    assert a.content_hash() == b.content_hash()
    assert a.changes() == b.changes()
    assert a.to_wire() == b.to_wire()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=st.lists(message, max_size=10), tickets=st.lists(ticket, max_size=6), lines=st.lists(line, max_size=10),
    events=st.lists(event, max_size=6), data=st.data(),
)
def test_a_fork_equals_a_world_of_its_own_and_leaks_nothing(
    messages: list[dict[str, Any]], tickets: list[dict[str, Any]], lines: list[dict[str, Any]],
    events: list[tuple[int, int, str, list[str], str]], data: st.DataObject,
) -> None:
    state = _state(messages, tickets, lines, events)
    base = World.from_wire(APPS, state, START, 30, "u-ana")
    base_wire, base_hash = base.to_wire(), base.content_hash()
    fork, other, own = base.fork(), base.fork(), World.from_wire(APPS, state, START, 30, "u-ana")
    boxes = {id(w): ToolBox(w, TOOLS, TOOLS) for w in (fork, other, own)}
    if data.draw(st.booleans()):  # indexes built into the shared storage before any fork writes
        _check_queries(boxes[id(other)], data)
    for step in range(data.draw(st.integers(1, 6))):
        write = _draw_write(own, step, data, ["label", "move", "ticket", "delete", "put", "event"])
        for w in (fork, own):  # the same write to the fork and to the world of its own
            _apply(w, boxes[id(w)], write)
        if data.draw(st.booleans()):  # another fork of the same base writes something else meanwhile
            _apply(other, boxes[id(other)], _draw_write(other, step + 50, data, ["ticket", "put", "move", "delete"]))
        _same(fork, own)
        _check_queries(boxes[id(fork)], data)
        assert base.content_hash() == base_hash and base.to_wire() == base_wire
    snap = fork.snapshot()
    fork.advance(90)
    own.advance(90)
    _same(fork, own)
    fork.restore(snap)
    own.restore(own.snapshot())
    fork.rewind()
    own.rewind()
    _same(fork, own)
    assert fork.content_hash() == base_hash and fork.to_wire() == base_wire
    assert all(t.shared for t in other.tables() if t.name not in ("messages", "lines", "tickets")), \
        "a fork shares the tables it never wrote"
    _check_queries(boxes[id(fork)], data)


def _actions(spec: Any, rng: random.Random) -> list[Action]:
    """The reference episode's actions with random tool calls (reads, writes, bad ones) spliced in."""
    env = Env(spec)
    env.reset()
    policy = OraclePolicy(spec)
    played: list[Action] = []
    while not env.done:
        action = policy.act(env)
        env.step(action)
        played.append(action)
    calls = [a for a in played if a.tool_calls]
    out: list[Action] = []
    for action in played:
        for _ in range(rng.randint(0, 2)):
            if calls and rng.random() < 0.7:
                out.append(rng.choice(calls))  # a repeated call: writes twice, reads after writes
            else:
                out.append(Action.call(rng.choice([*env.toolbox.exposed, "no_such_tool"]), {"bogus": 1}))
        out.append(action)
    return out


def test_envs_sharing_a_spec_play_like_an_env_with_its_own_world() -> None:
    rng = random.Random(14)
    for name in example_names():
        spec = load_example(name)
        for trial in range(3):
            actions = _actions(spec, rng)
            shared, neighbour, own = Env(spec), Env(spec), Env(spec, share_world=False)
            for env in (shared, neighbour, own):
                env.reset()
            for k, action in enumerate(actions):
                if own.done:
                    break
                got, want = shared.step(action), own.step(action)
                assert got.messages == want.messages, (name, trial, k)
                assert (got.reward, got.terminated, got.truncated) == (want.reward, want.terminated, want.truncated)
                assert shared.state.content_hash() == own.state.content_hash()
                if not neighbour.done and k % 2 == 0:  # a neighbour on the same base plays something else
                    neighbour.step(actions[-1 - k])
            assert [e.as_dict() for e in shared.audit] == [e.as_dict() for e in own.audit]
            assert shared.state.changes() == own.state.changes()
            assert shared.score().as_dict() == own.score().as_dict()
            shared.reset()
            own.reset()
            assert shared.state.content_hash() == own.state.content_hash() == shared.initial_hash
            assert shared.state.to_wire() == own.state.to_wire()


def test_envs_of_a_spec_share_one_world_which_goes_when_unused() -> None:
    import gc
    import weakref

    from coworkenv.env import RECENT_BASES, base_world
    from coworkenv.loading import load_spec

    text_of_spec = load_example(example_names()[0]).to_json()
    spec = load_spec(text_of_spec)
    first, second = Env(spec), Env(spec)
    base = weakref.ref(base_world(spec))
    assert first.state._base_world is second.state._base_world is base()
    del first, second
    for _ in range(RECENT_BASES):  # other specs push this one out of the recently used bases
        Env(load_spec(text_of_spec))
    gc.collect()
    assert base() is None, "no live env and not recently used: the shared world is freed"
    assert Env(spec).state.content_hash() == Env(load_spec(text_of_spec)).initial_hash
