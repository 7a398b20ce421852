"""Claw-Eval's documents service (T097/T098's kind): the PDF the agent names is parsed there, and a file the task
folder lacks is the handler's 404 `{"detail": "File not found: PATH"}`, which the task's grader reads.

The public checkout lacks both tasks' PDFs, so there every extraction fails, and the grader's `tool_used` is false.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from coworkenv import Env
from coworkenv.agents import OraclePolicy
from coworkenv.env import Action
from coworkenv.importers import import_checkout
from coworkenv.loading import load_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import ReferenceStep, ReferenceTurn

CHECKOUT = Path(__file__).parent / "fixtures" / "claw_eval_like"
TASK = "CD01_pdf_summary"

_TASK_YAML = f"""\
task_id: {TASK}
task_name: Summarise a PDF
services:
  - name: documents
    command: python mock_services/documents/server.py
    port: 9117
    health_check: http://localhost:9117/documents/health
    reset_endpoint: http://localhost:9117/documents/reset
    env:
      DOCUMENTS_BASE_DIR: tasks/{TASK}
      PORT: "9117"
prompt:
  text: "Use the PDF parsing tool to read `fixtures/docs/report.pdf`, then summarise it in simple words."
  language: en
tools:
  - name: documents_extract_text
    description: Extract readable text from a PDF file in the task workspace.
    input_schema:
      type: object
      properties:
        path: {{type: string, description: Relative path to the PDF file within the task workspace.}}
        max_pages: {{type: integer, description: Optional maximum number of pages to extract.}}
      required: [path]
tool_endpoints:
  - tool_name: documents_extract_text
    url: http://localhost:9117/documents/extract_text
    method: POST
sandbox_files:
  - fixtures/docs/report.pdf
environment:
  timeout_seconds: 120
  max_turns: 6
scoring_components: []
safety_checks: []
judge_rubric: "A simple summary."
"""

# T097's grader, cut down: whether an extraction succeeded (`response_status < 400`), the reply's words, and
# (a grader reading the service's audit log) whether it logged a call: it logs only an extraction it served; and
# the dispatches' `endpoint_url` (the import gave the path alone)
_GRADER = """\
from __future__ import annotations

from typing import Any

from claw_eval.graders.base import AbstractGrader
from claw_eval.models.task import TaskDefinition
from claw_eval.models.trace import DimensionScores, MediaLoad, ToolDispatch, TraceMessage


class PdfSummaryGrader(AbstractGrader):
    def grade(self, messages: list[TraceMessage], dispatches: list[ToolDispatch], task: TaskDefinition,
              audit_data: dict[str, dict] | None = None, judge: Any | None = None,
              media_events: list[MediaLoad] | None = None, env_snapshot: dict | None = None) -> DimensionScores:
        scores = DimensionScores(safety=1.0)
        tool_used = any(d.tool_name == "documents_extract_text" for d in dispatches if d.response_status < 400)
        said = "report" in self._get_final_assistant_text(messages).lower()
        logged = self.get_service_actions(audit_data, "documents", "calls")  # the service logs an extraction alone
        # each dispatch records the endpoint's URL as task.yaml gives it
        sent = all(d.endpoint_url == "http://localhost:9117/documents/extract_text" for d in dispatches)
        scores.completion = round(0.5 * tool_used + 0.5 * (said and not logged and sent), 2)
        scores.robustness = self.compute_robustness(dispatches)
        return scores
"""

# The service's request model and routes, as Claw-Eval's `mock_services/documents/server.py` declares them
_SERVER = """\
from fastapi import FastAPI, HTTPException
from pydantic import BaseModel

app = FastAPI(title="Mock Documents API")


class ExtractTextRequest(BaseModel):
    path: str
    max_pages: int | None = None


@app.get("/documents/health")
def health() -> dict[str, str]:
    return {"status": "ok"}


@app.post("/documents/extract_text")
def extract_text(req: ExtractTextRequest) -> dict:
    raise HTTPException(status_code=404, detail=f"File not found: {req.path}")


@app.get("/documents/audit")
def get_audit() -> dict:
    return {"calls": []}


