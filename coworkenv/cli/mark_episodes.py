"""`coworkenv mark-episodes PATH --written-by WRITER`: record who wrote episode files from before the mark.

Every episode file now names its writer (`coworkenv.written_by`: rollout, eval or rl). An older LLM's episode file
outside an eval's or RL run's folders cannot be told apart (a teacher's rollout or an eval's over held-out envs), so
curate refuses it; the person who knows where it came from says so here, once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from coworkenv.commands import fail, say


def mark_episodes_command(
    path: Annotated[Path, typer.Argument(help="An episode Parquet file, or a folder of them (every file below it).")],
    written_by: Annotated[str, typer.Option("--written-by", help="Who wrote them: rollout (the teacher's episodes), "
                                                                  "eval (an eval's runs) or rl (a student's RL run).")],
) -> None:
    """Mark unmarked episode files (written before files named their writer) as WRITER's; marked files are kept."""
    from coworkenv.store.stages import StageError, mark_episode_files

    try:
        marked = mark_episode_files(path, written_by)
    except (FileNotFoundError, StageError) as exc:
        fail(str(exc))
    say(f"marked {len(marked)} file(s) under {path} as written by {written_by}")
