"""The hand-written example environments shipped with coworkenv, by name."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from coworkenv.loading import SpecError, SpecIssue, load_spec
from coworkenv.spec import EnvSpec

_SUFFIX = ".json"


def _folder() -> Path:
    return Path(str(resources.files(__name__)))


def example_names() -> list[str]:
    """Names of the shipped examples (file names without `.json`), sorted."""
    return sorted(p.name[: -len(_SUFFIX)] for p in _folder().iterdir() if p.name.endswith(_SUFFIX))


def load_example(name: str) -> EnvSpec:
    """Load the shipped example `name`; SpecError (naming the known examples) if there is none."""
    path = _folder() / f"{name}{_SUFFIX}"
    if not path.is_file():
        known = ", ".join(example_names())
        raise SpecError(name, [SpecIssue("(name)", f"no example named {name!r}; examples: {known}", "schema")])
    return load_spec(path, source=f"example {name}")


def resolve_spec(name_or_path: str | Path) -> EnvSpec:
    """An example name, or a path to a JSON spec file (anything with a slash or ending in .json is a path)."""
    text = str(name_or_path)
    if isinstance(name_or_path, Path) or "/" in text or text.endswith(_SUFFIX) or Path(text).exists():
        path = Path(text)
        if not path.is_file():
            issue = SpecIssue("(file)", "no such file; pass an example name or the path of a spec JSON file", "schema")
            raise SpecError(text, [issue])
        return load_spec(path)
    return load_example(text)


__all__ = ["example_names", "load_example", "resolve_spec"]
