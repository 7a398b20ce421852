"""Sealed spec files: a spec as coworkenv wrote it, with a checksum of its bytes, loaded without validating again.

A spec reaches an `EnvSpec` by one of two paths:

- **full validation** (`coworkenv.loading.load_spec` of plain spec JSON, a dict, or a sealed file whose seal does
  not hold): pydantic validates every field and every record, references are resolved, and errors name the field
  path. Hand-written, generated and any other untrusted specs always take it.
- **the sealed path** (`load_spec` of bytes `coworkenv.spec_seal_write.seal_spec` wrote, when their seal holds): the SHA-256 of the bytes
  (keyed by a fingerprint of the spec schema) matches the seal in the file, so the bytes are exactly those written
  from a spec that had passed `load_spec`. The sections other than the world's records are still validated by
  pydantic (they are small); the records of plain tables (every field JSON-native or a JSON-native model or a list
  of them, see `json_native_parts`) are built from the parsed JSON without per-record validation; other tables
  (floats, dates, unions of models, validators) are validated. The spec id and every table's
  content hash are read from the file (computed at sealing), so nothing is hashed per record until a write or a
  read needs a record's digest (`Table.load`). The result equals the full path's spec (same fields, id, hashes).

A seal proves integrity (no flipped byte, no truncation, no hand edit, no schema change since sealing), not
authorship: anyone who can run `seal_spec` can seal a spec. A file whose seal does not hold is validated in full
(`open_sealed`, then `load_spec` of the spec inside): it loads if it is a valid spec, else the error lists every
problem and says first why the seal failed.
"""

from __future__ import annotations

import hashlib
import logging
import re
import typing
import weakref
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from itertools import chain, islice, repeat
from operator import itemgetter
from typing import Any

import orjson
from pydantic import BaseModel, TypeAdapter

from coworkenv.apps import APPS, WorldApps
from coworkenv.spec import SCHEMA_VERSION, SPEC_ID_SCHEME, VERIFIER_VERSION, EnvSpec
from coworkenv.world import World, gc_paused, json_native_parts, parse_time

log = logging.getLogger(__name__)

SEAL_FORMAT = "1"
# The file: this prefix, the seal (64 hex digits), then `",` and the sealed body, which is
# `"key":"<schema fingerprint>","spec_id":"env-...","tables":{"app.table":"<32 hex>",...},"spec":<spec JSON>}`.
# The seal is the SHA-256 of the fingerprint followed by the body's bytes. The file is JSON as a whole.
SEALED_KEY = "coworkenv_sealed_spec"  # the first key of a sealed file: what tells it from a plain spec
PREFIX = b'{"' + SEALED_KEY.encode() + b'":' + SEAL_FORMAT.encode() + b',"sha256":"'
_HEAD = len(PREFIX) + 64 + 2
SPEC_KEY = b',"spec":'
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


@cache
def schema_fingerprint() -> str:
    """A digest of the spec schema (every model reachable from EnvSpec: fields, types, defaults, constraints,
    validators) and the schema and verifier versions. A seal made under another schema does not hold."""
    seen: dict[type, str] = {}
    todo: list[type] = [EnvSpec]
    while todo:
        model = todo.pop()
        if model in seen or not (isinstance(model, type) and issubclass(model, BaseModel)):
            continue
        parts = []
        for name, info in model.model_fields.items():
            parts.append(f"{name}:{info.annotation!r}:{info.default!r}:{info.alias}:{info.metadata!r}:"
                         f"{info.discriminator!r}")
            stack: list[Any] = [info.annotation]
            while stack:
                annotation = stack.pop()
                todo.append(annotation)
                stack.extend(typing.get_args(annotation))
        decorators = model.__pydantic_decorators__
        checks = sorted([*decorators.field_validators, *decorators.model_validators, *decorators.field_serializers,
                         *decorators.model_serializers])
        seen[model] = f"{model.__module__}.{model.__qualname__}({','.join(parts)}){checks}"
    text = "\n".join([SCHEMA_VERSION, VERIFIER_VERSION, SEAL_FORMAT, SPEC_ID_SCHEME, *sorted(seen.values())])
    return hashlib.sha256(_ADDRESS.sub("", text).encode()).hexdigest()[:32]


def table_hashes(spec: EnvSpec) -> dict[tuple[str, str], int]:
    """Each table's content hash in the spec's initial world (the sum of its records' digests)."""
    world = World.from_wire(APPS, spec.world.apps, parse_time(spec.world.start), spec.world.tick_s, spec.user)
    return {(t.app, t.name): t.content_hash for t in world.tables()}


