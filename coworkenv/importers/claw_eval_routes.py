"""What a Claw-Eval checkout's mock services serve, read from their source (`mock_services/<name>/server.py`,
never run): each service's route paths, and each route's request model (its fields, in order, with their
defaults), which the service's audit log records the request as (`req.model_dump()`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from coworkenv.request_models import RequestField, model_of

REQUIRED = object()  # a request model field without a default


@dataclass(frozen=True)
class ServiceSource:
    """A mock service as its source declares it: route path -> its request model's fields (None: no model, or
    one whose defaults are not plain values) and, per field, its default (`REQUIRED` when it has none); and per
    model field whose annotation is a plain type (not optional), its JSON kind."""

    routes: dict[str, dict[str, Any] | None]
    kinds: dict[str, dict[str, str]]
    annotations: dict[str, dict[str, str]] = field(default_factory=dict)  # route -> field -> annotation's text
    reads: dict[str, set[str]] = field(default_factory=dict)  # route -> the fields its handler reads (`req.<field>`)
    # route -> whether its answer's `total` counts the whole list before its cut (`len(found)` beside `found[:n]`),
    # not the listed items (`len(results)` beside `results`), where the handler says so plainly
    counts_whole: dict[str, bool] = field(default_factory=dict)
    # route -> the methods it is served by (`@app.post` POST; `@app.get` GET and HEAD, as Starlette serves it)
    methods: dict[str, set[str]] = field(default_factory=dict)
    # route -> the keys of each dict its handler writes with string keys alone, in their order (`{"job_id": ...,
    # "history": ..., "total": ...}`): the order of its answers' keys, as the service's JSON writes them
    answers: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)


_KINDS = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "list": "array", "dict": "object"}


def _kind(annotation: ast.expr) -> str | None:
    """The JSON kind a field annotation asks for (`list[str]` -> array), None when optional or not plain."""
    node = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return _KINDS.get(node.id) if isinstance(node, ast.Name) else None


def service_source(task_dir: Path, command: str) -> ServiceSource | None:
    """The mock service run by `command` (e.g. `python mock_services/todo/server.py`), read from the checkout the
    task folder is in; None when its source is not there (a lone task folder) or does not parse."""
    found = _server_file(task_dir, command)
    if found is None:
        return None
    try:
        return _read(ast.parse(found[1].read_text(errors="replace")))
    except (SyntaxError, ValueError, RecursionError):
        return None


def _server_file(task_dir: Path, command: str) -> tuple[Path, Path] | None:
    """The checkout root and the service's source file run by `command`, when the checkout holds it."""
    script = command.split()[-1] if command.split() else ""
    if not script.endswith(".py"):
        return None
    for root in task_dir.resolve().parents[:3]:
        path = root / script
        if path.is_file() and (root / "mock_services").is_dir():
            return root, path
    return None


def _environ_defaults(task_dir: Path, command: str, variable: str) -> tuple[Path, list[ast.expr]] | None:
    """The source file of the service run by `command` and the defaults of every `os.environ.get("<variable>", ...)` in
    it, in the order `ast.walk` meets them (the runner sets only what task.yaml's `env` names). None when the source is
    not there or does not parse."""
    found = _server_file(task_dir, command)
    if found is None:
        return None
    try:
        tree = ast.parse(found[1].read_text(errors="replace"))
    except (SyntaxError, ValueError, RecursionError):
        return None
    return found[1], [node.args[1] for node in ast.walk(tree)
                      if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                      and len(node.args) == 2 and isinstance(node.args[0], ast.Constant)
                      and node.args[0].value == variable]


def default_fixture(task_dir: Path, command: str, variable: str) -> Path | None:
    """The file the service run by `command` reads when its environment does not set `variable`: the default of its
    `os.environ.get("<variable>", str(Path(__file__).resolve().parent... / "tasks" / ...))`, read from its source.
    None when the source is not there or says otherwise."""
    found = _environ_defaults(task_dir, command, variable)
    if found is None or not found[1]:
        return None
    path = _path_of(found[1][0], found[0])
    return path if path is not None and path.is_file() else None


def default_port(task_dir: Path, command: str) -> int | None:
    """The port the service run by `command` listens on when its environment sets no `PORT`: the default of its
    `os.environ.get("PORT", "9101")`, read from its source. None when the source is not there or says otherwise."""
    found = _environ_defaults(task_dir, command, "PORT")
    for default in [] if found is None else found[1]:
        if isinstance(default, ast.Constant):
            value = str(default.value)
            return int(value) if value.isdigit() else None
    return None


