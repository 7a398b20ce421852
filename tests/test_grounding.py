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


def test_the_words_of_a_search_query_must_have_been_seen_like_ids() -> None:
    seen = "Please reply to the mail from Hickory Games (Leon). Our customer asked."
    assert unseen_values({"query": "Zircon Schools"}, seen) == ["Zircon", "Schools"]
    assert unseen_values({"query": "Hickory"}, seen) == []
    assert unseen_values({"query": "customers"}, seen) == []  # a plural of a word seen is seen
    assert unseen_values({"filters": [{"keywords": "Leon Reyes"}]}, seen) == ["Reyes"]  # any nesting
    assert unseen_values({"subject": "Zircon Schools"}, seen) == []  # not a search: the agent's own words


def _search_words(messages: list[dict[str, object]], tools: list[dict[str, object]] | None) -> list[str]:
    """The words of the search queries in `messages` the agent had not seen when it searched."""
    found: list[str] = []
    seen = observed_text((), tools)
    for message in messages:
        if message.get("role") != "assistant":
            seen += "\n" + observed_text((message,))
            continue
        for call in message.get("tool_calls") or ():  # type: ignore[attr-defined]
            arguments = orjson.loads(call["function"]["arguments"] or "{}")
            query = arguments.get("query") if isinstance(arguments, dict) else None
            if isinstance(query, str):
                found += unseen_values({"query": query}, seen)
    return found


@pytest.mark.parametrize("capability", sorted(CAPABILITIES))
def test_no_demonstration_searches_for_what_the_agent_has_not_seen(capability: str) -> None:
    # A search for a topic the request never named (the generator knew it) teaches a student to guess what to
    # search for. The grounded oracle looks first; the generators search the mail only for what the request names.
    for seed in range(8):
        spec = generate_spec(CAPABILITIES[capability], seed)
        record = OracleTeacher(grounded=True, terse=True).run(spec)[0]
        assert _search_words(record.messages, record.tools) == [], f"{capability} seed {seed}"
        plain = OracleTeacher(grounded=False, terse=True).run(spec)[0]
        mail = [m for m in plain.messages if m.get("role") != "assistant" or any(
            c["function"]["name"] == "mail_search" for c in m.get("tool_calls") or ())]
        assert _search_words(mail, plain.tools) == [], f"{capability} seed {seed}: the reference's mail search"
