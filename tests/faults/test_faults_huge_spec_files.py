"""Fault corpus, a huge file given where a JSON (or JSON Lines) file of specs is expected: a disk image, a log or a
data export under a .json name, alone or in a folder of specs (`coworkenv env run/tools`, `validate`, `rollout`,
`serve`, every reader of `read_spec_rows`). Measured on `main`: the file was read whole and decoded (a 3 GiB file
took 6.4 GB of memory and 12 s before "not valid JSON"); on a machine with less memory (`ulimit -v 2097152`)
`coworkenv env tools huge.json` ended in a MemoryError traceback (not a case here: a child pays 3 s of imports). Now a JSON file past 256 MiB (some 10,000
specs) is refused from its size before it is read: one line naming the file, its size, the limit and what to pass
instead (Parquet, as synth and validate write, has no such limit)."""

from __future__ import annotations

from pathlib import Path

import pytest

import coworkenv.store.stages.specs as specs
from coworkenv.examples import example_names, load_example
from coworkenv.store.stages import SpecSourceError, read_spec_rows
from coworkenv.store.stages.specs import MAX_SPEC_JSON_BYTES


def _sparse(path: Path, size: int) -> Path:
    """A file of `size` bytes that takes no disk (a hole): what a disk image or a preallocated log looks like."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        file.truncate(size)
    return path


@pytest.mark.parametrize("name", ["specs.json", "specs.jsonl", "folder/more.json"])
def test_a_json_file_far_past_any_spec_file_is_refused_from_its_size(tmp_path: Path, name: str) -> None:
    if name.startswith("folder/"):  # beside a sound spec: the folder's reader meets it
        spec = load_example(example_names()[0])
        (tmp_path / "folder").mkdir()
        (tmp_path / "folder" / "one.json").write_text(spec.to_json())
    huge = _sparse(tmp_path / name, MAX_SPEC_JSON_BYTES + (44 << 20))
    with pytest.raises(SpecSourceError) as raised:
        read_spec_rows(tmp_path / name.partition("/")[0] if "/" in name else huge)
    message = str(raised.value)
    assert message.startswith(f"{huge}: is 300 MiB") and "the limit is 256 MiB" in message, message
    assert "Parquet" in message and "\n" not in message, message


def test_a_spec_file_up_to_the_limit_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard: a sound spec file is read, at the limit too (the limit lowered to its size), one byte past it not."""
    one = tmp_path / "one.json"
    one.write_text(load_example(example_names()[0]).to_json())
    assert len(read_spec_rows(one)) == 1
    monkeypatch.setattr(specs, "MAX_SPEC_JSON_BYTES", one.stat().st_size)
    assert len(read_spec_rows(one)) == 1
    monkeypatch.setattr(specs, "MAX_SPEC_JSON_BYTES", one.stat().st_size - 1)
    with pytest.raises(SpecSourceError, match="and a JSON file of specs is kilobytes"):
        read_spec_rows(one)
