"""A credential (`HF_TOKEN`, an LLM API key) as it is pasted or as an env file leaves it: with the line break copied
with it, blanks around it, the quotes around it (`docker run --env-file` and systemd's `Environment=` keep them),
or the `Bearer ` word of the header it was copied from.

Sent as it is, the server got the quotes too: every Hub call failed with 401 ("check that HF_TOKEN holds a token
with write access", which it did), and an LLM server run without a key took it without a word; the scan that keeps
the credential out of published data looked for the value with its quotes, so the key itself pasted into a spec was
published. Messages name the variable, never the value."""

from __future__ import annotations

# At load, not where first used: the error redaction reads the token files, and an error of too many open files
# left no descriptor to import a module with, so the redaction itself raised in place of the error it reported.
import configparser
import os
import re
from pathlib import Path

from coworkenv.escaping import holds_control_character
from coworkenv.url_credentials import url_credentials, url_secrets

_QUOTES = ('"', "'")
_SCHEME = re.compile(r"(?i)(bearer|token|basic)\s+")  # the start of an Authorization header


def credential_problem(source: str, value: str, noun: str = "key") -> str | None:
    """Why the credential `value` from `source` (a variable's name) cannot be sent as it is, naming `source` and
    never the value; None when it can."""
    if holds_control_character(value):
        return (f"{source} holds a control character (a line break copied with the {noun}?), which an HTTP header "
                f"cannot carry; set it to the {noun} alone")
    if value != value.strip():
        return f"{source} begins or ends with a blank (copied with the {noun}?); set it to the {noun} alone"
    if len(value) >= 2 and value[0] == value[-1] and value[0] in _QUOTES:
        return (f"{source} is wrapped in quotes that became part of the value (`docker run --env-file` and systemd "
                f"keep them), so the server would get the quotes too; remove the quotes")
    scheme = _SCHEME.match(value)
    if scheme:
        return (f"{source} starts with `{scheme[1]} ` (copied from an Authorization header?): the client adds "
                f"`Bearer ` itself; set it to the {noun} alone")
    return None


def credential_core(value: str) -> str:
    """The credential inside `value` as pasted: without blanks, the quotes around it or a `Bearer ` word (what a
    person would paste elsewhere, into a spec or a config, and what a scan for it must look for)."""
    core = value.strip()
    if len(core) >= 2 and core[0] == core[-1] and core[0] in _QUOTES:
        core = core[1:-1].strip()
    scheme = _SCHEME.match(core)
    return core[scheme.end():] if scheme else core


# The Hub token the Hugging Face client reads for itself (transformers downloading a model): the first of these set,
# else the token file `hf auth login` writes (`huggingface_hub.get_token`).
HUB_TOKEN_VARIABLES = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
_TOKEN_FILE_MAX_BYTES = 64 * 1024


# The variables the Hugging Face client builds its cache and token paths from (`huggingface_hub.constants`). Set
# but empty, each is taken as it is: the path joined onto "" is a relative one, so the client looks for (and
# downloads into) `hub/`, `huggingface/` or `token` in whatever folder the command runs from, and a model cached
# before is not found (offline: "couldn't find them in the cached files", a minute later, naming no variable).
HUB_HOME_VARIABLES = ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "HF_TOKEN_PATH")


def hub_client_token_problem(model: str) -> str | None:
    """Why the Hugging Face client could not download `model` (a Hub id) as the user means it: a variable of its
    cache or token paths set but empty (`HUB_HOME_VARIABLES`), or a token that is not one as the client would send
    it, naming the variable or file and never the value; None when all is well, when there is no token, or when
    `model` is a folder here (loaded without the Hub). The client strips blanks and line breaks itself, not the
    quotes an env file keeps nor a `Bearer ` word: our publisher refused those, but a training from a Hub model sent
    them (401)."""
    if os.path.lexists(model):  # a local folder: no cache, no token
        return None
    empty = next((name for name in HUB_HOME_VARIABLES if name in os.environ and not os.environ[name].strip()), None)
    if empty is not None:
        return (f"{empty} is set but empty, so the Hugging Face client would look for {model} (and download it) in "
                f"a folder relative to the current one ({os.getcwd()}), not in its cache: unset {empty}, or set it "
                "to a folder")
    if os.environ.get("HF_OIDC_RESOURCE"):  # a token from OIDC instead
        return None
    source, token = _hub_client_token()
    problem = credential_problem(source, token, "token") if token else None
    return f"{problem} (the Hugging Face client sends it to download {model} from the Hub)" if problem else None


def _hub_client_token() -> tuple[str, str | None]:
    """Where the client takes its token from, and the token as it cleans it (`huggingface_hub.utils._auth`)."""
    name = next((name for name in HUB_TOKEN_VARIABLES if os.environ.get(name)), None)
    if name is not None:
        return name, _cleaned(os.environ[name])
    from huggingface_hub import constants

    path = Path(constants.HF_TOKEN_PATH)
    try:
        with path.open("rb") as file:
            text = file.read(_TOKEN_FILE_MAX_BYTES).decode("utf-8", "replace")
    except OSError:  # none, or unreadable: the client's own error, if any, names it
        return str(path), None
    return f"the token file {path} (`hf auth login` writes it)", _cleaned(text)


