"""Records' JSON forms and digests straight from their field values, when those are already their own JSON.

`record_digest` hashes a record's JSON form (`model_dump(mode="json")`). For a model whose every field holds strings,
numbers, flags, None, literals, or lists and string-keyed dicts of those, the field values *are* that JSON form, so
the digest can skip the serializer (half the cost of hashing a record, paid for every record of a world on build and
on every write), and so can a spec's content hash over its world's records. Any other model (nested models, dates,
aliases, custom serializers) takes the serializer's path.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from functools import cache
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin

import orjson
from pydantic import BaseModel

from coworkenv.world._hashing import record_digest

RecordDigest = Callable[[str, str, str, BaseModel], int]

# Not float: a float field can hold an int that skipped validation (a tool's write, `model_construct`), which orjson
# writes as `0` where the serializer writes `0.0`; models with float fields take the serializer's path.
_SCALARS = (str, int, bool, NoneType)
# Canonical JSON (sorted keys) that refuses what pydantic's JSON mode would write differently from orjson (dates,
# subclasses of str/int/dict/list, dataclasses) and what orjson cannot write (sets): those records take the
# serializer's path, so a value a tool put in without validation hashes exactly as before.
STRICT_CANONICAL = (orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS
                    | orjson.OPT_PASSTHROUGH_DATACLASS)


def _json_native(annotation: Any) -> bool:
    """True when every value of the annotation is its own JSON form (as pydantic's JSON mode would give it)."""
    origin = get_origin(annotation)
    if origin is None:
        return annotation in _SCALARS
    if origin is Literal:
        return all(isinstance(a, str | int | bool | NoneType) for a in get_args(annotation))
    if origin in (Union, UnionType):
        return all(_json_native(a) for a in get_args(annotation))
    if origin is list:
        return all(_json_native(a) for a in get_args(annotation))
    if origin is dict:
        key, value = get_args(annotation)
        return key is str and _json_native(value)
    return False


def _dumped_as_fields(model: type[BaseModel]) -> bool:
    """True when a dump of the model has exactly its fields, under their names, each dumped by its type alone."""
    decorators = model.__pydantic_decorators__
    if decorators.field_serializers or decorators.model_serializers or decorators.computed_fields:
        return False
    if model.model_config.get("extra") != "forbid" or model.__private_attributes__:
        return False
    return all(not info.exclude and info.alias is None and info.serialization_alias is None
               for info in model.model_fields.values())


@cache
def _plain_model(model: type[BaseModel]) -> bool:
    """True when `model_dump(mode="json", by_alias=...)` of any instance equals its `__dict__`."""
    return _dumped_as_fields(model) and all(_json_native(i.annotation) for i in model.model_fields.values())


@cache
def is_json_native(model: type[BaseModel]) -> bool:
    """True when every record of `model` is its own JSON form: its `__dict__` is what a JSON dump of it writes
    (and what validating that JSON gives back)."""
    return _plain_model(model)


@cache
def json_native_parts(model: type[BaseModel]) -> dict[str, tuple[bool, type[BaseModel]]] | None:
    """For a model dumped as its fields whose every field is JSON-native or holds a JSON-native model or a list of
    them: the fields holding models -> (a list?, that model) ({} for a JSON-native model); None for any other."""
    if not _dumped_as_fields(model):
        return None
    out: dict[str, tuple[bool, type[BaseModel]]] = {}
    for name, info in model.model_fields.items():
        if _json_native(info.annotation):
            continue
        annotation, many = info.annotation, get_origin(info.annotation) is list
        if many:
            annotation = get_args(annotation)[0]
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel) and _plain_model(annotation)):
            return None
        out[name] = (many, annotation)
    return out


@cache
def _container_fields(model: type[BaseModel]) -> dict[str, tuple[bool, type[BaseModel]]] | None:
    """For a model whose fields all hold a model or a list of models: field -> (is a list, that model); else None."""
    if not _dumped_as_fields(model):
        return None
    out: dict[str, tuple[bool, type[BaseModel]]] = {}
    for name, info in model.model_fields.items():
        annotation, many = info.annotation, get_origin(info.annotation) is list
        if many:
            annotation = get_args(annotation)[0]
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return None
        out[name] = (many, annotation)
    return out


def json_form(value: BaseModel) -> Any:
    """`value.model_dump(mode="json", by_alias=True)`, with plain records' field dicts used as they are.

    Read-only: the result shares the records' own dicts and lists (hash or serialize it, never change it).
    """
    model = type(value)
    if _plain_model(model):
        return value.__dict__
    fields = _container_fields(model)
    if fields is None:
        return value.model_dump(mode="json", by_alias=True)
    out: dict[str, Any] = {}
    for name, (many, kind) in fields.items():
        item = value.__dict__[name]
        items = item if many else [item]
        if any(type(v) is not kind for v in items):  # a subclass dumps as the declared model: let pydantic do it
            return value.model_dump(mode="json", by_alias=True)
        forms = [v.__dict__ for v in items] if _plain_model(kind) else [json_form(v) for v in items]
        out[name] = forms if many else forms[0]
    return out


def _fast(app: str, table: str, record_id: str, record: BaseModel) -> int:
    try:
        data = orjson.dumps([app, table, record_id, record.__dict__], option=STRICT_CANONICAL)
    except TypeError:  # a value the fast path does not write as the serializer would (see STRICT_CANONICAL)
        return _serialized(app, table, record_id, record)
    return int.from_bytes(hashlib.blake2b(data, digest_size=16).digest(), "big")


def _serialized(app: str, table: str, record_id: str, record: BaseModel) -> int:
    return record_digest(app, table, record_id, type(record).__pydantic_serializer__.to_python(record, mode="json"))


@cache
def digest_function(model: type[BaseModel]) -> RecordDigest:
    """How to digest a record of `model`: equal to `record_digest(app, table, id, record.model_dump(mode="json"))`."""
    return _fast if _plain_model(model) else _serialized


def digests_of(app: str, table: str, model: type[BaseModel], ids: list[str], records: Sequence[BaseModel]) -> list[int]:
    """The digest of each record (ids given in the same order), as `digest_function` gives them one by one."""
    if _plain_model(model) and set(map(type, records)) <= {model}:
        dumps, blake2b, from_bytes, strict = orjson.dumps, hashlib.blake2b, int.from_bytes, STRICT_CANONICAL
        try:
            return [from_bytes(blake2b(dumps([app, table, i, r.__dict__], option=strict), digest_size=16).digest(),
                               "big") for i, r in zip(ids, records, strict=True)]
        except TypeError:
            pass  # one record needs the serializer: digest them one by one
    return [digest_function(type(r))(app, table, i, r) for i, r in zip(ids, records, strict=True)]
