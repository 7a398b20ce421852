"""Whether Claw-Eval's runner can start a task's mock services, read from the checkout (never run).

Claw-Eval's `ServiceManager` (`runner/services.py`) starts every service task.yaml declares, from the checkout's root,
before the episode: `python <script>` (its own interpreter for `python`/`python3`) with the service's `env`. A process
that exits before its health check answers is a `ServiceStartError`; `cli.py` then records the task as an error with
no trials (`{"error": ..., "trials": []}`), prints it as `ERROR`, counts it under `Errored` and runs it again with
`--rerun-errors`. Such a task has no score there, so its import gets none either: status `error`, no spec, a note
naming the service and why (the import of the checkout, run again, tries it again).

What exits at once: a command that is empty or does not parse, a script (or `-m` module) the checkout does not hold,
a script that does not compile (`start_problems`: read only where the checkout is Claw-Eval's own layout with its
services' source, `mock_services/_base.py`, which every service imports; a lone task folder or a stand-in checkout
says nothing of whether a command starts), and (`fixture_problem`) a JSON fixture the service loads that is absent
or no JSON (every JSON-fixture service of Claw-Eval loads it as its module loads, with no fallback).
"""

from __future__ import annotations

import ast
import shlex
from pathlib import Path
from typing import Any

from coworkenv.importers.claw_eval_task import ImportProblem

PYTHONS = ("python", "python3")
_OPTIONS_WITH_VALUE = ("-W", "-X")


class ServiceStartProblem(ImportProblem):
    """A service of the task that Claw-Eval's runner could not start: the task is an error there, not a score."""

    def __init__(self, service: str, why: str) -> None:
        super().__init__(f"service '{service}' would not start: {why}")
        self.service = service


def services_root(task_dir: Path) -> Path | None:
    """The checkout root Claw-Eval's runner starts the task's services from, where it holds their source."""
    root = task_dir.resolve().parent.parent
    return root if (root / "mock_services" / "_base.py").is_file() else None


def start_problems(task_dir: Path, task: Any) -> list[ServiceStartProblem]:
    """Each declared service whose process would exit before it serves (Claw-Eval: a `ServiceStartError`)."""
    root = services_root(task_dir)
    if root is None:
        return []
    found = []
    for service in task.services:
        why = _why_not_started(root, service.command)
        if why is not None:
            found.append(ServiceStartProblem(service.name, why))
    return found


def _why_not_started(root: Path, command: str) -> str | None:
    try:
        parts = shlex.split(command)
    except ValueError as exc:
        return f"its command {command!r} does not parse ({exc})"
    if not parts:
        return "it has no command to run (task.yaml's `command` is empty)"
    if Path(parts[0]).name not in PYTHONS:
        return None  # another program: whether it starts is not read
    target = _target(parts[1:])
    if target is None:
        return None  # `python -c ...`, or no script: not read
    kind, name = target
    candidates = [root / name] if kind == "script" else [
        root / Path(*name.split(".")).with_suffix(".py"), root / Path(*name.split(".")) / "__main__.py"]
    path = next((c for c in candidates if c.is_file()), None)
    if path is None:
        what = name if kind == "script" else f"the module {name}"
        return f"its command `{command}` runs {what}, which the checkout does not hold (python exits at once, rc 2)"
    try:
        ast.parse(path.read_bytes(), filename=str(path))
    except SyntaxError as exc:
        return f"its source {path.relative_to(root) if path.is_relative_to(root) else path} does not compile " \
               f"({exc.msg}, line {exc.lineno}): python exits at once"
    except (ValueError, RecursionError) as exc:
        return f"its source {path.name} does not compile ({exc})"
    except OSError as exc:
        return f"its source {path.name} does not read ({exc.strerror})"
    return None


def _target(args: list[str]) -> tuple[str, str] | None:
    """What `python ARGS` runs: ("script", path) or ("module", name); None for `-c` or nothing."""
    skip = False
    for n, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg == "-m":
            return ("module", args[n + 1]) if n + 1 < len(args) else None
        if arg == "-c":
            return None
        if arg in _OPTIONS_WITH_VALUE:
            skip = True
            continue
        if arg.startswith("-"):
            continue
        return "script", arg
    return None


def fixture_problem(service: str, path: Path, shown: Path, exc: Exception) -> ServiceStartProblem:
    """A JSON fixture the service loads as it starts that does not read: the service exits before it serves."""
    what = "is not in the checkout" if not path.is_file() else f"is no JSON it reads ({exc})"
    return ServiceStartProblem(service, f"the fixture it loads as it starts, {shown}, {what}")
