"""Imported tools answer as Claw-Eval's mock services do: which records a list holds, which fixture a service
reads, which defaults a call gets. The last test, over a real checkout (CLAW_EVAL_CHECKOUT), plays the parity test's
seeded calls on both sides and compares the records each list answer holds."""

from __future__ import annotations

import ast
import json
import os
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml

from coworkenv import Env
from coworkenv.apps import APPS, SERVICE_TOOLS, TOOLS, WorldApps
from coworkenv.bindings import Binding, ResultShape, bind_arguments, shape_result
from coworkenv.env import Action
from coworkenv.importers import import_checkout
from coworkenv.importers.claw_eval import in_service_order
from coworkenv.importers.claw_eval_routes import _dict_literals, default_fixture
from coworkenv.loading import load_spec
from coworkenv.tools import ToolBox
from coworkenv.world import World, parse_time
from tests.support.claw_eval_own import MockService, dispatched, shown, world_now

CHECKOUT = os.environ.get("CLAW_EVAL_CHECKOUT")
TASKS = Path(__file__).parent / "fixtures" / "claw_eval_like" / "tasks"


def test_lists_from_several_arguments_add_up() -> None:
    binding = Binding.model_validate({"op": "contacts_search", "args": {
        "status": {"to": "tags", "convert": ["to_list"]}, "tier": {"to": "tags", "convert": ["to_list"]},
        "query": "query"}, "defaults": {"tag": "crm"}})
    assert bind_arguments(binding, {"status": "active", "tier": "VIP"}) == {"tag": "crm", "tags": ["active", "VIP"]}
    assert bind_arguments(binding, {"tier": "VIP"}) == {"tag": "crm", "tags": ["VIP"]}


def test_the_measure_reads_failures_and_listings_alike_on_both_sides() -> None:
    """benchmarks/claw_eval_answers.py: an answer failed when it has an `error` and is not a record (a record's
    own `error`, such as a job's last error, is data), whichever side gave it; a record's own lists (a job's run
    history) are no listing."""
    from benchmarks.claw_eval_answers import failed, listed
    assert failed({"error": "Job JOB-9 not found"}) and failed({"status_code": 404, "url": "u", "error": "gone"})
    assert not failed({"job_id": "JOB-2", "error": "disk full"}) and not failed({"status_code": 200, "content": ""})
    assert listed({"job_id": "JOB-2", "execution_history": [{"run_time": "t"}]}) is None
    assert listed({"jobs": [{"job_id": "JOB-1"}, {"job_id": "JOB-2"}], "total": 2}) == {"JOB-1", "JOB-2"}


def test_the_measure_compares_the_keys_both_answers_hold() -> None:
    """`--keys`: of the calls both sides answer, those whose answers have other top-level keys, other keys anywhere
    (nested ones as dotted paths, a list's items merged), and per tool the keys one side alone gives."""
    from benchmarks.claw_eval_answers import Keys, key_paths
    assert key_paths({"status": "deleted", "job": {"job_id": "J", "runs": [{"at": 1}, {"error": 2}]}}) == {
        "status", "job", "job.job_id", "job.runs", "job.runs.at", "job.runs.error"}
    keys = Keys()
    keys.add("T041", "scheduler_delete_job", {"job_id": "J", "deleted": True}, {"status": "deleted", "job": {}})
    keys.add("T041", "scheduler_get_job", {"job_id": "J", "runs": [{"at": 1}]}, {"job_id": "J", "runs": [{"t": 1}]})
    keys.add("T042", "scheduler_get_job", {"job_id": "J"}, {"job_id": "J"})
    assert (keys.answered, keys.top, keys.anywhere, keys.pairs, keys.top_pairs) == (3, 1, 2, 6, 4)
    assert keys.by_tool[("scheduler_delete_job", "there only: job")] == ["T041"]
    assert keys.by_tool[("scheduler_get_job", "here only: runs.at")] == ["T041"]


