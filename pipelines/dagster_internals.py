"""Every private Dagster name the pipeline uses, imported here once, after `check_private_names` (see
`pipelines.dagster_private`): an installed Dagster that moved one stops the code location's load with one error
naming each, not an ImportError traceback, nor a failure when the first run starts."""

from __future__ import annotations

from pipelines.dagster_private import check_private_names

check_private_names()

# Checked above: these resolve (the order of the checks and the imports is the point, hence E402).
from dagster._config.source import StringSourceType  # noqa: E402
from dagster._core.definitions.definition_config_schema import DefinitionConfigSchema  # noqa: E402
from dagster._core.execution.retries import RetryMode  # noqa: E402
from dagster._core.utils import make_new_run_id  # noqa: E402
from dagster._utils import interrupts  # noqa: E402
from dagster._utils.interrupts import check_captured_interrupt  # noqa: E402

__all__ = ["DefinitionConfigSchema", "RetryMode", "StringSourceType", "check_captured_interrupt", "interrupts",
           "make_new_run_id"]
