"""The capability taxonomy: user-editable YAML files under `taxonomy/`, one area per file, loaded and checked."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from coworkenv.apps import APPS
from coworkenv.atomic import read_regular_file
from coworkenv.folder_paths import link_problem
from coworkenv.limits import MAX_QUOTA
from coworkenv.world import content_hash
from coworkenv.yaml_files import MAX_YAML_BYTES, YAML_SUFFIXES, YAMLFileError, read_yaml

# Bump when any procedural generator changes its output: every capability's fingerprint changes with it,
# so pipelines regenerate the partitions built by the old code.
GENERATOR_VERSION = "22"  # 2: schema-2 specs (guards, text checks, narrowed frames); 3: framed first requests;
# 4: order checks match a person or channel in every spelling the tools accept, a clarified write follows the answer;
# 5: a guard on mailing the wrong namesake covers cc too; 6: guards on a mail cover saving it as a draft too;
# 7: broader pools of customers (121), projects (80) and cities (60), the keys facts are looked up by
# 8: frames no longer let the agent tick off the user's own to-dos (to-do tracking), reassign the alert ticket
# (silent change) or change the contact's email (phone update); 9: frames allow the incident's service only the
# fields its fix and recovery change (a feature flag flipped beside a redeploy no longer passes), and a flag flipped
# by the task (rollout, incident fix) guards the service's other flags; a reference searches the mail only for what
# the request named (else it lists the inbox), and looks the manager up by id before copying them on a draft;
# 10: the clash the world puts between the turns (announced change) is guarded: cancelling or moving it no longer passes;
# a new config version (config standard, access approval) guards its other keys: a second setting changed no longer passes
# 11: a ticket the task files (mail to ticket, incident fix, failed rollout, freeze exception, data request) is
# checked open: filing it and closing it again no longer passes; 12: a declined access request guards the service's
# config rollback too (`services_rollback_config`): rolling it back to another version no longer passes; 13: a to-do
# the task adds (web audit, mail requests) is checked open (`done: false`): adding it and ticking it off no longer passes
# 14: an incident a release caused guards the service's config against `services_update_config` beside its rollback
# 15: a write a later turn allows (the manager's approval, the delegate's answer, an announced leave or clash) is
# checked to come after that turn: doing the second turn's work in the first no longer passes; 16: an announced leave
# comes at least 30 minutes after the start, so its window outlasts any first turn the step budget allows
# 17: a booking a later turn moves is checked as the first turn left it (an acceptance the first slot brings in)
# 18: an approved access grant lists exactly the existing viewers and the requester: one more viewer no longer passes
# 19: a silent change that re-applies the fault guards the fix's tool against the bad value and, for a flag, the
# other flags (the world's rewrite erased either harm from the final state: `validate/_erased_harms.py`)
# 20: that guard forbids every release / config version but the fix's: an older release deployed (a third config
# version rolled back to) before the world's re-apply no longer passes, nor (config faults) a config value set by hand
# 21: the access request's second turn asks "Has Sanna answered?": a reply check reads the decision (`reply-says-decision`),
# so a reply that skips the question no longer passes (defects152's reply_ask_question)
# 22: the mail-requests tracker's frame allows labels on the handled mails only (by id, not on every message): the
# label put on an unrelated mail as well no longer passes (defects156's batch_write_overreach)

StateChange = Literal["none", "announced", "silent"]
# A capability id names files and folders: `specs-<id>.parquet` of `coworkenv synth`, the store's partition folder of
# each stage, Dagster's partition. Past 255 bytes a name is refused by the file system, found only when the first
# stage wrote its data (after the generation) and blamed on the output path; the longest id shipped has 29.
MAX_CAPABILITY_ID = 64




class Capability(BaseModel):
    """One thing an AI coworker must know how to do, and how many environments to make for it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", description="Unique id, snake_case")]
    area: Annotated[str, Field(description="The area (taxonomy file) the capability belongs to")]
    description: Annotated[str, Field(min_length=1)]
    skills: Annotated[list[str], Field(min_length=1, description="What the agent must show")]
    apps: Annotated[list[str], Field(min_length=1, description="Workplace apps involved")]
    difficulty: Annotated[tuple[int, int], Field(description="Inclusive range within 1..5")] = (1, 3)
    multi_turn: bool = False
    state_change: Annotated[StateChange, Field(description="How state changes between user turns")] = "none"
    quota: Annotated[int, Field(ge=0, le=MAX_QUOTA, description="How many environments to produce")] = 6
    hints: list[str] = []
    generator: Annotated[str | None, Field(description="Procedural generator to use; default: the id")] = None

    @field_validator("id")
    @classmethod
    def _short_id(cls, value: str) -> str:
        if len(value) > MAX_CAPABILITY_ID:
            raise ValueError(f"the id is {len(value)} characters long, more than {MAX_CAPABILITY_ID}: it names files "
                             f"and folders (specs-<id>.parquet, the store's partition of each stage), which the file "
                             f"system limits; shorten it")
        return value

    @field_validator("apps")
    @classmethod
    def _known_apps(cls, apps: list[str]) -> list[str]:
        unknown = [a for a in apps if a not in APPS]
        if unknown:
            raise ValueError(f"unknown app(s) {', '.join(unknown)}; apps: {', '.join(APPS)}")
        return apps

    @field_validator("difficulty")
    @classmethod
    def _range(cls, value: tuple[int, int]) -> tuple[int, int]:
        lo, hi = value
        if not 1 <= lo <= hi <= 5:
            raise ValueError(f"difficulty must be [low, high] with 1 <= low <= high <= 5, got [{lo}, {hi}]")
        return value

    @model_validator(mode="after")
    def _turns_agree(self) -> Capability:
        if self.state_change != "none" and not self.multi_turn:
            raise ValueError(f"state_change {self.state_change!r} needs multi_turn: true (state changes between turns)")
        return self

    @property
    def generator_id(self) -> str:
        """The procedural generator this capability uses."""
        return self.generator or self.id