def is_sealed(data: str | bytes) -> bool:
    """True when the data claims to be a sealed spec file (whether its seal holds is `open_sealed`'s call)."""
    head = data[: len(PREFIX)]
    return (head.encode() if isinstance(head, str) else head) == PREFIX


def sealed_payload(value: Any) -> Any:
    """The spec data inside a parsed sealed file (its `spec` member), or `value` itself when it is not one."""
    if isinstance(value, dict) and SEALED_KEY in value and isinstance(value.get("spec"), dict):
        return value["spec"]
    return value


@dataclass(frozen=True)
class _Broken:
    reason: str


def _address(text: str) -> tuple[str, str]:
    app, dot, table = text.partition(".")
    if not dot:
        raise ValueError(f"not an app.table address: {text!r}")
    return app, table


def _open(data: bytes) -> EnvSpec | _Broken:
    """The spec of a sealed file whose seal holds, built on the sealed path; else why the seal does not hold."""
    seal, body = data[len(PREFIX):_HEAD - 2], memoryview(data)[_HEAD:]  # a view: the body is not copied
    at = data.find(SPEC_KEY, _HEAD) - _HEAD
    if data[_HEAD - 2:_HEAD] != b'",' or not data.endswith(b"}") or at < 0:
        return _Broken("the file is cut short or its header is damaged")
    try:
        meta = orjson.loads(b"{" + body[:at].tobytes() + b"}")
    except orjson.JSONDecodeError:
        return _Broken("its header is damaged")
    key = schema_fingerprint()
    if not isinstance(meta, dict) or meta.get("key") != key:
        return _Broken("it was sealed under another spec schema (or its header is damaged)")
    checksum = hashlib.sha256(key.encode())
    checksum.update(body)
    if checksum.hexdigest().encode() != seal:
        return _Broken("its checksum does not match its bytes (the file was changed or damaged after it was "
                       "sealed)")
    spec_id, tables = meta.get("spec_id"), meta.get("tables", {})
    try:
        hashes = {_address(address): int(value, 16) for address, value in tables.items()}
        spec = _trusted_spec(orjson.loads(body[at + len(SPEC_KEY):-1]))
    except (AttributeError, KeyError, TypeError, ValueError):  # not what sealing a valid spec of this schema writes
        spec = None
    if spec is None or not isinstance(spec_id, str):
        return _Broken("its content is not what sealing a valid spec writes")
    spec.__dict__["id"] = spec_id  # the cached `EnvSpec.id`, computed at sealing from these very bytes
    _SEALED_TABLES[id(spec)] = hashes
    weakref.finalize(spec, _SEALED_TABLES.pop, id(spec), None)
    return spec


@dataclass(frozen=True)
class SealFailure:
    """Why a sealed file cannot be loaded as sealed, and the spec data inside it for full validation."""

    reason: str
    payload: dict[str, Any] | None  # the envelope's `spec` member; None when the file is not a JSON object with one
    problem: str  # what is wrong with the document when there is no payload

    @property
    def message(self) -> str:
        return (f"the sealed file cannot be loaded as sealed: {self.reason}; write it again from its source "
                "(coworkenv.spec_seal_write.seal_spec), or fix the problems listed")


def open_sealed(data: str | bytes, source: str) -> EnvSpec | SealFailure:
    """The spec of a sealed file on the sealed path when its seal holds; else why not (a warning is logged), with
    the spec data inside for full validation (`coworkenv.loading.load_spec` does both)."""
    raw = data.encode() if isinstance(data, str) else data
    with gc_paused():  # tens of thousands of records at once (see gc_paused)
        opened = _open(raw)
    if isinstance(opened, EnvSpec):
        return opened
    log.warning("sealed spec %s: %s; validating it in full", source, opened.reason)
    try:
        envelope = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return SealFailure(opened.reason, None, f"not valid JSON: {exc}")
    if not isinstance(envelope, dict) or not isinstance(envelope.get("spec"), dict):
        return SealFailure(opened.reason, None, "a sealed file holds the spec as an object under 'spec'")
    return SealFailure(opened.reason, envelope["spec"], "")


# id(spec) -> its tables' hashes, for the specs loaded on the sealed path (`base_world` builds from them). An
# entry goes with its spec (weakref.finalize), so an id is never reused while its entry lives.
_SEALED_TABLES: dict[int, Mapping[tuple[str, str], int]] = {}


def sealed_table_hashes(spec: EnvSpec) -> Mapping[tuple[str, str], int] | None:
    """The tables' hashes a sealed file gave for this very spec object, or None (the spec was not loaded sealed)."""
    return _SEALED_TABLES.get(id(spec))


