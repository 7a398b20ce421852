"""The names the pipeline takes from Dagster's private modules, and the error when an installed Dagster lacks one.

dagster is not pinned (pyproject: `dagster>=1.10`), and its private modules (`dagster._core...`) change between
releases without notice. A release that moved one of these names stopped `python -m pipelines.run` with an
ImportError traceback, or later: the run id and the interrupt watchdog were imported when the first run started,
after the checks; and a renamed `_config_schema` would have let a run config's credential through into Dagster's run
storage without a word. `pipelines.dagster_internals` checks every name here when the code location loads (before any
run) and raises DagsterInternalsError naming each one missing and what to do.

This module imports no Dagster module when it is imported: the run's entry point catches its error.
"""

from __future__ import annotations

import importlib
from importlib import metadata

# The Dagster release (major.minor) the names below were last checked against.
TESTED_DAGSTER = "1.13"

# (module, attribute path in it, what the pipeline uses it for)
PRIVATE_NAMES: tuple[tuple[str, str, str], ...] = (
    ("dagster._config.source", "StringSourceType",
     "the run config's credential check, pipelines/resources.py"),
    ("dagster._core.definitions.definition_config_schema", "DefinitionConfigSchema",
     "the run config's credential check, pipelines/resources.py"),
    ("dagster", "ConfigurableResource._config_schema",
     "the run config's credential check (the settings resource's schema), pipelines/resources.py"),
    ("dagster._core.execution.retries", "RetryMode", "the Dask executor, pipelines/executors.py"),
    ("dagster._core.utils", "make_new_run_id", "each run's id, pipelines/run.py"),
    ("dagster._utils.interrupts", "check_captured_interrupt",
     "the interrupt watchdog of each run, pipelines/run_signals.py"),
    ("dagster._utils.interrupts", "_replace_interrupt_signal",
     "signals ignored while a run starts, pipelines/run_signals.py"),
    ("dagster._serdes.config_class", "ConfigurableClassData",
     "dagster.yaml's classes loaded before a run, pipelines/instance_classes.py"),
    ("dagster._config", "process_config", "dagster.yaml's class configs checked before a run, pipelines/instance_classes.py"),
    ("dagster._config", "resolve_to_config_type",
     "dagster.yaml's class configs checked before a run, pipelines/instance_classes.py"),
)


# The release of dagster-dask (major.minor) whose names below the Dask executor was last checked against; its
# versions track Dagster's (0.29 with 1.13).
TESTED_DAGSTER_DASK = "0.29"

# The names the Dask executor (pipelines/executors.py) takes from dagster-dask and dask.distributed, imported only
# when a run ships its steps to a cluster: (module, attribute path, what for). `query_on_dask_worker` and
# `get_dask_resource_requirements` are public but in no `__all__`, and dagster-dask is not pinned to a release.
DASK_NAMES: tuple[tuple[str, str, str], ...] = (
    ("dagster_dask.executor", "query_on_dask_worker", "runs each step on a Dask worker"),
    ("dagster_dask.executor", "get_dask_resource_requirements", "each step's Dask resources"),
    ("dask.distributed", "Client", "the connection to the scheduler"),
    ("dask.distributed", "as_completed", "each step's events as it ends"),
)


class DagsterInternalsError(ImportError):
    """The installed Dagster lacks a private name the pipeline uses: which names, which Dagster, what to do."""


def _resolves(module: str, path: str) -> bool:
    try:
        value: object = importlib.import_module(module)
    except ImportError:
        return False
    for part in path.split("."):
        if not hasattr(value, part):
            return False
        value = getattr(value, part)
    return True


def dagster_version() -> str:
    try:
        return metadata.version("dagster")
    except metadata.PackageNotFoundError:
        return "(version unknown)"


def missing_private_names() -> list[str]:
    """`module.name (what for)` for each private name of PRIVATE_NAMES the installed Dagster lacks."""
    return [f"{module}.{path} ({use})" for module, path, use in PRIVATE_NAMES if not _resolves(module, path)]


def check_private_names() -> None:
    """DagsterInternalsError naming every private name the installed Dagster lacks, and what to do."""
    missing = missing_private_names()
    if not missing:
        return
    new_places = advice("point pipelines/dagster_internals.py at the names' new places")
    raise DagsterInternalsError(
        f"dagster {dagster_version()} lacks {len(missing)} private name(s) the pipeline uses (checked against "
        f"dagster {TESTED_DAGSTER}): {'; '.join(missing)}. {new_places}")


def check_dask_names(why: str) -> None:
    """DagsterInternalsError naming every name of DASK_NAMES that dagster-dask or dask.distributed (not installed, or
    of another release) lacks; `why` says what asked for the Dask executor (a setting, a command)."""
    missing = [f"{module}.{path} ({use})" for module, path, use in DASK_NAMES if not _resolves(module, path)]
    if not missing:
        return
    try:
        installed = f"dagster-dask {metadata.version('dagster-dask')}"
    except metadata.PackageNotFoundError:
        installed = "dagster-dask (not installed)"
    raise DagsterInternalsError(
        f"{why} runs each step on a Dask cluster, but {installed} lacks {len(missing)} name(s) the Dask executor uses "
        f"(checked against dagster-dask {TESTED_DAGSTER_DASK}): {'; '.join(missing)}. Install the release it was "
        f"checked against (pip install 'dagster-dask=={TESTED_DAGSTER_DASK}.*' 'distributed'), or run without the "
        "cluster; no run was started")


def advice(adapt: str) -> str:
    """What to do about a Dagster the pipeline was not checked against: install the one it was, or `adapt`."""
    return (f"Install the release it was checked against (pip install 'dagster=={TESTED_DAGSTER}.*' "
            f"'dagster-webserver=={TESTED_DAGSTER}.*'), or {adapt}; no run was started")
