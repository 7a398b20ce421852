"""`coworkenv train`: SFT, RL (one reward/credit variant) and the RL variant comparison.

Trainer modules import torch, transformers and trl, so they are imported inside the commands: `coworkenv --help`
stays fast.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import orjson
import typer

from coworkenv.commands import fail, say, specs_or_exit

if TYPE_CHECKING:
    from coworkenv.spec import EnvSpec

_Config = TypeVar("_Config")
app = typer.Typer(help="Train PocketWorker models: SFT on sft_shards, RL in validated envs.", no_args_is_help=True)


class Reward(StrEnum):
    binary = "binary"
    partial = "partial"
    shaped = "shaped"


class Credit(StrEnum):
    trajectory = "trajectory"
    turn = "turn"


def _print_json(value: Any) -> None:
    typer.echo(orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY).decode())


def _specs(envs: Path) -> list[EnvSpec]:
    return specs_or_exit(envs)


def _step_line(entry: dict[str, float]) -> None:
    fields = [f"step {int(entry['step'])}", f"reward {entry.get('reward', 0.0):.3f}±{entry.get('reward_std', 0.0):.3f}"]
    if "env/score" in entry:
        fields.append(f"score {entry['env/score']:.3f}, pass {entry.get('env/pass_rate', 0.0):.2f}")
    fields.append(f"loss {entry.get('loss', 0.0):.4f}")
    typer.echo("  " + ", ".join(fields), err=True)


ConfigOption = Annotated[str, typer.Option("--config", help="Config name in trainers/configs/ or a YAML path.")]
OutOption = Annotated[Path, typer.Option("--out", help="Output folder (replaced only once the run is complete).")]
EnvsOption = Annotated[Path, typer.Option("--envs", help="A spec JSON file, a folder of them, or Parquet with a "
                                                        "spec_json column (synth or validate output).")]
ModelOption = Annotated[
    Path | None, typer.Option("--model", help="Checkpoint to start from (e.g. the SFT output); default: the config's.")
]
StepsOption = Annotated[int | None, typer.Option("--max-steps", min=1, help="Override training.max_steps.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


def _loaded(load: Callable[[str], _Config], config: str) -> _Config:
    """`config` loaded before the trainer modules: a mistake in it is named in seconds, not once torch is imported
    (a minute on a busy machine)."""
    try:
        return load(config)
    except (FileNotFoundError, ValueError) as exc:
        fail(str(exc))


@app.command()
def sft(config: ConfigOption, data: Annotated[Path, typer.Option("--data", help="Folder of sft_shards Parquet.")],
        out: OutOption, as_json: JsonOption = False) -> None:
    """Supervised fine-tuning on sft_shards (TRL SFTTrainer, assistant-only loss)."""
    from trainers.config import load_sft_config

    run_config = _loaded(load_sft_config, config)
    from coworkenv.store.stages import sft_files

    if not data.is_dir() and not data.is_file():  # named before the trainer modules are imported (a minute)
        try:
            sft_files(data, "train")
        except (FileNotFoundError, ValueError) as exc:
            fail(str(exc))
    from trainers.sft import SFTProgress, train_sft

    def progress(p: SFTProgress) -> None:
        typer.echo(f"  step {p.step}/{p.max_steps}, loss {p.loss:.4f}", err=True)

    try:
        result = train_sft(run_config, data, out, progress=progress)
    except (FileNotFoundError, FileExistsError, ValueError) as exc:
        fail(str(exc))
    if as_json:
        _print_json(result.to_dict())
        return
    typer.echo(f"{result.steps} steps in {result.wall_s:.0f} s: loss {result.train_loss_first:.4f} -> "
               f"{result.train_loss_last:.4f}")
    say(f"checkpoint: {result.out_dir}  (loss curve: {result.loss_curve})")


@app.command()
def rl(config: ConfigOption, envs: EnvsOption, out: OutOption,
       reward: Annotated[Reward | None, typer.Option(help="Reward treatment; default: the config's.")] = None,
       credit: Annotated[Credit | None, typer.Option(help="Credit assignment; default: the config's.")] = None,
       model: ModelOption = None, max_steps: StepsOption = None, as_json: JsonOption = False) -> None:
    """GRPO from student rollouts in ENVS with the verifier's reward (one reward/credit variant)."""
    from trainers.rl_config import load_rl_config

    run_config = _loaded(load_rl_config, config)
    specs = _specs(envs)  # a wrong ENVS named before the trainer modules are imported (a minute on a busy machine)
    from trainers.rl import train_rl

    try:
        result = train_rl(run_config, specs, out, reward=reward.value if reward else None,
                          credit=credit.value if credit else None,
                          model_path=model, max_steps=max_steps, progress=None if as_json else _step_line)
    except (FileNotFoundError, FileExistsError, ValueError, KeyError) as exc:
        fail(str(exc))
    if as_json:
        _print_json(result.to_dict())
        return
    typer.echo(f"{result.steps} steps in {result.wall_s:.0f} s on {len(result.envs)} envs "
               f"({len(result.envs_skipped)} left out), reward {result.reward}, credit {result.credit}")
    for env_id, why in result.envs_skipped.items():
        typer.echo(f"  left out {env_id}: {why}", err=True)
    say(f"checkpoint: {result.out_dir}  (reward curve: {result.reward_curve})")


@app.command("rl-compare")
def rl_compare(config: ConfigOption, envs: EnvsOption, out: OutOption, model: ModelOption = None,
               max_steps: StepsOption = None,
               reward: Annotated[list[Reward] | None, typer.Option(help="Treatments to run (repeatable); default all.")] = None,
               credit: Annotated[list[Credit] | None, typer.Option(help="Credit modes to run (repeatable); default all.")] = None,
               as_json: JsonOption = False) -> None:
    """Train every reward x credit variant and write comparison.md / .json / .png into OUT."""
    from trainers.rl_config import load_rl_config

    run_config = _loaded(load_rl_config, config)
    specs = _specs(envs)
    from trainers.rl import RLResult
    from trainers.rl_compare import compare_rl_variants

    def done(result: RLResult) -> None:
        if not as_json:
            typer.echo(f"{result.reward}/{result.credit}: {result.steps} steps in {result.wall_s:.0f} s", err=True)

    try:
        comparison = compare_rl_variants(
            run_config, specs, out, model_path=model, max_steps=max_steps, on_variant=done,
            rewards=[r.value for r in reward or Reward],
            credits=[c.value for c in credit or Credit],
        )
    except (FileNotFoundError, FileExistsError, ValueError, KeyError) as exc:
        fail(str(exc))
    if as_json:
        _print_json({"label": comparison.label, "markdown": str(comparison.markdown), "json": str(comparison.json),
                     "plot": str(comparison.plot),
                     "variants": [{k: v for k, v in row.items() if k != "log"} for row in comparison.rows]})
        return
    typer.echo(comparison.markdown.read_text(encoding="utf-8"))
    say(f"table: {comparison.markdown}  plot: {comparison.plot}")
