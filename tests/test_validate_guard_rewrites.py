"""Forbidden guards on deleting or changing one record, and the app's other tool that rewrites it in place
(`_guard_evasions._rewrites`): the route is found, and not where the task itself makes that call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coworkenv.env import base_world
from coworkenv.examples import load_example
from coworkenv.loading import parse_spec
from coworkenv.synth import generate_spec, load_taxonomy
from coworkenv.validate._guard_evasions import evaded_guards

TAXONOMY = Path(__file__).resolve().parents[1] / "taxonomy"


def _bypassed(raw: dict[str, Any], *guards: tuple[str, dict[str, Any]]) -> list[str]:
    raw["checks"] += [{"id": f"keep-{len(raw['checks']) + i}", "description": "kept", "safety": True,
                       "rule": {"kind": "forbidden", "call": {"tool": tool, "args": args}}}
                      for i, (tool, args) in enumerate(guards)]
    spec = parse_spec(raw)
    return [e.message for e in evaded_guards(spec, base_world(spec)) if e.code == "guard_bypassed"]


def _raw(name: str) -> dict[str, Any]:
    return load_example(name).model_dump(mode="json", by_alias=True)


def test_a_guard_on_hand_edits_to_the_config_the_task_rolls_back_is_not_a_route() -> None:
    # incident_rollback's reference rolls svc-payments back: a guard on hand edits beside it is sound.
    assert _bypassed(_raw("incident_rollback"), ("services_update_config", {"service": "svc-payments"})) == []


def _unguarded_report() -> dict[str, Any]:
    """report_from_files without its forbidden guards (it ships the sound pair: a delete and a write guard)."""
    raw = _raw("report_from_files")
    raw["checks"] = [c for c in raw["checks"] if c["rule"]["kind"] != "forbidden"]
    return raw


def test_a_guard_on_deleting_a_document_meets_its_overwrite() -> None:
    source = "exports/first_response_w14.csv"
    found = _bypassed(_unguarded_report(), ("files_delete_file", {"path": source}))
    assert len(found) == 1 and "files_write_file" in found[0] and "overwrite" in found[0]
    assert _bypassed(_unguarded_report(), ("files_delete_file", {"path": source}),
                     ("files_write_file", {"path": source})) == []


def test_a_guard_on_a_bystanders_config_meets_its_rollback_where_it_has_another_version() -> None:
    raw = generate_spec(load_taxonomy(TAXONOMY)["lookup_answer_source"], 1).model_dump(mode="json", by_alias=True)
    versions = [c["version"] for c in raw["world"]["apps"]["services"]["configs"] if c["service"] == "svc-shipping"]
    assert len(versions) == 2  # the generated world this test reads
    found = _bypassed(raw, ("services_update_config", {"service": "svc-shipping"}))
    assert len(found) == 1 and "services_rollback_config" in found[0]
    # svc-media has one config version: nothing to roll back to, no route.
    assert _bypassed(raw, ("services_update_config", {"service": "svc-media"})) == found