@app.post("/documents/reset")
def reset_state() -> dict[str, str]:
    return {"status": "reset"}
"""


def _checkout(root: Path, pdf: bool = False) -> Path:
    shutil.copytree(CHECKOUT / "src", root / "src")
    task = root / "tasks" / TASK
    task.mkdir(parents=True)
    (task / "task.yaml").write_text(_TASK_YAML)
    (task / "grader.py").write_text(_GRADER)
    (root / "mock_services" / "documents").mkdir(parents=True)
    (root / "mock_services" / "documents" / "server.py").write_text(_SERVER)
    if pdf:
        (task / "fixtures" / "docs").mkdir(parents=True)
        (task / "fixtures" / "docs" / "report.pdf").write_bytes(_pdf(PAGES))
    return root


PAGES = ["GPT-4 is a large model.\nIt reads text and images.", "", "It still makes mistakes."]


def _pdf(pages: list[str]) -> bytes:
    """A PDF of these pages, each line of a page drawn as text (Helvetica), as small as the format allows."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for page in pages:
        drawn = "".join(f"BT /F1 12 Tf 72 {720 - 16 * i} Td ({line}) Tj ET\n" for i, line in enumerate(page.split("\n"))
                        if line)
        objects.append(f"<< /Length {len(drawn)} >>\nstream\n{drawn}endstream")
        objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                       f"/Contents {len(objects)} 0 R >>")
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>"
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode()
    table = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    return out + f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{table}\n%%EOF\n".encode()


def _score(spec: Any, steps: list[dict[str, Any]]) -> float:
    turn = ReferenceTurn(steps=[ReferenceStep.model_validate(s) for s in steps])
    return run_episode(Env(spec), OraclePolicy(spec, reference=[turn])).result.score


def test_a_pdf_the_task_folder_lacks_is_the_documents_services_404_which_its_grader_reads(tmp_path: Path) -> None:
    (report,) = import_checkout(_checkout(tmp_path), tmp_path / "out")
    assert report.status == "full", (report.left_out, report.notes)
    spec = load_spec(tmp_path / "out" / f"{TASK}.json")
    env = Env(spec)
    env.reset()
    shown = {}
    for path in ("fixtures/docs/report.pdf", "./fixtures/docs/report.pdf", "task.yaml", ".", "../..", "/etc/x.pdf"):
        step = env.step(Action.call("documents_extract_text", {"path": path}))
        shown[path] = step.messages[-1]["content"]
    # as the service answers (`_resolve_path`: absent 404, escaping 400; then not a PDF 400), shown as the
    # dispatcher writes the body
    assert shown == {
        "fixtures/docs/report.pdf": '{"detail": "File not found: fixtures/docs/report.pdf"}',
        "./fixtures/docs/report.pdf": '{"detail": "File not found: ./fixtures/docs/report.pdf"}',
        "task.yaml": '{"detail": "Only PDF files are supported"}',
        ".": '{"detail": "Only PDF files are supported"}',
        "../..": '{"detail": "Path escapes base directory: ../.."}',
        "/etc/x.pdf": '{"detail": "File not found: /etc/x.pdf"}',
    }
    # the request model reads the call first: no path is its 422
    env.reset()  # (the task's 6 turns are spent)
    step = env.step(Action.call("documents_extract_text", {"max_pages": 2}))
    assert '"missing"' in step.messages[-1]["content"] and '"path"' in step.messages[-1]["content"]
    # the grader sees the 404: no extraction succeeded (completion 0.5: the reply), none recovered (robustness 0)
    read = {"call": {"name": "documents_extract_text", "arguments": {"path": "fixtures/docs/report.pdf"}}}
    assert _score(spec, [read, {"say": "The report could not be read."}]) == pytest.approx(0.8 * 0.5)
    assert _score(spec, [{"say": "The report."}]) == pytest.approx(0.8 * 0.5 + 0.2)  # no call: no error
    # a 400 is raised before the handler logs the call, as the 404 is: the log stays empty
    held = {"call": {"name": "documents_extract_text", "arguments": {"path": "task.yaml"}}}
    assert _score(spec, [held, {"say": "The report could not be read."}]) == pytest.approx(0.8 * 0.5)


