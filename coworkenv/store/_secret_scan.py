"""A dataset release must not carry the credentials of the process publishing it: a token pasted into a capability's
YAML, a spec's world (a config file copied into a fixture, an imported task's data), a model's answer, or table
metadata. The values of the credential variables set now are looked for in every text of every shard (nested lists
and structs included), in the tables' metadata and in the card, before anything is written; the error names where,
never the value."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pyarrow as pa
import pyarrow.compute as pc

from coworkenv.credential_values import credential_core
from coworkenv.llm import API_KEY_ENV_VARS

# Hub tokens (huggingface_hub reads both) and the keys the LLM backend reads; a value this short would match by chance.
SECRET_ENV_VARS = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", *API_KEY_ENV_VARS)
MIN_SECRET_CHARS = 8


def secrets_set() -> dict[str, str]:
    """Variable name -> value, for each credential variable set to something long enough to look for: the
    credential itself, without the quotes or blanks an env file left around it (the key alone is what gets pasted)."""
    return {name: core for name in SECRET_ENV_VARS
            if len(core := credential_core(os.environ.get(name) or "")) >= MIN_SECRET_CHARS}


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
