"""Solved by the world: in a multi-turn spec the world changes by itself between the user turns (an announced
clash, a silent redeploy, a scheduled config change), and a check counts the records that change brings: "the
service was redeployed", "a newer config version exists", "one more confirmed event that day". The noop agent
never gets that far and the initial state fails the check, so it looks exercised; yet it credits the world, not
the agent. The sound twin is the spec without that check."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from tests.defects._core import Defect, Spec, world

CLASS = "solved_by_world"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "apply every turn's announced or silent changes (and the clock's rules) to the initial world with no agent "
    "action; a state check that fails initially but holds there credits the world's own change"
)


def _one_more(check_id: str, description: str, app: str, table: str, where: list[dict[str, Any]]):  # type: ignore[no-untyped-def]
    """A check that the table holds one more record meeting `where` than the initial world has."""

    def breaks(spec: Spec) -> None:
        conds = {w["field"]: w["value"] for w in where if w.get("op", "equals") == "equals"}
        before = sum(all(r.get(f) == v for f, v in conds.items()) for r in world(spec, app, table))
        spec["checks"].append({"id": check_id, "description": description, "rule": {
            "kind": "records", "app": app, "table": table, "where": where, "count_op": "gte", "count": before + 1}})
    return breaks


def _changed_record(spec: Spec, app: str, table: str) -> dict[str, Any]:
    """The record a later turn's change puts into `app.table`."""
    for turn in spec["turns"][1:]:
        for effect in turn.get("changes", []):
            if effect["kind"] == "put_record" and (effect["app"], effect["table"]) == (app, table):
                return effect["record"]  # type: ignore[no-any-return]
    raise AssertionError(f"{spec['capability']}: no turn puts a record into {app}.{table}")


def _redeployed(spec: Spec) -> None:
    service = _changed_record(spec, "services", "deployments")["service"]
    _one_more("redeployed", f"{service} was redeployed", "services", "deployments",
              [{"field": "service", "value": service}])(spec)


def _new_config(spec: Spec) -> None:
    service = _changed_record(spec, "services", "configs")["service"]
    _one_more("new-config-written", f"a new config version of {service} was written", "services", "configs",
              [{"field": "service", "value": service}])(spec)


def _booked_that_day(spec: Spec) -> None:
    day = _changed_record(spec, "calendar", "events")["start"][:10]
    # The day as a UTC bound in the stored form (a `contains` of the date would read the UTC day as the user's, which
    # `time_spelled_as_text` rejects at references, before the noop gate this case is about)
    after = (date.fromisoformat(day) + timedelta(days=1)).isoformat()
    where = [{"field": "status", "value": "confirmed"},
             {"field": "start", "op": "gte", "value": f"{day}T00:00:00Z"},
             {"field": "start", "op": "lt", "value": f"{after}T00:00:00Z"}]
    before = sum(r.get("status") == "confirmed" and r["start"].startswith(day)
                 for r in world(spec, "calendar", "events"))
    spec["checks"].append({"id": "booked-that-day", "description": f"one more confirmed event on {day}", "rule": {
        "kind": "records", "app": "calendar", "table": "events", "where": where, "count_op": "gte",
        "count": before + 1}})


def _defect(name: str, base: str, away: str, breaks) -> Defect:  # type: ignore[no-untyped-def]
    return Defect(CLASS, name, base, away, breaks=breaks, gate="noop", code="solved_by_world")


DEFECTS = [
    _defect("redeploy-by-reconciler", "synth:adapt_silent_change@1",
            "gets the 'redeployed' credit from the reconciler's own rollout of the bad release", _redeployed),
    _defect("redeploy-by-reconciler-2", "synth:adapt_silent_change@2",
            "gets the 'redeployed' credit from the reconciler's own rollout of the bad release", _redeployed),
    _defect("config-by-deploy-bot", "example:incident_rollback",
            "gets the 'new config version' credit from the deploy bot re-applying the bad config", _new_config),
    _defect("booking-by-clash", "synth:adapt_announced_change@2",
            "gets the 'booked that day' credit from the colleague's clashing event", _booked_that_day),
    _defect("booking-by-clash-3", "synth:adapt_announced_change@3",
            "gets the 'booked that day' credit from the colleague's clashing event", _booked_that_day),
]