@cache
def _rows_adapter(model: type[BaseModel]) -> TypeAdapter[list[Any]]:
    return TypeAdapter(list[model])  # type: ignore[valid-type]


def _trusted_spec(raw: Any) -> EnvSpec | None:
    """EnvSpec from sealed JSON: every section validated but the world's records, which are built as they are."""
    if not isinstance(raw, dict) or not isinstance(raw.get("world"), dict):
        return None
    world = raw["world"]
    records = world.get("apps", {})
    spec = EnvSpec.model_validate({**raw, "world": {**world, "apps": {}}})
    apps = _trusted_apps(records)
    if apps is None:
        return None
    return spec.model_copy(update={"world": spec.world.model_copy(update={"apps": apps})})


def _trusted_apps(raw: Any) -> WorldApps | None:
    if not isinstance(raw, dict):
        return None
    states: dict[str, Any] = {}
    for app_name, tables in raw.items():
        app = APPS.get(app_name)
        if app is None or not isinstance(tables, dict):
            return None
        models = app.tables
        state: dict[str, Any] = {}
        for table_name, rows in tables.items():
            model = models.get(table_name)
            if model is None or not isinstance(rows, list):
                return None
            built = _records(model, rows)
            if built is None:
                return None
            state[table_name] = built
        states[app_name] = app.state_model.model_construct(**state)
    return WorldApps.model_construct(**states)


@cache
def _buildable(model: type[BaseModel]) -> dict[str, tuple[bool, type[BaseModel]]] | None:
    """The fields of `model` holding models (see `json_native_parts`) when its records and theirs can be built from
    their JSON as validation would build them (frozen, no validators, no post-init); None otherwise."""
    parts = json_native_parts(model)
    if parts is None:
        return None
    for kind in (model, *(inner for _, inner in parts.values())):
        decorators = kind.__pydantic_decorators__
        if (kind.__pydantic_post_init__ is not None or decorators.field_validators or decorators.model_validators
                or not kind.model_config.get("frozen")):
            return None
    return parts


def _records(model: type[BaseModel], rows: list[Any]) -> list[Any] | None:
    """The records of sealed rows: built from their field dicts (as validation would give them) for a model of
    JSON-native fields and (lists of) such models, validated for any other. None when a row is not a dict of as many
    keys as the model has fields, or a nested value not what a dump writes (not what sealing a valid spec writes)."""
    parts = _buildable(model)
    if parts is None:
        return _rows_adapter(model).validate_python(rows)  # type: ignore[no-any-return]
    if parts and not _dicts_of(model, rows):  # (`_built` checks the rows of a model without nested ones)
        return None
    for name, (many, inner) in parts.items():  # nested records first, all of a field's at once
        values = list(map(itemgetter(name), rows))
        if many and set(map(type, values)) - {list}:
            return None
        built = _built(inner, list(chain.from_iterable(values)) if many else values)
        if built is None:
            return None
        if many:
            parts_of = iter(built)
            built = [list(islice(parts_of, len(v))) for v in values]
        consume(map(dict.__setitem__, rows, repeat(name), built))
    return _built(model, rows)


def _dicts_of(model: type[BaseModel], rows: list[Any]) -> bool:
    """A sanity check, not validation (the seal is the guarantee): every row a dict with as many keys as fields."""
    return not (set(map(type, rows)) - {dict} or set(map(len, rows)) - {len(model.model_fields)})


def _built(model: type[BaseModel], rows: list[Any]) -> list[Any] | None:
    """Records of `model` whose `__dict__` are the rows, set by C-level loops (no Python frame per record)."""
    if not _dicts_of(model, rows):
        return None
    n = len(rows)
    records = list(map(object.__new__, repeat(model, n)))
    # Every row has every field; one fields-set is shared by the table's records: frozen records never change
    # theirs (a copy gets its own).
    consume(map(_SLOT_DICT.__set__, records, rows))
    consume(map(_SLOT_FIELDS_SET.__set__, records, repeat(set(model.model_fields), n)))
    consume(map(_SLOT_EXTRA.__set__, records, repeat(None, n)))
    consume(map(_SLOT_PRIVATE.__set__, records, repeat(None, n)))
    return records


_SLOT_DICT, _SLOT_FIELDS_SET, _SLOT_EXTRA, _SLOT_PRIVATE = (
    BaseModel.__dict__[name] for name in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__",
                                          "__pydantic_private__"))


def consume(iterator: Iterator[Any]) -> None:
    """Run an iterator to its end, keeping nothing."""
    deque(iterator, maxlen=0)
