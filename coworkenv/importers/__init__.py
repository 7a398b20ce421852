"""Importers: tasks of other benchmarks as coworkenv specs, with a report of what could not be carried over."""

from coworkenv.importers.claw_eval import (
    ERROR,
    FULL_JUDGE,
    STATUSES,
    ImportProblem,
    TaskImport,
    import_checkout,
    import_task,
)

__all__ = ["ERROR", "FULL_JUDGE", "STATUSES", "ImportProblem", "TaskImport", "import_checkout", "import_task"]
