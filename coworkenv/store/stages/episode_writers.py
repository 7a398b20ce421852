"""Who wrote an episode file. The teacher's episodes (`coworkenv rollout`, the teacher_trajectories asset), an eval's
over held-out envs (`coworkenv eval --out D`: `D/runs`) and a student's RL episodes (`train rl --out R`:
`R/rollouts/step-*`, the rl_rollouts asset) are trajectory files alike column for column: curate took an eval's file
copied beside the rollout's, or a folder of them named to it, as the teacher's, and trained on held-out envs.

Every episode file records its writer in its Parquet key-value metadata (`coworkenv.written_by`: rollout, eval or rl;
set by the stage writer, `Stage.write` / `Stage.store`), and that mark decides wherever the file sits. A file without
one was written before the mark: its layout decides (a `runs` folder beside `eval_report.json` is an eval's, a
`rollouts/step-*` folder a student's RL episodes: the folder named or any folder between it and the file), then its
columns (an `rl_step` column the rl_rollouts asset's), then who acted in it (its `teacher` column): the oracle teacher
only ever acts in a rollout, `student` only in an RL run. An unmarked file of an LLM's episodes outside those layouts
is a teacher's rollout or an eval's over held-out envs, and nothing in it tells which: it is refused, not guessed
(it was the teacher's until faults21), and `coworkenv mark-episodes` records who wrote it.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from coworkenv.atomic import folder_in_use, settle_before_reading
from coworkenv.store.stages._stage import (
    WRITTEN_BY,
    file_column_names,
    file_column_values,
    file_written_by,
    no_special_files,
)
from coworkenv.store.stages.sft import SFT_REQUIRED_COLUMNS

ROLLOUT, EVAL, RL = "rollout", "eval", "rl"


@dataclass(frozen=True)
class EpisodeWriter:
    """One writer of episode files: whose episodes its files hold, the command that writes them, one run of it."""

    episodes: str
    command: str
    run: str

    @property
    def what(self) -> str:
        return f"{self.episodes} ({self.command})"


EPISODE_WRITERS = {
    ROLLOUT: EpisodeWriter("the teacher's episodes", "`coworkenv rollout`", "rollout"),
    EVAL: EpisodeWriter("an eval's episodes over held-out envs", "`coworkenv eval`", "eval"),
    RL: EpisodeWriter("a student's RL episodes", "`coworkenv train rl`", "RL run"),
}
UNTOLD = "untold"  # an unmarked LLM's episodes outside any layout: a teacher's rollout or an eval's, nothing tells
EVAL_REPORT = "eval_report.json"  # `coworkenv eval --out D` writes D/eval_report.json and its episodes in D/runs
_RL_STEP = re.compile(r"^step-\d+(-rank-\d+)?$")  # `train rl --out R`: R/rollouts/step-NNNN-rank-N/
_UNMARKED = "written before episode files were marked"
_LOOK_ALIKE = "a teacher's rollout and an eval's over held-out envs look alike"
# Who acts in the episodes of only one writer (the `teacher` column): the oracle only in a rollout, a student in RL.
_ACTS_ONLY_IN = {"oracle": ROLLOUT, "student": RL}


@dataclass(frozen=True)
class EpisodeOrigin:
    """Who wrote a Parquet file (a key of EPISODE_WRITERS, an unknown mark, or `specs` / `sft`), said for a user."""

    writer: str
    what: str


def parquet_files(path: Path) -> list[Path]:
    """`path` itself when it is a file, else every visible `*.parquet` below it, sorted (a set of files whose writer
    was killed while placing it is completed first: `settle_before_reading`)."""
    settle_before_reading(path)
    if path.is_file():
        return [path]
    return no_special_files((p for p in path.rglob("*.parquet") if not p.name.startswith(".")), path) \
        if path.is_dir() else []


def episode_origin(file: Path, root: Path) -> EpisodeOrigin | None:
    """Who wrote `file`, found under `root` (a folder, or the file itself): its mark; unmarked, its layout (the
    folders from `root` down to it), then its columns. None for a file that does not read as Parquet or as any
    stage's (its readers name what is wrong with it)."""
    mark = file_written_by(file)
    if mark is not None:
        known = EPISODE_WRITERS.get(mark)
        what = known.what if known else f"episodes of {mark!r}, a writer this release does not know"
        return EpisodeOrigin(mark, f"{what}, marked {WRITTEN_BY}={mark}")
    top = root if root.is_dir() else file.parent
    inside = file.parent.relative_to(top).parts if file.parent.is_relative_to(top) else ()
    for depth in range(len(inside) + 1):
        folder = top.joinpath(*inside[:depth])
        if folder.name == "runs" and (folder.parent / EVAL_REPORT).is_file():
            return EpisodeOrigin(EVAL, f"{EPISODE_WRITERS[EVAL].what}, beside {folder.parent / EVAL_REPORT}, "
                                       f"{_UNMARKED}")
        if _RL_STEP.match(folder.name) and folder.parent.name == "rollouts":
            return EpisodeOrigin(RL, f"{EPISODE_WRITERS[RL].what}, under {folder.parent}, {_UNMARKED}")
    names = file_column_names(file)
    if names is None:
        return None
    if "rl_step" in names:
        return EpisodeOrigin(RL, f"{EPISODE_WRITERS[RL].what} (an rl_step column: the rl_rollouts asset), {_UNMARKED}")
    if "spec_json" in names:
        return EpisodeOrigin("specs", "specs or envs (a spec_json column: synth or validate output)")
    if "record_id" not in names and set(SFT_REQUIRED_COLUMNS) <= set(names):
        return EpisodeOrigin("sft", "SFT shards (curate's output)")
    return _origin_by_who_acted(file) if "record_id" in names and "teacher" in names else None


