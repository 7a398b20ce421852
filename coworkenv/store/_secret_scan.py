"""A dataset release must not carry the credentials of the process publishing it: a token pasted into a capability's
YAML, a spec's world (a config file copied into a fixture, an imported task's data), a model's answer, or table
metadata. The credentials the process holds (`held_credentials`) are looked for in every text of every shard (nested lists
and structs included), in the tables' metadata and in the card, before anything is written; the error names where,
never the value."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

# Files of a folder publish read for credentials: configs, records, tokenizer files, a `.env` copied along; weights
# past this size are not read (a credential there would be a model's bytes, not text someone put in).
SCAN_MAX_BYTES = 64 << 20


def secret_in_files(files: Mapping[str, Path], secrets: dict[str, str]) -> tuple[str, str] | None:
    """(where the credential comes from, file name) of the first file of `files` (name -> path) holding a secret,
    up to SCAN_MAX_BYTES each, or None."""
    if not secrets:
        return None
    wanted = {name: secret.encode() for name, secret in secrets.items()}
    for name_in_repo, path in sorted(files.items()):
        if path.stat().st_size > SCAN_MAX_BYTES:
            continue
        data = path.read_bytes()
        for name, secret in wanted.items():
            if secret in data:
                return name, name_in_repo
    return None


def secret_in_table(table: pa.Table, secrets: dict[str, str]) -> tuple[str, str] | None:
    """(variable name, column or 'table metadata') of the first secret `table` holds, or None."""
    for key, value in (table.schema.metadata or {}).items():
        for name, secret in secrets.items():
            if secret.encode() in key or secret.encode() in value:
                return name, "table metadata"
    for column, chunked in zip(table.column_names, table.columns, strict=True):
        for chunk in chunked.chunks:
            for texts in _texts(chunk):
                for name, secret in secrets.items():
                    if pc.any(pc.match_substring(texts, secret)).as_py():
                        return name, column
    return None


def _texts(array: pa.Array) -> Iterator[pa.Array]:
    """The string arrays inside `array`, through lists, structs, maps and dictionaries."""
    kind = array.type
    if pa.types.is_dictionary(kind):
        yield from _texts(array.dictionary)
    elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
        yield array
    elif pa.types.is_map(kind):
        yield from _texts(array.keys)
        yield from _texts(array.items)
    elif pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        yield from _texts(array.flatten())
    elif pa.types.is_struct(kind):
        for field in array.flatten():
            yield from _texts(field)
