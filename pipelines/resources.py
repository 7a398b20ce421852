"""Settings resource: configured once, read by every asset; every field can be set from a COWORKENV_* variable."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import dagster as dg
from pydantic import Field, ValidationError, field_validator
from pydantic.fields import FieldInfo

from coworkenv.escaping import hidden_character_problem
from coworkenv.limits import MAX_ENVS, MAX_QUOTA, MAX_REPAIR_ROUNDS, MAX_REPLY_TOKENS, MAX_SAMPLES, MAX_STEPS
from coworkenv.name_bytes import holds_undecodable_bytes, undecodable_name_reason
from coworkenv.store._hub_environment import hub_repo_id_problem
from coworkenv.synth import Taxonomy, load_taxonomy
from coworkenv.unexpanded_paths import unexpanded_path
from coworkenv.url_credentials import url_credentials, without_url_credentials
from pipelines.dagster_internals import DefinitionConfigSchema, StringSourceType
from pipelines.dagster_private import TESTED_DAGSTER, DagsterInternalsError, advice, dagster_version
from pipelines.env_values import env_file_leftover

ENV_PREFIX = "COWORKENV_"
# Never trained on by default, so `make run` also measures a whole unseen capability (the learning benchmark holds
# out the same one). A taxonomy without it needs COWORKENV_HELD_OUT_CAPABILITY=<id> or "" (none).
DEFAULT_HELD_OUT_CAPABILITY = "reschedule_conflict"
# Settings are hashed (orjson) and stored (Parquet int64): an integer past 64 bits would fail there, deep in a run.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# A Hub repo id: `name` (the token's own namespace) or `namespace/name`, as the Hub spells them.
_REPO_ID = re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9._-]{0,95}/)?[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
# Settings whose value may hold a credential (user:password@ or ?api_key= in a server URL).
CREDENTIAL_SETTINGS = ("llm_url",)


class SettingsError(ValueError):
    """A COWORKENV_* variable that cannot be used: which variable, its value and what it must be."""


class CredentialInRunConfig(ValueError):
    """A run config (the `dagster dev` launchpad's, `dagster job launch --config`) giving a setting a credential in
    clear: Dagster keeps a run's config in its run storage, the run history every later reader of DAGSTER_HOME and
    the UI show."""


_CREDENTIAL_FREE_KEY = "CoworkenvCredentialFreeStringSource"  # Dagster knows a config type by its key


class _CredentialFreeStringSource(StringSourceType):
    """Dagster's StringSource (a text, or `{env: VARIABLE}`) refusing a text that holds URL credentials
    (user:password@, ?api_key=): the code location post-processes a run's config when it builds the execution plan,
    before the webserver (or `execute_in_process`) creates the run and stores its config."""

    def __init__(self, setting: str) -> None:
        dg.ScalarUnion.__init__(self, scalar_type=str, non_scalar_schema=dg.Selector({"env": str}),
                                _key=_CREDENTIAL_FREE_KEY)
        self.setting = setting

    def post_process(self, value: Any) -> Any:
        if isinstance(value, str) and url_credentials(value):
            # Not a PostProcessingError: Dagster quotes the value (the credential) in that error's message.
            variable = env_var(self.setting)
            raise CredentialInRunConfig(
                f"the run config gives {self.setting} a URL with a credential (user:password@ or a key in its query: "
                f"{without_url_credentials(value)}): Dagster would keep it in clear in the run history (its run "
                f"storage); the run was not created. Set {variable} in the environment of `dagster dev` (or write "
                f"`{self.setting}: {{env: {variable}}}` in the run config) and launch again")
        return super().post_process(value)


class CoworkenvSettings(dg.ConfigurableResource):  # type: ignore[type-arg]
    """Where data lives and how each stage runs. Defaults are the embedded, offline configuration.

    Each field `name` is read from the environment variable COWORKENV_<NAME> by `settings_from_env`.
    """

    data_dir: str = Field(default="data", description="Root of the content-addressed Parquet store, hub repo and checkpoints")
    taxonomy_dir: str = Field(default="taxonomy", description="Folder of capability YAML files")
    seed: int = Field(default=0, description="Base seed of generation (spec i of a capability uses seed + i)")
    specs_per_capability: int = Field(default=0, ge=0, le=MAX_QUOTA, description="Specs generated per capability; 0 uses each capability's quota")
    llm_url: str = Field(default="", description="OpenAI-compatible endpoint for generation/teacher; empty = procedural + oracle")
    llm_model: str = Field(default="", description="Model name at llm_url")
    repair_rounds: int = Field(default=3, ge=0, le=MAX_REPAIR_ROUNDS, description="Repair rounds of the validation loop")
    min_acceptance_rate: float = Field(default=0.5, ge=0.0, allow_inf_nan=False,
                                       description="validated_envs check: minimum acceptance rate (above 1: the check always fails)")
    hub_repo_id: str = Field(default="", description="Hugging Face dataset repo id; empty = local git repo under data/hub")
    train_config: str = Field(default="tiny", description="Trainer config name in trainers/configs")
    held_out_capability: str = Field(
        default=DEFAULT_HELD_OUT_CAPABILITY,
        description="Capability kept out of training: its envs are the test_heldout split; empty = none")
    test_fraction: float = Field(default=0.3, ge=0.0, lt=0.9,
                                 description="Fraction of the other capabilities' envs kept out of training (test split)")
    hub_model_repo_id: str = Field(default="", description="Hugging Face model repo id; empty = local git repo under data/hub")
    eval_max_envs: int = Field(default=30, ge=1, le=MAX_ENVS,
                               description="Held-out envs evaluated, taken round-robin over capabilities")
    eval_k: int = Field(default=1, ge=1, le=MAX_SAMPLES, description="Samples per env for pass@1 / pass^k")
    eval_max_steps: int = Field(default=4, ge=1, le=MAX_STEPS, description="Assistant messages per evaluated episode")
    eval_max_tokens: int = Field(default=96, ge=1, le=MAX_REPLY_TOKENS, description="Tokens per generated assistant message")
    rl_config: str = Field(default="rl-tiny", description="RL config name in trainers/configs (GRPO from the SFT checkpoint)")
    rl_max_envs: int = Field(default=64, ge=1, le=MAX_ENVS, description="Train-split envs RL may run episodes in (round-robin over "
                                                            "capabilities; those whose prompt does not fit are left out)")
    rl_seeds: int = Field(default=3, ge=1, le=MAX_SAMPLES, description="Seeds per reward x credit variant in rl_comparison")
    allow_partial: bool = Field(default=False, description="Publish even when some capability partitions are incomplete "
                                                           "(they are left out); otherwise publishing refuses")

    @field_validator("*")
    @classmethod
    def _fits_64_bits(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool) and not INT64_MIN <= value <= INT64_MAX:
            raise ValueError(f"must be a 64-bit integer (from {INT64_MIN} to {INT64_MAX})")
        if isinstance(value, str) and "\0" in value:  # no path, name or URL holds one; os calls fail on it later
            raise ValueError("must not hold a NUL character")
        if isinstance(value, str) and holds_undecodable_bytes(value):
            # Bytes Python could not decode, as it hands them over from the environment: Arrow, orjson and
            # Dagster's storage take UTF-8 only, and failed deep in the first step with a traceback.
            raise ValueError(undecodable_name_reason(value).replace("the name", "the value", 1))
        if isinstance(value, str):
            pasted = env_file_leftover(value)
            if pasted:
                raise ValueError(pasted)
        return value

    @field_validator("hub_repo_id", "hub_model_repo_id")
    @classmethod
    def _repo_id(cls, value: str) -> str:
        if value and not _REPO_ID.fullmatch(value):
            # A URL pasted for an id (maybe with user:password@): its id is what follows the host and the repo type.
            path = urlsplit(value).path if "://" in value else ""
            found = "/".join(part for part in path.split("/") if part and part not in ("datasets", "models"))
            hint = f" (for this URL: {found})" if found and _REPO_ID.fullmatch(found) else ""
            raise ValueError(f"must be a Hugging Face repo id such as org/coworkenv, not a URL or a path{hint}")
        problem = hub_repo_id_problem(value) if value else None
        if problem is not None:  # the shape right, but a name the Hub refuses: found at the publish, after the run
            raise ValueError(problem.split(" is not ", 1)[1].replace("a repo id", "must be a repo id", 1))
        return value

    @field_validator("data_dir", "taxonomy_dir", "train_config", "rl_config")
    @classmethod
    def _named(cls, value: str) -> str:
        if not value.strip():  # an empty data_dir would write into the current folder
            raise ValueError("must not be empty")
        hidden = hidden_character_problem(value.strip())  # `data\nx`: a folder made under that name, every line naming it split
        if hidden:
            raise ValueError(hidden)
        unexpanded = unexpanded_path(value)  # `~/data` or `$HOME/data` from an env file: a folder named `~` here
        if unexpanded:
            raise ValueError(unexpanded)
        return value

    @property
    def _config_schema(self) -> Any:
        """Dagster's config schema of this resource, each setting that may carry a credential typed so that a run
        config giving it one in clear is refused before the run is stored (`_CredentialFreeStringSource`)."""
        schema = super()._config_schema
        field = schema.as_field()
        fields = dict(field.config_type.fields)
        for name in CREDENTIAL_SETTINGS:
            old = fields[name]
            kept = {"default_value": old.default_value} if old.default_provided else {}
            fields[name] = dg.Field(_CredentialFreeStringSource(name), is_required=old.is_required,
                                    description=old.description, **kept)
        return DefinitionConfigSchema(dg.Field(dg.Shape(fields), is_required=field.is_required,
                                                   description=field.description,
                                                   **({"default_value": field.default_value}
                                                      if field.default_provided else {})))

    @property
    def root(self) -> Path:
        """The data folder, absolute: a relative COWORKENV_DATA_DIR is read from the folder the process started in,
        and the paths the run history records must name the folder they were written in, not another folder's
        `data` a run started elsewhere reads."""
        return Path(os.path.abspath(self.data_dir))

    @property
    def store_root(self) -> Path:
        return self.root / "store"

    def taxonomy(self) -> Taxonomy:
        return load_taxonomy(Path(self.taxonomy_dir))


def env_var(field: str) -> str:
    """The environment variable that sets a settings field."""
    return ENV_PREFIX + field.upper()


def settings_from_env(environ: Mapping[str, str] | None = None,
                      given_by: Mapping[str, str] | None = None) -> CoworkenvSettings:
    """Settings from COWORKENV_* variables (unset ones keep the defaults); SettingsError names a bad variable, or
    the command's flag that `given_by` says set it (`{"taxonomy_dir": "--taxonomy"}`)."""
    return _checked(_set_values(environ), given_by)


def dagster_settings(environ: Mapping[str, str] | None = None) -> CoworkenvSettings:
    """The settings resource of the Definitions: `settings_from_env`, with each setting that may carry a credential
    given by its variable's name, which Dagster resolves when a step starts.

    Dagster stores a resource's values in the job snapshot of every run (its run storage, shown by the UI): a URL
    such as http://user:password@host/v1 was kept there in clear.
    """
    values = _set_values(environ)
    _checked(values)
    by_name = {name: dg.EnvVar(env_var(name)) for name in CREDENTIAL_SETTINGS if values.get(name, "").strip()}
    given: dict[str, Any] = {**values, **by_name}  # pydantic converts the texts, as in `settings_from_env`
    settings = CoworkenvSettings(**given)
    _check_credential_schema(settings)
    return settings


def _check_credential_schema(settings: CoworkenvSettings) -> None:
    """DagsterInternalsError unless Dagster takes the settings' schema from `_config_schema`, with the credential
    check's type on each CREDENTIAL_SETTINGS field: a Dagster that stopped reading that private property would store
    a run config's credential in clear without a word."""
    shape: Any = settings.get_resource_definition().config_schema.as_field().config_type
    fields = shape.fields
    unchecked = [name for name in CREDENTIAL_SETTINGS if fields[name].config_type.key != _CREDENTIAL_FREE_KEY]
    if unchecked:
        raise DagsterInternalsError(
            f"dagster {dagster_version()} builds the settings resource's config schema without "
            f"CoworkenvSettings._config_schema (checked against dagster {TESTED_DAGSTER}), so a run config giving "
            f"{', '.join(unchecked)} a credential would be stored in clear in the run history. "
            f"{advice('adapt CoworkenvSettings._config_schema in pipelines/resources.py')}")


def _set_values(environ: Mapping[str, str] | None) -> dict[str, str]:
    environ = os.environ if environ is None else environ
    return {name: environ[env_var(name)] for name in CoworkenvSettings.model_fields if env_var(name) in environ}


def _checked(values: dict[str, str], given_by: Mapping[str, str] | None = None) -> CoworkenvSettings:
    try:
        return CoworkenvSettings.model_validate(values)  # pydantic converts "3", "true", "0.5" and checks the bounds
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]) if err["loc"] else "?"
        field = CoworkenvSettings.model_fields.get(name)
        what = f" ({field.description})" if field is not None and field.description else ""
        shown = without_url_credentials(values.get(name, ""))  # an error line is no place for a password
        problem = str(err["msg"])
        if field is not None and err["type"] in _OUT_OF_BOUNDS:
            problem = f"must be {allowed_range(field)}"
        flag = (given_by or {}).get(name)
        if flag is not None:  # the command line set the variable: the user typed the flag
            raise SettingsError(f"{flag} {shown!r}: {problem}{what}; fix the value") from None
        raise SettingsError(f"{env_var(name)}={shown!r}: {problem}{what}; fix or unset the variable") from None


_OUT_OF_BOUNDS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}


def allowed_range(field: FieldInfo) -> str:
    """The values a numeric setting takes, in words: "from 1 to 1000", "from 0.0 up", "from 0.0 to below 0.9"."""
    bounds = {kind: getattr(m, kind) for m in field.metadata for kind in ("ge", "gt", "le", "lt") if hasattr(m, kind)}
    low = f"from {bounds['ge']}" if "ge" in bounds else f"above {bounds['gt']}" if "gt" in bounds else ""
    high = f"to {bounds['le']}" if "le" in bounds else f"to below {bounds['lt']}" if "lt" in bounds else "up"
    return f"{low} {high}".strip()
