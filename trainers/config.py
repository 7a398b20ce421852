"""SFT run configurations: typed, loaded from `trainers/configs/<name>.yaml` or any YAML path.

A config names the starting model (a locally built tiny model, or pretrained weights by Hub id or path), the optional
LoRA adapter, the optimisation settings that become TRL's `SFTConfig`, and for multi-GPU runs the accelerate and
DeepSpeed files to launch with. Relative file paths in a config resolve against the config's own folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from coworkenv.escaping import escape_hidden
from coworkenv.yaml_files import YAML_SUFFIXES, YAMLFileError, read_config_text, read_yaml
from trainers.chat_templates import has_generation_markers, trl_chat_template
from trainers.rendering import RenderingMode

if TYPE_CHECKING:
    from trainers.tiny_model import TinyModelSpec

__all__ = [
    "CONFIGS_DIR",
    "ConfigSection",
    "DistributedSection",
    "LoraSection",
    "ModelSection",
    "SFTRunConfig",
    "TinySection",
    "TrainingSection",
    "load_sft_config",
]

CONFIGS_DIR = Path(__file__).resolve().parent / "configs"


class ConfigSection(BaseModel):
    """A section of a run config. A key it does not know fails loudly instead of silently keeping a default; a number
    it cannot use fails at load instead of deep in a run: an infinite learning rate can only give NaN losses, an
    integer past 64 bits fails inside torch once training has started."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    @field_validator("*")
    @classmethod
    def _fits_64_bits(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
            raise ValueError("must be a 64-bit integer (torch and the run metadata take no larger one)")
        return value


class TinySection(ConfigSection):
    """Sizes of the locally initialised Qwen3-architecture model and its corpus-trained tokenizer."""

    vocab_size: Annotated[int, Field(ge=300, description="BPE vocabulary size incl. 256 byte symbols")] = 2048
    hidden_size: Annotated[int, Field(ge=8)] = 128
    intermediate_size: Annotated[int, Field(ge=8)] = 384
    num_hidden_layers: Annotated[int, Field(ge=1)] = 2
    num_attention_heads: Annotated[int, Field(ge=1)] = 4
    num_key_value_heads: Annotated[int, Field(ge=1)] = 2
    head_dim: Annotated[int, Field(ge=4)] = 32
    max_position_embeddings: Annotated[int, Field(ge=64)] = 4096
    min_token_frequency: Annotated[int, Field(ge=1)] = 2
    copy_head: Annotated[bool, Field(description="add a pointer-generator copy head (trainers.copy_model): a "
                                     "from-scratch model then copies ids and values it read")] = False
    copy_head_dim: Annotated[int, Field(ge=4)] = 64
    copy_from_read: Annotated[bool, Field(description="the copy head copies only from earlier messages (what was "
                                          "read), never from the message being written")] = False
    copy_induction: Annotated[bool, Field(description="the copy head's keys and queries carry the two tokens before "
                                          "each position, so a value read earlier is copied on from where it "
                                          "was read once its first token is written")] = False
    copy_induction_run: Annotated[int, Field(ge=0, le=32, description="0: the induction match compares the two "
                                             "tokens before a position independently; n: it credits the length "
                                             "of the common run, up to n tokens, so a value copied on continues "
                                             "from the place it was read, not from any place the last two "
                                             "tokens occur (trainers.copy_model); needs copy_induction")] = 0
    word_split: Annotated[Literal["qwen", "bare", "capitals"], Field(
        description="qwen: Qwen's pre-tokenization (a word carries the space or punctuation before it: ' INC' in "
        "prose, 'INC' after a JSON quote); bare: a word never does, so a value is the same tokens wherever it "
        "stands and the copy head can copy its first word; capitals: only a word starting with a capital letter "
        "never does (ids and names copy as under bare, with far fewer space tokens) (trainers.tiny_model)")] = "qwen"

    @model_validator(mode="after")
    def _heads_divide(self) -> TinySection:
        if self.num_attention_heads % self.num_key_value_heads:
            raise ValueError("num_attention_heads must be a multiple of num_key_value_heads (grouped-query attention)")
        if self.copy_induction_run and not (self.copy_head and self.copy_induction):
            raise ValueError(f"copy_induction_run: {self.copy_induction_run} lengthens the copy head's induction "
                             "match, and this model has none: set copy_head: true and copy_induction: true, or "
                             "copy_induction_run: 0")
        return self

    def spec(self) -> TinyModelSpec:
        """The tiny model spec consumed by `trainers.tiny_model.build_tiny_model`."""
        from trainers.tiny_model import TinyModelSpec  # torch/transformers: imported only when a model is built

        return TinyModelSpec(**self.model_dump())


class ModelSection(ConfigSection):
    """Where the starting weights come from."""

    source: Annotated[
        Literal["tiny", "pretrained"],
        Field(description="tiny: build locally from the corpus; pretrained: load `name_or_path`"),
    ]
    name_or_path: Annotated[str | None, Field(description="Hub id or local folder, for source=pretrained")] = None
    dtype: Literal["float32", "bfloat16", "float16"] = "float32"
    attn_implementation: Literal["eager", "sdpa", "flash_attention_2"] | None = None
    chat_template: Annotated[
        str | None,
        Field(
            description="a training template shipped with trl (trl/chat_templates/<name>.jinja, with {% generation %}"
            " markers); None keeps the model's own template, which TRL patches when it knows it"
        ),
    ] = None
    rendering: Annotated[
        RenderingMode,
        Field(
            description="how tools and tool calls are rendered (trainers.rendering): full schemas, compact ones "
            "(short descriptions, parameter types only, compact JSON arguments) for models with a short context, "
            "or minimal ones (compact without descriptions) for models trained from scratch; spaced is minimal "
            "with every JSON string value of a call or a tool result after one space (a value named in prose is "
            "then the same tokens in a call); cells is spaced with every markdown table in a tool result written "
            "one cell per line after its row key and column name; "
            "the checkpoint records it and evaluation renders the same way"
        ),
    ] = "full"
    tiny: TinySection = TinySection()

    @model_validator(mode="after")
    def _check_source(self) -> ModelSection:
        if self.source == "pretrained" and not self.name_or_path:
            raise ValueError("model.name_or_path is required when model.source is 'pretrained'")
        if self.source == "tiny" and self.chat_template is None:
            raise ValueError("model.chat_template is required when model.source is 'tiny' (e.g. qwen3_training)")
        if self.chat_template is not None and not has_generation_markers(trl_chat_template(self.chat_template)):
            raise ValueError(
                f"model.chat_template {self.chat_template!r} has no {{% generation %}} markers, so assistant-only "
                "loss cannot be computed; pick a *_training template"
            )
        return self


class LoraSection(ConfigSection):
    """LoRA adapter settings; when disabled the whole model is fine-tuned."""

    enabled: bool = False
    r: Annotated[int, Field(ge=1)] = 16
    alpha: Annotated[int, Field(ge=1)] = 32
    dropout: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.05
    learning_rate: Annotated[
        float | None, Field(gt=0, description="replaces training.learning_rate when enabled (adapters want more)")
    ] = None
    target_modules: list[str] = Field(
        default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    )


class TrainingSection(ConfigSection):
    """Optimisation settings, passed through to TRL's `SFTConfig`."""

    max_length: Annotated[int, Field(ge=16, description="tokens per example; longer ones are truncated")] = 1024
    num_train_epochs: Annotated[float, Field(gt=0)] = 1.0
    max_steps: Annotated[int, Field(description="overrides epochs when > 0")] = -1
    per_device_train_batch_size: Annotated[int, Field(ge=1)] = 4
    gradient_accumulation_steps: Annotated[int, Field(ge=1)] = 1
    learning_rate: Annotated[float, Field(gt=0)] = 2e-5
    lr_scheduler_type: str = "cosine"
    warmup_ratio: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    warmup_steps: Annotated[int, Field(ge=0, description="warm-up in steps; overrides warmup_ratio when > 0 (for "
                                       "runs stopped by a time budget, where max_steps is only a ceiling)")] = 0
    weight_decay: Annotated[float, Field(ge=0.0)] = 0.0
    max_grad_norm: Annotated[float, Field(gt=0)] = 1.0
    seed: int = 0
    bf16: bool = False
    copy_pointer_loss: Annotated[float, Field(ge=0.0, description="on a copy-head model, the weight of the copy "
                                              "head's own loss on every label it could copy, added to the mixture's "
                                              "(trainers.copy_model.install_fused_lm_head); 0: off")] = 0.0
    gradient_checkpointing: bool = False
    logging_steps: Annotated[int, Field(ge=1)] = 1
    packing: bool = False
    dataloader_num_workers: Annotated[int, Field(ge=0)] = 0


class DistributedSection(ConfigSection):
    """Launcher files for multi-GPU runs (`accelerate launch --config_file ...`); unused on a single device."""

    accelerate_config: Path | None = None
    deepspeed_config: Path | None = None


class SFTRunConfig(ConfigSection):
    """One SFT recipe: starting model, adapter, optimisation, launcher files."""

    name: Annotated[str, Field(min_length=1)]
    description: str = ""
    model: ModelSection
    lora: LoraSection = LoraSection()
    training: TrainingSection = TrainingSection()
    distributed: DistributedSection = DistributedSection()

    @model_validator(mode="after")
    def _pointer_loss_needs_a_copy_head(self) -> SFTRunConfig:
        copy_head = self.model.source == "tiny" and self.model.tiny is not None and self.model.tiny.copy_head
        if self.training.copy_pointer_loss > 0 and not copy_head:
            raise ValueError("training.copy_pointer_loss trains a copy head, and this model has none: set "
                             "model.tiny.copy_head: true (a from-scratch model) or copy_pointer_loss: 0")
        return self

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (paths as strings), for run metadata."""
        data: dict[str, Any] = json.loads(self.model_dump_json())
        return data


def load_sft_config(config: str | Path) -> SFTRunConfig:
    """Load a config by name (`tiny`, `pocketworker-8b`: files in `trainers/configs/`) or by YAML path.

    Relative `distributed.*` paths are resolved against the YAML's folder and must exist.
    """
    path = Path(config)
    if path.suffix.lower() not in YAML_SUFFIXES:
        path = CONFIGS_DIR / f"{config}.yaml"
    if not path.exists():
        known = sorted(p.stem for p in CONFIGS_DIR.glob("*.yaml") if p.stem != "accelerate_zero3")
        raise FileNotFoundError(config_not_found("SFT config", config, path, known))
    loaded = read_run_config(path, SFTRunConfig, "an SFT config")
    return loaded.model_copy(update={"distributed": launcher_files(loaded.distributed, path)})


_Config = TypeVar("_Config", bound=BaseModel)


def config_not_found(what: str, config: str | Path, path: Path, known: list[str]) -> str:
    """Why the config `config` (a name, or a path) was not found at `path`, with what to pass instead. A folder or a
    file without a YAML suffix is read as a name, so `path` is in trainers/configs: the message says what `config` is
    (measured: "not found at runs/cfg.yaml" for the folder runs/cfg). Paths are shown with control characters
    escaped: a line break in one split the message (and the pipeline kept its first line)."""
    given = Path(config)
    names = f"known names: {', '.join(known)}"
    if path != given and given.is_dir():
        inside = sorted(p.name for p in given.iterdir() if p.suffix.lower() in YAML_SUFFIXES)[:5]
        holds = f" (it holds {', '.join(escape_hidden(n) for n in inside)})" if inside else ""
        return (f"{what} {config!r} is a folder, not a config file; pass a YAML file{holds} or a config name; "
                f"{names}")
    if path != given and given.is_file():
        return (f"{what} {config!r} is a file without a .yaml or .yml suffix, so it was read as a config name (and "
                f"{escape_hidden(str(path))} does not exist); rename it to end in .yaml, or pass a config name; {names}")
    return f"{what} {config!r} not found at {escape_hidden(str(path))}; {names}"


def read_run_config(path: Path, model: type[_Config], what: str) -> _Config:
    """`path` validated as `model`; YAMLFileError (a ValueError) names the file, the line and the problem."""
    document = read_yaml(path)
    if not isinstance(document.data, dict):
        found = "nothing" if document.data is None else f"a {type(document.data).__name__}"
        raise YAMLFileError(path, 1, f"{what} is a YAML mapping at the top level, and this file holds {found}")
    try:
        config = model.model_validate(document.data)
    except ValidationError as exc:
        raise document.schema_error(exc) from None
    document.check_booleans(config)
    return config


def launcher_files(distributed: DistributedSection, config_file: Path) -> DistributedSection:
    """`distributed` with its files resolved against `config_file`'s folder, each checked as its reader (the
    `accelerate launch` of a multi-GPU run, which starts minutes later on another machine) would read it: a file,
    readable, UTF-8, valid YAML (`accelerate_config`: a mapping) or valid JSON (`deepspeed_config`: an object, no key
    written twice, which DeepSpeed refuses). YAMLFileError (a ValueError) names the file, the line, the config key
    and the config that names it."""
    resolved: dict[str, Path | None] = {}
    for field in ("accelerate_config", "deepspeed_config"):
        value: Path | None = getattr(distributed, field)
        if value is not None:
            value = value if value.is_absolute() else (config_file.parent / value).resolve()
            named = f"distributed.{field} of {config_file}"
            if not value.exists():
                raise FileNotFoundError(f"{named} points to {value}, which does not exist; fix the path (relative "
                                        "paths are read from the config's folder) or remove the key")
            problem = _launcher_file_problem(value, "JSON" if field == "deepspeed_config" else "YAML")
            if problem is not None:
                raise YAMLFileError(problem.file, problem.line, f"{problem.message} (named by {named}, for the "
                                    "multi-GPU launcher; fix the file, or remove the key on one device)")
        resolved[field] = value
    if resolved["accelerate_config"] is not None:
        _check_launched_deepspeed_file(resolved["accelerate_config"], resolved["deepspeed_config"], config_file)
    return distributed.model_copy(update=resolved)


# The folder the README's recipe launches `accelerate launch` from: the repository root.
LAUNCH_ROOT = CONFIGS_DIR.parents[1]


def _check_launched_deepspeed_file(accelerate: Path, deepspeed: Path | None, config_file: Path) -> None:
    """YAMLFileError unless the DeepSpeed file the accelerate config names (`deepspeed_config.deepspeed_config_file`),
    read as `accelerate launch` reads it (relative to the folder it is launched in: the repository root, or the folder
    this runs in), exists, is the file `distributed.deepspeed_config` names (or holds its bytes), and is a JSON object
    DeepSpeed takes. The
    two keys were checked apart: a pair copied beside one's own config launched DeepSpeed on the shipped JSON while
    the config named the copy, and a path written relative to the config's folder was found missing on the GPU node."""
    document = read_yaml(accelerate)
    section = document.data.get("deepspeed_config")
    written = section.get("deepspeed_config_file") if isinstance(section, dict) else None
    if written is None:
        return
    line = document.line(("deepspeed_config", "deepspeed_config_file"))
    named = f"deepspeed_config_file of {accelerate}"
    fix = ("write the path of the file the training config names; an absolute path reads the same from any folder "
           "(or remove the distributed keys on one device)")
    if not isinstance(written, str) or not written.strip():
        raise YAMLFileError(accelerate, line, f"deepspeed_config_file is {written!r}, not a path; {fix}")
    path = Path(written).expanduser()
    candidates = [path] if path.is_absolute() else list(dict.fromkeys([LAUNCH_ROOT / path, Path.cwd() / path]))
    found = [candidate.resolve() for candidate in candidates if candidate.is_file()]
    launched = " or ".join(str(candidate) for candidate in candidates)
    if not found:
        relative = "" if path.is_absolute() else (" (`accelerate launch` reads it from the folder it is launched in, the "
                                                   "repository root, not from the config's folder)")
        raise YAMLFileError(accelerate, line, f"deepspeed_config_file {written!r} names {launched}, which does not "
                                              f"exist{relative}; {fix}")
    # A copy of the same bytes runs DeepSpeed alike (a pair copied and not edited); an edited one does not.
    if deepspeed is not None and not any(candidate.samefile(deepspeed) or candidate.read_bytes() == deepspeed.read_bytes()
                                         for candidate in found):
        raise YAMLFileError(
            accelerate, line,
            f"deepspeed_config_file {written!r} names {launched}, not the distributed.deepspeed_config of "
            f"{config_file} ({deepspeed}): DeepSpeed would run on another file than the config names; {fix}")
    if deepspeed is None:
        problem = _launcher_file_problem(found[0], "JSON")
        if problem is not None:
            raise YAMLFileError(problem.file, problem.line, f"{problem.message} (named by {named}, for the multi-GPU "
                                "launcher; fix the file, or remove the key on one device)")


