"""Share word pinned: the source gives a share under a key naming its unit (`threshold_pct: 85`, `error_budget_pct:
40`), and the writer's message or reply states it with the unit as a word: `85 percent`, `40 pct`, `eighty-five
percent`. The check wants that form, so the agent that copies the value as the config gives it (`threshold_pct=85`,
`85%`) fails. Nobody asked for the word. The sound twin (the shipped spec) wants the value as the source gives it.
The bases are lookup_answer_source's specs with the setting the user asks for renamed to a share where its value is
one (100 or less: `rate_limit_rps: 40` becomes `error_budget_pct: 40` everywhere in the spec, as size_pinned does);
the generator's own share setting (`threshold_pct`) is asked in one seed of 120.

unit_pinned's replay read a share only as a fraction (`0.85`): a share in the source's own unit, spelled as a word,
was no other unit, so main accepted every case here.

Caught by the unit replay (`unit_pinned`, `_units`): a share written with `percent` or `pct` (digits or words) for a
`_pct`/`_percent` source is replayed as the source gives it (`85%`), as an idiom of the source's unit is.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from tests.defects._core import CorpusError, replay_defect
from tests.defects.size_pinned import _resized
from tests.defects.unit_pinned import pinned_dm, pinned_reply

CLASS = "share_word_pinned"
DETECTION = (
    "replay the reference with each share it states with `percent` or `pct` (`85 percent`, `eighty-five percent`) "
    "for a source key naming a percentage (`threshold_pct: 85`) written as the source gives it (`85%`); a replay that "
    "fails a check the reference passes wants the writer's word"
)
_WORDS = {30: "thirty", 40: "forty", 85: "eighty-five", 100: "one hundred"}


def _share(form: str) -> Callable[[str, str, int], tuple[str, str]]:
    """A converter: the percentage with its unit as a word (`form` has `{n}`, or `{w}` for the number in words)."""
    def convert(key: str, unit: str, value: int) -> tuple[str, str]:
        if unit not in ("pct", "percent") or value not in _WORDS:
            raise CorpusError(f"{key}_{unit}={value}: not a percentage of 100 or less")
        return key.replace("_", " "), form.format(n=value, w=_WORDS[value])
    return convert


_defect = partial(replay_defect, CLASS, "unit_pinned")  # (name, base, breaks, away): the honest reference fails it
_LOOKUP = "synth:lookup_answer_source@"
_DM = "DMs the share as the config gives it (`threshold_pct=85`): the check wants the writer's `85 percent`"
_REPLY = "tells the user `threshold_pct is 85`: the check wants `85 percent`"
_CASES = [  # (seed, the key the setting becomes, the writer's form, in the reply)
    (51, "threshold_pct", "{n} percent", False),
    (13, "error_budget_pct", "{n} percent", False),
    (24, "cpu_limit_pct", "{n} pct", False),
    (103, "sample_rate_pct", "{w} percent", False),
    (51, "threshold_pct", "{n}pct", False),
    (13, "error_budget_pct", "{n}-percent", False),
    (51, "threshold_pct", "{n} percent", True),
    (103, "sample_rate_pct", "{n} pct", True),
]


def _name(key: str, form: str, reply: bool) -> str:
    words = form.replace("{n}", "digits").replace("{w}", "words").replace("-", "-hyphen-").replace(" ", "-")
    return f"{key.replace('_', '-')}-{words}{'-in-reply' if reply else ''}"


DEFECTS = [
    _defect(f"{_name(key, form, reply)}-{seed}", f"{_LOOKUP}{seed}",
            _resized(key, (pinned_reply if reply else pinned_dm)(_share(form))), _REPLY if reply else _DM)
    for seed, key, form, reply in _CASES
]
