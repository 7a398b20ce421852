"""The productivity apps (todo, notes, kb, contacts, config, scheduler, inventory, web) and the new record fields."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from coworkenv.agents import OraclePolicy
from coworkenv.apps import APPS, SERVICE_TOOLS, TOOLS, WorldApps
from coworkenv.env import Env
from coworkenv.rollout import run_episode
from coworkenv.spec import ReferenceStep, ReferenceTurn, ToolCallSpec
from coworkenv.synth import generate_spec, load_taxonomy
from coworkenv.synth.procedural.personal import _phone_pattern
from coworkenv.tools import ToolBox
from coworkenv.world import World, parse_time

START = "2026-03-02T09:00:00Z"


def _box(**apps: Any) -> ToolBox:
    state = WorldApps.model_validate({
        "directory": {
            "people": [{"id": "u-ana", "name": "Ana Ruiz", "email": "ana@x.test", "team": "t-ops", "role": "SRE"}],
            "teams": [{"id": "t-ops", "name": "Ops"}],  # no lead
        },
        **apps,
    })
    world = World.from_wire(APPS, state, parse_time(START), 30, user="u-ana")
    return ToolBox(world, TOOLS, TOOLS)


def _served(box: ToolBox) -> ToolBox:
    """The tools of `box`'s world as a spec's declared tools run them: with their service arguments."""
    tools = {**TOOLS, **SERVICE_TOOLS}
    return ToolBox(box.world, tools, tools)


def _ok(box: ToolBox, tool: str, /, **args: Any) -> Any:
    outcome = box.call(tool, args)
    assert outcome.ok, outcome.error
    return outcome.result


def _error(box: ToolBox, tool: str, /, **args: Any) -> str:
    outcome = box.call(tool, args)
    assert not outcome.ok
    return str(outcome.error)


def test_team_without_lead_is_listed() -> None:
    box = _box()
    assert _ok(box, "directory_get_team", team_id="t-ops") == {"id": "t-ops", "name": "Ops", "lead": None,
                                                              "channel": None, "members": ["u-ana"]}


def test_todo_due_dates_are_stored_in_utc_and_sorted() -> None:
    box = _box(todo={"lists": [{"id": "list-1", "name": "Work"}]})
    late = _ok(box, "todo_add_task", list_id="list-1", title="later", due="2026-03-06T17:00:00+01:00")
    _ok(box, "todo_add_task", list_id="list-1", title="undated")
    soon = _ok(box, "todo_add_task", list_id="list-1", title="sooner", due="2026-03-03T08:00:00Z")
    assert late["due"] == "2026-03-06T16:00:00Z" and late["id"] == "task-1"
    assert [t["title"] for t in _ok(box, "todo_list_tasks", list_id="list-1")] == ["sooner", "later", "undated"]
    assert [t["id"] for t in _ok(box, "todo_list_tasks", due_before="2026-03-04T00:00:00Z")] == [soon["id"]]
    _ok(box, "todo_complete_task", task_id=soon["id"])
    assert len(_ok(box, "todo_list_tasks")) == 2 and len(_ok(box, "todo_list_tasks", include_done=True)) == 3
    assert _ok(box, "todo_list_lists")[0]["open_tasks"] == 2
    assert "no list" in _error(box, "todo_add_task", list_id="list-9", title="x")
    assert "ISO-8601" in _error(box, "todo_add_task", list_id="list-1", title="x", due="friday")


def test_todo_priorities_tags_done_filter_get_and_delete() -> None:
    box = _box(todo={"lists": [{"id": "list-1", "name": "Work"}]})
    lease = _ok(box, "todo_add_task", list_id="list-1", title="Renew lease", priority="high",
                tags=["legal", " legal", ""], due="2026-03-04")
    assert (lease["priority"], lease["tags"], lease["due"]) == ("high", ["legal"], "2026-03-04T00:00:00Z")
    badge = _ok(box, "todo_add_task", list_id="list-1", title="Order badge printer")
    assert badge["priority"] == "medium" and badge["tags"] == []
    assert [t["id"] for t in _ok(box, "todo_list_tasks", priority="high")] == [lease["id"]]
    assert [t["id"] for t in _ok(box, "todo_search_tasks", query="legal")] == [lease["id"]]  # tags are searched
    done = _ok(box, "todo_update_task", task_id=badge["id"], done=True, tags=["it"], priority="low")
    assert done["done"] and done["done_at"] and done["tags"] == ["it"]
    assert [t["id"] for t in _ok(box, "todo_list_tasks", done=True)] == [badge["id"]]
    assert [t["id"] for t in _ok(box, "todo_list_tasks", done=False, list_id="list-1")] == [lease["id"]]
    assert [t["id"] for t in _ok(box, "todo_list_tasks", tag="it", include_done=True)] == [badge["id"]]
    assert _ok(box, "todo_get_task", task_id=lease["id"])["title"] == "Renew lease"
    assert _ok(box, "todo_delete_task", task_id=lease["id"])["deleted"] is True
    assert "no task" in _error(box, "todo_get_task", task_id=lease["id"])
    assert _ok(box, "todo_list_tasks", tag="legal", include_done=True) == []  # indexes follow the delete
    assert _ok(box, "todo_list_lists")[0]["open_tasks"] == 0
    assert "priority" in _error(box, "todo_add_task", list_id="list-1", title="x", priority="urgent")


def test_todo_stages_not_started_in_progress_and_done() -> None:
    box = _box(todo={"lists": [{"id": "list-1", "name": "Work"}]})
    report, demo, taxes = (_ok(box, "todo_add_task", list_id="list-1", title=t)["id"] for t in ("report", "demo", "taxes"))
    started = _ok(box, "todo_update_task", task_id=demo, stage="in_progress")
    assert (started["started"], started["done"]) == (True, False)
    _ok(box, "todo_update_task", task_id=taxes, stage="done")
    stage = lambda s, **more: sorted(t["id"] for t in _ok(box, "todo_list_tasks", stage=s, **more))  # noqa: E731
    assert (stage("not_started"), stage("in_progress"), stage("done")) == ([report], [demo], [taxes])
    assert stage("done", list_id="list-1") == [taxes]  # a stage lists done tasks of a list too
    _ok(box, "todo_complete_task", task_id=demo)  # done is past in progress
    assert (stage("in_progress"), stage("done")) == ([], sorted([demo, taxes]))
    _ok(box, "todo_update_task", task_id=demo, done=False)  # reopened: back in progress
    assert stage("in_progress") == [demo]
    reset = _ok(box, "todo_update_task", task_id=demo, stage="not_started")
    assert (reset["started"], reset["done"]) == (False, False) and stage("not_started") == sorted([report, demo])
    assert "stage" in _error(box, "todo_list_tasks", stage="blocked")
    served = _served(box)  # `id_prefix`, a service argument (set by the Claw-Eval import's binding)
    assert _ok(served, "todo_add_task", list_id="list-1", title="x", id_prefix="todo_")["id"] == "todo_004"
    _ok(served, "todo_delete_task", task_id=report)  # three held again: todo_004 is in use, so the next is 005
    assert _ok(served, "todo_add_task", list_id="list-1", title="y", id_prefix="todo_")["id"] == "todo_005"


def test_mail_labels() -> None:
    msg = {"id": "msg-1", "thread_id": "t", "folder": "inbox", "sender": "b@x.test", "to": ["ana@x.test"],
           "subject": "Invoice", "body": "pay", "sent_at": START}
    box = _box(mail={"messages": [msg, {**msg, "id": "msg-2"}]})
    _ok(box, "mail_label", message_ids=["msg-1", "msg-2"], add=["billing", "billing", "q1"])
    _ok(box, "mail_label", message_ids=["msg-2"], remove=["q1"])
    labelled = box.world.table("mail", "messages").get("msg-1")
    assert labelled is not None and labelled.labels == ["billing", "q1"]
    assert [m["id"] for m in _ok(box, "mail_list_messages", label="q1")] == ["msg-1"]
    assert "give labels" in _error(box, "mail_label", message_ids=["msg-1"])



def test_a_draft_may_reply_to_an_unknown_message_but_is_not_sent_so() -> None:
    msg = {"id": "msg-1", "thread_id": "thr-a", "folder": "inbox", "sender": "b@x.test", "to": ["ana@x.test"],
           "subject": "Invoice", "body": "pay", "sent_at": START}
    box = _box(mail={"messages": [msg]})
    threaded = _ok(box, "mail_save_draft", to=["b@x.test"], subject="Re: Invoice", body="Paid.", in_reply_to="msg-1")
    assert threaded["thread_id"] == "thr-a"
    # Claw-Eval's gmail saves a draft replying to any id; the app keeps the id, on a thread of the draft's own
    orphan = _ok(box, "mail_save_draft", to=["b@x.test"], subject="Re: ?", body="Paid.", in_reply_to="X-999")
    draft = box.world.table("mail", "messages").get(orphan["id"])
    assert draft is not None and draft.in_reply_to == "X-999" and orphan["thread_id"] == f"thr-{orphan['id']}"
    assert "'X-999', which no message has" in _error(box, "mail_send_draft", draft_id=orphan["id"])
    assert "no message with id 'X-999'" in _error(box, "mail_send", to=["b@x.test"], subject="Re", body="x",
                                                  in_reply_to="X-999")
    _ok(box, "mail_send_draft", draft_id=threaded["id"])


def test_a_draft_may_lack_recipients_but_is_not_sent_without_them() -> None:
    box = _box()
    # a draft is not sent: saved with no recipient or with text that is no address yet, as Claw-Eval's gmail does
    blank = _ok(box, "mail_save_draft", to=[], subject="Offsite", body="Agenda to follow.")
    named = _ok(box, "mail_save_draft", to=["Li Ming"], subject="Offsite", body="Agenda to follow.")
    assert "at least one recipient" in _error(box, "mail_send_draft", draft_id=blank["id"])
    assert "'Li Ming' is not an email address" in _error(box, "mail_send_draft", draft_id=named["id"])
    assert "at least one recipient" in _error(box, "mail_send", to=["  "], subject="Offsite", body="x")
    assert box.world.table("mail", "messages").get(named["id"]).folder == "drafts"  # nothing left


def test_notes_kb_and_contacts() -> None:
    box = _box(
        kb={"articles": [
            {"id": "KB-1", "title": "Refund policy", "body": "Refunds within 30 days."},
            {"id": "KB-2", "title": "Old", "body": "refund policy v0", "status": "archived"},
            {"id": "KB-3", "title": "FAQ", "body": "See the refund policy."},
        ]},
        contacts={"contacts": [{"id": "ct-1", "name": "Bo Li", "company": "Acme", "phone": "+1 555 0100"}]},
    )
    note = _ok(box, "notes_create_note", title="Plan", body="a", tags=["q1"])
    _ok(box, "notes_update_note", note_id=note["id"], append="b")
    assert _ok(box, "notes_read_note", note_id=note["id"])["body"] == "a\nb"
    assert [n["id"] for n in _ok(box, "notes_search_notes", query="q1")] == [note["id"]]
    # Title matches rank first; archived articles only on request.
    assert [a["id"] for a in _ok(box, "kb_search", query="refund policy")] == ["KB-1", "KB-3"]
    assert len(_ok(box, "kb_search", query="refund policy", include_archived=True)) == 3
    _ok(box, "contacts_update", contact_id="ct-1", phone="+34 611 222 333", add_note="moved")
    assert _ok(box, "contacts_search", query="611")[0]["notes"] == "moved"
    assert "not a phone number" in _error(box, "contacts_update", contact_id="ct-1", phone="call me")


def test_config_store_versions_and_compare_and_set() -> None:
    box = _box()
    assert _ok(box, "config_set", key="billing/retries", value="3")["version"] == 1
    assert _ok(box, "config_set", key="billing/retries", value="5", expected_version=1)["version"] == 2
    assert "version 2, not 1" in _error(box, "config_set", key="billing/retries", value="7", expected_version=1)
    assert [r["value"] for r in _ok(box, "config_history", key="billing/retries")] == ["5", "3"]
    assert _ok(box, "config_list_keys", prefix="billing/") == [{"key": "billing/retries", "value": "5", "version": 2}]


def test_scheduler_validates_cron_and_runs() -> None:
    box = _box()
    job = _ok(box, "scheduler_create_job", name="export", schedule="0  3 * * 1-5", command="export")
    assert job["schedule"] == "0 3 * * 1-5"
    for bad in ("0 3 * *", "61 * * * *", "0 3 * * mon", "*/0 * * * *"):
        assert bad in _error(box, "scheduler_create_job", name="other", schedule=bad, command="x")
    ran = _ok(box, "scheduler_run_now", job_id=job["id"])
    assert ran["last_run"] == box.world.now_iso and ran["last_status"] == "ok"
    _ok(box, "scheduler_update_job", job_id=job["id"], enabled=False)
    assert "disabled" in _error(box, "scheduler_run_now", job_id=job["id"])
    assert _ok(box, "scheduler_list_jobs", enabled=True) == []


def test_a_job_written_as_written_keeps_any_schedule_and_a_taken_name() -> None:
    """`as_written` (set by the Claw-Eval import: its scheduler stores any cron text and duplicate names) keeps
    the schedule and the name as given; without it both stay checked."""
    box = _box()
    served = _served(box)  # a service argument: only a declared tool's op takes it (tests/test_service_args.py)
    first = _ok(box, "scheduler_create_job", name="export", schedule="0 3 * * *", command="export")
    odd = _ok(served, "scheduler_create_job", name="export", schedule="every night at 3", command="x", as_written=True)
    assert (odd["name"], odd["schedule"]) == ("export", "every night at 3") and odd["id"] != first["id"]
    again = _ok(served, "scheduler_update_job", job_id=first["id"], schedule=" @daily ", as_written=True)
    assert again["schedule"] == " @daily "
    assert "5 cron fields" in _error(box, "scheduler_update_job", job_id=first["id"], schedule="@daily")
    assert "exists already" in _error(box, "scheduler_create_job", name="export", schedule="0 4 * * *", command="y")


def test_inventory_transfer_keeps_a_ledger() -> None:
    box = _box(inventory={
        "locations": [{"id": "wh", "name": "WH"}, {"id": "shop", "name": "Shop", "kind": "store"}],
        "items": [{"id": "A@wh", "sku": "A", "name": "dock", "location": "wh", "quantity": 10},
                  {"id": "A@shop", "sku": "A", "name": "dock", "location": "shop", "quantity": 1, "reorder_level": 3}],
    })
    assert [i["id"] for i in _ok(box, "inventory_search_items", below_reorder=True)] == ["A@shop"]
    _ok(box, "inventory_transfer", item_id="A@wh", to_location="shop", quantity=4)
    assert _ok(box, "inventory_get_item", item_id="A@shop")["quantity"] == 5
    assert _ok(box, "inventory_get_item", item_id="A@wh")["movements"][0]["delta"] == -4
    assert "between 1 and 6" in _error(box, "inventory_transfer", item_id="A@wh", to_location="shop", quantity=7)
    assert "cannot remove" in _error(box, "inventory_adjust", item_id="A@shop", delta=-9, reason="count")


def test_inventory_purchase_orders_use_the_items_supplier_and_lead_time() -> None:
    box = _box(inventory={
        "locations": [{"id": "wh", "name": "WH"}],
        "items": [{"id": "A@wh", "sku": "A", "name": "dock", "location": "wh", "quantity": 1, "category": "Devices",
                   "supplier": "Dockworks", "unit_cost": 40.5, "unit_price": 79.0, "lead_time_days": 10},
                  {"id": "B@wh", "sku": "B", "name": "cable", "location": "wh", "category": "Cables"}],
    })
    assert [i["id"] for i in _ok(box, "inventory_search_items", category="devices")] == ["A@wh"]
    assert [i["id"] for i in _ok(box, "inventory_search_items", supplier="DOCKWORKS")] == ["A@wh"]
    assert [i["id"] for i in _ok(box, "inventory_search_items", query="dockworks")] == ["A@wh"]
    order = _ok(box, "inventory_create_order", item_id="A@wh", quantity=12)
    assert (order["supplier"], order["quantity"], order["status"]) == ("Dockworks", 12, "placed")
    assert parse_time(order["expected_at"]) - parse_time(order["at"]) == 10 * 86400
    other = _ok(box, "inventory_create_order", item_id="A@wh", quantity=3, supplier="Portly")
    assert other["supplier"] == "Portly"
    assert [o["id"] for o in _ok(box, "inventory_list_orders", item_id="A@wh")] == [other["id"], order["id"]]
    assert _ok(box, "inventory_get_item", item_id="A@wh")["quantity"] == 1  # ordered, not yet delivered
    assert "no supplier" in _error(box, "inventory_create_order", item_id="B@wh", quantity=2)
    assert "positive" in _error(box, "inventory_create_order", item_id="A@wh", quantity=0)
    assert "no item" in _error(box, "inventory_create_order", item_id="Z@wh", quantity=2)


@pytest.mark.parametrize(("status", "has_body"), [(200, True), (500, False), (301, False)])
def test_web_fetch_reports_http_status(status: int, has_body: bool) -> None:
    page = {"id": "https://a.test/p", "title": "P", "body": "hello", "status": status,
            "location": "https://a.test/" if status == 301 else None}
    box = _box(web={"pages": [page]})
    got = _ok(box, "web_fetch", url="https://a.test/p")
    assert got["status"] == status and (got.get("body") == "hello") == has_body
    assert _ok(box, "web_fetch", url="https://a.test/missing")["status"] == 404
    assert len(_ok(box, "web_search", query="hello")) == (1 if status == 200 else 0)
    assert "not an http" in _error(box, "web_fetch", url="file:///etc/passwd")


def test_a_failing_fetch_says_why_in_error() -> None:
    """A fetch that fails (no page at the URL, or a page answering 400 or more) says why in `error`, as
    Claw-Eval's web service does (`Page not found or unavailable`, a failing page's own error text); a page that
    answers has no `error`."""
    pages = [{"id": "https://a.test/down", "title": "Down", "body": "upstream timed out", "status": 503},
             {"id": "https://a.test/gone", "status": 410}, {"id": "https://a.test/ok", "body": "fine"}]
    box = _box(web={"pages": pages})
    missing = _ok(box, "web_fetch", url="https://a.test/missing")
    assert (missing["status"], missing["body"], missing["error"]) == (404, "", "Page not found or unavailable")
    down = _ok(box, "web_fetch", url="https://a.test/down")
    assert (down["status"], down["body"], down["error"]) == (503, "", "upstream timed out")
    assert _ok(box, "web_fetch", url="https://a.test/gone")["error"] == "HTTP 410"
    assert "error" not in _ok(box, "web_fetch", url="https://a.test/ok")


# -- the generators of the productivity capabilities: what their checks judge ---------------------------------
def _spec(cap: str, seed: int) -> Any:
    """The generated spec of a capability and seed."""
    return generate_spec(load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")[cap], seed)


def _play(spec: Any, edit: Any = None) -> dict[str, bool]:
    """Play the reference (its steps passed through `edit` first); the checks' outcomes by id, plus the score."""
    if edit is not None:
        spec = spec.model_copy(update={"reference": [ReferenceTurn(steps=edit(list(t.steps))) for t in spec.reference]})
    result = run_episode(Env(spec), OraclePolicy(spec)).result
    return {**{c.id: c.passed for c in result.checks}, "score=1": result.score == 1.0}


