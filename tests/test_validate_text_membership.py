"""`in` given a text, not a list (`coworkenv.validate._text_membership`): each case is a condition written by hand into
the shipped incident_rollback example, read statically (no episode is played)."""

from __future__ import annotations

from typing import Any

from coworkenv.examples import load_example
from coworkenv.loading import parse_spec
from coworkenv.validate._text_membership import text_membership


def _with(*rules: dict[str, Any], when: list[dict[str, Any]] | None = None) -> list[tuple[str, str]]:
    data = load_example("incident_rollback").model_dump(mode="json", by_alias=True)
    data["checks"] += [{"id": f"probe-{i}", "rule": r} for i, r in enumerate(rules)]
    if when is not None:
        data["dynamics"]["rules"][0]["when"] = when
    return list(text_membership(parse_spec(data)))


_TICKETS = {"kind": "records", "app": "tickets", "table": "tickets"}


def test_the_shipped_example_has_no_in_on_a_text() -> None:
    assert _with() == []  # its `in` conditions give lists


def test_in_a_text_is_named_wherever_a_condition_stands() -> None:
    status = {"app": "services", "table": "services", "id": "svc-payments", "field": "status"}
    found = _with(
        {"kind": "field", "target": status, "op": "in", "value": "healthy"},
        {"kind": "tiers", "tiers": [{"score": 1.0, "rule": {**_TICKETS, "where": [
            {"field": "priority", "op": "in", "value": "p1, p2"}]}}]},
        {"kind": "frame", "allow": [{"app": "tickets", "table": "tickets", "where": [
            {"field": "id", "op": "in", "value": "OPS-102"}]}]},
        {"kind": "called", "call": {"tool": "chat_post_message", "where": [
            {"field": "channel", "op": "in", "value": "#incidents"}]}},
        {"kind": "records", "app": "tickets", "table": "tickets", "where": [
            {"field": "priority", "op": "in", "value": {"p1": 1}}]},
        when=[{"kind": "field", "target": status, "op": "in", "value": "degraded"}])
    paths = [p for p, _ in found]
    n = len(load_example("incident_rollback").checks)
    assert paths == [f"checks[{n}].rule.value", f"checks[{n + 1}].rule.tiers[0].rule.where[0]",
                     f"checks[{n + 2}].rule.allow[0].where[0]", f"checks[{n + 3}].rule.call.where[0]",
                     f"checks[{n + 4}].rule.where[0]", "dynamics.rules[0].when[0].value"]
    assert "substring test" in found[0][1] and "'healthy'" in found[0][1]
    assert "takes a list" in found[4][1]


def test_in_a_list_is_left_alone() -> None:
    assert _with({**_TICKETS, "where": [{"field": "priority", "op": "in", "value": ["p1", "p2"]}]},
                 {**_TICKETS, "where": [{"field": "priority", "op": "contains", "value": "p1"}]}) == []