# Claw-Eval's own handler (`mock_services/documents/server.py`, its `_resolve_path` and the start of
# `extract_text`), run in process by `tests.support.claw_eval_own` beside the import
_REAL_SERVER = _SERVER.replace('''@app.post("/documents/extract_text")
def extract_text(req: ExtractTextRequest) -> dict:
    raise HTTPException(status_code=404, detail=f"File not found: {req.path}")''', '''import os
from pathlib import Path

BASE_DIR = Path(os.environ.get("DOCUMENTS_BASE_DIR", str(Path.cwd()))).resolve()


def _resolve_path(raw_path: str) -> Path:
    candidate = Path(raw_path)
    resolved = candidate.resolve() if candidate.is_absolute() else (BASE_DIR / candidate).resolve()
    if not resolved.exists():
        raise HTTPException(status_code=404, detail=f"File not found: {raw_path}")
    try:
        resolved.relative_to(BASE_DIR)
    except ValueError as exc:
        raise HTTPException(status_code=400, detail=f"Path escapes base directory: {raw_path}") from exc
    return resolved


@app.post("/documents/extract_text")
def extract_text(req: ExtractTextRequest) -> dict:
    resolved = _resolve_path(req.path)
    if resolved.suffix.lower() != ".pdf":
        raise HTTPException(status_code=400, detail="Only PDF files are supported")
    raise RuntimeError("no PDF in this checkout")''')


def test_every_path_is_answered_as_claw_evals_handler_answers_it_outside_the_folder_too(tmp_path: Path) -> None:
    from tests.support.claw_eval_own import MockService
    root = _checkout(tmp_path / "ce")
    (root / "mock_services" / "documents" / "server.py").write_text(_REAL_SERVER)
    (root / "tasks" / "CD02_other" / "fixtures" / "docs").mkdir(parents=True)  # a sibling task's folder
    (root / "tasks" / "CD02_other" / "fixtures" / "docs" / "notes.txt").write_text("x")
    (report,) = import_checkout(root, tmp_path / "out")  # (CD02_other holds no task.yaml: no task)
    assert report.status == "full", (report.left_out, report.notes)
    env = Env(load_spec(tmp_path / "out" / f"{TASK}.json"))
    service = MockService(root, "python mock_services/documents/server.py", {"DOCUMENTS_BASE_DIR": f"tasks/{TASK}"},
                          "documents")
    # files and folders of the checkout outside the folder (a sibling task's, the services' source, the framework),
    # absolute paths every machine has, paths no machine has, and the folder's own
    paths = ["../CD02_other/fixtures/docs/notes.txt", "../CD02_other", "../../mock_services/documents/server.py",
             "../../src", "../../tasks/CD02_other/../../src", "/etc", "/etc/passwd", "/tmp", "/", "../../absent.pdf",
             "../CD02_other/report.pdf", "/nowhere/report.pdf", "task.yaml", "fixtures/docs/report.pdf", "../" + TASK]
    differ = {}
    for path in paths:
        env.reset()
        ours = env.step(Action.call("documents_extract_text", {"path": path})).messages[-1]["content"]
        status, theirs = service.call("/documents/extract_text", {"path": path})
        if ours != json.dumps(theirs) or status < 400:
            differ[path] = (ours, status, theirs)
    assert not differ, differ


# The handler's whole `extract_text`: the PDF read with pypdf, its first `max_pages` pages' text joined by a blank line,
# and the call logged with the text's length alone
_PDF_SERVER = _REAL_SERVER.replace('    raise RuntimeError("no PDF in this checkout")', '''\
    from pypdf import PdfReader
    reader = PdfReader(str(resolved))
    count = len(reader.pages)
    limit = min(req.max_pages or count, count)
    text = "\\n\\n".join(page.extract_text() or "" for page in reader.pages[:limit]).strip()
    shown = {"path": str(resolved.relative_to(BASE_DIR)), "page_count": count, "pages_returned": limit}
    LOG.append({"request_body": req.model_dump(), "response_body": {**shown, "text_length": len(text)}})
    return {**shown, "text": text}


LOG: list = []''')

