"""Fault corpus, training config files (COWORKENV_TRAIN_CONFIG, COWORKENV_RL_CONFIG, `coworkenv train --config`) as
people edit them: a tab for an indent, a key written twice, a broken line, a value of the wrong type, a byte that is
not UTF-8, an empty file. Each is refused before any run with one line naming the file and the line. Before, a YAML
error in them was blamed on DAGSTER_HOME's dagster.yaml, the CLI showed a traceback, a key written twice silently
replaced the first one (a whole `model:` section, say), and a wrong value said only "invalid SFT config:"."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.harness import ROOT, pipeline_refused, refused
from trainers.config import CONFIGS_DIR

CONFIGS = {"COWORKENV_TRAIN_CONFIG": "tiny", "COWORKENV_RL_CONFIG": "rl-tiny"}
Edit = Callable[[list[str]], tuple[list[str], int]]  # the file's lines -> damaged lines, 1-based line to name


def _nested(lines: list[str]) -> int:
    """Index of the first `  key: value` line (a key of a section)."""
    return next(i for i, line in enumerate(lines) if re.match(r"^  [a-z_]+: \S", line))


def _tab_indent(lines: list[str]) -> tuple[list[str], int]:
    at = _nested(lines)
    return [*lines[:at], "\t" + lines[at].lstrip(" "), *lines[at + 1:]], at + 1


def _key_twice(lines: list[str]) -> tuple[list[str], int]:
    at = _nested(lines)
    return [*lines[:at + 1], lines[at], *lines[at + 1:]], at + 2


def _section_twice(lines: list[str]) -> tuple[list[str], int]:
    section = next(line for line in lines if re.match(r"^[a-z_]+:\s*$", line))
    return [*lines, section, "  " + lines[_nested(lines)].strip()], len(lines) + 1


def _broken_line(lines: list[str]) -> tuple[list[str], int]:
    at = _nested(lines)
    return [*lines[:at], lines[at].replace(": ", ": [", 1), *lines[at + 1:]], at + 1  # a list never closed


def _wrong_type(lines: list[str]) -> tuple[list[str], int]:
    at = next(i for i, line in enumerate(lines) if re.match(r"^  [a-z_]+: [0-9]+\s*(#.*)?$", line))
    return [*lines[:at], re.sub(r": [0-9]+", ": many", lines[at]), *lines[at + 1:]], at + 1


def _unknown_key(lines: list[str]) -> tuple[list[str], int]:
    at = _nested(lines)
    return [*lines[:at], "  bogus_setting: 3", *lines[at:]], at + 1


def _number(value: str, kind: str) -> Edit:
    """The first `  key: <number>` line's number (`kind` "float": a number with a point) set to `value`."""
    shape = r"[0-9]+\.[0-9.e-]*" if kind == "float" else r"[0-9]+"

    def edit(lines: list[str]) -> tuple[list[str], int]:
        at = next(i for i, line in enumerate(lines) if re.match(rf"^  [a-z_]+: {shape}\s*(#.*)?$", line))
        return [*lines[:at], re.sub(rf": {shape}", f": {value}", lines[at], count=1), *lines[at + 1:]], at + 1
    return edit


EDITS: dict[str, tuple[Edit, str]] = {
    "a tab for an indent": (_tab_indent, "invalid YAML"),
    "a key written twice": (_key_twice, "appears twice"),
    "a section written twice": (_section_twice, "appears twice"),
    "a line cut short": (_broken_line, "invalid YAML"),
    "a value of the wrong type": (_wrong_type, "valid integer"),
    "an unknown key": (_unknown_key, ".bogus_setting'"),
    # An infinite rate trained NaN weights into a checkpoint put in place as whole; past 64 bits failed in torch.
    "an infinite number": (_number(".inf", "float"), "finite"),
    "a number past 64 bits": (_number("9" * 30, "int"), "64-bit"),  # with its section: unknown key 'model.bogus_setting'
}


