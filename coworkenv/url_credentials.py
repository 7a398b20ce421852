"""Credentials that URLs carry (user:password@, a signed or keyed query string), taken out of text meant for people:
errors, logs and run metadata name the server, never what lets one in."""

from __future__ import annotations

import re

# scheme://[userinfo@]rest-of-the-URL[?query]; the user info and the query are what may hold a secret.
_URL = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^\s/?#]*@)?(?P<rest>[^\s?#\"'<>]*)"
                  r"(?P<query>\?[^\s#\"'<>]*)?")


def without_url_credentials(text: str) -> str:
    """`text` with every URL's user info dropped and its query string replaced by `?<redacted>`."""
    return _URL.sub(lambda m: f"{m['scheme']}{m['rest']}{'?<redacted>' if m['query'] else ''}", text)