def _path_of(node: ast.expr, script: Path) -> Path | None:
    """The path an expression of `str(...)`, `Path(__file__)`, `.resolve()`, `.parent` and `/ "name"` names."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str" and len(node.args) == 1:
        return _path_of(node.args[0], script)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        base = _path_of(node.left, script)
        right = node.right
        return base / right.value if base is not None and isinstance(right, ast.Constant) and isinstance(
            right.value, str) else None
    if isinstance(node, ast.Attribute) and node.attr == "parent":
        base = _path_of(node.value, script)
        return base.parent if base is not None else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "resolve":
        return _path_of(node.func.value, script)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Path" and len(node.args) == 1
            and isinstance(node.args[0], ast.Name) and node.args[0].id == "__file__"):
        return script.resolve()
    return None


def _read(tree: ast.Module) -> ServiceSource:
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    models = {node.name: _fields(node) for node in classes}
    model_kinds = {node.name: {n.target.id: k for n in node.body if isinstance(n, ast.AnnAssign)
                               and isinstance(n.target, ast.Name) and (k := _kind(n.annotation)) is not None}
                   for node in classes}
    model_annotations = {node.name: {n.target.id: ast.unparse(n.annotation) for n in node.body
                                     if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
                         for node in classes}
    routes: dict[str, dict[str, Any] | None] = {}
    kinds: dict[str, dict[str, str]] = {}
    annotations: dict[str, dict[str, str]] = {}
    reads: dict[str, set[str]] = {}
    counts_whole: dict[str, bool] = {}
    methods: dict[str, set[str]] = {}
    answers: dict[str, list[tuple[str, ...]]] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):  # the OCR service's handlers are async
            continue
        for deco in node.decorator_list:
            if isinstance(deco, ast.Call) and isinstance(deco.func, ast.Attribute) and deco.func.attr in (
                    "post", "get", "put", "delete", "patch") and deco.args and isinstance(deco.args[0], ast.Constant) \
                    and isinstance(deco.args[0].value, str):
                routes[deco.args[0].value] = _request_model(node, models)
                methods.setdefault(deco.args[0].value, set()).update(
                    {"GET", "HEAD"} if deco.func.attr == "get" else {deco.func.attr.upper()})
                reads[deco.args[0].value] = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
                                             and isinstance(n.value, ast.Name) and n.value.id == "req"}
                answers[deco.args[0].value] = _dict_literals(node)
                whole = _counts_whole(node)
                if whole is not None:
                    counts_whole[deco.args[0].value] = whole
                name = _request_model_name(node, models)
                if name is not None and models[name] is not None:
                    kinds[deco.args[0].value] = model_kinds[name]
                    annotations[deco.args[0].value] = model_annotations[name]
    return ServiceSource(routes, kinds, annotations, reads, counts_whole, methods, answers)


def _dict_literals(handler: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, ...]]:
    """The keys of each dict literal in the handler whose keys are all strings (no `**`), in their order."""
    return [tuple(k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
            for node in ast.walk(handler) if isinstance(node, ast.Dict) and node.keys and all(
                isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys)]


def _counts_whole(handler: ast.FunctionDef | ast.AsyncFunctionDef) -> bool | None:
    """Whether the handler's answer `{"items": X, "total": len(Y)}` counts more than it lists: Y a list X is a slice
    of (`X = Y[:n]`, or `Y[:n]` in place), not X itself; None when no answer is written so."""
    sliced = {(t.id, n.value.value.id) for n in ast.walk(handler) if isinstance(n, ast.Assign)
              and isinstance(n.value, ast.Subscript) and isinstance(n.value.value, ast.Name)
              and isinstance(n.value.slice, ast.Slice) for t in n.targets if isinstance(t, ast.Name)}
    found: set[bool] = set()
    for node in ast.walk(handler):
        if not isinstance(node, ast.Dict):
            continue
        entries = {k.value: v for k, v in zip(node.keys, node.values, strict=True) if isinstance(k, ast.Constant)}
        total = entries.get("total")
        if not (isinstance(total, ast.Call) and isinstance(total.func, ast.Name) and total.func.id == "len"
                and len(total.args) == 1 and isinstance(total.args[0], ast.Name)):
            continue
        counted = total.args[0].id
        for key, value in entries.items():
            if key == "total":
                continue
            if isinstance(value, ast.Name) and value.id == counted:
                found.add(False)
            elif (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice)
                  and isinstance(value.value, ast.Name) and value.value.id == counted) or (
                    isinstance(value, ast.Name) and (value.id, counted) in sliced):
                found.add(True)
    return found.pop() if len(found) == 1 else None


def _request_model_name(handler: ast.FunctionDef | ast.AsyncFunctionDef, models: dict[str, dict[str, Any] | None]) -> str | None:
    """The name of the handler's `req` model (`req: Model` or `req: Model | None = None`)."""
    arg = next((a for a in handler.args.args if a.arg == "req"), None)
    if arg is None or arg.annotation is None:
        return None
    names = [n.id for n in ast.walk(arg.annotation) if isinstance(n, ast.Name) and n.id in models]
    return names[0] if len(names) == 1 else None


