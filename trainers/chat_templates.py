"""Chat templates for training, read at runtime from the installed `trl` package (never copied into this repo).

TRL keeps training variants of common templates in `trl/chat_templates/*_training.jinja`: prefix-preserving, with
`{% generation %}` markers around assistant output so `return_assistant_tokens_mask=True` yields the loss mask.
"""

from __future__ import annotations

import re
from importlib import resources

__all__ = ["available_trl_templates", "has_generation_markers", "trl_chat_template"]

_GENERATION_MARKER = re.compile(r"\{%-?\s*generation\s*-?%\}")


def available_trl_templates() -> list[str]:
    """Names (file stems) of the chat templates shipped with the installed trl."""
    folder = resources.files("trl") / "chat_templates"
    return sorted(entry.name.removesuffix(".jinja") for entry in folder.iterdir() if entry.name.endswith(".jinja"))


def trl_chat_template(name: str) -> str:
    """The text of `trl/chat_templates/<name>.jinja`, e.g. `qwen3_training` or `qwen3_vl_training`."""
    entry = resources.files("trl") / "chat_templates" / f"{name}.jinja"
    if not entry.is_file():
        raise FileNotFoundError(
            f"chat template {name!r} is not shipped with the installed trl; available: {', '.join(available_trl_templates())}"
        )
    return entry.read_text(encoding="utf-8")


def has_generation_markers(template: str) -> bool:
    """Whether `template` marks assistant output with `{% generation %}` (needed for assistant-only loss)."""
    return bool(_GENERATION_MARKER.search(template))
