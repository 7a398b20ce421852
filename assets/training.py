"""pocketworker_checkpoint and eval_report: train on the published SFT data, evaluate on held-out envs."""

import hashlib
import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import dagster as dg

from assets._metadata import png_markdown
from assets.envs import ENVS
from assets.hub import SFT_TRAIN_ENVS, SFT_VERSION, hub_dataset
from assets.sft import (
    complete_partitions,
    curated_sft_files,
    current_sft_files,
    sft_shards,
    sft_version,
    train_envs,
)
from coworkenv import store
from coworkenv.atomic import TEMP_PREFIX
from coworkenv.checkpoint_manifest import (
    CHECKPOINT_MANIFEST,
    checked_snapshot,
    record_hash,
    write_checkpoint_manifest,
)
from coworkenv.held_folders import held_temp_dir
from coworkenv.spec import EnvSpec
from coworkenv.store import stages
from pipelines.code_versions import CODE_VERSIONS
from pipelines.freshness import (
    checkpoint_input_hash,
    eval_input_hash,
    held_out_env_ids,
    no_held_out_message,
    no_train_message,
    train_env_ids,
    trainer_config_hash,
)
from pipelines.resources import CoworkenvSettings
from pipelines.staleness import PartitionState, data_folder_metadata, located
from trainers.checkpoint_files import checkpoint_files_problem, restore_interrupted_replace

if TYPE_CHECKING:
    from trainers.config import ModelSection

EVALUATED_COPY = ".coworkenv-evaluated-"  # the checkpoint as eval_report evaluates and publishes it
TOY_NOTE = (
    "Toy scale: a tiny Qwen3-architecture model initialised from scratch and trained for a few minutes on CPU. "
    "The numbers are what was measured; they say nothing about the 8B recipe."
)