def _request_model(handler: ast.FunctionDef | ast.AsyncFunctionDef, models: dict[str, dict[str, Any] | None]) -> dict[str, Any] | None:
    """The fields of the handler's `req` model."""
    name = _request_model_name(handler, models)
    return models[name] if name is not None else None


def _fields(cls: ast.ClassDef) -> dict[str, Any] | None:
    """A model class's annotated fields and their defaults; None when a default is not a plain value."""
    fields: dict[str, Any] = {}
    for node in cls.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        if node.value is None:
            fields[node.target.id] = REQUIRED
            continue
        value = node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "Field":
            factory = next((k.value for k in value.keywords if k.arg == "default_factory"), None)
            given = next((k.value for k in value.keywords if k.arg == "default"), value.args[0] if value.args else None)
            if isinstance(factory, ast.Name) and factory.id in ("list", "dict"):
                fields[node.target.id] = [] if factory.id == "list" else {}
                continue
            if given is None or (isinstance(given, ast.Constant) and given.value is Ellipsis):
                fields[node.target.id] = REQUIRED
                continue
            value = given
        try:
            default = ast.literal_eval(value)
        except ValueError:
            return None
        if not isinstance(default, str | int | float | bool | list | dict | None):
            return None  # not a JSON value (a tuple, a set): the model is not read
        fields[node.target.id] = default
    return fields


def endpoint_path(url: str) -> str:
    return urlparse(url).path


def endpoint_port(url: str) -> int | None:
    try:
        return urlparse(url).port
    except ValueError:
        return None


def unserved_error(service: str, path: str) -> str:
    """The error every call of a tool its service does not serve gets (Claw-Eval's answer: a 404)."""
    return f"404 Not Found: the {service} service has no endpoint {path}"


def task_services(task_dir: Path, task: Any) -> dict[str, ServiceSource]:
    """Each of the task's services whose source the checkout holds, by name."""
    found = {}
    for service in task.services:
        source = service_source(task_dir, service.command)
        if source is not None:
            found[service.name] = source
    return found


def tool_endpoints(task: Any) -> dict[str, tuple[str, str]]:
    """Tool name -> (the service its endpoint reaches, the endpoint's path): the service listening on the URL's port,
    else the one the path's first part names; tools whose endpoint reaches none of the task's services are left out."""
    by_port: dict[int | None, str] = {}
    for s in task.services:  # the first service on a port is the one listening there (`claw_eval_start`)
        if s.port is not None:
            by_port.setdefault(s.port, s.name)
    names = {s.name for s in task.services}
    found = {}
    for endpoint in task.tool_endpoints:
        path = endpoint_path(endpoint.url)
        service = by_port.get(endpoint_port(endpoint.url)) or path.strip("/").split("/")[0]
        if service in names:
            found[endpoint.tool_name] = (service, path)
    return found


LOCAL_HOSTS = ("localhost", "127.0.0.1", "0.0.0.0", "::1")  # where the runner starts the task's services


def unreachable_tools(task: Any) -> dict[str, str]:
    """The task's tools whose endpoint is on this machine at a port none of its services listens on (every service
    names its port, as Claw-Eval's `ServiceDef` must; a URL without a port is at its scheme's): name -> the URL.
    Claw-Eval's dispatcher cannot connect and answers every call `Error: [Errno 111] Connection refused`."""
    ports = {s.port for s in task.services}
    if not task.services or None in ports:
        return {}
    offered = {t.name for t in task.tools}
    found = {}
    for endpoint in task.tool_endpoints:
        try:
            url = urlparse(endpoint.url)
            port = url.port or {"http": 80, "https": 443}.get(url.scheme)
        except ValueError:
            continue
        if endpoint.tool_name in offered and url.hostname in LOCAL_HOSTS and port not in ports:
            found[endpoint.tool_name] = endpoint.url
    return found


