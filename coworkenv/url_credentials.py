"""Credentials that URLs carry (user:password@, a signed or keyed query string), taken out of text meant for people:
errors, logs and run metadata name the server, never what lets one in. The one redaction both the Hub publisher and
the LLM client apply (`scrub_credentials`): each had its own, and each missed a form the other caught."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, unquote, unquote_plus, urlsplit

# scheme://[userinfo@]rest-of-the-URL[?query]; the user info and the query are what may hold a secret.
_URL = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^\s/?#]*@)?(?P<rest>[^\s?#\"'<>]*)"
                  r"(?P<query>\?[^\s#\"'<>]*)?")
# Query parameters whose value lets one in (`api_key`, `token`, `X-Amz-Signature`, `sig`, `code`, ...); the others
# (`api-version=2024-02-01`) are what a dataset may hold by chance, so only these are looked for in the data.
_CREDENTIAL_PARAMETER = re.compile(r"key|token|secret|sig|pass|pwd|auth|credential|code|session", re.IGNORECASE)


def without_url_credentials(text: str) -> str:
    """`text` with every URL's user info dropped and its query string replaced by `?<redacted>`."""
    return _URL.sub(lambda m: f"{m['scheme']}{m['rest']}{'?<redacted>' if m['query'] else ''}", text)


def url_secrets(url: str) -> list[str]:
    """What in `url` may let one in, as a server may echo it back (an error page quoting the request path or its
    Authorization header): the password, its Basic-auth form (the HTTP clients send `user:password@` so), and every
    value of the query, as written and decoded; longest first. Nothing for text that is not a URL (an unclosed IPv6
    bracket in a proxy variable must not stop an error from being told)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found: set[str] = set()
    if parts.password:
        basic = f"{unquote(parts.username or '')}:{unquote(parts.password)}"
        found |= {parts.password, unquote(parts.password), base64.b64encode(basic.encode()).decode()}
    import yarl  # here: 30 ms to import, and most readers of this module (the settings, the trainers) never call it

    try:  # as aiohttp sends it (yarl re-quotes: `%2F` goes out as `/`)
        sent = yarl.URL(url).raw_query_string
    except ValueError:
        sent = ""
    for pair in [*parts.query.split("&"), *sent.split("&")]:
        value = pair.partition("=")[2]
        found |= {value, unquote_plus(value)}
    return sorted((secret for secret in found if len(secret) >= 4), key=len, reverse=True)


def url_credentials(url: str) -> dict[str, str]:
    """What -> value of the credentials `url` holds as a person would paste them elsewhere: its password and the values
    of its credential parameters (`api_key=`, a signature), decoded; not `api-version` or a user name."""
    try:
        parts = urlsplit(url.strip())
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        password = parts.password
    except ValueError:  # not a URL: its own check names it
        return {}
    found = {"its password": unquote(password)} if password else {}
    found |= {f"its {name!r} parameter": value for name, value in pairs if _CREDENTIAL_PARAMETER.search(name)}
    return {what: value for what, value in found.items() if value}


def url_credential_forms(url: str) -> list[str]:
    """The credentials of `url` (`url_credentials`: its password, its credential parameters) in every spelling a server
    may echo into an answer: decoded, as written in the URL, and the Basic-auth form of `user:password@`; longest
    first. Unlike `url_secrets`, never a plain query value (`api-version=2024-02-01`), which answers hold by chance."""
    found = set(url_credentials(url).values())
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return []
    if parts.password:
        found |= {parts.password, base64.b64encode(
            f"{unquote(parts.username or '')}:{unquote(parts.password)}".encode()).decode()}
    import yarl  # see `url_secrets`

    try:  # as aiohttp sends it (yarl re-quotes: `%2F` goes out as `/`)
        sent = yarl.URL(url.strip()).raw_query_string
    except ValueError:
        sent = ""
    for pair in [*parts.query.split("&"), *sent.split("&")]:
        name, _, value = pair.partition("=")
        if _CREDENTIAL_PARAMETER.search(unquote_plus(name)):
            found.add(value)
    return sorted((secret for secret in found if secret), key=len, reverse=True)


def scrub_credentials(text: str, secrets: Iterable[str], mark: str) -> str:
    """`text` with each of `secrets` (longest first: one may hold another) replaced by `mark`, then every URL in it
    without user info or query (`without_url_credentials`)."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, mark)
    return without_url_credentials(text)
