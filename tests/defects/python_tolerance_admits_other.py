"""Python tolerance admits another: a Python check reads the answer's amount from the replies and compares it with a
tolerance (`abs(v - 12973) <= 1297.3`, `11675 <= v <= 14270`, `int(v) // 10000 == 1`) wide enough to take another
amount the world offers for it: the outdated 2025 copy's figure for the same account, or the next account's row of
the same file. The agent that copies the wrong row or the stale file's figure passes. The sound twin compares the
amount exactly.

Main's gates missed every one: the admitted-number near misses (`_admitted_numbers`, defects85) read the tolerance of
a declarative text check only, and the code's bounds are not declared; `text_alter` changes every fact of the reply
at once (a far amount), which such a check fails.

Caught by `_python_tolerance` (`content_unchecked`): the reply is replayed with each number it states swapped for the
nearest number the world offers; where that passes every check while a far number fails a Python check reading the
replies, the check's tolerance admits the other value.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.defects._core import CorpusError, Defect, Spec
from tests.defects.tolerance_admits_other import _answer, _cite_source, _other, _stated_other

CLASS = "python_tolerance_admits_other"
DETECTION = (
    "replay the reference's reply with each number it states swapped for the nearest number the world offers; where "
    "that passes every check while a far number fails a Python check on the replies, the check's tolerance admits "
    "the other value"
)

_CODE = """\
import re


def check(state, audit, messages):
    said = " ".join(m["text"] for m in messages if m["turn"] == {turn}).lower()
    for v in [float(x.replace(",", "")) for x in re.findall(r"eur\\s*(\\d[\\d,]*)", said)]:
        if {cond}:
            return True
    return False
"""

# How a writer's code bounds the amount `x`: each (name, condition on `v` of the right amount `x`).
Bound = Callable[[int], str]
_EXACT: Bound = lambda x: f"v == {x}"  # noqa: E731
_REL10: Bound = lambda x: f"abs(v - {x}) <= {0.1 * x!r}"  # noqa: E731
_BAND: Bound = lambda x: f"{round(x * 0.9)} <= v <= {round(x * 1.1)}"  # noqa: E731
_TENS_OF_THOUSANDS: Bound = lambda x: f"int(v) // 10000 == {x // 10000}"  # noqa: E731


def _python_check(bound: Bound, cite: bool, wide: bool) -> Callable[[Spec], None]:
    """The writer's reply check in Python: the amount the last reply states, within `bound`; where `wide`, the bound
    must admit the world's nearest other amount (CorpusError where it does not)."""
    def edit(spec: Spec) -> None:
        if cite:
            _cite_source(spec)
        _, right = _answer(spec)
        cond = bound(right)
        if wide and not eval(cond, {}, {"v": float(_other(spec))}):
            raise CorpusError(f"{spec['capability']}: {cond} does not admit {_other(spec)}")
        code = _CODE.format(turn=len(spec["turns"]) - 1, cond=cond)
        spec["checks"].append({"id": "reply-states-amount", "description": "the reply states the amount",
                               "rule": {"kind": "python", "entrypoint": "check", "code": code}})
    return edit


def _case(name: str, base: str, bound: Bound, away: str, cite: bool = False) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_python_check(bound, cite, True),
                  fix=_python_check(_EXACT, cite, False), witness=_stated_other, gate="mutations",
                  code="content_unchecked")


_STALE = "tells the user the outdated 2025 copy's figure: the Python check takes any amount {}"
_ROW = "tells the user another account's figure from the same file: the Python check takes any amount {}"

DEFECTS = [
    _case("py-stale-annual-value-10pct-2", "synth:lookup_answer_source@2", _REL10, _STALE.format("within 10%")),
    _case("py-stale-approval-limit-band-11", "synth:lookup_answer_source@11", _BAND,
          _STALE.format("between 90% and 110%")),
    _case("py-stale-annual-value-ten-thousands-47", "synth:lookup_answer_source@47", _TENS_OF_THOUSANDS,
          _STALE.format("in the same ten thousand")),
    _case("py-reply-other-row-10pct-14", "synth:inbox_triage_reply@14", _REL10, _ROW.format("within 10%"), cite=True),
    _case("py-draft-other-row-band-32", "synth:draft_only_reply@32", _BAND, _ROW.format("between 90% and 110%"),
          cite=True),
]
