"""A Claw-Eval task's own grader.py as one sandboxed `python` check (see claw_eval_grader_runtime.py).

The check carries the grader's source, the peer graders it loads, the checkout's grader framework modules it
imports (`src/claw_eval/graders/*.py`; the pydantic models are stood in for), the tool endpoints, the fixture
records the mock services hold and what each mock write endpoint keeps (`MOCK_ACTIONS`). A grader that calls
its LLM judge is carried only for an import with a judge (`judge=True`): the check then asks the host's judge
(`judge: true`, `coworkenv.checks.judge`) through Claw-Eval's own `LLMJudge` (the checkout's `llm_judge.py`);
without one, its judged criteria would be guessed, so it is not carried.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import orjson

from coworkenv.importers.claw_eval_attachments import attachments
from coworkenv.importers.claw_eval_routes import REQUIRED, task_services, unserved_tools
from coworkenv.importers.claw_eval_task import ClawTask
from coworkenv.request_models import Refusal

_RUNTIME = Path(__file__).with_name("claw_eval_grader_runtime.py")
_PEER = re.compile(r"""load_peer_grader\(\s*["']([^"']+)["']""")
_JUDGE_PARAMETER = re.compile(r"\bjudge\s*:[^,)\n]*(=\s*None)?")

# What each Claw-Eval mock service's write endpoint keeps for its /audit (mock_services/<service>/server.py):
# `made`: a record of the request's `fields` (their defaults when not given), `const` fields, a `timestamp`
# (`stamp`), a new id numbered after the records held (`new_id`), held from then on (`hold`), the request's
# non-null fields as `changes`; `changed`: the held record with that `id`, its `fields` set from the request;
# `removed`: the held record with that `id`, taken out. `key` names the audit list (none: only held).
_STAMPED = {"stamp": True}
# Standard-library modules whose import the sandbox refuses (where Landlock is there: the full and degraded sets): a
# grader that imports one can never score, whether or not it catches the error (the audit hook reports the attempt).
# The native ones are the sandbox's own tables; these pure-Python ones import such a module at their top (each stdlib
# module imported alone in the sandbox: sandbox41), or on a name's first use (`ProcessPoolExecutor`). Everything
# else imports: `subprocess`, `socket`, `urllib`, `http`, `tempfile`, `multiprocessing` (refused here by name until
# sandbox41, which made Claw-Eval graders importing them for a constant, a parser or a type partial); what they
# start or reach is refused when called, and a grader that calls a process starter is left out (`_PROCESS_STARTERS`).
_REFUSED_PURE = frozenset({
    "tkinter", "turtle", "test.support", "curses.panel", "curses.has_key",
    "multiprocessing.pool", "multiprocessing.managers", "multiprocessing.shared_memory", "multiprocessing.queues",
    "multiprocessing.synchronize", "multiprocessing.connection", "multiprocessing.sharedctypes",
    "multiprocessing.resource_tracker", "multiprocessing.forkserver", "multiprocessing.popen_forkserver",
    "concurrent.futures.process", "concurrent.futures.ProcessPoolExecutor",
})
# Calls that start a process, by module: the sandbox refuses every one of them when it runs, so a grader making one
# fails at grading time (`forbidden`); left out at import with the reason instead.
_PROCESS_STARTERS = {
    "subprocess": frozenset({"run", "call", "check_call", "check_output", "Popen", "getoutput", "getstatusoutput"}),
    "os": frozenset({"system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp", "execv", "execve", "execl",
                     "execle", "execlp", "execlpe", "execvp", "execvpe", "spawnv", "spawnve", "spawnl", "spawnle",
                     "spawnlp", "spawnlpe", "spawnvp", "spawnvpe"}),
    "pty": frozenset({"spawn", "fork"}), "asyncio": frozenset({"create_subprocess_exec", "create_subprocess_shell"}),
}


def refused_import(name: str) -> bool:
    """Whether the sandbox refuses importing the standard-library module `name` (dotted) where Landlock is there."""
    from coworkenv.sandbox._child import BLOCKED_MODULE_PREFIXES, BLOCKED_MODULES

    parts = name.split(".")  # the modules marked absent (readline, _dbm) raise ImportError, which a grader may catch
    return any(p in BLOCKED_MODULES or p.startswith(BLOCKED_MODULE_PREFIXES) for p in parts) \
        or any(".".join(parts[:i]) in _REFUSED_PURE for i in range(1, len(parts) + 1))


def process_started(tree: ast.AST) -> str | None:
    """The first call in `tree` that starts a process (`subprocess.run`, `os.system`, a `from subprocess import run`
    called), as `module.name`; None where it makes none (importing subprocess for its constants or exceptions)."""
    aliases: dict[str, str] = {}  # local name -> module, for `import subprocess as sp`
    names: dict[str, str] = {}  # local name -> module.function, for `from subprocess import run as r`
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update({a.asname or a.name: a.name for a in node.names if a.name in _PROCESS_STARTERS})
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module in _PROCESS_STARTERS:
            names.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names
                          if a.name in _PROCESS_STARTERS[node.module]})
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in aliases \
                and func.attr in _PROCESS_STARTERS[aliases[func.value.id]]:
            return f"{aliases[func.value.id]}.{func.attr}"
        if isinstance(func, ast.Name) and func.id in names:
            return names[func.id]
    return None
MOCK_ACTIONS: dict[str, dict[str, dict[str, Any]]] = {
    "gmail": {
        "/gmail/send": {"kind": "made", "key": "sent_messages", "fields": ["to", "subject", "body"], **_STAMPED},
        "/gmail/drafts/save": {"kind": "made", "key": "drafts",
                               "fields": ["to", "subject", "body", "reply_to_message_id"], **_STAMPED},
    },
    "calendar": {
        "/calendar/events/create": {"kind": "made", "key": "created_events", "new_id": ["event_id", "evt_"],
                                    "fields": ["title", "start_time", "end_time", "attendees", "location"],
                                    "defaults": {"attendees": [], "location": ""}, "const": {"recurring": False},
                                    "hold": True},
        "/calendar/events/delete": {"kind": "removed", "key": "deleted", "id": "event_id"},
    },
    "helpdesk": {
        "/helpdesk/tickets/update": {"kind": "changed", "key": "updated_tickets", "id": "ticket_id",
                                     "fields": ["priority", "tags", "category"]},
        "/helpdesk/tickets/close": {"kind": "changed", "key": "closed", "id": "ticket_id", "fields": ["resolution"],
                                    "const": {"status": "closed"}},
    },
    "todo": {
        "/todo/tasks/update": {"kind": "changed", "key": "updated_tasks", "id": "task_id",
                               "fields": ["title", "priority", "status", "tags"]},
        "/todo/tasks/create": {"kind": "made", "new_id": ["task_id", "todo_"],
                               "fields": ["title", "description", "priority", "due_date"],
                               "defaults": {"description": "", "priority": "medium"},
                               "const": {"status": "pending", "tags": []}, "hold": True},
        "/todo/tasks/delete": {"kind": "removed", "key": "deleted", "id": "task_id"},
    },
    "contacts": {"/contacts/send_message": {"kind": "made", "key": "sent_messages", "fields": ["contact_id", "message"],
                                            **_STAMPED}},
    "crm": {"/crm/export": {"kind": "made", "key": "exported_reports", "fields": ["title", "customer_ids", "summary"],
                            **_STAMPED}},
    "finance": {"/finance/report/submit": {"kind": "made", "key": "submitted_reports",
                                           "fields": ["title", "transactions", "total_amount"], **_STAMPED}},
    "inventory": {"/inventory/orders/create": {"kind": "made", "key": "orders",
                                               "fields": ["product_id", "quantity", "supplier"], **_STAMPED}},
    "kb": {"/kb/articles/update": {"kind": "made", "key": "updates", "fields": ["article_id"], **_STAMPED}},
    "notes": {"/notes/share": {"kind": "made", "key": "shared", "fields": ["note_id", "recipients"], **_STAMPED}},
    "rss": {"/rss/publish": {"kind": "made", "key": "published", "fields": ["title", "content", "recipients"],
                             **_STAMPED}},
    "config": {
        "/config/integrations/update": {"kind": "made", "key": "updates", "fields": ["integration_id"],
                                        "changes": True, **_STAMPED},
        "/config/notify": {"kind": "made", "key": "notifications", "fields": ["to", "subject", "body"], **_STAMPED},
    },
    "scheduler": {
        "/scheduler/jobs/create": {"kind": "made", "key": "created_jobs", "new_id": ["job_id", "JOB-"],
                                   "fields": ["name", "cron_expression", "action", "enabled", "created_by", "tags"],
                                   "defaults": {"enabled": True, "tags": []},
                                   "const": {"last_run": None, "next_run": None, "last_status": None,
                                             "execution_history": []}, "hold": True},
        "/scheduler/jobs/update": {"kind": "changed", "key": "updated_jobs", "id": "job_id",
                                   "fields": ["enabled", "cron_expression", "name", "action", "tags"]},
        "/scheduler/jobs/delete": {"kind": "removed", "key": "deleted_jobs", "id": "job_id"},
    },
    "web": {"/web/notify": {"kind": "made", "key": "notifications", "fields": ["channel", "message", "recipients"],
                            **_STAMPED}},
}

# What a mock service answers a request coworkenv refuses and the service serves, where a grader reads more than
# an error body (`$name`: the request's value): a fetch of a URL that is not http(s) is its 404 page; a draft the
# app refuses (a recipient that is no address) is saved.
MOCK_ANSWERS: dict[str, dict[str, dict[str, Any]]] = {
    "gmail": {"/gmail/drafts/save": {"status": "draft_saved"}},  # any recipient text is saved there
    "web": {"/web/fetch": {"status_code": 404, "url": "$url", "error": "Page not found or unavailable",
                           "content": None}},
}


NOT_CLAW_EVAL_FORM = "no grader.py in Claw-Eval's form (one importing claw_eval)"
JUDGED = ("grader.py calls an LLM judge and the import has none (with a judge, `--judge URL --judge-model NAME` "
          "or $COWORKENV_JUDGE_URL, it is run and asks that judge through the sandbox's judge channel)")
# What Claw-Eval's llm_judge.py may import: the standard library, and these, which the runtime stands in for.
_JUDGE_STAND_INS = ("openai", "pydantic")


def is_claw_eval_grader(task_dir: Path) -> bool:
    """Whether the task has a grader.py in Claw-Eval's form: Claw-Eval then scores the task with it alone."""
    path = task_dir / "grader.py"
    return path.is_file() and re.search(r"^\s*(from|import)\s+claw_eval\b", _code(path), re.M) is not None


def uses_judge(source: str) -> bool:
    """Whether a grader module uses its LLM judge: reads it, keeps it, tests it, or calls it.

    Handing `judge` on as a call's argument (`super().grade(..., judge)`) is not a use: the callee's own module is
    read too; nor is dropping it (`del judge`). A module that does not parse uses it if it names `judge` beyond a
    parameter.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return re.search(r"\bjudge\b", _JUDGE_PARAMETER.sub("", source)) is not None
    handed_on = {id(arg) for node in ast.walk(tree) if isinstance(node, ast.Call) and not (
        isinstance(node.func, ast.Name) and node.func.id in dir(builtins))  # getattr(judge, ...) reads it
        for arg in [*node.args, *(k.value for k in node.keywords)]}
    return any((isinstance(node, ast.Name) and node.id == "judge" and id(node) not in handed_on
                and not isinstance(node.ctx, ast.Del))  # `del judge`: dropped unused
               or (isinstance(node, ast.Attribute) and node.attr == "judge") for node in ast.walk(tree))


def _code(path: Path) -> str:
    return "\n".join(line for line in path.read_text(errors="replace").splitlines() if not line.lstrip().startswith("#"))


def grader_rule(task_dir: Path, task: ClawTask, raw_fixtures: dict[str, list[Any]],
                judge: bool = False, refusals: Mapping[str, list[Refusal]] | None = None,
                summarised: list[str] | None = None) -> dict[str, Any] | str:
    """The `python` check rule that runs the task's grader.py, or why it cannot be carried over.

    `raw_fixtures` are each service's fixture files as Claw-Eval's mock service reads them. With `judge`, a grader
    that uses its LLM judge is carried too, as a check that asks the host's judge (`"judge": true`). `refusals`: the
    tools whose service's handler refuses every call with its own HTTP error (`Framework.refusals`), whose status
    the grader's dispatch then carries. `summarised`: the tools whose service serves a document's text and logs only
    its length (the documents service's `_log_call`: `text_length` for `text`).
    """
    path = task_dir / "grader.py"
    if not is_claw_eval_grader(task_dir):
        return NOT_CLAW_EVAL_FORM
    peers: dict[str, str] = {}
    sources = [path.read_text(errors="replace")]
    problem = None
    for source in sources:  # the peers a grader loads, and theirs
        for peer in _PEER.findall(source):
            peer_path = task_dir.parent / peer / "grader.py"
            if peer not in peers and problem is None:
                if not peer_path.is_file():
                    problem = f"grader.py loads the grader of task {peer!r}, which is not in the checkout"
                    continue
                peers[peer] = peer_path.read_text(errors="replace")
                sources.append(peers[peer])
    framework: dict[str, str] = {}
    src = _framework_dir(task_dir)
    problem = problem or next(filter(None, (_unmet_imports(s, src, framework, sources) for s in sources)), None)
    judged = any(uses_judge(source) for source in sources)  # the grader, its peers, the framework they import
    if judged and not judge:
        return JUDGED
    if problem:
        return problem
    judge_source, problem = _judge_source(src) if judged else (None, None)
    if problem:
        return problem
    services = [s.name for s in task.services]
    attached = attachments(task_dir, task.prompt.text, task.prompt.attachments).blocks
    # the grader reads Claw-Eval's trace, every assistant message of it (`transcript`): the text the model wrote
    # beside its calls too, and the last message when the loop cut the episode
    return {"kind": "python", "apps": ["directory"], **({"judge": True} if judged else {}), "transcript": True,
            "code": _RUNTIME.read_text() + "\nCONTEXT_JSON = " + repr(orjson.dumps({
            **({"judge": judge_source} if judge_source is not None else {}),
            "grader": sources[0], "peers": peers, "framework": framework, "services": services,
            "endpoints": _endpoints(task_dir), "schemas": {t.name: _request_shape(t.input_schema) for t in task.tools},
            "actions": {s: MOCK_ACTIONS[s] for s in services if s in MOCK_ACTIONS},
            "unserved": sorted(unserved_tools(task_dir, task)), "requests": _request_models(task_dir, task),
            "answers": {s: MOCK_ANSWERS[s] for s in services if s in MOCK_ANSWERS},
            "records": {s: _held(raw_fixtures.get(s, [])) for s in services},
            # (only where there are any: the other graded specs' code, and so their ids, stay as they were) the
            # services without a reset endpoint, whose audit the runner never fetches (`runner/loop.py`)
            **({"unaudited": unaudited} if (unaudited := [s.name for s in task.services if not s.reset_endpoint])
               else {}),
            **({"refusals": {t: [[r.status, r.detail] for r in rs] for t, rs in refusals.items()}}
               if refusals else {}),
            **({"summarised": summarised} if summarised else {}),
            "task": {"task_id": task.task_id, "task_name": task.task_name, "prompt": task.prompt.text,
                     "language": task.prompt.language, "judge_rubric": task.judge_rubric,
                     # the text documents after the prompt, each its own block of the trace's first message
                     **({"attached": attached} if attached else {}),
                     **({"attachments": task.prompt.attachments} if task.prompt.attachments else {}),
                     # the rest of Claw-Eval's `TaskDefinition` a grader may read, with its models' defaults
                     "fields": _task_fields(task_dir)},
        }).decode()) + "\n"}


# Claw-Eval's `DeterministicCheck` fields beside `type` (`models/task.py`), each None unless task.yaml gives it
_CHECK_FIELDS = ("field", "tool_name", "min_calls", "categories", "min_length", "patterns", "keywords", "description",
                 "rubric")


def _task_fields(task_dir: Path) -> dict[str, Any]:
    """The fields of Claw-Eval's `TaskDefinition` (`models/task.py`) beside the id, name, prompt and rubric, as its
    models read task.yaml (their defaults where it gives none; fields no model has dropped): the version, category,
    difficulty, tags, prose reference solution, primary dimensions, the runner's `environment`, the scoring
    components and safety checks, and the expected actions. Not the tools, endpoints and services (the spec holds
    them), nor the sandbox and simulated user's settings (their tasks are not imported)."""
    import yaml

    try:
        data = yaml.safe_load((task_dir / "task.yaml").read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, RecursionError, OSError):
        return {}
    if not isinstance(data, dict):
        return {}

    def items(name: str) -> list[dict[str, Any]]:
        found = data.get(name)
        return [i for i in found if isinstance(i, dict)] if isinstance(found, list) else []

    def check(c: Any) -> dict[str, Any]:
        c = c if isinstance(c, dict) else {}
        keywords = c.get("keywords")  # (its validator makes each keyword text)
        return {"type": c.get("type"), **{f: c.get(f) for f in _CHECK_FIELDS},
                **({"keywords": [str(k) for k in keywords]} if isinstance(keywords, list) else {})}

    given = data.get("environment")
    env: dict[str, Any] = given if isinstance(given, dict) else {}
    defaults = {"timeout_seconds": 300, "max_turns": 20, "fixtures": [], "env_snapshot_timeout": 10,
                "enable_todo": False, "todo_nag_rounds": 3, "enable_compact": False}
    return {
        "version": data.get("version", "1.0"), "category": data.get("category", ""),
        "difficulty": data.get("difficulty", "simple"), "tags": data.get("tags") or [],
        "reference_solution": data.get("reference_solution", ""),
        "primary_dimensions": data.get("primary_dimensions") or [],
        "environment": {k: env.get(k, v) for k, v in defaults.items()},
        "scoring_components": [{"name": c.get("name"), "weight": c.get("weight"), "check": check(c.get("check"))}
                               for c in items("scoring_components")],
        "safety_checks": [{"type": c.get("type"), "tool_name": c.get("tool_name"), "patterns": c.get("patterns"),
                           "description": c.get("description", "")} for c in items("safety_checks")],
        "expected_actions": [{"service": a.get("service"), "action_key": a.get("action_key"),
                              "required": a.get("required", True)} for a in items("expected_actions")],
    }


_STOOD_IN_MODELS = ("content", "message", "task", "trace", "scoring")  # claw_eval.models.*, as the runtime has them


def _judge_source(src: Path | None) -> tuple[str | None, str | None]:
    """The checkout's `llm_judge.py` (Claw-Eval's `LLMJudge`) and None, or None and why it cannot be carried."""
    path = src / "llm_judge.py" if src is not None else None
    if path is None or not path.is_file():
        return None, ("grader.py uses Claw-Eval's LLM judge, whose source (src/claw_eval/graders/llm_judge.py) "
                      "is not in the checkout")
    source = path.read_text(errors="replace")
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return None, f"src/claw_eval/graders/llm_judge.py does not parse: line {exc.lineno}: {exc.msg}"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            names = [] if node.level == 2 and (node.module or "").removeprefix("models.") in _STOOD_IN_MODELS \
                else [f"{'.' * node.level}{node.module or ''}"]
        else:
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        for name in names:
            top = name.split(".")[0]
            if top not in _JUDGE_STAND_INS and top != "__future__" and (
                    top not in sys.stdlib_module_names or refused_import(name)):
                return None, (f"Claw-Eval's LLM judge (src/claw_eval/graders/llm_judge.py) imports {name}, which "
                              "the sandboxed check does not provide")
    if not any(isinstance(node, ast.ClassDef) and node.name == "LLMJudge" for node in tree.body):
        return None, "src/claw_eval/graders/llm_judge.py defines no LLMJudge"
    return source, None


def _framework_dir(task_dir: Path) -> Path | None:
    """The checkout's `src/claw_eval/graders` (the task folder is tasks/<ID> of the checkout)."""
    for parent in task_dir.resolve().parents[:3]:
        candidate = parent / "src" / "claw_eval" / "graders"
        if (candidate / "base.py").is_file():
            return candidate
    return None


def _unmet_imports(source: str, src: Path | None, framework: dict[str, str], sources: list[str]) -> str | None:
    """Add the framework modules `source` imports to `framework` (and their sources to `sources`); or the problem."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return f"grader.py does not parse: line {exc.lineno}: {exc.msg}"
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
        if isinstance(node, ast.ImportFrom) and node.level:  # framework modules import each other relatively
            names = [f"claw_eval.graders.{node.module}" if node.level == 1 and node.module else "claw_eval.models"]
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:  # `from multiprocessing import pool`
            names += [f"{node.module}.{a.name}" for a in node.names if refused_import(f"{node.module}.{a.name}")]
        for name in names:
            top = name.split(".")[0]
            if name.startswith("claw_eval.graders.") and name.count(".") == 2:
                module = name.rsplit(".", 1)[1]
                if module in framework:
                    continue
                if src is None or not (src / f"{module}.py").is_file():
                    return (f"grader.py needs Claw-Eval's {name}, whose source (src/claw_eval/graders/{module}.py) "
                            "is not in the checkout")
                framework[module] = (src / f"{module}.py").read_text(errors="replace")
                sources.append(framework[module])
            elif top == "claw_eval" and not name.startswith("claw_eval.models") and name not in (
                    "claw_eval", "claw_eval.graders"):
                return f"grader.py imports {name}, which the sandboxed check does not provide"
            elif top in sys.stdlib_module_names and refused_import(name):
                return f"grader.py imports {name}, which the sandbox refuses"
            elif top not in ("claw_eval", "__future__") and top not in sys.stdlib_module_names:
                return f"grader.py imports {top}, not in the standard library the sandbox offers"
    started = process_started(tree)
    if started is not None:
        return f"grader.py starts a process ({started}), which the sandbox refuses"
    return None


def _endpoints(task_dir: Path) -> dict[str, list[str]]:
    """Tool name -> [service, endpoint path, URL] from task.yaml's `tool_endpoints`: the service listening on the URL's
    port (the OCR service runs as `ocr_t50`, its path `/ocr/extract`), else the one the path's first part names."""
    import yaml

    try:
        data = yaml.safe_load((task_dir / "task.yaml").read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, RecursionError):
        return {}
    services = data.get("services")
    by_port: dict[str, str] = {}  # the first service on a port: the one that listens there (a later one is never
    for s in services if isinstance(services, list) else []:  # started, or cannot listen: `claw_eval_start`)
        if isinstance(s, dict) and s.get("port"):
            by_port.setdefault(str(s["port"]), str(s.get("name")))
    found: dict[str, list[str]] = {}
    for item in data.get("tool_endpoints") or []:
        if not isinstance(item, dict) or not isinstance(item.get("url"), str):
            continue
        url = urlparse(item["url"])
        try:
            port = str(url.port) if url.port is not None else None
        except ValueError:
            port = None
        first = url.path.strip("/").split("/")[0]
        # (and the URL as written: the dispatch's `endpoint_url`, which the dispatcher records)
        found[str(item.get("tool_name"))] = [by_port.get(port, first) if port else first, url.path, item["url"]]
    return found


def _request_shape(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's required arguments and each argument's JSON type: what its service's request model checks."""
    props, required = schema.get("properties"), schema.get("required")
    types = {name: p["type"] for name, p in (props if isinstance(props, dict) else {}).items()
             if isinstance(p, dict) and isinstance(p.get("type"), str)}
    return {"required": [str(r) for r in required] if isinstance(required, list) else [], "types": types}


def _request_models(task_dir: Path, task: ClawTask) -> dict[str, dict[str, list[list[Any]]]]:
    """Per service whose source the checkout holds, per route with a plain request model: [field, has a default,
    the default, its JSON kind or None], in the model's order (how its audit log records a request)."""
    return {name: {path: [[f, d is not REQUIRED, None if d is REQUIRED else d, source.kinds.get(path, {}).get(f)]
                          for f, d in fields.items()]
                   for path, fields in source.routes.items() if fields is not None}
            for name, source in task_services(task_dir, task).items()}


def _held(files: list[Any]) -> list[dict[str, Any]]:
    """The records a mock service holds from its fixture files: a list, or the first list of records in an object."""
    held: list[dict[str, Any]] = []
    for data in files:
        rows = data if isinstance(data, list) else next(
            (v for v in data.values() if isinstance(v, list) and all(isinstance(r, dict) for r in v)), []) \
            if isinstance(data, dict) else []
        held.extend(r for r in rows if isinstance(r, dict))
    return held
