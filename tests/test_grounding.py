"""Grounded demonstrations: the oracle writes only values it has seen (coworkenv.rollout.grounding).

The corpus here is every capability of the taxonomy: the plain oracle of several of them writes ids the generator
knew and the agent never saw (a mail id without a search, a DM channel without a listing); the grounded oracle looks
first, and its episodes still pass wherever the plain oracle's do.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from coworkenv.env import Action, Env
from coworkenv.rollout import OracleTeacher
from coworkenv.rollout.grounding import discovery_call, observed_text, unseen_in_record, unseen_values
from coworkenv.synth.generate import generate_spec
from coworkenv.synth.taxonomy import load_taxonomy

ROOT = Path(__file__).resolve().parents[1]
CAPABILITIES = {c.id: c for c in load_taxonomy(ROOT / "taxonomy")}
SEEDS = range(3)


def test_unseen_values_finds_ids_paths_emails_and_large_numbers_only() -> None:
    seen = "Selin asked about INC-647 in finance/cost-centers-2026.md; mail selin@zenith.example"
    arguments = {"ticket_id": "INC-647", "message_id": "msg-655", "to": ["selin@zenith.example", "bo@x.example"],
                 "body": "The value is EUR 13,873 (source: finance/cost-centers-2026.md).", "limit": 50,
                 "amount": 4810, "nested": {"path": "legal/contracts.md."}}
    assert unseen_values(arguments, seen) == ["msg-655", "bo@x.example", "13", "873", "4810", "legal/contracts.md"]
    assert unseen_values({"text": "thanks, done"}, "") == []  # plain words are the agent's own


def test_unseen_in_record_counts_a_value_only_before_it_was_shown() -> None:
    call = {"type": "function", "function": {"name": "mail_read_message", "arguments": '{"message_id":"msg-7"}'}}
    guessed = [{"role": "user", "content": "Read the mail from Ana."},
               {"role": "assistant", "content": "", "tool_calls": [call]}]
    looked = [{"role": "user", "content": "Read the mail from Ana."},
              {"role": "tool", "content": '[{"id":"msg-7","from":"ana@x.test"}]'},
              {"role": "assistant", "content": "", "tool_calls": [call]}]
    assert unseen_in_record(guessed) == [("mail_read_message", "msg-7")]
    assert unseen_in_record(looked) == []
    # Enum values are seen in the tool schemas.
    enum_call = {"type": "function", "function": {"name": "t", "arguments": {"status": "in_progress"}}}
    tools = [{"type": "function", "function": {"name": "t", "parameters": {
        "properties": {"status": {"enum": ["open", "in_progress"]}}}}}]
    assert unseen_in_record([{"role": "assistant", "tool_calls": [enum_call]}], tools) == []
    assert observed_text([{"role": "assistant", "content": "secret"}]) == ""


def _guessed(capability: str, grounded: bool) -> tuple[list[bool], int]:
    """(passed per seed, values written that the world holds but the agent had not seen) for one capability."""
    passed, guessed = [], 0
    for seed in SEEDS:
        spec = generate_spec(CAPABILITIES[capability], seed)
        record = OracleTeacher(grounded=grounded, terse=True).run(spec)[0]
        world = orjson.dumps(spec.world.apps.model_dump(mode="json")).decode()
        passed.append(record.passed)
        guessed += sum(value in world for _, value in unseen_in_record(record.messages, record.tools))
    return passed, guessed


def test_grounded_oracle_passes_where_the_plain_one_does_and_guesses_less() -> None:
    totals = {False: 0, True: 0}
    for capability in sorted(CAPABILITIES):
        plain_passed, plain = _guessed(capability, False)
        grounded_passed, grounded = _guessed(capability, True)
        assert grounded_passed == plain_passed, f"{capability}: looking first changed an outcome"
        assert grounded <= plain, f"{capability}: the grounded oracle guesses more than the plain one"
        totals[False] += plain
        totals[True] += grounded
    # What stays is computed, not copied (a free/busy window from time zones that happens to match an event).
    assert totals[True] * 4 <= totals[False], totals


@pytest.mark.parametrize("capability", ["draft_only_reply", "lookup_answer_source", "delegate_and_follow_up",
                                        "report_from_data", "access_request_approval", "ticket_triage_update"])
def test_grounded_oracle_guesses_no_id_at_all(capability: str) -> None:
    assert _guessed(capability, True)[1] == 0


def test_the_plain_oracle_guesses_somewhere_so_the_corpus_can_fail() -> None:
    guessed = 0
    for name in ("draft_only_reply", "lookup_answer_source", "delegate_and_follow_up"):
        for seed in SEEDS:
            record = OracleTeacher(grounded=False, terse=True).run(generate_spec(CAPABILITIES[name], seed))[0]
            guessed += bool(unseen_in_record(record.messages, record.tools))
    assert guessed >= 3


def test_discovery_reads_without_changing_the_world_or_the_audit() -> None:
    spec = generate_spec(CAPABILITIES["draft_only_reply"], 1)
    env = Env(spec)
    env.reset()
    target = next(s.call for t in spec.reference for s in t.steps if s.call and s.call.name == "mail_save_draft")
    before, audit = env.state.content_hash(), len(env.audit)
    look = discovery_call(env, target.arguments)
    assert look is not None and env.state.content_hash() == before and len(env.audit) == audit
    result = env.step(Action.call(look.name, look.arguments))
    shown = " ".join(str(m.get("content")) for m in result.messages)
    assert any(value in shown for value in unseen_values(target.arguments, observed_text(env.messages[:-1])))
    # Nothing left to discover once everything has been seen.
    assert discovery_call(env, {"ticket_id": "INC-0"}) is None  # not in the world: nothing can show it
    assert discovery_call(env, {"body": "Dear team, thanks."}) is None  # no value to carry
