"""The contract every app follows: typed records in tables, and a toolkit over them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict

from coworkenv.world._index import IndexSpec

if TYPE_CHECKING:
    from coworkenv.tools import Toolkit


class Record(BaseModel):
    """A row of an app table. Frozen: tools write by replacing records (see `Table.put`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    # Fields a tool's result shows only when set (not None): what an imported service shows that the app itself
    # never sets (a to-do's `status_word`), so results of the app's own records stay as they were without them
    # (`coworkenv.apps._common.dump`). The record's state, digests and wire form keep every field.
    shown_when_set: ClassVar[tuple[str, ...]] = ()

    id: str


# The table of an app whose records a service behind a declared tool keeps fields of, as written, that the app holds
# otherwise or not at all (see `Kept`, `coworkenv.bindings.ArgBinding.kept`).
KEPT_TABLE = "kept"


class Kept(Record):
    """The values a service keeps of one record (the app record of the same id) as its writes gave them, where the
    app holds them otherwise or not at all: a ticket's `category`, a priority of any text, a due date as written.
    Only declared tools write them (`coworkenv.bindings.ArgBinding.kept`), and the answers showing the record show
    them (`ResultShape.kept`); an app's own tools never read them."""

    values: str = "{}"  # the values by field name, as JSON text: any JSON a call gave, kept exactly
    # A record the service made (`Binding.kept_fresh`): the fields its record has, in its order, as the write's
    # answer showed them (a created event has no organizer, a created to-do no completion time); None: the app's
    fields: list[str] | None = None

    @property
    def kept(self) -> dict[str, Any]:
        """The values by field name."""
        value: dict[str, Any] = json.loads(self.values)
        return value

    @classmethod
    def of(cls, record_id: str, values: dict[str, Any], fields: list[str] | None = None) -> Kept:
        # any JSON a call gave (an integer past 64 bits too, which orjson refuses)
        return cls(id=record_id, values=json.dumps(values, ensure_ascii=False), fields=fields)


class AppState(BaseModel):
    """An app's state at the wire: one list of records per table."""

    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class AppDef:
    """One app: its name, wire state model (fields are tables), toolkit class and the indexes of its tables."""

    name: str
    state_model: type[AppState]
    toolkit: type[Toolkit]
    description: str
    # table -> index name -> spec; the toolkit's search and list tools query these (see Table.select).
    indexes: Mapping[str, Mapping[str, IndexSpec]] = field(default_factory=dict)

    @property
    def tables(self) -> dict[str, type[Record]]:
        out: dict[str, type[Record]] = {}
        for field_name, info in self.state_model.model_fields.items():
            args: tuple[Any, ...] = getattr(info.annotation, "__args__", ())
            out[field_name] = args[0]
        return out
