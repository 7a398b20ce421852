"""LLM generation + repair against a loopback OpenAI server failing 30% of requests (429, 500, hang, bad JSON)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from coworkenv.examples import load_example
from coworkenv.llm import OpenAICompatibleBackend
from coworkenv.synth import LLMSpecGenerator
from coworkenv.validate import GENERATION_GATE, ValidationRun, validate_and_repair
from tests.support.fake_openai_server import FAULT_KINDS, FakeOpenAIServer

pytestmark = pytest.mark.timeout(180)

EXAMPLE = Path(__file__).resolve().parents[1] / "coworkenv" / "examples" / "incident_rollback.json"
FAULT_TO_KIND = {"429": "rate_limited", "500": "server_error", "hang": "timeout", "malformed": "malformed"}
N = 10


@dataclass
class Cap:
    id: str = "incident_investigation_and_fix"
    description: str = "Investigate a production incident from logs and fix it through the services app."
    skills: list[str] = field(default_factory=lambda: ["read logs", "roll back a config", "open a ticket"])
    apps: list[str] = field(default_factory=lambda: ["logs", "services", "tickets", "chat"])
    hints: list[str] = field(default_factory=list)
    multi_turn: bool = True
    state_change: str = "silent"


def scripted_model(body: dict[str, Any]) -> dict[str, Any]:
    """A deterministic 'LLM': seed k gives a variant of the example; k % 3 == 0 is broken (a check on a missing
    record), and k % 5 == 4 stays broken whatever the report says. Revisions fix the fixable ones."""
    messages = body["messages"]
    if "Validation rejected this environment" in messages[-1]["content"]:
        spec = json.loads(messages[-2]["content"])
        if "unfixable" not in spec["metadata"]["tags"]:
            spec["checks"][0]["rule"]["target"]["id"] = "svc-payments"
        return {"content": json.dumps(spec)}
    seed = int(re.search(r"Variation seed: (\d+)", messages[-1]["content"]).group(1))  # type: ignore[union-attr]
    spec = json.loads(EXAMPLE.read_text())
    spec["metadata"].update(seed=seed, title=f"incident variant {seed}", generator="fake-model")
    if seed % 3 == 0:
        spec["checks"][0]["rule"]["target"]["id"] = "svc-missing"
    if seed % 5 == 4:
        spec["checks"][0]["rule"]["target"]["id"] = "svc-missing"
        spec["metadata"]["tags"].append("unfixable")
    return {"content": "```json\n" + json.dumps(spec) + "\n```"}


def synthesize(
    server: FakeOpenAIServer, cache: Path, max_retries: int
) -> tuple[ValidationRun, OpenAICompatibleBackend]:
    backend = OpenAICompatibleBackend(server.url, "fake-model", api_key="", max_retries=max_retries, timeout_s=0.3,
                                      backoff_base_s=0.01, max_concurrency=4, cache_dir=cache)
    generator = LLMSpecGenerator(backend, [load_example("incident_rollback")])
    candidates = generator.generate(Cap(), N, seed=0)
    return validate_and_repair(candidates, generator, max_rounds=2), backend


def faults(stats: dict[str, Any]) -> dict[str, int]:
    return {FAULT_TO_KIND[k]: stats["outcomes"][k] for k in FAULT_KINDS if stats["outcomes"][k]}


def origins(run: ValidationRun) -> list[str]:
    return [a.origin for a in run.accepted] + [r.origin for r in run.rejected]


def test_the_run_survives_faults_counts_them_and_a_rerun_is_served_from_the_cache(tmp_path: Path) -> None:
    with FakeOpenAIServer(fault_rate=0.3, seed=11, responder=scripted_model, hang_s=1.0) as server:
        run, backend = synthesize(server, tmp_path / "cache", max_retries=8)
        first = server.stats()
        server.reset()
        rerun, backend2 = synthesize(server, tmp_path / "cache", max_retries=8)
        second = server.stats()
    injected = faults(first)
    assert sum(injected.values()) >= 3, first["outcomes"]  # the server really misbehaved
    # Every fault was retried (and so counted) and nothing was lost: each seed ends exactly once.
    assert backend.stats.retry_reasons == injected and backend.stats.failures == {}
    f = run.funnel.as_dict()
    assert f["llm"]["retries"] == sum(injected.values()) and f["llm_failures"] == {}
    assert sorted(origins(run)) == sorted(f"llm:{Cap().id}:{k}" for k in range(N))
    assert [a.spec.metadata.seed for a in run.accepted] == [0, 1, 2, 3, 5, 6, 7, 8]
    assert [(r.origin, r.gate, r.repair_rounds) for r in run.rejected] == [
        (f"llm:{Cap().id}:4", "references", 2), (f"llm:{Cap().id}:9", "references", 2)]
    assert f["repair_rounds"] == {"0": 5, "1": 3} and f["tokens_total"] > 0
    assert first["requests"] == backend.stats.http_requests
    # The re-run asks the server nothing and reaches the same result.
    assert second["requests"] == 0 and backend2.stats.cache_hits == backend2.stats.requests > 0
    assert [a.spec.id for a in rerun.accepted] == [a.spec.id for a in run.accepted]
    assert {k: v for k, v in rerun.funnel.as_dict().items() if k != "llm"} == {
        k: v for k, v in f.items() if k != "llm"}


def test_failed_requests_are_counted_by_kind_and_no_spec_is_lost_or_duplicated(tmp_path: Path) -> None:
    with FakeOpenAIServer(fault_rate=0.3, seed=5, responder=scripted_model, hang_s=1.0) as server:
        run, backend = synthesize(server, tmp_path / "cache", max_retries=0)
        first = server.stats()
        server.reset()
        _, backend2 = synthesize(server, tmp_path / "cache", max_retries=0)
        second = server.stats()
    injected = faults(first)
    assert sum(injected.values()) >= 3, first["outcomes"]
    f = run.funnel.as_dict()
    # Without retries every fault is a failure, and the funnel counts each one by kind.
    assert f["llm_failures"] == injected == backend.stats.failures
    all_origins = origins(run)
    assert sorted(all_origins) == sorted(set(all_origins)) == sorted(f"llm:{Cap().id}:{k}" for k in range(N))
    lost_generations = [r for r in run.rejected if r.gate == GENERATION_GATE]
    assert f["generated"] == N - len(lost_generations)
    assert sum(f["rejected_by_gate"].values()) == f["generated"] - f["accepted"]
    assert len({a.spec.id for a in run.accepted}) == len(run.accepted)
    # Answers paid for in the first run are never requested again.
    answered = {entry["body_sha"] for entry in first["log"] if entry["outcome"] == "ok"}
    assert answered and answered.isdisjoint(entry["body_sha"] for entry in second["log"])
    assert backend2.stats.cache_hits > 0
