"""The facts of an answer its request asks for (`validate._asked_facts`) and the mutation gate's reading of their
probes: cheap, no episode."""

from __future__ import annotations

from coworkenv.validate._asked_facts import ASKED_GROUP, asked_facts, asked_words, holders
from coworkenv.validate._mutation_core import Mutation
from coworkenv.validate.mutation_gate import _unread_asked

ANSWER = "The root cause was svc-kyc: flag smart_retry on svc-kyc breaks requests. I traced req-267a82 and opened INC-299."
HELD = {"svc-kyc": {"service"}, "req-267a82": {"request"}, "inc-299": {"ticket"}, "okapi logistics": {"customer"},
        "sup-2204": {"ticket"}, "2026-11-15t19:21:30z": {"last", "run"}}


def test_the_asking_sentence_names_what_it_asks() -> None:
    assert {"last", "run"} <= asked_words("Pause them. Tell me when each one last ran. Thanks, Arjun")
    assert "service" in asked_words("Which services failed?")
    assert asked_words("Please fix it and open a ticket on the failing service.") == set()


def test_an_asked_fact_is_held_by_what_the_request_names() -> None:
    assert asked_facts(ANSWER, "Fix it. Tell me which service caused it.", HELD) == [["svc-kyc"]]
    assert asked_facts(ANSWER, "Fix it, open a ticket and quote the request.", HELD) == []  # nothing asked
    # The record named, not its other fields: the ticket's customer is a detail.
    assert asked_facts("SUP-2204 (Okapi Logistics, 47 min) breached.", "Also tell me which tickets breached.",
                       HELD) == [["SUP-2204"]]
    assert asked_facts("Paused x (last run 2026-11-15T19:21:30Z).", "Tell me when each one last ran.", HELD) == [
        ["2026-11-15T19:21:30Z"]]
    # The records of one asked table are one group: the one left out is asked, the others named beside it are not.
    held = {"tx-2": {"transaction"}, "tx-3": {"transaction"}, "tx-4": {"transaction"}, "1665": {"total", "amount"}}
    assert asked_facts("Submitted tx-2 and tx-3, total 1665. I left out tx-4, a duplicate of tx-3.",
                       "Tell me which transaction you left out, and the total.", held) == [["tx-2", "tx-3", "tx-4"],
                                                                                          ["1665"]]
    # What the request itself states is no answer.
    assert asked_facts(ANSWER, "Tell me which service, svc-kyc or svc-feeds, failed.", HELD) == []


def test_holders_name_a_records_id_by_its_table_and_a_value_by_its_field() -> None:
    from coworkenv.env import base_world
    from coworkenv.examples import load_example

    held = holders(base_world(load_example("incident_rollback")))
    assert "service" in held["svc-payments"] and "request" in held["req-7f3a91"]
    assert "ticket" not in held["req-7f3a91"]


def _probe(fact: str) -> Mutation:
    path = "reference[0].steps[4].say"
    return Mutation("text_drop", path, f"turn 0: the answer without {fact!r}", [], code="asked_unchecked",
                    group=ASKED_GROUP + path)


def test_an_asked_fact_whose_leaving_out_passes_while_no_answer_fails_is_unchecked() -> None:
    probe = _probe("svc-kyc")
    group = {probe.group: [(probe, True)]}
    errors = _unread_asked(group, {probe.path})
    assert [(e.code, e.path) for e in errors] == [("asked_unchecked", probe.path)] and "svc-kyc" in errors[0].message
    assert _unread_asked(group, set()) == []  # no answer passes too: content_unchecked names the answer
    assert _unread_asked({probe.group: [(probe, False)]}, {probe.path}) == []  # the fact is read
