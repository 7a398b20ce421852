"""`coworkenv curate TRAJ_DIR --out DIR --json`: trajectories to SFT shards, with the curation report."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer

from coworkenv.atomic import atomic_write_bytes, files_together, folder_lock
from coworkenv.cli._limits import SEED_MAX, SEED_MIN
from coworkenv.commands import check_out_dir, error_line, say

if TYPE_CHECKING:
    import polars as pl

USAGE_ERROR = 2
REPORT_NAME = "curation_report.json"


def curate_command(
    traj_dir: Annotated[Path, typer.Argument(help="Folder (or file) of trajectory Parquet from `coworkenv rollout`.")],
    out: Annotated[Path, typer.Option("--out", help="Folder for the shards and curation_report.json.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the full report as JSON.")] = False,
    heldout_capability: Annotated[list[str] | None, typer.Option(
        "--heldout-capability", help="Capability kept out of training, in its own test split (repeatable).")] = None,
    validation_fraction: Annotated[float, typer.Option(help="Share of envs in validation.")] = 0.05,
    test_fraction: Annotated[float, typer.Option(help="Share of envs in test.")] = 0.05,
    max_rows_per_shard: Annotated[int, typer.Option(help="Rows per Parquet shard.")] = 50_000,
    max_tool_errors: Annotated[int, typer.Option(min=0, help="Drop trajectories with more failed tool calls.")] = 3,
    max_tokens: Annotated[int, typer.Option(help="Drop trajectories longer than this (estimated tokens).")] = 16_384,
    near_dup_threshold: Annotated[float, typer.Option(help="Jaccard of requests above which envs are near-dups.")] = 0.85,
    decontam_threshold: Annotated[float, typer.Option(help="Jaccard to an eval env above which train is dropped.")] = 0.7,
    max_rows_per_env: Annotated[int | None, typer.Option(help="Keep at most this many rows per env.")] = None,
    max_rows_per_capability: Annotated[int | None, typer.Option(help="Train rows per capability (quota).")] = None,
    seed: Annotated[int, typer.Option(min=SEED_MIN, max=SEED_MAX, help="Seed of the env split hash.")] = 0,
) -> None:
    """Filter, dedup, decontaminate, split and shard trajectories; print the curation report."""
    import polars as pl  # imported by the command, not by `coworkenv --help`
    import pyarrow as pa

    from coworkenv.curate import CurationConfig, curate, write_shards
    from coworkenv.store.stages import damaged_trajectory_file

    check_out_dir(out, traj_dir, suffix="sft")
    try:
        config = CurationConfig(
            heldout_capabilities=tuple(heldout_capability or ()), validation_fraction=validation_fraction,
            test_fraction=test_fraction, max_rows_per_shard=max_rows_per_shard, max_tool_errors=max_tool_errors,
            max_tokens=max_tokens, near_dup_threshold=near_dup_threshold, decontam_threshold=decontam_threshold,
            max_rows_per_env=max_rows_per_env, max_rows_per_capability=max_rows_per_capability, seed=seed,
        )
        result = curate(traj_dir, config=config)
    except UnicodeEncodeError:
        raise  # a file name that is not UTF-8: the command group names it
    except (FileNotFoundError, ValueError) as exc:
        typer.echo(error_line(f"{exc}"), err=True)
        raise typer.Exit(USAGE_ERROR) from None
    except (pl.exceptions.PolarsError, pa.ArrowException, OSError) as exc:
        # Damage past a file's footer shows only while scanning, and the scan does not say in which file.
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        damaged = damaged_trajectory_file(traj_dir)
        where = f"{damaged} is damaged" if damaged is not None else f"cannot read the trajectories under {traj_dir}"
        typer.echo(error_line(f"{where}: {first}; rewrite the damaged file with `coworkenv rollout`"), err=True)
        raise typer.Exit(USAGE_ERROR) from None
    if not result.report["input_rows"]:  # an empty input must not replace earlier shards with none
        typer.echo(error_line(f"{traj_dir} holds no trajectories (0 rows); nothing written, {out} is unchanged; "
                              "write trajectories with `coworkenv rollout` first"), err=True)
        raise typer.Exit(USAGE_ERROR)
    absent = heldout_problem(result.source.lazy(), config.heldout_capabilities, traj_dir)
    if absent is not None:  # a misspelt name held nothing out: the capability was trained on, its test split empty
        typer.echo(error_line(absent), err=True)
        raise typer.Exit(USAGE_ERROR)
    # A second curate into the same folder waits: its shards and report stay one set; written as a set, a rerun that
    # fails (a full disk) leaves the earlier shards and report as they were.
    with folder_lock(out), files_together():
        try:
            paths = write_shards(result, out)
        except ValueError as exc:  # rows that cannot become SFT rows; shards of this run already complete are
            typer.echo(error_line(f"{exc}"), err=True)  # refused by readers as an incomplete set
            raise typer.Exit(USAGE_ERROR) from None
        report = {**result.report, "shards": [p.name for p in paths], "out": str(out)}
        atomic_write_bytes(out / REPORT_NAME, orjson.dumps(report, option=orjson.OPT_INDENT_2))
    if as_json:
        typer.echo(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode())
        return
    typer.echo(f"{report['input_rows']} trajectories -> {report['kept_rows']} kept "
               f"({report['removed_total']} removed)")
    for name, count in report["removed"].items():
        if count:
            typer.echo(f"  removed {count:>8} {name}")
    for name, split in report["splits"].items():
        typer.echo(f"  {name:<14} {split['rows']:>8} rows  {split['envs']:>6} envs")
    say(f"shards and report: {out}")


def heldout_problem(trajectories: pl.LazyFrame, heldout: tuple[str, ...], traj_dir: Path) -> str | None:
    """Why a `--heldout-capability` names no capability of the trajectories, or None.

    On main a name the trajectories do not hold (misspelt, in other letter case, with a blank, two names in one
    option) was taken without a word: nothing was held out, the capability meant stayed in training and the
    `test_heldout` split was empty, so a held-out evaluation measured trained capabilities."""
    if not heldout:
        return None
    import polars as pl

    present = sorted(trajectories.select(pl.col("capability").unique()).collect()["capability"].drop_nulls())
    for name in heldout:
        if name in present:
            continue
        close = difflib.get_close_matches(name.strip().lower(), present, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        if "," in name and all(part.strip() in present for part in name.split(",")):
            hint = " (give the option once per capability: " + " ".join(
                f"--heldout-capability {part.strip()}" for part in name.split(",")) + ")"
        shown = ", ".join(present[:20]) + (" ..." if len(present) > 20 else "")
        return (f"--heldout-capability {name!r}: no trajectory in {traj_dir} is of this capability{hint}, so "
                f"nothing would be held out; nothing written. Capabilities there: {shown}")
    return None
