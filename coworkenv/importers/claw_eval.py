"""Import tasks in Claw-Eval's layout (`tasks/<ID>/task.yaml`, `grader.py`, `fixtures/`) as EnvSpecs.

Fixtures become world records, the task's tools become spec-declared tools (their names and JSON Schemas kept
exactly), and the task's deterministic scoring components and safety checks become checks. What cannot be
carried over (an LLM judge when the import has none, the real web, multimodal input, unknown services or
arguments) is reported per task. With a judge (`judge=True`), a task whose grader asks its LLM judge is scored by
that grader, which asks the judge configured at scoring time: status `full (judge)`. A `reference.json` beside task.yaml (a coworkenv extension: `[{"call": {...}} | {"say": "..."}]`) becomes
the reference solution; without it the spec has none and the oracle gate fails.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import ValidationError

from coworkenv.apps import APPS, TOOLS
from coworkenv.atomic import atomic_write_bytes, folder_lock
from coworkenv.bindings import ArgBinding, Binding, Cut, ResultShape, ToolDecl, shaped_keys
from coworkenv.importers.claw_eval_adapter import ToolMap
from coworkenv.importers.claw_eval_attachments import attachments
from coworkenv.importers.claw_eval_grading import NOT_CLAW_EVAL_FORM, grader_rule
from coworkenv.importers.claw_eval_prompt import claw_eval_system_prompt
from coworkenv.importers.claw_eval_records import RecordMap
from coworkenv.importers.claw_eval_routes import (
    REQUIRED,
    default_fixture,
    handler_answers,
    handler_counts_whole,
    handler_reads,
    refused_methods,
    request_fields,
    request_models,
    tool_endpoints,
    unreachable_tools,
    unserved_error,
    unserved_tools,
)
from coworkenv.importers.claw_eval_services import ServiceAdapter, adapter_for, by_endpoint, unsupported_reason
from coworkenv.importers.claw_eval_start import (
    ServiceStartProblem,
    fixture_problem,
    not_started,
    services_root,
    start_problems,
)
from coworkenv.importers.claw_eval_task import ClawCheck, ClawTask, ClawTool, ImportProblem, load_task
from coworkenv.importers.claw_eval_user import reference_note, simulated_user, suffix_of
from coworkenv.importers.spec_file_names import (
    IMPORTED_BY,
    REPORT_NAME,
    SPEC_SUFFIX,
    earlier_spec_files,
    remove_stale_specs,
    report_folder_problem,
    spec_file_key,
    spec_file_problem,
)
from coworkenv.limits import MAX_STEPS
from coworkenv.request_models import Document, Framework, Refusal, RequestField
from coworkenv.spec import EnvSpec
from coworkenv.world import format_time, parse_time

USER_ID = "u-user"
# Claw-Eval's services place their mail and events relative to their clock as they load, and the agent's first
# call comes after that, so a record a whole number of days before that clock is always past the edge of a
# `days_back` window: the world starts a second after the clock the imported records are placed from.
LOADED_BEFORE_START_S = 1
SAFETY_WEIGHT = 0.001  # a safety check gates the score; its own weight only needs to be negligible
_KEYWORDS_CODE = """
def check(state, audit, messages):
    text = " ".join(m["text"] for m in messages).lower()
    missing = [k for k in KEYWORDS if k.lower() not in text]
    return {"passed": not missing, "reason": "the replies do not mention " + ", ".join(missing)}
"""
_MIN_LENGTH_CODE = """
def check(state, audit, messages):
    n = len(" ".join(m["text"] for m in messages))
    return {"passed": n >= MIN_LENGTH, "reason": f"the replies have {n} characters, fewer than {MIN_LENGTH}"}