@dataclass
class Taxonomy:
    """Every capability by id, the capability ids of each area, and the file each capability came from."""

    capabilities: dict[str, Capability] = field(default_factory=dict)
    areas: dict[str, list[str]] = field(default_factory=dict)
    source_files: dict[str, Path] = field(default_factory=dict)

    def __getitem__(self, cap_id: str) -> Capability:
        try:
            return self.capabilities[cap_id]
        except KeyError:
            known = ", ".join(sorted(self.capabilities))
            raise KeyError(f"no capability {cap_id!r} in the taxonomy; capabilities: {known}") from None

    def __iter__(self) -> Iterator[Capability]:
        return iter(self.capabilities.values())

    def __len__(self) -> int:
        return len(self.capabilities)


class TaxonomyError(YAMLFileError):
    """A taxonomy file that cannot be used: which file, which line (1-based) and what is wrong."""


class _AreaFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    area: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]
    description: str = ""
    capabilities: Annotated[list[dict[str, Any]], Field(min_length=1)]


def load_taxonomy(path: Path = Path("taxonomy")) -> Taxonomy:
    """Load every `*.yaml`/`*.yml` file of a folder (or one file); raise TaxonomyError(file, line, message)."""
    path = Path(path)
    if path.is_dir():
        files = taxonomy_files(path)
        if not files:
            raise TaxonomyError(path, None, "no *.yaml files in this folder; add one file per area")
    elif path.exists():  # a file, or a pipe or device that reading refuses by name
        files = [path]
    else:
        link = link_problem(path)  # a link that loops or points nowhere: "no such file" sent the user looking for one
        if link is not None:
            raise TaxonomyError(path, None, f"{link.removeprefix(f'{path} ')}; or pass another taxonomy folder with "
                                "--taxonomy")
        raise TaxonomyError(path, None, "no such file or folder; pass the taxonomy folder with --taxonomy")
    taxonomy = Taxonomy()
    area_files: dict[str, Path] = {}
    for file in files:
        caps = _load_file(file)
        area = caps[0].area  # an area file holds at least one capability
        if area in area_files:
            raise TaxonomyError(file, _area_line(file), f"area {area!r} is also the area of {area_files[area]}: one "
                                "area is one file, and two would merge without a word (the second's description "
                                f"lost); move these capabilities into {area_files[area].name}, or give this file "
                                "an area of its own")
        area_files[area] = file
        for cap in caps:
            if cap.id in taxonomy.capabilities:
                first = taxonomy.source_files[cap.id]
                raise TaxonomyError(
                    file, _capability_line(file, cap.id), f"capability {cap.id!r} is also defined in {first}"
                )
            taxonomy.capabilities[cap.id] = cap
            taxonomy.areas.setdefault(cap.area, []).append(cap.id)
            taxonomy.source_files[cap.id] = file
    return taxonomy


def taxonomy_files(folder: Path) -> list[Path]:
    """The area files of a taxonomy folder: `*.yaml` / `*.yml` in any case (`TICKETS.YAML` from a Windows share is
    one too), hidden names left out as in spec folders: an editor's lock (`.#tickets.yaml`, a link to nowhere
    while the file is open) or macOS metadata (`._tickets.yaml`, binary) is no area of the user's."""
    files = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        if path.suffix.lower() in YAML_SUFFIXES:
            files.append(path)
            continue
        missed = _missed_area_file(path)
        if missed is not None:
            raise TaxonomyError(path, None, missed)
    return files


