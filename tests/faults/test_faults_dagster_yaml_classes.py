"""Fault corpus, a class DAGSTER_HOME's dagster.yaml names (`module:` and `class:` of `compute_logs`,
`run_coordinator`, `run_launcher`, ...) that Dagster cannot load: a misspelt class or module, a package not installed
(`dagster_docker`), a `config:` the class does not take, or one that is no mapping. Dagster loads most of them only
when a run first needs one. Measured on `main`: `python -m pipelines.run` passed every check, made the run's record,
then failed it with a stack trace ("Couldn't find class LocalComputeLogManger in module when attempting to load the
configurable class ..."), exit 1, no `error:` line; `make ui`'s check (`python -m pipelines.instance_errors`) said
nothing and `dagster dev` failed each launched run the same way. Now each is refused before any run, in one line
naming the file, the line, the class and what to do (exit 2); the project's dagster.yaml and a sound custom class
still load. Also a dagster.yaml that is not UTF-8 (saved as Latin-1, or binary): Dagster's UnicodeDecodeError
traceback on `main`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipelines import instance_errors
from pipelines.instance_errors import InstanceError, check_instance_config
from pipelines.run import main as pipeline_main

ROOT = Path(__file__).resolve().parents[2]
PROJECT = (ROOT / "dagster.yaml").read_text()
LOGS = "  module: dagster.core.storage.local_compute_log_manager\n  class: LocalComputeLogManager\n"
assert LOGS in PROJECT

# (the file's text, its line at fault, words the line must say)
BROKEN = {
    "a misspelt class": (PROJECT.replace("class: LocalComputeLogManager", "class: LocalComputeLogManger"),
                         PROJECT.splitlines().index("  class: LocalComputeLogManager") + 1,
                         ("compute_logs", "LocalComputeLogManger", "did you mean LocalComputeLogManager?")),
    "a misspelt module": (PROJECT.replace("storage.local_compute_log_manager", "storage.local_compute_log_mgr"),
                          PROJECT.splitlines().index(LOGS.splitlines()[0]) + 1,
                          ("compute_logs", "local_compute_log_mgr", "cannot be imported", "correct the module")),
    "a package not installed": (PROJECT + "\nrun_launcher:\n  module: dagster_no_such_launcher\n"
                                          "  class: NoSuchRunLauncher\n",
                                len(PROJECT.splitlines()) + 3,
                                ("run_launcher", "not installed", "pip install dagster-no-such-launcher")),
    "a class of another section misspelt": (
        PROJECT + "\nrun_coordinator:\n  module: dagster.core.run_coordinator\n  class: QueuedRunCoordinater\n",
        len(PROJECT.splitlines()) + 4, ("run_coordinator", "did you mean QueuedRunCoordinator?")),
    "a setting the class does not take": (PROJECT.replace("base_dir: .dagster/logs", "base_dirr: .dagster/logs"),
                                          PROJECT.splitlines().index(LOGS.splitlines()[0]) + 3,
                                          ("compute_logs.config", 'unexpected config entry "base_dirr"')),
    "a config that is no mapping": (PROJECT.replace("  config:\n    base_dir: .dagster/logs", "  config: .dagster/logs"),
                                    PROJECT.splitlines().index(LOGS.splitlines()[0]) + 3,
                                    ("compute_logs.config is str", "not a mapping")),
    "a setting from a variable that is not set": (
        PROJECT.replace("base_dir: .dagster/logs", "base_dir: {env: COWORKENV_FAULTS_NO_SUCH_VARIABLE}"),
        PROJECT.splitlines().index(LOGS.splitlines()[0]) + 3,
        ("compute_logs.config", '"COWORKENV_FAULTS_NO_SUCH_VARIABLE" which is not set')),
}


@pytest.mark.parametrize(("text", "line", "says"), BROKEN.values(), ids=BROKEN.keys())
def test_a_class_dagster_cannot_load_is_named_at_its_line(tmp_path: Path, text: str, line: int,
                                                          says: tuple[str, ...]) -> None:
    (tmp_path / "dagster.yaml").write_text(text)
    with pytest.raises(InstanceError) as raised:
        check_instance_config(tmp_path)
    message = str(raised.value)
    assert raised.value.usage and message.startswith(f"{tmp_path / 'dagster.yaml'}:{line}: "), message
    assert "fix the file" in message and "\n" not in message and "Expected:" not in message, message
    for words in says:
        assert words in message, message


@pytest.mark.parametrize(("raw", "line"), [
    (PROJECT.replace("# Dagster instance", "# Dagster instance (caf\xe9)", 1).encode("latin-1"), 1),
    (PROJECT.encode() + b"\n" + bytes(range(0x80, 0x100)), len(PROJECT.splitlines()) + 2)],
    ids=["saved as Latin-1", "binary"])
def test_a_dagster_yaml_that_is_not_utf8_is_named(tmp_path: Path, raw: bytes, line: int) -> None:
    """On `main` Dagster read it with a UnicodeDecodeError traceback (`python -m pipelines.run`, `dagster dev`), and
    `make ui`'s check said nothing."""
    (tmp_path / "dagster.yaml").write_bytes(raw)
    with pytest.raises(InstanceError) as raised:
        check_instance_config(tmp_path)
    message = str(raised.value)
    assert message.startswith(f"{tmp_path / 'dagster.yaml'}:{line}: not UTF-8") and "save the file as UTF-8" in message


def test_sound_classes_still_load(tmp_path: Path) -> None:
    """Guard: the project's dagster.yaml, and one adding a sound custom class with its config, pass."""
    check_instance_config(ROOT)
    (tmp_path / "dagster.yaml").write_text(
        PROJECT + "\nrun_coordinator:\n  module: dagster.core.run_coordinator\n  class: QueuedRunCoordinator\n"
                  "  config:\n    max_concurrent_runs: 2\n")
    check_instance_config(tmp_path)


def test_make_ui_says_it_before_dagster_dev(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    text, line, _ = BROKEN["a misspelt class"]
    (tmp_path / "dagster.yaml").write_text(text)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    assert instance_errors.main() == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path / 'dagster.yaml'}:{line}: ") and err.count("\n") == 1, err


def test_the_run_refuses_it_before_making_any_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    home.mkdir()
    text, line, _ = BROKEN["a misspelt class"]
    (home / "dagster.yaml").write_text(text.replace(".dagster/", f"{home}/"))
    taxonomy = tmp_path / "taxonomy"
    taxonomy.mkdir()
    shutil.copy(ROOT / "taxonomy" / "data.yaml", taxonomy)
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    monkeypatch.setenv("COWORKENV_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COWORKENV_TAXONOMY_DIR", str(taxonomy))
    monkeypatch.setenv("COWORKENV_HELD_OUT_CAPABILITY", "")
    monkeypatch.setenv("COWORKENV_SPECS_PER_CAPABILITY", "1")
    code = pipeline_main(["--no-train"])
    captured = capsys.readouterr()
    assert code == 2, captured.out + captured.err
    assert captured.err.startswith(f"error: {home / 'dagster.yaml'}:{line}: "), captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    assert not (home / "storage").exists() and not (tmp_path / "data").exists()  # no run made, nothing written
