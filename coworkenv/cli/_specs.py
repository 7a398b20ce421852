"""The spec argument every command takes: a spec JSON file, a folder of them, or Parquet (one reader for all)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from coworkenv.cli._llm import fail
from coworkenv.loading import SpecError
from coworkenv.spec import EnvSpec
from coworkenv.store.stages import SpecRow, SpecSourceError, read_spec_rows, read_specs

SPECS_HELP = "A spec JSON file, a folder of them, or Parquet with a spec_json column (synth or validate output)."
SpecsArg = Annotated[Path, typer.Argument(help=SPECS_HELP)]


def specs_or_exit(path: Path) -> list[EnvSpec]:
    """The specs at `path`, parsed and checked; bad input exits 2 with one message naming the file and row."""
    try:
        return read_specs(path)
    except (SpecSourceError, SpecError) as exc:
        fail(str(exc))


def spec_rows_or_exit(path: Path) -> list[SpecRow]:
    """The stored specs at `path`, unparsed (for `validate`, whose gates parse them); bad input exits 2."""
    try:
        return read_spec_rows(path)
    except SpecSourceError as exc:
        fail(str(exc))


def check_out_dir(out: Path) -> None:
    """Exit 2 before any work when `--out` names a file, or a folder under a file, instead of a folder."""
    for folder in (out, *out.parents):
        if folder.exists():
            if not folder.is_dir():
                fail(f"--out {out}: {folder} is a file, not a folder; pass a folder (it is created when missing)")
            return