def _say(text: str) -> Any:
    return lambda steps: [s for s in steps if not s.say] + [ReferenceStep(say=text)]


def test_phone_pattern_accepts_any_separator_but_not_other_digits() -> None:
    pattern = _phone_pattern("+41 612 345 789")
    for ok in ("+41 612 345 789", "+41-612-345-789", "(+41) 612.345.789", "41612345789", "now +41 612 345789."):
        assert re.search(pattern, ok), ok
    for bad in ("+41 612 345 788", "+41 612 345 7890", "+341 612 345 789"):
        assert not re.search(pattern, bad), bad


@pytest.mark.parametrize("cap", ["todo_track_mail_requests", "inventory_restock_policy", "web_page_audit"])
def test_reply_that_repeats_the_request_loses_credit(cap: str) -> None:
    spec = _spec(cap, 3)
    assert _play(spec)["score=1"]
    outcome = _play(spec, _say(spec.turns[0].content))
    assert not outcome["score=1"] and not all(ok for cid, ok in outcome.items() if cid.startswith("reply-"))


def test_contact_reply_must_confirm_the_new_number_after_the_update() -> None:
    spec = _spec("contact_phone_update", 2)
    send = next(s.call for t in spec.reference for s in t.steps if s.call and s.call.name == "mail_send")
    new = next(s.call.arguments["phone"] for t in spec.reference for s in t.steps
               if s.call and s.call.name == "contacts_update")
    body = send.arguments["body"]

    def old_number(steps: list[Any]) -> list[Any]:
        wrong = {**send.arguments, "body": body.replace(new, "+30 600 100 100")}
        return [ReferenceStep(call=ToolCallSpec(name="mail_send", arguments=wrong)) if s.call == send else s
                for s in steps]

    def reply_first(steps: list[Any]) -> list[Any]:
        at = next(i for i, s in enumerate(steps) if s.call and s.call.name == "contacts_update")
        rest = [s for s in steps if s.call != send]
        return [*rest[:at], ReferenceStep(call=send), *rest[at:]]

    assert not _play(spec, old_number)["confirmed"]
    reordered = _play(spec, reply_first)
    assert reordered["confirmed"] and not reordered["updated-first"]