def _launcher_file_problem(path: Path, kind: str) -> YAMLFileError | None:
    """What is wrong with a launcher file for its reader, or None."""
    if path.is_dir():
        return YAMLFileError(path, None, f"is a folder; name the {kind} file itself")
    try:
        if kind == "YAML":
            document = read_yaml(path)
            if not isinstance(document.data, dict):
                found = "nothing" if document.data is None else f"a {type(document.data).__name__}"
                return YAMLFileError(path, 1, f"an accelerate config is a YAML mapping, and this file holds {found}")
            return None
        _check_json_object(path)
    except YAMLFileError as exc:
        return exc
    return None


def _check_json_object(path: Path) -> None:
    """YAMLFileError unless `path` holds one JSON object with no key written twice (DeepSpeed's own reading)."""
    text = read_config_text(path, kind="JSON")

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in pairs]
        twice = next((key for key in keys if keys.count(key) > 1), None)
        if twice is not None:
            raise ValueError(f"the key {twice!r} appears twice in one object (DeepSpeed refuses it); keep one")
        return dict(pairs)

    try:
        data = json.loads(text, object_pairs_hook=unique)
    except json.JSONDecodeError as exc:
        raise YAMLFileError(path, exc.lineno, f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    except ValueError as exc:  # a key twice: json gives no position (the same key may be in another object)
        raise YAMLFileError(path, None, str(exc)) from None
    if not isinstance(data, dict):
        raise YAMLFileError(path, 1, f"a DeepSpeed config is a JSON object, and this file holds a {type(data).__name__}")
