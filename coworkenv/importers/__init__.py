"""Importers: tasks of other benchmarks as coworkenv specs, with a report of what could not be carried over."""

from coworkenv.importers.claw_eval import ImportProblem, TaskImport, import_checkout, import_task

__all__ = ["ImportProblem", "TaskImport", "import_checkout", "import_task"]
