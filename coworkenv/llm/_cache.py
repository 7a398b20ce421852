"""On-disk response cache keyed by `LLMRequest.cache_key`, so a re-run does not pay twice."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from coworkenv.atomic import atomic_write_bytes
from coworkenv.checkpoint_manifest import loaded_files_digest
from coworkenv.llm._types import LLMResponse

logger = logging.getLogger(__name__)


def server_identity(chat_endpoint: str) -> str:
    """What tells one OpenAI-compatible server's answers from another's under the same model name, for a cache key:
    the endpoint's scheme, host (lower case), port and path, and a digest of its query (Azure's `?api-version=` picks
    the model's version; a query may hold a key, so only its digest goes into the key, which is a digest itself).
    User info is left out (a credential, not a server)."""
    parts = urlsplit(chat_endpoint)
    host = (parts.hostname or "").lower()
    netloc = f"{host}:{parts.port}" if parts.port is not None else host
    identity = urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), "", ""))
    if parts.query:
        identity += "?" + hashlib.sha256(parts.query.encode("utf-8")).hexdigest()[:16]
    return identity


# What a server's `/v1/models` card says of the weights behind a model name: vLLM and SGLang give the path or Hub id
# they loaded (`root`) and, for a LoRA adapter, its base (`parent`). `created` is left out: vLLM stamps it per request.
_WEIGHTS_FIELDS = ("root", "parent")


def served_weights_identity(listing: Any, model: str) -> str:
    """What tells the weights a server serves under `model` from others, for a cache key, read from its `/v1/models`
    answer `listing`: a digest of the model card's `root` and `parent`; empty when the server does not say (no card
    for `model`, no such fields: then the key is the server's alone, as before).

    A server restarted on other weights under the same `--served-model-name`, URL and port (the next checkpoint, a
    bigger model behind `default`, another LoRA adapter) answered otherwise, yet its requests were answered from the
    earlier weights' cache entries: the new model was never asked."""
    cards = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(cards, list):
        return ""
    card = next((c for c in cards if isinstance(c, dict) and c.get("id") == model), None)
    if card is None:
        return ""
    said = {name: card[name] for name in _WEIGHTS_FIELDS if isinstance(card.get(name), str) and card[name]}
    if not said:
        return ""
    return "~" + hashlib.sha256(json.dumps(said, sort_keys=True).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def checkpoint_identity(model: str) -> str:
    """What tells one local checkpoint's answers from another's, for a cache key: for a folder, a digest of the name
    and bytes of each file that makes the model, subfolders included (`loaded_files_digest`: trained again in place,
    it answers otherwise under the same name; `./ckpt` names another model in another folder); a Hub model name as
    it is. Not its path: the same files moved or copied (a data folder moved, a checkpoint copied to another disk)
    are the same model, whose answers were asked again when its absolute path keyed them.

    Sizes and modification times keyed it before: a checkpoint restored or unpacked with its files' times (an archive
    with fixed times, `cp -p`, `rsync -a`) and the sizes of the same shapes got the earlier weights' answers, and a
    file in a subfolder (`additional_chat_templates/`) was not looked at."""
    folder = Path(model).expanduser()
    try:
        if not folder.is_dir():
            return model
        digest = loaded_files_digest(folder)
    except OSError:  # unreadable: the engine will say so; a key that matches no earlier entry costs one request
        return f"{folder.absolute()}#unreadable"
    return f"checkpoint#{digest[:32]}"


class ResponseCache:
    """One JSON file per request key under `root/<first two hex digits>/<key>.json`.

    Writes are atomic (temp file, fsync, rename), so concurrent writers and crashes never leave
    a half-written entry. Entries hold the response only: no request headers, no credentials.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.write_failure: str | None = None  # why entries are not written (said once), None while they are

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> LLMResponse | None:
        """Return the cached response for `key`, or None when absent or unreadable."""
        path = self._path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return LLMResponse.from_json_dict(data, cached=True)
        except (FileNotFoundError, NotADirectoryError):  # absent (or no cache folder yet where a file stands)
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            # A damaged entry is a miss: the request is simply paid again and the entry rewritten.
            logger.warning("ignoring unreadable LLM cache entry %s: %s", path, exc)
            return None

    def put(self, key: str, response: LLMResponse) -> None:
        """Store `response` under `key` atomically; a cache that cannot be written (a full disk or quota, a read-only
        or another user's folder) is said once and left unwritten, the answer kept.

        The answer is paid for: an error out of the cache lost it, and with it every answer and result of the run (a
        `validate` exited before writing any table), for a file that only saves paying twice."""
        if self.write_failure is not None:
            return
        payload = response.to_json_dict()
        payload["cached"] = False
        try:
            atomic_write_bytes(self._path(key), json.dumps(payload, ensure_ascii=False, sort_keys=True).encode("utf-8"))
        except OSError as exc:
            self.write_failure = f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)
            logger.warning("cannot write the LLM response cache under %s (%s); the answers are used but no longer "
                           "cached in this run: free space there, or give another folder (--cache-dir)",
                           self.root, self.write_failure)
