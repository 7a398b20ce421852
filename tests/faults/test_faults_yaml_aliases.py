"""Fault corpus, YAML aliases that expand a small file into a huge document (an "alias bomb": nine lists of nine
aliases each, 700 bytes, read as 43 million values) or into an endless one (an alias inside the collection its anchor
marks). PyYAML shares an anchored value, so the parse is instant, but each reader that walks the data walks every
repetition. A Claw-Eval `task.yaml` keeps free-form values (a tool's input schema, a safety check's value, keywords)
that the importer copies into the spec: on `main` `coworkenv import claw-eval` was still busy when stopped, and a
loop ended the task in "Circular reference detected" naming no file or line. Now every YAML reader refuses both,
naming the file and the line, before anything is built (`coworkenv/yaml_files.py: alias_problem`). The strict
schemas of the capability files, training configs and dagster.yaml already refused the keys such a value sat
under; the guards hold that."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.cli import app
from tests.faults.harness import CAPABILITY, ROOT, pipeline_refused, refused
from trainers.config import CONFIGS_DIR

# Seven levels (4.8 million values, past the 1,000,000 refused) rather than the nine of the docstring: on `main` the
# nine-level keywords case grew to 20 GB and was killed by the kernel; seven keep a regression to a few GB.
pytestmark = pytest.mark.timeout(120)

BOMB = "alias bomb"
LOOP = "hold itself"


def _bomb(indent: str) -> str:
    """Seven levels of anchors in a flow list, each level nine aliases of the one before; `*a6` repeats the last."""
    levels = ['&a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]']
    levels += [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 7)]
    return "".join(f"{indent}- {level}\n" for level in levels)


# Where a person's task.yaml holds a free-form value, and the value: `{place}` in the task's text is replaced.
PLACES = {
    "a tool's input schema, an alias bomb": (
        '        status: {type: string, description: "open, closed or all", default: open}\n',
        "        status:\n          type: string\n          examples:\n" + _bomb("            ")
        + "          default: *a6\n", BOMB),
    "a safety check's value, an alias bomb": (
        "    description: Triage only; close nothing\n",
        "    description: Triage only; close nothing\n  - type: tool_not_called_with\n"
        "    tool_name: helpdesk_update_ticket\n    field: priority\n    value:\n" + _bomb("      "), BOMB),
    "a check's keywords, an alias bomb": (
        "    check: {type: keywords_present, keywords: [TK-501, TK-503, VPN]}\n",
        "    check:\n      type: keywords_present\n      keywords:\n" + _bomb("        "), BOMB),
    "a tool's input schema, an alias loop": (
        '        status: {type: string, description: "open, closed or all", default: open}\n',
        "        status: &status\n          type: string\n          items: *status\n", LOOP),
}


@pytest.mark.parametrize("place", sorted(PLACES))
def test_claw_eval_import_names_a_task_whose_aliases_expand_and_imports_the_others(tmp_path: Path,
                                                                                  place: str) -> None:
    kept = {"CE02_vpn_ticket_triage", "CE03_outage_escalation"}  # the broken task and one beside it
    checkout = Path(shutil.copytree(
        ROOT / "tests" / "fixtures" / "claw_eval_like", tmp_path / "ce",
        ignore=lambda folder, names: [n for n in names if Path(folder).name == "tasks" and n not in kept]))
    task = checkout / "tasks" / "CE02_vpn_ticket_triage" / "task.yaml"
    old, new, needle = PLACES[place]
    text = task.read_text(encoding="utf-8")
    assert old in text
    task.write_text(text.replace(old, new, 1), encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["import", "claw-eval", str(checkout), "--out", str(out)])
    assert "Traceback" not in result.output, result.output
    (shown,) = [line for line in result.output.splitlines() if line.startswith("CE02_vpn_ticket_triage")]
    assert "skipped" in shown and f"{task}:" in shown and needle in shown, shown
    assert (out / "CE03_outage_escalation.json").is_file(), result.output
    assert not (out / "CE02_vpn_ticket_triage.json").exists()


def _taxonomy_with_bomb(tmp_path: Path) -> tuple[Path, Path]:
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    area = folder / "tickets.yaml"
    text = area.read_text(encoding="utf-8")
    first = text.index("    skills:")
    area.write_text(text[:first] + "    hints:\n" + _bomb("      ") + text[first:], encoding="utf-8")
    return folder, area


def test_synth_refuses_a_capability_file_with_an_alias_bomb(tmp_path: Path) -> None:
    """Guard (holds on `main`: `hints` takes text, and pydantic refused the lists at once): named, nothing written."""
    folder, area = _taxonomy_with_bomb(tmp_path)
    out = tmp_path / "out"
    refused(["synth", "--taxonomy", str(folder), "--out", str(out), "-c", CAPABILITY, "--n", "1"], str(area))
    assert not out.exists()


def test_a_dagster_yaml_with_an_alias_bomb_is_named_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Guard (holds on `main`: Dagster's schema refused the unknown key)."""
    text = (ROOT / "dagster.yaml").read_text(encoding="utf-8").replace(".dagster", str(tmp_path / ".dagster"))
    (tmp_path / "dagster.yaml").write_text(text + "extra:\n" + _bomb("  "), encoding="utf-8")
    line = pipeline_refused(tmp_path, monkeypatch, capsys, "COWORKENV_TRAIN_CONFIG", str(CONFIGS_DIR / "tiny.yaml"))
    assert line.startswith(f"error: {tmp_path / 'dagster.yaml'}"), line


def test_aliases_a_person_writes_are_read(tmp_path: Path) -> None:
    """Guard: anchors and aliases used as meant (a shared mapping repeated, a merge key, 200 repetitions) are read."""
    from coworkenv.yaml_files import read_yaml

    config = tmp_path / "shared.yaml"
    config.write_text("base: &base {a: 1, b: [x, y, z]}\none: *base\ntwo:\n  <<: *base\n  c: 2\n"
                      "many: [" + ", ".join(["*base"] * 200) + "]\n", encoding="utf-8")
    data = read_yaml(config).data
    assert data["two"] == {"a": 1, "b": ["x", "y", "z"], "c": 2} and len(data["many"]) == 200
