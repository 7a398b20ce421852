"""The RL curriculum keeps the envs where the starting policy's reward varies between samples (GRPO learns nothing
from a group of equal rewards), and stops probing once it has enough."""

from __future__ import annotations

from pathlib import Path

import pytest

from coworkenv.examples import load_example
from coworkenv.spec import EnvSpec
from coworkenv.synth.generate import generate_specs
from coworkenv.synth.taxonomy import load_taxonomy
from tests.test_trainers_eval import ScriptedOracleBackend
from trainers.rl_curriculum import learnable_envs


@pytest.fixture(scope="module")
def specs() -> list[EnvSpec]:
    taxonomy = load_taxonomy(Path("taxonomy"))
    return [load_example("incident_rollback"), generate_specs(taxonomy["reschedule_conflict"], 1, 0)[0],
            generate_specs(taxonomy["inbox_triage_reply"], 1, 0)[0]]


def _backend(specs: list[EnvSpec]) -> ScriptedOracleBackend:
    # env 0: solved in every sample; env 1: only in even-seeded samples; env 2: never
    return ScriptedOracleBackend(specs, lambda spec, seed: spec.id == specs[0].id or (
        spec.id == specs[1].id and seed % 2 == 0))


def test_only_envs_whose_samples_score_differently_are_kept(specs: list[EnvSpec]) -> None:
    curriculum = learnable_envs(_backend(specs), specs, samples=2, temperature=0.7, limit=8, max_tokens=64,
                                max_steps=12)
    assert [s.id for s in curriculum.kept] == [specs[1].id]
    probes = {p.env_id: p for p in curriculum.probes}
    assert probes[specs[0].id].scores == (1.0, 1.0) and not probes[specs[0].id].varies
    assert probes[specs[1].id].varies and probes[specs[1].id].scores[0] == 1.0
    assert max(probes[specs[2].id].scores) < 1.0 and not probes[specs[2].id].varies
    summary = curriculum.to_dict()
    assert summary["kept"] == [specs[1].id] and summary["probed"] == 3
    assert 0 < summary["kept_mean_score"] < 1


def test_probing_stops_once_enough_envs_are_kept(specs: list[EnvSpec]) -> None:
    order = [specs[1], specs[0], specs[2]]
    curriculum = learnable_envs(_backend(specs), order, samples=2, temperature=0.7, limit=1, max_tokens=64,
                                max_steps=12, chunk=1)
    assert [p.env_id for p in curriculum.probes] == [specs[1].id]


@pytest.mark.parametrize(("samples", "temperature", "message"), [(1, 0.7, "at least 2 samples"),
                                                                 (2, 0.0, "never differ")])
def test_a_probe_that_cannot_see_variation_is_refused(specs: list[EnvSpec], samples: int, temperature: float,
                                                      message: str) -> None:
    with pytest.raises(ValueError, match=message):
        learnable_envs(_backend(specs), specs, samples=samples, temperature=temperature, limit=1, max_tokens=64,
                       max_steps=12)


def test_a_capability_fills_no_more_than_its_quota_while_others_can_fill_a_place(specs: list[EnvSpec]) -> None:
    # envs 1 and 3 vary and share a capability; env 4 varies in another one; env 0 never varies
    taxonomy = load_taxonomy(Path("taxonomy"))
    same_cap = generate_specs(taxonomy["reschedule_conflict"], 2, 5)
    other_cap = generate_specs(taxonomy["inbox_triage_reply"], 1, 7)[0]
    order = [specs[0], same_cap[0], same_cap[1], other_cap]
    varying = {same_cap[0].id, same_cap[1].id, other_cap.id}
    backend = ScriptedOracleBackend(order, lambda spec, seed: spec.id in varying and seed % 2 == 0)
    balanced = learnable_envs(backend, order, samples=2, temperature=0.7, limit=2, per_capability=1, max_tokens=64,
                              max_steps=12, chunk=1)
    assert [s.id for s in balanced.kept] == [same_cap[0].id, other_cap.id]
    first_come = learnable_envs(backend, order, samples=2, temperature=0.7, limit=2, max_tokens=64, max_steps=12,
                                chunk=1)
    assert [s.id for s in first_come.kept] == [same_cap[0].id, same_cap[1].id]
    assert len(first_come.probes) == 3  # stopped once full


def test_places_left_empty_by_other_capabilities_go_to_envs_over_their_quota(specs: list[EnvSpec]) -> None:
    taxonomy = load_taxonomy(Path("taxonomy"))
    same_cap = generate_specs(taxonomy["reschedule_conflict"], 3, 5)
    backend = ScriptedOracleBackend(same_cap, lambda spec, seed: seed % 2 == 0)
    curriculum = learnable_envs(backend, same_cap, samples=2, temperature=0.7, limit=2, per_capability=1,
                                max_tokens=64, max_steps=12, chunk=1)
    assert [s.id for s in curriculum.kept] == [same_cap[0].id, same_cap[1].id]
    assert len(curriculum.probes) == 3  # every candidate probed before the quota was given up
