"""The contract every app follows: typed records in tables, and a toolkit over them."""

from __future__ import annotations

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