def _origin_by_who_acted(file: Path) -> EpisodeOrigin | None:
    """An unmarked trajectory file's writer, told by who acted in its episodes (`_ACTS_ONLY_IN`); UNTOLD when an LLM
    (or anyone else) acted: a teacher's rollout and an eval write the same rows."""
    acted = file_column_values(file, "teacher")
    if acted is None:
        return None  # its readers name what is wrong with it
    writers = {_ACTS_ONLY_IN.get(str(who)) for who in acted}
    if writers == {ROLLOUT} or not acted:
        return EpisodeOrigin(ROLLOUT, f"{EPISODE_WRITERS[ROLLOUT].what} (the oracle teacher's), {_UNMARKED}")
    if writers == {RL}:
        return EpisodeOrigin(RL, f"{EPISODE_WRITERS[RL].what} (teacher 'student'), {_UNMARKED}")
    who = ", ".join(sorted(map(str, acted)))
    return EpisodeOrigin(UNTOLD, f"episodes of {who} {_UNMARKED}, outside an eval's or RL run's folders: "
                                 f"{_LOOK_ALIKE}, nothing in the file tells which (if you know: coworkenv mark-episodes {file} --written-by rollout, or eval)")


def other_stage_files(root: Path, files: Sequence[Path] | None = None, writer: str = ROLLOUT) -> dict[Path, str]:
    """The Parquet files at `root` (a file, or a folder and everything below it) that hold rows of another writer or
    stage than `writer` (`episode_origin`), each with what it is. A reader of `writer`'s episodes must not take them:
    curate trained on an eval's held-out envs, or a student's RL episodes, as the teacher's."""
    found: dict[Path, str] = {}
    for file in parquet_files(root) if files is None else files:
        origin = episode_origin(file, root)
        if origin is not None and origin.writer != writer:
            found[file] = origin.what
    return found


def other_stage_problem(root: Path, reader: str = "curate", writer: str = ROLLOUT) -> str | None:
    """Why `root` (a file or folder) cannot be read as `writer`'s episodes, or None: it holds other writers' or
    stages' files (`other_stage_files`), which the reader would take as `writer`'s; the files, what each is, and
    what to do."""
    others = other_stage_files(root, writer=writer)
    if not others:
        return None
    wanted = EPISODE_WRITERS[writer]
    shown = "; ".join(f"{file} ({what})" for file, what in list(others.items())[:3])
    more = f"; and {len(others) - 3} more" if len(others) > 3 else ""
    held_out = writer != EVAL and any(EPISODE_WRITERS[EVAL].what in what for what in others.values())
    untold = writer != EVAL and any(_LOOK_ALIKE in what for what in others.values())
    risk = "held-out envs would reach training" if held_out else \
        "held-out envs may reach training" if untold else f"they would be read as {wanted.episodes}"
    files = f"{len(others)} Parquet files of other stages" if len(others) > 1 else "a Parquet file of another stage"
    if root.is_file():
        return (f"{root} is {others[root]} (not a trajectories file of {wanted.command}); {reader} takes "
                f"{wanted.episodes} only, so {risk}; nothing read. Pass a file or folder of {wanted.command} "
                "output")
    tops = sorted({root / file.relative_to(root).parts[0] for file in others})
    todo = f"Pass a folder that holds only {wanted.command} output"
    if len(others) < len(parquet_files(root)):
        todo = f"Move {', '.join(map(str, tops[:3]))} out of {root} (e.g. beside it), or pass a folder that holds " \
               f"only {wanted.command} output"
    return (f"{root} holds {files} (not a trajectories file of {wanted.command}): {shown}{more}; {reader} reads "
            f"every trajectory file below {root}, so {risk}; nothing read. {todo}")


