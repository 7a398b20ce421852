"""The shape of a Claw-Eval service adapter: how its fixture records and its tools become an app's records and
bound ops."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from coworkenv.bindings import ArgBinding, DayWindow, ItemFilter, ResultShape, shown
from coworkenv.importers.claw_eval_records import Derived, RecordMap
from coworkenv.request_models import DaySpan, Document, Refusal


@dataclass(frozen=True)
class ToolMap:
    """How one service tool runs on an app op: known arguments, fixed op arguments and the result's shape."""

    op: str
    args: dict[str, ArgBinding]
    defaults: dict[str, Any] = field(default_factory=dict)
    result: ResultShape = field(default_factory=ResultShape)
    windows: tuple[DayWindow, ...] = ()  # day-based arguments as a time window (the task's tool must take the day)
    # The service answers the records it holds (a get, a list of whole records, a write answering the record it
    # changed): the answer shows a held record's fields as the service has them (`ResultShape.records`)
    stored: bool = False
    # The fields of a held record a `stored` list shows, in its order (a service's summary: `{"ticket_id", "title",
    # "reporter", "department", ...}`); empty: all the record's fields
    listed: tuple[str, ...] = ()
    # A held record as this tool shows it, where its handler adds to it (a search's snippet of each article)
    held_as: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None
    # The write stamps the record it makes as the service does, under this field, kept with it (`Binding.kept_stamp`)
    kept_stamp: str | None = None
    # The write makes its record: the values it keeps replace any its id held (`Binding.kept_fresh`)
    kept_fresh: bool = False
    # The records this tool answers made of each held record, by their ids, where they are parts of it (a job's
    # history entries, by run id): what it shows of them is held as those (none: the held records themselves)
    held_items: Callable[[Mapping[str, Any]], Mapping[str, Mapping[str, Any]]] | None = None
    # The argument the service cuts its list by, `results[:n]` (0: none; -1: all but the last), the default of its
    # request model when the tool's schema does not take it (`Binding.cut`); `cut_total`: its `total` counts the
    # whole list (a job's history)
    cut: str | None = None
    cut_total: bool = False
    # Arguments the service compares as written where the op does otherwise (a category letter case too, a
    # department within a person's): argument -> the test of each listed item (`Binding.item_filters`)
    item_filters: Mapping[str, ItemFilter] = field(default_factory=dict)
    # Counts of days its handler adds to a day or takes from now (`Binding.day_spans`): past datetime's range, a 500
    day_spans: tuple[DaySpan, ...] = ()


@dataclass(frozen=True)
class ServiceAdapter:
    """One Claw-Eval service as a coworkenv app."""

    name: str
    app: str
    fixture_env: str | tuple[str, ...]  # the service's environment variable(s) naming its fixture file(s)
    records: Callable[[Any], dict[str, list[dict[str, Any]]]] | RecordMap  # fixture JSON -> {table: records}
    tools: dict[str, ToolMap]
    no_op: dict[str, str] = field(default_factory=dict)  # a tool of the service no app op runs faithfully: why
    # A service tag: its records carry it and its list tools filter by it unless given another filter, so two
    # services can share one app table without seeing each other's records.
    tag: str | None = None
    # Texts of its app's errors that stand for the service's handler failing (`Binding.handler_fails`): a 500 there
    handler_fails: tuple[str, ...] = ()
    # A service that reads no JSON file `fixture_env` names (the OCR service reads text files of a folder): the
    # fixtures it reads, as (file, data), from the task's folder and the service's environment.
    read_fixture: Callable[[Path, Mapping[str, str]], list[tuple[Path, Any]]] | None = None
    # The field naming each record of the service (its id, the app record's id too), and where a fixture object
    # holds the records when `records` is no RecordMap: what its `stored` tools answer (`held`).
    key: str | None = None
    list_key: str = ""
    # The records as the service holds them once loaded, where that differs from the fixture (the mail's dates
    # rewritten, a search's snippet of each article): what `held` gives, the app's records unchanged
    held_as: Callable[[list[Mapping[str, Any]]], list[Mapping[str, Any]]] | None = None
    # How the service answers a call naming an id it holds no record of, `{name}` the request's field
    # (`{"error": "Ticket T-9 not found"}`): the tools taking every field it names answer so (`Binding.not_found`)
    not_found: str | None = None
    # Why the service's own loader, run as its module loads, raises on a fixture's data (so the process exits
    # before it serves: Claw-Eval's `ServiceStartError`); None where it loads. Only services whose loader reads the
    # records (gmail, calendar: they move every record's time) have one.
    load_fails: Callable[[Any], str | None] | None = None
    # A service whose handler answers every call this task can make with its own HTTP error (the documents service,
    # for every file but the PDFs its folder holds): those answers (`Framework.refusals`) and the files it serves
    # (`Framework.documents`), read from the task folder and the service's environment, or why the task cannot be
    # imported; its tools are offered and every call is refused or served so
    refusals: Callable[[Path, Mapping[str, str]], tuple[list[Refusal], list[Document]] | str] | None = None

    def held(self, data: Any) -> dict[str, Mapping[str, Any]]:
        """The service's records of a fixture by id, as it holds them once loaded (none without a `key`)."""
        if self.key is None:
            return {}
        if isinstance(self.records, RecordMap):
            rows: Any = self.records.rows(data)
        else:
            rows = data if isinstance(data, list) else data.get(self.list_key, []) if isinstance(data, dict) else []
        rows = [r for r in rows if isinstance(r, dict)]
        if self.held_as is not None:
            rows = self.held_as(rows)
        return {str(r[self.key]): r for r in rows if r.get(self.key) is not None}

    def answered(self, mapping: ToolMap, held: Mapping[str, Mapping[str, Any]],
                 rows: Mapping[str, Mapping[str, Any]] | None = None) -> ResultShape:
        """The result shape of one of its tools: a `stored` tool's shows the records `held` as the service holds
        them, a field its `fields` name read from the app (null here), any other as held; where the app shows a
        field of a record otherwise than the service holds it as loaded (`rows`: the app's records by id, as the
        import made them), the held value and the app's (`ResultShape.loaded`): the service's is shown until a
        write changes the app's."""
        shape = mapping.result
        if not mapping.stored or not held:
            return shape
        if mapping.held_items is not None:
            held = {i: item for r in held.values() for i, item in mapping.held_items(r).items()}
        prefix = shape.record_id.rpartition(".")[0]  # a write's record under a field of the op's result
        records: dict[str, dict[str, Any]] = {}
        loaded: dict[str, dict[str, Any]] = {}
        for i, r in held.items():
            r = mapping.held_as(r) if mapping.held_as is not None else r
            row = (rows or {}).get(i)
            app = shown(shape, {prefix: row} if prefix else row) if row is not None else {}
            # (of another type too: a price the app holds as 78000.0, held as 78000)
            # (in the held record's order: `named` is a set, whose order the run's string hashes decide)
            other = {k: app[k] for k in r if k in shape.named and k in app and (
                app[k] != r[k] or type(app[k]) is not type(r[k]))}
            records[i] = {k: r.get(k) if k not in shape.named or k in other else None
                          for k in mapping.listed or r if k in r or k in shape.named}
            if other:
                loaded[i] = other
        return ResultShape.model_validate({**shape.model_dump(), "records": records, "loaded": loaded})


