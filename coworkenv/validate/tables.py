"""Arrow tables of a validation run: accepted environments and rejected specs (with their reasons)."""

from __future__ import annotations

import orjson
import pyarrow as pa

from coworkenv.validate.repair import ValidationRun

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
    """One row per accepted environment: its spec JSON, mutation score, repair rounds, cost and gate results."""
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