@dg.asset(
    deps=[hub_dataset],
    group_name="training",
    kinds={"pytorch"},
    code_version=CODE_VERSIONS["pocketworker_checkpoint"],
    description="PocketWorker checkpoint: TRL SFT (assistant-only loss) on the published sft config.",
)
def pocketworker_checkpoint(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> dg.MaterializeResult:
    from trainers import load_sft_config

    release = context.instance.get_latest_materialization_event(hub_dataset.key)
    if release is None or release.asset_materialization is None:
        raise dg.Failure("hub_dataset has not been materialized; publish the dataset first")
    meta = release.asset_materialization.metadata
    data_version = str(meta["version"].value)
    data_location = located(str(meta["location"].value), meta, settings.root)
    if not Path(data_location).is_dir():
        raise dg.Failure(f"training reads the dataset from a local copy; {data_location} is not a folder "
                         "(download the Hub dataset with huggingface_hub.snapshot_download first)")
    if not held_out_specs(context, settings):
        raise dg.Failure(no_held_out_message(settings))  # checked before training: eval would fail after it
    if not train_env_ids({split: str(path) for split, path in current_sft_files(context, settings).items()},
                         complete_partitions(context, settings), 1):
        raise dg.Failure(no_train_message(settings))
    released = str(meta[SFT_VERSION].value) if SFT_VERSION in meta else None  # None: recorded before releases
    released_train = str(meta[SFT_TRAIN_ENVS].value) if SFT_TRAIN_ENVS in meta else None  # its train split's envs
    if released is not None:  # named it, taken as it is
        refuse_other_sft(context, released, released_train,
                         f"hub_dataset's latest release (version {data_version}) publishes the SFT splits of "
                         "sft_shards version", "A checkpoint trained on it learns from that train split, and "
                         "eval_report scores it on the latest test splits: envs it learned from would be reported as "
                         "held out (or held-out envs missed); nothing was trained",
                         "hub_dataset first, then pocketworker_checkpoint and eval_report")
    # The config is read once: the input hash and the version name the config trained with, not an edit of the file
    # made while this asset ran (a second read would hash the edit, or train it under the earlier config's version).
    config = load_sft_config(settings.train_config)
    input_hash = checkpoint_input_hash(data_version, settings, config)
    # The config's content is in the version: an edited config is a new checkpoint, not a silent overwrite.
    name = Path(settings.train_config).stem  # a config name, or the file name of a YAML path
    version = f"{name}-{data_version}-{trainer_config_hash(config)[:8]}"
    out_dir = settings.root / "checkpoints" / f"pocketworker-{version}"

    def progress(p: object) -> None:
        step, total, loss = getattr(p, "step", 0), getattr(p, "max_steps", 0), getattr(p, "loss", 0.0)
        if step == 1 or step == total or step % 10 == 0:
            context.log.info(f"SFT step {step}/{total} loss {loss:.3f}")

    from trainers import train_sft  # once the inputs are checked: torch and trl take seconds, a refusal none

    result = train_sft(config, Path(data_location), out_dir, progress=progress)
    card = _model_card(settings, data_version, result.steps, result.train_loss_first, result.train_loss_last)
    # The record of this training's files (eval_report refuses a checkpoint whose record is another): the publish
    # copies the folder only if it still holds it, so another training saving into the folder since this one ended
    # is not published under this one's card and record.
    record = _trained_record(out_dir, result.to_dict())
    published = store.publisher_from_config(
        settings.hub_model_repo_id or None, settings.root / "hub" / "model", repo_type="model"
    ).publish_folder(out_dir, version, card, record)
    return dg.MaterializeResult(
        # The tag published: `version`, or `version.v2` ... when a training under the same name left other weights.
        data_version=dg.DataVersion(published.tag),
        metadata={
            "checkpoint": dg.MetadataValue.path(str(out_dir)),
            **data_folder_metadata(settings),
            "checkpoint_record": record,
            "input_hash": input_hash,
            "config": settings.train_config,
            "trained_on": data_version,
            **({SFT_VERSION: released} if released is not None else {}),
            **({SFT_TRAIN_ENVS: released_train} if released_train is not None else {}),
            "steps": result.steps,
            "examples": result.examples,
            "train_loss_first": result.train_loss_first,
            "train_loss_last": result.train_loss_last,
            "wall_s": result.wall_s,
            "loss_curve": png_markdown(result.loss_curve.read_bytes(), "SFT loss"),
            "model_repo": published.location,
            "model_tag": published.tag,
        },
    )


def sft_checkpoint_folder(meta: Mapping[str, dg.MetadataValue], settings: CoworkenvSettings) -> Path:
    """The folder of the checkpoint pocketworker_checkpoint's materialization `meta` recorded, where it is in the
    data folder now (a data folder moved since is not a reason to train again)."""
    return Path(located(str(meta["checkpoint"].value), meta, settings.root))


def trained_model(checkpoint: Path) -> "ModelSection":
    """The model section of the config `checkpoint` was trained with, as its `sft_run.json` records it: the base
    it is compared with is the one it was trained from, whatever the config file says now (it may have been edited
    since the training, and the checkpoint's version names the config as trained)."""
    from trainers.config import ModelSection
    from trainers.sft import RUN_METADATA

    record = checkpoint / RUN_METADATA
    try:
        return ModelSection.model_validate(json.loads(record.read_bytes())["config"]["model"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise dg.Failure(f"{record}: the record of the config {checkpoint} was trained with cannot be read "
                         f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else exc!r}); "
                         "train the checkpoint again (materialize pocketworker_checkpoint)") from None


def held_out_specs(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> list[EnvSpec]:
    """The envs of the SFT test splits (never trained on), read from the published partitions' validated_envs; a
    dg.Failure when the latest sft_shards was curated from other partitions (a capability regenerated since): its test
    splits name envs those partitions no longer hold, and the report would leave them out without a word."""
    states = complete_partitions(context, settings)
    files = curated_sft_files(
        context, settings, states,
        "Its test splits name the held-out envs of the generation it was curated from: the regenerated capabilities' "
        "envs would drop out of the evaluation (or other envs be evaluated under their ids) and the report's figures "
        "would cover fewer capabilities without saying so; nothing was trained or evaluated",
        "hub_dataset, pocketworker_checkpoint and eval_report")
    paths = {split: str(path) for split, path in files.items()}
    return specs_by_id(states, held_out_env_ids(paths, states, settings.eval_max_envs))


def refuse_other_sft(context: dg.AssetExecutionContext, recorded: str, recorded_train: str | None, what: str,
                     harm: str, then: str) -> None:
    """dg.Failure when `recorded`, the sft_shards version a release publishes or a checkpoint was trained on, is not
    the latest sft_shards materialization's and its train split held other envs (`recorded_train`, the hash of its
    env ids; None when recorded before they were: then any other version): sft_shards was curated again since (the
    held-out capability or the test fraction changed, a capability regenerated), and an env of the train split
    `recorded` may be in a test split now (each env's split is drawn from its id and the settings). The same train
    envs (only the test splits changed: the held-out capability regenerated; or other rows of the same envs) are
    taken: the latest test splits hold none of them. `what` ends naming that version; `harm`: what going on would do
    and that nothing was done; `then`: what to materialize."""
    latest = context.instance.get_latest_materialization_event(sft_shards.key)
    now = sft_version(latest)
    if recorded == now or (recorded_train is not None and recorded_train == train_envs(latest)):
        return
    other = " with other envs in its train split" if recorded_train is not None else ""
    raise dg.Failure(
        f"{what} {recorded[:16] or '?'}, not that of sft_shards' latest materialization (version {now[:16] or '?'}): "
        f"sft_shards was curated again since{other} (the held-out capability or the test fraction changed, or a "
        "capability was regenerated), so an env of that train split may be in a test split now. "
        f"{harm}. Materialize {then} (`python -m pipelines.run` does it in order)")


def specs_by_id(states: list[PartitionState], env_ids: list[str]) -> list[EnvSpec]:
    """The specs of `env_ids`, in that order, read from the partitions' validated_envs."""
    wanted = set(env_ids)
    specs = {spec.id: spec for state in states
             for spec in stages.read_envs(state.paths[ENVS], wanted, content_hash=state.versions[ENVS])}
    return [specs[env_id] for env_id in env_ids]


@dg.asset(
    deps=[pocketworker_checkpoint],
    group_name="training",
    code_version=CODE_VERSIONS["eval_report"],
    description="pass@1, pass^k and mean score of the untrained base vs the SFT checkpoint on held-out envs.",
)
def eval_report(context: dg.AssetExecutionContext, settings: CoworkenvSettings) -> dg.MaterializeResult:
    event = context.instance.get_latest_materialization_event(pocketworker_checkpoint.key)
    if event is None or event.asset_materialization is None:
        raise dg.Failure("pocketworker_checkpoint has not been materialized")
    checkpoint = sft_checkpoint_folder(event.asset_materialization.metadata, settings)
    specs = held_out_specs(context, settings)
    trained = event.asset_materialization.metadata
    if SFT_VERSION in trained:  # a checkpoint recorded before checkpoints named it: taken as it is
        refuse_other_sft(context, str(trained[SFT_VERSION].value),
                         str(trained[SFT_TRAIN_ENVS].value) if SFT_TRAIN_ENVS in trained else None,
                         f"the checkpoint pocketworker_checkpoint materialized ({trained['model_tag'].value}, trained "
                         f"on dataset version {trained['trained_on'].value}) learned from the train split of "
                         "sft_shards version", "Evaluating it on the latest test splits would report held-out scores "
                         "of envs it was trained on (or miss held-out envs); nothing was evaluated or published",
                         "hub_dataset, then pocketworker_checkpoint and eval_report")
    if not specs:
        raise dg.Failure(no_held_out_message(settings))
    input_hash = eval_input_hash(str(event.asset_materialization.metadata["model_tag"].value), [s.id for s in specs],
                                 settings)
    # Imported once the inputs are checked: torch and transformers take seconds, a refusal none.
    from trainers.batching import BatchedLocalBackend
    from trainers.eval_report import render_markdown, write_eval_report
    from trainers.evaluate import compare_reports, evaluate
    from trainers.local_backend import untrained_twin

    context.log.info(f"evaluating base and SFT on {len(specs)} held-out envs (k={settings.eval_k})")
    options = {"k": settings.eval_k, "max_steps": settings.eval_max_steps, "max_tokens": settings.eval_max_tokens}
    report_dir = checkpoint.parent / f"{checkpoint.name}-eval"
    # The checkpoint is copied into the folder the report publishes, checked there, and evaluated from there: a
    # training saving into `checkpoint` again while the evaluation runs (or a file written there in place) is not
    # published under the numbers measured of the earlier weights. The copy is this run's own (another run's eval of
    # the checkpoint makes its own), held while in use: one a killed run left is removed by the next.
    report_dir.mkdir(parents=True, exist_ok=True)
    with held_temp_dir(EVALUATED_COPY, str(report_dir)) as staging:
        folder = _evaluated_copy(checkpoint, staging / "model", event.asset_materialization.metadata)
        # Batched: the episodes evaluate() runs concurrently share each forward pass.
        sft = BatchedLocalBackend(folder, name="pocketworker-sft")
        model = trained_model(folder)
        # A model trained from scratch is compared with its own random initialisation; a fine-tune with its base.
        if model.source == "tiny":
            twin = untrained_twin(folder, name="base-untrained")
            base = BatchedLocalBackend(twin.model, twin.tokenizer, name=twin.name, rendering=twin.renderer.rendering)
        else:
            # The base is shown the prompts the fine-tune learned from (its rendering), so the two are like for like.
            base = BatchedLocalBackend(str(model.name_or_path), name=f"base:{model.name_or_path}",
                                       rendering=sft.renderer.rendering)
        comparison = compare_reports({
            "base": evaluate(base, specs, **options),  # type: ignore[arg-type]
            "sft": evaluate(sft, specs, **options),  # type: ignore[arg-type]
        })
        note = TOY_NOTE if settings.train_config == "tiny" else ""
        files = write_eval_report(report_dir, comparison, title="PocketWorker: base vs SFT", note=note)
        markdown = render_markdown(comparison, "PocketWorker: base vs SFT", note)
        # The model repository gets the report in its card and files, as a version of its own.
        record = checkpoint_record(folder)
        for path in (files.markdown, files.json, files.plot):
            shutil.copy2(path, folder / path.name)
        write_checkpoint_manifest(folder)  # the published folder records the report's files too
        version = f"{event.asset_materialization.metadata['model_tag'].value}-eval"
        card = _model_card(settings, str(event.asset_materialization.metadata["trained_on"].value),
                           int(str(event.asset_materialization.metadata["steps"].value)), None, None, markdown)
        published = store.publisher_from_config(
            settings.hub_model_repo_id or None, settings.root / "hub" / "model", repo_type="model"
        ).publish_folder(folder, version, card)
    overall = {label: r.overall for label, r in comparison.reports.items()}
    return dg.MaterializeResult(
        metadata={
            "report": dg.MetadataValue.md(markdown),
            "report_path": dg.MetadataValue.path(str(files.markdown)),
            **data_folder_metadata(settings),
            "input_hash": input_hash,
            "plot": png_markdown(files.plot.read_bytes(), "evaluation"),
            "held_out_envs": len(specs),
            **{f"{label}_pass_at_1": m.pass_at_1 for label, m in overall.items()},
            **{f"{label}_mean_score": m.mean_score for label, m in overall.items()},
            "checkpoint_record": record,
            "model_repo": published.location,
            "model_tag": published.tag,
        },
    )


def _trained_record(out_dir: Path, trained: Mapping[str, object]) -> str:
    """The sha256 of `out_dir`'s record of its files, checked: its files are the ones recorded and its run record
    (`sft_run.json`) is `trained`, this run's training; a Failure naming what to do when another training (a second
    pipeline run, `coworkenv train sft --out` by hand) saved into the folder after this one."""
    from trainers.sft import RUN_METADATA

    try:
        manifest = (out_dir / CHECKPOINT_MANIFEST).read_bytes()
        entry = json.loads(manifest)["files"][RUN_METADATA]["sha256"]
        run = (out_dir / RUN_METADATA).read_bytes()
        same = (hashlib.sha256(run).hexdigest() == entry
                and json.dumps(json.loads(run), sort_keys=True) == json.dumps(trained, sort_keys=True))
    except (OSError, ValueError, KeyError, TypeError):
        same = False
    if not same:
        raise dg.Failure(
            f"{out_dir} no longer holds the checkpoint this run trained: it was trained or copied again since (its "
            f"{RUN_METADATA}, recorded in {CHECKPOINT_MANIFEST}, is another training's run); nothing was published. "
            "Materialize pocketworker_checkpoint again once the other training has ended (one training at a time "
            "into a checkpoint folder: runs sharing a data folder share it)")
    _check_checkpoint(out_dir)  # the files published are the ones trained (their hashes, recorded at the save)
    return record_hash(manifest)


def checkpoint_record(folder: Path) -> str:
    """The sha256 of the checkpoint `folder`'s record of its files (`checkpoint_files.json`): one training's files;
    "" for a folder without a record."""
    try:
        return record_hash((folder / CHECKPOINT_MANIFEST).read_bytes())
    except FileNotFoundError:
        return record_hash(None)


def _evaluated_copy(checkpoint: Path, folder: Path, materialized: Mapping[str, dg.MetadataValue]) -> Path:
    """`folder`, made, holding a copy of the files of `checkpoint` checked against the checkpoint's record, which
    must be the one pocketworker_checkpoint's materialization recorded (one materialized before materializations
    recorded it is taken as it is)."""
    if not checkpoint.exists():
        restore_interrupted_replace(checkpoint)  # a training stopped between its two renames
    if not checkpoint.is_dir():
        raise dg.Failure(f"{checkpoint}, the checkpoint pocketworker_checkpoint materialized, is not a folder now; "
                         "materialize pocketworker_checkpoint again, then eval_report")
    folder.mkdir()
    files = {path.relative_to(checkpoint).as_posix(): path for path in sorted(checkpoint.rglob("*"))
             if path.is_file() and not path.name.startswith(TEMP_PREFIX)}  # half a file of an interrupted writer
    snapshot = checked_snapshot(checkpoint, files, folder)
    if isinstance(snapshot, str):
        raise dg.Failure(f"{snapshot}; nothing was evaluated or published")
    expected = materialized.get("checkpoint_record")
    record = checkpoint_record(folder)
    if expected is not None and record != str(expected.value):
        raise dg.Failure(
            f"{checkpoint} is not the checkpoint pocketworker_checkpoint materialized as "
            f"{materialized['model_tag'].value}: it was trained or copied again since (its {CHECKPOINT_MANIFEST} "
            f"hashes to {record[:16] or 'nothing: it has none'}, the materialization recorded {str(expected.value)[:16]}); "
            "nothing was evaluated or published. Materialize pocketworker_checkpoint again, then eval_report")
    return folder


def _model_card(settings: CoworkenvSettings, data_version: str, steps: int, loss_first: float | None,
                loss_last: float | None, eval_markdown: str = "") -> str:
    loss = f"Loss {loss_first:.3f} → {loss_last:.3f} over {steps} steps." if loss_first is not None else ""
    return "\n".join([
        "---", "library_name: transformers", "license: apache-2.0", "tags: [coworkenv, pocketworker, agents]", "---",
        "", f"# PocketWorker ({settings.train_config})", "",
        f"Fine-tuned with TRL SFT (assistant-only loss) on coworkenv dataset version `{data_version}`. {loss}",
        "", TOY_NOTE if settings.train_config == "tiny" else "", "", eval_markdown,
    ])


def _check_checkpoint(folder: Path) -> None:
    """A Failure naming the first file of the checkpoint `folder` changed since its save (`checkpoint_files_problem`)."""
    damaged = checkpoint_files_problem(folder)
    if damaged is not None:
        raise dg.Failure(damaged)