def episode_output_problem(out: Path, writer: str, own: str | None = None) -> str | None:
    """Why `--out out` cannot take `writer`'s episodes, or None: `out` or a folder above it holds another writer's
    episode files (every reader of that folder would meet this run's among them: `eval --out T/eval` in the
    teacher's rollout T), a folder above it is being written by another command now (its lock is held: the rollout
    into T, its file not written yet), or, with `own` (the subfolder of `out` this run writes its episodes to), a
    folder below `out` holds another writer's (a reader of `out` would take both). The folders above end below the
    first shared one (`shared_folder`: a stray file in `~` refused every run below it). Checked before any request
    or model is built. A mount point is checked and ends the walk: it may be a stage's folder itself (a volume mounted
    as the rollout's `--out`); the file systems above it are another's."""
    run = EPISODE_WRITERS[writer].run
    target = Path(os.path.abspath(out))  # `..` folded, links kept: a reader goes through them too
    for folder in _own_folders(target):
        beside = f"--out {folder.parent / f'{folder.name}-{writer}'}"
        if folder != target and folder_in_use(folder):  # its writer's files are not there yet: checked at its end
            return (f"--out {out} is inside {folder}, which another command is writing now (a rollout, eval or "
                    f"import into {folder} holds it): every reader of {folder} would meet this {run}'s episodes "
                    f"among its files; write to a folder beside it, e.g. {beside}")
        found = _other_episodes(sorted(folder.glob("*.parquet")) if folder.is_dir() else [], folder, writer)
        if found is None:
            continue
        file, what = found
        if folder == target:
            return (f"--out {out} holds {what} ({file}): this {run}'s files would sit among them, and every reader "
                    f"of {out} would take both for one stage's; write to a folder of its own beside it, e.g. {beside}")
        stray = f" ({folder} is a mount point: if {file} is a stray copy, move {file} into a folder of its own)" \
            if os.path.ismount(folder) else ""
        return (f"--out {out} is inside {folder}, which holds {what} ({file}): every reader of {folder} (curate "
                f"{folder}) would meet this {run}'s episodes among them; write to a folder beside it, e.g. "
                f"{beside}{stray}")
    if own is not None and target.is_dir():
        below = [f for f in parquet_files(target) if not f.is_relative_to(target / own) and f.parent != target]
        found = _other_episodes(below, target, writer)
        if found is not None:
            file, what = found
            return (f"--out {out} holds, below it, {what} ({file}): a reader of {out} would take this {run}'s episodes "
                    f"({target / own}) with them; write to a folder of its own, e.g. --out "
                    f"{target.parent / f'{target.name}-{writer}'}")
    return None


def shared_folder(folder: Path) -> bool:
    """Whether `folder` is a place many unrelated things share (the home folder, the temp folder, `/`), never one
    stage's output: a stray file there says nothing about the folders below it."""
    if folder.parent == folder:
        return True
    places = {os.environ.get("HOME"), os.environ.get("TMPDIR"), tempfile.gettempdir()}
    return any(place and Path(os.path.abspath(place)) == folder for place in places)


def _own_folders(target: Path) -> list[Path]:
    """`target` and the folders above it, up to (not including) the first shared folder (`shared_folder`) and up to
    (including) the first mount point. A mount point was left out until faults23: a rollout folder mounted as a
    volume (`-v rollouts:/data/T`) then took `eval --out T/eval` among the teacher's episodes without a word."""
    folders = [target]
    for folder in target.parents:
        if shared_folder(folder):
            break
        folders.append(folder)
        if os.path.ismount(folder):
            break
    return folders


def _other_episodes(files: Sequence[Path], root: Path, writer: str) -> tuple[Path, str] | None:
    """The first of `files` (under `root`) holding episodes of another writer than `writer`, and what they are."""
    for file in files:
        if file.name.startswith("."):
            continue
        origin = episode_origin(file, root)
        if origin is not None and origin.writer not in (writer, "specs", "sft"):
            return file, origin.what
    return None
