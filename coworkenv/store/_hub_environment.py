"""The environment variables of the Hub client that make any publish to the Hub fail, checked before any work: an
offline switch left on (often TRANSFORMERS_OFFLINE, set for training) and an HF_ENDPOINT that is not a URL (a mirror
written without its scheme). The client failed at the first call, deep in a run, and the message sent the operator to
check HF_TOKEN."""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit

from coworkenv.url_credentials import without_url_credentials

OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")  # huggingface_hub goes offline on either
_TRUE = {"1", "ON", "YES", "TRUE"}  # huggingface_hub.constants.ENV_VARS_TRUE_VALUES
_USER_INFO = re.compile(r"^(\s*(?:[A-Za-z][\w+.-]*://)?)[^/\s]*@")


def hub_environment_problem(repo_id: str) -> str | None:
    """Why publishing to the Hub repo `repo_id` cannot work in this environment (with what to do), or None."""
    offline = next((name for name in OFFLINE_VARS if (os.environ.get(name) or "").strip().upper() in _TRUE), None)
    instead = "or unset COWORKENV_HUB_REPO_ID (and _HUB_MODEL_REPO_ID) to publish into the local git repository"
    if offline is not None:
        return (f"{offline}={os.environ[offline]} keeps the Hugging Face client offline, and publishing to the Hub "
                f"repo {repo_id!r} needs it online; unset {offline} for the run, {instead}")
    endpoint = os.environ.get("HF_ENDPOINT")
    if endpoint is None or endpoint == "":
        return None
    try:
        parts = urlsplit(endpoint.strip())
        host = parts.hostname
    except ValueError:  # a port that is not a number, an unclosed bracket
        parts, host = None, None
    if parts is None or parts.scheme not in ("http", "https") or not host or endpoint != endpoint.strip():
        # user:password@ is dropped also where no scheme marks the value as a URL.
        shown = without_url_credentials(_USER_INFO.sub(r"\1<redacted>@", endpoint))
        return (f"HF_ENDPOINT={shown!r} is not the URL of a Hub (such as https://huggingface.co or "
                f"https://hf-mirror.com, with its scheme and no spaces), so nothing can be published to the Hub repo "
                f"{repo_id!r}; set it to one or unset it, {instead}")
    return None


def hub_repo_id_problem(repo_id: str) -> str | None:
    """Why the Hub would refuse `repo_id` as a repo id (by the Hugging Face client's own rule: `--` or `..`, a name
    beginning or ending with `-` or `.`, ending in `.git`, over 96 characters, a character other than a letter, digit,
    `-`, `_` or `.`), or None. Found before a run, not by the first Hub call at its end."""
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError as error:
        reason = str(error).split(":", 1)[0].rstrip(".")
        return f"{repo_id!r} is not a repo id the Hub accepts ({reason}); name it as the Hub does, such as org/coworkenv"
    return None
