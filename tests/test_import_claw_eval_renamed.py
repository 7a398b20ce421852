"""What a new benchmark version changes in its tools (import38).

A tool named otherwise: Claw-Eval's runner sends a call to the tool's endpoint URL,
so a tool's name is only what the agent calls it; the service behind the URL answers. The public checkout already
offers one endpoint under two names (`inventory_list_products` / `inventory_list_items`, `finance_submit_report` /
`finance_report_submit`, `send_notification` / `send_report` on `/web/notify`). A name the importer did not know
left the tool out and the task partial or skipped; it is now bound by its endpoint, as the service serves it.

Each fixture task is imported as written and with every tool renamed (task.yaml, grader.py and reference.json alike,
as a new version would rename them): the statuses are the same, each renamed tool runs the same op with the same
binding, the same calls get the same answers, and the reference scores the same.

A new argument its service's handler reads (a page of a list): the import, having no field for it, says the task's
answers differ (partial) rather than importing it full with the argument "accepted and ignored"."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from coworkenv import Env
from coworkenv.agents import OraclePolicy
from coworkenv.env import Action
from coworkenv.importers import import_checkout
from coworkenv.loading import load_spec
from coworkenv.rollout import run_episode
from tests.support.claw_eval_own import MockService, world_now
from tests.test_import_claw_eval_answers import _MOVING_GMAIL, _one_tool_checkout

TASKS = Path(__file__).parent / "fixtures" / "claw_eval_like" / "tasks"
CHOSEN = ["CE02_vpn_ticket_triage", "CE09_todo_duplicate_cleanup", "CE10_restock_low_items",
          "CE12_integration_health_audit", "CE16_book_free_slot_graded"]
# the services' routes, as the public checkout's task.yaml files give them (the fixture tasks name no endpoints)
ROUTES = {"helpdesk_list_tickets": "/helpdesk/tickets", "helpdesk_get_ticket": "/helpdesk/tickets/get",
          "helpdesk_update_ticket": "/helpdesk/tickets/update", "helpdesk_close_ticket": "/helpdesk/tickets/close",
          "todo_list_tasks": "/todo/tasks", "todo_get_task": "/todo/tasks/get", "todo_update_task": "/todo/tasks/update",
          "todo_create_task": "/todo/tasks/create", "todo_delete_task": "/todo/tasks/delete",
          "inventory_list_products": "/inventory/products", "inventory_get_product": "/inventory/products/get",
          "inventory_create_order": "/inventory/orders/create", "config_list_integrations": "/config/integrations",
          "config_get_integration": "/config/integrations/get",
          "config_update_integration": "/config/integrations/update", "config_send_notification": "/config/notify",
          "calendar_list_events": "/calendar/events", "calendar_get_user_events": "/calendar/user_events",
          "calendar_create_event": "/calendar/events/create", "calendar_delete_event": "/calendar/events/delete"}


def _renamed(name: str) -> str:
    service, _, rest = name.partition("_")
    return f"{rest}_via_{service}" if rest else f"{name}_v2"  # `helpdesk_get_ticket` -> `get_ticket_via_helpdesk`


@pytest.fixture(scope="module")
def imports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("renamed")
    for task_id in CHOSEN:
        written = root / "as_written" / "tasks" / task_id
        shutil.copytree(TASKS / task_id, written)
        doc = yaml.safe_load((written / "task.yaml").read_text("utf-8"))
        if not doc.get("tool_endpoints"):  # appended as text: a dump of the loaded YAML would write `14:30` as 870
            port = {s["name"]: s.get("port", 9100) for s in doc["services"]}
            with (written / "task.yaml").open("a", encoding="utf-8") as yaml_file:
                yaml_file.write("tool_endpoints:\n" + "".join(
                    f"  - {{tool_name: {t['name']}, url: 'http://localhost:{port[ROUTES[t['name']].split('/')[1]]}"
                    f"{ROUTES[t['name']]}'}}\n" for t in doc["tools"]))
        names = [t["name"] for t in doc["tools"]]
        pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
        target = root / "renamed" / "tasks" / task_id
        shutil.copytree(written, target)
        for file in ("task.yaml", "grader.py", "reference.json"):
            if (target / file).is_file():
                text = pattern.sub(lambda m: _renamed(m.group(1)), (target / file).read_text("utf-8"))
                (target / file).write_text(text, "utf-8")
    return {side: {r.task_id: (r, root / side / "out") for r in import_checkout(root / side, root / side / "out",
                                                                                 judge=False)}
            for side in ("as_written", "renamed")}


def test_a_renamed_tool_is_bound_by_its_endpoint(imports: dict[str, Any]) -> None:
    for task_id in CHOSEN:
        (before, out_a), (after, out_b) = imports["as_written"][task_id], imports["renamed"][task_id]
        assert after.status == before.status, (task_id, after.left_out, after.notes)
        assert before.spec_file is not None and after.spec_file is not None
        spec_a, spec_b = load_spec(out_a / before.spec_file), load_spec(out_b / after.spec_file)
        decls_a = {_renamed(d.name): d.bind.model_dump() for d in spec_a.tool_decls}
        assert {d.name: d.bind.model_dump() for d in spec_b.tool_decls} == decls_a, task_id
        # the same calls, the same answers
        env_a, env_b = Env(spec_a.model_copy(update={"faults": None})), Env(spec_b.model_copy(update={"faults": None}))
        env_a.reset()
        env_b.reset()
        for decl in spec_a.tool_decls:
            args = {k: "x" for k in decl.parameters.get("required", [])}
            shown_a = env_a.step(Action.call(decl.name, args)).messages[-1]["content"]
            shown_b = env_b.step(Action.call(_renamed(decl.name), args)).messages[-1]["content"]
            assert shown_a == shown_b.replace(_renamed(decl.name), decl.name), (task_id, decl.name)
        # and the reference scores the same (the renamed grader reading the renamed calls)
        scores = [run_episode(Env(s), OraclePolicy(s)).result.score for s in (spec_a, spec_b)]
        assert scores[0] == scores[1] == 1.0, (task_id, scores)


_PAGED_GMAIL = _MOVING_GMAIL.replace("    max_results: int = 20\n", "    max_results: int = 20\n    page: int = 1\n"
                                     "    folder: str = 'inbox'\n").replace(
    'return {"messages": found[: req.max_results], "total": len(found)}',
    'start = (req.page - 1) * req.max_results\n    return {"messages": found[start: start + req.max_results], '
    '"total": len(found)}')


@pytest.mark.parametrize("argument, status", [("page", "partial"), ("folder", "full")])
def test_an_argument_the_services_handler_reads_and_the_import_ignores_is_said(
        tmp_path: Path, argument: str, status: str) -> None:
    """A new version's list takes `page` (its handler reads `req.page`): the import has no field for it, so its
    answers would differ from page 2 on: the task is partial, saying why (on main: full, "accepted and ignored").
    A field the model takes and the handler never reads (`folder`, as web_fetch's `timeout_seconds`) stays ignored."""
    assert "req.page" in _PAGED_GMAIL and "req.folder" not in _PAGED_GMAIL
    mail = [{"message_id": "msg_1", "from": "a@x.test", "to": "me@acme.test", "subject": "s", "body": "b",
             "date": "2026-03-02T08:00:00Z", "labels": ["INBOX"], "is_read": False}]
    root, out = _one_tool_checkout(tmp_path, "CE01_draft_invoice_reply", "gmail", "gmail_list_messages",
                                   "/gmail/messages", _PAGED_GMAIL, ("inbox.json", mail))
    task_yaml = root / "tasks" / "CE01_draft_invoice_reply" / "task.yaml"
    doc = yaml.safe_load(task_yaml.read_text(encoding="utf-8"))
    doc["tools"][0]["input_schema"]["properties"][argument] = {"type": "integer" if argument == "page" else "string"}
    task_yaml.write_text(yaml.safe_dump(doc), encoding="utf-8")
    (report,) = import_checkout(root, out, judge=False)
    assert report.status == status, report.left_out
    said = next(x for x in report.left_out if x["what"] == f"tools.gmail_list_messages.{argument}")
    assert ("handler reads it (req.page)" in said["why"]) == (argument == "page"), said


def test_a_known_name_at_another_route_is_bound_by_the_route(tmp_path: Path) -> None:
    """The URL decides what a call does there: a version offering `helpdesk_get_ticket` at the list's route (beside
    the list itself, as the checkout offers one route under two names) gets the list's answers from it."""
    root = tmp_path / "checkout"
    task = root / "tasks" / "CE02_vpn_ticket_triage"
    shutil.copytree(TASKS / task.name, task)
    swap = {"helpdesk_get_ticket": "/helpdesk/tickets"}
    with (task / "task.yaml").open("a", encoding="utf-8") as yaml_file:
        yaml_file.write("tool_endpoints:\n" + "".join(
            f"  - {{tool_name: {name}, url: 'http://localhost:9107{swap.get(name, ROUTES[name])}'}}\n"
            for name in ROUTES if name.startswith("helpdesk_")))
    (report,) = import_checkout(root, tmp_path / "out", judge=False)
    assert report.spec_file is not None, report.left_out
    ops = {d.name: d.bind.op for d in load_spec(tmp_path / "out" / report.spec_file).tool_decls}
    assert ops["helpdesk_get_ticket"] == ops["helpdesk_list_tickets"] == "tickets_search", ops
    assert any("bound by its endpoint /helpdesk/tickets," in n for n in report.notes), report.notes


def test_a_lists_total_counts_what_its_handler_counts(tmp_path: Path) -> None:
    """A version whose list answers `{"messages": found[:n], "total": len(found)}` (a page and the count of all, as
    the scheduler's job history does in the public checkout) where the public gmail counts the page: the handler's
    source says which, and the import's `total` follows it (on main: the page's count, 2 for 3)."""
    counted_all = _MOVING_GMAIL.replace("max_results: int = 20", "max_results: int = 2")
    assert 'found[: req.max_results], "total": len(found)' in counted_all
    mail = [{"message_id": f"msg_{n}", "from": "a@x.test", "to": "me@acme.test", "subject": f"s{n}", "body": "b",
             "date": at, "labels": ["INBOX"], "is_read": False}
            for n, at in enumerate(["2026-03-02T08:00:00Z", "2026-03-01T08:00:00Z", "2026-02-28T08:00:00Z"])]
    root, out = _one_tool_checkout(tmp_path, "CE01_draft_invoice_reply", "gmail", "gmail_list_messages",
                                   "/gmail/messages", counted_all, ("inbox.json", mail))
    (report,) = import_checkout(root, out, judge=False)
    spec = load_spec(out / str(report.spec_file)).model_copy(update={"faults": None})
    service = MockService(root, "python mock_services/gmail/server.py",
                          {"GMAIL_FIXTURES": "tasks/CE01_draft_invoice_reply/fixtures/gmail/inbox.json"}, "gmail",
                          world_now(spec))
    env = Env(spec)
    env.reset()
    for args in ({}, {"max_results": 1}, {"max_results": 5}, {"days_back": 1}):
        theirs = service.call("/gmail/messages", args)[1]
        ours = json.loads(env.step(Action.call("gmail_list_messages", args)).messages[-1]["content"])
        assert (ours["total"], [m["message_id"] for m in ours["messages"]]) == (
            theirs["total"], [m["message_id"] for m in theirs["messages"]]), args