def _cleaned(token: str) -> str | None:
    """The token as the client sends it: line breaks removed, blanks stripped; None when nothing is left."""
    return token.replace("\r", "").replace("\n", "").strip() or None


def hub_token_files() -> dict[str, str]:
    """The Hub tokens the Hugging Face client keeps on disk, by where: the token file `hf auth login` writes (at
    $HF_TOKEN_PATH, else $HF_HOME/token, else $XDG_CACHE_HOME/huggingface/token or ~/.cache/huggingface/token) and
    each token of its `stored_tokens` file (`hf auth login` keeps every account's there). Paths as the client builds
    them in this environment, read now; an unreadable or missing file holds none."""
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "huggingface")
    token_path = Path(os.path.expanduser(os.environ.get("HF_TOKEN_PATH") or os.path.join(home, "token")))
    stored_path = Path(os.path.expanduser(home)) / "stored_tokens"
    found: dict[str, str] = {}
    text = _small_text(token_path)
    token = _cleaned(text) if text else None
    if token:
        found[f"the Hugging Face token file {token_path}"] = token
    text = _small_text(stored_path)
    if text:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text)
        except configparser.Error:  # the client's own error names it, if it reads it
            return found
        for section in parser.sections():
            token = _cleaned(parser.get(section, "hf_token", fallback=""))
            if token:
                found[f"the token {section!r} of {stored_path}"] = token
    return found


def _small_text(path: Path) -> str | None:
    try:
        if not path.is_file():  # not a pipe or a device: nothing to wait for
            return None
        with path.open("rb") as file:
            return file.read(_TOKEN_FILE_MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        return None


# The keys the LLM client reads (the first set is sent), and the URLs the product's clients send a credential from
# when one is written into them: the LLM server's and the judge's (`?api_key=`, `user:password@`), the Hub mirror's
# (HF_ENDPOINT) and the proxy's the Hub client goes through (httpx reads the proxy variables, in either case).
LLM_KEY_VARIABLES = ("COWORKENV_LLM_API_KEY", "OPENAI_API_KEY")
URL_VARIABLES = ("COWORKENV_LLM_URL", "COWORKENV_JUDGE_URL", "HF_ENDPOINT", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY",
                 "http_proxy", "ALL_PROXY", "all_proxy")
# A credential this short would match data by chance.
MIN_SECRET_CHARS = 8


# Credentials this process was given other than by a variable (`--llm URL?api_key=...`, a key passed to the LLM
# client, an `llm_url` in a run's config): the variables are what a later process sees, these only this one.
_GIVEN: dict[str, str] = {}


def remember_credential(where: str, value: str) -> None:
    """Add `value` (a credential this process was handed as an argument) to what `held_credentials` lists, so this
    process's publish scan and redactions look for it as for a variable's; shorter than MIN_SECRET_CHARS: ignored."""
    core = credential_core(value)
    if len(core) >= MIN_SECRET_CHARS and core not in _GIVEN.values():
        _GIVEN[where] = core


def held_credentials() -> dict[str, str]:
    """Where -> value, for each credential this process can use that is long enough to look for: each credential
    variable set (the credential itself, without the quotes or blanks an env file left around it: the key alone is
    what gets pasted), the password and key parameters of the URLs it sends to (`URL_VARIABLES`), the credentials it
    was handed as arguments (`remember_credential`: `--llm URL?api_key=...`), and the Hub tokens
    the Hugging Face client keeps on disk (`hf auth login`), which it sends without any variable set.

    The one list of what is secret: the publish scan of the data, the Hub publisher's and the LLM client's redaction
    all read it (each kept its own before, and each missed a form another caught)."""
    found = {name: core for name in (*HUB_TOKEN_VARIABLES, *LLM_KEY_VARIABLES)
             if len(core := credential_core(os.environ.get(name) or "")) >= MIN_SECRET_CHARS}
    for name in URL_VARIABLES:
        for what, value in url_credentials(os.environ.get(name) or "").items():
            if len(value) >= MIN_SECRET_CHARS:
                found.setdefault(f"{name} ({what})", value)
    held = set(found.values())
    for where, value in list(_GIVEN.items()):
        if value not in held:
            found[where] = value
            held.add(value)
    for where, token in hub_token_files().items():
        if len(token) >= MIN_SECRET_CHARS and token not in held:
            found[where] = token
            held.add(token)
    return found


def held_secret_forms() -> list[str]:
    """Every spelling of a held credential a server may echo back, for redaction: the credentials themselves, and each
    URL variable's secrets as its client sends them (the Basic-auth header of `user:password@`, query values as
    written and decoded)."""
    forms = set(held_credentials().values())
    for name in URL_VARIABLES:
        forms.update(url_secrets(os.environ.get(name) or ""))
    return sorted(forms, key=len, reverse=True)
