"""Fault corpus, a Hub token that the Hugging Face client reads for itself, as an env file or a hand edit leaves it:
`HF_TOKEN` or `HUGGING_FACE_HUB_TOKEN` in double or single quotes (`docker run --env-file` and systemd keep them),
with the `Bearer ` word of the header it was copied from, or the token file `hf auth login` writes (`HF_TOKEN_PATH`,
`~/.cache/huggingface/token`) edited so. Our own Hub publisher refuses such a token (`test_faults_credential_values`),
but a training that starts from a model on the Hub (`model.name_or_path: Qwen/...`, `train rl --model ORG/NAME`)
leaves the token to transformers, which reads it with `huggingface_hub.get_token()`: that strips blanks and line
breaks, not quotes or `Bearer `.

On main the token went to the Hub as written when the model was downloaded (the Hub answers a malformed token with
401, also for a public model), after the data was read and the trainer's modules loaded. Now the training refuses
before any model is loaded, naming the variable or the file, never the value (`coworkenv/credential_values.py:
hub_client_token_problem`, called where a model is loaded from the Hub). Loading is replaced by a stand-in that
records the token the client would send, so nothing is downloaded."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.harness import CAPABILITY, pipeline_refused, refused, stage_inputs

TOKEN = "hf_faultcorpusAbCdEfGhIjKlMnOpQrStUvWx"
HUB_MODEL = "Qwen/Qwen2.5-0.5B-Instruct"


class LoadStarted(Exception):
    """The stand-in for a model load: the token the client would have sent."""


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Specs, and SFT shards curated from their oracle trajectories."""
    return stage_inputs(tmp_path_factory.mktemp("inputs"))


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No token anywhere but where a case puts it; every load from the Hub replaced by the stand-in."""
    import huggingface_hub
    import transformers

    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_OIDC_RESOURCE", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE",
                 "HF_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    token_file = tmp_path / "hf-home" / "token"
    token_file.parent.mkdir()
    monkeypatch.setenv("HF_TOKEN_PATH", str(token_file))
    monkeypatch.setattr(huggingface_hub.constants, "HF_TOKEN_PATH", str(token_file))

    def load(*_: object, **__: object) -> None:
        raise LoadStarted(huggingface_hub.get_token())

    for loader in (transformers.AutoTokenizer, transformers.AutoConfig, transformers.AutoModelForCausalLM):
        monkeypatch.setattr(loader, "from_pretrained", load)
    return token_file


SHAPES = {
    "double-quotes": f'"{TOKEN}"',
    "single-quotes": f"'{TOKEN}'",
    "bearer": f"Bearer {TOKEN}",
    "bearer-quoted": f'"Bearer {TOKEN}"',
}


def _sft(inputs: dict[str, Path], tmp_path: Path, config: str = "pocketworker-8b") -> list[str]:
    return ["train", "sft", "--config", config, "--data", str(inputs["sft"]), "--out", str(tmp_path / "out")]


def _rl(inputs: dict[str, Path], tmp_path: Path) -> list[str]:
    return ["train", "rl", "--config", "rl-tiny", "--envs", str(inputs["specs"]), "--model", HUB_MODEL,
            "--out", str(tmp_path / "out")]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_hf_token_as_an_env_file_leaves_it_stops_a_training_from_a_hub_model(
        hub: Path, inputs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str) -> None:
    monkeypatch.setenv("HF_TOKEN", SHAPES[shape])
    line = refused(_sft(inputs, tmp_path), "HF_TOKEN", "Qwen/Qwen3-VL-8B-Instruct")
    assert TOKEN not in line, line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("shape", ["double-quotes", "bearer"])
def test_the_older_variable_read_by_the_client_is_checked_too(
        hub: Path, inputs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str) -> None:
    monkeypatch.setenv("HUGGING_FACE_HUB_TOKEN", SHAPES[shape])
    line = refused(_sft(inputs, tmp_path), "HUGGING_FACE_HUB_TOKEN")
    assert TOKEN not in line, line


@pytest.mark.parametrize("shape", ["double-quotes", "bearer"])
def test_the_token_file_of_hf_auth_login_edited_by_hand_is_checked(
        hub: Path, inputs: dict[str, Path], tmp_path: Path, shape: str) -> None:
    hub.write_text(SHAPES[shape] + "\n")
    line = refused(_sft(inputs, tmp_path), str(hub))
    assert TOKEN not in line, line


@pytest.mark.parametrize("variable", ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"])
def test_rl_from_a_hub_model_given_by_option_checks_the_token(
        hub: Path, inputs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str) -> None:
    monkeypatch.setenv(variable, SHAPES["single-quotes"])
    line = refused(_rl(inputs, tmp_path), variable, HUB_MODEL)
    assert TOKEN not in line, line
    assert not (tmp_path / "out").exists()


def _load_reached(args: list[str]) -> str | None:
    from typer.testing import CliRunner

    from coworkenv.cli import app

    done = CliRunner().invoke(app, args)
    assert isinstance(done.exception, LoadStarted), done.output
    return done.exception.args[0]


def test_a_token_with_blanks_or_a_line_break_reaches_the_hub_cleaned(
        hub: Path, inputs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression guard (held on main): the client strips these itself, so they are no reason to stop."""
    monkeypatch.setenv("HF_TOKEN", f"  {TOKEN}\n")
    assert _load_reached(_sft(inputs, tmp_path)) == TOKEN


