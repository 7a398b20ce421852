"""Putting a trained checkpoint folder in place without ever losing the previous one."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import sys
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from coworkenv.atomic import (
    WriteError,
    lock_exclusive,
    make_folder,
    naming_failures,
    os_reason,
    path_advice,
)
from coworkenv.checkpoint_manifest import (
    CHECKPOINT_MANIFEST,
    checked_checkpoint_file,
    file_versions,
    manifest_problem,
    unchanged_since_checked,
    write_checkpoint_manifest,
)

__all__ = [
    "CHECKPOINT_MANIFEST",
    "CheckpointPlaceError",
    "CheckpointWriteError",
    "checked_checkpoint_file",
    "checkpoint_files_problem",
    "checkpoint_place",
    "checkpoint_staging",
    "comparison_held",
    "file_versions",
    "finishing_checkpoint",
    "manifest_problem",
    "replace_dir",
    "restore_interrupted_replace",
    "saving_weights",
    "start_in_output_problem",
    "unchanged_since_checked",
    "weights_file_problem",
    "write_checkpoint_manifest",
]


# The JSON files transformers reads from a checkpoint folder, each an object. A damaged generation_config.json was
# skipped by `from_pretrained` without a word (the model's defaults replaced its end-of-turn tokens and sampling), and
# a damaged config.json or tokenizer file at the start of `train rl` ended in a traceback naming no file.
CHECKPOINT_JSON = ("config.json", "generation_config.json", "tokenizer_config.json", "tokenizer.json",
                   "special_tokens_map.json")


def checkpoint_files_problem(folder: Path) -> str | None:
    """The first file of the checkpoint `folder` that differs from what its save recorded (`manifest_problem`), or
    the first JSON file of CHECKPOINT_JSON present that does not hold a JSON object, or its weights missing, as one
    line naming the file and what to do; None when each reads."""
    recorded = manifest_problem(folder)
    if recorded is not None:
        return recorded
    for name in CHECKPOINT_JSON:
        path = folder / name
        if not path.is_file():
            continue
        try:
            value = json.loads(path.read_bytes())
        except (OSError, ValueError) as exc:
            reason = os_reason(exc) if isinstance(exc, OSError) else str(exc).splitlines()[0]
            problem = f"is not valid JSON ({reason})"
        else:
            if isinstance(value, dict):
                continue
            problem = f"holds a JSON {type(value).__name__} where an object is expected"
        return (f"{path} {problem}; the checkpoint is damaged or incomplete (an interrupted save or copy, an edit?): "
                "save, train or copy it again")
    return _weights_problem(folder)


_WEIGHTS = ("model.safetensors", "pytorch_model.bin")


def start_in_output_problem(start: str | Path | None, out_dir: Path, named_by: str) -> str | None:
    """One line when the output folder `out_dir` is the checkpoint a training starts from (`start`, named by
    `named_by`: `--model` or the config's `model.name_or_path`), holds it or lies inside it; None otherwise (a Hub id
    names no folder).

    A training replaces `out_dir` whole when it ends: the start was gone (no copy of it kept, the run record naming as
    its start a folder that now holds this run's weights), and so was any checkpoint inside the folder replaced."""
    if start is None or not str(start).strip():
        return None
    start_dir = Path(start).expanduser()
    if not start_dir.is_dir():
        return None
    start_dir, out_dir = start_dir.resolve(), Path(out_dir).resolve()
    beside = f"--out {out_dir.parent / (out_dir.name + '-next')}"
    if start_dir == out_dir:
        return (f"--out {out_dir} is the checkpoint this run starts from ({named_by}): the run would replace it when "
                f"it ends, keeping no copy of the start, and its run record would name as its start a folder that "
                f"then holds this run's weights; write the new checkpoint to another folder, e.g. {beside} (to go on "
                f"in place, copy the start first and train from the copy)")
    if out_dir in start_dir.parents:
        return (f"--out {out_dir} holds the checkpoint this run starts from ({named_by}: {start_dir}): the run would "
                f"replace the folder when it ends, deleting that checkpoint; write to another folder, e.g. {beside}")
    if start_dir in out_dir.parents:
        beside = f"--out {start_dir.parent / (start_dir.name + '-next')}"
        return (f"--out {out_dir} is inside the checkpoint this run starts from ({named_by}: {start_dir}): the new "
                f"checkpoint would travel as part of it (a publish or copy of the start takes it along) and go with it "
                f"when a training replaces the start; write to another folder, beside the start, e.g. {beside}")
    return None


def _weights_problem(folder: Path) -> str | None:
    """A checkpoint without its weights, or with a shard its index names missing (a copy of a sharded model cut
    short): `train rl` found out only once GRPOTrainer loaded them, in a traceback."""
    for name in _WEIGHTS:
        index = folder / f"{name}.index.json"
        if index.is_file():
            try:
                shards = sorted(set(json.loads(index.read_bytes())["weight_map"].values()))
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                return (f"{index} does not list the weight shards ({type(exc).__name__}); the checkpoint is damaged: "
                        "save, train or copy it again")
            missing = [shard for shard in shards if not (folder / str(shard)).is_file()]
            if missing:
                return (f"{folder}: {len(missing)} of the {len(shards)} weight shards its {index.name} lists are "
                        f"missing ({', '.join(map(str, missing[:3]))}); the copy is incomplete: copy it again")
            return next(filter(None, (weights_file_problem(folder / str(shard)) for shard in shards)), None)
        if (folder / name).is_file():
            return weights_file_problem(folder / name)
    return (f"{folder} holds no weights ({' or '.join(_WEIGHTS)}, or a sharded index); the checkpoint is incomplete "
            "(an interrupted save or copy?): save, train or copy it again")


_MAX_SAFETENSORS_HEADER = 100 << 20  # safetensors' own limit on the JSON header


def weights_file_problem(path: Path) -> str | None:
    """One line when the weights file `path` is cut short (or has bytes past its end): a copy or download interrupted
    (`cp`, `rsync`, a disk that filled) in a folder no manifest vouches for, such as a start model copied from
    elsewhere. A `.safetensors` file must end where its header's last tensor does; a `.bin` saved by torch (a zip) must
    hold its zip directory, which is written last. The loaders said only "Error while deserializing header:
    incomplete metadata, file not fully covered" or "[Errno 22] Invalid argument", naming no file. Reads the header
    alone (the tensors are not read); None for a whole file or one of another format."""
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            head = handle.read(8)
            if head.startswith(b"version "):  # a Git LFS pointer: its loaders' own check says how to fetch the file
                return None
            if path.suffix == ".safetensors":
                length = int.from_bytes(head, "little") if len(head) == 8 else -1
                if not 0 < length <= min(size - 8, _MAX_SAFETENSORS_HEADER):
                    return _cut_short(path, size, "without a whole header")
                header = json.loads(handle.read(length))
                ends = [entry["data_offsets"][1] for key, entry in header.items() if key != "__metadata__"]
                expected = 8 + length + max(ends, default=0)
                if size != expected:
                    return _cut_short(path, size, f"not the {expected} its header says it holds")
                return None
    except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        reason = os_reason(exc) if isinstance(exc, OSError) else f"its header does not read: {type(exc).__name__}"
        return (f"{path} cannot be read as weights ({reason}); the checkpoint is damaged or incomplete (an "
                "interrupted save, copy or download?): save, train or copy it again")
    if path.suffix == ".bin" and head.startswith(b"PK\x03\x04") and not zipfile.is_zipfile(path):
        return _cut_short(path, size, "without the zip directory that torch writes at its end")
    return None


def _cut_short(path: Path, size: int, lacking: str) -> str:
    return (f"{path} holds {size} bytes, {lacking}: cut short or damaged (an interrupted save, copy or download?); "
            "save, train or copy it again (the weights file whole)")


def _previous_of(out_dir: Path) -> Path:
    return out_dir.with_name(f".{out_dir.name}.previous")


def checkpoint_place(out_dir: Path) -> Path:
    """Where a checkpoint for `out_dir` really lives: the target when `out_dir` is a symbolic link (a checkpoint
    folder linked to a bigger disk), so the staging folder, the renames and the lock are on that disk and the link
    stays. Renaming the link itself put the new checkpoint on the small disk, moved the link aside and then failed
    to delete it, then and in every later training ("Cannot call rmtree on a symbolic link")."""
    return out_dir.resolve() if out_dir.is_symlink() else out_dir


def restore_interrupted_replace(out_dir: Path) -> bool:
    """Put back the checkpoint a `replace_dir` stopped between its two renames had moved aside (`out_dir` gone, the
    old one at `.<name>.previous`); True when it did. Without this, a kill at that moment hid the user's checkpoint."""
    out_dir = checkpoint_place(out_dir)
    previous = _previous_of(out_dir)
    if out_dir.exists() or out_dir.is_symlink() or not previous.is_dir():
        return False
    os.replace(previous, out_dir)
    return True


@contextmanager
def checkpoint_staging(out_dir: Path) -> Iterator[Path]:
    """The folder a new checkpoint for `out_dir` is written in (`.<name>.partial` beside it), emptied of what an
    interrupted run left, and locked for the block.

    Two trainings into one folder shared that staging folder: the second deleted the first's files as leftovers, or
    mixed its own in, and the mixture was put in place as one checkpoint. The second now waits for the first. The
    lock is on the staging folder itself, so trainings into different folders of one parent (the runs of an RL
    comparison, one process per variant) run at once, and nothing is left behind. In a distributed run only the
    main process (RANK 0) locks and empties it; the others write where it says.
    """
    out_dir = checkpoint_place(out_dir)
    staging = out_dir.with_name(f".{out_dir.name}.partial")
    if os.environ.get("RANK", "0") != "0":
        yield staging
        return
    fd = _locked_folder(staging, f"another training is putting a checkpoint in {out_dir}; waiting for it to end "
                                 "(stop with Ctrl-C)")
    try:
        for entry in list(staging.iterdir()):  # a run interrupted before its checkpoint was whole: none holds it now
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        yield staging
    finally:
        _remove_if_empty(staging, fd)
        os.close(fd)  # closing releases the lock (the folder may be `out_dir` by now: the finished checkpoint)


@contextmanager
def comparison_held(out_dir: Path) -> Iterator[None]:
    """Hold the RL comparison into `out_dir` for the block: a second comparison there (run again in another terminal,
    a second pipeline on one data folder) waits, saying so. The lock is on `.<name>.comparing` beside `out_dir`, removed
    at the end: a lock on `out_dir` itself would tell each variant's training that another command is writing a folder
    above its `--out` (`episode_output_problem`), and a folder inside it would be written into a start checkpoint that
    its training then refuses as `--out`."""
    out_dir = checkpoint_place(Path(os.path.abspath(out_dir)))  # `--out .` names its folder too
    held = out_dir.with_name(f".{out_dir.name}.comparing")
    fd = _locked_folder(held, f"another RL comparison is writing {out_dir}; waiting for it to end (stop with Ctrl-C, "
                              "or pass another --out to run both at once)")
    try:
        yield
    finally:
        _remove_if_empty(held, fd)
        os.close(fd)


def _remove_if_empty(staging: Path, fd: int) -> None:
    """Remove `staging` when a refused or failed training left it empty (a data error, a bad start: refused before
    anything was written), while its lock is still held. A folder holding files is kept (the trained weights a failed
    finishing write left, which its error names), and one that is no longer the locked folder (put in place as the
    checkpoint) is not touched. A waiter that wins the lock then finds the folder gone and makes it again."""
    try:
        if os.path.samestat(os.fstat(fd), os.stat(staging)) and not any(staging.iterdir()):
            staging.rmdir()
    except OSError:
        pass  # gone already, or not removable: an empty folder the next training empties and reuses


def _locked_folder(folder: Path, waiting: str) -> int:
    """An open descriptor holding an exclusive lock on `folder` (created if missing), `waiting` printed while another
    process holds it. The holder renames the folder into place when it is done, so a lock won after a wait may be
    on what is now the checkpoint: the folder is then made again and locked anew."""
    while True:
        with naming_failures(folder):
            make_folder(folder)
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            try:
                lock_exclusive(fd, folder, wait=False)
            except BlockingIOError:
                print(waiting, file=sys.stderr, flush=True)
                lock_exclusive(fd, folder)
            try:
                if os.path.samestat(os.fstat(fd), os.stat(folder)):
                    return fd
            except FileNotFoundError:
                pass
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


def replace_dir(staging: Path, out_dir: Path) -> None:
    """Move the finished checkpoint into place; a previous one at `out_dir` is replaced only once this one is whole.

    Two renames: the old checkpoint aside, the new one in. A stop between them is repaired by the next call (or by
    `restore_interrupted_replace`, which loading a checkpoint runs), so the old checkpoint is never lost."""
    out_dir = checkpoint_place(out_dir)
    with finishing_checkpoint(staging, out_dir):
        write_checkpoint_manifest(staging)  # every file as saved, checked by each loader (`checkpoint_files_problem`)
    restore_interrupted_replace(out_dir)
    previous = _previous_of(out_dir)
    if previous.exists():
        shutil.rmtree(previous)
    try:
        if out_dir.exists():
            os.replace(out_dir, previous)
        os.replace(staging, out_dir)
    except OSError as error:  # e.g. EXDEV: `out_dir` is a mount point, or a folder of a container image's layer
        restore_interrupted_replace(out_dir)
        raise CheckpointPlaceError(staging, out_dir, error) from None
    if previous.exists():
        shutil.rmtree(previous)


class CheckpointPlaceError(WriteError):
    """A trained checkpoint that could not be moved into place: the message says where it is, whole, and why."""

    def __init__(self, staging: Path, out_dir: Path, cause: OSError) -> None:
        super().__init__(out_dir, cause)
        self.staging = staging
        self.message = (f"cannot put the new checkpoint in place at {out_dir}: {os_reason(cause)}; "
                        f"{path_advice(out_dir, cause)}. The new checkpoint is whole in {staging} (the next training "
                        f"run into {out_dir} starts by deleting it: move it away first to keep it); the previous "
                        "one is unchanged")


class CheckpointWriteError(WriteError):
    """A file that completes a trained checkpoint (its records, its manifest) that could not be written, after the
    training: the message names the file, what to do, and where the trained weights are. It had said "any earlier
    version of the file is unchanged" of a file in the staging folder, which the next training deletes."""

    def __init__(self, staging: Path, out_dir: Path, cause: OSError) -> None:
        named = cause.final if isinstance(cause, WriteError) else Path(os.fsdecode(cause.filename or staging))
        super().__init__(named, cause)
        self.staging = staging
        self.message = (f"cannot finish the trained checkpoint for {out_dir}: cannot write {named}: {os_reason(cause)}; "
                        f"{path_advice(named, cause)}. The trained weights are in {staging} (the next training run "
                        f"into {out_dir} starts by deleting that folder: move it away first to keep them); the "
                        f"checkpoint at {out_dir} is the previous one, unchanged")


@contextmanager
def finishing_checkpoint(staging: Path, out_dir: Path) -> Iterator[None]:
    """The writes that complete a trained checkpoint in `staging` (records, curve, manifest) before it is put in
    place at `out_dir`: an OSError of the system (a disk that filled during hours of training) becomes a
    `CheckpointWriteError` naming the file and where the weights are."""
    try:
        yield
    except CheckpointPlaceError:
        raise
    except OSError as error:
        if error.errno is None:
            raise
        raise CheckpointWriteError(staging, out_dir, error) from None


class WeightsSaveError(WriteError):
    """The trained weights that could not be saved into the staging folder (a disk that filled during the training):
    the message names the folder, what to do and that the checkpoint at `out_dir` is the previous one. It had been
    the library's own words alone ("Error while serializing: I/O error: No space left on device (os error 28)"),
    naming no folder, and the files saved before the weights (config.json) stayed in the staging folder."""

    def __init__(self, staging: Path, out_dir: Path, cause: OSError) -> None:
        super().__init__(staging, cause)
        self.message = (f"cannot save the trained weights into {staging}: {os_reason(cause)}; "
                        f"{path_advice(staging, cause)}. This training's weights are not saved (train again once "
                        f"there is room; what the save had written is removed); the checkpoint at {out_dir} is the "
                        "previous one, unchanged")


# How Rust-backed libraries (safetensors, tokenizers) quote the system's error in their own error types.
_QUOTED_OS_ERROR = re.compile(r"\(os error (\d+)\)")


@contextmanager
def saving_weights(staging: Path, out_dir: Path, main_process: bool = True) -> Iterator[None]:
    """The save of the trained model into `staging`: a failure of the file system (an OSError, or safetensors'
    SafetensorError quoting one) becomes a `WeightsSaveError`, and the main process removes what the save wrote
    (no checkpoint without its weights; a partial weights file holds the room that was missing)."""
    try:
        yield
    except Exception as error:
        cause = _system_error(error, staging)
        if cause is None or isinstance(error, WriteError):
            raise
        if main_process:
            for entry in list(staging.iterdir()) if staging.is_dir() else []:
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)
        raise WeightsSaveError(staging, out_dir, cause) from None


def _system_error(error: Exception, staging: Path) -> OSError | None:
    """The failure of the file system that `error` of a save stands for, if any: an OSError, a library's error quoting
    one (safetensors), or torch's writer failing (`training_args.bin`), which quotes none (a full disk where the disk
    of `staging` has next to no room left, else an I/O error)."""
    if isinstance(error, OSError):
        return error if error.errno else None
    quoted = _QUOTED_OS_ERROR.search(str(error))
    if quoted:
        return OSError(int(quoted[1]), os.strerror(int(quoted[1])))
    if "PytorchStreamWriter failed writing" not in str(error):
        return None
    try:
        full = shutil.disk_usage(staging).free < 1 << 20
    except OSError:
        full = False
    code = errno.ENOSPC if full else errno.EIO
    return OSError(code, os.strerror(code))
