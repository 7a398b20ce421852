"""The part of a Claw-Eval task folder's `task.yaml` the importer reads, as lenient pydantic models."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator, SchemaError
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from coworkenv.yaml_files import alias_problem, control_character_problem, too_deep


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ClawTool(_Lenient):
    name: str
    description: str = ""
    input_schema: dict[str, Any] = {"type": "object", "properties": {}}

    @field_validator("input_schema")
    @classmethod
    def _an_object_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        """A tool's arguments are declared by a valid JSON Schema of an object, as the agent is shown it: anything
        else (`required: null`, `properties: []`) is this task's problem, named here, not a crash of whatever reads
        the schema first."""
        try:
            Draft202012Validator.check_schema(value)
        except SchemaError as exc:
            raise ValueError(f"not a valid JSON Schema: {exc.message}") from None
        if value.get("type", "object") != "object" or not isinstance(value.get("properties", {}), dict):
            raise ValueError("not the JSON Schema of an object (type object, properties a mapping)")
        return value


class ClawCheck(_Lenient):
    type: str
    tool_name: str | None = None
    min_calls: int | None = None
    keywords: list[str] | None = None
    categories: list[str] | None = None
    min_length: int | None = None

    @field_validator("keywords", "categories", mode="before")
    @classmethod
    def _keywords_as_text(cls, value: Any) -> Any:  # YAML reads 4.2 or 2026 as numbers
        return [str(v) for v in value] if isinstance(value, list) else value


class ClawComponent(_Lenient):
    name: str
    weight: float
    check: ClawCheck


class ClawSafety(_Lenient):
    type: str
    tool_name: str | None = None
    field: str | None = None  # tool_not_called_with: the argument and the value that make a call unsafe
    value: Any = None
    description: str = ""


class ClawService(_Lenient):
    name: str
    env: dict[str, str] = {}
    command: str = ""  # how Claw-Eval runs it: `python mock_services/<name>/server.py`
    port: int | None = None
    health_check: str = ""  # the URL the runner probes before starting it (answered: already running) and after
    ready_timeout: int = 10  # seconds the runner polls the health check of the process it started
    # where the runner resets it; its audit (`.../audit`, fetched after the episode) is what a grader reads of it:
    # a service without one has no `audit_data` entry
    reset_endpoint: str = ""


class ClawEndpoint(_Lenient):
    tool_name: str
    url: str
    method: str = "POST"  # what Claw-Eval's dispatcher sends (`httpx` upper-cases it)


class ClawPrompt(_Lenient):
    text: str
    language: str = "zh"
    attachments: list[str] = []


class ClawEnvironment(_Lenient):
    """The runner's settings of a task (Claw-Eval's `Environment`, its defaults)."""

    max_turns: int = 20  # model calls before the loop stops (`runner/loop.py`); then it grades (0: none at all)
    timeout_seconds: int = 300  # the loop's wall clock, checked before each model call: past it the loop stops and
    # grades (the spec's `time_limit_s`; 0 or less: before the first call, so the task is skipped)
    enable_todo: bool = False  # the harness's own `todo` tool, answered in the loop (`runner/agent_tools.py`)
    enable_compact: bool = False  # the harness's `compact` tool and its summaries of the conversation


class ClawTask(_Lenient):
    """The part of a Claw-Eval task.yaml the importer reads."""

    task_id: str
    task_name: str = ""
    category: str = ""
    difficulty: str = ""
    tags: list[str] = []
    prompt: ClawPrompt
    tools: list[ClawTool] = []
    services: list[ClawService] = []
    tool_endpoints: list[ClawEndpoint] = []
    scoring_components: list[ClawComponent] = []
    safety_checks: list[ClawSafety] = []
    judge_rubric: str = ""
    user_agent: dict[str, Any] = {}
    sandbox_files: list[str] = []
    environment: ClawEnvironment = ClawEnvironment()


class ImportProblem(ValueError):
    """A task that cannot be imported at all."""


class _Loader(yaml.SafeLoader):
    """YAML 1.1 as `safe_load` reads it, except base-60 numbers: `14:30` stays the text 14:30 (a time), not 870."""


_INT, _FLOAT = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_Loader.yaml_implicit_resolvers = {first: [(tag, rx) for tag, rx in resolvers if tag not in (_INT, _FLOAT)]
                                   for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver(_INT, re.compile(
    r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"), list("-+0123456789"))
_Loader.add_implicit_resolver(_FLOAT, re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"), list("-+0123456789."))


def load_task(task_dir: Path) -> ClawTask:
    """Read tasks/<ID>/task.yaml; ImportProblem naming the file and field on bad input."""
    path = task_dir / "task.yaml"
    try:
        text = path.read_text(encoding="utf-8")
        control = control_character_problem(text)
        if control is not None:
            raise ImportProblem(f"{path}:{control[0]}: {control[1]}")
        if too_deep(text):
            raise ImportProblem(f"{path}: not valid YAML (nested too deeply to read)")
        aliases = alias_problem(yaml.compose(text, Loader=_Loader))
        if aliases is not None:
            raise ImportProblem(f"{path}:{aliases[0]}: {aliases[1]}")
        data = yaml.load(text, Loader=_Loader)  # a SafeLoader
        return ClawTask.model_validate(data)
    except OSError as exc:
        raise ImportProblem(f"{path}: cannot read ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        raise ImportProblem(f"{path}: not valid YAML ({exc})") from None
    except RecursionError:
        raise ImportProblem(f"{path}: not valid YAML (nested too deeply to read)") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ImportProblem(f"{path}: {where}: {err['msg']}") from None
