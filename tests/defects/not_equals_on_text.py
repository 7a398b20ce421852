"""`not_equals` on a free text where `not_contains` was meant: the answer's check refuses the wrong value with `text
not_equals "3603"` (the negation of `contains` written as `!=` reads in code). A sentence never equals the value, so
the condition never fails: the answer that states the right value and the wrong one too ("900, or maybe 3603")
passes. The sound twin is the shipped spec (`not_contains`). Found by the outsider's hunt
(`benchmarks/hunt_mutants.py --family d119`, kind `not_contains_as_ne`)."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, reference

CLASS = "not_equals_on_text"
DETECTION = (
    "statically, at the references gate: a `not_equals` condition with a text value on a field holding free text "
    "(another condition of the rule searches it with `contains`/`matches`, or the world holds sentences there), "
    "unless the world holds that very text there; reported `not_equals_text`"
)


def _answer(spec: Spec) -> dict[str, Any]:
    return check(spec, kind="records", where=lambda c: any(w.get("op") == "not_contains"
                                                           for w in c["rule"].get("where") or []))


def _as_ne(spec: Spec) -> None:
    for w in _answer(spec)["rule"]["where"]:
        if w.get("op") == "not_contains":
            w["op"] = "not_equals"


def _hedged(spec: Spec) -> list[dict[str, Any]]:
    """The reference whose answer also states the wrong value the check refuses."""
    wrong = next(w["value"] for w in _answer(spec)["rule"]["where"] if w.get("op") == "not_contains")
    ref = reference(spec)
    for turn in ref:
        for st in turn["steps"]:
            c = st.get("call")
            if c and c["name"] == "chat_send_dm":
                c["arguments"]["text"] += f" (or maybe {wrong})"
                return ref
    raise CorpusError(f"{spec['capability']}: the reference sends no answer")


def _defect(seed: int) -> Defect:
    return Defect(CLASS, f"answer-ne-{seed}", f"synth:lookup_answer_source@{seed}",
                  "answers with the right value and the wrong one beside it", breaks=_as_ne, witness=_hedged,
                  gate="references", code="not_equals_text")


DEFECTS = [_defect(1), _defect(2), _defect(3), _defect(4), _defect(5)]
