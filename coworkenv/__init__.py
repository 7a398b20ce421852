"""coworkenv: executable, verifiable environments for AI coworkers."""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from coworkenv.agents import NoopPolicy, OraclePolicy, Policy
    from coworkenv.checks import AuditEntry, CheckResult, Reply, Verifier, VerifierResult
    from coworkenv.env import Action, Env, StepResult, ToolCallRequest
    from coworkenv.loading import SpecError, SpecIssue, load_spec, parse_spec, reference_issues
    from coworkenv.rollout.agent_loop import Episode, run_episode
    from coworkenv.spec import SCHEMA_VERSION, VERIFIER_VERSION, EnvSpec, envspec_json_schema

# Where each public name lives. Imported on first use, so that `import coworkenv` (and with it every `coworkenv`
# command, `--help` included) does not build the apps' models, the verifier and the episode loop before it needs them.
_PUBLIC: dict[str, str] = {
    **dict.fromkeys(("NoopPolicy", "OraclePolicy", "Policy"), "coworkenv.agents"),
    **dict.fromkeys(("AuditEntry", "CheckResult", "Reply", "Verifier", "VerifierResult"), "coworkenv.checks"),
    **dict.fromkeys(("Action", "Env", "StepResult", "ToolCallRequest"), "coworkenv.env"),
    **dict.fromkeys(("SpecError", "SpecIssue", "load_spec", "parse_spec", "reference_issues"), "coworkenv.loading"),
    **dict.fromkeys(("Episode", "run_episode"), "coworkenv.rollout.agent_loop"),
    **dict.fromkeys(("SCHEMA_VERSION", "VERIFIER_VERSION", "EnvSpec", "envspec_json_schema"), "coworkenv.spec"),
}

__all__ = [
    "SCHEMA_VERSION", "VERIFIER_VERSION", "Action", "AuditEntry", "CheckResult", "Env", "EnvSpec", "Episode",
    "NoopPolicy", "OraclePolicy", "Policy", "Reply", "SpecError", "SpecIssue", "StepResult", "ToolCallRequest",
    "Verifier", "VerifierResult", "envspec_json_schema", "load_spec", "parse_spec", "reference_issues", "run_episode",
]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'coworkenv' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # the next lookup finds it without this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
