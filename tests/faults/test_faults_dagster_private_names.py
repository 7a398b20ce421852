"""Fault corpus, a Dagster release that moved a name the pipeline takes from Dagster's private modules
(`dagster._core...`, `dagster._utils...`): dagster is not pinned (`dagster>=1.10`), and those modules change without
notice. Measured on `main` (each name deleted from the installed Dagster 1.13, then the code location's modules loaded
as `dagster dev` and `python -m pipelines.run` load them): an ImportError traceback naming no version and no remedy
(`cannot import name 'StringSourceType' from 'dagster._config.source'`); the run id and the interrupt watchdog's names
loaded without a word and failed when the first run started, after the checks; a renamed `_config_schema`, or a
Dagster that no longer builds the settings' schema from it, loaded without a word and would have stored a run config's
credential in clear; names with a public twin (`dg.Shape`, `dg.executor`) or needed for types only failed the load.
Now every private name is checked when the code location loads: one error naming each missing name, the installed
and the checked Dagster and what to do; `python -m pipelines.run` says it in one `error:` line (exit 1)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

import pipelines
from pipelines.run import main

# The modules of the code location that take names from Dagster's private modules, in the order they load.
MODULES = ("pipelines.dagster_internals", "pipelines.resources", "pipelines.executors", "pipelines.run_signals",
           "pipelines.run", "pipelines.distributed")


def _forget(monkeypatch: pytest.MonkeyPatch) -> None:
    """The modules of MODULES loaded afresh by the next import; every one put back as it was after the test."""
    for name in MODULES:
        monkeypatch.delitem(sys.modules, name, raising=False)
        short = name.rpartition(".")[2]
        if hasattr(pipelines, short):
            monkeypatch.setattr(pipelines, short, getattr(pipelines, short))


def _load(monkeypatch: pytest.MonkeyPatch) -> None:
    """Load the code location's modules as a new process would, and bind the settings as the Definitions do."""
    _forget(monkeypatch)
    for name in MODULES:
        if Path(*name.split(".")).with_suffix(".py").exists():
            importlib.import_module(name)
    sys.modules["pipelines.resources"].dagster_settings({})


def _remove(monkeypatch: pytest.MonkeyPatch, module: str, name: str) -> None:
    owner: Any = importlib.import_module(module)
    *path, last = name.split(".")
    for part in path:
        owner = getattr(owner, part)
    monkeypatch.delattr(owner, last)


MOVED = [
    ("dagster._config.source", "StringSourceType"),
    ("dagster._core.definitions.definition_config_schema", "DefinitionConfigSchema"),
    ("dagster._core.execution.retries", "RetryMode"),
    ("dagster._core.utils", "make_new_run_id"),
    ("dagster._utils.interrupts", "check_captured_interrupt"),
    ("dagster._utils.interrupts", "_replace_interrupt_signal"),
    ("dagster._config.pythonic_config.resource", "ConfigurableResourceFactory._config_schema"),
]


def _says_what_moved(message: str, name: str) -> None:
    assert name.rpartition(".")[2] in message, message
    assert f"dagster {dg.__version__}" in message, message  # the Dagster installed
    assert "pip install 'dagster==" in message, message  # what to do
    assert "no run was started" in message, message


@pytest.mark.parametrize(("module", "name"), MOVED, ids=[name for _, name in MOVED])
def test_a_moved_private_name_stops_the_load_saying_which(monkeypatch: pytest.MonkeyPatch, module: str,
                                                          name: str) -> None:
    _remove(monkeypatch, module, name)
    with pytest.raises(ImportError) as raised:
        _load(monkeypatch)
    _says_what_moved(str(raised.value), name)


def test_a_dagster_that_builds_the_settings_schema_without_the_override(monkeypatch: pytest.MonkeyPatch) -> None:
    """The private property still there, but no longer what Dagster builds a resource's schema from (a refactor):
    the credential check would be gone without a word."""
    from dagster._config.pythonic_config.resource import ConfigurableResourceFactory

    own = ConfigurableResourceFactory.__dict__["_config_schema"]
    build = ConfigurableResourceFactory.get_resource_definition

    def without_override(self: Any) -> Any:
        with monkeypatch.context() as patch:
            patch.setattr(type(self), "_config_schema", own)
            return build(self)

    monkeypatch.setattr(ConfigurableResourceFactory, "get_resource_definition", without_override)
    with pytest.raises(ImportError) as raised:
        _load(monkeypatch)
    _says_what_moved(str(raised.value), "_config_schema")
    assert "llm_url" in str(raised.value)


PUBLIC_OR_TYPES = {
    "names with a public twin (dg.Field, dg.Shape, dg.Selector, dg.ScalarUnion, dg.executor)": [
        ("dagster._config", "Field"), ("dagster._config", "Shape"), ("dagster._config", "Selector"),
        ("dagster._config", "ScalarUnion"), ("dagster._core.definitions.executor_definition", "executor")],
    "names used as types only": [
        ("dagster._core.instance.ref", "InstanceRef"), ("dagster._core.execution.plan.plan", "ExecutionPlan"),
        ("dagster._core.execution.context.system", "PlanOrchestrationContext")],
}


@pytest.mark.parametrize("names", PUBLIC_OR_TYPES.values(), ids=PUBLIC_OR_TYPES.keys())
def test_a_private_name_the_pipeline_needs_not_can_move(monkeypatch: pytest.MonkeyPatch,
                                                        names: list[tuple[str, str]]) -> None:
    for module, name in names:
        _remove(monkeypatch, module, name)
    _load(monkeypatch)


def test_the_run_says_it_in_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    _remove(monkeypatch, "dagster._config.source", "StringSourceType")
    _forget(monkeypatch)
    code = main(["--no-train"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    _says_what_moved(err, "StringSourceType")
