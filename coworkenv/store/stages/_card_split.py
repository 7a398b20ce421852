"""What the dataset card (README.md) of a Hub-layout repository says of one split: the files its `data_files`
select and the rows its `dataset_info` records, as `datasets.load_dataset(repo, config, split=...)` reads them.

A reader that chose the files by their names alone read a file put by hand beside a version's shards
(`data/sft/train-extra.parquet`) as part of the version, without a word, where `load_dataset` on the same folder
refuses it (`NonMatchingSplitsSizesError`: the card records the version's rows, the files hold more)."""

from __future__ import annotations

import glob
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import yaml

from coworkenv.store._parquet import checked_footer

CARD = "README.md"
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class CardSplit:
    """A split as the card declares it: its `data_files` patterns (repository paths) and its rows (None: not
    recorded)."""

    patterns: tuple[str, ...]
    rows: int | None


def card_split(repo: Path, config: str, split: str) -> CardSplit | None:
    """The card's declaration of `split` of `config`, or None where the card is missing, unreadable or says nothing
    of that config (another tool's card: the files are then chosen by name, as before)."""
    try:
        found = _FRONT_MATTER.match((repo / CARD).read_text(encoding="utf-8"))
        data = yaml.safe_load(found[1]) if found else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if not isinstance(data, dict):
        return None
    patterns: list[str] = []
    for entry in _list(data.get("configs")):
        if isinstance(entry, dict) and entry.get("config_name") == config:
            for files in _list(entry.get("data_files")):
                if isinstance(files, dict) and files.get("split") == split:
                    patterns += [path for path in _list(files.get("path")) if isinstance(path, str)]
    if not patterns:
        return None
    rows = None
    for info in _list(data.get("dataset_info")):
        if isinstance(info, dict) and info.get("config_name", "default") == config:
            for recorded in _list(info.get("splits")):
                if isinstance(recorded, dict) and recorded.get("name") == split:
                    examples = recorded.get("num_examples")
                    rows = examples if isinstance(examples, int) and not isinstance(examples, bool) else None
    return CardSplit(tuple(patterns), rows)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value] if value is not None else []


def card_files(repo: Path, declared: CardSplit) -> list[Path]:
    """The files of the repository that the card's patterns select, as `datasets` globs them."""
    found = {repo / path for pattern in declared.patterns
             for path in glob.glob(pattern, root_dir=repo, recursive="**" in pattern)}
    return sorted(path for path in found if path.is_file())


def card_rows_problem(repo: Path, split: str, declared: CardSplit, files: list[Path],
                      in_shard_set: Any) -> str | None:
    """Why the rows of `files` (the files the card selects for `split`) are not the rows the card records, or None.

    `in_shard_set(path)` tells a file of the version's own shard set (`train-00000-of-00002.parquet`) from others."""
    if declared.rows is None:
        return None
    rows: dict[Path, int] = {}
    for file in files:
        try:
            rows[file] = checked_footer(file).num_rows
        except (OSError, pa.ArrowException):  # unreadable: the reader names the file
            return None
    total = sum(rows.values())
    if total == declared.rows:
        return None
    card = repo / CARD
    others = [file for file in files if not in_shard_set(file)]
    shards = sum(count for file, count in rows.items() if in_shard_set(file))
    if others and shards == declared.rows:
        named = ", ".join(file.relative_to(repo).as_posix() for file in others[:3])
        return (f"{named} in {repo}: not a shard of the version's {split!r} split, yet its name matches the card's "
                f"data_files ({', '.join(declared.patterns)}): the card {card} records {declared.rows} {split!r} rows, "
                f"which the version's shards hold, and with it the files hold {total} (`datasets.load_dataset` "
                f"refuses the folder the same way); a file put there by hand is no part of the version: move it out "
                f"of {(others[0].parent)} (or publish a version holding its rows), then run again; nothing was read")
    return (f"{repo}: the {split!r} files its card selects ({', '.join(declared.patterns)}) hold {total} rows and the "
            f"card {card} records {declared.rows}: the files were changed since the version was published, or a "
            f"publish is writing into the folder now (`datasets.load_dataset` refuses the folder the same way); wait "
            f"for that publish to end, or put the version's files back (`git -C {repo} checkout -- .` in a local "
            f"dataset repository, or download the version again), then run again; nothing was read")
