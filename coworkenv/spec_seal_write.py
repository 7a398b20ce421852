"""Writing sealed spec files (the format and the sealed load path are in `coworkenv.spec_seal`)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson

from coworkenv.atomic import atomic_write_bytes
from coworkenv.loading import SpecError, load_spec
from coworkenv.spec import EnvSpec
from coworkenv.spec_seal import PREFIX, SPEC_KEY, schema_fingerprint, table_hashes


def seal_spec(spec: EnvSpec) -> bytes:
    """The sealed file of a spec: its JSON with its id, its tables' hashes and a checksum of them all.

    The JSON is validated in full first (`load_spec`), so only what would load in full is ever sealed (a spec built
    without validation, e.g. by `model_construct`, is refused with `SpecError` if it is not valid); the id and the
    hashes are those of the spec validated from that JSON.
    """
    text = spec.to_json().encode()
    checked = load_spec(text, source=f"spec {spec.capability!r} to seal")
    tables = {f"{app}.{name}": f"{h:032x}" for (app, name), h in sorted(table_hashes(checked).items())}
    meta = orjson.dumps({"key": schema_fingerprint(), "spec_id": checked.id, "tables": tables})
    body = meta[1:-1] + SPEC_KEY + text + b"}"
    seal = hashlib.sha256(schema_fingerprint().encode() + body).hexdigest().encode()
    return PREFIX + seal + b'",' + body


def write_sealed_spec(path: Path, spec: EnvSpec) -> None:
    """Write a spec's sealed file atomically (see `seal_spec`); `load_spec(path)` takes the sealed path."""
    atomic_write_bytes(path, seal_spec(spec))


def stored_spec_json(spec: EnvSpec) -> str:
    """A spec as the store's stages keep it (their `spec_json` column): its sealed file (`seal_spec`) as text, so
    `load_spec` takes the sealed path; a candidate that does not load in full (a reference the validate gates will
    report) is kept as plain spec JSON, since only a valid spec is ever sealed."""
    try:
        return seal_spec(spec).decode()
    except SpecError:
        return spec.to_json()