# A stand-in for Claw-Eval's calendar service (its source is not in this repository; the tests over a checkout run
# the real one): as it loads, it moves its events so that the earliest starts at its own hour a day after
# `datetime.now()`, and it lists the events starting in [date, date + days), as mock_services/calendar/server.py does.
_MOVING_CALENDAR = """
import json, os
from datetime import datetime, timedelta, timezone
from fastapi import FastAPI
from pydantic import BaseModel
app = FastAPI()
_events = json.load(open(os.environ["CALENDAR_FIXTURES"]))
_first = min(datetime.fromisoformat(e["start_time"].replace("Z", "+00:00")) for e in _events)
_shift = (datetime.now(timezone.utc) + timedelta(days=1)).replace(
    hour=_first.hour, minute=_first.minute, second=0, microsecond=0) - _first
for _e in _events:
    for _k in ("start_time", "end_time"):
        _t = datetime.fromisoformat(_e[_k].replace("Z", "+00:00")) + _shift
        _e[_k] = _t.strftime("%Y-%m-%dT%H:%M:%SZ")
class ListEventsRequest(BaseModel):
    date: str
    days: int = 1
@app.post("/calendar/events")
def list_events(req: ListEventsRequest):
    day = datetime.strptime(req.date, "%Y-%m-%d").replace(tzinfo=timezone.utc)
    found = [e for e in _events
             if day <= datetime.fromisoformat(e["start_time"].replace("Z", "+00:00")) < day + timedelta(days=req.days)]
    return {"events": sorted(found, key=lambda e: e["start_time"]), "total": len(found)}
"""


