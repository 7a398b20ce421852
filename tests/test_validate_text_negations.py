"""`not_equals` on a free text (`validate/_text_negations.py`): reported where the field holds sentences, left alone
on a token field and where the world holds the very text."""

from __future__ import annotations

from typing import Any

from coworkenv.loading import parse_spec
from coworkenv.validate._text_negations import text_negations
from tests.defects._core import base_spec, check


def _answer(spec: dict[str, Any]) -> dict[str, Any]:
    return check(spec, kind="records", where=lambda c: any(w.get("op") == "not_contains"
                                                           for w in c["rule"].get("where") or []))


def _found(spec: dict[str, Any]) -> list[str]:
    return [path for path, _ in text_negations(parse_spec(spec))]


def test_not_equals_on_a_message_text_is_reported_and_on_a_token_field_is_not() -> None:
    spec = base_spec("synth:lookup_answer_source@1")
    assert _found(spec) == []
    where = _answer(spec)["rule"]["where"]
    k = next(i for i, w in enumerate(where) if w["op"] == "not_contains")
    where[k]["op"] = "not_equals"
    where.append({"field": "channel", "op": "not_equals", "value": "c-random"})  # a token field: a fair `!=`
    found = _found(spec)
    assert len(found) == 1 and found[0].endswith(f".where[{k}]"), found


def test_not_equals_a_text_the_world_holds_whole_is_left_alone() -> None:
    spec = base_spec("synth:lookup_answer_source@1")
    held = next(m["text"] for m in spec["world"]["apps"]["chat"]["messages"] if len(m["text"].split()) >= 3)
    where = _answer(spec)["rule"]["where"]
    where.append({"field": "text", "op": "not_equals", "value": held})
    assert _found(spec) == []