@pytest.mark.parametrize("seed", range(4))
def test_todo_deadlines_never_read_as_another_mails_stored_due(seed: int) -> None:
    """Requesters write deadlines outside UTC, and no written date-and-clock equals any expected UTC due."""
    spec = _spec("todo_track_mail_requests", seed)
    expected = {c.rule.where[2].value[:16] for c in spec.checks if c.id.startswith("task-")}
    written = {m for msg in spec.world.apps.mail.messages
               for m in re.findall(r"\d{4}-\d\d-\d\dT\d\d:\d\d", msg.body) if msg.folder == "inbox"}
    assert expected and not expected & written


def _also(tool: str, **change: Any) -> Any:
    """Edit: the reference's first `tool` call made once more (its arguments updated by `change`) at the end."""
    def edit(steps: list[Any]) -> list[Any]:
        call = next(s.call for s in steps if s.call and s.call.name == tool)
        extra = ReferenceStep(call=ToolCallSpec(name=tool, arguments={**call.arguments, **change}))
        return [s for s in steps if not s.say] + [extra] + [s for s in steps if s.say]
    return edit


@pytest.mark.parametrize("seed", range(3))
def test_web_audit_frame_allows_only_tasks_of_the_asked_list(seed: int) -> None:
    spec = _spec("web_page_audit", seed)
    assert _play(spec)["only-todo"]
    asked = next(s.call.arguments["list_id"] for t in spec.reference for s in t.steps
                 if s.call and s.call.name == "todo_add_task")
    other = next(lst.id for lst in spec.world.apps.todo.lists if lst.id != asked)
    assert not _play(spec, _also("todo_add_task", list_id=other))["only-todo"]


@pytest.mark.parametrize("seed", range(3))
def test_scheduler_frame_allows_only_the_asked_config_key(seed: int) -> None:
    spec = _spec("scheduler_pause_failing_jobs", seed)
    assert _play(spec)["only-those"]
    asked = next(s.call.arguments["key"] for t in spec.reference for s in t.steps
                 if s.call and s.call.name == "config_set")
    other = next(e for e in spec.world.apps.config.entries if e.id != asked)
    harm = _also("config_set", key=other.id, expected_version=other.version)
    assert not _play(spec, harm)["only-those"]
