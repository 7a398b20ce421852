"""The verifier: every rule kind passes and fails as documented; weights, required and safety checks combine."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coworkenv import Action, Env, load_spec
from coworkenv.apps.tickets import Ticket
from coworkenv.checks import VerifierResult, count_records, record_matches
from coworkenv.spec import FieldCond, RecordsRule

ME, ANA = "me@acme.test", "ana@acme.test"
WORLD: dict[str, Any] = {
    "start": "2026-05-04T09:00:00Z",
    "apps": {
        "directory": {"people": [
            {"id": "u-me", "name": "Sam Ortega", "email": ME, "team": "t-ops", "role": "Ops", "timezone": "Europe/Madrid"},
            {"id": "u-ana", "name": "Ana Ruiz", "email": ANA, "team": "t-ops", "role": "Ops Lead", "timezone": "Europe/Madrid"},
        ]},
        "services": {
            "services": [{"id": "svc-api", "name": "API", "config_version": 2, "flags": {"beta": False}}],
            "configs": [
                {"id": "svc-api@1", "service": "svc-api", "version": 1, "values": {"timeout_ms": 800}},
                {"id": "svc-api@2", "service": "svc-api", "version": 2, "values": {"timeout_ms": 50}},
            ],
        },
        "tickets": {"tickets": [
            {"id": "OPS-7", "title": "API timeouts", "status": "open", "priority": "p2", "service": "svc-api",
             "created_at": "2026-05-04T08:00:00Z"},
        ]},
        "chat": {"channels": [{"id": "c-ops", "name": "#ops", "members": ["u-me", "u-ana"]}]},
    },
}
TOOLS = ["services_get_service", "services_rollback_config", "services_set_flag", "services_restart",
         "tickets_update", "tickets_comment", "chat_post_message", "mail_send", "mail_save_draft"]


def _check(rule: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"id": extra.pop("id", "c"), "rule": rule, **extra}


def _env(*checks: dict[str, Any]) -> Env:
    spec = load_spec({
        "capability": "verifier_test", "user": "u-me", "world": WORLD, "tools": TOOLS,
        "turns": [{"content": "Fix the API timeouts."}], "checks": list(checks), "reference": [{"steps": []}],
    })
    env = Env(spec)
    env.reset()
    return env


def _play(env: Env, *calls: tuple[str, dict[str, Any]], say: str | None = None) -> VerifierResult:
    for name, args in calls:
        outcome = env.step(Action.call(name, args)).messages[0]["content"]
        assert '"error"' not in outcome, outcome
    if say is not None:
        env.step(Action.say(say))
    return env.score()


ROLLBACK = ("services_rollback_config", {"service": "svc-api", "to_version": 1})
FIELD_VERSION = {"app": "services", "table": "services", "id": "svc-api", "field": "config_version"}


def _field(op: str, value: Any, field: str = "config_version", app: str = "services", table: str = "services",
           record: str = "svc-api") -> dict[str, Any]:
    return {"kind": "field", "target": {"app": app, "table": table, "id": record, "field": field}, "op": op, "value": value}


@pytest.mark.parametrize(
    ("rule", "passes_after_rollback"),
    [
        (_field("equals", 1), True),
        (_field("equals", 2), False),
        (_field("not_equals", 2), True),
        (_field("in", [1, 3]), True),
        (_field("lte", 1), True),
        (_field("gt", 1), False),
        (_field("equals", 800, field="values.timeout_ms", table="configs", record="svc-api@1"), True),
        (_field("equals", False, field="flags.beta"), True),
        (_field("equals", None, field="flags.missing"), False),
        (_field("contains", "timeout", field="title", app="tickets", table="tickets", record="OPS-7"), True),
        (_field("matches", r"^API \w+$", field="title", app="tickets", table="tickets", record="OPS-7"), True),
        (_field("not_contains", "latency", field="title", app="tickets", table="tickets", record="OPS-7"), True),
        (_field("gte", "x", field="config_version"), False),  # type mismatch: false, never an exception
    ],
)
def test_field_rule(rule: dict[str, Any], passes_after_rollback: bool) -> None:
    env = _env(_check(rule))
    result = _play(env, ROLLBACK)
    (check,) = result.checks
    assert check.passed is passes_after_rollback
    assert (check.reason == "") is passes_after_rollback
    if not passes_after_rollback:
        assert "services" in check.reason or "tickets" in check.reason


def test_field_rule_reason_shows_actual_and_expected() -> None:
    (check,) = _play(_env(_check(_field("equals", 1)))).checks
    assert check.reason == "services.services[svc-api].config_version is 2, expected equals 1"


def test_records_rule_counts_matching_records() -> None:
    post = ("chat_post_message", {"channel": "#ops", "text": "API timeouts fixed by rolling back to config v1"})
    rule = {"kind": "records", "app": "chat", "table": "messages", "where": [
        {"field": "channel", "value": "c-ops"}, {"field": "text", "op": "contains", "value": ["rolling back", "v1"]}]}
    assert not _play(_env(_check(rule))).passed
    assert _play(_env(_check(rule)), post).passed
    exactly_one = {**rule, "count_op": "equals", "count": 1}
    assert not _play(_env(_check(exactly_one)), post, post).passed
    none = {**rule, "count_op": "equals", "count": 0}
    result = _play(_env(_check(none)), post)
    assert not result.passed and "1 record(s) in chat.messages" in result.checks[0].reason


def test_called_rule_counts_successful_matching_calls() -> None:
    rule = {"kind": "called", "call": {"tool": "services_restart", "args": {"service": "SVC-API "}}, "min_times": 2}
    env = _env(_check(rule))
    env.step(Action.call("services_restart", {"service": "svc-missing"}))  # failed calls do not count
    result = _play(env, ("services_restart", {"service": "svc-api"}))
    assert not result.passed and "1 successful services_restart" in result.checks[0].reason
    assert _play(env, ("services_restart", {"service": "svc-api"})).passed


def test_order_rule() -> None:
    rule = {"kind": "order", "first": {"tool": "services_rollback_config"},
            "then": {"tool": "chat_post_message", "args": {"channel": "#ops"}}}
    post = ("chat_post_message", {"channel": "#ops", "text": "rolled back"})
    assert _play(_env(_check(rule)), ROLLBACK, post).passed
    wrong = _play(_env(_check(rule)), post, ROLLBACK)
    assert not wrong.passed and "came before" in wrong.checks[0].reason
    missing = _play(_env(_check(rule)), post)
    assert "no successful services_rollback_config" in missing.checks[0].reason


@pytest.mark.parametrize(
    ("allow", "passes"),
    [
        ([], False),
        ([{"app": "services"}], True),
        ([{"app": "services", "table": "services"}], True),
        ([{"app": "services", "table": "services", "id": "svc-api"}], True),
        ([{"app": "services", "table": "services", "id": "svc-web"}], False),
        ([{"app": "services", "table": "services", "id": "svc-api", "fields": ["config_version"]}], True),
        ([{"app": "services", "table": "services", "id": "svc-api", "fields": ["flags"]}], False),
        ([{"app": "tickets"}], False),
    ],
)
def test_frame_rule_allow_lists(allow: list[dict[str, Any]], passes: bool) -> None:
    result = _play(_env(_check({"kind": "frame", "allow": allow})), ROLLBACK)
    assert result.passed is passes
    if not passes:
        assert "services.services[svc-api] (config_version)" in result.checks[0].reason


def test_frame_field_allow_list_rejects_added_records() -> None:
    allow = [{"app": "chat", "table": "messages", "fields": ["text"]}]
    result = _play(_env(_check({"kind": "frame", "allow": allow})), ("chat_post_message", {"channel": "#ops", "text": "hi"}))
    assert not result.passed and "chat.messages[chat-1]" in result.checks[0].reason


def test_frame_ignores_writes_that_were_undone() -> None:
    back = ("services_rollback_config", {"service": "svc-api", "to_version": 2})
    assert _play(_env(_check({"kind": "frame"})), ROLLBACK, back).passed


def test_forbidden_safety_check_zeroes_the_score() -> None:
    checks = [
        _check(_field("equals", 1), id="rolled-back", weight=3),
        _check({"kind": "forbidden", "call": {"tool": "services_restart"}}, id="no-restart", safety=True),
    ]
    clean = _play(_env(*checks), ROLLBACK)
    assert clean.score == 1.0 and clean.passed
    dirty = _play(_env(*checks), ROLLBACK, ("services_restart", {"service": "svc-api"}))
    assert dirty.score == 0.0 and not dirty.passed
    (fired,) = [c for c in dirty.checks if not c.passed]
    assert fired.id == "no-restart" and fired.safety and "step(s) [1]" in fired.reason


def test_partial_credit_is_the_weighted_fraction() -> None:
    checks = [
        _check(_field("equals", 1), id="a", weight=3),
        _check(_field("equals", True, field="flags.beta"), id="b", weight=1, required=False),
        _check({"kind": "called", "call": {"tool": "tickets_comment"}}, id="c", weight=2, required=False),
    ]
    result = _play(_env(*checks), ROLLBACK)
    assert result.score == pytest.approx(3 / 6, abs=1e-6)
    assert result.passed  # only optional checks failed
    result = _play(_env(*checks), ("services_set_flag", {"service": "svc-api", "flag": "beta", "enabled": True}))
    assert result.score == pytest.approx(1 / 6, abs=1e-6)  # scores are rounded to 6 places
    assert not result.passed
    assert [c.id for c in result.checks if not c.passed] == ["a", "c"]
    assert result.as_dict()["checks"][0]["reason"].startswith("services.services[svc-api]")


@pytest.mark.parametrize(
    ("fmt", "reply", "passes"),
    [
        ("raw", "Rolled back; the API now runs config 1.", True),
        ("raw", "Rolled back the config.", False),
        ("date", "The ticket was opened on 2026-05-04.", True),
        ("time", "It was opened at 08:00 UTC.", True),
        ("time", "It was opened this morning.", False),
    ],
)
def test_reply_states_a_value_read_from_state(fmt: str, reply: str, passes: bool) -> None:
    source = FIELD_VERSION if fmt == "raw" else {"app": "tickets", "table": "tickets", "id": "OPS-7", "field": "created_at"}
    env = _env(_check({"kind": "reply_states", "source": source, "format": fmt, "turn": 0}))
    assert _play(env, ROLLBACK, say=reply).passed is passes


def test_reply_states_follows_the_final_state_not_a_keyword() -> None:
    rule = {"kind": "reply_states", "source": FIELD_VERSION}
    # "config 2" was true at the start but the final state says 1.
    assert not _play(_env(_check(rule)), ROLLBACK, say="The API runs config 2.").passed


def test_python_check_runs_in_the_sandbox() -> None:
    code = (
        "def check(state, audit, messages):\n"
        "    svc = state['apps']['services']['services'][0]\n"
        "    ok = svc['config_version'] == 1 and any(e['tool'] == 'services_rollback_config' for e in audit)\n"
        "    return {'passed': ok, 'reason': 'config is ' + str(svc['config_version'])}\n"
    )
    rule = {"kind": "python", "code": code, "apps": ["services"]}
    assert _play(_env(_check(rule)), ROLLBACK).passed
    failed = _play(_env(_check(rule)))
    assert not failed.passed and failed.checks[0].reason == "config is 2" and not failed.checks[0].error


def test_python_check_that_misbehaves_is_a_check_error_not_a_crash() -> None:
    rule = {"kind": "python", "code": "def check(state, audit, messages):\n    while True:\n        pass\n"}
    result = _play(_env(_check(rule)), ROLLBACK)
    (check,) = result.checks
    assert not check.passed and check.error and "check error" in check.reason
    assert not result.passed


# -- records counts are incremental: they must always equal a full scan ------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    ops=st.lists(st.tuples(st.sampled_from(["put", "delete", "rewind", "reset_journal"]), st.integers(0, 6),
                           st.sampled_from(["open", "resolved", "closed"])), max_size=25),
)
def test_records_count_equals_a_full_scan_through_writes_and_rewinds(ops: list[tuple[str, int, str]]) -> None:
    rule = RecordsRule(app="tickets", table="tickets", where=[FieldCond(field="status", op="in", value=["resolved", "closed"])])
    env = _env(_check({"kind": "frame"}))
    world = env.state
    table = world.table("tickets", "tickets")

    def scan() -> int:
        return sum(1 for t in table if t.status in ("resolved", "closed"))

    for op, i, status in ops:
        if op == "put":
            table.put(Ticket(id=f"OPS-{i}", title=f"Ticket {i}", status=status))  # type: ignore[arg-type]
        elif op == "delete":
            table.delete(f"OPS-{i}")
        elif op == "rewind":
            world.rewind()
        else:
            world.reset_journal()
        assert count_records(world, rule) == scan()


_CONDITIONS = st.sampled_from([
    FieldCond(field="status", value="open"), FieldCond(field="status", value="closed"),
    FieldCond(field="priority", value="p1"), FieldCond(field="assignee", value=None),
    FieldCond(field="assignee", value="u-ana"), FieldCond(field="labels", value=["x"]),
    FieldCond(field="title", op="contains", value="api"), FieldCond(field="priority", op="in", value=["p1", "p2"]),
    FieldCond(field="no_such_field", value=None), FieldCond(field="title.inner", value="x"),
    FieldCond(field="comments", value=[]), FieldCond(field="status", op="not_equals", value="open"),
])


@settings(max_examples=80, deadline=None)
@given(
    tickets=st.lists(st.tuples(st.sampled_from(["open", "resolved", "closed"]), st.sampled_from(["p1", "p2", "p3"]),
                               st.sampled_from([None, "u-ana", "u-me"]), st.sampled_from([[], ["x"], ["x", "y"]]),
                               st.sampled_from(["API down", "Disk full", "api slow"])), max_size=30),
    where=st.lists(_CONDITIONS, max_size=4),
)
def test_records_count_of_any_conditions_equals_record_matches_over_the_table(
    tickets: list[tuple[str, str, str | None, list[str], str]], where: list[FieldCond],
) -> None:
    """The journal-start count (equals conditions tested first by C loops) equals `record_matches` over every record."""
    env = _env(_check({"kind": "frame"}))
    table = env.state.table("tickets", "tickets")
    for i, (status, priority, assignee, labels, title) in enumerate(tickets):
        table.put(Ticket(id=f"OPS-{100 + i}", title=title, status=status, priority=priority,  # type: ignore[arg-type]
                         assignee=assignee, labels=labels))
    env.state.reset_journal()  # the records above are the journal's start: counted by the scan, not the delta
    rule = RecordsRule(app="tickets", table="tickets", where=where)
    assert count_records(env.state, rule) == sum(record_matches(t, rule) for t in table)


def test_frame_where_allows_only_matching_records() -> None:
    in_ops = {"kind": "frame", "allow": [{"app": "chat", "table": "messages", "where": [
        {"field": "channel", "value": "c-ops"}]}]}
    post = ("chat_post_message", {"channel": "c-ops", "text": "API rolled back"})
    assert _play(_env(_check(in_ops)), post).passed
    assert not _play(_env(_check(in_ops)), ROLLBACK, post).passed  # the service change is outside the frame
    with pytest.raises(Exception, match="names its table"):
        _env(_check({"kind": "frame", "allow": [{"app": "chat", "where": [{"field": "channel", "value": "x"}]}]}))
    with pytest.raises(Exception, match="no field 'room'"):
        _env(_check({"kind": "frame", "allow": [{"app": "chat", "table": "messages", "where": [
            {"field": "room", "value": "x"}]}]}))


def test_call_matcher_where_conditions_read_the_arguments() -> None:
    post = ("chat_post_message", {"channel": "c-ops", "text": "API rolled back (OPS-7)"})
    after = {"kind": "order", "first": {"tool": "services_rollback_config", "args": {"service": "svc-api"}},
             "then": {"tool": "chat_post_message", "where": [{"field": "text", "op": "contains", "value": "ops-7"}]}}
    assert _play(_env(_check(after)), ROLLBACK, post).passed
    assert not _play(_env(_check(after)), post, ROLLBACK).passed
    named = {"kind": "called", "call": {"tool": "chat_post_message", "where": [
        {"field": "text", "op": "matches", "value": r"OPS-\d+"}, {"field": "channel", "op": "in", "value": ["c-ops"]}]}}
    assert _play(_env(_check(named)), post).passed
    assert not _play(_env(_check(named)), ("chat_post_message", {"channel": "c-ops", "text": "done"})).passed
    with pytest.raises(Exception, match="has no argument 'txt'"):
        _env(_check({"kind": "called", "call": {"tool": "chat_post_message", "where": [{"field": "txt"}]}}))


def test_a_phrase_respelled_in_full_width_or_compatibility_forms_still_matches() -> None:
    """`contains` and `matches` read text in its compatibility form (NFKC) as well, as a text check does: a guard that
    keeps "PLAT-108" or a customer's number out of a message is not evaded by full-width digits and letters
    ("ＰＬＡＴ-１０８") or a no-break space, and a check wanting "EUR 12,973" accepts "EUR １２,９７３"; text that
    says something else still does not match."""
    from coworkenv.checks import call_matches, compare
    from coworkenv.spec import CallMatcher

    guard = CallMatcher(tool="chat_post_message", where=[FieldCond(field="text", op="contains", value="PLAT-108")])
    for said in ("see PLAT-１０８", "see ＰＬＡＴ-１０８ now", "see plat-108"):
        assert call_matches(guard, "chat_post_message", {"text": said}), said
    assert not call_matches(guard, "chat_post_message", {"text": "see PLAT-１０９"})
    assert compare("call +40\u00a0635\u00a0172\u00a0766", "contains", "+40 635 172 766")
    assert compare("limit EUR １２,９７３", "contains", "EUR 12,973")
    assert compare("limit EUR １２,９７３", "matches", r"EUR 12,973")
    assert compare("see ＰＬＡＴ-１０８", "not_contains", "PLAT-108") is False
    assert compare("½ hour", "matches", "½")  # a pattern written in the raw form still matches the raw text
