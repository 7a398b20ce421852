"""The one walk over a check's nested rules (`coworkenv/validate/_check_reads.py`) that every gate reading a check's
rules goes through: a rule inside `tiers` (at any depth) is found with its path, a tier below the check's pass
score does not pass the check alone, and a check of tiers over one kind is judged as that kind."""

from __future__ import annotations

from typing import Any

from coworkenv.env import Env
from coworkenv.examples import load_example
from coworkenv.spec import Check, EnvSpec, ForbiddenRule, PythonRule
from coworkenv.validate._check_reads import nested_rules, python_rules, rule_kind, spec_rules
from coworkenv.validate._guard_routes import bypassed_guards
from coworkenv.validate._leaks import needles

_FIELD: dict[str, Any] = {"kind": "field", "target": {"app": "tickets", "table": "tickets", "id": "T-1",
                                                     "field": "status"}, "op": "equals", "value": "closed"}
_FORBIDDEN: dict[str, Any] = {"kind": "forbidden", "call": {"tool": "chat_post_message", "args": {"channel": "c-x"}}}
_PYTHON: dict[str, Any] = {"kind": "python", "code": "def check(state, audit, messages):\n    return True\n"}


def _tiers(*tiers: tuple[float, dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "tiers", "tiers": [{"score": s, "rule": r} for s, r in tiers]}


def _check(rule: dict[str, Any], **more: Any) -> Check:
    return Check.model_validate({"id": "c", "rule": rule, **more})


def test_a_simple_rule_is_its_own_only_rule() -> None:
    check = _check(_FIELD)
    assert [(w, r.kind) for w, r in nested_rules(check.rule)] == [("rule", "field")]
    assert rule_kind(check.rule) == "field"


def test_rules_nested_in_tiers_at_any_depth_are_found_with_their_paths() -> None:
    check = _check(_tiers((1.0, _tiers((1.0, _FORBIDDEN), (0.5, _PYTHON))), (0.3, _FIELD)))
    found = [(w, r.kind) for w, r in nested_rules(check.rule, "checks[4].rule")]
    assert found == [("checks[4].rule.tiers[0].rule.tiers[0].rule", "forbidden"),
                     ("checks[4].rule.tiers[0].rule.tiers[1].rule", "python"),
                     ("checks[4].rule.tiers[1].rule", "field")]
    assert [type(r) for r in python_rules(check.rule)] == [PythonRule]
    assert rule_kind(check.rule) == "tiers"  # several kinds: judged as the composite
    assert rule_kind(_check(_tiers((1.0, _tiers((1.0, _FORBIDDEN))))).rule) == "forbidden"


def test_reaching_keeps_only_the_tiers_that_pass_the_check_alone() -> None:
    check = _check(_tiers((1.0, _FIELD), (0.5, _FORBIDDEN), (0.8, _tiers((1.0, _PYTHON), (0.6, _FIELD)))),
                   pass_score=0.8)
    found = [w for w, _ in nested_rules(check.rule, reaching=check.pass_score)]
    # the 0.5 tier cannot pass the check; inside the nested tiers only a tier scoring 1 makes them hold
    assert found == ["rule.tiers[0].rule", "rule.tiers[2].rule.tiers[0].rule"]


def test_spec_rules_names_each_rule_from_the_spec() -> None:
    checks = [_check(_FIELD), _check(_tiers((1.0, _FORBIDDEN)), role="guard")]
    assert [(i, w, type(r)) for i, _, w, r in spec_rules(checks)] == [
        (0, "checks[0].rule", type(checks[0].rule)), (1, "checks[1].rule.tiers[0].rule", ForbiddenRule)]


def _with_check(spec: EnvSpec, rule: dict[str, Any], **more: Any) -> EnvSpec:
    data = spec.model_dump(mode="json", by_alias=True)
    data["checks"].append({"id": "wrapped", "rule": rule, **more})
    return EnvSpec.model_validate(data)


def test_a_gate_reads_a_rule_wrapped_in_tiers_as_it_reads_it_bare() -> None:
    """The leak needles and the forbidden guards' routes, on the same rule bare and in a one-tier wrapper: the
    same findings, at the nested path."""
    example_spec = load_example("incident_rollback")
    for rule in (_FORBIDDEN, _PYTHON):
        bare = {n.text for n in needles(_with_check(example_spec, rule, role="guard"))}
        wrapped = {n.text for n in needles(_with_check(example_spec, _tiers((1.0, rule)), role="guard"))}
        assert bare == wrapped
    world = Env(example_spec).state
    bare_errors = bypassed_guards(_with_check(example_spec, _FORBIDDEN, role="guard"), world)
    wrapped_errors = bypassed_guards(_with_check(example_spec, _tiers((1.0, _FORBIDDEN)), role="guard"), world)
    assert [e.code for e in bare_errors] == [e.code for e in wrapped_errors]
    assert all(".tiers[0].rule" in e.path for e in wrapped_errors if "wrapped" in e.message)
