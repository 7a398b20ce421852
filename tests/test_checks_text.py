"""Text checks: terms, alternatives, none-of, regex, lengths, numbers, scopes and normalisation."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coworkenv import Action
from coworkenv.checks import CheckResult, Reply, normalize, numbers_in, states_value
from coworkenv.loading import SpecError
from coworkenv.spec import TextNorm
from coworkenv.validate._lenient_answers import off_by_one_counts
from tests.test_checks import FIELD_VERSION, ROLLBACK, _check, _env, _play


def _text(reply: str, **rule: Any) -> CheckResult:
    env = _env(_check({"kind": "text", **rule}))
    (result,) = _play(env, ROLLBACK, say=reply).checks
    return result


@pytest.mark.parametrize(
    ("rule", "reply", "passes"),
    [
        ({"all_of": ["rolled back", "OPS-7"]}, "I ROLLED   back the config; see ops-7.", True),
        ({"all_of": ["rolled back", "OPS-7"]}, "I rolled back the config.", False),
        ({"any_of": ["rollback", "rolled back"]}, "Rolled back.", True),
        ({"any_of": ["restart", "reboot"]}, "Rolled back.", False),
        ({"none_of": ["restart"]}, "Rolled back, no restart needed.", False),
        ({"none_of": ["restart"]}, "Rolled back.", True),
        # A term with alternatives in several languages; accents and case do not matter.
        ({"all_of": [["refund", "remboursement", "Rückerstattung"]]}, "Le REMBOURSEMENT est fait.", True),
        ({"all_of": [["refund", "remboursement", "Rückerstattung"]]}, "Die Ruckerstattung ist erledigt.", True),
        ({"all_of": ["café"]}, "Meet at the CAFE.", True),
        ({"all_of": ["ｃａｆｅ"]}, "meet at the cafe", True),  # full-width (NFKC)
        ({"all_of": ["no"], "words": True}, "I know the answer.", False),
        ({"all_of": ["no"], "words": True}, "No, it is done.", True),
        ({"regex": r"ops-\d+"}, "Updated OPS-7.", True),
        ({"regex": r"^done$"}, "Not done", False),
        ({"min_chars": 10}, "Done.", False),
        ({"max_chars": 10}, "Done.", True),
        ({"number": {"value": 1234.5}}, "The total is 1,234.50 EUR.", True),
        ({"number": {"value": 1234.5}}, "Le total est de 1 234,5 €.", True),
        ({"number": {"value": 1234.5}}, "Der Betrag ist 1.234,5 EUR.", True),
        ({"number": {"value": 100, "tolerance": 0.05, "relative": True}}, "About 104 requests.", True),
        ({"number": {"value": 100, "tolerance": 0.05, "relative": True}}, "About 106 requests.", False),
        ({"number": {"value": 7}}, "Ticket INV-7 is open.", False),  # a code's digits count nothing
        ({"number": {"value": -7}}, "Ticket INV-7 is open.", False),  # nor is a dash inside an id a minus sign
        # the parts of a date or a time of day are no numbers: a wrong count beside one does not pass
        ({"number": {"value": 3}}, "Triaged 2 tickets at 03:15.", False),
        ({"number": {"value": 11}}, "Fixed 10 rows on 2026-03-11.", False),
        ({"number": {"value": 3}}, "Fixed 2 rows on 2026-03-11.", False),
        ({"number": {"value": 30}}, "Booked for 09:30 UTC, 45 minutes.", False),
        ({"number": {"value": 9}}, "Deployed at 2026-11-03T09:00:00Z to 8 hosts.", False),
        ({"number": {"value": 15}}, "Handed 4 tickets; my shift ended 2:15:15.", False),
        ({"number": {"value": 3}}, "Triaged 3 tickets at 09:15 on 2026-03-11.", True),
        ({"number": {"value": 3}}, "Triaged three tickets at 09:15.", True),
        ({"number": {"value": 45}}, "The call took 0:45 h.", True),  # a length on a clock's face is still read
        ({"number": {"value": 3}}, "A 3:1 majority.", True),
        ({"number": {"source": {"app": "services", "table": "services", "id": "svc-api",
                                "field": "config_version"}}}, "Now on version 1.", True),
    ],
)
def test_text_rule_conditions(rule: dict[str, Any], reply: str, passes: bool) -> None:
    result = _text(reply, **rule)
    assert result.passed is passes, result.reason
    assert result.score == (1.0 if passes else 0.0)
    assert bool(result.reason) is not passes


def test_case_sensitive_text_when_normalisation_is_off() -> None:
    assert not _text("ops-7", all_of=["OPS-7"], normalize={"case": False}).passed
    assert _text("OPS-7", all_of=["OPS-7"], normalize={"case": False}).passed


def test_partial_text_scores_the_fraction_of_conditions() -> None:
    result = _text("The API was rolled back.", all_of=["rolled back", "OPS-7", "config 1", "api"], partial=True)
    assert result.score == 0.5 and not result.passed
    assert "OPS-7" in result.reason and "config 1" in result.reason


def test_scopes_final_replies_and_notes_beside_tool_calls() -> None:
    def run(scope: str) -> bool:
        env = _env(_check({"kind": "text", "scope": scope, "all_of": ["rolling back"]}))
        env.step(Action.call(*ROLLBACK, content="Rolling back now."))  # text beside a tool call: a note
        env.step(Action.say("Done."))
        assert env.notes and env.notes[0].text == "Rolling back now."
        return env.score().passed

    assert run("all") and not run("replies") and not run("final")


def test_final_scope_reads_only_the_last_reply_of_the_turn() -> None:
    env = _env(_check({"kind": "text", "all_of": ["first"]}), _check({"kind": "text", "scope": "replies",
                                                                       "all_of": ["first"]}, id="d"))
    env.replies.append(Reply(0, "first answer"))
    env.replies.append(Reply(0, "second answer"))
    final, replies = env.score().checks
    assert not final.passed and replies.passed


def test_a_missing_number_source_fails_with_a_reason() -> None:
    result = _text("42", number={"source": {"app": "tickets", "table": "tickets", "id": "OPS-7", "field": "title"}})
    assert not result.passed and "not a number" in result.reason


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ({"kind": "text"}, "at least one condition"),
        ({"kind": "text", "regex": "("}, "does not compile"),
        ({"kind": "text", "all_of": [[" "]]}, "empty term"),
        ({"kind": "text", "number": {"tolerance": 1}}, "exactly one of"),
    ],
)
def test_bad_text_rules_are_spec_errors(rule: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecError, match=message):
        _env(_check(rule))


# -- invariants ---------------------------------------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(st.text(max_size=40))
def test_normalisation_is_idempotent(text: str) -> None:
    once = normalize(text, TextNorm())
    assert normalize(once, TextNorm()) == once


@settings(max_examples=80, deadline=None)
@given(st.integers(-10**9, 10**9), st.sampled_from(["{:,}", "{:_}", "{}"]))
def test_integers_written_with_separators_are_read_back(n: int, fmt: str) -> None:
    written = fmt.format(n).replace("_", " ")
    assert float(n) in numbers_in(f"total: {written} items")


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta"]), min_size=1, max_size=4, unique=True),
       st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta"]), max_size=4, unique=True))
def test_all_of_passes_exactly_when_every_term_is_said(terms: list[str], said: list[str]) -> None:
    env = _env(_check({"kind": "text", "all_of": terms, "partial": True}))
    env.step(Action.say(" and ".join(said) or "nothing"))
    (result,) = env.score().checks
    assert result.passed is (set(terms) <= set(said))
    assert result.score == pytest.approx(len(set(terms) & set(said)) / len(terms), abs=1e-6)


def test_a_number_with_its_scale_is_read_at_that_scale() -> None:
    """A number followed by its scale ("12k", "1.2M", "3bn", "41.62 thousand") is read at that scale, never as the
    bare digits: a number check wanting 41,620 accepts "€41.62k" and "EUR 41.62 thousand", and one wanting 12 does
    not take "12k" (twelve thousand) for its answer; a unit that begins with the letter ("12 km", "5 MB") is no scale,
    and the Indian grouping ("1,24,500") and full-width digits ("１２") are read as written."""
    assert numbers_in("12k users") == {12_000.0}
    assert numbers_in("3bn") == {3e9}
    assert 41_620.0 in numbers_in("€41.62k") and 41_620.0 in numbers_in("EUR 41.62 thousand")
    assert 1_200_000.0 in numbers_in("1.2M rows") and 1.2 not in numbers_in("1.2M rows")
    assert numbers_in("12 km, 5 MB") == {12.0, 5.0}
    assert numbers_in("cap 1,24,500") == {124_500.0} and numbers_in("１２ pages") == {12.0}
    env = _env(_check({"kind": "text", "number": {"value": 12}}))
    env.step(Action.say("12k pages are broken"))
    assert not env.score().checks[0].passed
    env = _env(_check({"kind": "text", "number": {"value": 41620}}))
    env.step(Action.say("The approval limit is €41.62k."))
    assert env.score().checks[0].passed


@pytest.mark.parametrize(
    ("reply", "value", "read"),
    [
        # A count in words is the same fact as in digits: an honest "Three of 9 pages" states 3.
        ("Three of 9 pages are broken.", 3, True),
        ("Seven tickets were triaged.", 7, True),
        ("I found twenty-one stale rows", 21, True),
        ("Closed forty two tickets", 42, True),
        ("This is the third failure this week.", 3, True),  # an ordinal count, as "the 3rd failure" reads 3
        ("the 3rd failure", 3, True),
        ("the twenty-second retry", 22, True),
        ("the second failure", 2, True),
        ("three hundred and twelve rows", 312, True),
        ("three thousand requests", 3000, True),
        ("about three thousand requests", 3000, False),  # an approximation: an exact check wants the count
        ("one hundred users", 100, True),
        # A count of one where it counts: web_page_audit's `number: 1` check failed the honest "One of 5 pages".
        ("One of 5 pages are broken.", 1, True),
        ("Fixed a single row.", 1, True),
        ("Handed one incident ticket to Jun.", 1, True),
        ("Only one page is broken.", 1, True),
        # Words that count nothing, or count something else, are not read as the number.
        ("about three thousand requests", 3, False),  # a word before its scale is read with it
        ("three hundred and twelve rows", 12, False),
        ("three hundred and twelve rows", 300, False),
        ("a third of the pages", 3, False),  # a fraction
        ("two thirds of the pages", 3, False),
        ("Three-quarters of them", 3, False),
        ("one of the reasons", 1, False),  # a pronoun
        ("the one that failed", 1, False),
        ("the only one left", 1, False),
        ("one by one", 1, False),  # a phrase
        ("one hour later", 1, False),  # a duration
        ("First, I checked the logs.", 1, False),  # an adverb
        ("wait a second", 2, False),  # a moment
        ("the Everyone channel", 1, False),  # inside a word
    ],
)
def test_a_number_in_words_is_read_as_the_number(reply: str, value: float, read: bool) -> None:
    """A number check reads a count an honest answer writes in words ("Three of 9 pages are broken", "the third
    failure"), as it reads "3" or "3rd"; a word before its scale is read with it, and a fraction, a pronoun or a
    moment is no count."""
    assert (value in numbers_in(reply)) is read
    env = _env(_check({"kind": "text", "number": {"value": value}}))
    env.step(Action.say(reply))
    assert env.score().checks[0].passed is read


def test_a_count_in_words_is_stated_one_higher_by_the_near_miss() -> None:
    """The off-by-one near miss states a count the reference writes in words one higher too (in digits), so a
    number check that reads words is still questioned by it."""
    spec = _env(_check({"kind": "text", "number": {"value": 3}})).spec
    (wrong, what), = off_by_one_counts(spec, 0, "Three of 9 pages are broken; the third one is new.")
    assert wrong == "4 of 9 pages are broken; the 4 one is new." and "4 for 3" in what
    assert 3 not in numbers_in(wrong)


@pytest.mark.parametrize(
    ("reply", "value", "read"),
    [
        # The digits of a code name a record; they count nothing.
        ("INV-7 is the only overdue invoice.", 7, False),
        ("Ticket OPS-12 is still open.", 12, False),
        ("job-842 failed last night", 842, False),
        ("the API now runs svc-api@5", 5, False),
        ("Mail ana3@helix.test about it.", 3, False),
        ("INV-7 and INV-9: 2 invoices are overdue.", 2, True),
        # The parts of a date written otherwise than in ISO are no numbers either.
        ("4 rows failed on 11/03/2026.", 11, False),
        ("4 rows failed on 11/03/2026.", 3, False),
        ("4 rows failed on 11.03.2026.", 3, False),
        ("On 3 March 2026, 4 rows failed.", 3, False),
        ("On March 3rd, 2026, 4 rows failed.", 3, False),
        ("In 2026-03, 4 rows failed.", 3, False),
        ("On 11/03/2026, 4 rows failed.", 4, True),
        # A count beside them, a fraction or a range is still read.
        ("3/11 pages are broken", 3, True),
        ("a 7-day window", 7, True),
        ("5-7 retries", 7, True),
    ],
)
def test_a_code_or_a_written_date_states_no_count(reply: str, value: float, read: bool) -> None:
    """A number check reads neither the digits of a code (`INV-7`, `job-842`, `svc-api@5`) nor the parts of a date
    written otherwise than in ISO (`11/03/2026`, `3 March 2026`, `2026-03`): on main a reply naming ticket OPS-12
    passed a check wanting the count 12, and "4 rows failed on 11/03/2026" one wanting 3."""
    assert (value in numbers_in(reply.casefold())) is read
    env = _env(_check({"kind": "text", "number": {"value": value}}))
    env.step(Action.say(reply))
    assert env.score().checks[0].passed is read


@pytest.mark.parametrize(
    ("reply", "passes"),
    [
        ("The API now runs config 1.", True),
        ("Config 1, as before the change.", True),
        ("The API now runs config 11.", False),  # a longer number holding the digit
        ("It has run config 1.5 since 2021.", False),
        ("Rolled back; see INV-1.", False),  # a code's digits
        ("Rolled back in 2021.", False),
    ],
)
def test_reply_states_wants_the_value_as_a_token_of_its_own(reply: str, passes: bool) -> None:
    """A `reply_states` check wants the value stated, not a longer word, number or code that holds it: on main the
    config version 1 was "stated" by `11`, `1.5`, `INV-1` or `2021`, so a wrong answer passed."""
    env = _env(_check({"kind": "reply_states", "source": FIELD_VERSION, "turn": 0}))
    assert _play(env, ROLLBACK, say=reply).passed is passes


@pytest.mark.parametrize(
    ("text", "wanted", "stated"),
    [
        ("mail diana@helix.test", "ana@helix.test", False),  # another address ending with it
        ("Mail Ana@Helix.test.", "ana@helix.test", True),
        ("job-842 failed", "job-84", False),
        ("job-84, then job-85", "job-84", True),
        ("a P12 breach", "p1", False),
        ("the P1 breach", "p1", True),
        ("the ticket was reopened", "open", False),
        ("two mugs", "mug", True),  # a plural of the word
        ("ran at 2026-03-11T09:30Z", "09:30", True),  # an ISO time after its date's T
        ("ran at 2026-03-11T09:30Z", "2026-03-11", True),
    ],
)
def test_states_value_reads_whole_tokens(text: str, wanted: str, stated: bool) -> None:
    assert states_value(text, wanted) is stated


@pytest.mark.parametrize(
    ("number", "reply", "passes"),
    [
        # A share written in percent states its fraction: a check wanting 0.4 is met by the honest "40%".
        ({"value": 0.4}, "The error rate is 40%.", True),
        ({"value": 0.4}, "The error rate is 40 %.", True),
        ({"value": 0.4}, "The error rate is 40 percent.", True),
        ({"value": 0.4}, "The error rate is 40 per cent.", True),
        ({"value": 0.4}, "The error rate is 4%.", False),
        ({"value": 40}, "The error rate is 40%.", True),
        # A negative amount however its sign is written: a minus before the currency, in words, or in brackets.
        ({"value": -12.5}, "The balance is -$12.50.", True),
        ({"value": -12.5}, "The balance is \u2212\u20ac12.50.", True),
        ({"value": -12.5}, "The balance is minus 12.50 EUR.", True),
        ({"value": -12.5}, "Balance: (12.50)", True),
        ({"value": -1200}, "Balance: ($1,200.00)", True),
        ({"value": -12.5}, "The balance is $12.50.", False),
        ({"value": 12.5}, "The balance is -$12.50.", False),  # the wrong sign no longer passes
        ({"value": 12.5}, "The balance is minus $12.50.", False),
        ({"value": 12.5}, "Refunded the fee ($12.50).", True),  # a bracket is also an aside
        ({"value": 4}, "Wrote the report (4 rows).", True),
        # A hedged count states no exact one: alternatives never, an approximation only within a tolerance.
        ({"value": 3}, "3 or 4 pages are broken.", False),
        ({"value": 4}, "3 or 4 pages are broken.", False),
        ({"value": 3}, "Three or four pages are broken.", False),
        ({"value": 40}, "About 40 tickets are open.", False),
        ({"value": 40}, "Around forty tickets are open.", False),
        ({"value": 40}, "Roughly 40 tickets are open.", False),
        ({"value": 40}, "~40 tickets are open.", False),
        ({"value": 40}, "40 or so tickets are open.", False),
        ({"value": 40, "tolerance": 2}, "About 40 tickets are open.", True),
        ({"value": 40, "tolerance": 2}, "40 or 41 tickets are open.", False),
        ({"value": 3}, "I mailed Jun about 3 failing jobs.", True),  # what the mail is about: no hedge
        ({"value": 3}, "At least 3 replicas now run.", False),  # a bound states no exact count (`test_bounds`)
        # A day with its ordinal suffix beside a month is a date, even without the year.
        ({"value": 3}, "5 pages broke on March 3rd.", False),
        ({"value": 3}, "5 pages broke on the 3rd of March.", False),
        ({"value": 3}, "The 3rd failure this week.", True),
    ],
)
def test_number_reads_shares_signs_hedges_and_dates(number: dict[str, Any], reply: str, passes: bool) -> None:
    """A `number` check reads "40%" as 0.4 too, "-$12.50", "minus 12.50" and "(12.50)" as negative, no hedged count
    ("3 or 4", "about 40" where it wants the exact value) and no day of a date written "March 3rd": on main the honest
    percent and the negative amounts failed, and the hedged, the wrong-signed and the dated ones passed."""
    assert _text(reply, number=number).passed is passes


def test_a_share_kept_in_percent_is_not_read_as_its_fraction() -> None:
    """A check whose source keeps the share in percent (`threshold_pct: 0.4`) wants "0.4%", not "40%"."""
    from coworkenv.checks import states_number
    from coworkenv.spec import NumberTarget

    in_percent = NumberTarget.model_validate({"source": {"app": "services", "table": "services", "id": "svc-api",
                                                         "field": "error_budget_pct"}})
    assert not states_number("The budget is 40%.", 0.4, in_percent)
    assert states_number("The budget is 0.4%.", 0.4, in_percent)
    assert states_number("The budget is 40%.", 0.4, NumberTarget(value=0.4))


@pytest.mark.parametrize(
    ("rule", "reply", "passes"),
    [
        # An exact count is not met by a bound on it: each of these passed a check wanting 40 (or 3) on main.
        ({"number": {"value": 40}}, "More than 40 tickets are open.", False),
        ({"number": {"value": 40}}, "Over 40 tickets are open.", False),
        ({"number": {"value": 40}}, "40+ tickets are open.", False),
        ({"number": {"value": 40}}, "40 or more tickets are open.", False),
        ({"number": {"value": 40}}, "Fewer than forty tickets are open.", False),
        ({"number": {"value": 40}}, "> 40 tickets are open.", False),
        ({"number": {"value": 3}}, "At least 3 of 9 pages are broken.", False),
        ({"number": {"value": 3}}, "Up to 3 of 9 pages are broken.", False),
        ({"number": {"value": 3}}, "At most three pages are broken.", False),
        ({"number": {"value": 3, "tolerance": 1}}, "More than 3 pages are broken.", False),
        # ... nor does the bound hide the exact count written beside it, nor a phrasal verb make one.
        ({"number": {"value": 40}}, "40 tickets are open (more than 30 last week).", True),
        ({"number": {"value": 3}}, "I handed over 3 tickets to Kim.", True),
        ({"number": {"value": 5}}, "Scaled svc-api up to 5 replicas.", True),
        ({"number": {"value": 3}}, "Moved 3 tickets over to Kim.", True),
        # A check on a bound (its terms name one) accepts it however the bound is written.
        ({"all_of": ["threshold"], "number": {"value": 80}}, "The alert threshold: it fires above 80%.", True),
        ({"any_of": ["at least", "minimum", "or more"], "number": {"value": 3}}, "A minimum of 3 approvals.", True),
        ({"any_of": ["at least", "minimum", "or more"], "number": {"value": 3}}, "3 or more approvals.", True),
        ({"all_of": ["limit"], "number": {"value": 500}}, "The limit: up to 500 requests a minute.", True),
        ({"all_of": ["limit"], "number": {"value": 500}}, "The limit: 500+ requests a minute.", True),
        ({"all_of": ["limit"], "number": {"value": 500}}, "The limit: up to 400 requests a minute.", False),
    ],
)
def test_bounds(rule: dict[str, Any], reply: str, passes: bool) -> None:
    """A bound ("more than 40", "at least 3", "40+", "up to 5") states no exact value: a check wanting the count is
    not met by it (on main every bound passed the exact check wanting its limit), while a check on a bound (one
    whose terms or source field name a limit) reads the bound's limit as before."""
    assert _text(reply, **rule).passed is passes


def test_a_bound_states_its_limit_to_a_check_on_a_limit_field() -> None:
    """A check reading its number from a field that names a limit (`reorder_point`, `max_replicas`,
    `threshold_pct`) reads a bound's limit; from any other field (`open_tickets`), not."""
    from coworkenv.checks import states_number
    from coworkenv.spec import NumberTarget

    def on(field: str) -> NumberTarget:
        return NumberTarget.model_validate({"source": {"app": "inventory", "table": "items", "id": "x",
                                                       "field": field}})
    for field in ("reorder_point", "max_replicas", "rate_limit_rps", "min_approvals"):
        assert states_number("reorder when fewer than 20 are left", 20, on(field)), field
    assert not states_number("more than 20 are open", 20, on("open_tickets"))
    assert states_number("20 are open", 20, on("open_tickets"))


@pytest.mark.parametrize(
    ("rule", "reply", "passes"),
    [
        # A numbered part's number counts nothing: each of these passed a check wanting the count on main.
        ({"number": {"value": 14}}, "Week 14: 16 tickets.", False),
        ({"number": {"value": 3}}, "Checked page 3 of 9: all fine.", False),
        ({"number": {"value": 2}}, "Phase 2 is done; 5 rows fixed.", False),
        ({"number": {"value": 4}}, "The quarter 4 review has 7 findings.", False),
        ({"number": {"value": 16}}, "Week 14: 16 tickets.", True),
        ({"number": {"value": 3}}, "Rolled back to version 3.", True),  # a version's number stays read
        # A check on a numbered part (its terms name it) reads it.
        ({"all_of": ["week"], "number": {"value": 14}}, "Week 14: 16 tickets.", True),
        ({"any_of": ["phase"], "number": {"value": 2}}, "We are in phase two.", True),
    ],
)
def test_a_numbered_part_counts_nothing(rule: dict[str, Any], reply: str, passes: bool) -> None:
    """"week 14", "page 3", "phase 2" name a part as "INV-7" names a record: a check wanting a count is not met by
    them (main read them as counts), a check on such a part (its terms or source field name it) is."""
    assert _text(reply, **rule).passed is passes
