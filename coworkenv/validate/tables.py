"""Arrow tables of a validation run: accepted environments and rejected specs (with their reasons)."""

from __future__ import annotations

import orjson
import pyarrow as pa

from coworkenv.spec import EnvSpec
from coworkenv.validate.repair import Candidate, ValidationRun

ACCEPTED_SCHEMA = pa.schema([
    ("env_id", pa.string()),
    ("capability", pa.string()),
    ("spec_json", pa.string()),
    ("verifier_hash", pa.string()),
    ("mutation_score", pa.float64()),
    ("repair_rounds", pa.int32()),
    ("tokens", pa.int64()),
    ("source", pa.string()),
    ("origin", pa.string()),
    ("gates_json", pa.string()),
    ("policy", pa.string()),
    ("findings_json", pa.string()),  # what the gates found without rejecting (report policy; trimmed writes)
])
REJECTED_SCHEMA = pa.schema([
    ("capability", pa.string()),
    ("spec_id", pa.string()),
    ("gate", pa.string()),
    ("reasons", pa.list_(pa.string())),
    ("errors_json", pa.string()),
    ("repair_rounds", pa.int32()),
    ("tokens", pa.int64()),
    ("source", pa.string()),
    ("origin", pa.string()),
    ("last_payload", pa.string()),
])


def accepted_table(run: ValidationRun) -> pa.Table:
    """One row per accepted environment: its spec JSON, mutation score, repair rounds, cost, gate results, the
    policy it was accepted under and every finding (gate, code, path, message, hint)."""
    rows = [{
        "env_id": a.spec.id,
        "capability": a.capability,
        "spec_json": a.spec.to_json(),
        "verifier_hash": a.spec.verifier_hash,
        "mutation_score": a.validation.mutation_score,
        "repair_rounds": a.repair_rounds,
        "tokens": a.tokens,
        "source": a.source,
        "origin": a.origin,
        "gates_json": orjson.dumps([g.as_dict() for g in a.validation.gates]).decode(),
        "policy": a.validation.policy,
        "findings_json": orjson.dumps([f.as_dict() for f in a.validation.findings]).decode(),
    } for a in run.accepted]
    return pa.Table.from_pylist(rows, schema=ACCEPTED_SCHEMA)


def rejected_table(run: ValidationRun) -> pa.Table:
    """One row per rejected spec or failed generation: the gate that stopped it, every reason, the last payload."""
    rows = [{
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
    } for r in run.rejected]
    return pa.Table.from_pylist(rows, schema=REJECTED_SCHEMA)


# Candidate specs before validation: procedural specs, raw LLM payloads, or failed generations.
CANDIDATES_SCHEMA = pa.schema([
    ("env_id", pa.string()),  # null when the payload is not (yet) a valid spec
    ("capability", pa.string()),
    ("source", pa.string()),
    ("origin", pa.string()),
    ("tokens", pa.int64()),
    ("error", pa.string()),
    ("spec_json", pa.string()),
])


def candidates_table(candidates: list[Candidate]) -> pa.Table:
    """Candidates as rows; an EnvSpec payload is stored as its JSON (lossless), raw payloads as they came."""
    rows = [{
        "env_id": c.payload.id if isinstance(c.payload, EnvSpec) else None,
        "capability": c.capability,
        "source": c.source,
        "origin": c.origin,
        "tokens": c.tokens,
        "error": c.error,
        "spec_json": c.payload.to_json() if isinstance(c.payload, EnvSpec) else c.payload,
    } for c in candidates]
    return pa.Table.from_pylist(rows, schema=CANDIDATES_SCHEMA)


def candidates_from_table(table: pa.Table) -> list[Candidate]:
    """Candidates back from `candidates_table` rows; payloads stay JSON text for gate 1 to parse."""
    return [
        Candidate(capability=r["capability"], payload=r["spec_json"] or "", source=r["source"], tokens=r["tokens"],
                  error=r["error"], origin=r["origin"])
        for r in table.to_pylist()
    ]