def _damaged(tmp_path: Path, name: str, kind: str) -> tuple[Path, int, str]:
    edit, says = EDITS[kind]
    lines, line = edit((CONFIGS_DIR / f"{name}.yaml").read_text(encoding="utf-8").splitlines())
    path = tmp_path / "configs" / f"{name}.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, line, says


def _pipeline_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                      setting: str, config: Path) -> str:
    return pipeline_refused(tmp_path, monkeypatch, capsys, setting, str(config), "--only", "ticket_triage_update")


@pytest.mark.parametrize("kind", EDITS)
@pytest.mark.parametrize("setting", CONFIGS)
def test_a_damaged_training_config_is_named_at_its_line_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], setting: str,
        kind: str) -> None:
    config, at, says = _damaged(tmp_path, CONFIGS[setting], kind)
    line = _pipeline_refuses(tmp_path, monkeypatch, capsys, setting, config)
    assert line.startswith(f"error: {setting}=") and says in line, line
    # The line to fix: named as the error's own, or as where what YAML found unfinished began.
    assert f"{config}:{at}: " in line or (f"{config}:" in line and f"at line {at})" in line), line
    assert "dagster.yaml" not in line


@pytest.mark.parametrize("setting", CONFIGS)
def test_a_training_config_that_is_empty_or_not_utf8_is_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], setting: str) -> None:
    config = tmp_path / "configs" / "latin1.yaml"
    config.parent.mkdir()
    source = (CONFIGS_DIR / f"{CONFIGS[setting]}.yaml").read_bytes()
    config.write_bytes(source + b"# r\xe9sum\xe9\n")
    line = _pipeline_refuses(tmp_path, monkeypatch, capsys, setting, config)
    assert f"{config}:{len(source.splitlines()) + 1}: not UTF-8" in line, line
    config.write_bytes(b"")
    line = _pipeline_refuses(tmp_path, monkeypatch, capsys, setting, config)
    assert f"{config}:1: " in line and "mapping" in line, line


@pytest.mark.parametrize("kind", ["a tab for an indent", "a key written twice", "a value of the wrong type"])
def test_coworkenv_train_names_the_config_line_without_a_traceback(tmp_path: Path, kind: str) -> None:
    config, at, says = _damaged(tmp_path, "tiny", kind)
    refused(["train", "sft", "--config", str(config), "--data", str(tmp_path / "sft"), "--out",
             str(tmp_path / "out")], f"{config}:{at}: ", says)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", CONFIGS.values())
def test_a_config_saved_with_a_bom_and_crlf_line_ends_is_the_same_config(tmp_path: Path, name: str) -> None:
    """Regression guard (passes on main): what a Windows editor saves is read as the file it came from."""
    from pipelines.freshness import rl_config_hash, trainer_config_hash

    config_hash = rl_config_hash if name.startswith("rl-") else trainer_config_hash
    saved = tmp_path / f"{name}.yaml"
    text = (CONFIGS_DIR / f"{name}.yaml").read_text(encoding="utf-8")
    saved.write_bytes("\ufeff".encode() + text.replace("\n", "\r\n").encode())
    assert config_hash(str(saved)) == config_hash(str(CONFIGS_DIR / f"{name}.yaml"))


@pytest.mark.parametrize("kind", ["a key written twice", "a section written twice"])
def test_a_key_written_twice_in_dagster_yaml_is_named_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    # Dagster keeps the last of two equal keys without a word: a second `storage:` moved the run history elsewhere.
    text = (ROOT / "dagster.yaml").read_text(encoding="utf-8").replace(".dagster", str(tmp_path / ".dagster"))
    lines, at = EDITS[kind][0](text.splitlines())
    (tmp_path / "dagster.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    line = _pipeline_refuses(tmp_path, monkeypatch, capsys, "COWORKENV_TRAIN_CONFIG", CONFIGS_DIR / "tiny.yaml")
    assert line.startswith(f"error: {tmp_path / 'dagster.yaml'}:{at}: ") and "appears twice" in line, line