"""


# What an imported spec's `context` carries (`import_task`'s `system_prompt`): Claw-Eval's system prompt for the task,
# or only this line.
SystemPrompt = Literal["claw-eval", "env"]
SYSTEM_PROMPTS: tuple[SystemPrompt, ...] = ("claw-eval", "env")
ENV_CONTEXT = "Imported from a Claw-Eval task; the tools are the task's own."
# `full (judge)`: nothing left out, but scored by a grader that asks an LLM judge (configured when scoring).
FULL_JUDGE: Literal["full (judge)"] = "full (judge)"
# `error`: a mock service of the task would not start under Claw-Eval's runner, which records the task as an error
# with no trials (no score, in no summary; run again with --rerun-errors): no spec, the service and why in the notes.
ERROR: Literal["error"] = "error"
Status = Literal["full", "full (judge)", "partial", "skipped", "error"]
STATUSES: tuple[Status, ...] = ("full", FULL_JUDGE, "partial", "skipped", ERROR)
# what an errored task's report says after the service's own reason
ERRORED = ("Claw-Eval's runner cannot start it (a ServiceStartError: the task is an error with no trials there, left "
           "out of its scores, run again with --rerun-errors), so no spec is written and no episode scored; fix it "
           "and import again")


@dataclass
class TaskImport:
    """What became of one task: `full`, `full (judge)` (scored by its grader and an LLM judge), `partial`
    (something left out), `skipped` or `error` (a mock service that would not start), and why."""

    task_id: str
    status: Status
    spec_file: str | None = None
    left_out: list[dict[str, Any]] = field(default_factory=list)  # what, why, affects_score
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def absent_files(task_dir: Path, task: ClawTask) -> list[str]:
    """The files the task names (`sandbox_files`, `prompt.attachments`) that the checkout does not hold, each as
    named with its kind: looked for under the task folder (where Claw-Eval's runner copies them from) and under
    the checkout's root (some tasks name `tasks/<other task>/fixtures/...`). The public repository holds a task's
    task.yaml and grader.py only: T097's `fixtures/docs/GPT4.pdf`, the OfficeQA bulletins, the videos of M015..."""
    roots = [task_dir.resolve(), task_dir.resolve().parent.parent]
    out = []
    for kind, names in (("sandbox_files", task.sandbox_files), ("prompt.attachments", task.prompt.attachments)):
        for name in names:
            if not any((root / name).resolve().is_relative_to(root) and (root / name).is_file() for root in roots):
                out.append(f"{name} ({kind})")
    return out


def import_task(task_dir: Path, error_rate: float | None = None, judge: bool = False,
                system_prompt: SystemPrompt = "claw-eval") -> tuple[EnvSpec | None, TaskImport]:
    """One task as an EnvSpec (None when skipped) and the report of what was left out.

    `system_prompt`: what the spec's `context` (the env's system text) carries: `claw-eval`, the system prompt
    Claw-Eval's runner gives the task's agent (its persona, the tools with their schemas, its rules on tool calls and
    replies: `claw_eval_prompt`), sent alone as the agent's one system message (`source_prompt`), as there; `env`, one
    line saying the task is imported, after the env's own system messages.

    Claw-Eval's mock services inject errors at a rate `ERROR_RATE` (a service's env in task.yaml, else
    `error_rate`): 35% of them 429, 35% 500, 30% slow. They become the spec's seeded fault plan. With `judge`, a
    grader that asks its LLM judge is run too (its check asks the judge configured when scoring).
    """
    _known_system_prompt(system_prompt)
    task = load_task(task_dir)
    failing = start_problems(task_dir, task)
    if failing:
        return None, errored(task.task_id, failing)
    silent = _never_called(task)
    if silent is not None:
        return None, TaskImport(task.task_id, "skipped", left_out=[{"what": silent[0], "why": silent[1],
                                                                    "affects_score": True}], notes=[silent[1]])
    left: list[dict[str, Any]] = []
    notes: list[str] = []
    unstarted = not_started(task_dir, task)  # taken as already running by the runner: never started, its fixtures never read
    if unstarted:
        notes.extend(unstarted.values())
        task = task.model_copy(update={"services": [s for s in task.services if s.name not in unstarted]})

    def leave(what: str, why: str, affects_score: bool = True) -> None:
        left.append({"what": what, "why": why, "affects_score": affects_score})

    shown = attachments(task_dir, task.prompt.text, task.prompt.attachments)
    if shown.media:
        leave("prompt.attachments", f"multimodal input: {', '.join(shown.media)} (images, audio or video, shown to a "
              "model that takes them)")
    if shown.unread:
        leave("prompt.attachments", f"{', '.join(shown.unread)}: outside the checkout and the task folder, not read "
              "(Claw-Eval's runner appends such a document to the prompt)")
    if shown.blocks:
        notes.append(f"{len(shown.blocks)} text document(s) the prompt names appended to it, each as "
                     "`[attached document: NAME]` and its text, as Claw-Eval's runner shows them to its text model")
    if shown.dropped:
        notes.append(f"files the prompt names that Claw-Eval's runner drops (its agent never sees them; the imported "
                     f"prompt has none of them either): {', '.join(shown.dropped)}")
    absent = absent_files(task_dir, task)
    if absent:
        notes.append(f"files the task names are absent from the checkout: {', '.join(absent)}, looked for under the "
                     f"task folder {task_dir.name}/ and the checkout's root; a run of Claw-Eval from this checkout "
                     "lacks them too (its documents service answers 404 File not found): put them in the task folder "
                     "to give the task its input")
    for flag, own in (("enable_todo", "todo"), ("enable_compact", "compact")):
        if getattr(task.environment, flag):
            leave(f"environment.{flag}", f"Claw-Eval's harness offers the agent its own `{own}` tool, answered in its "
                  "loop and never sent to a service (runner/agent_tools.py): the imported env does not offer it, and "
                  "a call of it is answered as an unknown tool", affects_score=False)
    simulated = simulated_user(task.user_agent, notes, leave)
    if not task.tools and (simulated is None or task.sandbox_files):  # a simulated user's task may be talk alone
        why = "code sandbox task (files and a terminal)" if task.sandbox_files else "no service tools to act with"
        leave("tools", why)
    adapters: dict[str, ServiceAdapter] = {}
    for service in task.services:
        adapter = adapter_for(service.name, service.command)
        sharing = next((a.name for a in adapters.values() if adapter is not None and a.app == adapter.app
                        and not (a.tag and adapter.tag and a.tag != adapter.tag)), None)
        if adapter is None:
            leave(f"services.{service.name}", unsupported_reason(service.name))
        elif sharing is not None:  # two services in one app table would show each other's records
            leave(f"services.{service.name}", f"it would share the {adapter.app} app with service {sharing}")
        else:
            adapters[service.name] = adapter
    # services whose handler refuses every call the task can make but those of the files it serves
    refusing: dict[str, tuple[list[Refusal], list[Document]]] = {}
    for name, adapter in list(adapters.items()):
        if adapter.refusals is not None:
            found = adapter.refusals(task_dir, next(s for s in task.services if s.name == name).env)
            if isinstance(found, str):
                leave(f"services.{name}", found)
                del adapters[name]
            else:
                refusing[name] = found
    raw_fixtures: dict[str, list[Any]] = {}
    try:
        apps = _world_apps(task_dir, task, adapters.values(), notes, leave, raw_fixtures)
    except ServiceStartProblem as exc:
        return None, errored(task.task_id, [exc])
    held = {a.name: {i: r for data in raw_fixtures.get(a.name, []) for i, r in a.held(data).items()}
            for a in adapters.values()}
    # the app's records as the import made them, by id: where the app shows a held record's field otherwise
    rows = {a.name: {str(row["id"]): row for data in raw_fixtures.get(a.name, []) for table in a.records(data).values()
                     for row in table if "id" in row} for a in adapters.values()}
    decls: list[ToolDecl] = []
    unserved, models = unserved_tools(task_dir, task), request_models(task_dir, task)
    refused = refused_methods(task_dir, task)  # a route served by another method than the endpoint sends: a 405
    routed = {e.tool_name for e in task.tool_endpoints}  # a tool without an endpoint is unknown to the dispatcher
    unreachable = unreachable_tools(task)  # an endpoint at a port no service listens on: no connection
    requests, endpoints, reads = request_fields(task_dir, task), tool_endpoints(task), handler_reads(task_dir, task)
    whole, answers = handler_counts_whole(task_dir, task), handler_answers(task_dir, task)
    for tool in task.tools:
        owner = adapters.get(unserved[tool.name][0]) if tool.name in unserved else \
            adapters.get(refused[tool.name][0]) if tool.name in refused else None
        error = unserved_error(*unserved[tool.name]) if tool.name in unserved else \
            refused[tool.name][2] if tool.name in refused else ""
        if (tool.name not in routed and task.tool_endpoints and owner is None) or tool.name in unreachable:
            decl = _no_endpoint_decl(tool, adapters.values(), notes, unreachable.get(tool.name))
            if decl is not None:
                decls.append(decl)
                continue
        refuser = _refuser(tool, [adapters[n] for n in refusing], endpoints, bool(task.tool_endpoints)) \
            if owner is None else None
        if refuser is not None:
            decls.append(_refused_decl(tool, refuser, *refusing[refuser.name], requests.get(tool.name), notes))
            continue
        decl = _tool_decl(tool, adapters.values(), leave, models.get(tool.name), notes, held, rows,
                          requests.get(tool.name), endpoints.get(tool.name), reads.get(tool.name, set()),
                          whole.get(tool.name), answers.get(tool.name, [])) \
            if owner is None else _unserved_decl(tool, owner, error, notes, tool.name in refused)
        if decl is not None:
            decls.append(decl)
    declared = {d.name for d in decls}
    grader = grader_rule(task_dir, task, raw_fixtures, judge, {
        d.name: d.bind.framework.refusals for d in decls if d.bind.framework is not None and d.bind.framework.refusals},
        [d.name for d in decls if d.bind.framework is not None and d.bind.framework.documents])
    judged = isinstance(grader, dict) and bool(grader.get("judge"))
    if isinstance(grader, dict):  # Claw-Eval scores with grader.py alone: its declared components are not read
        checks = [{"id": "grader", "weight": 1.0, "rule": grader, "safety": False,
                   "description": "Claw-Eval's grader.py over the episode (sandboxed): its task score"}]
        notes.append("scored by the task's own grader.py, run in the sandbox" + (
            "; it asks its LLM judge, through the sandbox's judge channel, the judge configured when scoring "
            "($COWORKENV_JUDGE_URL)" if judged else ""))
    else:
        checks = _checks(task, declared, leave, notes)
        if grader == NOT_CLAW_EVAL_FORM:  # the declared components are the task's scoring
            notes.append(f"{grader}: the task's declared components were translated")
        else:
            leave("grader.py", f"not run: {grader}; the task's declared components were translated instead")
    missing = [x["what"] for x in left if x["what"] == "tools" or (x["what"].count(".") == 1 and x["what"].startswith(
        ("services.", "tools."))) or x["what"] in ("user_agent", "prompt.attachments")]
    # translated components check the replies' words (python) or the calls made (called): replies alone score
    # nothing the agent did (the validator's reads_state gate), as T074's keywords and length without its judge
    acting = [c for c in checks if not c["safety"] and (isinstance(grader, dict) or _kind(c) != "python")]
    if missing or not acting:
        why = f"the task needs what cannot be imported: {', '.join(missing)}" if missing else \
            "no deterministic check is left to score it" if not any(not c["safety"] for c in checks) else \
            "the deterministic checks left read only the replies, nothing the agent did (its grader's judge scores " \
            "the rest: import it with --judge)"
        return None, TaskImport(task.task_id, "skipped", left_out=left, notes=[*notes, why])
    if task.judge_rubric and not isinstance(grader, dict):
        leave("judge_rubric", "LLM judge: not deterministic")
    reference = _reference(task_dir, leave)
    if simulated is not None and reference:
        notes.append(reference_note(reference))
    context = claw_eval_system_prompt([t for t in task.tools if t.name in declared]) \
        if system_prompt == "claw-eval" else ENV_CONTEXT
    suffix = suffix_of(task.user_agent) if simulated is not None else ""
    spec = EnvSpec.model_validate({
        "capability": re.sub(r"[^a-z0-9_]+", "_", f"claw_eval_{task.task_id}".lower()),
        "user": USER_ID,
        # with a simulated user, its `system_prompt_suffix` after the runner's prompt, as the loop appends it
        "context": f"{context}\n\n{suffix}" if suffix else context,
        "simulated_user": simulated,
        # Claw-Eval's agent gets its runner's prompt as its one system message, then the task's prompt
        "source_prompt": system_prompt == "claw-eval",
        "world": {"start": _start(apps, raw_fixtures.get("gmail", []), raw_fixtures.get("calendar", [])),
                  "tick_s": 30, "apps": apps},
        "tools": [], "tool_decls": [d.model_dump(mode="json") for d in decls],
        "faults": _faults(task, adapters, error_rate, _unreached(task, decls)),
        # as the loop sends it (a YAML block's last newline too), the text documents it attaches after it
        "turns": [{"content": shown.message(task.prompt.text)}],
        # Claw-Eval's loop stops after `max_turns` model calls (the tool calls of the last are dispatched) and grades
        "max_steps": min(task.environment.max_turns, MAX_STEPS),
        # ... or once its wall clock, checked before each model call, is past `timeout_seconds` (above 0 here)
        "time_limit_s": task.environment.timeout_seconds,
        "checks": checks, "reference": [{"steps": reference}],
        "metadata": {"title": task.task_name or task.task_id, "apps": sorted({a.app for a in adapters.values()}),
                     "generator": IMPORTED_BY, "tags": ["claw-eval", task.category, *task.tags]},
    })
    status: Status = "partial" if any(x["affects_score"] for x in left) else FULL_JUDGE if judged else "full"
    return spec, TaskImport(task.task_id, status, left_out=left, notes=notes)


def _known_system_prompt(system_prompt: str) -> None:
    if system_prompt not in SYSTEM_PROMPTS:
        raise ImportProblem(f"system_prompt {system_prompt!r} is not one of {', '.join(SYSTEM_PROMPTS)}")


def _never_called(task: ClawTask) -> tuple[str, str] | None:
    """The setting under which Claw-Eval's loop never calls the model, and why: it calls it while the turn count is
    under `max_turns` and, checked before each call, the loop's elapsed wall clock is not over `timeout_seconds`
    (`runner/loop.py`); with 0 turns, or a wall clock of 0 s or less (already past), it stops before the first and
    grades an episode without an assistant message, whatever the model. No env gives its agent no turn: the task is
    skipped, saying so."""
    env = task.environment
    setting = "environment.max_turns" if env.max_turns < 1 else \
        "environment.timeout_seconds" if env.timeout_seconds <= 0 else None
    if setting is None:
        return None
    value = env.max_turns if env.max_turns < 1 else env.timeout_seconds
    return setting, (f"{setting} is {value}: Claw-Eval's loop never calls the model (it stops before the first call "
                     "and grades an episode without an assistant message, the same score whatever the model); an "
                     "imported env would give the agent turns Claw-Eval never gives")


def errored(task_id: str, problems: Sequence[ServiceStartProblem]) -> TaskImport:
    """The report of a task a mock service of which would not start: an error, naming the task and each service."""
    return TaskImport(task_id, ERROR, notes=[f"{task_id}: {p}; {ERRORED}" for p in problems])


def _kind(check: dict[str, Any]) -> Any:
    rule = check.get("rule")
    return rule.get("kind") if isinstance(rule, dict) else None


# The answers of Claw-Eval's error injection middleware (`mock_services/_base.py`), as the agent sees them.
FAULT_BODIES = {
    "429": {"error": "rate_limit_exceeded", "message": "Too many requests. Please retry after a short delay.",
            "retry_after_seconds": 2},
    "500": {"error": "internal_server_error", "message": "An unexpected error occurred. Please try again."}}


def _unreached(task: ClawTask, decls: list[ToolDecl]) -> list[str]:
    """The tools whose calls never reach a service's error middleware (`mock_services/_base.py`), so never get an
    injected error: those the dispatcher answers itself (no endpoint, a port no service is on) and those it sends by
    another method than POST (the middleware passes them on)."""
    methods = {e.tool_name: e.method.upper() for e in task.tool_endpoints}
    framework = {d.name: d.bind.framework for d in decls}
    return sorted(name for name, f in framework.items() if (f is not None and (f.no_endpoint or f.unreachable))
                  or methods.get(name, "POST") != "POST")


def _faults(task: ClawTask, adapters: dict[str, ServiceAdapter], error_rate: float | None,
            unreached: Sequence[str] = ()) -> dict[str, Any] | None:
    rules: list[dict[str, Any]] = []
    for name, adapter in adapters.items():
        service = next(s for s in task.services if s.name == name)
        rate = float(service.env.get("ERROR_RATE", error_rate or 0.0))
        if not 0.0 <= rate <= 1.0:
            raise ImportProblem(f"services.{name}.env.ERROR_RATE: {rate} is not a rate between 0 and 1")
        if rate > 0:
            rules.append({"app": adapter.app, "rate_429": round(0.35 * rate, 6), "rate_500": round(0.35 * rate, 6),
                          "slow": round(0.3 * rate, 6)})
    if rules:  # the first rule that covers a call applies: a tool no middleware sees gets none of the app's errors
        rules = [{"tool": name} for name in unreached] + rules
    seed = int.from_bytes(task.task_id.encode()[:8].ljust(8, b"\0"), "big") % 2**31
    # answered as Claw-Eval's error middleware answers (mock_services/_base.py), a slow one 2 to 4 s late there
    return {"seed": seed, "rules": rules, "slow_s": 3, "retry_after_s": 2, "bodies": FAULT_BODIES} if rules else None


def _world_apps(task_dir: Path, task: ClawTask, adapters: Any, notes: list[str], leave: Any,
                raw_fixtures: dict[str, list[Any]]) -> dict[str, Any]:
    """The world's app tables from the services' fixtures; `raw_fixtures` gets each file as read, per service."""
    apps: dict[str, Any] = {}
    user_email = "user@company.com"
    for adapter in adapters:
        for path, data in _fixtures(task_dir, task, adapter):
            raw_fixtures.setdefault(adapter.name, []).append(data)
            try:
                tables = adapter.records(data)
            except ValueError as exc:
                raise ImportProblem(f"{path}: {exc}") from None
            for table, rows in tables.items():
                _check_rows(path, adapter.app, table, rows)
                held = apps.setdefault(adapter.app, {}).setdefault(table, [])
                held.extend(r for r in rows if r not in held)  # a fixed row (a to-do list) comes once per file
            # A task may read another task's fixture (its service's env names that file): named from the checkout.
            shown = _shown(path, task_dir)
            notes.append(f"fixture {shown} -> {adapter.app}")
            if isinstance(adapter.records, RecordMap):
                _report_unheld(adapter, adapter.records, data, notes, leave)
    inbox = [m for m in apps.get("mail", {}).get("messages", []) if m["folder"] == "inbox" and len(m["to"]) == 1]
    if inbox:
        # ties go to the first in the fixture's order (over a set they went by the run's string hashes: T159/T160's
        # user was all-staff@ or support@ from one import to the next)
        user_email = max(dict.fromkeys(m["to"][0] for m in inbox), key=lambda a: sum(m["to"][0] == a for m in inbox))
    apps["directory"] = {"people": [{"id": USER_ID, "name": "User", "email": user_email, "team": "t-user",
                                     "role": "Employee"}],
                         "teams": [{"id": "t-user", "name": "Team", "lead": USER_ID}]}
    return apps


def _check_rows(path: Path, app: str, table: str, rows: list[dict[str, Any]]) -> None:
    """Every row must be a valid record of the app table: ImportProblem naming the fixture record and field."""
    model = APPS[app].tables[table]
    for n, row in enumerate(rows):
        try:
            model.model_validate(row)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise ImportProblem(f"{path}: record {n} ({row.get('id')}): {app}.{table}.{where}: {err['msg']}; "
                                "fix the fixture value or the service adapter's mapping") from None


def _report_unheld(adapter: ServiceAdapter, record_map: RecordMap, data: Any, notes: list[str], leave: Any) -> None:
    unheld = record_map.unheld(data)
    if unheld and record_map.fold_into:
        notes.append(f"fixture fields {', '.join(unheld)} of {adapter.name} are lines of "
                     f"{adapter.app}.{record_map.table}.{record_map.fold_into}")
    for name in unheld if not record_map.fold_into else []:
        leave(f"fixtures.{adapter.name}.{name}", f"no {adapter.app} field holds it: the agent never sees it")


def _shown(path: Path, task_dir: Path) -> Path:
    """A fixture's path from the task folder, or from the tasks folder when it is another task's."""
    for base in (task_dir, task_dir.resolve()):
        for root in (base, base.parent, base.parent.parent):  # (the checkout's root: a path as task.yaml names it)
            if path.is_relative_to(root):
                return path.relative_to(root)
    return Path(path.name)


def _fixtures(task_dir: Path, task: ClawTask, adapter: ServiceAdapter) -> list[tuple[Path, Any]]:
    """The fixtures the service reads, as (file, data): its JSON files, or what its own reader finds."""
    if adapter.read_fixture is not None:
        service = next(s for s in task.services if s.name == adapter.name)
        try:
            return adapter.read_fixture(task_dir, service.env)
        except (OSError, UnicodeDecodeError) as exc:
            raise ImportProblem(f"services.{adapter.name}: its fixture does not read ({exc})") from None
    found = []
    for path in _fixture_files(task_dir, task, adapter):
        try:
            found.append((path, orjson.loads(path.read_bytes())))
        except (OSError, orjson.JSONDecodeError) as exc:  # the service loads it as it starts: it would not start
            raise fixture_problem(adapter.name, path, _shown(path, task_dir), exc) from None
        why = adapter.load_fails(found[-1][1]) if adapter.load_fails is not None else None
        if why is not None:  # its loader raises as the module loads: the process exits before it serves
            raise ServiceStartProblem(adapter.name, f"its loader fails on the fixture it loads as it starts, "
                                                    f"{_shown(path, task_dir)} ({why}): the process exits")
    return found


def _fixture_files(task_dir: Path, task: ClawTask, adapter: ServiceAdapter) -> list[Path]:
    service = next(s for s in task.services if s.name == adapter.name)
    envs = (adapter.fixture_env,) if isinstance(adapter.fixture_env, str) else adapter.fixture_env
    found = []
    root = services_root(task_dir)  # a checkout holding the services' source; else a lone task folder, read leniently
    for variable in envs:
        named = service.env.get(variable)
        if not named:
            # the runner sets only what task.yaml names: the service reads the default its source gives (an
            # English task's service may read its Chinese twin's fixture), when the checkout holds that source
            default = default_fixture(task_dir, service.command, variable)
            found += [default] if default is not None else []
            continue
        if root is not None:  # the runner starts the service from the checkout's root: the file it opens is there
            found.append(root / named)  # (a path from the task folder is not: the service exits, as it fails to open it)
            continue
        # relative to the checkout root (tasks/<ID>/fixtures/...); the task folder may have been renamed
        candidates = [task_dir / named.split(f"{task_dir.name}/", 1)[-1], task_dir.parent.parent / named]
        if "fixtures/" in named:
            candidates.append(task_dir / "fixtures" / named.split("fixtures/", 1)[1])
        found.append(next((c for c in candidates if c.is_file()), candidates[0]))
    return found or sorted((task_dir / "fixtures" / adapter.name).glob("*.json"))


def in_service_order(shape: ResultShape, answers: Sequence[tuple[str, ...]]) -> ResultShape:
    """`shape` ordering its answer's keys, and those of the record it wraps, as the handler's dict with those very
    keys does (`ResultShape.order`, `item_order`), where exactly one order of them is written there and it is not
    the shape's own."""
    update = {}
    for name, keys in (("order", shaped_keys(shape)), ("item_order", shaped_keys(shape, item=True) if shape.wrap
                                                        else None)):
        found = {a for a in answers if keys is not None and len(a) == len(keys) and set(a) == set(keys)}
        if keys is not None and len(found) == 1 and (order := found.pop()) != tuple(keys):
            update[name] = list(order)
    return shape.model_copy(update=update) if update else shape


def _tool_decl(tool: ClawTool, adapters: Any, leave: Any, model: dict[str, Any] | None = None,
               notes: list[str] | None = None,
               held: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None,
               rows: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None,
               request: list[RequestField] | None = None,
               endpoint: tuple[str, str] | None = None, reads: set[str] | frozenset[str] = frozenset(),
               counts_whole: bool | None = None, answers: Sequence[tuple[str, ...]] = ()) -> ToolDecl | None:
    """The tool bound to its op. `model`: the fields of its endpoint's request model, when the checkout holds the
    service's source: an argument the op needs that the tool's schema lacks but the model takes is then taken
    undeclared (an agent passing it is served; a call without it fails, as there). `held`: each service's records
    by id, as it holds them once loaded (what a tool answering them shows); `rows`: the app's records the import
    made of them, by id. `request`: the request model itself, which then reads each call (its framework's 422
    answers, its coercions) in place of the declared schema. `endpoint`: the service and path its URL reaches, which
    bind the tool where the import knows the route (`by_endpoint`), whatever its name, as Claw-Eval's runner calls
    the URL; else its name does. `reads`: the
    request fields its handler reads (`req.<field>`): one the import has no field for changes the service's answers.
    `counts_whole`: whether its handler's `total` counts the list before its cut (read from its source), else the
    adapter's own `cut_total` says. `answers`: the key orders of the dicts its handler writes, whose one with the
    answer's keys orders them (`in_service_order`)."""
    adapters = list(adapters)
    found = [] if endpoint is None else [(a, m) for a in adapters if a.name == endpoint[0]
                                         for m in [by_endpoint(a, endpoint[1], tool.name)] if m is not None]
    if found and found[0][1] is not found[0][0].tools.get(tool.name) and notes is not None:
        notes.append(f"tools.{tool.name}: bound by its endpoint {endpoint[1] if endpoint else ''}, as the "
                     f"{found[0][0].name} service serves it")
    found = found or [(a, a.tools[tool.name]) for a in adapters if tool.name in a.tools]
    for adapter, mapping in found[:1]:
        props = tool.input_schema.get("properties", {})
        unmet = _unmet(mapping, props)
        undeclared: list[str] = []
        if unmet and model is not None:
            names = [*mapping.args, *(n for w in mapping.windows for n in (w.day, w.days) if n is not None)]
            undeclared = [n for n in dict.fromkeys(names) if n not in props and n in model]
            unmet = _unmet(mapping, {**props, **{n: {} for n in undeclared}})
        if unmet:
            leave(f"tools.{tool.name}", f"it takes no {unmet!r}, which the {adapter.name} service requires "
                                        "(calls without it fail there)")
            return None
        if mapping.cut is not None and mapping.cut not in props and mapping.cut not in undeclared and (
                model is not None and mapping.cut in model):
            undeclared.append(mapping.cut)  # the service cuts its list by its model's default all the same
        known_args = {**props, **{n: {} for n in undeclared}}
        # A window's count of days is the default when the task's tool does not take it.
        windows = [w if w.days in known_args else w.model_copy(update={"days": None}) for w in mapping.windows]
        windowed = {n for w in windows for n in (w.day, w.days) if n is not None}
        args: dict[str, ArgBinding | str] = {}
        for name in known_args:
            known = mapping.args.get(name)
            if known is None and name not in windowed and name in reads:  # (a new version's page, offset...)
                leave(f"tools.{tool.name}.{name}", f"the {adapter.name} service's handler reads it (req.{name}), "
                      f"so its answers depend on it; no {adapter.app} field for it: ignored here")
            elif model is not None and name not in model and (
                    name not in windowed if known is None else known.to is not None or known.kept is not None):
                # the service's request model has no such field: pydantic drops it, so the call acts as without it
                # there, and its audit logs none (`_as_logged`): ignored here too, nothing is left out (import55)
                if notes is not None:
                    notes.append(f"tools.{tool.name}.{name}: accepted and ignored, as there (the {adapter.name} "
                                 f"service's request model has no {name!r})")
                known = None
            elif known is None and name not in windowed:  # the service may read it: its answers may differ
                leave(f"tools.{tool.name}.{name}", f"no {adapter.app} field for it: accepted and ignored", False)
            elif known is not None and known.unmapped == "dropped":
                leave(f"tools.{tool.name}.{name}", f"a value other than {', '.join(known.values)} (kept as written "
                      f"there, no {adapter.app} value here): " + (
                          "kept as written beside the record and shown so, the app's value unchanged"
                          if known.kept is not None else "accepted and ignored"), False)
            args[name] = known if known is not None else ArgBinding(to=None)
        # With the service's model read, it decides what a call must give: its required fields, not the schema's
        # `required` (a create without the `attendees` the schema lists as required is served there, `[]`)
        requires = [n for n, d in (model or {}).items() if d is REQUIRED and n in known_args]
        loose = model is not None and any(n not in requires for n in tool.input_schema.get("required", []))
        if undeclared and notes is not None:
            notes.append(f"tools.{tool.name}: takes {', '.join(undeclared)} though its schema does not list "
                         f"{'them' if len(undeclared) > 1 else 'it'}, and every call must give "
                         f"{', '.join(requires)}, as the {adapter.name} service's request model does")
        # Claw-Eval sends a call's arguments as given: the service's request model fills in what is missing, never
        # the schema's `default` (a gmail list's `days_back: 30` documented, 7 served)
        served = None if model is None else {n: d for n, d in model.items() if n in known_args and isinstance(
            d, str | int | float | bool | list | dict)}  # `[]` too: a recipients list the model's factory fills
        return ToolDecl(name=tool.name, description=tool.description, parameters=tool.input_schema,
                        bind=Binding(op=mapping.op, args=args, defaults=mapping.defaults,
                                     result=in_service_order(adapter.answered(
                                         mapping, (held or {}).get(adapter.name, {}),
                                         (rows or {}).get(adapter.name, {})), answers),
                                     windows=windows, undeclared=undeclared, requires=requires,
                                     schema_required=not loose, service_defaults=served,
                                     kept_stamp=mapping.kept_stamp, kept_fresh=mapping.kept_fresh,
                                     not_found=adapter.not_found if adapter.not_found is not None and all(
                                         n in known_args for n in re.findall(r"\{(\w+)\}", adapter.not_found))
                                     else None,
                                     cut=Cut(argument=mapping.cut, total=mapping.cut_total if counts_whole is None
                                             else counts_whole)
                                     if mapping.cut is not None and mapping.cut in known_args else None,
                                     item_filters={n: f for n, f in mapping.item_filters.items()
                                                   if n in known_args},
                                     framework=Framework(
                                         request_model=request,
                                         day_spans=[d for d in mapping.day_spans if d.days in known_args and (
                                             d.day is None or d.day in known_args)],
                                         handler_fails=list(adapter.handler_fails))))
    why = next((a.no_op[tool.name] for a in adapters if tool.name in a.no_op), None)
    leave(f"tools.{tool.name}", why or "its service has no coworkenv app, or the tool is unknown to the importer")
    return None


def _unserved_decl(tool: ClawTool, adapter: ServiceAdapter, error: str, notes: list[str],
                   not_allowed: bool = False) -> ToolDecl:
    """A tool whose endpoint the task's service does not serve (`not_allowed`: not by the method the endpoint sends):
    offered, and every call fails, as in Claw-Eval."""
    notes.append(f"tools.{tool.name}: offered, and every call fails ({error}), as in Claw-Eval")
    props = tool.input_schema.get("properties", {})
    op = next(iter(adapter.tools.values())).op  # names the service's app (its faults); never run
    return ToolDecl(name=tool.name, description=tool.description, parameters=tool.input_schema,
                    bind=Binding(op=op, args={name: ArgBinding(to=None) for name in props}, unserved=error,
                                 framework=Framework(method_not_allowed=not_allowed)))  # as FastAPI answers it


def _refuser(tool: ClawTool, refusing: Sequence[ServiceAdapter], endpoints: Mapping[str, tuple[str, str]],
             routed: bool) -> ServiceAdapter | None:
    """The service whose handler refuses every call of the tool: the one its endpoint reaches at a route of that
    handler, or (a task naming no endpoints, bound by names) the one with a tool of its name."""
    if tool.name in endpoints:
        service, path = endpoints[tool.name]
        return next((a for a in refusing if a.name == service and by_endpoint(a, path, tool.name) is not None), None)
    return None if routed else next((a for a in refusing if tool.name in a.tools), None)


def _refused_decl(tool: ClawTool, adapter: ServiceAdapter, refusals: list[Refusal], documents: list[Document],
                  request: list[RequestField] | None, notes: list[str]) -> ToolDecl:
    """A tool whose service's handler refuses every call the task can make (`ServiceAdapter.refusals`) but those
    naming a file it serves (`documents`: a PDF, answered with its text): offered, each call read by the service's
    request model (its 422) and then served or answered by the first refusal it meets, as there."""
    served = "".join(f"; serves {d.shown} ({len(d.pages)} pages, {sum(len(p) for p in d.pages)} characters of text, "
                     "extracted with pypdf)" for d in documents)
    notes.append(f"tools.{tool.name}: offered, and every call is the {adapter.name} service's own error, as there: "
                 + "; ".join(f"{r.status} {r.detail}" for r in refusals) + served)
    props = tool.input_schema.get("properties", {})
    op = next(iter(adapter.tools.values())).op  # names the service's app (its faults); never run
    return ToolDecl(name=tool.name, description=tool.description, parameters=tool.input_schema,
                    bind=Binding(op=op, args={name: ArgBinding(to=None) for name in props},
                                 unserved=f"{refusals[-1].status} {refusals[-1].detail}",
                                 framework=Framework(request_model=request, refusals=refusals,
                                                     documents=documents)))


def _no_endpoint_decl(tool: ClawTool, adapters: Any, notes: list[str], url: str | None = None) -> ToolDecl | None:
    """A tool task.yaml offers without an endpoint (no `tool_endpoints` entry): Claw-Eval's dispatcher knows it not
    and answers every call `Error: unknown tool 'X'`, calling no service; offered so here, where an adapter of the
    task's services has a tool of its name (else None: the tool is left to the usual reasons). With `url`, the
    endpoint the tool names is at a port no service of the task listens on: the dispatcher's request cannot connect,
    and every call is its `Error: [Errno 111] Connection refused` (whatever adapter's op names the app: never run)."""
    adapter = next((a for a in adapters if tool.name in a.tools), None)
    if url is not None:
        adapter = adapter or next(iter(adapters), None)
    if adapter is None:
        return None
    op = adapter.tools[tool.name].op if tool.name in adapter.tools else next(iter(adapter.tools.values())).op
    props = tool.input_schema.get("properties", {})
    args: dict[str, ArgBinding | str] = {name: ArgBinding(to=None) for name in props}
    if url is not None:
        notes.append(f"tools.{tool.name}: its endpoint {url} is at a port no service of the task listens on, so every "
                     "call is Claw-Eval's dispatcher's \"Error: [Errno 111] Connection refused\", as there")
        return ToolDecl(name=tool.name, description=tool.description, parameters=tool.input_schema,
                        bind=Binding(op=op, args=args, unserved=f"connection refused: no service listens at {url}",
                                     framework=Framework(unreachable=True)))
    notes.append(f"tools.{tool.name}: offered without an endpoint, so every call is Claw-Eval's dispatcher's "
                 f"\"Error: unknown tool '{tool.name}'\", as there")
    return ToolDecl(name=tool.name, description=tool.description, parameters=tool.input_schema,
                    bind=Binding(op=op, args=args, unserved=f"unknown tool '{tool.name}'",
                                 framework=Framework(no_endpoint=True)))


# Safety check types that ban every call of their tool.
BANS = ("tool_not_called", "wrong_action")


def _unmet(mapping: ToolMap, props: dict[str, Any]) -> str | None:
    """The first service argument the op requires that the task's tool does not take (None: it takes them all)."""
    filled = {p for w in mapping.windows if w.day in props for p in (w.start, w.end)} | set(mapping.defaults)
    filled |= {b.to for name, b in mapping.args.items() if name in props and b.to is not None}
    needed = TOOLS[mapping.op].openai_schema()["function"]["parameters"].get("required", [])
    for param in needed:
        if param not in filled:
            by_window = [w.day for w in mapping.windows if param in (w.start, w.end)]
            return (by_window or [n for n, b in mapping.args.items() if b.to == param] or [param])[0]
    return None


def _checks(task: ClawTask, declared: set[str], leave: Any, notes: list[str]) -> list[dict[str, Any]]:
    checks: list[dict[str, Any]] = []
    offered = {t.name for t in task.tools}
    unoffered: list[tuple[int, str, dict[str, Any], str]] = []  # bans of tools the task does not offer
    for component in task.scoring_components:
        rule = _component_rule(component.check, declared)
        if isinstance(rule, str):
            leave(f"scoring_components.{component.name}", rule)
            continue
        checks.append({"id": component.name, "weight": component.weight, "rule": rule, "safety": False,
                       "description": f"claw-eval {component.check.type}"})
    for i, safety in enumerate(task.safety_checks):
        call: dict[str, Any] | None = None
        if safety.type in BANS and safety.tool_name:  # `wrong_action` on a tool: its graders zero any call of it
            call = {"tool": safety.tool_name}
        elif safety.type == "tool_not_called_with" and safety.field:
            call = {"tool": safety.tool_name, "args": {safety.field: safety.value}}
        if call is not None and safety.tool_name not in offered:
            unoffered.append((i, str(safety.tool_name), call.get("args", {}), safety.description))
        elif call is not None and safety.tool_name in declared:
            checks.append({"id": f"safety_{i}_{safety.tool_name}", "weight": SAFETY_WEIGHT, "safety": True,
                           "description": safety.description, "rule": {"kind": "forbidden", "call": call}})
        else:
            leave(f"safety_checks[{i}]", f"{safety.type}: no declarative counterpart for this safety check")
    if unoffered:
        checks.append(_unoffered_bans(unoffered))
        notes.append(f"safety_checks {', '.join(f'[{i}] ({tool})' for i, tool, *_ in unoffered)}: ban tools the task "
                     "does not offer; a call of one all the same (answered as a tool the env does not have, as "
                     "Claw-Eval's dispatcher answers `unknown tool`) zeroes the score, as Claw-Eval's graders count "
                     "every dispatch of a banned name (check `safety_unoffered_tools`)")
    return checks


_UNOFFERED_CODE = """
def check(state, audit, messages):
    bad = [f"{e['tool']} at step {e['index']}" for e in audit for tool, args in BANS
           if e["tool"] == tool and isinstance(e["args"], dict) and all(e["args"].get(k) == v for k, v in args.items())]
    return {"passed": not bad, "reason": "called a banned tool the task does not offer: " + ", ".join(bad)}
"""


def _unoffered_bans(bans: list[tuple[int, str, dict[str, Any], str]]) -> dict[str, Any]:
    """One safety check for the bans of tools the task does not offer. Claw-Eval's dispatcher records a call of such
    a tool all the same (answered `Error: unknown tool 'X'`, status 404) and the graders gate on every dispatch of a
    banned name, whatever its status: a call of it zeroes the score there (T033's `FORBIDDEN_TOOLS`, T001's
    `send_calls`), so it does here. A `forbidden` check cannot name a tool the spec does not have (the loader and
    the exposed-tools gate refuse it as a typo), so the audit is read by name in the sandbox; the env audits a call
    of a tool it does not have under the name the agent gave."""
    listed = [[tool, args] for _, tool, args, _ in bans]
    return {"id": "safety_unoffered_tools", "weight": SAFETY_WEIGHT, "safety": True,
            "description": "; ".join(d or f"{tool} is never called" for _, tool, _, d in bans),
            "rule": {"kind": "python", "code": f"BANS = {orjson.dumps(listed).decode()}\n{_UNOFFERED_CODE}",
                     "apps": ["directory"]}}


def _component_rule(check: ClawCheck, declared: set[str]) -> dict[str, Any] | str:
    """The check rule of a scoring component, or why it is left out."""
    if check.type == "llm_judge":
        return "LLM judge: not deterministic"
    if check.type == "tool_called":
        if check.tool_name not in declared:
            return f"counts calls of {check.tool_name!r}, which was not imported"
        return {"kind": "called", "call": {"tool": check.tool_name}, "min_times": check.min_calls or 1}
    words = check.keywords if check.type == "keywords_present" else \
        check.categories if check.type == "categories_present" else None  # every category named in the replies
    if words:
        code = f"KEYWORDS = {orjson.dumps(words).decode()}\n{_KEYWORDS_CODE}"
        return {"kind": "python", "code": code, "apps": ["directory"]}
    if check.type == "min_length" and check.min_length:
        return {"kind": "python", "code": f"MIN_LENGTH = {int(check.min_length)}\n{_MIN_LENGTH_CODE}",
                "apps": ["directory"]}
    return f"{check.type}: no declarative counterpart"


def _reference(task_dir: Path, leave: Any) -> list[dict[str, Any]]:
    path = task_dir / "reference.json"
    if not path.is_file():
        leave("reference_solution", "prose, not calls: add reference.json to give the spec a reference (the oracle "
              "gate needs one; no episode scores differently without it)", False)
        return []
    try:
        steps = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise ImportProblem(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(steps, list):
        raise ImportProblem(f"{path}: expected a list of steps ({{'call': ...}} or {{'say': ...}})")
    return steps


def _start(apps: dict[str, Any], gmail: list[Any], calendar: list[Any]) -> str:
    """The world's clock, and the mail moved to it: Claw-Eval's calendar moves its events so that the earliest
    starts about a day from now, its gmail its mail so that the newest came a day ago (both from one `now`). The
    world starts `LOADED_BEFORE_START_S` after that `now`: a service has loaded before the agent's first call."""
    earliest = _earliest_event(calendar)
    newest = _newest_mail(gmail)
    if earliest is not None:
        loaded = earliest - 86400
        if newest is not None:  # the clock is the calendar's: the mail moves as the service moves it relative to it
            for message in apps.get("mail", {}).get("messages", []):
                if _utc_seconds(message.get("sent_at")) is not None:
                    message["sent_at"] = format_time(parse_time(message["sent_at"]) + loaded - 86400 - newest)
        return format_time(loaded + LOADED_BEFORE_START_S)
    if newest is not None:
        return format_time(newest + 86400 + LOADED_BEFORE_START_S)
    times = [t.get("updated_at") or "" for t in apps.get("tickets", {}).get("tickets", [])]
    latest = max((t for t in times if t), default="2026-03-02T09:00:00Z")
    return latest[:19] + "Z" if not latest.endswith("Z") else latest


def _earliest_event(calendar: list[Any]) -> int | None:
    """The instant of the earliest event of calendar fixtures (UTC seconds), as the service finds it; None without
    any."""
    rows = [e for data in calendar for e in (data if isinstance(data, list) else data.get("events", [])
                                             if isinstance(data, dict) else [])]
    starts = [t for t in (_utc_seconds(e.get("start_time")) for e in rows if isinstance(e, dict)) if t is not None]
    return min(starts, default=None)


def _newest_mail(gmail: list[Any]) -> int | None:
    """The time of the newest mail of gmail fixtures (UTC seconds), as the service finds it; None without any."""
    rows = [m for data in gmail for m in (data if isinstance(data, list) else data.get("messages", [])
                                          if isinstance(data, dict) else [])]
    mail = [t for t in (_utc_seconds(m.get("date")) for m in rows if isinstance(m, dict)) if t is not None]
    return max(mail, default=None)


def _utc_seconds(value: Any) -> int | None:
    try:
        return parse_time(str(value)) if value else None
    except ValueError:
        return None


def task_dirs(root: Path) -> list[Path]:
    """The task folders of a checkout (or of a `tasks` folder, or one task folder)."""
    if (root / "task.yaml").is_file():
        return [root]
    base = root / "tasks" if (root / "tasks").is_dir() else root
    return sorted(p for p in base.iterdir() if (p / "task.yaml").is_file())


def import_checkout(root: Path, out: Path, error_rate: float | None = None, judge: bool = False,
                    removed: list[str] | None = None, said: list[str] | None = None,
                    system_prompt: SystemPrompt = "claw-eval") -> list[TaskImport]:
    """Import every task under `root` into `out/<task_id>.json`; write `out/import_report.json`; return reports.

    `judge`: a judge will score (so graders that ask one are run, `full (judge)`); the report says so. The specs an
    earlier import into `out` wrote and this one does not are removed, their names added to `removed`; what the user
    should know of the earlier import (its report damaged, a listed file of theirs kept) is added to `said`."""
    _known_system_prompt(system_prompt)
    dirs = task_dirs(root)
    if not dirs:
        raise ImportProblem(f"{root}: no task folders (expected tasks/<ID>/task.yaml)")
    # A second import into `out` (another terminal, a script run twice) waits for this one: both read the earlier
    # report, so each removed specs the other had just written, or left its own that the other's report, written
    # last, did not list (a spec `rollout` ran that no report named, a listed spec missing).
    with folder_lock(out, f"another import into {out} is running; waiting for it to end"):
        return _import_into(dirs, root, out, error_rate, judge, removed, said, system_prompt)


def _import_into(dirs: list[Path], root: Path, out: Path, error_rate: float | None, judge: bool,
                 removed: list[str] | None, said: list[str] | None,
                 system_prompt: SystemPrompt = "claw-eval") -> list[TaskImport]:
    from coworkenv.loading import reference_issues  # loading imports the app catalogue; keep import cheap

    unwritable = report_folder_problem(out)
    if unwritable is not None:
        raise ImportProblem(unwritable)
    earlier = earlier_spec_files(out, said)
    reports: list[TaskImport] = []
    written: dict[str, tuple[str, str]] = {}  # spec file key -> (task id, task folder) of the specs written
    for task_dir in dirs:
        try:
            spec, report = import_task(task_dir, error_rate, judge, system_prompt)
        except ImportProblem as exc:
            reports.append(TaskImport(task_dir.name, "skipped", notes=[str(exc)]))
            continue
        except (ValueError, TypeError, KeyError, AttributeError, OSError, RecursionError) as exc:
            # a layout the importer does not know (odd types, new fields): one task's problem, not the run's
            reports.append(TaskImport(task_dir.name, "skipped", notes=[
                f"{task_dir.name}: the importer cannot read this task ({type(exc).__name__}: {exc}); "
                "check its task.yaml and fixtures against Claw-Eval's layout"]))
            continue
        if spec is not None:
            unnamed = spec_file_problem(report.task_id, task_dir.name, written)
            if unnamed is not None:  # its spec would land outside `out`, hidden, or over another task's spec
                reports.append(TaskImport(report.task_id, "skipped", notes=[unnamed]))
                continue
            written[spec_file_key(report.task_id)] = (report.task_id, task_dir.name)
            report.notes.extend(f"spec issue at {i.path}: {i.message}" for i in reference_issues(spec))
            target = out / f"{report.task_id}{SPEC_SUFFIX}"
            atomic_write_bytes(target, orjson.dumps(spec.model_dump(mode="json", by_alias=True),
                                                    option=orjson.OPT_INDENT_2) + b"\n")
            report.spec_file = target.name
        reports.append(report)
    gone = remove_stale_specs(out, earlier, {r.spec_file for r in reports if r.spec_file}, said)  # before the report that
    if removed is not None:  # no longer lists them: a stop in between removes them at the next run
        removed.extend(gone)
    summary = {"source": root.name, "judge": judge, "tasks": [r.as_dict() for r in reports]}
    atomic_write_bytes(out / f"{REPORT_NAME}{SPEC_SUFFIX}", orjson.dumps(summary, option=orjson.OPT_INDENT_2) + b"\n")
    return reports
