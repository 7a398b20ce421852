"""The classes DAGSTER_HOME's dagster.yaml names (`module:` and `class:` of `compute_logs`, `run_launcher`,
`run_coordinator`, `local_artifact_storage`, a custom storage...), each loaded and its `config:` checked before any run.

Dagster loads most of them only when a run first needs one: a misspelt class (`LocalComputeLogManger`), a module
moved or not installed (`dagster_docker`, `dagster_dask`), or a setting the class does not take was found inside the
first run, after its run record was made, as a stack trace ("Couldn't find class ... when attempting to load the
configurable class"), and `dagster dev` started and failed each launched run the same way. Here each one is named
with the file's line and what to do.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

FIX = "fix the file (the project's dagster.yaml shows a working one)"


def named_classes(root: yaml.Node | None) -> Iterator[tuple[str, int, yaml.MappingNode]]:
    """(dotted section, line, node) of each mapping of the composed dagster.yaml that names a `module:` and a
    `class:` (Dagster's form for a class it loads from config)."""
    pending: list[tuple[str, yaml.Node]] = [("", root)] if root is not None else []
    visited: set[int] = set()
    while pending:
        where, node = pending.pop()
        if id(node) in visited or not isinstance(node, yaml.MappingNode):
            continue
        visited.add(id(node))
        keys = {key.value: value for key, value in node.value if isinstance(key, yaml.ScalarNode)}
        if isinstance(keys.get("module"), yaml.ScalarNode) and isinstance(keys.get("class"), yaml.ScalarNode):
            yield where or "(top level)", node.start_mark.line + 1, node
            continue
        pending.extend((f"{where}.{key}" if where else key, value) for key, value in reversed(list(keys.items())))


def class_problem(section: str, node: yaml.MappingNode) -> tuple[str, str] | None:
    """(the key at fault: module, class or config; why) Dagster could not load the class the mapping `node` names,
    or None when it can (and the class takes its config)."""
    from dagster._serdes.config_class import ConfigurableClassData

    values: dict[str, Any] = yaml.safe_load(yaml.serialize(node)) or {}
    module_name, class_name = str(values["module"]), str(values["class"])
    config = values.get("config")
    if config is not None and not isinstance(config, dict):
        return "config", f"{section}.config is {type(config).__name__} {config!r}, not a mapping of settings; {FIX}"
    data = ConfigurableClassData(module_name, class_name, yaml.dump(config or {}))
    named = f"{section} names class {class_name} of module {module_name}"
    try:
        module = importlib.import_module(data.module_name)
    except ModuleNotFoundError as exc:
        top = data.module_name.partition(".")[0]
        if exc.name == top:
            package = top.replace("_", "-")
            return "module", f"{named}, which is not installed ({exc}); install it (pip install {package}) or {FIX}"
        return "module", f"{named}, which cannot be imported ({exc}); correct the module's name, or {FIX}"
    except Exception as exc:  # a module that fails while it loads: its own words, on one line
        return "module", f"{named}, which fails to import ({type(exc).__name__}: {_first_line(exc)}); {FIX}"
    klass = getattr(module, data.class_name, None)
    if not isinstance(klass, type):
        near = difflib.get_close_matches(data.class_name, [n for n in dir(module) if not n.startswith("_")], n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        return "class", f"{named}, which has no such class{hint}; {FIX}"
    config_type = getattr(klass, "config_type", None)
    if config_type is None or section == "instance_class":  # the instance's own class takes no config here
        return None
    from dagster._config import process_config, resolve_to_config_type

    try:
        result = process_config(resolve_to_config_type(config_type()), data.config_dict)
    except Exception as exc:  # `{env: VAR}` unset and the like, said in Dagster's words
        return "config", f"{section}.config cannot be read ({_first_line(exc)}); {FIX}"
    if not result.success:
        said = _config_said(result.errors[0].message) if result.errors else "rejected"
        return "config", f"{section}.config does not suit {class_name} ({said}); {FIX}"
    return None


def _first_line(said: object) -> str:
    return next(iter(str(said).strip().splitlines()), "")


def class_problems(text: str) -> Iterator[tuple[int, str]]:
    """(line, problem) for each class the dagster.yaml `text` names that Dagster could not load."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        return  # said by the other checks, or by Dagster itself
    for section, line, node in named_classes(root):
        problem = class_problem(section, node)
        if problem is not None:
            key, said = problem
            at = next((k.start_mark.line + 1 for k, _ in node.value if isinstance(k, yaml.ScalarNode) and k.value == key),
                      line)
            yield at, said


def first_class_problem(config: Path) -> tuple[int, str] | None:
    """The first (line, problem) of `class_problems` in the file `config`; None when it has none or cannot be read."""
    try:
        text = config.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return next(class_problems(text), None)


def _config_said(message: str) -> str:
    """Dagster's config error on one line: without its schema ("Expected: ..."), and for a setting it failed to
    resolve (`{env: VAR}` unset) the reason, not the heading of its stack trace."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    said = lines[0] if lines else "rejected"
    if said.endswith("failed:") and len(lines) > 1:
        said = lines[1].partition("Error: ")[2] or lines[1]
    return said.split(" Expected:")[0].rstrip(".")
