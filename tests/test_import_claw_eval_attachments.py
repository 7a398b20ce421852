"""The files a Claw-Eval task shows its agent with the prompt (import50). Claw-Eval's loop opens the episode with one
user message: `prompt.text`, then, for each file the prompt names (its `[media attached: ./PATH (MIME)]` tokens, then
`prompt.attachments`, each once, at most 6), under its default text-only model: a text document (`text/*`, JSON,
XML; `.md`, `.txt`, `.csv`) as `[attached document: NAME]` and its stripped text, joined by newlines; an absent or
empty file, or one of a type it cannot tell or show as text (a PDF, `.yaml`), is dropped; an image is shown only to a
model that takes images. main left every task naming a file out as "multimodal input": a task with tools and a text
document was skipped, and so was one whose only file Claw-Eval drops. The task folders here are written in
Claw-Eval's format (task.yaml, fixtures/), from the fixtures' CE02 (helpdesk tools)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from coworkenv import Env
from coworkenv.agents import OraclePolicy
from coworkenv.importers import import_task
from coworkenv.rollout import run_agent, run_episode
from coworkenv.spec import ReferenceStep, ReferenceTurn
from tests.test_rollout_agent_loop import ScriptedBackend, say

TASK = Path(__file__).parent / "fixtures" / "claw_eval_like" / "tasks" / "CE02_vpn_ticket_triage"
POLICY = "# VPN escalation policy\n\nRaise to urgent when three or more people report the same gateway.\n\n"
SITES = "gateway,site,reports\r\nvpn-eu-1,Lisbon,3\r\nvpn-us-2,Austin,1\r\n"


def _task(tmp_path: Path, text: str, named: list[str], files: dict[str, bytes]) -> Path:
    """A checkout (`tasks/<ID>/`) holding CE02 with the prompt `text`, `prompt.attachments` `named`, and `files`
    (paths under the task folder)."""
    task = tmp_path / "tasks" / "CE50_vpn_policy_triage"
    shutil.copytree(TASK, task)
    doc: dict[str, Any] = yaml.safe_load((task / "task.yaml").read_text(encoding="utf-8"))
    doc["task_id"] = task.name
    doc["prompt"] = {"text": text, "language": "en", **({"attachments": named} if named else {})}
    (task / "task.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    for name, data in files.items():
        (task / name).parent.mkdir(parents=True, exist_ok=True)
        (task / name).write_bytes(data)
    return task


def test_a_task_with_tools_shows_its_text_documents_after_the_prompt(tmp_path: Path) -> None:
    """A markdown policy and a CSV (prompt.attachments) and a JSON file named by the prompt's own token: each is
    appended, the token's first, as Claw-Eval's runner builds the message. main: skipped as multimodal input."""
    text = ("Triage the VPN tickets by our escalation policy and the site list. Roster: "
            "[media attached: ./tasks/CE50_vpn_policy_triage/fixtures/docs/oncall.json (application/json)]\n")
    task = _task(tmp_path, text, ["fixtures/docs/policy.md", "fixtures/docs/sites.csv"], {
        "fixtures/docs/policy.md": POLICY.encode(), "fixtures/docs/sites.csv": SITES.encode(),
        "fixtures/docs/oncall.json": b'  {"primary": "Dana Ito"}\n'})
    spec, report = import_task(task)
    assert spec is not None and report.status == "full", (report.status, report.left_out, report.notes)
    opening = (f"{text}\n[attached document: oncall.json]\n" + '{"primary": "Dana Ito"}'
               f"\n[attached document: policy.md]\n{POLICY.strip()}\n[attached document: sites.csv]\n{SITES.strip()}")
    assert spec.turns[0].content == opening
    backend = ScriptedBackend([say("Done.")])
    run_agent(Env(spec), backend)
    sent = backend.requests[0].messages
    assert [m["role"] for m in sent] == ["system", "user"] and sent[1]["content"] == opening
    assert any("3 text document(s)" in n for n in report.notes), report.notes


def test_files_claw_eval_drops_leave_the_prompt_as_it_is(tmp_path: Path) -> None:
    """A PDF (no text type), a `.yaml` (a type it cannot tell), an empty text file and an absent one: Claw-Eval's
    runner records each as an error and shows none, whatever its model, so the task imports with the prompt alone,
    saying so; a seventh file is past the runner's limit of 6. main: skipped as multimodal input."""
    named = ["fixtures/docs/scan.pdf", "fixtures/docs/rota.yaml", "fixtures/docs/blank.txt", "fixtures/docs/gone.md",
             "fixtures/docs/a.txt", "fixtures/docs/b.txt", "fixtures/docs/c.txt"]
    task = _task(tmp_path, "Triage the VPN tickets.", named, {
        "fixtures/docs/scan.pdf": b"%PDF-1.4 policy", "fixtures/docs/rota.yaml": b"primary: Dana\n",
        "fixtures/docs/blank.txt": b" \n\t\n", "fixtures/docs/a.txt": b"alpha", "fixtures/docs/b.txt": b"\xffbeta",
        "fixtures/docs/c.txt": b"gamma"})
    spec, report = import_task(task)
    assert spec is not None and report.status == "full", (report.status, report.left_out, report.notes)
    assert spec.turns[0].content == ("Triage the VPN tickets.\n[attached document: a.txt]\nalpha\n"
                                     "[attached document: b.txt]\n\ufffdbeta")  # undecodable bytes replaced
    dropped = next(n for n in report.notes if "drops" in n)
    for name in ("scan.pdf", "rota.yaml", "blank.txt", "gone.md", "c.txt"):
        assert name in dropped, (name, dropped)


