"""Fault corpus, capability files edited so that the taxonomy loads something else than their author meant: two area
files with the same `area:` (a file copied to add capabilities, `tickets.yaml` beside `tickets.yml`), and a capability
id too long to name a file. Measured on `main`: the areas merged without a word (`coworkenv taxonomy` listed one area
of both files' capabilities, the second file's description lost); a 300-character id loaded, `synth` generated its
specs and then failed on `specs-<id>.parquet` ("File name too long; choose a shorter path", the id blamed on the
output path), and `make run` failed in its first step's store write. Now each is refused at load, at its line, naming
both files or the limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from coworkenv.synth import TaxonomyError, load_taxonomy

CAPABILITY = """area: {area}
description: {description}
capabilities:
  - id: {id}
    description: Do it.
    skills: [a skill]
    apps: [tickets]
"""


def _area(folder: Path, name: str, area: str, cap_id: str, description: str = "Tickets.") -> Path:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(CAPABILITY.format(area=area, id=cap_id, description=description), encoding="utf-8")
    return folder / name


@pytest.mark.parametrize(("first", "second"), [("tickets.yaml", "tickets_more.yaml"), ("tickets.yaml", "tickets.yml"),
                                               ("a.yaml", "z.YAML")])
def test_two_files_of_one_area_are_refused_naming_both(tmp_path: Path, first: str, second: str) -> None:
    _area(tmp_path, first, "tickets", "triage", "Keeping the queue triaged.")
    _area(tmp_path, second, "tickets", "close_duplicates", "Closing duplicates.")
    with pytest.raises(TaxonomyError) as refused:
        load_taxonomy(tmp_path)
    message = str(refused.value)
    assert message.startswith(f"{tmp_path / second}:1: area 'tickets'"), message
    assert str(tmp_path / first) in message and "give this file an area of its own" in message


def test_areas_of_their_own_load(tmp_path: Path) -> None:
    """Guard: one file per area, as shipped."""
    _area(tmp_path, "tickets.yaml", "tickets", "triage")
    _area(tmp_path, "tickets_more.yaml", "tickets_more", "close_duplicates")
    assert load_taxonomy(tmp_path).areas == {"tickets": ["triage"], "tickets_more": ["close_duplicates"]}


@pytest.mark.parametrize("length", [250, 300])  # specs-<id>.parquet: 264 and 314 bytes
def test_an_id_too_long_to_name_a_file_is_refused_at_its_line(tmp_path: Path, length: int) -> None:
    file = _area(tmp_path, "tickets.yaml", "tickets", "t" * length)
    with pytest.raises(TaxonomyError) as refused:
        load_taxonomy(tmp_path)
    assert str(refused.value).startswith(f"{file}:4: capabilities[0].id:"), refused.value
    assert f"{length} characters long, more than 64" in str(refused.value)


def test_an_id_of_64_characters_loads(tmp_path: Path) -> None:
    _area(tmp_path, "tickets.yaml", "tickets", "t" * 64)
    assert list(load_taxonomy(tmp_path).capabilities) == ["t" * 64]
