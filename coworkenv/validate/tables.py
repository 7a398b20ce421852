"""A validation run as stage tables (accepted envs, rejected specs), and candidates to and from the specs stage."""

from __future__ import annotations

from collections.abc import Iterable

import orjson
import pyarrow as pa

from coworkenv.spec import EnvSpec
from coworkenv.spec_seal import sealed_payload
from coworkenv.spec_seal_write import stored_spec_json
from coworkenv.store.stages import ENVS, REJECTED, SpecRow
from coworkenv.validate.repair import Candidate, ValidationRun


def accepted_table(run: ValidationRun) -> pa.Table:
    """One envs-stage row per accepted environment: its sealed spec (`stored_spec_json`), mutation score, repair rounds, cost, gate
    results, the policy it was accepted under and every finding (gate, code, path, message, hint)."""
    return ENVS.table({
        "env_id": a.spec.id,
        "capability": a.capability,
        "spec_json": stored_spec_json(a.spec),
        "verifier_hash": a.spec.verifier_hash,
        "mutation_score": a.validation.mutation_score,
        "repair_rounds": a.repair_rounds,
        "tokens": a.tokens,
        "source": a.source,
        "origin": a.origin,
        "gates_json": orjson.dumps([g.as_dict() for g in a.validation.gates]).decode(),
        "policy": a.validation.policy,
        "findings_json": orjson.dumps([f.as_dict() for f in a.validation.findings]).decode(),
    } for a in run.accepted)


def rejected_table(run: ValidationRun) -> pa.Table:
    """One row per rejected spec or failed generation: the gate that stopped it, every reason, the last payload."""
    return REJECTED.table({
        "capability": r.capability,
        "spec_id": r.spec_id,
        "gate": r.gate,
        "reasons": r.reasons,
        "errors_json": orjson.dumps(r.errors).decode(),
        "repair_rounds": r.repair_rounds,
        "tokens": r.tokens,
        "source": r.source,
        "origin": r.origin,
        "last_payload": r.last_payload,
    } for r in run.rejected)


def procedural_candidates(specs: Iterable[EnvSpec]) -> list[Candidate]:
    """Generated specs as candidates: the source is the spec's generator, the origin its capability and seed (the
    same for `coworkenv synth` and the task_specs asset, so both store identical rows)."""
    return [Candidate(s.capability, s, source=s.metadata.generator or "procedural",
                      origin=f"{s.capability}/seed={s.metadata.seed}") for s in specs]


def accepted_candidates(run: ValidationRun) -> list[Candidate]:
    """The accepted specs of a run as candidates of the specs stage, keeping their source, cost and origin."""
    return [Candidate(a.capability, a.spec, source=a.source, tokens=a.tokens, origin=a.origin) for a in run.accepted]


def candidates_from_rows(rows: Iterable[SpecRow]) -> list[Candidate]:
    """Candidates from stored specs (`coworkenv.store.stages.read_spec_rows`): payloads stay text for gate 1 to
    parse; the capability defaults to the one in the spec JSON."""
    return [
        Candidate(capability=row.capability or _capability_of(row.text), payload=row.text,
                  source=row.source or "procedural", tokens=row.tokens, error=row.error, origin=row.origin)
        for row in rows
    ]


def _capability_of(text: str) -> str:
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return "unknown"
    data = sealed_payload(data)
    value = data.get("capability") if isinstance(data, dict) else None
    return value if isinstance(value, str) and value else "unknown"
