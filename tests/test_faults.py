"""Error injection: seeded and deterministic, no state change on failure, robustness and oracle retries."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from coworkenv import Action, Env
from coworkenv.agents import NoopPolicy, OraclePolicy
from coworkenv.examples import load_example
from coworkenv.faults import FaultInjector, FaultPlan, FaultRule
from coworkenv.rollout import run_episode
from coworkenv.spec import EnvSpec

EXAMPLE = "triage_escalation_declared_tools"


def _with_plan(plan: FaultPlan) -> EnvSpec:
    return load_example(EXAMPLE).model_copy(update={"faults": plan})


def _draws(plan: FaultPlan, n: int) -> list[str | None]:
    injector = FaultInjector(plan)
    return [injector.draw("jira_get_issue", "tickets", "read") for _ in range(n)]


def test_same_plan_and_calls_give_same_faults_and_seed_changes_them() -> None:
    plan = FaultPlan(seed=1, rules=[FaultRule(rate_429=0.3, rate_500=0.3, truncated=0.2)], max_consecutive=50)
    first = _draws(plan, 200)
    assert first == _draws(plan, 200)
    assert first != _draws(plan.model_copy(update={"seed": 2}), 200)
    share = {k: first.count(k) / 200 for k in ("429", "500", "truncated")}
    assert all(0.15 < v < 0.45 for v in share.values()), share


def test_rules_pick_tool_or_app_and_write_tools_are_never_truncated() -> None:
    plan = FaultPlan(rules=[FaultRule(tool="mail_send", rate_500=1.0), FaultRule(app="tickets", truncated=1.0)],
                     max_consecutive=100)
    injector = FaultInjector(plan)
    assert injector.draw("mail_send", "mail", "write") == "500"
    assert injector.draw("mail_search", "mail", "read") is None
    assert injector.draw("tickets_get", "tickets", "read") == "truncated"
    assert injector.draw("tickets_update", "tickets", "write") is None


def test_streak_is_capped_so_a_retry_gets_through() -> None:
    plan = FaultPlan(rules=[FaultRule(rate_500=1.0)], max_consecutive=2)
    assert _draws(plan, 6) == ["500", "500", None, "500", "500", None]


def test_rates_above_one_are_rejected() -> None:
    with pytest.raises(ValidationError, match="more than 1"):
        FaultRule(rate_429=0.7, rate_500=0.5)


def test_failed_injected_call_changes_nothing_and_is_an_observation() -> None:
    spec = _with_plan(FaultPlan(rules=[FaultRule(tool="jira_update_issue", rate_500=1.0)], max_consecutive=1))
    env = Env(spec)
    env.reset()
    tickets = env.state.table("tickets", "tickets")
    before = tickets.get("BUG-311")
    call = Action.call("jira_update_issue", {"issue_key": "BUG-311", "priority": "highest"})
    observation = orjson.loads(env.step(call).messages[0]["content"])
    assert observation["status"] == 500 and "Internal Server Error" in observation["error"]
    assert tickets.get("BUG-311") == before
    assert (env.audit[-1].ok, env.audit[-1].fault) == (False, "500")
    assert env.robustness() == 0.0
    env.step(call)  # the retry gets through (max_consecutive=1)
    assert tickets.get("BUG-311").priority == "p1"
    assert env.robustness() == 1.0


def test_truncated_read_shows_part_of_the_response() -> None:
    spec = _with_plan(FaultPlan(rules=[FaultRule(tool="jira_get_issue", truncated=1.0)]))
    env = Env(spec)
    env.reset()
    observation = orjson.loads(env.step(Action.call("jira_get_issue", {"issue_key": "BUG-311"})).messages[0]["content"])
    assert "truncated" in observation["error"] and observation["partial"].startswith('{"key":"BUG-311"')


def test_slow_and_timeout_cost_clock_time() -> None:
    for kind, extra in (("slow", 20), ("timeout", 30)):
        rule = FaultRule(tool="jira_get_issue", **{kind: 1.0})
        env = Env(_with_plan(FaultPlan(rules=[rule])))
        env.reset()
        start = env.state.clock
        env.step(Action.call("jira_get_issue", {"issue_key": "BUG-311"}))
        assert env.state.clock - start == env.spec.world.tick_s + extra
        assert env.audit[-1].ok == (kind == "slow")


def test_oracle_retries_and_survives_while_noop_sees_no_faults() -> None:
    spec = load_example(EXAMPLE)
    oracle = run_episode(Env(spec), OraclePolicy(spec))
    assert oracle.result.score == 1.0 and oracle.robustness == 1.0 and oracle.faults >= 2
    again = Env(spec)
    run_episode(again, OraclePolicy(spec))
    assert [e.fault for e in again.audit] == [e.fault for e in _oracle_audit(spec)]
    noop = run_episode(Env(spec), NoopPolicy())
    assert noop.robustness is None and noop.faults == 0


def test_an_agent_that_gives_up_scores_low_robustness() -> None:
    spec = _with_plan(FaultPlan(rules=[FaultRule(tool="gmail_send_message", rate_429=1.0)]))
    env = Env(spec)
    env.reset()
    env.step(Action.call("gmail_send_message", {"to": "ravi.menon@northwind.test", "subject": "s", "body": "b"}))
    env.step(Action.say("The mail service is down, sorry."))
    assert env.robustness() == 0.0 and env.robustness_report().failing == 1


def _oracle_audit(spec: EnvSpec) -> list[Any]:
    env = Env(spec)
    run_episode(env, OraclePolicy(spec))
    return env.audit


def test_fault_rules_must_target_tools_of_the_spec() -> None:
    from coworkenv.binding_check import binding_issues

    plan = FaultPlan(rules=[FaultRule(tool="gmail_send", rate_500=0.5), FaultRule(app="calendar", rate_429=0.1)])
    issues = {(i.path, i.code) for i in binding_issues(_with_plan(plan))}
    assert issues == {("faults.rules[0].tool", "unknown_fault_target"), ("faults.rules[1].app", "unknown_fault_target")}


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), cap=st.integers(1, 4),
       rates=st.lists(st.floats(0, 0.25), min_size=4, max_size=4),
       calls=st.lists(st.sampled_from(["mail_send", "mail_search", "tickets_get"]), max_size=40))
def test_draws_are_a_function_of_the_call_sequence(seed: int, cap: int, rates: list[float], calls: list[str]) -> None:
    rule = FaultRule(rate_429=rates[0], rate_500=rates[1], timeout=rates[2], truncated=rates[3])
    plan = FaultPlan(seed=seed, rules=[rule], max_consecutive=cap)

    def run() -> list[str | None]:
        injector = FaultInjector(plan)
        return [injector.draw(t, t.split("_")[0], "write" if t == "mail_send" else "read") for t in calls]

    first = run()
    assert first == run()
    for tool in set(calls):  # never more than `cap` failing faults in a row on one tool
        streak = 0
        for t, fault in zip(calls, first, strict=True):
            if t == tool:
                streak = streak + 1 if fault in ("429", "500", "timeout", "truncated") else 0
                assert streak <= cap
    assert all(f != "truncated" for t, f in zip(calls, first, strict=True) if t == "mail_send")