def test_the_measure_runs_the_services_on_the_worlds_clock_where_the_tasks_dates_are(tmp_path: Path) -> None:
    """benchmarks/claw_eval_answers.py hands the services the world's start as their clock (`world_now`): the
    import keeps the fixture's times and starts the world a day before the earliest event, where the services put
    it relative to their `now`, so a date the task names lists the same events on both sides. On the wall clock the
    services hold other days (Claw-Eval's own T003 asks for 2026-03-02 and its grader wants that day)."""
    from benchmarks.claw_eval_answers import compare
    root, out = tmp_path / "checkout", tmp_path / "out"
    task = root / "tasks" / "CE15_book_free_slot"
    shutil.copytree(TASKS / "CE15_book_free_slot" / "fixtures", task / "fixtures")
    doc = yaml.safe_load((TASKS / "CE15_book_free_slot" / "task.yaml").read_text(encoding="utf-8"))
    doc.update(tools=doc["tools"][:1], safety_checks=[], scoring_components=doc["scoring_components"][:1],
               tool_endpoints=[{"tool_name": "calendar_list_events", "url": "http://localhost:9101/calendar/events"}])
    (task / "task.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    (root / "mock_services" / "calendar").mkdir(parents=True)
    (root / "mock_services" / "calendar" / "server.py").write_text(_MOVING_CALENDAR, encoding="utf-8")
    (report,) = import_checkout(root, out, judge=False)
    assert report.status == "full"
    calls, differ = compare(root, out, 2)
    assert calls > 3 and not differ, dict(differ)
    spec = load_spec(out / str(report.spec_file))
    events = {"CALENDAR_FIXTURES": "tasks/CE15_book_free_slot/fixtures/calendar/events.json"}
    at_start = MockService(root, "python mock_services/calendar/server.py", events, "calendar", world_now(spec))
    a_year_on = MockService(root, "python mock_services/calendar/server.py", events, "calendar",
                            world_now(spec) + timedelta(days=365))
    assert at_start.call("/calendar/events", {"date": "2026-03-10"})[1]["total"] == 4
    assert a_year_on.call("/calendar/events", {"date": "2026-03-10"})[1]["total"] == 0  # the stand-in moves them


def _mail_box() -> ToolBox:
    messages = [{"id": f"m{n}", "thread_id": f"t{n}", "folder": "inbox", "sender": "a@x.test", "to": ["u@x.test"],
                 "subject": f"s{n}", "body": "", "sent_at": at} for n, at in enumerate(
        ["2026-02-20T09:00:00Z", "2026-03-01T09:00:00Z", "2026-02-10T09:00:00Z", "2026-02-28T09:00:00Z"])]
    state = WorldApps.model_validate({"mail": {"messages": messages}})
    served = {**TOOLS, **SERVICE_TOOLS}  # the ops as the import's declared tools run them (service arguments)
    return ToolBox(World.from_wire(APPS, state, parse_time("2026-03-02T09:00:00Z"), 30), served, served)


def test_a_mail_list_keeps_the_last_days_in_the_order_held() -> None:
    box = _mail_box()
    ids = [m["id"] for m in box.call("mail_list_messages", {"days_back": 7, "stored_order": True}).result]
    assert ids == ["m1", "m3"]  # m0 and m2 are older than 7 days; the order is the mailbox's, not newest first
    assert [m["id"] for m in box.call("mail_list_messages", {}).result] == ["m1", "m3", "m0", "m2"]
    assert [m["id"] for m in box.call("mail_list_messages", {"days_back": 1}).result] == ["m1"]  # a day ago
    assert box.call("mail_list_messages", {"days_back": 0}).result == []


def test_a_loose_kb_search_finds_articles_sharing_any_token_in_the_order_held() -> None:
    articles = [{"id": i, "title": t, "body": b, "category": "it", "status": st} for i, t, b, st in [
        ("kb_2", "密码重置指南", "如何重置密码", "published"), ("kb_1", "VPN setup", "Install the client", "archived"),
        ("kb_3", "Printer", "Paper jam", "published")]]
    state = WorldApps.model_validate({"kb": {"articles": articles}})
    served = {**TOOLS, **SERVICE_TOOLS}  # `any_token`, a service argument
    box = ToolBox(World.from_wire(APPS, state, parse_time("2026-03-02T09:00:00Z"), 30), served, served)
    loose = {"any_token": True, "include_archived": True}
    assert [a["id"] for a in box.call("kb_search", {"query": "忘记密码 vpn", **loose}).result] == ["kb_2", "kb_1"]
    assert [a["id"] for a in box.call("kb_search", {"query": "jammed", **loose}).result] == ["kb_3"]  # "ja", "am"
    assert box.call("kb_search", {"query": "忘记密码 vpn"}).result == []  # every word, as before


def test_a_service_without_its_fixture_variable_reads_the_default_its_source_names(tmp_path: Path) -> None:
    (tmp_path / "mock_services" / "notes").mkdir(parents=True)
    (tmp_path / "mock_services" / "notes" / "server.py").write_text(
        "import os\nfrom pathlib import Path\nFIXTURES = Path(os.environ.get(\n    \"NOTES_FIXTURES\",\n"
        "    str(Path(__file__).resolve().parent.parent.parent / \"tasks\" / \"A\" / \"fixtures\" / \"n.json\"),\n))\n")
    for task in ("A", "B"):
        (tmp_path / "tasks" / task / "fixtures").mkdir(parents=True)
    (tmp_path / "tasks" / "A" / "fixtures" / "n.json").write_text("[]")
    command = "python mock_services/notes/server.py"
    assert default_fixture(tmp_path / "tasks" / "B", command, "NOTES_FIXTURES") == (
        tmp_path / "tasks" / "A" / "fixtures" / "n.json").resolve()
    assert default_fixture(tmp_path / "tasks" / "B", command, "OTHER_FIXTURES") is None
    (tmp_path / "tasks" / "A" / "fixtures" / "n.json").unlink()
    assert default_fixture(tmp_path / "tasks" / "B", command, "NOTES_FIXTURES") is None  # named, but not there


def _listed(answer: Any) -> set[str] | None:
    """The ids of the records a list answer holds (the first `*_id` field of each), else None."""
    if not isinstance(answer, dict):
        return None
    for value in answer.values():
        if isinstance(value, list) and all(isinstance(r, dict) for r in value):
            return {str(next((r[k] for k in r if k.endswith("_id")), None)) for r in value}
    return None


LISTS = ("crm_list_customers", "gmail_list_messages", "rss_list_articles", "notes_list", "kb_search", "contacts_search",
         "scheduler_list_jobs", "calendar_list_events")


@pytest.mark.skipif(not CHECKOUT, reason="set CLAW_EVAL_CHECKOUT to a claw-eval checkout")
def test_imported_lists_hold_the_records_claw_evals_services_list(tmp_path: Path) -> None:
    """The crm, gmail, rss, notes, scheduler and calendar lists, kb and contacts searches (filters, matching, days
    back, order and limits, defaults, fixture files, a status no record holds) on every imported task that has
    them, the services' clock at the world's start (they move their events and mail relative to it as they load)."""
    from tests.test_import_claw_eval_parity import _episodes
    root = Path(str(CHECKOUT))
    differ, compared = [], 0
    for report in import_checkout(root, tmp_path, judge=False):
        if report.spec_file is None:
            continue
        task_dir = root / "tasks" / report.task_id
        doc = yaml.safe_load((task_dir / "task.yaml").read_text(encoding="utf-8"))
        spec = load_spec(tmp_path / str(report.spec_file)).model_copy(update={"faults": None})
        lists = [d.name for d in spec.tool_decls if d.name in LISTS]
        if not lists:
            continue
        endpoints = {e["tool_name"]: urlparse(e["url"]).path for e in doc.get("tool_endpoints", [])}
        now = world_now(spec)
        for steps in _episodes(root, task_dir, spec, 2):
            services = [MockService(root, s["command"], s.get("env") or {}, s["name"], now) for s in doc["services"]]
            env = Env(spec)
            env.reset()
            for call in (s["call"] for s in steps if "call" in s):
                path = endpoints[call["name"]]
                service = next((s for s in services if path in s.routes.handlers), None)
                status, theirs = service.call(path, call["arguments"]) if service else (404, {})
                ours = shown(env.step(Action.call(call["name"], call["arguments"])).messages[-1]["content"])
                if call["name"] in lists and status == 200:
                    compared += 1
                    if _listed(ours) != _listed(theirs):
                        differ.append((report.task_id, call, _listed(ours), _listed(theirs)))
    assert compared > 50
    assert not differ, differ[:3]


# A stand-in for Claw-Eval's gmail service (as mock_services/gmail/server.py does): as it loads, it moves its mail
# so that the newest came a day before `datetime.now()`, writing each moved time's own clock hours with `Z`, and
# lists the mail dated no earlier than `now - days_back` days at the call.
_MOVING_GMAIL = """
import json, os
from datetime import datetime, timedelta, timezone
from fastapi import FastAPI
from pydantic import BaseModel
app = FastAPI()
_emails = json.load(open(os.environ["GMAIL_FIXTURES"]))
_newest = max(datetime.fromisoformat(e["date"].replace("Z", "+00:00")) for e in _emails)
_shift = datetime.now(timezone.utc) - timedelta(days=1) - _newest
for _e in _emails:
    _e["date"] = (datetime.fromisoformat(_e["date"].replace("Z", "+00:00")) + _shift).strftime("%Y-%m-%dT%H:%M:%SZ")
class ListMessagesRequest(BaseModel):
    days_back: int = 7
    max_results: int = 20
@app.post("/gmail/messages")
def list_messages(req: ListMessagesRequest):
    cutoff = datetime.now(timezone.utc) - timedelta(days=req.days_back)
    found = [{"message_id": e["message_id"], "date": e["date"]} for e in _emails
             if datetime.fromisoformat(e["date"].replace("Z", "+00:00")) >= cutoff]
    return {"messages": found[: req.max_results], "total": len(found)}
"""


def _one_tool_checkout(tmp_path: Path, task_id: str, service: str, tool: str, path: str, server: str,
                       fixture: tuple[str, Any]) -> tuple[Path, Path]:
    """A checkout of one fixture task cut to one tool, its service the stand-in `server`, its fixture file
    `fixture` (a name under fixtures/<service>/ and its records)."""
    root, out = tmp_path / "checkout", tmp_path / "out"
    task = root / "tasks" / task_id
    shutil.copytree(TASKS / task_id / "fixtures", task / "fixtures")
    (task / "fixtures" / service / fixture[0]).write_text(json.dumps(fixture[1]), encoding="utf-8")
    doc = yaml.safe_load((TASKS / task_id / "task.yaml").read_text(encoding="utf-8"))
    decl = next(t for t in doc["tools"] if t["name"] == tool)
    port = next(s["port"] for s in doc["services"] if s["name"] == service)  # where the service listens
    doc.pop("judge_rubric", None)
    # room for every call a test makes in one episode (Claw-Eval's loop allows `max_turns` model calls: import42)
    doc.update(environment={"max_turns": 100}, tools=[decl], safety_checks=[], scoring_components=[
        {"name": "called", "weight": 1.0, "check": {"type": "tool_called", "tool_name": tool, "min_calls": 1}}],
        tool_endpoints=[{"tool_name": tool, "url": f"http://localhost:{port}{path}"}])
    (task / "task.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    (root / "mock_services" / service).mkdir(parents=True)
    (root / "mock_services" / service / "server.py").write_text(server, encoding="utf-8")
    return root, out


def test_events_at_an_offset_are_where_claw_evals_calendar_shows_them(tmp_path: Path) -> None:
    """The calendar moves its events by the earliest event's own clock hour on its UTC day less its instant and
    writes each moved time's clock hours with `Z`: at +08:00 an event shows 16 hours after its instant, a late one
    on the next day (T113/T114's 09:00+08:00 at 17:00Z). The import holds the times the service shows at the world's
    start, so every day lists the same events on both sides: those starting on it (not those overlapping it, such as
    a day's training shown into the next day, T123)."""
    events = [{"event_id": f"evt_{n}", "title": f"e{n}", "start_time": start, "end_time": end, "attendees": []}
              for n, (start, end) in enumerate([
                  ("2026-03-27T09:00:00+08:00", "2026-03-27T10:00:00+08:00"),
                  ("2026-03-27T09:30:00+08:00", "2026-03-27T17:30:00+08:00"),  # shown until 01:30Z on the 28th
                  ("2026-03-27T18:30:00+08:00", "2026-03-27T19:00:00+08:00"),
                  ("2026-03-28T10:00:00Z", "2026-03-28T11:00:00Z"),
                  ("2026-03-28T23:00:00-05:00", "2026-03-29T00:30:00-05:00")], start=1)]
    root, out = _one_tool_checkout(tmp_path, "CE15_book_free_slot", "calendar", "calendar_list_events",
                                   "/calendar/events", _MOVING_CALENDAR, ("events.json", events))
    (report,) = import_checkout(root, out, judge=False)
    assert report.spec_file is not None, report.notes
    spec = load_spec(out / str(report.spec_file))
    service = MockService(root, "python mock_services/calendar/server.py",
                          {"CALENDAR_FIXTURES": "tasks/CE15_book_free_slot/fixtures/calendar/events.json"},
                          "calendar", world_now(spec))
    env = Env(spec)
    env.reset()
    for day in ("2026-03-26", "2026-03-27", "2026-03-28", "2026-03-29", "2026-03-30"):
        ours = json.loads(env.step(Action.call("calendar_list_events", {"date": day})).messages[-1]["content"])["events"]
        theirs = service.call("/calendar/events", {"date": day})[1]["events"]
        assert [(e["event_id"], e["start_time"], e["end_time"]) for e in ours] == [
            (e["event_id"], e["start_time"], e["end_time"]) for e in theirs], day
    assert spec.world.start == "2026-03-26T01:00:01Z"  # a day before the earliest instant, a second after loading


def test_a_days_back_list_at_the_first_call_misses_mail_a_whole_day_old_as_claw_evals_gmail_does(
        tmp_path: Path) -> None:
    """Claw-Eval's gmail moves its newest mail to a day before its clock as it loads; the agent's first call comes
    later, so a one-day list never holds it (nor a list of N days the mail N days older). The world starts a second
    after the clock the import places its mail from, and the measure's services load then (`world_now`)."""
    mail = [{"message_id": f"msg_{n}", "from": "a@x.test", "to": "me@acme.test", "subject": f"s{n}", "body": "",
             "date": at, "labels": ["INBOX"], "is_read": False} for n, at in enumerate(
                 ["2026-03-02T08:00:00Z", "2026-03-01T08:00:00Z", "2026-03-01T09:30:00Z", "2026-02-27T08:00:00Z"])]
    root, out = _one_tool_checkout(tmp_path, "CE01_draft_invoice_reply", "gmail", "gmail_list_messages",
                                   "/gmail/messages", _MOVING_GMAIL, ("inbox.json", mail))
    (report,) = import_checkout(root, out, judge=False)
    assert report.spec_file is not None, report.notes
    spec = load_spec(out / str(report.spec_file))
    for days_back in (1, 2, 3, 4, 5):
        service = MockService(root, "python mock_services/gmail/server.py",
                              {"GMAIL_FIXTURES": "tasks/CE01_draft_invoice_reply/fixtures/gmail/inbox.json"},
                              "gmail", world_now(spec))
        env = Env(spec)
        env.reset()
        ours = json.loads(env.step(Action.call(
            "gmail_list_messages", {"days_back": days_back})).messages[-1]["content"])["messages"]
        theirs = service.call("/gmail/messages", {"days_back": days_back})[1]["messages"]
        assert [(m["message_id"], m["date"]) for m in ours] == [(m["message_id"], m["date"]) for m in theirs], days_back


# A stand-in for Claw-Eval's OCR service (as mock_services/ocr/server.py does): it reads no image; as it loads it
# reads the text files `OCR_FILENAMES` names under `$OCR_FIXTURES/ocr/` (each headed), else `OCR_FILENAME`, and its
# async handler answers every extraction with that text.
_OCR = """
import os
from pathlib import Path
from fastapi import FastAPI
from pydantic import BaseModel
app = FastAPI()
_dir, _names = os.environ.get("OCR_FIXTURES", ""), os.environ.get("OCR_FILENAMES", "")
_parts = [f"--- Document {i}: {n.strip()} ---\\n" + (Path(_dir) / "ocr" / n.strip()).read_text(encoding="utf-8")
          for i, n in enumerate(_names.split(","), 1) if _names and (Path(_dir) / "ocr" / n.strip()).exists()]
_text = "\\n\\n".join(_parts) if _parts else (Path(_dir) / "ocr" / os.environ.get("OCR_FILENAME", "menu_ocr.txt")).read_text()
class OCRExtractRequest(BaseModel):
    image_path: str = ""
class OCRExtractResponse(BaseModel):
    text: str
    confidence: float = 0.95
    language: str = "mixed"
@app.post("/ocr/extract", response_model=OCRExtractResponse)
async def ocr_extract(req: OCRExtractRequest):
    return OCRExtractResponse(text=_text)
"""


def test_an_ocr_task_reads_the_text_claw_evals_ocr_service_answers_with(tmp_path: Path) -> None:
    """Claw-Eval's OCR service answers every extraction with fixture text it loads (no image is read), run under a
    name of each task's (`ocr_t50`...): such a task imports, its tool answering what the service answers."""
    root, out = tmp_path / "checkout", tmp_path / "out"
    task = root / "tasks" / "X01_officeqa"
    (task / "fixtures" / "ocr").mkdir(parents=True)
    for name, text in (("a.txt", "Defense 1940: 2,602\n"), ("b.txt", "Army 1948: 7,700\n")):
        (task / "fixtures" / "ocr" / name).write_text(text, encoding="utf-8")
    (root / "mock_services" / "ocr").mkdir(parents=True)
    (root / "mock_services" / "ocr" / "server.py").write_text(_OCR, encoding="utf-8")
    env_vars = {"OCR_FIXTURES": "tasks/X01_officeqa/fixtures", "OCR_FILENAMES": "a.txt, b.txt", "PORT": "9120"}
    (task / "task.yaml").write_text(yaml.safe_dump({
        "task_id": "X01_officeqa", "task_name": "OfficeQA", "category": "office_qa",
        "services": [{"name": "ocr_t50", "command": "python mock_services/ocr/server.py", "port": 9120,
                      "env": env_vars}],
        "prompt": {"text": "Extract the bulletin's text with OCR: what was spent on defense in 1940?"},
        "tools": [{"name": "ocr_extract_text", "description": "Extract text from an image using OCR.",
                   "input_schema": {"type": "object", "properties": {"image_path": {"type": "string"}},
                                    "required": ["image_path"]}}],
        "tool_endpoints": [{"tool_name": "ocr_extract_text", "url": "http://localhost:9120/ocr/extract"}],
        "scoring_components": [
            {"name": "answer", "weight": 0.8, "check": {"type": "keywords_present", "keywords": ["2602", "2,602"]}},
            {"name": "ocr", "weight": 0.2, "check": {"type": "tool_called", "tool_name": "ocr_extract_text"}}],
    }), encoding="utf-8")
    (report,) = import_checkout(root, out, judge=False)
    assert report.status == "full", report
    spec = load_spec(out / str(report.spec_file))
    service = MockService(root, "python mock_services/ocr/server.py", env_vars, "ocr_t50", world_now(spec))
    env = Env(spec)
    env.reset()
    for path in ("scan.pdf", ""):
        ours = json.loads(env.step(Action.call("ocr_extract_text", {"image_path": path})).messages[-1]["content"])
        assert ours == service.call("/ocr/extract", {"image_path": path})[1]
    assert ours["text"].startswith("--- Document 1: a.txt ---\nDefense 1940: 2,602\n\n\n--- Document 2: b.txt ---")


def test_the_measures_services_read_the_worlds_clock_at_each_call(tmp_path: Path) -> None:
    """benchmarks/claw_eval_answers.py's services (`MockService` with a clock read at each call) load a second
    before the world starts and then read the world's clock at each call (`tick_s` a call), so a list's window moves on with the world's: a mail 59 s inside
    a two-day window at the start leaves it at the third call on both sides (on a clock running with the wall
    clock the service kept it: T032)."""
    mail = [{"message_id": f"msg_{n}", "from": "a@x.test", "to": "me@acme.test", "subject": f"s{n}", "body": "",
             "date": at, "labels": ["INBOX"], "is_read": False} for n, at in enumerate(
                 ["2026-03-02T08:00:00Z", "2026-03-01T08:01:00Z"])]
    root, out = _one_tool_checkout(tmp_path, "CE01_draft_invoice_reply", "gmail", "gmail_list_messages",
                                   "/gmail/messages", _MOVING_GMAIL, ("inbox.json", mail))
    (report,) = import_checkout(root, out, judge=False)
    assert report.spec_file is not None, report.notes
    spec = load_spec(out / str(report.spec_file))
    env = Env(spec)
    env.reset()
    lag = [1]
    service = MockService(root, "python mock_services/gmail/server.py",
                          {"GMAIL_FIXTURES": "tasks/CE01_draft_invoice_reply/fixtures/gmail/inbox.json"}, "gmail",
                          lambda: datetime.fromtimestamp(env.state.clock - lag[0], UTC))
    lag[0] = 0
    held = []
    for _ in range(4):
        theirs = [m["message_id"] for m in service.call("/gmail/messages", {"days_back": 2})[1]["messages"]]
        ours = json.loads(env.step(Action.call("gmail_list_messages", {"days_back": 2})).messages[-1]["content"])
        assert [m["message_id"] for m in ours["messages"]] == theirs
        held.append(theirs)
    assert held == [["msg_0", "msg_1"]] * 2 + [["msg_0"]] * 2


def test_a_task_whose_checks_left_read_only_the_replies_is_skipped(tmp_path: Path) -> None:
    """Without its grader (or its judge), a task whose declared components check only the replies' words and
    length scores nothing the agent did (the validator's reads_state gate refuses such a spec): skipped, saying
    so (T074's paper review imports only with a judge)."""
    root, out = _one_tool_checkout(tmp_path, "CE01_draft_invoice_reply", "gmail", "gmail_list_messages",
                                   "/gmail/messages", _MOVING_GMAIL, ("inbox.json", []))
    task = root / "tasks" / "CE01_draft_invoice_reply" / "task.yaml"
    doc = yaml.safe_load(task.read_text(encoding="utf-8"))
    doc["scoring_components"] = [{"name": "words", "weight": 1.0,
                                  "check": {"type": "keywords_present", "keywords": ["invoice"]}}]
    task.write_text(yaml.safe_dump(doc), encoding="utf-8")
    (report,) = import_checkout(root, out, judge=False)
    assert report.status == "skipped" and "read only the replies" in report.notes[-1], report


# A scheduler written as Claw-Eval's is: its history answers the id first (`{"job_id", "history", "total"}`), a
# create the status after the job, an update the status last: orders the adapters' shapes do not make themselves
_ORDERED_SCHEDULER = """
import json, os
from fastapi import FastAPI
from pydantic import BaseModel
app = FastAPI()
_jobs = json.load(open(os.environ["SCHEDULER_FIXTURES"]))
class JobHistoryRequest(BaseModel):
    job_id: str
    limit: int = 10
@app.post("/scheduler/jobs/history")
def job_history(req: JobHistoryRequest):
    for j in _jobs:
        if j["job_id"] == req.job_id:
            history = j.get("execution_history", [])
            resp = {"job_id": req.job_id, "history": history[:req.limit], "total": len(history)}
            return resp
    return {"error": f"Job {req.job_id} not found"}
"""


def test_an_answer_keeps_the_key_order_of_the_handlers_dict(tmp_path: Path) -> None:
    """The agent reads the service's JSON as its handler's dict orders it (import41): the import reads that order
    from the handler's source (the one dict it writes with the answer's keys) into the shape, so the tool message is
    the dispatcher's very text, not the same keys in the shape's order (`history`, `total`, then the echoed id)."""
    jobs = json.loads((TASKS / "CE13_failing_job_triage" / "fixtures" / "scheduler" / "jobs.json").read_text())
    root, out = _one_tool_checkout(tmp_path, "CE13_failing_job_triage", "scheduler", "scheduler_job_history",
                                   "/scheduler/jobs/history", _ORDERED_SCHEDULER, ("jobs.json", jobs))
    (report,) = import_checkout(root, out, judge=False)
    assert report.spec_file is not None, report.notes
    spec = load_spec(out / str(report.spec_file)).model_copy(update={"faults": None})
    service = MockService(root, "python mock_services/scheduler/server.py", {
        "SCHEDULER_FIXTURES": "tasks/CE13_failing_job_triage/fixtures/scheduler/jobs.json"}, "scheduler")
    calls = [{"job_id": jobs[0]["job_id"]}, {"job_id": jobs[1]["job_id"], "limit": 1}, {"job_id": "JOB-404"}]
    env = Env(spec, max_steps=len(calls) + 1)
    env.reset()
    for args in calls:
        text = dispatched(service.call("/scheduler/jobs/history", args)[1])[1]
        assert env.step(Action.call("scheduler_job_history", args)).messages[-1]["content"] == text, args


def test_the_handlers_key_order_is_read_for_the_answer_and_the_record_it_wraps() -> None:
    """Of the dicts a handler writes with string keys, the one with the answer's very keys orders them: an unwrapped
    answer (a kb update's `{"status", "article_id"}` where the shape puts its const last), a wrapped record (a made
    job's `created_by` among its fields, not first as `given` puts it); two orders of the same keys order nothing."""
    source = ast.parse('@app.post("/x")\ndef h(req: R):\n    job = {"name": req.name, "created_by": req.by}\n'
                       '    if not job:\n        return {"error": "no"}\n    return {"status": "made", "job": job}\n')
    answers = _dict_literals(next(n for n in source.body if isinstance(n, ast.FunctionDef)))
    assert sorted(answers) == [("error",), ("name", "created_by"), ("status", "job")]
    made = in_service_order(ResultShape(fields={"name": "name"}, given={"created_by": "by"}, wrap="job",
                                        beside={"status": "made"}), answers)
    shown_made = shape_result(made, {"name": "n"}, {"by": "me"})
    assert json.dumps(shown_made) == '{"status": "made", "job": {"name": "n", "created_by": "me"}}'
    updated = in_service_order(ResultShape(fields={"article_id": "id"}, const={"status": "updated"}),
                               [("error",), ("status", "article_id")])
    assert list(shape_result(updated, {"id": "kb_1"})) == ["status", "article_id"]
    plain = ResultShape(fields={"article_id": "id"}, const={"status": "updated"})
    assert in_service_order(plain, [("status", "article_id"), ("article_id", "status")]) is plain
    assert "order" not in plain.model_dump() and in_service_order(plain, [("article_id", "status")]) is plain