def unserved_tools(task_dir: Path, task: Any) -> dict[str, tuple[str, str]]:
    """The task's tools whose endpoint its service does not serve (a 404 there, for every call): name -> (service,
    path). Only services whose source is in the checkout are read."""
    sources = task_services(task_dir, task)
    offered = {t.name for t in task.tools}
    return {tool: (service, path) for tool, (service, path) in tool_endpoints(task).items()
            if tool in offered and service in sources and path not in sources[service].routes}


def refused_methods(task_dir: Path, task: Any) -> dict[str, tuple[str, str, str]]:
    """The task's tools whose endpoint names a method its service's route is not served by (a `GET` to a `POST`
    route: a 405 there, for every call, as Claw-Eval's dispatcher sends the method task.yaml gives): name ->
    (service, path, the error every call gets). Only routes the service's source in the checkout has are read."""
    sources = task_services(task_dir, task)
    offered = {t.name for t in task.tools}
    sent = {e.tool_name: e.method.upper() for e in task.tool_endpoints}
    found = {}
    for tool, (service, path) in tool_endpoints(task).items():
        served = sources[service].methods.get(path) if service in sources else None
        if tool in offered and served and sent.get(tool, "POST") not in served:
            found[tool] = (service, path, f"405 Method Not Allowed: the {service} service serves {path} by "
                                          f"{', '.join(sorted(served - {'HEAD'}))}, not {sent.get(tool, 'POST')}")
    return found


def request_models(task_dir: Path, task: Any) -> dict[str, dict[str, Any]]:
    """Tool name -> the fields of its endpoint's request model (with defaults, `REQUIRED`), where the checkout holds
    the service's source and the model is plain."""
    sources = task_services(task_dir, task)
    found = {}
    for tool, (service, path) in tool_endpoints(task).items():
        fields = sources[service].routes.get(path) if service in sources else None
        if fields is not None:
            found[tool] = fields
    return found


def handler_reads(task_dir: Path, task: Any) -> dict[str, set[str]]:
    """Tool name -> the request fields its endpoint's handler reads (`req.<field>`), where the checkout holds the
    service's source."""
    sources = task_services(task_dir, task)
    return {tool: sources[service].reads.get(path, set()) for tool, (service, path) in tool_endpoints(task).items()
            if service in sources}


def handler_counts_whole(task_dir: Path, task: Any) -> dict[str, bool]:
    """Tool name -> whether its endpoint's answer's `total` counts the whole list before the cut (`_counts_whole`),
    where the checkout holds the service's source and the handler says."""
    sources = task_services(task_dir, task)
    return {tool: sources[service].counts_whole[path] for tool, (service, path) in tool_endpoints(task).items()
            if service in sources and path in sources[service].counts_whole}


def handler_answers(task_dir: Path, task: Any) -> dict[str, list[tuple[str, ...]]]:
    """Tool name -> the key orders of the dicts its endpoint's handler writes (`ServiceSource.answers`), where the
    checkout holds the service's source."""
    sources = task_services(task_dir, task)
    return {tool: sources[service].answers[path] for tool, (service, path) in tool_endpoints(task).items()
            if service in sources and path in sources[service].answers}


def request_fields(task_dir: Path, task: Any) -> dict[str, list[RequestField]]:
    """Tool name -> its endpoint's request model, every field with its annotation and default (`Binding.
    request_model`), where the checkout holds the service's source and each annotation is one the env reads as
    pydantic does (`coworkenv.request_models.annotation_type`)."""
    sources = task_services(task_dir, task)
    found = {}
    for tool, (service, path) in tool_endpoints(task).items():
        source = sources.get(service)
        fields = source.routes.get(path) if source is not None else None
        if source is None or fields is None or set(fields) != set(source.annotations.get(path, {})):
            continue
        model = [RequestField(name=name, annotation=source.annotations[path][name], required=True)
                 if default is REQUIRED else RequestField(name=name, annotation=source.annotations[path][name],
                                                          default=default)
                 for name, default in fields.items()]
        try:
            model_of(model)
        except Exception:  # an annotation outside the grammar, a name pydantic refuses: the model is not read
            continue
        found[tool] = model
    return found
