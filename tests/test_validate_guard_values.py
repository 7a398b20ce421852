"""`_guard_values`: a guard's or a trigger's value that names nothing a call or record carries (a near miss of one)
is named; the world's values, case folded where the matcher folds it, what the texts name, free text, dates and
patterns that match something are not."""

from __future__ import annotations

from typing import Any

import pytest

from coworkenv.env import base_world
from coworkenv.examples import load_example
from coworkenv.spec import EnvSpec
from coworkenv.validate._guard_values import _near, unreal_guard_values, world_spelled


@pytest.fixture(scope="module")
def rollback() -> dict[str, Any]:
    return load_example("incident_rollback").model_dump(mode="json", by_alias=True)


def _guard(spec: dict[str, Any], call: dict[str, Any]) -> list[str]:
    checks = [c for c in spec["checks"] if c["id"] != "no-deploy"]
    guard = next(c for c in spec["checks"] if c["id"] == "no-deploy")
    data = {**spec, "checks": [*checks, {**guard, "rule": {"kind": "forbidden", "call": call}}]}
    return [message for _, message in unreal_guard_values(EnvSpec.model_validate(data))]


@pytest.mark.parametrize(("value", "ident"), [
    ("tas", "task-2"), ("svc-payment", "svc-payments"), ("svc_payments", "svc-payments"),
    ("svc-payments-prod", "svc-payments"), ("evt-1014", "evt-1041"), ("task-9", "task-2"),
    ("exports/first-response-w14.csv", "exports/first_response_w14.csv"), ("smart-retry", "smart_retry"),
])
def test_near_misses(value: str, ident: str) -> None:
    assert _near(value, ident)


@pytest.mark.parametrize(("value", "ident"), [
    ("svc-payments", "svc-payments"), ("Weekly report", "weekly_report_v2"), ("s", "svc-payments"),
    ("gateway", "svc-payments"), ("v3", "v12-beta"),
])
def test_not_near(value: str, ident: str) -> None:
    assert not _near(value, ident)


@pytest.mark.parametrize(("call", "named"), [
    ({"tool": "services_deploy", "args": {"service": "svc-paym"}}, True),  # cut short
    ({"tool": "services_deploy", "args": {"service": "svc_payments"}}, True),  # respelled
    ({"tool": "services_deploy", "args": {"service": "SVC-PAYMENTS"}}, False),  # an argument folds case
    ({"tool": "services_deploy", "where": [{"field": "service", "op": "equals", "value": "SVC-PAYMENTS"}]}, True),
    ({"tool": "services_deploy", "where": [{"field": "service", "op": "in", "value": ["svc-payments", "svc-gatewy"]}]},
     True),
    ({"tool": "services_deploy", "where": [{"field": "service", "op": "matches", "value": "^svc-"}]}, False),
    ({"tool": "services_deploy", "where": [{"field": "service", "op": "matches", "value": "^svc_pay"}]}, True),
    ({"tool": "services_deploy", "args": {}}, False),  # a wildcard guard
    # an address may be new (a mail to anyone): a pattern on it names no record
    ({"tool": "mail_send", "where": [{"field": "to", "op": "matches", "value": "@competitor\\.test$"}]}, False),
    ({"tool": "services_deploy", "args": {"service": "svc-gateway"}}, False),  # another real service
    ({"tool": "mail_send", "args": {"subject": "Checkout incident update"}}, False),  # free text
    ({"tool": "services_deploy", "args": {"service": "svc-payments", "version": "2026-03-02T09:00:00Z"}}, False),
])
def test_guard_values(rollback: dict[str, Any], call: dict[str, Any], named: bool) -> None:
    assert bool(_guard(rollback, call)) is named


def test_a_value_the_user_names_is_real(rollback: dict[str, Any]) -> None:
    """A path the user's message names, which no record holds yet (a file the agent must not create), is real."""
    spec = {**rollback, "turns": [{**rollback["turns"][0], "content": rollback["turns"][0]["content"]
                                   + " Don't write notes/payments-postmortem.md yet."}, *rollback["turns"][1:]]}
    assert not _guard(spec, {"tool": "files_write_file", "args": {"path": "notes/payments-postmortem.md"}})
    assert _guard(spec, {"tool": "files_write_file", "args": {"path": "notes/payments-postmortem.m"}})


def test_dynamics_trigger_and_when(rollback: dict[str, Any]) -> None:
    rules = rollback["dynamics"]["rules"]
    restart = next(r for r in rules if r["id"] == "restart-without-fix")
    dead = {**restart, "on": {"kind": "action", "call": {"tool": "services_restart", "args": {"service": "svc-pay"}}}}
    spec = EnvSpec.model_validate({**rollback, "dynamics": {**rollback["dynamics"], "rules": [
        dead if r is restart else r for r in rules]}})
    assert [p for p, _ in unreal_guard_values(spec)] == [
        f"dynamics.rules[{rules.index(restart)}].on.call.args.service"]
    assert not list(unreal_guard_values(EnvSpec.model_validate(rollback)))


def test_world_spelled_folds_to_the_world_spelling(rollback: dict[str, Any]) -> None:
    world = base_world(EnvSpec.model_validate(rollback))
    assert world_spelled({"service": "SVC-PAYMENTS", "to": ["X"], "n": 3}, world) == \
        {"service": "svc-payments", "to": ["X"], "n": 3}
