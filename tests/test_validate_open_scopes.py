"""Frames that allow a table's records by their ids alone (`_open_scopes`, hunt154): which selectors are open, which
writes make a record of the table, and the near misses made beside the right record."""

from __future__ import annotations

from typing import Any

from coworkenv.loading import parse_spec
from coworkenv.spec import ReferenceStep, ReferenceTurn, ToolCallSpec
from coworkenv.validate import validate_spec
from coworkenv.validate._mutation_core import Mutation
from coworkenv.validate._open_scopes import lands_in_scope, made_by, open_scope, open_scope_mutations
from tests.defects._core import base_spec, frame


def _with_selector(where: list[dict[str, Any]]) -> Any:
    spec = base_spec("synth:feature_flag_rollout@1")
    frame(spec)["rule"]["allow"].append({"app": "tickets", "table": "tickets", "id": None, "fields": None,
                                         "where": where})
    return parse_spec(spec)


def base_spec_parsed() -> Any:
    return parse_spec(base_spec("synth:feature_flag_rollout@1"))


def test_a_selector_by_open_id_conditions_alone_is_open() -> None:
    for op, value in (("not_equals", "SUP-1"), ("matches", "^SUP-3"), ("gt", "SUP-300"), ("not_contains", "x")):
        assert open_scope(_with_selector([{"field": "id", "op": op, "value": value}]), "tickets") == "tickets", op
    assert open_scope(_with_selector([{"field": "id", "op": "not_equals", "value": "SUP-1"}]), "mail") is None


def test_a_selector_listing_its_records_or_pinning_values_is_not_open() -> None:
    assert open_scope(base_spec_parsed(), "tickets") is None  # the shipped frame names the ticket by its id
    assert open_scope(_with_selector([{"field": "id", "op": "in", "value": ["SUP-1", "SUP-2"]}]), "tickets") is None
    assert open_scope(_with_selector([{"field": "id", "op": "not_equals", "value": "SUP-1"},
                                      {"field": "priority", "op": "equals", "value": "p3"}]), "tickets") is None


def test_made_by_tells_created_sent_and_named_records_apart() -> None:
    ids = {"reports/w14.csv": ("files", "files"), "SUP-1": ("tickets", "tickets")}
    create = ToolCallSpec(name="tickets_create", arguments={"title": "x"})
    assert made_by(create, "tickets_create", True, ids, "tickets", "tickets") == ""
    send = ToolCallSpec(name="mail_send", arguments={"to": ["a@b.c"], "in_reply_to": "msg-1"})
    assert made_by(send, "mail_send", False, ids, "mail", "messages") == ""
    write = ToolCallSpec(name="files_write_file", arguments={"path": "reports/w14.csv", "content": "a"})
    assert made_by(write, "files_write_file", False, ids, "files", "files") == "path"
    read = ToolCallSpec(name="files_write_file", arguments={"path": "notes/other.md", "content": "a"})
    assert made_by(read, "files_write_file", False, ids, "files", "files") is None


def test_the_named_write_is_made_again_at_a_new_id_beside_the_right_one() -> None:
    call = ToolCallSpec(name="files_write_file", arguments={"path": "reports/w14.csv", "content": "a"})
    ref = [ReferenceTurn(steps=[ReferenceStep(call=call), ReferenceStep(say="Done.")])]
    out = open_scope_mutations(ref, 0, 0, call, "files", "path", [])
    assert len(out) == 1 and out[0].code == "frame_scope_open"
    steps = out[0].reference[0].steps
    assert [s.call.arguments["path"] for s in steps[:2] if s.call] == ["reports/w14.csv", "reports/w14-2.csv"]
    assert steps[2].say == "Done."


def test_a_replay_counts_only_where_it_adds_to_the_open_table() -> None:
    """`lands_in_scope`: the replay's extra write made or changed a record of the open selector's table beyond the
    reference's run; a message the frame admits by another selector, or a change elsewhere, says nothing of it."""
    m = Mutation("duplicate_write", "reference[0].steps[0]", "x", [], code="frame_scope_open",
                 targets=("chat", "channels"))
    dm = ("chat", "channels", "dm-a-b", None)
    oracle = ((dm, ("chat", "messages", "chat-1", None)), ())
    assert not lands_in_scope(m, ((*oracle[0], ("chat", "messages", "chat-2", None)), ()), oracle)
    assert lands_in_scope(m, ((*oracle[0], ("chat", "channels", "dm-a-c", None)), ()), oracle)
    assert lands_in_scope(m, (((dm[0], dm[1], dm[2], "renamed"), oracle[0][1]), ()), oracle)
    assert lands_in_scope(Mutation("duplicate_write", "p", "x", [], code="frame_scope_open"), oracle, oracle)


def _open_unrelated(base: str, app: str, table: str, kept: str) -> dict[str, Any]:
    """`base` with its frame's selectors of `app.table` by id replaced by one admitting every record but `kept` (an
    untouched one): the hunt's `scope_id_not_equals` on a table no extra write of the reference's adds to."""
    spec = base_spec(base)
    allow = frame(spec)["rule"]["allow"]
    named = [s for s in allow if s["app"] == app and s["table"] == table and isinstance(s.get("id"), str)]
    assert named, base
    allow[allow.index(named[0])] = {**named[0], "id": None,
                                    "where": [{"field": "id", "op": "not_equals", "value": kept}]}
    return spec


def test_an_open_selector_no_replay_adds_to_is_not_rejected() -> None:
    """The three false rejections of the d154 hunt (defects156; main rejected them `frame_scope_open` only): an open
    selector on `chat.channels` beside the DM's message selector (a second DM is a message, admitted by the latter, as
    in the shipped frame), and on `inventory.items` where a second stock transfer from another item or a new id adds
    no item (the shipped frames pass the same replays)."""
    for spec in (_open_unrelated("example:meeting_reschedule", "chat", "channels", "c-product"),
                 _open_unrelated("example:restock_store_declared_tools", "inventory", "items",
                                 "BEAN-1K@store-lisbon")):
        result = validate_spec(spec, policy="strict")
        codes = [e.code for g in result.gates for e in g.errors]
        assert "frame_scope_open" not in codes, (spec["capability"], codes)
