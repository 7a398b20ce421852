"""coworkenv: executable, verifiable environments for AI coworkers."""

from coworkenv.agents import Episode, NoopPolicy, OraclePolicy, Policy, run_episode
from coworkenv.checks import AuditEntry, CheckResult, Reply, Verifier, VerifierResult
from coworkenv.env import Action, Env, StepResult, ToolCallRequest
from coworkenv.loading import SpecError, SpecIssue, load_spec, parse_spec, reference_issues
from coworkenv.spec import SCHEMA_VERSION, VERIFIER_VERSION, EnvSpec, envspec_json_schema

__all__ = [
    "SCHEMA_VERSION", "VERIFIER_VERSION", "Action", "AuditEntry", "CheckResult", "Env", "EnvSpec", "Episode",
    "NoopPolicy", "OraclePolicy", "Policy", "Reply", "SpecError", "SpecIssue", "StepResult", "ToolCallRequest",
    "Verifier", "VerifierResult", "envspec_json_schema", "load_spec", "parse_spec", "reference_issues", "run_episode",
]
