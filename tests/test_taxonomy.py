"""The capability taxonomy: the shipped files load, cover the coworker's job, and bad YAML is located precisely."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coworkenv.synth import (
    GENERATORS,
    Capability,
    TaxonomyError,
    capability_fingerprint,
    load_taxonomy,
)
from coworkenv.synth.taxonomy import GENERATOR_VERSION

TAXONOMY = Path(__file__).resolve().parents[1] / "taxonomy"

GOOD = """\
area: demo
description: A demo area.
capabilities:
  - id: demo_one
    description: Do one thing.
    skills: [read mail]
    apps: [mail, directory]
    difficulty: [1, 3]
    multi_turn: false
    state_change: none
    quota: 4
    hints: [be careful]
"""


def _write(tmp_path: Path, text: str, name: str = "demo.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_taxonomy_covers_the_required_capabilities() -> None:
    tax = load_taxonomy(TAXONOMY)
    assert len(tax) >= 16
    required = {
        "inbox_triage_reply",
        "schedule_meeting_timezones",
        "incident_investigate_fix",
        "ticket_triage_update",
        "mail_ticket_chat_coordination",
        "report_from_data",
        "lookup_answer_source",
        "clarify_ambiguous_request",
        "adapt_announced_change",
        "adapt_silent_change",
        "draft_only_reply",
        "refuse_forbidden_action",
        "delegate_and_follow_up",
        "correct_bad_data",
        "feature_flag_rollout",
        "oncall_handoff",
        "access_request_approval",
    }
    assert required <= set(tax.capabilities)
    assert tax["adapt_announced_change"].state_change == "announced"
    assert tax["adapt_silent_change"].state_change == "silent"
    for cap in tax:
        assert cap.generator_id in GENERATORS, f"{cap.id} has no procedural generator"
        assert cap.id in tax.areas[cap.area]
        assert tax.source_files[cap.id].parent == TAXONOMY
        assert 1 <= cap.quota <= 8, "the embedded default run keeps quotas small"


def test_one_file_loads_and_fills_area_and_source(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD)
    tax = load_taxonomy(tmp_path)
    cap = tax["demo_one"]
    assert cap.area == "demo" and cap.difficulty == (1, 3) and cap.apps == ["mail", "directory"]
    assert tax.areas == {"demo": ["demo_one"]}
    assert tax.source_files["demo_one"] == path
    assert load_taxonomy(path)["demo_one"] == cap


def test_fingerprint_follows_the_definition() -> None:
    cap = Capability(id="x_y", area="a", description="d", skills=["s"], apps=["mail"])
    same = Capability(id="x_y", area="a", description="d", skills=["s"], apps=["mail"])
    edited = cap.model_copy(update={"quota": cap.quota + 1})
    assert capability_fingerprint(cap) == capability_fingerprint(same)
    assert capability_fingerprint(cap) != capability_fingerprint(edited)
    assert GENERATOR_VERSION


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        # YAML syntax: the parser's mark gives the line.
        (GOOD.replace("hints: [be careful]", "hints: [be careful"), 13, "invalid YAML"),
        # An unknown key is located at the key itself.
        (GOOD.replace("    quota: 4\n", "    quota: 4\n    qouta: 5\n"), 12, "unknown key 'qouta'"),
        # A bad value is located at its key.
        (GOOD.replace("difficulty: [1, 3]", "difficulty: [4, 2]"), 8, "difficulty"),
        (GOOD.replace("apps: [mail, directory]", "apps: [mail, fax]"), 7, "unknown app(s) fax"),
        (GOOD.replace("state_change: none", "state_change: silent"), 4, "needs multi_turn: true"),
        (GOOD.replace("    skills: [read mail]\n", ""), 4, "missing key 'skills'"),
        (GOOD.replace("area: demo", "area: Demo Area"), 1, "area"),
        ("- just\n- a list\n", 1, "expected a mapping"),
    ],
)
def test_bad_yaml_names_file_line_and_problem(tmp_path: Path, text: str, line: int, needle: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy(tmp_path)
    err = info.value
    assert err.file == path
    assert err.line == line, str(err)
    assert needle in err.message
    assert str(err).startswith(f"{path}:{line}: ")


def test_duplicate_ids_across_files_are_rejected(tmp_path: Path) -> None:
    _write(tmp_path, GOOD, "a.yaml")
    second = _write(tmp_path, GOOD.replace("area: demo", "area: other"), "b.yaml")
    with pytest.raises(TaxonomyError, match="also defined in") as info:
        load_taxonomy(tmp_path)
    assert info.value.file == second and info.value.line == 4


def test_missing_or_empty_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(TaxonomyError, match=r"no \*\.yaml files"):
        load_taxonomy(tmp_path)
    with pytest.raises(TaxonomyError, match="no such file"):
        load_taxonomy(tmp_path / "nope")


def test_cli_lists_capabilities_as_json(tmp_path: Path) -> None:
    import typer

    from coworkenv.cli.synth import register

    app = typer.Typer()
    register(app)
    result = CliRunner().invoke(app, ["taxonomy", "--path", str(TAXONOMY), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert {r["id"] for r in rows} == set(load_taxonomy(TAXONOMY).capabilities)
    assert all(r["procedural"] and len(r["fingerprint"]) == 16 for r in rows)
    _write(tmp_path, GOOD.replace("quota: 4", "quota: -1"))
    bad = CliRunner().invoke(app, ["taxonomy", "--path", str(tmp_path)])
    assert bad.exit_code == 2
    assert f"{tmp_path / 'demo.yaml'}:11:" in bad.output
