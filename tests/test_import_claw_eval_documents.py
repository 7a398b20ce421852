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
        (task / "fixtures" / "docs" / "report.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    return root


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


def test_a_pdf_the_task_folder_holds_leaves_the_task_out_saying_why(tmp_path: Path) -> None:
    (report,) = import_checkout(_checkout(tmp_path, pdf=True), tmp_path / "out")
    assert report.status == "skipped"
    why = next(x["why"] for x in report.left_out if x["what"] == "services.documents")
    assert "fixtures/docs/report.pdf" in why and "PDF" in why


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
