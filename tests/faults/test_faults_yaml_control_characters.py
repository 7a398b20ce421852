"""Fault corpus, YAML files holding a character YAML refuses: a NUL (a file saved as UTF-16 without its byte-order
mark, a binary paste), a terminal's colour code pasted with its ESC, a backspace, a form feed, DEL, a C1 control
character. In a capability file, a training config, DAGSTER_HOME's dagster.yaml and a Claw-Eval task.yaml.

Each is refused with one line naming the file, the line and column, the character and what to do. Measured on
`main` before the fix: PyYAML's two-line message without a line number (`in "<unicode string>", position 412`, a
count of characters from the start); for dagster.yaml and a task.yaml the same words, without a line.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.faults.harness import CAPABILITY, ROOT, TRAINING_CONFIGS, pipeline_refused, refused, training_config_refused
from trainers.config import CONFIGS_DIR

# name -> (what is pasted into a value, how the message names it)
CHARACTERS: dict[str, tuple[str, str]] = {
    "NUL": ("\x00", "U+0000 NUL"),
    "a terminal colour code": ("\x1b[1;31m", "U+001B ESC"),
    "a backspace": ("\x08", "U+0008"),
    "a form feed": ("\x0c", "U+000C"),
    "DEL": ("\x7f", "U+007F DEL"),
    "a C1 control character": ("\x9b", "U+009B"),
}


def _with(text: str, pasted: str, after: str) -> tuple[str, int, int]:
    """`text` with `pasted` put right after the first `after`: (new text, its 1-based line and column)."""
    at = text.index(after) + len(after)
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return text[:at] + pasted + text[at:], line, column


def _taxonomy_with(tmp_path: Path, pasted: str) -> tuple[Path, Path, int, int]:
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    damaged = folder / "tickets.yaml"
    text, line, column = _with(damaged.read_text(encoding="utf-8"), pasted, "description: ")
    damaged.write_text(text, encoding="utf-8")
    return folder, damaged, line, column


@pytest.mark.parametrize("character", CHARACTERS)
def test_a_capability_file_holding_a_control_character_is_named_at_its_line(tmp_path: Path, character: str) -> None:
    pasted, named = CHARACTERS[character]
    folder, damaged, line, column = _taxonomy_with(tmp_path, pasted)
    said = refused(["taxonomy", "--path", str(folder)], f"{damaged}:{line}: ", named, f"column {column}")
    assert "<unicode string>" not in said and "position" not in said


def test_a_capability_file_saved_as_utf16_without_a_byte_order_mark_is_named_as_such(tmp_path: Path) -> None:
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    damaged = folder / "tickets.yaml"
    damaged.write_bytes(damaged.read_text(encoding="utf-8").encode("utf-16-le"))
    refused(["taxonomy", "--path", str(folder)], f"{damaged}:1: ", "UTF-16", "save it as UTF-8")


def test_synth_names_a_control_character_and_writes_nothing(tmp_path: Path) -> None:
    folder, damaged, line, _ = _taxonomy_with(tmp_path, "\x1b[0m")
    out = tmp_path / "out"
    refused(["synth", "--taxonomy", str(folder), "--out", str(out), "-c", CAPABILITY, "--n", "1"],
            f"{damaged}:{line}: ", "U+001B ESC")
    assert not out.exists()


def test_the_pipeline_names_a_capability_file_holding_a_control_character_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    folder, damaged, line, _ = _taxonomy_with(tmp_path, "\x00")
    said = pipeline_refused(tmp_path, monkeypatch, capsys, "COWORKENV_TAXONOMY_DIR", str(folder))
    assert f"{damaged}:{line}: " in said and "U+0000 NUL" in said, said


@pytest.mark.parametrize(("setting", "name"), TRAINING_CONFIGS)
def test_a_training_config_holding_a_control_character_is_named_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], setting: str,
        name: str) -> None:
    text, line, _ = _with((CONFIGS_DIR / f"{name}.yaml").read_text(encoding="utf-8"), "\x08", "\n  ")
    config, said = training_config_refused(tmp_path, monkeypatch, capsys, setting, text)
    assert said.startswith(f"error: {setting}=") and f"{config}:{line}: " in said and "U+0008" in said, said


def test_coworkenv_train_names_a_control_character_in_its_config(tmp_path: Path) -> None:
    config = tmp_path / "tiny.yaml"
    text, line, _ = _with((CONFIGS_DIR / "tiny.yaml").read_text(encoding="utf-8"), "\x7f", "\n  ")
    config.write_text(text, encoding="utf-8")
    refused(["train", "sft", "--config", str(config), "--data", str(tmp_path / "sft"), "--out", str(tmp_path / "out")],
            f"{config}:{line}: ", "U+007F DEL")
    assert not (tmp_path / "out").exists()


def test_a_dagster_yaml_holding_a_control_character_is_named_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "dagster.yaml").read_text(encoding="utf-8").replace(".dagster", str(tmp_path / ".dagster"))
    text, line, _ = _with(text, "\x1b[32m", "\n")
    (tmp_path / "dagster.yaml").write_text(text, encoding="utf-8")
    said = pipeline_refused(tmp_path, monkeypatch, capsys, "COWORKENV_TRAIN_CONFIG", str(CONFIGS_DIR / "tiny.yaml"))
    assert said.startswith(f"error: {tmp_path / 'dagster.yaml'}:{line}: ") and "U+001B ESC" in said, said


def test_a_claw_eval_task_holding_a_control_character_is_named_at_its_line(tmp_path: Path) -> None:
    from coworkenv.importers.claw_eval_task import ImportProblem, load_task

    task = tmp_path / "tasks" / "T001"
    task.mkdir(parents=True)
    (task / "task.yaml").write_text("task_id: T001\nprompt:\n  text: Reply to the \x00customer\n", encoding="utf-8")
    with pytest.raises(ImportProblem) as caught:
        load_task(task)
    said = str(caught.value)
    assert f"{task / 'task.yaml'}:3: " in said and "U+0000 NUL" in said and "\n" not in said, said
