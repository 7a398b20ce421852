"""A guard probe meets its matcher's negations (`validate/_guard_negations.py`): the value copied from the reference
that a `not_equals` excludes is replaced by one the world offers."""

from __future__ import annotations

from coworkenv.env import base_world
from coworkenv.loading import parse_spec
from coworkenv.spec import CallMatcher, FieldCond
from coworkenv.validate._guard_negations import negations_met
from tests.defects._core import base_spec


def _world(base: str):  # type: ignore[no-untyped-def]
    return base_world(parse_spec(base_spec(base)))


def test_other_key_of_the_named_record() -> None:
    world = _world("synth:adapt_silent_change@4")
    svc = world.table("services", "services").get("svc-inventory")
    matcher = CallMatcher(tool="services_set_flag", args={"service": "svc-inventory"},
                          where=[FieldCond(field="flag", op="not_equals", value="v2_pricing")])
    got = negations_met(matcher, {"service": "svc-inventory", "flag": "v2_pricing", "enabled": False}, world)
    assert got is not None and got["flag"] != "v2_pricing" and got["flag"] in svc.flags
    assert got["enabled"] is False and got["service"] == "svc-inventory"


def test_two_negations_on_one_id_and_an_optional_left_out() -> None:
    world = _world("synth:scheduler_pause_failing_jobs@1")
    jobs = sorted(world.table("scheduler", "jobs").ids())
    a, b = jobs[:2]
    matcher = CallMatcher(tool="scheduler_update_job", where=[
        FieldCond(field="job_id", op="not_equals", value=a), FieldCond(field="job_id", op="not_equals", value=b)])
    got = negations_met(matcher, {"job_id": a, "enabled": False}, world)
    assert got is not None and got["job_id"] in jobs and got["job_id"] not in (a, b)
    optional = CallMatcher(tool="scheduler_update_job", where=[FieldCond(field="enabled", op="not_equals", value=False)])
    assert negations_met(optional, {"job_id": a, "enabled": False}, world) == {"job_id": a}


def test_matched_call_kept_and_no_value_none() -> None:
    world = _world("synth:adapt_silent_change@4")
    args = {"service": "svc-inventory", "flag": "edge_cache", "enabled": True}
    matcher = CallMatcher(tool="services_set_flag", where=[FieldCond(field="flag", op="not_equals", value="x")])
    assert negations_met(matcher, args, world) is args
    # `equals` and `not_equals` on one required argument: no value meets both.
    dead = CallMatcher(tool="services_set_flag", where=[FieldCond(field="flag", op="equals", value="edge_cache"),
                                                        FieldCond(field="flag", op="not_equals", value="edge_cache")])
    assert negations_met(dead, args, world) is None