def written(record: ResultShape, name: str, word: str, under: str | None = None) -> ResultShape:
    """A write's answer as Claw-Eval's services give it: `{"status": word, name: the record}` (a to-do update
    `{"status": "updated", "task": {...}}`), the record shown as `record` shows it; `under`: the op's result holds
    the record under that field (a delete's `{"id": ..., "deleted": true, "task": {...}}`)."""
    data = record.model_dump()
    if under is not None:
        data["fields"] = {out: f"{under}.{path}" for out, path in record.fields.items()}
        data["cases"] = {out: [{**c, "path": f"{under}.{c['path']}"} if c.get("path") else c for c in cases]
                         for out, cases in data.get("cases", {}).items()}
        data["record_id"] = f"{under}.{record.record_id}"
    return ResultShape.model_validate({**data, "wrap": name, "beside": {"status": word}})


def recorded(name: str, word: str, *arguments: str) -> ResultShape:
    """A write answered with the record the service makes of its request: `{"status": word, name: {each argument
    as given, "timestamp": the call's time, `+00:00`}}` (a mail sent: `{"status": "sent", "message": {"to": ..., "subject":
    ..., "body": ..., "timestamp": ...}}`), whatever the op answers."""
    return ResultShape(wrap=name, beside={"status": word}, given={a: a for a in arguments}, stamp="timestamp",
                       stamp_style="isoformat")  # the services stamp `datetime.now(timezone.utc).isoformat()`


def rename(to: str | None, *convert: Any, values: dict[str, Any] | None = None, closed: bool = False,
           unmapped: Literal["passed", "dropped"] = "passed", unmapped_to: str | None = None,
           kept: str | None = None, blank: bool = False, strict_day: str | None = None) -> ArgBinding:
    """A declared argument passed on as the op parameter `to` (converted, values mapped; `closed`: a value outside
    `values` matches no record, so the list is empty; `unmapped="dropped"`: a write's value outside `values` is
    accepted and ignored; `unmapped_to`: such a value fills that op parameter as written, and a closed filter looks
    for it there; `kept`: the value as written is kept as this field of the written record, as the service keeps
    it, and shown so by the answers showing the record; `to` None: only kept; `blank`: an empty value is as if not
    given, as the service tests the filter's truth, `if req.status and ...`; `strict_day`: the value must be a day
    as the service's `strptime(value, "%Y-%m-%d")` reads it, else the call fails with that text)."""
    return ArgBinding(to=to, convert=list(convert), values=values or {}, closed=closed, unmapped=unmapped,
                      unmapped_to=unmapped_to, kept=kept, blank=blank, strict_day=strict_day)


def number_of(name: str) -> Derived:
    """The fixture field as a number: a whole one stays an int, text is read as a float; None when missing."""
    def compute(record: Any) -> int | float | None:
        value = record.get(name)
        if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
            return value  # type: ignore[no-any-return]
        return float(value)
    return Derived((name,), compute)
