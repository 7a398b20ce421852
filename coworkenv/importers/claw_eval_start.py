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
or no JSON (every JSON-fixture service of Claw-Eval loads it as its module loads, with no fallback), or that its
loader raises on (`ServiceAdapter.load_fails`). What the runner decides from task.yaml's settings (`runner_plan`):
a service whose health check a service started before it answers is never started; one never ready (`ready_timeout`
0 or less, a health check at a port it does not listen on) or whose port an earlier one holds is an error.
"""

from __future__ import annotations

import ast
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from coworkenv.importers.claw_eval_routes import LOCAL_HOSTS, default_port
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
    """Each declared service whose process would exit before it serves, or that the runner stops as never ready
    (Claw-Eval: a `ServiceStartError`). A service the runner takes as already running (`not_started`) is never
    started, so neither its command nor its settings can fail the task."""
    root = services_root(task_dir)
    skipped, never_ready = runner_plan(task_dir, task)
    found = []
    for service in task.services:
        if service.name in skipped:
            continue
        why = _why_not_started(root, service.command) if root is not None else None
        why = why or never_ready.get(service.name)
        if why is not None:
            found.append(ServiceStartProblem(service.name, why))
    return found


def not_started(task_dir: Path, task: Any) -> dict[str, str]:
    """The services Claw-Eval's runner never starts, name -> why (see `runner_plan`)."""
    return runner_plan(task_dir, task)[0]


def runner_plan(task_dir: Path, task: Any) -> tuple[dict[str, str], dict[str, str]]:
    """What Claw-Eval's `ServiceManager` does with the task's services, in task.yaml's order: (those it never
    starts, name -> why; those it starts and stops as never ready or that exit at once, name -> why).

    Before starting a service it probes its health check: one that answers (any status under 500; a FastAPI
    service answers a path it does not serve 404) is taken as already running and never started, so its fixtures
    never load and its tools reach whatever listens at their URL. A started service's health check is polled for
    `ready_timeout` seconds (none when it is 0 or less); a process that cannot listen on its port (held by a service
    started before it) exits. A service listens on its environment's `PORT`: task.yaml's `port` when the runner
    shifts ports (`--port-offset`, which sets `PORT`), else its `env`'s `PORT` or its source's default. Only what
    both ways decide is reported; a port held by a process outside the task is not known here."""
    shifted = _plan(task, lambda s: s.port)
    plain = _plan(task, lambda s: _unshifted_port(task_dir, s))
    return ({n: why for n, why in shifted[0].items() if n in plain[0]},
            {n: why for n, why in shifted[1].items() if n in plain[1]})


def _unshifted_port(task_dir: Path, service: Any) -> int | None:
    """The port a service listens on when the runner sets no `PORT`: its `env`'s, else its source's default, else
    (a source not read) task.yaml's `port`."""
    port = str(service.env.get("PORT", ""))
    if port.isdigit():
        return int(port)
    return default_port(task_dir, service.command) or service.port


def _local_port(url: str) -> int | None:
    """The port a URL on this machine reaches (its scheme's where it names none); None for another host, or no URL."""
    try:
        parsed = urlparse(url)
        port = parsed.port or {"http": 80, "https": 443}.get(parsed.scheme)
    except ValueError:
        return None
    return port if parsed.hostname in LOCAL_HOSTS else None


def _plan(task: Any, listens: Callable[[Any], int | None]) -> tuple[dict[str, str], dict[str, str]]:
    """`runner_plan` with each service listening on `listens(service)`."""
    held: dict[int, str] = {}  # port -> the service started on it
    skipped: dict[str, str] = {}
    failing: dict[str, str] = {}
    for service in task.services:
        probed = _local_port(service.health_check) if service.health_check else None
        if probed is not None and probed in held:
            skipped[service.name] = (
                f"service '{service.name}' is never started: its health check {service.health_check} is answered by "
                f"service '{held[probed]}', started before it on port {probed}, so Claw-Eval's runner takes it as "
                "already running (runner/services.py); its fixtures are not loaded and its tools reach what listens "
                "at their URL, as there")
            continue
        port = listens(service)
        if port is not None and port in held:
            failing[service.name] = (f"its port {port} is held by service '{held[port]}', started before it (whose "
                                     "health check does not answer for it): the process cannot listen there and exits")
        elif service.ready_timeout <= 0:
            failing[service.name] = (f"its ready_timeout is {service.ready_timeout}: the runner polls its health check "
                                     f"for no time at all and stops it (`did not become ready within "
                                     f"{service.ready_timeout}s`)")
        elif probed is not None and port is not None and probed != port:
            failing[service.name] = (f"its health check {service.health_check} is at port {probed}, where nothing "
                                     f"listens when it starts (it listens on {port}): never answered, the runner stops "
                                     f"it after its ready_timeout ({service.ready_timeout}s)")
        elif port is not None:
            held[port] = service.name
    return skipped, failing


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
    what = "is not in the checkout (read from the checkout's root, where the runner starts the service)" \
        if not path.is_file() else f"is no JSON it reads ({exc})"
    return ServiceStartProblem(service, f"the fixture it loads as it starts, {shown}, {what}")
