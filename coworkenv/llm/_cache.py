"""On-disk response cache keyed by `LLMRequest.cache_key`, so a re-run does not pay twice."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from coworkenv.atomic import atomic_write_bytes
from coworkenv.llm._types import LLMResponse

logger = logging.getLogger(__name__)


class ResponseCache:
    """One JSON file per request key under `root/<first two hex digits>/<key>.json`.

    Writes are atomic (temp file, fsync, rename), so concurrent writers and crashes never leave
    a half-written entry. Entries hold the response only: no request headers, no credentials.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> LLMResponse | None:
        """Return the cached response for `key`, or None when absent or unreadable."""
        path = self._path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return LLMResponse.from_json_dict(data, cached=True)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            # A damaged entry is a miss: the request is simply paid again and the entry rewritten.
            logger.warning("ignoring unreadable LLM cache entry %s: %s", path, exc)
            return None

    def put(self, key: str, response: LLMResponse) -> None:
        """Store `response` under `key` atomically."""
        payload = response.to_json_dict()
        payload["cached"] = False
        atomic_write_bytes(self._path(key), json.dumps(payload, ensure_ascii=False, sort_keys=True).encode("utf-8"))
