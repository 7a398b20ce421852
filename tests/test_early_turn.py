"""The early-action replay finds the turns that gate their writes from the spec alone: a turn answering a question,
a turn bringing announced changes, a turn after the world's delayed reaction to the earlier turn's calls; a plain
further request gates nothing (doing it early is only eager)."""

from __future__ import annotations

from pathlib import Path

from coworkenv.spec import EnvSpec
from coworkenv.synth import generate_spec, load_taxonomy
from coworkenv.validate._early_action import early_actions

TAXONOMY = load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")


def _spec(cap: str, seed: int) -> EnvSpec:
    return generate_spec(TAXONOMY[cap], seed)


def test_announced_changes_gate_the_turns_writes() -> None:
    spec = _spec("adapt_announced_change", 1)  # the owner goes on leave with the second turn
    found = list(early_actions(spec))
    assert len(found) == 2 and all(f.path.startswith("reference[1].steps[") for f in found)
    first, every = found[0], found[-1]
    assert "announces" in first.description
    moved = [s.call.name for s in first.reference[0].steps if s.call is not None][-1]
    assert moved == "tickets_update" and first.reference[0].steps[-1].say  # before turn 0's closing reply
    assert not any(s.call is not None and s.call.name in ("tickets_update", "chat_send_dm")
                   for s in every.reference[1].steps)  # every write of the turn moved


def test_a_delayed_reaction_gates_the_next_turns_writes() -> None:
    spec = _spec("access_request_approval", 1)  # the manager's approval comes 5-45 min after the request mail
    found = list(early_actions(spec))
    assert found and "manager-answers" in found[0].description


def test_a_plain_further_request_gates_nothing() -> None:
    spec = _spec("adapt_announced_change", 1)
    turns = [spec.turns[0], spec.turns[1].model_copy(update={"changes": [], "announce": None})]
    plain = spec.model_copy(update={"turns": turns, "dynamics": spec.dynamics.model_copy(update={"rules": []})})
    assert list(early_actions(plain)) == []
    late = spec.dynamics.rules[0].model_copy(update={"delay_s": 0})  # a reaction at once: there before turn 0 ends
    instant = plain.model_copy(update={"dynamics": spec.dynamics.model_copy(update={"rules": [late]})})
    assert list(early_actions(instant)) == []