def test_an_image_or_a_file_outside_the_checkout_still_leaves_the_task_out(tmp_path: Path) -> None:
    """An image is shown only to a model that takes images (present or not: the task is made for one), and a path
    out of the checkout is not read: the task is skipped, saying which file and why."""
    task = _task(tmp_path, "Triage the VPN tickets as the screenshot shows.",
                 ["fixtures/docs/policy.md", "fixtures/media/screen.png"],
                 {"fixtures/docs/policy.md": POLICY.encode()})
    spec, report = import_task(task)
    assert spec is None and report.status == "skipped"
    assert any("screen.png" in x["why"] and "multimodal" in x["why"] for x in report.left_out), report.left_out
    (tmp_path / "secret.txt").write_text("not the task's", encoding="utf-8")
    task = _task(tmp_path / "b", "Triage the VPN tickets.", ["../../../secret.txt"], {})
    spec, report = import_task(task)
    assert spec is None and any("not read" in x["why"] for x in report.left_out), report.left_out


GRADED = Path(__file__).parent / "fixtures" / "claw_eval_like"
_GRADER = '''from typing import Any

from claw_eval.graders.base import AbstractGrader
from claw_eval.models.trace import DimensionScores


class SiteListGrader(AbstractGrader):
    """Full marks when the reply names the gateway with the most reports in the attached site list, read from the
    trace's first message: the prompt, then each attached document its own text block."""

    def grade(self, messages: Any, dispatches: Any, task: Any, audit_data: Any = None, judge: Any = None,
              media_events: Any = None, env_snapshot: Any = None) -> DimensionScores:
        scores = DimensionScores()
        blocks = [b.text for b in messages[0].message.content if b.type == "text"]
        sites = next((b for b in blocks[1:] if b.startswith("[attached document: sites.csv]\\n")), "")
        rows = [line.split(",") for line in sites.splitlines()[2:]]
        busiest = max(rows, key=lambda r: int(r[2]))[0] if rows else "none"
        named = busiest in self._get_final_assistant_text(messages) and blocks[0] == task.prompt.text \\
            and task.prompt.attachments == ["fixtures/docs/sites.csv"]
        scores.completion = 1.0 if named else 0.0
        scores.robustness = self.compute_robustness(dispatches)
        return scores
'''


def test_a_grader_reads_each_attached_document_as_its_own_block_of_the_first_message(tmp_path: Path) -> None:
    """Claw-Eval's trace holds the opening message as its blocks (the prompt, then each document), which a grader
    (or its judge's transcript, `format_conversation_detailed`, one line per block) reads. main: skipped."""
    shutil.copytree(GRADED / "src", tmp_path / "src")
    task = tmp_path / "tasks" / "CE16_book_free_slot_graded"
    shutil.copytree(GRADED / "tasks" / task.name, task)
    doc: dict[str, Any] = yaml.safe_load((task / "task.yaml").read_text(encoding="utf-8"))
    doc["prompt"]["attachments"] = ["fixtures/docs/sites.csv"]
    (task / "task.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    (task / "fixtures" / "docs").mkdir()
    (task / "fixtures" / "docs" / "sites.csv").write_bytes(SITES.encode())
    (task / "grader.py").write_text(_GRADER, encoding="utf-8")
    spec, report = import_task(task)
    assert spec is not None and [c.id for c in spec.checks] == ["grader"], (report.left_out, report.notes)
    scores = []
    for reply in ("vpn-eu-1 has the most reports.", "vpn-us-2 has the most reports."):
        turn = ReferenceTurn(steps=[ReferenceStep(say=reply)])
        scores.append(run_episode(Env(spec), OraclePolicy(spec, reference=[turn])).result.score)
    assert scores == [1.0, pytest.approx(0.2)]  # safety * (0.8 * completion + 0.2 * robustness)
