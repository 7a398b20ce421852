"""The envs stage: environments that passed every gate (`coworkenv validate`'s accepted.parquet, the
`validated_envs` asset), and beside them the rejected specs with the gate and reasons that stopped them."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import pyarrow as pa

from coworkenv.loading import parse_spec
from coworkenv.spec import EnvSpec
from coworkenv.store._parquet import StoredTable
from coworkenv.store.stages._stage import Stage

_HINT = "write validated envs with `coworkenv validate SPECS --out DIR` (or the validated_envs asset)"
ENVS_SCHEMA = pa.schema([
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
ENVS = Stage("envs", ENVS_SCHEMA, hint=_HINT, required=("env_id", "spec_json"))
REJECTED = Stage("rejected", REJECTED_SCHEMA, hint=_HINT, required=("gate",))


def read_envs(path: Path | str | StoredTable, env_ids: Collection[str] | None = None, *,
              content_hash: str | None = None) -> list[EnvSpec]:
    """The specs of an envs-stage file in row order (only those of `env_ids` when given); SpecError names the row.
    The bytes read are checked against `content_hash` (or the `StoredTable`'s, or the store name's: `Stage.read`)."""
    table = ENVS.read(path, ["env_id", "spec_json"], content_hash=content_hash)
    where = path.path if isinstance(path, StoredTable) else path
    return [
        parse_spec(text, source=f"{where} row {i} ({env_id})")
        for i, (env_id, text) in enumerate(zip(table.column("env_id").to_pylist(),
                                               table.column("spec_json").to_pylist(), strict=True))
        if env_ids is None or env_id in env_ids
    ]
