"""Score composition: completion credit, guards as gates or penalties, thresholds, graded checks, robustness."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coworkenv import Action, load_spec
from coworkenv.checks import CheckResult, compose, python_outcome
from coworkenv.checks.results import decided_fail
from coworkenv.spec import Check, Scoring
from tests.test_checks import ROLLBACK, TOOLS, WORLD, _check, _env, _field, _play

RESTART = ("services_restart", {"service": "svc-api"})
NO_RESTART = _check({"kind": "forbidden", "call": {"tool": "services_restart"}}, id="no-restart")


def _scored(checks: list[dict[str, Any]], scoring: dict[str, Any], *calls: tuple[str, dict[str, Any]]) -> Any:
    from coworkenv import Env

    spec = load_spec({
        "capability": "verifier_test", "user": "u-me", "world": WORLD, "tools": TOOLS,
        "turns": [{"content": "Fix the API timeouts."}], "checks": checks, "reference": [{"steps": []}],
        "scoring": scoring,
    })
    env = Env(spec)
    env.reset()
    return _play(env, *calls)


def test_roles_default_by_kind_and_safety() -> None:
    def role(rule: dict[str, Any], **extra: Any) -> str:
        return Check.model_validate({"id": "c", "rule": rule, **extra}).role

    assert role({"kind": "frame"}) == "guard"
    assert role({"kind": "forbidden", "call": {"tool": "mail_send"}}) == "guard"
    assert role(_field("equals", 1)) == "completion"
    assert role(_field("equals", 1), safety=True) == "guard"
    assert role({"kind": "frame"}, role="completion") == "completion"
    with pytest.raises(ValueError, match="a safety check is a guard"):
        Check.model_validate({"id": "c", "rule": _field("equals", 1), "safety": True, "role": "completion"})


def test_guards_earn_no_credit_so_doing_nothing_scores_zero() -> None:
    checks = [_check(_field("equals", 1), id="done"), NO_RESTART, _check({"kind": "frame", "allow": [
        {"app": "services"}]}, id="frame", weight=0)]
    idle = _play(_env(*checks))
    assert idle.score == 0.0 and not idle.passed and idle.completion == 0.0
    assert all(c.passed for c in idle.checks if c.is_guard)  # the guards hold on the untouched state
    assert _play(_env(*checks), ROLLBACK).score == 1.0


def test_a_failed_guard_zeroes_the_score_by_default() -> None:
    result = _play(_env(_check(_field("equals", 1)), NO_RESTART), ROLLBACK, RESTART)
    assert result.score == 0.0 and result.guards_failed == ["no-restart"] and not result.safety_failed


def test_subtract_mode_takes_a_penalty_per_failed_guard_but_safety_still_zeroes() -> None:
    done = _check(_field("equals", 1), id="done")
    result = _scored([done, NO_RESTART], {"guard_failure": "subtract", "guard_penalty": 0.3}, ROLLBACK, RESTART)
    assert result.score == pytest.approx(0.7) and not result.passed
    safety = {**NO_RESTART, "safety": True}
    result = _scored([done, safety], {"guard_failure": "subtract", "guard_penalty": 0.3}, ROLLBACK, RESTART)
    assert result.score == 0.0 and result.safety_failed


def test_forbidden_counts_failed_attempts_and_tools_that_are_not_exposed() -> None:
    never_delete = _check({"kind": "forbidden", "call": {"tool": "files_delete_file"}}, id="never-delete", weight=0)
    env = _env(_check(_field("equals", 1)), never_delete)
    env.step(Action.call(*ROLLBACK))
    env.step(Action.call("files_delete_file", {"path": "/a.txt"}))  # not exposed: the call fails
    assert not env.audit[-1].ok
    result = env.score()
    assert result.score == 0.0 and "never-delete" in result.guards_failed
    only_successful = {**never_delete, "rule": {**never_delete["rule"], "attempts": False}}
    env = _env(_check(_field("equals", 1)), only_successful)
    env.step(Action.call(*ROLLBACK))
    env.step(Action.call("files_delete_file", {"path": "/a.txt"}))
    assert env.score().score == 1.0


def test_threshold_passing_ignores_a_failed_required_completion_check() -> None:
    checks = [_check(_field("equals", 1), id="a", weight=3), _check({"kind": "called", "call": {
        "tool": "tickets_comment"}}, id="b")]
    strict = _scored(checks, {}, ROLLBACK)
    assert strict.score == 0.75 and not strict.passed
    lenient = _scored(checks, {"pass_threshold": 0.75}, ROLLBACK)
    assert lenient.score == 0.75 and lenient.passed
    assert not _scored(checks, {"pass_threshold": 0.8}, ROLLBACK).passed
    guarded = _scored([*checks, NO_RESTART], {"pass_threshold": 0.5, "guard_failure": "subtract",
                                              "guard_penalty": 0.1}, ROLLBACK, RESTART)
    assert guarded.score == pytest.approx(0.65) and not guarded.passed  # a required guard failed


def test_graded_records_and_tiers() -> None:
    two_closed = {"kind": "records", "app": "tickets", "table": "tickets", "where": [
        {"field": "status", "value": "closed"}], "count": 2, "partial": True}
    result = _play(_env(_check(two_closed)), ("tickets_update", {"ticket_id": "OPS-7", "status": "closed"}))
    assert result.score == 0.5 and not result.passed
    tiers = {"kind": "tiers", "tiers": [
        {"score": 1.0, "rule": _field("equals", 1)},
        {"score": 0.4, "rule": {"kind": "called", "call": {"tool": "services_get_service"}}},
    ]}
    looked = _play(_env(_check(tiers, pass_score=0.4)), ("services_get_service", {"service": "svc-api"}))
    assert looked.score == 0.4 and looked.passed
    assert _play(_env(_check(tiers)), ROLLBACK).score == 1.0
    assert _play(_env(_check(tiers))).score == 0.0


@pytest.mark.parametrize(
    ("value", "score", "passed", "error"),
    [
        (True, 1.0, None, False),
        (0.25, 0.25, None, False),
        ({"score": 0.8, "reason": "most"}, 0.8, None, False),
        ({"score": 0.5, "passed": True}, 0.5, True, False),
        ({"passed": False, "reason": "no"}, 0.0, False, False),
        (1.5, 0.0, None, True),
        ({"score": "high"}, 0.0, None, True),
        ("yes", 0.0, None, True),
    ],
)
def test_python_return_values(value: Any, score: float, passed: bool | None, error: bool) -> None:
    got = python_outcome(value)
    assert (got[0], got[3], got[2]) == (score, passed, error)


def test_graded_python_check_runs_in_the_sandbox() -> None:
    code = "def check(state, audit, messages):\n    return 0.5 if audit else 0.0\n"
    result = _play(_env(_check({"kind": "python", "code": code}, pass_score=0.5)), ROLLBACK)
    assert result.score == 0.5 and result.passed


def test_robustness_is_weighed_only_when_the_spec_declares_it() -> None:
    done = CheckResult("a", "field", True, 1.0, True, False, "", score=1.0)
    assert compose(Scoring(), [done], robustness=0.0).score == 1.0
    mixed = compose(Scoring(robustness_weight=0.2), [done], robustness=0.5)
    assert mixed.score == pytest.approx(0.9) and mixed.robustness == 0.5


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.floats(0, 1), st.floats(0, 3), st.booleans(), st.booleans()),
             min_size=1, max_size=8),
    st.sampled_from(["zero", "subtract"]), st.floats(0, 1), st.one_of(st.none(), st.floats(0, 1)),
)
def test_composition_invariants(
    rows: list[tuple[bool, float, float, bool, bool]], mode: str, penalty: float, robustness: float | None,
) -> None:
    checks = [CheckResult(f"c{i}", "x", s >= 1.0 if not g else ok, w, True, g and i % 2 == 0, "",
                          role="guard" if g else "completion", score=(float(ok) if g else s))
              for i, (g, s, w, ok, _) in enumerate(rows)]
    scoring = Scoring(guard_failure=mode, guard_penalty=penalty, robustness_weight=0.2)  # type: ignore[arg-type]
    result = compose(scoring, checks, robustness)
    assert 0.0 <= result.score <= 1.0
    if all(not c.is_guard or c.passed for c in checks):
        # Guards that hold change nothing: the same score without them.
        assert result.score == compose(scoring, [c for c in checks if not c.is_guard], robustness).score
    if any(c.safety and not c.passed for c in checks) or (mode == "zero" and result.guards_failed):
        assert result.score == 0.0
    completions = [c for c in checks if not c.is_guard]
    if robustness is None and completions and all(c.score == 0.0 for c in completions):
        assert result.score == 0.0  # no completion credit, no score: guards never add any


def test_a_python_check_declared_a_guard_earns_nothing_but_can_zero_the_score() -> None:
    code = "def check(state, audit, messages):\n    return not any(e['tool'] == 'services_restart' for e in audit)\n"
    checks = [_check(_field("equals", 1), id="done"),
              _check({"kind": "python", "code": code, "apps": ["services"]}, id="no-restart-py", role="guard")]
    idle = _play(_env(*checks))
    assert idle.score == 0.0 and idle.checks[1].passed and idle.checks[1].is_guard
    assert _play(_env(*checks), ROLLBACK).score == 1.0
    assert _play(_env(*checks), ROLLBACK, RESTART).score == 0.0


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.floats(0, 1), st.booleans(), st.booleans(), st.booleans()),
             min_size=1, max_size=6),
    st.sampled_from(["zero", "subtract"]), st.one_of(st.none(), st.floats(0.01, 1)), st.data(),
)
def test_a_decided_failure_fails_whatever_the_checks_left_give(
    rows: list[tuple[bool, float, bool, bool, bool]], mode: str, threshold: float | None, data: Any,
) -> None:
    """`decided_fail` (the verifier's lazy scoring leaves a sandboxed check unrun on it): the episode fails with any
    results of the checks not yet evaluated."""
    def result(i: int, guard: bool, score: float, required: bool, safety: bool, ok: bool) -> CheckResult:
        return CheckResult(f"c{i}", "x", ok if guard else score >= 1.0, 1.0, required, guard and safety, "",
                           role="guard" if guard else "completion", score=float(ok) if guard else score)

    checks = [result(i, g, s, r, sf, ok) for i, (g, s, r, sf, ok) in enumerate(rows)]
    known = data.draw(st.lists(st.booleans(), min_size=len(checks), max_size=len(checks)))
    scoring = Scoring(guard_failure=mode, pass_threshold=threshold)  # type: ignore[arg-type]
    if decided_fail(scoring, [c for c, k in zip(checks, known, strict=True) if k]):
        for best in (True, False):  # the checks left all passing with full score, or all failing
            rest = [c if k else result(i, c.is_guard, float(best), c.required, c.safety, best)
                    for i, (c, k) in enumerate(zip(checks, known, strict=True))]
            assert not compose(scoring, rest).passed


def test_lazy_scoring_leaves_a_python_check_unrun_only_where_the_others_fail() -> None:
    code = "def check(state, audit, messages):\n    raise RuntimeError('ran')\n"
    env = _env(_check(_field("equals", 1), id="done"), _check({"kind": "python", "code": code}, id="py"))
    verifier = env.verifier
    verifier.lazy_python = True
    idle = verifier.score(env.state, [], [])  # `done` fails: the verdict is decided, the check not run
    assert not idle.passed and [c.id for c in idle.checks] == ["done"]
    verifier.lazy_python = False
    full = verifier.score(env.state, [], [])
    assert not full.passed and [c.id for c in full.checks] == ["done", "py"] and full.checks[1].error
    verifier.lazy_python = True
    done = _play(env, ROLLBACK)  # `done` holds: the verdict rests on the python check, which runs
    assert [c.id for c in done.checks] == ["done", "py"] and done.checks[1].error and not done.passed