def _missed_area_file(path: Path) -> str | None:
    """Why `path`, which the taxonomy does not read, looks like an area file someone meant it to read, or None.

    Skipped without a word, an area saved as `tickets.yaml.txt` (Notepad adds `.txt` where Windows hides suffixes),
    named with a blank after its suffix, or put in a subfolder was never generated, and `make run` said every
    capability partition was complete."""
    name = path.name
    if name.rstrip(" .\t").lower().endswith(YAML_SUFFIXES):
        clean = name.rstrip(" .\t")
        return f"the name ends in a blank or a dot after its YAML suffix, so it is read as no area file; rename it " \
               f"to {clean!r}"
    if path.suffix.lower() == ".txt" and Path(path.stem).suffix.lower() in YAML_SUFFIXES:
        return f"a YAML file whose name ends in .txt (Notepad adds it where Windows hides suffixes), so it is read " \
               f"as no area file; rename it to {path.stem!r}"
    if path.is_dir():
        inside = next(iter(_yaml_files_under(path)), None)
        if inside is not None:
            return f"a folder holding YAML files ({inside.relative_to(path.parent)}), and the taxonomy reads only the " \
                   "files directly in its folder; move area files up, or start the folder's name with '.' to keep " \
                   "them out"
    return None


def _yaml_files_under(folder: Path) -> Iterator[Path]:
    """YAML files under `folder` at any depth, hidden names left out (links to folders not followed)."""
    for current, subdirs, names in os.walk(folder):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in sorted(names):
            if not name.startswith(".") and Path(name).suffix.lower() in YAML_SUFFIXES:
                yield Path(current) / name


def capability_fingerprint(cap: Capability) -> str:
    """Hash of the capability's definition and GENERATOR_VERSION: it changes when its environments would."""
    return content_hash({"capability": cap.model_dump(mode="json"), "generator_version": GENERATOR_VERSION})[:16]


# -- parsing with line numbers --------------------------------------------------------------------------
# Area files already parsed, by path and bytes: the capabilities are frozen, so one parse serves every later load of
# the same bytes (the pure-Python YAML parse is ~120 ms a taxonomy, and a test corpus loads it hundreds of times).
_PARSED: dict[tuple[str, bytes], tuple[Capability, ...]] = {}
_PARSED_MAX = 64


def _load_file(file: Path) -> list[Capability]:
    try:  # checked on the file opened: one swapped for a named pipe after a look at its path waited for ever
        raw: bytes | None = read_regular_file(file, MAX_YAML_BYTES)
    except OSError:
        raw = None  # not a plain readable file: read_yaml says what is wrong with it
    if raw is None:
        return _parse_file(file)
    key = (str(file), raw)
    if key not in _PARSED:
        caps = tuple(_parse_file(file))
        try:
            again: bytes | None = read_regular_file(file, MAX_YAML_BYTES)
        except OSError:
            again = None
        if again != raw:  # changed while parsed: what was parsed is not the bytes of the key
            return list(caps)
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[key] = caps
    return list(_PARSED[key])


def _parse_file(file: Path) -> list[Capability]:
    document = read_yaml(file, TaxonomyError)
    data = document.data
    if not isinstance(data, dict):
        raise TaxonomyError(file, 1, "expected a mapping with keys 'area', 'description' and 'capabilities'")
    try:
        area = _AreaFile.model_validate(data)
    except ValidationError as exc:
        raise document.schema_error(exc, (), TaxonomyError) from None
    caps = []
    for i, raw in enumerate(area.capabilities):
        if not isinstance(raw, dict):
            raise TaxonomyError(file, document.line(("capabilities", i)), "each capability must be a mapping")
        if "area" in raw and raw["area"] != area.area:
            line = document.line(("capabilities", i, "area"))
            raise TaxonomyError(
                file, line, f"capability area {raw['area']!r} differs from the file's area {area.area!r}"
            )
        try:
            cap = Capability.model_validate({**raw, "area": area.area})
        except ValidationError as exc:
            raise document.schema_error(exc, ("capabilities", i), TaxonomyError) from None
        document.check_booleans(cap, ("capabilities", i), TaxonomyError)
        caps.append(cap)
    return caps


def _area_line(file: Path) -> int | None:
    return read_yaml(file, TaxonomyError).line(("area",))


def _capability_line(file: Path, cap_id: str) -> int | None:
    document = read_yaml(file, TaxonomyError)
    caps = document.data.get("capabilities") if isinstance(document.data, dict) else None
    for i, raw in enumerate(caps if isinstance(caps, list) else []):
        if isinstance(raw, dict) and raw.get("id") == cap_id:
            return document.line(("capabilities", i, "id"))
    return None
