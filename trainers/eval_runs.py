"""The episodes beside an evaluation report: `coworkenv eval --out D` writes `D/eval_report.*` and the episodes it
scored into `D/runs`, and the two must tell the same story.

The report is replaced by each eval into D; its runs were added beside the earlier ones (`trajectories-<hash>.parquet`,
one file per set of records). An eval of another model, other envs, another k, seed or temperature into an earlier
eval's folder left the earlier episodes under a report that does not hold them, and every reader of `D/runs`
(`curate D/runs`, a look at the transcripts, a publish of the folder) took both models' episodes as this report's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from coworkenv.atomic import remove_file
from coworkenv.store.stages import trajectory_columns, trajectory_files
from trainers.evaluate import EvalReport

RUN_COLUMNS = ("model", "env_id", "sampling", "sample_index")


def _sampling(value: object) -> object:
    try:
        return orjson.loads(value) if isinstance(value, str | bytes) else value
    except orjson.JSONDecodeError:
        return value


def _earlier_rows(runs: Path) -> dict[Path, list[dict[str, Any]]]:
    """The episodes of each trajectory file under `runs` (files that do not read as one are left to their readers,
    which name them)."""
    if not runs.is_dir():
        return {}
    try:
        files = trajectory_files(runs, written_by=None)  # every file: one of another writer is foreign too
    except OSError:
        return {}
    found = {file: trajectory_columns(file, RUN_COLUMNS) for file in files}
    return {file: rows for file, rows in found.items() if rows is not None}


def _this_evals(row: Mapping[str, Any], model: str, env_ids: set[str], sampling: Mapping[str, Any], k: int) -> bool:
    return (row["model"] == model and row["env_id"] in env_ids and _sampling(row["sampling"]) == dict(sampling)
            and int(row["sample_index"]) < k)


def _shown(row: Mapping[str, Any], others: Sequence[EvalReport]) -> bool:
    """An episode of a report shown beside this one (`--compare`): the report keeps its numbers, the runs its episodes."""
    return any(row["model"] == report.model and any(e.env_id == row["env_id"] and e.sample_index == row["sample_index"]
                                                    for e in report.episodes) for report in others)


def earlier_runs_problem(out: Path, model: str, env_ids: set[str], sampling: Mapping[str, Any], k: int,
                         others: Sequence[EvalReport] = ()) -> str | None:
    """Why `out/runs` cannot take this eval's episodes, or None: it holds episodes that the report this eval writes
    will not hold (another model's, other envs', another k, seed or temperature), which `out/runs`'s readers would
    take as this report's."""
    runs = out / "runs"
    foreign: dict[Path, list[dict[str, Any]]] = {}
    for file, rows in _earlier_rows(runs).items():
        left = [row for row in rows if not _this_evals(row, model, env_ids, sampling, k) and not _shown(row, others)]
        if left:
            foreign[file] = left
    if not foreign:
        return None
    episodes = [row for rows in foreign.values() for row in rows]
    models = sorted({str(row["model"]) for row in episodes})
    names = ", ".join(str(file) for file in list(foreign)[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3
                                                                    else "")
    what = (f"of {', '.join(models)}" if models != [model] else
            f"of {model} over other envs or samples (another --envs, --k, --seed or --temperature)")
    return (f"--out {out}: {runs} already holds {len(episodes)} episodes {what} (in {names}) that the report of "
            f"{model} would not hold; this eval would replace {out / 'eval_report.json'} and leave them beside its "
            f"own episodes, for every reader of {runs} to take as this report's; write to a new folder (e.g. --out "
            f"{out.parent / (out.name + '-2')}), move {runs} away, or to show the earlier report beside this one "
            f"pass --compare LABEL={out / 'eval_report.json'}")


def superseded_runs(out: Path, written: Path, model: str, env_ids: set[str], sampling: Mapping[str, Any],
                    k: int) -> list[Path]:
    """Remove the earlier files of `out/runs` that hold only episodes of this very eval (the same model, envs and
    sampling, run again: the server answered otherwise), now that `written` holds this run's: the report they were
    scored for is replaced. Their paths, removed."""
    removed = []
    for file, rows in _earlier_rows(out / "runs").items():
        if file.resolve() != written.resolve() and rows and all(_this_evals(row, model, env_ids, sampling, k) for row in rows):
            remove_file(file)  # inside `files_together`: once the new report and runs are in place
            removed.append(file)
    return removed
