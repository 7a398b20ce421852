"""The record of a checkpoint folder's files (`checkpoint_files.json`: each file's sha256 and size), written when a
training puts the checkpoint in place and checked by every loader, here (the vLLM offline backend) and in `trainers`."""

from __future__ import annotations

import hashlib
import json
import shutil
import stat
from pathlib import Path

from coworkenv.atomic import atomic_write_bytes

__all__ = ["CHECKPOINT_MANIFEST", "checked_checkpoint_file", "checked_snapshot", "file_versions", "loaded_files_digest",
           "manifest_problem", "record_hash", "record_problem", "unchanged_since_checked", "write_checkpoint_manifest"]


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


# The hashes of a checkpoint's files, written by `replace_dir` into every checkpoint a training puts in place. Without
# them a tokenizer file, config.json, rendering.json or the weights edited, replaced or removed after the save (by
# hand, a stray copy, a sync from another run) were loaded as they were: evaluation, RL and a publish used another
# tokenizer or other weights than the ones trained, without a word.
CHECKPOINT_MANIFEST = "checkpoint_files.json"
# Files of these kinds are read by loading a checkpoint (transformers, tokenizers, our own JSON); one of them in the
# folder that its save did not record (an `added_tokens.json`, a `chat_template.jinja`, a second weights file) changes
# what loads. Notes (README.md, *.png) beside the files are left alone.
_LOADED_SUFFIXES = (".json", ".safetensors", ".bin", ".pt", ".pth", ".model", ".txt", ".jinja", ".py", ".tiktoken",
                    ".msgpack", ".h5", ".gguf")
_AGAIN = "save, train or copy it again, or put the original file back"


def _checkpoint_files(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*")
                  if path.is_file() and not path.is_symlink() and path.name != CHECKPOINT_MANIFEST)


