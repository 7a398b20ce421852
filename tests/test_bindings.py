"""Spec-declared tools: declared names and schemas, bound to app operations, validated with field paths."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from coworkenv import Action, Env
from coworkenv.agents import NoopPolicy, OraclePolicy
from coworkenv.binding_check import binding_issues
from coworkenv.examples import load_example
from coworkenv.loading import SpecError, load_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import EnvSpec

EXAMPLE = "triage_escalation_declared_tools"


def _without_faults() -> EnvSpec:
    return load_example(EXAMPLE).model_copy(update={"faults": None})


def _with_decl(change: dict[str, Any]) -> dict[str, Any]:
    data = load_example(EXAMPLE).model_dump(mode="json", by_alias=True)
    send = next(d for d in data["tool_decls"] if d["name"] == "gmail_send_message")
    for key, value in change.items():
        target = send
        *head, last = key.split(".")
        for part in head:
            target = target[part]
        target[last] = value
    return data


def test_agent_sees_the_declared_schema_exactly() -> None:
    env = Env(_without_faults())
    _, info = env.reset()
    tools = {t["function"]["name"]: t for t in info["tools"]}
    assert list(tools) == sorted(["directory_search", "jira_search_issues", "jira_get_issue", "jira_update_issue",
                                  "gmail_send_message"])
    declared = next(d for d in env.spec.tool_decls if d.name == "gmail_send_message")
    assert tools["gmail_send_message"]["function"]["parameters"] == declared.parameters
    assert "mail_send" not in tools


def test_string_recipient_is_converted_and_audited_under_the_declared_name() -> None:
    env = Env(_without_faults())
    env.reset()
    args = {"to": "ravi.menon@northwind.test", "subject": "BUG-311", "body": "hello"}
    (message,) = env.step(Action.call("gmail_send_message", args)).messages
    assert orjson.loads(message["content"]) == {"message_id": "msg-1"}
    sent = env.state.table("mail", "messages").get("msg-1")
    assert sent.to == ["ravi.menon@northwind.test"]
    entry = env.audit[-1]
    assert (entry.tool, entry.op, entry.args) == ("gmail_send_message", "mail_send", args)


def test_value_mapping_and_result_shaping() -> None:
    env = Env(_without_faults())
    env.reset()
    result = env.step(Action.call("jira_update_issue", {"issue_key": "BUG-311", "priority": "high"}))
    assert orjson.loads(result.messages[0]["content"]) == {"key": "BUG-311", "state": "open", "priority": "p2"}
    found = env.step(Action.call("jira_search_issues", {"text": "misaligned"}))
    assert orjson.loads(found.messages[0]["content"]) == {
        "issues": [{"key": "BUG-305", "summary": "Checkout button misaligned on small screens", "state": "open",
                    "priority": "p4"}]}


def test_declared_schema_rejects_bad_arguments_without_touching_state() -> None:
    env = Env(_without_faults())
    env.reset()
    tickets = env.state.table("tickets", "tickets")
    before = tickets.get("BUG-311")
    result = env.step(Action.call("jira_update_issue", {"issue_key": "BUG-311", "priority": "p1"}))
    error = orjson.loads(result.messages[0]["content"])["error"]
    assert "priority" in error and "not one of" in error
    assert tickets.get("BUG-311") == before and not env.audit[-1].ok


def test_checks_match_declared_names() -> None:
    spec = _without_faults()
    assert run_episode(Env(spec), OraclePolicy(spec)).result.score == 1.0
    noop = run_episode(Env(spec), NoopPolicy()).result
    failed = {c.id for c in noop.checks if not c.passed}
    assert {"declared_send", "update_before_mail"} <= failed


@pytest.mark.parametrize(("change", "path", "code"), [
    ({"bind.op": "mail_sned"}, "tool_decls[3].bind.op", "unknown_op"),
    ({"bind.args.to": "to"}, "tool_decls[3].bind.args.to", "schema_mismatch"),
    ({"bind.args.to": {"to": "recipients"}}, "tool_decls[3].bind.args.to.to", "unknown_op_parameter"),
    ({"bind.args.to": {"to": "to", "values": {"a": "b"}, "unmapped_to": "recipients"}},
     "tool_decls[3].bind.args.to.unmapped_to", "unknown_op_parameter"),
    ({"parameters.properties.cc": {"type": "string"}}, "tool_decls[3].bind.args", "argument_not_mapped"),
    ({"bind.args.extra": "cc"}, "tool_decls[3].bind.args.extra", "unknown_argument"),
    ({"bind.defaults": {"cc": 5}}, "tool_decls[3].bind.defaults.cc", "schema_mismatch"),
    ({"parameters.required": ["to", "body"]}, "tool_decls[3].bind.args.subject", "optional_to_required"),
    ({"name": "jira_get_issue"}, "tool_decls[3].name", "duplicate_tool"),
    ({"parameters": {"type": "array"}}, "tool_decls[3].parameters.type", "invalid_schema"),
])
def test_binding_issues_name_the_field(change: dict[str, Any], path: str, code: str) -> None:
    data = _with_decl(change)
    spec = EnvSpec.model_validate(data)
    issues = binding_issues(spec)
    assert (path, code) in {(i.path, i.code) for i in issues}, issues
    with pytest.raises(SpecError, match=path.replace("[", r"\[").replace("]", r"\]")):
        load_spec(data)


def test_missing_required_op_parameter_is_reported() -> None:
    data = _with_decl({"parameters.properties": {"to": {"type": "string"}, "body": {"type": "string"}},
                       "parameters.required": ["to", "body"],
                       "bind.args": {"to": {"to": "to", "convert": ["to_list"]}, "body": "body"}})
    issues = binding_issues(EnvSpec.model_validate(data))
    assert [(i.code, i.path) for i in issues] == [("op_parameter_missing", "tool_decls[3].bind")]
    assert "subject" in issues[0].message


def test_sound_example_has_no_binding_issues_and_keeps_ids_of_plain_specs() -> None:
    assert binding_issues(load_example(EXAMPLE)) == []
    plain = load_example("incident_rollback")
    assert "tool_decls" not in plain.to_json() or plain.tool_decls == []
    assert plain.id == EnvSpec.model_validate_json(plain.to_json()).id


def test_an_unserved_tool_is_offered_and_fails_every_call_without_touching_state() -> None:
    """`bind.unserved`: the tool is offered under its schema, every call is a tool error with that text; the op's
    required parameters need no argument (the op only names the app)."""
    error = "404 Not Found: the gmail service has no endpoint /gmail/send"
    data = _with_decl({"bind.args": {n: {"to": None} for n in ("to", "subject", "body")}, "bind.unserved": error})
    spec = EnvSpec.model_validate(data)
    assert binding_issues(spec) == []
    env = Env(spec.model_copy(update={"faults": None}))
    _, info = env.reset()
    assert "gmail_send_message" in {t["function"]["name"] for t in info["tools"]}
    (message,) = env.step(Action.call("gmail_send_message", {"to": "a@b.test", "subject": "s", "body": "b"})).messages
    assert error in message["content"]
    assert env.state.table("mail", "messages").get("msg-1") is None and not env.audit[-1].ok
    # without it the binding dumps as before the field existed (spec ids of other specs stay)
    assert "unserved" not in load_example(EXAMPLE).to_json()


def test_fixed_result_fields_join_the_shaped_result() -> None:
    data = _with_decl({"bind.result": {"fields": {"message_id": "id"}, "const": {"status": "sent"}}})
    env = Env(EnvSpec.model_validate(data).model_copy(update={"faults": None}))
    env.reset()
    args = {"to": "ravi.menon@northwind.test", "subject": "BUG-311", "body": "hello"}
    (message,) = env.step(Action.call("gmail_send_message", args)).messages
    assert orjson.loads(message["content"]) == {"message_id": "msg-1", "status": "sent"}
    assert '"const"' not in load_example(EXAMPLE).to_json()


def test_a_wrapped_list_shows_its_count_and_the_arguments_it_echoes() -> None:
    from coworkenv.bindings import ResultShape, shape_result

    shape = ResultShape(fields={"id": "id"}, wrap="results", count="total", echo={"query": "q"})
    assert shape_result(shape, [{"id": "a", "x": 1}, {"id": "b"}], {"q": "pay"}) == {
        "results": [{"id": "a"}, {"id": "b"}], "total": 2, "query": "pay"}
    assert shape_result(shape, [], {}) == {"results": [], "total": 0, "query": None}
    assert ResultShape(wrap="results").model_dump() == {"fields": {}, "wrap": "results"}  # unset: dumped as before
    with pytest.raises(ValueError, match="give `wrap` too"):
        ResultShape(count="total")


def test_a_shape_shows_a_held_record_with_the_services_fields() -> None:
    from coworkenv.bindings import ResultShape, shape_result

    # the service's records: their fields in its order; those `fields` name (null here) are the app's, as now
    held: dict[str, dict[str, Any]] = {"c-1": {"contact_id": None, "title": "Engineer", "name": None,
                                               "note": "call first"},
            "c-2": {"contact_id": None, "name": None}}
    shape = ResultShape(fields={"contact_id": "id", "name": "name", "notes": "notes", "done": "flags.done"},
                        optional=["done"], records=held)
    app = {"id": "c-1", "name": "Dana (renamed)", "notes": "call first\ntitle: Engineer", "flags": {}}
    assert shape_result(shape, app) == {"contact_id": "c-1", "title": "Engineer", "name": "Dana (renamed)",
                                        "note": "call first"}  # no `notes` (the service has none), `title` held
    assert shape_result(shape, [app, {"id": "c-2", "name": "Lee"}]) == [  # each item of a list
        {"contact_id": "c-1", "title": "Engineer", "name": "Dana (renamed)", "note": "call first"},
        {"contact_id": "c-2", "name": "Lee"}]
    made = {"id": "c-9", "name": "New", "notes": "", "flags": {"done": True}}  # a record a call made: as shaped
    assert shape_result(shape, made) == {"contact_id": "c-9", "name": "New", "notes": "", "done": True}
    # the record under a field of the op's result (a delete's removed record), wrapped beside its status
    removed = ResultShape(fields={"contact_id": "job.id", "name": "job.name"}, record_id="job.id", records=held,
                          wrap="contact", beside={"status": "deleted"})
    assert shape_result(removed, {"id": "c-1", "deleted": True, "job": {"id": "c-1", "name": "Dana"}}) == {
        "status": "deleted", "contact": {"contact_id": "c-1", "title": "Engineer", "name": "Dana",
                                         "note": "call first"}}
    # a field the call gives is shown as given, in place of the record's (a ticket closed with its resolution)
    closing = ResultShape(fields={"ticket_id": "id", "resolution": "resolution"}, given={"resolution": "resolution"})
    assert shape_result(closing, {"id": "t-1", "resolution": "old"}, {"resolution": "fixed"}) == {
        "resolution": "fixed", "ticket_id": "t-1"}
    assert "records" not in ResultShape(fields={"id": "id"}).model_dump()  # unset: dumped as before
    with pytest.raises(ValueError, match="give `fields` too"):
        ResultShape(records=held)


def test_a_shape_shows_the_calls_arguments_and_time_as_the_record_a_write_made() -> None:
    from coworkenv.bindings import ResultShape, shape_result

    # a service's write answering the record it made of the request: the arguments as given, then its time
    shape = ResultShape(wrap="message", beside={"status": "sent"}, given={"to": "to", "cc": "cc"}, stamp="timestamp")
    assert shape_result(shape, {"id": "msg-1"}, {"to": "a@x.test"}, "2026-03-02T09:00:00Z") == {
        "status": "sent", "message": {"to": "a@x.test", "cc": None, "timestamp": "2026-03-02T09:00:00Z"}}
    picked = ResultShape(fields={"id": "id"}, given={"q": "q"})  # picked fields follow the given ones
    assert shape_result(picked, {"id": "a", "x": 1}, {"q": "pay"}) == {"q": "pay", "id": "a"}
    assert ResultShape(fields={"id": "id"}).model_dump() == {"fields": {"id": "id"}, "wrap": None}  # dumped as before
    data = _with_decl({"bind.result": {"wrap": "message", "given": {"subject": "subject"}, "stamp": "at"}})
    env = Env(EnvSpec.model_validate(data).model_copy(update={"faults": None}))
    env.reset()
    args = {"to": "ravi.menon@northwind.test", "subject": "BUG-311", "body": "hello"}
    (message,) = env.step(Action.call("gmail_send_message", args)).messages
    sent_at = env.state.table("mail", "messages").get("msg-1").sent_at  # the call's time, as the mail's
    assert orjson.loads(message["content"]) == {"message": {"subject": "BUG-311", "at": sent_at}}


def test_a_held_value_stands_while_the_app_shows_it_as_loaded_and_app_words_become_the_services() -> None:
    from coworkenv.bindings import Case, ResultShape, shape_result

    # import34: `loaded` (the app's value as the world loaded, where it differs from the held one), `values`
    # (the service's word for the app's), `cases` (a word made of several app fields), `stamp_style`
    shape = ResultShape(fields={"ticket_id": "id", "priority": "priority", "to": "to"},
                        values={"priority": {"p2": "high", "p3": "medium"}},
                        records={"t-1": {"ticket_id": None, "priority": "normal", "to": "a@x.test"}},
                        loaded={"t-1": {"priority": "medium", "to": ["a@x.test"]}})
    assert shape_result(shape, {"id": "t-1", "priority": "p3", "to": ["a@x.test"]}) == {
        "ticket_id": "t-1", "priority": "normal", "to": "a@x.test"}  # as loaded: the service's own
    assert shape_result(shape, {"id": "t-1", "priority": "p2", "to": ["b@x.test"]}) == {
        "ticket_id": "t-1", "priority": "high", "to": ["b@x.test"]}  # written since: the app's, in its words
    assert shape_result(shape, {"id": "t-9", "priority": "p1", "to": []})["priority"] == "p1"  # unnamed: as it is
    status = ResultShape(fields={"status": "word"}, cases={"status": [
        Case(path="word"), Case(path="done", equals=True, shows="completed"), Case(shows="pending")]})
    assert [shape_result(status, r)["status"] for r in ({"word": "blocked", "done": True}, {"done": True}, {})] == [
        "blocked", "completed", "pending"]
    assert Case(path="done", equals=True, shows="completed").model_dump() == {
        "path": "done", "equals": True, "shows": "completed"}
    # the stamp: with `records`, a held record naming it alone shows it
    fetched = ResultShape(fields={"url": "url"}, record_id="url", stamp="fetched_at", stamp_style="isoformat",
                          records={"https://a.test": {"url": None, "fetched_at": None}})
    assert shape_result(fetched, {"url": "https://a.test"}, {}, "2026-03-02T09:00:00+00:00") == {
        "url": "https://a.test", "fetched_at": "2026-03-02T09:00:00+00:00"}
    assert shape_result(fetched, {"url": "https://b.test"}, {}, "2026-03-02T09:00:00+00:00") == {
        "url": "https://b.test"}
    assert not {"loaded", "values", "cases", "stamp_style"} & set(ResultShape(fields={"id": "id"}).model_dump())
    with pytest.raises(ValueError, match="give `records` too"):
        ResultShape(fields={"id": "id"}, loaded={"x": {}})


def test_a_value_the_service_keeps_as_written_is_kept_beside_the_record_and_shown_by_later_answers() -> None:
    from coworkenv.bindings import ResultShape

    # import35: `ArgBinding.kept` (a write's value kept as written, the app's own value mapped as before; `to` null:
    # only kept), `ResultShape.kept` (`shown`: in place of the fields an answer shows; `added`: the others after)
    data = load_example(EXAMPLE).model_dump(mode="json", by_alias=True)
    decls = {d["name"]: d for d in data["tool_decls"]}
    update, get = decls["jira_update_issue"], decls["jira_get_issue"]
    update["parameters"]["properties"]["category"] = {"type": "string"}
    update["bind"]["args"]["priority"]["kept"] = "priority"
    update["bind"]["args"]["category"] = {"to": None, "kept": "category"}
    update["bind"]["result"]["kept"] = "shown"
    get["bind"]["result"]["kept"] = "added"
    spec = EnvSpec.model_validate(data).model_copy(update={"faults": None})
    assert not binding_issues(spec)
    env = Env(spec)
    env.reset()
    answer = env.step(Action.call("jira_update_issue", {"issue_key": "BUG-311", "priority": "high",
                                                        "category": "ui"})).messages[-1]["content"]
    assert orjson.loads(answer) == {"key": "BUG-311", "state": "open", "priority": "high"}  # shown: no category
    ticket = env.state.table("tickets", "tickets").get("BUG-311")
    assert ticket is not None and ticket.priority == "p2"  # the app's value as mapped
    got = orjson.loads(env.step(Action.call("jira_get_issue", {"issue_key": "BUG-311"})).messages[-1]["content"])
    assert (got["priority"], list(got)[-1], got["category"]) == ("high", "category", "ui")
    other = orjson.loads(env.step(Action.call("jira_get_issue", {"issue_key": "BUG-305"})).messages[-1]["content"])
    assert other["priority"] == "p4" and "category" not in other
    # a spec without them dumps as before; a write of an app keeping nothing, or a read, cannot keep
    assert "kept" not in ResultShape(fields={"id": "id"}).model_dump()
    send = _with_decl({"bind.args.subject": {"to": "subject", "kept": "subject"}})
    assert [i.code for i in binding_issues(EnvSpec.model_validate(send))] == ["kept_unheld"]
    with pytest.raises(ValueError, match="give `fields` too"):
        ResultShape(kept="added")


def test_the_services_edges_name_declared_arguments_and_dump_as_before_without_them() -> None:
    from coworkenv.bindings import ArgBinding, Binding, DayWindow, ResultShape

    # import36: `not_found`'s {names}, `cut` and `item_filters` name declared (or undeclared) arguments; bindings
    # and shapes without the new fields dump as before (spec ids stay)
    bad = _with_decl({"bind.not_found": "Message {message_id} not found", "bind.cut": {"argument": "limit"},
                      "bind.item_filters": {"folder": {"path": "folder"}}})
    assert sorted(i.path.rsplit(".", 1)[-1] for i in binding_issues(EnvSpec.model_validate(bad))) == [
        "argument", "folder", "not_found"]
    assert not binding_issues(EnvSpec.model_validate(_with_decl({"bind.not_found": "Mail to {to} not found"})))
    assert set(Binding(op="mail_send").model_dump()) == {"op", "args", "defaults", "result"}
    assert "blank" not in ArgBinding(to="x").model_dump() and "strict_day" not in ArgBinding(to="x").model_dump()
    assert not {"snippets", "failing"} & set(ResultShape().model_dump())
    assert "strict" not in DayWindow(day="d", start="s", end="e").model_dump()
