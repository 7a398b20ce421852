"""Whether the Hub-layout shards among the files a reader lists (`<split>-00000-of-00002.parquet`, as a published
version holds every config: specs, envs, trajectories, sft) are whole sets: a folder of a downloaded or cloned version
that lacks one of its shards (deleted by hand or by a sync tool, a download stopped part way or narrowed by
`--include`) was read as if the missing rows had never been there, with no word. SFT shards have their own check with
its own advice (`sft._check_complete`); this one serves the readers of the other configs."""

from __future__ import annotations

import re
from pathlib import Path

from coworkenv.store.stages._hub_download import hub_download
from coworkenv.store.stages._versioned import held_by_version

_SHARD = re.compile(r"^(?P<split>.+)-(?P<index>\d{5})-of-(?P<count>\d{5})\.parquet$")


def shard_set_problem(files: list[Path], what: str) -> str | None:
    """What is wrong with the shard sets among `files` (one folder's shards of a split at a time): a shard missing,
    with where it can be had back (the git version checked out around the folder, the Hub commit the folder was
    downloaded at) and the command that does it, or shards of two writes in one folder; None when every set is whole.
    `what` names the rows (`specs`, `episodes`) for the message."""
    sets: dict[tuple[Path, str], dict[int, set[int]]] = {}
    for file in files:
        match = _SHARD.match(file.name)
        if match and int(match["index"]) < int(match["count"]):
            key = (file.parent, match["split"])
            sets.setdefault(key, {}).setdefault(int(match["count"]), set()).add(int(match["index"]))
    for (where, split), counts in sorted(sets.items()):
        if len(counts) > 1:
            return (f"{where}: the {split!r} shards belong to {len(counts)} different writes (of "
                    f"{', '.join(str(count) for count in sorted(counts))} shards); reading them together would "
                    f"repeat or mix {what}; keep one write's shards in the folder (or download the version again into "
                    "an empty folder); nothing was read")
        count, indices = next(iter(counts.items()))
        missing = [f"{split}-{index:05d}-of-{count:05d}.parquet" for index in range(count) if index not in indices]
        if not missing:
            continue
        has = f"{where}: the {split!r} split has {len(indices)} of its {count} shards"
        held = held_by_version(where, missing)
        if held is not None:
            is_, it = ("is", "it") if len(held.paths) == 1 else ("are", "them")
            return (f"{has}: {_shown(list(held.paths))} {is_} missing from the folder, though the version {held.version} of "
                    f"the repository {held.top} holds {it} (deleted by hand, or by a tool that cleans or syncs "
                    f"folders?); put {it} back with `{held.put_back()}` and run again; nothing was read, so no "
                    f"{what} of the missing shards were left out")
        downloaded = hub_download(where, missing)
        if downloaded is not None:
            return (f"{has}: {_shown(list(downloaded.paths))} {'is' if len(downloaded.paths) == 1 else 'are'} missing from "
                    f"the folder; {downloaded.said()}; nothing was read, so no {what} of the missing shards were "
                    "left out")
        return (f"{has} (missing {_shown(missing)}): reading the rest would leave out the {what} of the missing "
                "ones; copy or download the version whole again (or put the missing shards back) and run again; "
                "nothing was read")
    return None


def _shown(names: list[str]) -> str:
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
