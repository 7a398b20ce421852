"""Fault corpus, YAML nested hundreds of levels deep (a bracket run left open by a script, a generated file gone
wrong) in every YAML the project reads: a capability file, a training config, DAGSTER_HOME's dagster.yaml, a
Claw-Eval task. PyYAML composes by recursion, so each ended in a RecursionError traceback naming no file (exit 1).
Now each is one line naming the file, before any run or write."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.harness import CAPABILITY, ROOT, TRAINING_CONFIGS, pipeline_refused, refused, training_config_refused
from trainers.config import CONFIGS_DIR

DEPTH = 600  # far past any file a person writes, past Python's 1000 frames; PyYAML scans deeper ones for minutes


def _flow_mapping(key: str) -> str:
    return f"{key}: " + "{a: " * DEPTH + "1" + "}" * DEPTH + "\n"


def _block_list(key: str) -> str:
    return f"{key}:\n" + "".join(f"{' ' * i}-\n" for i in range(1, DEPTH + 1))


NESTINGS: dict[str, Callable[[str], str]] = {"a flow mapping": _flow_mapping, "an indented list": _block_list}


def _taxonomy_with(tmp_path: Path, nesting: str) -> tuple[Path, Path]:
    folder = Path(shutil.copytree(ROOT / "taxonomy", tmp_path / "taxonomy"))
    deep = folder / "generated.yaml"
    deep.write_text("area: generated\n" + NESTINGS[nesting]("capabilities"), encoding="utf-8")
    return folder, deep


@pytest.mark.parametrize("nesting", NESTINGS)
def test_synth_names_a_capability_file_nested_too_deeply(tmp_path: Path, nesting: str) -> None:
    folder, deep = _taxonomy_with(tmp_path, nesting)
    out = tmp_path / "out"
    refused(["synth", "--taxonomy", str(folder), "--out", str(out), "-c", CAPABILITY, "--n", "1"], str(deep),
            "nested too deeply")
    assert not out.exists()


def test_the_taxonomy_listing_names_a_capability_file_nested_too_deeply(tmp_path: Path) -> None:
    folder, deep = _taxonomy_with(tmp_path, "an indented list")
    refused(["taxonomy", "--path", str(folder)], str(deep), "nested too deeply")


def test_the_pipeline_names_a_capability_file_nested_too_deeply_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    folder, deep = _taxonomy_with(tmp_path, "a flow mapping")
    line = pipeline_refused(tmp_path, monkeypatch, capsys, "COWORKENV_TAXONOMY_DIR", str(folder))
    assert str(deep) in line and "nested too deeply" in line, line


@pytest.mark.parametrize(("setting", "name"), TRAINING_CONFIGS)
def test_a_training_config_nested_too_deeply_is_named_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], setting: str,
        name: str) -> None:
    text = (CONFIGS_DIR / f"{name}.yaml").read_text(encoding="utf-8") + _block_list("notes")
    config, line = training_config_refused(tmp_path, monkeypatch, capsys, setting, text)
    assert line.startswith(f"error: {setting}=") and str(config) in line and "nested too deeply" in line, line


def test_coworkenv_train_names_a_config_nested_too_deeply(tmp_path: Path) -> None:
    config = tmp_path / "tiny.yaml"
    config.write_text((CONFIGS_DIR / "tiny.yaml").read_text(encoding="utf-8") + _flow_mapping("notes"), encoding="utf-8")
    refused(["train", "sft", "--config", str(config), "--data", str(tmp_path / "sft"), "--out", str(tmp_path / "out")],
            str(config), "nested too deeply")
    assert not (tmp_path / "out").exists()


def test_a_dagster_yaml_nested_too_deeply_is_named_before_any_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "dagster.yaml").read_text(encoding="utf-8").replace(".dagster", str(tmp_path / ".dagster"))
    (tmp_path / "dagster.yaml").write_text(text + _flow_mapping("telemetry_extra"), encoding="utf-8")
    line = pipeline_refused(tmp_path, monkeypatch, capsys, "COWORKENV_TRAIN_CONFIG", str(CONFIGS_DIR / "tiny.yaml"))
    assert line.startswith(f"error: {tmp_path / 'dagster.yaml'}") and "nested too deeply" in line, line


def test_a_claw_eval_task_nested_too_deeply_is_named(tmp_path: Path) -> None:
    from coworkenv.importers.claw_eval_task import ImportProblem, load_task

    task = tmp_path / "tasks" / "T001"
    task.mkdir(parents=True)
    (task / "task.yaml").write_text("task_id: T001\n" + _flow_mapping("tools"), encoding="utf-8")
    with pytest.raises(ImportProblem) as caught:
        load_task(task)
    assert str(task / "task.yaml") in str(caught.value) and "nested too deeply" in str(caught.value)



@pytest.mark.parametrize("nesting", sorted(NESTINGS))
def test_a_file_too_deep_is_refused_before_any_reader_recurses(tmp_path: Path, nesting: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Refused from the parser's events (a loop), before PyYAML's composer or constructor recurse toward Python's
    limit: near it, a finalizer the garbage collector happens to run fails to report its own error, which printed a
    second traceback beside the pipeline's one line (a test of `pipeline_refused` failed so, after other tests)."""
    import yaml

    from coworkenv.yaml_files import MAX_YAML_DEPTH, YAMLFileError, check_unique_keys, read_yaml, too_deep

    deep = tmp_path / "deep.yaml"
    deep.write_text(NESTINGS[nesting]("k"), encoding="utf-8")
    assert not too_deep("k:\n" + "".join(f"{' ' * i}-\n" for i in range(1, MAX_YAML_DEPTH)))

    def recursing_reader(*_: object, **__: object) -> None:
        raise AssertionError("a recursive reader was given a file nested too deeply")

    for name in ("compose", "safe_load", "load"):
        monkeypatch.setattr(yaml, name, recursing_reader)
    for read in (read_yaml, check_unique_keys):
        with pytest.raises(YAMLFileError, match="nested too deeply"):
            read(deep)
