"""Fault corpus, text written without quotes that YAML 1.1 reads as something else: `no`, `yes`, `on`, `off` (a
boolean), `2026-12-03` (a date), `1.5` (a number), `12:30` (a number in base 60), `~` (null). A capability file or a
training config holding one said only "Input should be a valid string" at the line, so a person looking at the word
`no` saw nothing wrong. Now the line says what YAML made of it and how to keep it text."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from coworkenv.synth import TaxonomyError, load_taxonomy
from tests.faults.harness import ROOT, pipeline_refused
from trainers.config import CONFIGS_DIR

# (text in tickets.yaml, the same written with a plain scalar YAML reads as no text, line, what it becomes)
WRITTEN: dict[str, tuple[str, str, int, str]] = {
    "a skill 'no'": ("skills: [read a policy,", "skills: [no, read a policy,", 9, "a boolean"),
    "a hint 'yes'": ("hints: [the label", "hints: [yes, the label", 15, "a boolean"),
    "a hint 'off'": ("hints: [the label", "hints: [off, the label", 15, "a boolean"),
    "a hint that is a date": ("hints: [the label", "hints: [2026-12-03, the label", 15, "a date"),
    "a hint that is a number": ("hints: [the label", "hints: [1.5, the label", 15, "a number"),
    "a hint '~'": ("hints: [the label", "hints: [~, the label", 15, "null"),
    "an id '12:30'": ("  - id: ticket_triage_update", "  - id: 12:30", 5, "a number"),
    "an area description that is a date": ("description: Keeping the ticket queue triaged and owned.",
                                           "description: 2026-12-03", 3, "a date"),
}


@pytest.mark.parametrize("case", WRITTEN)
def test_a_capability_word_yaml_reads_as_no_text_is_named_with_how_to_quote_it(tmp_path: Path, case: str) -> None:
    before, after, line, becomes = WRITTEN[case]
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    text = (folder / "tickets.yaml").read_text(encoding="utf-8")
    assert before in text
    (folder / "tickets.yaml").write_text(text.replace(before, after, 1), encoding="utf-8")
    written = after.split(": ")[-1].lstrip("[").split(",")[0]
    with pytest.raises(TaxonomyError) as caught:
        load_taxonomy(folder)
    message = str(caught.value)
    assert message.startswith(f"{folder / 'tickets.yaml'}:{line}: "), message
    assert becomes in message and f'"{written}"' in message and "quotes" in message, message


def test_a_quoted_word_is_text_as_written(tmp_path: Path) -> None:
    """Regression guard (passes on main): the advice's own fix loads."""
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    text = (folder / "tickets.yaml").read_text(encoding="utf-8")
    (folder / "tickets.yaml").write_text(text.replace("hints: [the label", 'hints: ["no", the label', 1),
                                         encoding="utf-8")
    assert load_taxonomy(folder)["ticket_triage_update"].hints[0] == "no"


def test_a_training_config_word_yaml_reads_as_a_boolean_is_named_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "tiny.yaml"
    text = (CONFIGS_DIR / "tiny.yaml").read_text(encoding="utf-8")
    config.write_text(text.replace("  dtype: float32", "  dtype: off", 1), encoding="utf-8")
    line_no = text[:text.index("  dtype: float32")].count("\n") + 1
    line = pipeline_refused(tmp_path, monkeypatch, capsys, "COWORKENV_TRAIN_CONFIG", str(config))
    assert f"{config}:{line_no}: " in line and "a boolean" in line and '"off"' in line, line