def loaded_files_digest(folder: Path) -> str:
    """A digest of the name and bytes of every file of `folder` (subfolders included, links followed) of a kind that
    loading reads: what tells one checkpoint's answers from another's. Sizes and times cannot: a checkpoint unpacked
    from an archive with fixed times (`tar --mtime`, `SOURCE_DATE_EPOCH`, a container layer) or restored with its
    times (`cp -p`, `rsync -a`), trained again to the same shapes, holds other weights under the same sizes and times.
    OSError when a file cannot be read."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.suffix in _LOADED_SUFFIXES and path.is_file():
            name = path.relative_to(folder).as_posix()
            digest.update(f"{name}\0{_sha256(path)}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def write_checkpoint_manifest(folder: Path) -> None:
    """Record the sha256 and size of every file of the checkpoint `folder` (subfolders too) in CHECKPOINT_MANIFEST."""
    files = {path.relative_to(folder).as_posix(): {"sha256": _sha256(path), "size": path.stat().st_size}
             for path in _checkpoint_files(folder)}
    atomic_write_bytes(folder / CHECKPOINT_MANIFEST,
                       (json.dumps({"files": files}, indent=1, sort_keys=True) + "\n").encode())


def _manifest(folder: Path, data: bytes | None = None) -> dict[str, dict[str, object]] | str | None:
    """The files the checkpoint's manifest records (parsed from `data`, its bytes read already, when given), None when
    it has none (saved before manifests, or a model not saved by a training here), or one line saying the manifest
    itself is unreadable."""
    path = folder / CHECKPOINT_MANIFEST
    if data is None and not path.is_file():
        return None
    try:
        files = json.loads(path.read_bytes() if data is None else data)["files"]
        if isinstance(files, dict) and all(isinstance(entry, dict) and isinstance(entry.get("sha256"), str)
                                           for entry in files.values()):
            return files
        problem = "does not map file names to their hashes"
    except (OSError, ValueError, KeyError, TypeError) as exc:
        problem = f"cannot be read ({type(exc).__name__})"
    return f"{path} {problem}; the record of the checkpoint's files is damaged: {_AGAIN}"


def _changed(path: Path, data_hash: str, entry: dict[str, object]) -> str | None:
    if data_hash == entry["sha256"]:
        return None
    return (f"{path} is not the file this checkpoint was saved with (its bytes hash to {data_hash[:16]}, the save "
            f"recorded {str(entry['sha256'])[:16]} in {CHECKPOINT_MANIFEST}): it was edited, cut short or replaced "
            f"since; nothing was loaded. {_AGAIN[0].upper()}{_AGAIN[1:]}")


def _missing(path: Path) -> str:
    return (f"{path} is missing: the checkpoint was saved with it ({CHECKPOINT_MANIFEST} records it), and loading "
            f"without it would use defaults in its place; {_AGAIN}")


def _not_recorded(folder: Path, path: Path) -> str:
    return (f"{path} was not part of this checkpoint when it was saved ({CHECKPOINT_MANIFEST} does not record it) and "
            f"loading would read it; move it out of {folder}, or train or copy the checkpoint again")


def manifest_problem(folder: Path) -> str | None:
    """One line naming the first file of the checkpoint `folder` that differs from its manifest: changed, missing, or
    a file of a loaded kind the save did not record; None when each matches (or the folder has no manifest)."""
    files = _manifest(folder)
    if files is None or isinstance(files, str):
        return files
    for name, entry in sorted(files.items()):
        path = folder / name
        if not path.is_file():
            return _missing(path)
        changed = _changed(path, _sha256(path), entry)
        if changed is not None:
            return changed
    # subfolders too: transformers reads `additional_chat_templates/*.jinja`, a model's code may import a subfolder
    stray = [path for path in folder.rglob("*") if path.suffix in _LOADED_SUFFIXES and path.is_file()
             and path != folder / CHECKPOINT_MANIFEST and path.relative_to(folder).as_posix() not in files]
    if stray:
        return _not_recorded(folder, sorted(stray)[0])
    return None


def checked_snapshot(folder: Path, files: dict[str, Path], into: Path,
                     record: str | None = None) -> dict[str, Path] | str:
    """`files` (name relative to the checkpoint `folder` -> its path) copied into the empty folder `into` and, where
    `folder` has a record, each copy's bytes checked against it, with files of a loaded kind the save did not record
    refused: the names mapped to the copies, which nothing but their reader writes; or one line naming the first file
    that differs. With `record`, the sha256 of the record the caller checked (`record_hash`; "" for none), a copy
    whose record is another (a training saved into `folder` since) is refused too.

    What reads the files after a check (a publish: git's copy, the Hub's upload; an evaluation) read them again by
    their names: a file replaced in between was used unchecked. A link into the folder was not enough either: a file
    written in place (`cp` over an existing file, an editor saving in place, a download resumed) changes the bytes a
    link names after they were checked."""
    # The record is copied first and parsed from the copy: the files are checked against the record published.
    snapshot = {}
    if CHECKPOINT_MANIFEST in files:
        snapshot[CHECKPOINT_MANIFEST] = into / CHECKPOINT_MANIFEST
        into.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(files[CHECKPOINT_MANIFEST], snapshot[CHECKPOINT_MANIFEST])
    data = snapshot[CHECKPOINT_MANIFEST].read_bytes() if snapshot else None
    if record is not None and record_hash(data) != record:
        return _trained_again(folder, data, record, "publish it again once whatever saves into the folder has ended "
                              "(in the pipeline: materialize its asset again)")
    recorded = _manifest(folder, data) if data is not None else None
    if isinstance(recorded, str):
        return recorded
    for name, source in sorted(files.items()):
        if name == CHECKPOINT_MANIFEST:
            continue
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)  # the bytes checked below are the ones the copy's readers get
        snapshot[name] = target
        entry = None if recorded is None else recorded.get(name)
        if entry is not None:
            changed = _changed(folder / name, _sha256(target), entry)
            if changed is not None:
                return changed
        elif recorded is not None and source.suffix in _LOADED_SUFFIXES:
            return _not_recorded(folder, folder / name)
    missing = sorted(set(recorded or {}) - set(snapshot))
    if missing:
        return _missing(folder / missing[0])
    return snapshot


def record_hash(data: bytes | None) -> str:
    """The sha256 of a checkpoint's record of its files (`data`, the bytes of its CHECKPOINT_MANIFEST): one training's
    files; "" for a checkpoint without a record (None)."""
    return "" if data is None else hashlib.sha256(data).hexdigest()


def record_problem(folder: Path, record: str, what_to_do: str) -> str | None:
    """One line saying the checkpoint `folder` no longer holds the record whose sha256 is `record` (`record_hash`; ""
    for none): another training saved into it, or a copy was put there, since that record was taken; else None."""
    try:
        data: bytes | None = (folder / CHECKPOINT_MANIFEST).read_bytes()
    except FileNotFoundError:
        data = None
    return None if record_hash(data) == record else _trained_again(folder, data, record, what_to_do)


def _trained_again(folder: Path, data: bytes | None, record: str, what_to_do: str) -> str:
    return (f"{folder} is not the checkpoint checked before: it was trained or copied again since (its "
            f"{CHECKPOINT_MANIFEST} hashes to {record_hash(data)[:16] or 'nothing: it has none'}, the one checked to "
            f"{record[:16] or 'nothing: it had none'}); {what_to_do}")


def checked_checkpoint_file(path: Path) -> bytes:
    """The bytes of `path`, a file of a checkpoint folder, read once and checked against the folder's manifest (when
    it has one and records the file); ValueError naming the file otherwise. Parse these, never the file again."""
    files = _manifest(path.parent)
    if isinstance(files, str):
        raise ValueError(files)
    data = path.read_bytes()
    entry = None if files is None else files.get(path.name)
    if entry is not None:
        changed = _changed(path, hashlib.sha256(data).hexdigest(), entry)
        if changed is not None:
            raise ValueError(changed)
    return data


def unchanged_since_checked(folder: Path, checked: dict[str, tuple[int, ...]]) -> str | None:
    """After a load: one line naming a file of `folder` whose version (`file_versions`) is not the one taken before
    its hash was checked, i.e. replaced or edited while it loaded; None otherwise."""
    now = file_versions(folder)
    for name, version in sorted(checked.items()):
        if now.get(name) != version:
            return (f"{folder / name} changed while the checkpoint loaded (after its hash was checked); nothing "
                    "loaded was kept: load it again once whatever writes the folder has ended")
    return None


def file_versions(folder: Path) -> dict[str, tuple[int, ...]]:
    """(device, inode, size, modification and change time in ns) of each file of `folder`, subfolders included (a
    loader reads `additional_chat_templates/*.jinja` too), by its path relative to `folder`; a link is taken as the
    file it names. The change time is what tells a file rewritten in place under its own date (`cp -p` or
    `rsync -t --inplace` from a copy carrying it, `touch -r`, two writes in one tick of a file system counting whole
    seconds): every write sets it and no tool sets it back; size and modification time alone were the same."""
    versions: dict[str, tuple[int, ...]] = {}
    for path in folder.rglob("*"):
        try:
            info = path.stat()
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            versions[path.relative_to(folder).as_posix()] = (
                info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    return versions