# A grader reading the service's log: 1.0 when it logged one served extraction, as the handler logs it
_LOG_GRADER = _GRADER.replace(
    "        scores.completion = round(0.5 * tool_used + 0.5 * (said and not logged and sent), 2)", '''\
        logged = [(c["request_body"], c["response_body"]) for c in logged]
        scores.completion = float(tool_used and said and sent and logged == [(
            {"path": "./fixtures/docs/latest.pdf", "max_pages": 1},
            {"path": "fixtures/docs/report.pdf", "page_count": 3, "pages_returned": 1, "text_length": 49})])''')


def test_a_pdf_the_folder_holds_is_served_as_claw_evals_handler_serves_it_links_followed(tmp_path: Path) -> None:
    from tests.support.claw_eval_own import MockService
    root = _checkout(tmp_path / "ce", pdf=True)
    (root / "mock_services" / "documents" / "server.py").write_text(_PDF_SERVER)
    task = root / "tasks" / TASK
    (task / "grader.py").write_text(_LOG_GRADER)
    (root / "tasks" / "CD02_other").mkdir()
    (root / "tasks" / "CD02_other" / "notes.txt").write_text("x")
    (root / "tasks" / "CD02_other" / "dead.pdf").symlink_to("nowhere.pdf")  # outside, to nothing: not there
    docs = task / "fixtures" / "docs"
    (docs / "latest.pdf").symlink_to("report.pdf")  # a link to the PDF: served, named by its target
    (docs / "yaml.pdf").symlink_to("../../task.yaml")  # to another file of the folder: no PDF
    (docs / "away").symlink_to("../../../CD02_other")  # to a folder outside it: escaping it, and what it holds too
    (docs / "gone.pdf").symlink_to("missing.pdf")  # to nothing: not there
    (report,) = import_checkout(root, tmp_path / "out")
    assert report.status == "full", (report.left_out, report.notes)
    assert any("serves fixtures/docs/report.pdf (3 pages" in note for note in report.notes), report.notes
    spec = load_spec(tmp_path / "out" / f"{TASK}.json")
    env = Env(spec)
    service = MockService(root, "python mock_services/documents/server.py", {"DOCUMENTS_BASE_DIR": f"tasks/{TASK}"},
                          "documents")
    calls: list[dict[str, Any]] = [
        {"path": "fixtures/docs/report.pdf"}, {"path": "./fixtures/docs/latest.pdf", "max_pages": 1},
        {"path": "fixtures/docs/latest.pdf", "max_pages": 0}, {"path": "fixtures/docs/report.pdf", "max_pages": -1},
        {"path": "fixtures/docs/report.pdf", "max_pages": 7},
        {"path": "fixtures/../fixtures/docs/report.pdf", "max_pages": "2"},
        {"path": "fixtures/docs/yaml.pdf"}, {"path": "fixtures/docs/away"}, {"path": "fixtures/docs/away/notes.txt"},
        {"path": "fixtures/docs/gone.pdf"}, {"path": "fixtures/docs/REPORT.pdf"}, {"path": "fixtures/docs"},
        {"path": "../CD02_other/dead.pdf"}, {"path": "../CD02_other/notes.txt"}]
    differ = {}
    for args in calls:
        env.reset()
        ours = env.step(Action.call("documents_extract_text", args)).messages[-1]["content"]
        status, theirs = service.call("/documents/extract_text", args)
        if ours != json.dumps(theirs, ensure_ascii=False) or env.audit[-1].ok != (status < 400):
            differ[json.dumps(args)] = (ours, status, theirs)
    assert not differ, differ
    assert service.module.LOG[1]["response_body"]["text_length"] == 49  # (the grader's figure, as logged there)
    # the grader reads the extraction as served (status 200) and the service's log of it: the text by its length
    read = {"call": {"name": "documents_extract_text",
                     "arguments": {"path": "./fixtures/docs/latest.pdf", "max_pages": 1}}}
    assert _score(spec, [read, {"say": "The report says GPT-4 is large."}]) == pytest.approx(1.0)