def test_a_quoted_token_is_no_reason_to_stop_a_training_from_a_local_folder(
        hub: Path, inputs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression guard (held on main): a model in a local folder is loaded without the Hub."""
    local = tmp_path / "local-model"
    local.mkdir()
    # A whole folder's names, the weights a whole (empty) safetensors file: its loaders' first check reads the header.
    weights = len(b"{}").to_bytes(8, "little") + b"{}"
    for name, content in (("model.safetensors", weights), ("tokenizer_config.json", b"{}")):
        (local / name).write_bytes(content)
    configs = Path(__file__).parents[2] / "trainers" / "configs"
    config = tmp_path / "local.yaml"  # beside the accelerate and DeepSpeed configs it names
    config.write_text((configs / "pocketworker-8b.yaml").read_text().replace("Qwen/Qwen3-VL-8B-Instruct", str(local)))
    for name in ("accelerate_zero3.yaml", "deepspeed_zero3.json"):
        (tmp_path / name).write_bytes((configs / name).read_bytes())
    monkeypatch.setenv("HF_TOKEN", SHAPES["double-quotes"])
    assert _load_reached(_sft(inputs, tmp_path, str(config))) == f'"{TOKEN}"'


@pytest.mark.parametrize("variable", ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"])
def test_the_pipeline_refuses_the_token_before_a_run_that_trains_from_a_hub_model(
        hub: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        variable: str) -> None:
    """`python -m pipelines.run` with `COWORKENV_TRAIN_CONFIG=pocketworker-8b`: on main the run started, and its
    training asset would have sent the token as written, after the stages before it."""
    monkeypatch.setenv(variable, SHAPES["double-quotes"])
    line = pipeline_refused(tmp_path, monkeypatch, capsys, "COWORKENV_TRAIN_CONFIG", "pocketworker-8b",
                            "--only", CAPABILITY)
    assert line.startswith("error: COWORKENV_TRAIN_CONFIG='pocketworker-8b'") and variable in line, line
    assert TOKEN not in line, line


@pytest.mark.parametrize("variable", ["HF_HOME", "XDG_CACHE_HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"])
def test_a_cache_variable_set_but_empty_stops_a_training_from_a_hub_model_naming_it(
        hub: Path, inputs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str) -> None:
    """`HF_HOME=` (an env file's empty line, `export HF_HOME=$UNSET`): the client joins its paths onto "" and looks
    for the model in the current folder; on main an offline training failed a minute later with "couldn't find them
    in the cached files", naming no variable, and online it downloaded the model again into the current folder."""
    monkeypatch.setenv(variable, "")
    line = refused(_sft(inputs, tmp_path), variable, "set but empty", "Qwen/Qwen3-VL-8B-Instruct")
    assert not (tmp_path / "out").exists()
    monkeypatch.setenv(variable, " ")
    refused(_rl(inputs, tmp_path), variable, HUB_MODEL)
    assert "unset" in line, line


def test_an_empty_cache_variable_is_no_reason_to_stop_a_training_from_a_local_folder(
        hub: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression guard: a model in a local folder is loaded without the client's cache."""
    from coworkenv.credential_values import hub_client_token_problem

    monkeypatch.setenv("HF_HOME", "")
    assert hub_client_token_problem(str(tmp_path)) is None
    assert hub_client_token_problem(HUB_MODEL) is not None
