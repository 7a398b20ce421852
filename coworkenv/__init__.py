"""coworkenv: executable, verifiable environments for AI coworkers."""

from typing import TYPE_CHECKING, Any

from coworkenv.agents import NoopPolicy, OraclePolicy, Policy
from coworkenv.checks import AuditEntry, CheckResult, Reply, Verifier, VerifierResult
from coworkenv.env import Action, Env, StepResult, ToolCallRequest
from coworkenv.loading import SpecError, SpecIssue, load_spec, parse_spec, reference_issues
from coworkenv.spec import SCHEMA_VERSION, VERIFIER_VERSION, EnvSpec, envspec_json_schema

if TYPE_CHECKING:
    from coworkenv.rollout.agent_loop import Episode, run_episode

__all__ = [
    "SCHEMA_VERSION", "VERIFIER_VERSION", "Action", "AuditEntry", "CheckResult", "Env", "EnvSpec", "Episode",
    "NoopPolicy", "OraclePolicy", "Policy", "Reply", "SpecError", "SpecIssue", "StepResult", "ToolCallRequest",
    "Verifier", "VerifierResult", "envspec_json_schema", "load_spec", "parse_spec", "reference_issues", "run_episode",
]

_EPISODE_LOOP = frozenset({"Episode", "run_episode"})


def __getattr__(name: str) -> Any:
    # The episode loop lives with the trajectory record it writes (coworkenv.rollout); imported on first use so
    # that `import coworkenv` stays light.
    if name in _EPISODE_LOOP:
        from coworkenv.rollout import agent_loop

        return getattr(agent_loop, name)
    raise AttributeError(f"module 'coworkenv' has no attribute {name!r}")
