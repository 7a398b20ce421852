"""Indexed search and list tools give exactly what a scan of the table gives, through writes, restores and rewinds."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coworkenv.apps import APPS, TOOLS, WorldApps
from coworkenv.apps._common import clamp, dump, matches
from coworkenv.tools import ToolBox
from coworkenv.world import World, _query, format_time, parse_time, prefix_range

START = parse_time("2026-03-02T09:00:00Z")
WORDS = ["pay", "payments", "Invoice", "inv-42", "alpha", "ΟΔΟΣ", "straße", "a", "é", "x.y@z.test", "10%", "retry"]
PEOPLE = ["u-ana", "u-bo", "u-cy"]
EMAILS = {"u-ana": "ana@x.test", "u-bo": "bo@x.test", "u-cy": "cy@x.test"}

text = st.lists(st.sampled_from(WORDS), max_size=4).map(" ".join)
query = st.one_of(
    text,
    st.sampled_from(WORDS).flatmap(lambda w: st.integers(0, len(w) - 1).map(lambda i: w[i:i + 3])),
    st.just("  "),
)
# Times in UTC (canonical) or with an offset (the same instant written differently).
offset = st.integers(-3 * 86400, 3 * 86400)
when = st.tuples(offset, st.booleans()).map(
    lambda t: format_time(START + t[0]) if t[1] else _with_offset(START + t[0])
)


def _with_offset(seconds: int) -> str:
    local = format_time(seconds + 3600)
    return local[:-1] + "+01:00"


message = st.fixed_dictionaries({
    "folder": st.sampled_from(["inbox", "archive", "sent"]), "subject": text, "body": text,
    "sender": st.sampled_from(list(EMAILS.values())), "read": st.booleans(),
    "sent_at": st.one_of(st.none(), offset.map(lambda o: format_time(START + o))),
    "labels": st.lists(st.sampled_from(["billing", "q1"]), max_size=2, unique=True),
})
ticket = st.fixed_dictionaries({
    "title": text, "description": text, "status": st.sampled_from(["open", "blocked", "closed"]),
    "assignee": st.sampled_from([None, *PEOPLE]), "labels": st.lists(st.sampled_from(WORDS), max_size=2),
})
line = st.fixed_dictionaries({
    "service": st.sampled_from(["svc-a", "svc-b"]), "ts": when, "level": st.sampled_from(["INFO", "WARN", "ERROR"]),
    "request_id": st.sampled_from(["", "req-1"]), "message": text,
})
event = st.tuples(offset, st.integers(1, 5 * 3600), text, st.lists(st.sampled_from(PEOPLE), max_size=2),
                  st.sampled_from(["confirmed", "cancelled"]))


def _state(messages: list[dict[str, Any]], tickets: list[dict[str, Any]], lines: list[dict[str, Any]],
           events: list[tuple[int, int, str, list[str], str]]) -> WorldApps:
    return WorldApps.model_validate({
        "directory": {"people": [{"id": p, "name": p[2:].title(), "email": e, "team": "t-a" if p != "u-cy" else "t-b",
                                  "role": "dev", "chat_handle": p[2:]} for p, e in EMAILS.items()]},
        "mail": {"messages": [{"id": f"msg-{i}", "thread_id": f"t-{i}", "to": ["ana@x.test"], **m}
                              for i, m in enumerate(messages)]},
        "tickets": {"tickets": [{"id": f"OPS-{i}", **t} for i, t in enumerate(tickets)]},
        "logs": {"lines": [{"id": f"log-{i}", **x} for i, x in enumerate(lines)]},
        "calendar": {"events": [
            {"id": f"evt-{i}", "title": title, "start": format_time(START + o), "end": format_time(START + o + d),
             "organizer": "ana@x.test", "attendees": [EMAILS[p] for p in who], "status": status}
            for i, (o, d, title, who, status) in enumerate(events)
        ]},
        "files": {"files": [{"id": f"{d}/{i}.md", "kind": "markdown", "content": m["body"]}
                            for i, m in enumerate(messages) for d in ("docs", "doc")][:12]},
    })


# -- the scans the tools ran before the indexes (the reference) ------------------------------------------------
def scan_mail_search(w: World, q: str, folder: str | None, limit: int) -> list[Any]:
    rows = [m for m in w.table("mail", "messages") if (folder is None or m.folder == folder)
            and matches(q, m.subject, m.body, m.sender, " ".join(m.to), " ".join(m.cc))]
    rows.sort(key=lambda m: (m.sent_at or "", m.id), reverse=True)
    return [m.id for m in rows[: clamp(limit)]]


def scan_mail_list(w: World, folder: str, unread: bool, label: str | None, limit: int) -> list[Any]:
    rows = [m for m in w.table("mail", "messages")
            if m.folder == folder and not (unread and m.read) and (label is None or label in m.labels)]
    rows.sort(key=lambda m: (m.sent_at or "", m.id), reverse=True)
    return [m.id for m in rows[: clamp(limit)]]


def scan_tickets(w: World, q: str, status: str | None, assignee: str | None, limit: int) -> list[Any]:
    rows = [t for t in w.table("tickets", "tickets") if matches(q, t.id, t.title, t.description, " ".join(t.labels))
            and (status is None or t.status == status) and (assignee is None or t.assignee == assignee)]
    rows.sort(key=lambda t: t.id)
    return [t.id for t in rows[: clamp(limit)]]


def scan_logs(w: World, service: str | None, contains: str | None, since: str | None, until: str | None,
              level: str | None, limit: int) -> list[Any]:
    rank = {"DEBUG": 0, "INFO": 1, "WARN": 2, "ERROR": 3}
    lo, hi = (parse_time(since) if since else None), (parse_time(until) if until else None)
    needle = contains.lower() if contains else None
    rows = [x for x in w.table("logs", "lines") if (service is None or x.service == service)
            and rank[x.level] >= (rank[level] if level else 0) and (needle is None or needle in x.message.lower())
            and (lo is None or parse_time(x.ts) >= lo) and (hi is None or parse_time(x.ts) < hi)]
    rows.sort(key=lambda x: (x.ts, x.id))
    return [x.id for x in rows[-clamp(limit):]]


def scan_events(w: World, lo: int, hi: int, email: str | None, limit: int) -> list[Any]:
    rows = [e for e in w.table("calendar", "events") if e.status == "confirmed"
            and parse_time(e.start) < hi and parse_time(e.end) > lo
            and (email is None or e.organizer == email or email in e.attendees)]
    rows.sort(key=lambda e: (parse_time(e.start), e.id))
    return [e.id for e in rows[: clamp(limit)]]


def scan_find_events(w: World, q: str, limit: int) -> list[Any]:
    rows = [e for e in w.table("calendar", "events") if matches(q, e.title, e.description, e.location)]
    rows.sort(key=lambda e: (parse_time(e.start), e.id))
    return [e.id for e in rows[: clamp(limit)]]


def scan_directory(w: World, q: str, team: str | None, limit: int) -> list[Any]:
    hits = [dump(p) for p in w.table("directory", "people")
            if matches(q, p.name, p.email, p.role, p.team) and (team is None or p.team == team)]
    return [p["id"] for p in hits[: clamp(limit)]]


def scan_files(w: World, prefix: str, limit: int) -> list[Any]:
    lo, hi = prefix_range(prefix)
    assert all((f.id.startswith(prefix)) == (lo <= f.id and (hi is None or f.id < hi)) for f in w.table("files", "files"))
    return [f.id for f in sorted((f for f in w.table("files", "files") if f.id.startswith(prefix)),
                                 key=lambda f: f.id)[: clamp(limit)]]


# Query plans: the default costs, and each plan forced (walk the order / sort candidates; words as sets / as checks).
PLANS = {
    "default": {},
    "walk-and-check": {"_SORT_STEP": 1e9, "_RARE_POSTINGS": -1, "_RARE_FRACTION": 10**9},
    "sort-and-sets": {"_WALK_STEP": 1e9, "_RARE_POSTINGS": 10**9},
    "sort-and-check": {"_WALK_STEP": 1e9, "_RARE_POSTINGS": -1, "_RARE_FRACTION": 10**9},
}


@contextmanager
def plan(name: str) -> Iterator[None]:
    saved = {k: getattr(_query, k) for k in PLANS[name]}
    for k, v in PLANS[name].items():
        setattr(_query, k, v)
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(_query, k, v)


def _ids(result: Any, key: str = "id") -> list[Any]:
    return [r[key] for r in result]


def _check_queries(box: ToolBox, data: st.DataObject) -> None:
    w = box.world

    def call(tool: str, **args: Any) -> Any:
        outcome = box.call(tool, args)
        assert outcome.ok, outcome.error
        return outcome.result

    for _ in range(4):
        q, limit = data.draw(query), data.draw(st.sampled_from([1, 3, 200]))
        folder = data.draw(st.sampled_from([None, "inbox", "sent"]))
        assert _ids(call("mail_search", query=q, folder=folder, limit=limit)) == scan_mail_search(w, q, folder, limit)
        f2, unread, label = data.draw(st.sampled_from(["inbox", "archive"])), data.draw(st.booleans()), \
            data.draw(st.sampled_from([None, "q1"]))
        assert _ids(call("mail_list_messages", folder=f2, unread_only=unread, label=label, limit=limit)) == \
            scan_mail_list(w, f2, unread, label, limit)
        status, who = data.draw(st.sampled_from([None, "open"])), data.draw(st.sampled_from([None, "u-bo"]))
        assert _ids(call("tickets_search", query=q, status=status, assignee=who, limit=limit)) == \
            scan_tickets(w, q, status, who, limit)
        since, until = data.draw(st.one_of(st.none(), when)), data.draw(st.one_of(st.none(), when))
        service, level = data.draw(st.sampled_from([None, "svc-a"])), data.draw(st.sampled_from([None, "WARN"]))
        contains = data.draw(st.one_of(st.none(), query))
        assert _ids(call("logs_search", service=service, contains=contains, since=since, until=until,
                         min_level=level, limit=limit)) == scan_logs(w, service, contains, since, until, level, limit)
        lo = START + data.draw(offset)
        hi = lo + data.draw(st.integers(1, 2 * 86400))
        person = data.draw(st.sampled_from([None, "u-bo"]))
        got = call("calendar_list_events", start=format_time(lo), end=format_time(hi), person=person, limit=limit)
        assert _ids(got) == scan_events(w, lo, hi, EMAILS[person] if person else None, limit)
        assert _ids(call("calendar_find_events", query=q, limit=limit)) == scan_find_events(w, q, limit)
        team = data.draw(st.sampled_from([None, "t-a"]))
        assert _ids(call("directory_search", query=q, team=team, limit=limit)) == scan_directory(w, q, team, limit)
        prefix = data.draw(st.sampled_from(["", "doc", "docs/", "docs/1", "z"]))
        assert _ids(call("files_list_files", prefix=prefix, limit=limit), "path") == scan_files(w, prefix, limit)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=st.lists(message, max_size=12), tickets=st.lists(ticket, max_size=8), lines=st.lists(line, max_size=12),
    events=st.lists(event, max_size=8), data=st.data(),
)
def test_indexed_tools_equal_the_scan(
    messages: list[dict[str, Any]], tickets: list[dict[str, Any]], lines: list[dict[str, Any]],
    events: list[tuple[int, int, str, list[str], str]], data: st.DataObject,
) -> None:
    with plan(data.draw(st.sampled_from(sorted(PLANS)))):
        _check_writes(messages, tickets, lines, events, data)


def _check_writes(
    messages: list[dict[str, Any]], tickets: list[dict[str, Any]], lines: list[dict[str, Any]],
    events: list[tuple[int, int, str, list[str], str]], data: st.DataObject,
) -> None:
    world = World.from_wire(APPS, _state(messages, tickets, lines, events), START, 30, "u-ana")
    box = ToolBox(world, TOOLS, TOOLS)
    if data.draw(st.booleans()):  # indexes are built on first use: before the writes, or after some
        _check_queries(box, data)
    snap = world.snapshot()
    # Writes through the tools and straight to the tables, then a restore and a rewind: indexes follow each.
    for step in range(data.draw(st.integers(1, 6))):
        kind = data.draw(st.sampled_from(["label", "move", "ticket", "delete", "put", "event"]))
        ids = [m.id for m in world.table("mail", "messages")]
        if kind == "label" and ids:
            box.call("mail_label", {"message_ids": [data.draw(st.sampled_from(ids))], "add": ["q1"]})
        elif kind == "move" and ids:
            box.call("mail_move", {"message_id": data.draw(st.sampled_from(ids)), "folder": "archive"})
        elif kind == "ticket":
            box.call("tickets_create", {"title": data.draw(text) or "t", "description": data.draw(text)})
        elif kind == "delete" and ids:
            world.table("mail", "messages").delete(data.draw(st.sampled_from(ids)))
        elif kind == "event":
            box.call("calendar_create_event", {"title": data.draw(text) or "e", "attendees": ["bo@x.test"],
                                               "start": format_time(START + 3600 * step),
                                               "end": format_time(START + 3600 * step + 7200)})
        else:
            table = world.table("logs", "lines")
            table.put(table.model(id=f"log-new-{step}", service="svc-b", ts=data.draw(when), level="ERROR",
                                  message=data.draw(text)))
        _check_queries(box, data)
    world.restore(snap)
    _check_queries(box, data)
    world.rewind()
    _check_queries(box, data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=st.lists(message, max_size=10), lines=st.lists(line, max_size=10), data=st.data(),
)
def test_indexes_lagging_several_writes_equal_the_scan(
    messages: list[dict[str, Any]], lines: list[dict[str, Any]], data: st.DataObject,
) -> None:
    """Indexes follow writes when next read: several writes between queries (a record written and put back, added and
    deleted, replaced twice), a rewind before any query, and an index object held across the writes all agree with
    the scan."""
    world = World.from_wire(APPS, _state(messages, [], lines, []), START, 30, "u-ana")
    box = ToolBox(world, TOOLS, TOOLS)
    _check_queries(box, data)  # the indexes are built (the first query of each scans, the next builds)
    _check_queries(box, data)
    held = world.table("mail", "messages").words("text")  # kept across the writes below, never fetched again
    world.reset_journal()
    with plan(data.draw(st.sampled_from(sorted(PLANS)))):
        for step in range(data.draw(st.integers(1, 4))):
            for k in range(data.draw(st.integers(0, 5))):  # writes with no query between them
                kind = data.draw(st.sampled_from(["line", "line-undone", "put-back", "move", "delete", "relabel"]))
                mail, logs = world.table("mail", "messages"), world.table("logs", "lines")
                ids = [m.id for m in mail]
                if kind.startswith("line"):
                    line_id = f"log-new-{step}-{k}"
                    logs.put(logs.model(id=line_id, service=data.draw(st.sampled_from(["svc-a", "svc-b"])),
                                        ts=data.draw(when), level="ERROR", message=data.draw(text)))
                    if kind == "line-undone":
                        logs.delete(line_id)
                elif kind == "put-back" and ids:
                    original = mail.get(data.draw(st.sampled_from(ids)))
                    assert original is not None
                    mail.put(original.model_copy(update={"subject": data.draw(text), "folder": "sent"}))
                    mail.put(original)
                elif kind == "move" and ids:
                    box.call("mail_move", {"message_id": data.draw(st.sampled_from(ids)), "folder": "archive"})
                elif kind == "delete" and ids:
                    mail.delete(data.draw(st.sampled_from(ids)))
                elif kind == "relabel" and ids:
                    target = data.draw(st.sampled_from(ids))
                    box.call("mail_label", {"message_ids": [target], "add": ["q1"]})
                    box.call("mail_label", {"message_ids": [target], "remove": ["q1"], "add": ["billing"]})
            word = data.draw(st.sampled_from(WORDS)).lower()
            assert set(held.ids_with_word(word)) == {m.id for m in world.table("mail", "messages")
                                                      if matches(word, m.subject, m.body, m.sender, " ".join(m.to),
                                                                 " ".join(m.cc))}
            _check_queries(box, data)
        if data.draw(st.booleans()):
            world.table("logs", "lines").put(world.table("logs", "lines").model(
                id="log-last", service="svc-a", ts=data.draw(when), level="WARN", message=data.draw(text)))
        world.rewind()  # possibly with writes no index has seen yet
        _check_queries(box, data)


def test_lines_written_and_rewound_before_a_search_cost_no_index_work(monkeypatch: Any) -> None:
    """A log stream's lines, written and rewound with no search between, never reach the table's indexes."""
    world = World.from_wire(APPS, _state([], [], [{"service": "svc-a", "ts": format_time(START), "level": "INFO",
                                                   "request_id": "", "message": "boot ok"}], []), START, 30, "u-ana")
    box = ToolBox(world, TOOLS, TOOLS)
    for _ in range(2):  # the second search builds the indexes
        assert box.call("logs_search", {"service": "svc-a", "contains": "boot"}).ok
    table = world.table("logs", "lines")
    assert table._indexes  # built
    calls: list[str] = []
    for kind in {type(index) for index in table._indexes.values()}:
        for method in ("add", "remove", "replace"):
            original = getattr(kind, method)
            monkeypatch.setattr(kind, method, lambda *a, _m=method, _o=original: (calls.append(_m), _o(*a))[1])
    world.reset_journal()
    for n in range(50):
        world.clock += 30
        table.put(table.model(id=f"log-s-{n}", service="svc-a", ts=world.now_iso, level="ERROR",
                              message=f"db pool exhausted (#{n})"))
    world.rewind()
    got = box.call("logs_search", {"service": "svc-a", "contains": "pool"})
    assert got.ok and got.result == [] and calls == []
    table.put(table.model(id="log-s-x", service="svc-a", ts=world.now_iso, level="ERROR", message="pool gone"))
    assert [r["id"] for r in box.call("logs_search", {"service": "svc-a", "contains": "pool"}).result] == ["log-s-x"]
    assert calls  # a line written and then searched is indexed (at the search)


def test_word_index_finds_substrings_of_tokens_only_within_tokens() -> None:
    world = World.from_wire(APPS, _state([{"folder": "inbox", "subject": "Payments retry", "body": "see inv-42",
                                           "sender": "bo@x.test", "read": False, "sent_at": None, "labels": []}],
                                         [], [], []), START, 30, "u-ana")
    index = world.table("mail", "messages").words("text")
    assert index.ids_with_word("ments") == {"msg-0"}
    assert index.ids_with_word("v-4") == {"msg-0"}
    assert not index.ids_with_word("paymentsretry")  # spans two tokens: a scan does not match it either
    world.table("mail", "messages").delete("msg-0")
    assert not index.ids_with_word("ments") and not index.tokens_containing("pay")


@settings(max_examples=20, deadline=None)
@given(messages=st.lists(message, max_size=5), tickets=st.lists(ticket, max_size=5), lines=st.lists(line, max_size=5),
       events=st.lists(event, max_size=5))
def test_fast_dump_equals_the_serializer(
    messages: list[dict[str, Any]], tickets: list[dict[str, Any]], lines: list[dict[str, Any]],
    events: list[tuple[int, int, str, list[str], str]],
) -> None:
    world = World.from_wire(APPS, _state(messages, tickets, lines, events), START, 30, "u-ana")
    for table in world.tables():
        for record in table:
            expected = {k: v for k, v in record.model_dump(mode="json").items()
                        if v is not None or k not in type(record).shown_when_set}  # shown only when set
            got = dump(record)
            assert got == expected and list(got) == list(expected)
            assert dump(record, "id") == {"id": record.id}


@settings(max_examples=25, deadline=None)
@given(
    items=st.lists(st.tuples(st.sampled_from(["wh", "shop"]), st.integers(0, 9), st.integers(0, 9), text), max_size=15),
    articles=st.lists(st.tuples(text, text, st.sampled_from(["published", "archived"])), max_size=10),
    tasks=st.lists(st.tuples(st.sampled_from(["list-1", "list-2"]), text, st.booleans(), st.one_of(st.none(), when)),
                   max_size=12),
    data=st.data(),
)
def test_productivity_tools_equal_the_scan(
    items: list[tuple[str, int, int, str]], articles: list[tuple[str, str, str]],
    tasks: list[tuple[str, str, bool, str | None]], data: st.DataObject,
) -> None:
    state = WorldApps.model_validate({
        "inventory": {"items": [{"id": f"S{i}@{loc}", "sku": f"S{i}", "name": name, "location": loc, "quantity": q,
                                 "reorder_level": r} for i, (loc, q, r, name) in enumerate(items)]},
        "kb": {"articles": [{"id": f"KB-{i}", "title": t, "body": b, "status": s} for i, (t, b, s) in enumerate(articles)]},
        "todo": {"lists": [{"id": "list-1", "name": "A"}, {"id": "list-2", "name": "B"}],
                 "tasks": [{"id": f"task-{i}", "list_id": li, "title": t, "done": d, "due": due}
                           for i, (li, t, d, due) in enumerate(tasks)]},
    })
    box = ToolBox(World.from_wire(APPS, state, START, 30, None), TOOLS, TOOLS)
    w = box.world
    with plan(data.draw(st.sampled_from(sorted(PLANS)))):
        q, loc, low = data.draw(query), data.draw(st.sampled_from([None, "shop"])), data.draw(st.booleans())
        expected = sorted((i for i in w.table("inventory", "items") if (loc is None or i.location == loc)
                           and (not low or i.quantity < i.reorder_level) and matches(q, i.sku, i.name)), key=lambda i: i.id)
        got = box.call("inventory_search_items", {"query": q, "location": loc, "below_reorder": low, "limit": 5})
        assert _ids(got.result) == [i.id for i in expected[:5]]
        words, archived = q.lower().split(), data.draw(st.booleans())
        hits = [a for a in w.table("kb", "articles") if (archived or a.status != "archived")
                and matches(q, a.title, a.body, "")]
        hits.sort(key=lambda a: (not all(x in a.title.lower() for x in words), a.id))
        got = box.call("kb_search", {"query": q, "include_archived": archived, "limit": 4})
        assert _ids(got.result) == [a.id for a in hits[:4]]
        li, done = data.draw(st.sampled_from([None, "list-2"])), data.draw(st.booleans())
        rows = [t for t in w.table("todo", "tasks") if (li is None or t.list_id == li) and (done or not t.done)]
        rows.sort(key=lambda t: (t.due or "~", t.id))
        got = box.call("todo_list_tasks", {"list_id": li, "include_done": done, "limit": 3})
        assert _ids(got.result) == [t.id for t in rows[:3]]


@given(st.integers(-30_610_224_000, 253_402_300_799))  # years 1000 to 9999
def test_format_time_writes_what_datetime_writes(seconds: int) -> None:
    expected = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert format_time(seconds) == expected
    assert parse_time(expected) == seconds
