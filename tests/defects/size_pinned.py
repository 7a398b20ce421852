"""Size pinned: the source gives a data size under a key naming its unit (`max_body_kb: 900`, `max_upload_mb: 1500`,
`buffer_bytes: 3600`, `cache_size_mib: 4000`), and the writer's message or reply states it in another unit: `0.9 MB`,
`1.5 GB`, `921,600 bytes`, `3.6 KB`, `180 KiB` for `180` kilobytes. The check wants that form, so the agent that copies
the value as the config gives it (`max_body_kb=900`, `900 KB`) fails. Nobody asked for another unit, and a kilobyte is
1000 or 1024 bytes as the writer pleases. The sound twin (the shipped spec) wants the value as the source gives it.

The bases are lookup_answer_source's specs with the setting the user asks for renamed to a size (`cache_ttl_s: 900`
becomes `max_body_kb: 900` everywhere in the spec: the world's configs, the reference, the checks); the generator's own
size settings (`max_body_kb`) are asked in one seed of 120.

unit_pinned's replay left sizes alone (`_kb`, `_mb` were not read), so main accepted every case here.

Caught by the unit replay (`unit_pinned`, `_units`): a size shown under a key naming its unit (`_bytes`, `_kb`,
`_kib`, `_mb`, `_mib`, `_gb`, `_gib`) and stated in another unit (decimal or binary, either reading) is replayed as
the source gives it (`900 KB`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

import orjson

from tests.defects._core import CorpusError, Spec, replay_defect
from tests.defects.unit_pinned import _KEY as _SETTING
from tests.defects.unit_pinned import _dm, pinned_dm, pinned_reply

CLASS = "size_pinned"
DETECTION = (
    "replay the reference with each data size it states in another unit than the source's key names (`0.9 MB` or "
    "`921,600 bytes` for `max_body_kb: 900`, read as decimal or binary) written as the source gives it (`900 KB`); a "
    "replay that fails a check the reference passes wants the writer's conversion"
)

_SCALE = {"bytes": 1, "KB": 1000, "KiB": 1024, "MB": 10**6, "GB": 10**9, "kb": 1000, "mb": 10**6, "mib": 2**20}
_BINARY = {"kb": 1024, "mb": 2**20, "mib": 2**20, "bytes": 1}


def _resized(key: str, then: Callable[[Spec], None]) -> Callable[[Spec], None]:
    """The setting the DM states renamed to the size `key` everywhere in the spec, then the edit `then`."""
    def edit(spec: Spec) -> None:
        m = _SETTING.search(_dm(spec)["arguments"]["text"])
        if m is None:
            raise CorpusError(f"{spec['capability']}: no setting in the DM")
        old = f"{m.group(1)}_{m.group(2)}"
        text = re.sub(rf"(?<![a-z_]){re.escape(old)}(?![a-z_])", key, orjson.dumps(spec).decode())
        spec.clear()
        spec.update(orjson.loads(text))
        then(spec)
    return edit


def _size(to: str, binary: bool = False) -> Callable[[str, str, int], tuple[str, str]]:
    """A converter: the size in the unit `to` (`binary`: the source's unit read as 1024-based), grouped by thousands."""
    def convert(key: str, unit: str, value: int) -> tuple[str, str]:
        size = value * (_BINARY[unit] if binary else _SCALE[unit]) / _SCALE[to]
        shown = f"{size:,.0f}" if size.is_integer() else f"{size:g}"
        return key.replace("_", " "), f"{shown} {to}"
    return convert


_defect = partial(replay_defect, CLASS, "unit_pinned")  # (name, base, breaks, away): the honest reference fails it

_LOOKUP = "synth:lookup_answer_source@"
_DM = "DMs the size as the config gives it (`max_body_kb=900`): the check wants the writer's `0.9 MB` or `921,600 bytes`"
_REPLY = "tells the user `max_body_kb is 900`: the check wants `0.9 MB`"
_CASES = [  # (name, seed, the key the setting becomes, the writer's unit, binary, in the reply)
    ("kb-as-mb", 1, "max_body_kb", "MB", False, False),
    ("kb-as-mb", 9, "max_body_kb", "MB", False, False),
    ("kb-as-binary-bytes", 3, "max_body_kb", "bytes", True, False),
    ("kb-as-binary-bytes", 38, "request_buffer_kb", "bytes", True, False),
    ("kb-as-decimal-bytes", 45, "max_body_kb", "bytes", False, False),
    ("kb-as-kib", 39, "max_body_kb", "KiB", True, False),
    ("mb-as-gb", 14, "max_upload_mb", "GB", False, False),
    ("mb-as-gb", 37, "max_upload_mb", "GB", False, False),
    ("mb-as-gb", 40, "disk_quota_mb", "GB", False, False),
    ("bytes-as-kb", 46, "buffer_bytes", "KB", False, False),
    ("mib-as-bytes", 68, "cache_size_mib", "bytes", True, False),
    ("kb-as-mb-in-reply", 64, "max_body_kb", "MB", False, True),
    ("kb-as-kib-in-reply", 50, "max_body_kb", "KiB", True, True),
]

DEFECTS = [
    _defect(f"{name}-{seed}", f"{_LOOKUP}{seed}",
            _resized(key, (pinned_reply if reply else pinned_dm)(_size(to, binary))), _REPLY if reply else _DM)
    for name, seed, key, to, binary, reply in _CASES
]
