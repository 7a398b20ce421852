"""Near-miss mutations: what gets mutated, how wrong alternatives are chosen, what does not count."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from coworkenv.checks import numbers_in
from coworkenv.examples import load_example
from coworkenv.validate import near_miss_mutations, validate_spec
from coworkenv.validate._emptied_values import EMPTIED_GROUP
from coworkenv.validate._episodes import SpecEpisodes

EXAMPLE = Path(__file__).resolve().parents[1] / "coworkenv" / "examples" / "incident_rollback.json"


def descriptions(name: str) -> dict[str, list[tuple[str, bool]]]:
    """Mutation path -> (description, core) of every mutant there."""
    spec = load_example(name)
    episodes = SpecEpisodes(spec)
    episodes.oracle()
    assert episodes.oracle_entities is not None
    out: dict[str, list[tuple[str, bool]]] = {}
    for m in near_miss_mutations(spec, episodes.oracle_entities):
        if m.group.startswith(EMPTIED_GROUP):
            continue  # a value emptied beside one changed in its last character: tests/test_emptied_values.py
        out.setdefault(m.path, []).append((m.description, m.core))
    return out


def said(found: dict[str, list[tuple[str, bool]]], path: str) -> list[str]:
    return [d for d, _ in found.get(path, [])]


def test_wrong_alternatives_are_real_records_written_the_same_way() -> None:
    found = descriptions("incident_rollback")
    assert said(found, "reference[0].steps[5].call.arguments.channel") == [
        "chat_post_message: channel '#incidents' -> '#payments'"]  # a channel name stays a name
    assert "tickets_create: assignee 'u-jon' -> 'u-bot'" in said(found, "reference[0].steps[4].call.arguments.assignee")
    # The ticket the reference itself created (OPS-102) can be swapped for the existing one.
    assert said(found, "reference[1].steps[2].call.arguments.ticket_id") == [
        "tickets_comment: ticket_id 'OPS-102' -> 'OPS-101'"]
    assert "tickets_create: priority 'p1' -> 'p2'" in said(found, "reference[0].steps[4].call.arguments.priority")
    # Labels (titles) are never mutated; content (descriptions, messages, bodies) only loses its content.
    assert not any(path.endswith(".title") for path in found)
    content = [d for path in found if path.endswith((".description", ".text", ".body")) for d in said(found, path)]
    assert content and all("without its content" in d for d in content)


def test_emails_in_lists_and_times_are_mutated_in_kind() -> None:
    found = descriptions("meeting_reschedule")
    assert any(d.endswith("'marcus.reed@brightline.test' -> 'elena.rossi@brightline.test'")
               for d in said(found, "reference[0].steps[4].call.arguments.to[0]"))
    assert "mail_send: to without 'marcus.reed@brightline.test'" in said(
        found, "reference[0].steps[4].call.arguments.to[0]")
    assert [d.split(" -> ")[1] for d in said(found, "reference[0].steps[3].call.arguments.start")] == [
        "'2026-04-15T17:00:00+02:00'", "'2026-04-15T15:00:00+02:00'", "'2026-04-15T16:15:00+02:00'",
        "'2026-04-15T15:45:00+02:00'", "'2026-04-16T16:00:00+02:00'"]


def test_an_unchecked_optional_link_is_reported_not_failed() -> None:
    found = descriptions("report_from_files")
    assert [core for _, core in found["reference[0].steps[7].call.arguments.in_reply_to"]] == [False]  # context
    details = validate_spec(load_example("report_from_files")).gate("mutations").details  # type: ignore[union-attr]
    assert details["score"] == 1.0
    assert details["unchecked_context"] == [
        "reference[0].steps[7].call.arguments.in_reply_to: mail_send: in_reply_to 'msg-501' -> 'msg-470'"]


def test_a_mutant_with_the_reference_outcome_is_equivalent_and_not_counted() -> None:
    spec: dict[str, Any] = json.loads(EXAMPLE.read_text())
    # Marking a read message read again changes nothing: dropping that step is no mistake.
    spec["tools"].append("mail_mark_read")
    spec["reference"][0]["steps"].insert(1, {"call": {"name": "mail_mark_read", "arguments": {
        "message_ids": ["msg-2"]}}})
    v = validate_spec(spec)
    details = v.gate("mutations").details  # type: ignore[union-attr]
    assert v.passed, [str(e) for e in v.errors()]
    assert "drop mail_mark_read at reference[0].steps[1]" in details["equivalent"]
    assert details["score"] == 1.0


def test_single_turn_write_tasks_get_no_stop_early_mutant_but_read_only_ones_do() -> None:
    spec: dict[str, Any] = json.loads(EXAMPLE.read_text())
    spec["turns"], spec["reference"] = spec["turns"][:1], spec["reference"][:1]
    spec["checks"] = [c for c in spec["checks"] if c["id"] not in ("regression-fixed", "ticket-noted")]
    kinds = validate_spec(spec).gate("mutations").details["by_kind"]  # type: ignore[union-attr]
    assert "stop_early" not in kinds and kinds["drop_write"]["total"] == 3  # doing nothing is the noop gate's
    spec["turns"] = [{"content": "Which request failed first at checkout, and what does its log line say?"}]
    spec["tools"] = ["logs_search"]  # read-only: nothing to harm
    spec["reference"] = [{"steps": [
        {"call": {"name": "logs_search", "arguments": {"service": "svc-payments", "min_level": "ERROR"}}},
        {"say": "req-7f3a91 failed first: db pool exhausted (size=5) at 08:15:31 UTC."}]}]
    spec["checks"] = [
        # The search named by its service: a bare `called logs_search` credits a search of any service (defects91).
        {"id": "searched-logs", "rule": {"kind": "called", "call": {"tool": "logs_search",
                                                                    "args": {"service": "svc-payments"}}}},
        {"id": "names-request", "rule": {"kind": "reply_states", "source": {
            "app": "logs", "table": "lines", "id": "log-3", "field": "request_id"}}}]
    v = validate_spec(spec)
    assert v.passed, [str(e) for e in v.errors()]
    by_kind = v.gate("mutations").details["by_kind"]  # type: ignore[union-attr]
    # The answer is dropped, states the request id wrongly, or only repeats the question: all caught.
    assert by_kind == {"stop_early": {"killed": 1, "total": 1}, "text_drop": {"killed": 1, "total": 1},
                       "text_alter": {"killed": 2, "total": 2}}


def test_a_check_cutting_a_number_of_the_answer_meets_the_rest_of_it_wrong() -> None:
    """`20` of `2027-02-01` reads only the start of the date: the mutant keeps it and moves every other digit; a
    match ending where a number does (the start of a time range, the time of a date-time) reads a whole part."""
    import re

    from coworkenv.validate._partial_facts import beyond_checked_part

    def cut(text: str, *patterns: str) -> str | None:
        return beyond_checked_part(text, [re.compile(p, re.IGNORECASE) for p in patterns])

    assert cut("renews on 2027-02-01 (from legal/contracts-2026.md).", "20") == \
        "renews on 2038-13-12 (from legal/contracts-2037.md)."
    assert cut("ticket R-392 filed", re.escape("R-39")) == "ticket R-393 filed"
    assert cut("renews on 2027-02-01", re.escape("2027-02-01")) is None
    assert cut("moved to 14:00-15:00 UTC", r"\b14:00\b") is None
    assert cut("at 2026-05-26T13:30:00+05:30", "13:30") is None
    # defects92: an ISO date's parts are no whole parts (its year and month, its year, its month and day)
    assert cut("review date is 2027-05-06.", re.escape("2027-05")) == "review date is 2027-05-17."
    assert cut("review date is 2027-05-06.", r"\b2027-") == "review date is 2027-16-17."
    assert cut("review date is 2027-05-06.", re.escape("05-06")) == "review date is 3138-05-06."
    assert cut("at 2026-05-26T13:30:00Z", re.escape("2026-05-26")) is None


def test_a_value_is_tried_as_the_user_spelled_it_only_where_case_or_spacing_differ() -> None:
    """The reference's `Tracked` for the user's "tracked" is replayed as "tracked"; a value the user also wrote
    exactly so, never wrote, or that is part of a longer word or path is not."""
    from coworkenv.validate._user_spelling import _as_user_spelled

    said = "Label each one 'tracked' and write reports/errors-2026-02-23.csv for me."
    assert _as_user_spelled("Tracked", said) == "tracked"
    assert _as_user_spelled("Reports/Errors-2026-02-23.csv", said) == "reports/errors-2026-02-23.csv"
    assert _as_user_spelled("tracked", said) is None
    assert _as_user_spelled("Untracked", said) is None
    assert _as_user_spelled("Errors-2026-02-23.csv", said) is None  # inside the path the user gave
    assert _as_user_spelled("Tracked", said + " Tracked is fine too.") is None
    # A told value (defects82): a check's priority `P2` the triage table writes `p2`; a two-letter word is no value.
    from coworkenv.validate._user_spelling import _respelled
    table = "| bug | p2 |  Put it in the list."
    assert _respelled("PLAT-1 is now P2, in the list.", ["P2", "in"], table) == "PLAT-1 is now p2, in the list."
    # The source spells it both ways (defects93): either is an honest copy, so the other one is tried.
    assert _respelled("PLAT-1 is now P2.", ["P2"], table + " P2") == "PLAT-1 is now p2."
    assert _respelled("PLAT-1 is now p2.", ["p2"], "P2 first, then p2") == "PLAT-1 is now P2."
    assert _respelled("PLAT-1 is now P2.", ["P2"], "P2 only") is None  # spelled only as the text does
    mail = "Request: Contract Renewal Memo. Please prepare the contract renewal memo."
    for named in (["Contract Renewal Memo", "contract renewal memo"], ["contract renewal memo", "Contract Renewal Memo"]):
        assert _respelled("Added Contract Renewal Memo.", named, mail) == "Added contract renewal memo."


def test_a_reply_check_of_a_turn_reading_a_field_a_later_turn_changes_is_found() -> None:
    """`reply_states` bound to turn 0 on the role a turn-1 change sets is judged by a value that did not exist when
    the reply was given; bound to turn 1, or unbound, it is not."""
    from coworkenv.synth import generate_spec, load_taxonomy
    from coworkenv.validate._later_state import later_state_reads

    spec = generate_spec(load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")["adapt_announced_change"], 1)
    data = spec.model_dump(mode="json", by_alias=True)
    person = next(c["id"] for c in data["turns"][1]["changes"] if c.get("app") == "directory")
    source = {"app": "directory", "table": "people", "id": person, "field": "role"}
    for turn, found in ((0, True), (1, False), (None, False)):
        checks = [*data["checks"], {"id": "role-told", "rule": {"kind": "reply_states", "source": source,
                                                              "turn": turn}}]
        reads = list(later_state_reads(type(spec).model_validate({**data, "checks": checks})))
        assert bool(reads) is found, (turn, reads)
        if found:
            assert reads[0][2:] == (0, 1)
    # Unbound, it is judged where the reference answers: turn 0's reply stating the role the later change sets.
    later = next(c["set"]["role"] for c in data["turns"][1]["changes"] if c.get("app") == "directory")
    ref = [dict(t) for t in data["reference"]]
    ref[0] = {"steps": [*ref[0]["steps"], {"say": f"Their role: {later}."}]}
    unbound = {"id": "role-told", "rule": {"kind": "reply_states", "source": source}}
    reads = list(later_state_reads(type(spec).model_validate({**data, "reference": ref,
                                                             "checks": [*data["checks"], unbound]})))
    assert [r[2:] for r in reads] == [(0, 1)]


def test_a_literal_of_a_turn_stating_a_value_the_world_holds_only_later_is_found() -> None:
    """A text check bound to turn 0 that wants the role a turn-1 change sets (the writer took it from the final world)
    is found; one wanting the role of its own turn, whose words the later role keeps, is not."""
    from coworkenv.synth import generate_spec, load_taxonomy
    from coworkenv.validate._later_state import later_literals

    spec = generate_spec(load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")["adapt_announced_change"], 1)
    data = spec.model_dump(mode="json", by_alias=True)
    change = next(c for c in data["turns"][1]["changes"] if c.get("app") == "directory")
    now = next(p["role"] for p in data["world"]["apps"]["directory"]["people"] if p["id"] == change["id"])
    for role, found in ((change["set"]["role"], True), (now, False)):
        ref = [dict(t) for t in data["reference"]]
        ref[0] = {"steps": [*ref[0]["steps"][:-1], {"say": f"{ref[0]['steps'][-1]['say']} Their role: {role}."}]}
        told = {"id": "role-told", "rule": {"kind": "text", "scope": "final", "turn": 0, "all_of": [role]}}
        found_at = list(later_literals(type(spec).model_validate({**data, "reference": ref,
                                                                  "checks": [*data["checks"], told]})))
        assert bool(found_at) is found, (role, found_at)
        if found:
            assert found_at[0][1:3] == (0, role) and found_at[0][3].endswith(f"[{change['id']}].role")


def test_dates_and_times_are_rewritten_as_the_user_wrote_them() -> None:
    """A date or time the reference writes in another format than the user is written as the user did; one the user
    never gave, the same format, or a date-time argument's parts are left alone."""
    from coworkenv.validate._user_formats import as_user_wrote, mentions

    said = "Ask whether they can pick it up by 2026-06-02. My shift ends at 02:30, the sync is on Tuesday 3 November."
    assert as_user_wrote("Can you pick it up by 2 June?", said) == "Can you pick it up by 2026-06-02?"
    assert as_user_wrote("due 02/06/2026", said) == "due 2026-06-02"
    assert as_user_wrote("on call from 2:30 am", said) == "on call from 02:30"
    assert as_user_wrote("booked for 2026-11-03 at 09:30", said) == "booked for Tuesday 3 November at 09:30"
    assert as_user_wrote("by 2026-06-02, from 02:30", said) is None  # already as the user wrote it
    assert as_user_wrote("by 3 June, from 3pm", said) is None  # values the user never gave
    # a day as an ordinal in words, next to its month (`ordinal_date_pinned`); "may first" in lower case is a verb
    assert as_user_wrote("by June second?", said) == "by 2026-06-02?"
    assert as_user_wrote("on the third of November", said) == "on the Tuesday 3 November"
    assert as_user_wrote("you may second it", said) is None
    assert mentions("2026-11-03T09:30:00Z") == []  # a date-time is the tool's format
    assert [w.values for w in mentions("3 p.m. or 15:00")] == [((None, 15, 0),), ((None, 15, 0),)]


def test_date_clock_and_grouping_notations_of_other_locales_are_rewritten_as_given() -> None:
    """Dates joined by dots, dashes or slashes ("02.06.2026", "02-06-2026", "2026/06/02", "3-Nov-2026"), times in a
    dotted or military notation ("02.30", "0230h", "0230 hrs", "2.30 am", "14.30 Uhr") and sums grouped with
    apostrophes or closed with a dash ("EUR 12'973", "12’973 EUR", "EUR 12,973.–", "12.973,- €") are read as the
    value and written as given (`date_notation_pinned`, `clock_notation_pinned`, `amount_grouping_pinned`); sums,
    shares, durations in hours, versions and addresses that look alike are not times or dates."""
    from coworkenv.validate._user_formats import as_user_wrote, mentions

    said = "Pick it up by 2026-06-02; my shift ends at 02:30; the sync is on Tuesday 3 November. Limit: EUR 12,973"
    for mine in ("02.06.2026", "2.6.2026", "02-06-2026", "2026/06/02", "2026.06.02", "2-Jun-2026"):
        assert as_user_wrote(f"due {mine}.", said) == "due 2026-06-02.", mine
    assert as_user_wrote("on 03.11.2026", said) == "on Tuesday 3 November"
    for mine in ("02.30", "0230h", "0230 hrs", "2.30 am", "2.30am", "02.30 Uhr"):
        assert as_user_wrote(f"ends {mine}, then", said) == "ends 02:30, then", mine
    for mine in ("EUR 12'973", "12\u2019973 EUR", "€12'973", "EUR 12,973.\u2013", "EUR 12,973.-", "12.973,- €", "12'973"):
        assert as_user_wrote(f"limit {mine} now", said) == "limit EUR 12,973 now", mine
    assert [w.values for w in mentions("03.11.2026")] == [((2026, 11, 3),)]  # a dotted date is day first
    for alike in ("12.50 EUR", "99.95%", "02.30 h", "10.0.0.1", "v2026.10.3", "OPS-02-06-2026", "5'11\"",
                  "EUR 1,000.-2,000", "1.5 h"):
        assert all(w.kind not in ("time", "date") for w in mentions(alike)), alike
    assert [(w.kind, w.shown) for w in mentions("12.50 EUR, 02.30 h")] == [("amount", "12.50 EUR")]
    # a one-digit dotted hour placed by a zone's generic abbreviation (`clock_zone_abbrev_pinned`)
    for zone in ("ET", "CT", "MT", "PT", "BRT", "ART"):
        assert [(w.kind, w.values) for w in mentions(f"ended 2.30 {zone}.")] == [("time", ((None, 2, 30),))], zone
    assert all(w.kind != "time" for w in mentions("it costs 2.30 et cetera"))  # lower case: no zone


def test_a_dotted_hour_placed_by_a_zone_in_any_case_or_by_its_name_and_numbered_labels() -> None:
    """A one-digit dotted hour is placed by a zone's abbreviation in any case ("2.30 est.", "9.00 Cst"; one that is
    also a word only where its clause ends: "2.30 et cetera", "2.30 et 3.15" are no times), by a zone's everyday name
    or its city's ("Eastern time", "Toronto time", "(Sao Paulo)") (`clock_zone_case_pinned`); a quarter, a week or a
    numbered part is read however its number is written and written back as the user wrote it
    (`label_numeral_pinned`). Main read none of these."""
    from coworkenv.validate._user_formats import as_user_wrote, mentions

    said = "my shift ends at 02:30 (America/Toronto)"
    for zone in ("est.", "Edt.", "et.", "brt", "gmt", "cest,", "GST.", "(est)", "Eastern time.", "Central Standard Time",
                 "Toronto time.", "(Sao Paulo).", "New York time", "Brasilia time"):
        assert as_user_wrote(f"ended 2.30 {zone}", said) == f"ended 02:30 {zone}", zone
    for alike in ("it costs 2.30 et cetera", "2.30 et 3.15", "version 2.30 est stable", "costs 2.30 gst extra"):
        assert all(w.kind != "time" for w in mentions(alike)), alike
    for mine, user in (("the fourth-quarter review", "the Q4 review"), ("the 4th quarter review", "the Q4 review"),
                       ("the quarter 4 review", "the Q4 review"), ("the 4Q review", "the Q4 review"),
                       ("the W14 report", "the week 14 report"), ("the CW14 report", "the week 14 report"),
                       ("Phase 2 is done", "Phase II is done"), ("the second part", "Part 2")):
        theirs = user.split(" ", 1)[1] if user.startswith("the ") else user
        assert as_user_wrote(mine, f"please send {theirs}") is not None, mine
    assert as_user_wrote("the fourth-quarter review", "the Q3 review") is None  # another quarter
    for alike in ("reports/q4-catalog-review.md", "Q4-2026", "half two", "2026-W23-2"):
        assert all(w.kind != "label" for w in mentions(alike)), alike


def test_a_dotted_hour_without_its_zero_and_a_length_in_hundreds_of_hours() -> None:
    """A dotted time with a one-digit hour is the user's time after a word that places a time ("ended at 2.30",
    "start at 9.00", `clock_notation_pinned`), not a sum or a rate there ("at 9.30 EUR", "at 2.50 per seat") nor a
    bare decimal ("it costs 9.30", "version 9.30"); four digits before `hours` are a military time ("report at 1000
    hours") but a length of time where a word says so ("for 1000 hours", "1000 hours of uptime", "at least 2000
    hours"), which is never written back as the user's 10:00."""
    from coworkenv.validate._user_formats import as_user_wrote, mentions

    said = "my shift ends at 02:30; the sync is at 10:00"
    for mine in ("at 2.30", "until 2.30", "by 2.30."):
        assert as_user_wrote(f"ends {mine}", said) == f"ends {mine.replace('2.30', '02:30')}", mine
    for alike in ("at 9.30 EUR", "at 2.50 per seat", "it costs 9.30", "version 9.30", "by 9.30%", "at 2.30h"):
        assert all(w.kind != "time" for w in mentions(alike)), alike
    assert as_user_wrote("report at 1000 hours", said) == "report at 10:00"
    for length in ("ran for 1000 hours", "1000 hours of uptime", "at least 1000 hours", "uptime of 1000 hrs"):
        assert as_user_wrote(length, said) is None, length
        assert all(w.kind != "time" for w in mentions(length)), length


def test_a_dotted_hour_without_its_zero_placed_by_a_zone_or_a_range() -> None:
    """A dotted time with a one-digit hour and no word before it is the user's time where what follows it places it:
    a zone ("2.30 UTC", "2.30 (America/Toronto)") or a dash, `to` or `until` before the range's other end ("9.00-17.00",
    "9.00\u201317.00", "9.00 to 17.00"); the end of a range after a hyphen is a time too ("09:00-17:00" gives both,
    `clock_dotted_bare_pinned`). A price, a share, a length or a version range is none ("2.50-3.00 EUR", "2.50-3.00%",
    "1.30-2.00 hours", "v1.10-1.12"), nor a zone's name in lower case ("1.2 est") or a path after the number."""
    from coworkenv.validate._user_formats import as_user_wrote, mentions

    said = "my shift ends at 02:30 (America/Toronto); working hours 09:00-17:00"
    assert [w.shown for w in mentions(said)] == ["02:30", "09:00", "17:00"]
    for mine, user in (("2.30 UTC", "02:30 UTC"), ("2.30 (America/Toronto)", "02:30 (America/Toronto)"),
                       ("2.30 (CET)", "02:30 (CET)"), ("9.00-17.00", "09:00-17:00"),
                       ("9.00\u201317.00", "09:00\u201317:00"), ("9.00 to 17.00", "09:00 to 17:00"),
                       ("9.00 until 17.00", "09:00 until 17:00"), ("14:30-17.00", None)):
        assert as_user_wrote(f"ended {mine}.", said) == (f"ended {user}." if user else "ended 14:30-17:00."), mine
    assert [w.shown for w in mentions("book 14:30-15:00 or 14:30\u201315:00")] == ["14:30", "15:00", "14:30", "15:00"]
    for alike in ("costs 2.50-3.00 EUR", "scored 2.50-3.00%", "took 1.30-2.00 hours", "v1.10-1.12", "in 1.2 est",
                  "python 3.10 reports/x", "3.5 (Europe/Paris)", "it costs 9.30", "version 9.30"):
        assert all(w.kind != "time" for w in mentions(alike)), alike
    # (a zone in lower case places it since defects56: "9.30 utc" is 09:30; `clock_zone_case_pinned`)


def test_the_french_hour_mark_and_o_clock_are_times_written_back_as_given() -> None:
    """An hour and minutes joined by an h ("02h30", "2h30", "16H00", "15 h 15") is the user's time of day as well as a
    duration, and "N o'clock" (digits or words, a part of the day or not) is that hour; both are written back as the
    user gave the time (`clock_idiom_pinned`); a duration the user gave stays a duration, a bare "2h" is 02:00 (or
    a duration), not the user's 02:30."""
    from coworkenv.validate._user_formats import as_user_wrote, mentions

    said = "my shift ends at 02:30; the sync is at 13:00; book 90 minutes"
    for mine in ("02h30", "2h30", "02H30", "2 h 30"):
        assert as_user_wrote(f"ends {mine}, then", said) == "ends 02:30, then", mine
    for mine in ("1 o'clock", "one o\u2019clock", "1 o'clock in the afternoon", "1 o'clock pm"):
        assert as_user_wrote(f"at {mine}.", said) == "at 13:00.", mine
    assert as_user_wrote("at 1 o'clock in the morning", said) is None  # 01:00, not the user's 13:00
    assert as_user_wrote("a 1h30 slot", said) == "a 90 minutes slot"  # still a duration
    assert [w.values for w in mentions("12 o'clock")] == [((None, 0, 0), (None, 12, 0))]
    assert as_user_wrote("ends 2h, then", said) is None
    assert as_user_wrote("ends 25h30", said) is None


def test_spoken_times_yearless_dates_fractions_and_spelled_sums_are_read_as_their_value() -> None:
    """Times said in words ("half past two", "quarter to nine", "noon", "one in the afternoon"), the bare hour mark
    ("7h") and an hour unit after a clock's face ("17:00 hrs"); a day and month without a year ("3/11", "03.11.");
    fractions and compounds of an hour ("¾ h", "3/4 hour", "an hour and a quarter", "1½ hours", "half-hour");
    sums with their scale in a word ("€41.62 thousand"), grouped with spaces bare ("12 973") or the Indian way
    ("1,24,500") are read as their value and written back as given (`clock_spoken_pinned`, `date_yearless_pinned`,
    `duration_fraction_pinned`, `amount_spelled_pinned`); ranges, paths and ratios that look alike are not."""
    from coworkenv.validate._numerals import as_digits
    from coworkenv.validate._user_formats import as_user_wrote, mentions

    said = "shift ends 02:30, starts 07:00, sync 13:00, call 08:45, lunch 12:00, wrap 17:00; due 2026-11-03"
    for mine, user in (("half past two", "02:30"), ("quarter to nine", "08:45"), ("one in the afternoon", "13:00"),
                       ("1 in the afternoon", "13:00"), ("noon", "12:00"), ("7h", "07:00"), ("17:00 hrs", "17:00"),
                       ("two thirty", "02:30"), ("eight forty-five", "08:45"), ("twenty-five to three", None),
                       ("half past two in the afternoon", None)):
        assert as_user_wrote(f"at {mine}, ok", said) == (f"at {user}, ok" if user else None), mine
    for mine in ("3/11", "11/3", "03.11."):
        assert as_user_wrote(f"due {mine} ok", said) == "due 2026-11-03 ok", mine
    assert [(w.kind, w.values) for w in mentions("at 03.11.")] == [("date", ((None, 11, 3),)), ("time", ((None, 3, 11),))]
    for alike in ("five to ten minutes", "two to three days", "from ten to six", "two three", "a/b/3/11/x", "24/7/365",
                  "afternoon", "TLS is now 1.2.", "Python 3.11."):
        assert all(w.kind not in ("time", "date") for w in mentions(alike)), alike
    minutes = {"¾ h": 45, "3/4 hour": 45, "¾ of an hour": 45, "three-quarters of an hour": 45, "½ hour": 30,
               "1/2 hr": 30, "half-hour": 30, "1-hour": 60, "1½ hours": 90, "two and a half hours": 150,
               "an hour and a quarter": 75, "an hour and fifteen minutes": 75, "1 hour and 30 minutes": 90}
    for mine, value in minutes.items():
        assert [(w.kind, w.values) for w in mentions(mine)] == [("duration", ((None, 0, value),))], mine
    doc = "annual value | EUR 41,620; cap EUR 124,500; visits 12,973"
    for mine, theirs in (("€41.62 thousand", "EUR 41,620"), ("41.62 thousand", "EUR 41,620"),
                         ("12 973", "12,973"), ("12\u202f973", "12,973"), ("EUR 1,24,500", "EUR 124,500"),
                         ("1,24,500", "EUR 124,500")):
        assert as_user_wrote(f"it is {mine} now", doc) == f"it is {theirs} now", mine
    assert [w.values for w in mentions("EUR 1,00,000")] == [((None, 1, 10_000_000),)]  # not EUR 1.00
    # an hour said in words inside a time is no count for the numeral replay
    assert as_digits("ended at half past two, three pages down") == "ended at half past two, 3 pages down"


def test_iso_week_dates_are_read_as_the_day_they_name() -> None:
    """An ISO 8601 week date, extended ("2026-W23-2") or compact ("2026W232"), is the day it names and is written back
    as the user gave the date (`week_date_pinned`); a week without its day, a week a year lacks, or one inside an id
    is not a date."""
    from coworkenv.validate._user_formats import as_user_wrote, mentions

    for mine in ("2026-W23-2", "2026W232", "2026-w23-2"):
        assert as_user_wrote(f"due {mine}.", "Pick it up by 2026-06-02") == "due 2026-06-02.", mine
    assert as_user_wrote("on 2026-W45-2", "the sync is on Tuesday 3 November") == "on Tuesday 3 November"
    assert [w.values for w in mentions("2026-W53-1")] == [((2026, 12, 28),)]  # 2026 has 53 ISO weeks
    for alike in ("2026-W23", "2027-W53-1", "2026-W00-1", "OPS-2026-W23-2", "2026-W23-8"):
        assert all(w.kind != "date" for w in mentions(alike)), alike


def test_a_write_a_called_check_credits_is_taken_back_on_the_record() -> None:
    """A completion `called` check on a reference write makes a replay with the write's fields put back; a spec
    whose checks read the state only makes none."""
    from coworkenv.env import base_world
    from coworkenv.synth import generate_spec, load_taxonomy
    from coworkenv.validate._undone import undone_writes

    spec = generate_spec(load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")["scheduler_pause_failing_jobs"],
                         1)
    assert list(undone_writes(spec, base_world(spec))) == []
    data = spec.model_dump(mode="json", by_alias=True)
    job = next(s["call"]["arguments"]["job_id"] for s in data["reference"][0]["steps"]
               if (s.get("call") or {}).get("name") == "scheduler_update_job")
    called = {"id": "paused", "rule": {"kind": "called", "call": {"tool": "scheduler_update_job",
                                                                  "args": {"job_id": job}}}}
    credited = type(spec).model_validate({**data, "checks": [*data["checks"], called]})
    found = list(undone_writes(credited, base_world(credited)))
    assert len(found) == 1 and found[0].tool == "scheduler_update_job"
    last = [s.call for s in found[0].reference[-1].steps if s.call is not None][-1]
    assert last is not None and last.arguments == {"job_id": job, "enabled": True}


def test_every_write_is_taken_back_where_a_python_check_reads_the_audit() -> None:
    """A Python check that reads the audit may credit a write by the record its call returned then (a stale snapshot,
    the fifth hunt's `py_call_result`): every reference write on a record (each job paused, the config entry) is taken
    back for it, a field empty before overwritten with another record's value; a Python check that reads the state
    only makes no replay."""
    from coworkenv.env import base_world
    from coworkenv.synth import generate_spec, load_taxonomy
    from coworkenv.validate._undone import undone_writes

    spec = generate_spec(load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")["scheduler_pause_failing_jobs"],
                         1)
    data = spec.model_dump(mode="json", by_alias=True)
    jobs = [s["call"]["arguments"]["job_id"] for s in data["reference"][0]["steps"]
            if (s.get("call") or {}).get("name") == "scheduler_update_job"]
    stale = ("def check(state, audit, messages):\n"
             "    for a in audit:\n"
             f"        if a['tool'] == 'scheduler_update_job' and a['ok'] and a['args'].get('job_id') == {jobs[0]!r}:\n"
             "            return a['result']['enabled'] is False\n"
             "    return False\n")
    fresh = ("def check(state, audit, messages):\n"
             f"    return any(j['id'] == {jobs[0]!r} and not j['enabled'] for j in state['apps']['scheduler']['jobs'])\n")
    for code, replays in ((stale, len(jobs)), (fresh, 0)):
        python = {"id": "paused", "rule": {"kind": "python", "code": code}}
        with_check = type(spec).model_validate({**data, "checks": [*data["checks"], python]})
        found = list(undone_writes(with_check, base_world(with_check)))
        tools = [f.tool for f in found]
        assert tools.count("scheduler_update_job") == replays and (replays or not tools), tools
    # A ticket nobody was assigned: putting None back changes nothing, so another person's name is written over it.
    spec = generate_spec(load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")["ticket_triage_update"], 1)
    data = spec.model_dump(mode="json", by_alias=True)
    python = {"id": "reads", "rule": {"kind": "python", "code": stale.replace("scheduler_update_job", "tickets_update")}}
    with_check = type(spec).model_validate({**data, "checks": [*data["checks"], python]})
    over = [f.description for f in undone_writes(with_check, base_world(with_check)) if "another value" in f.description]
    assert any("'assignee': 'u-" in d for d in over), over


def test_phone_numbers_are_rewritten_as_grouped_where_given() -> None:
    """A phone number, with its country code or dialled at home (a trunk 0), is read by its digits: one the reference
    groups otherwise, or writes with the country code the source left out (or without the one it gave), is written as
    given, in prose or as a whole argument; a number never given is left alone, and so is one written as one of the
    sources wrote it."""
    from coworkenv.validate._user_formats import _is_phone, as_user_wrote

    said = "please note my new phone number: +41 650 123 456 (the old one, +33 601 222 333, stops working)"
    assert as_user_wrote("updated to +41-650-123-456.", said) == "updated to +41 650 123 456."
    assert as_user_wrote("+41650123456", said) == "+41 650 123 456"
    assert as_user_wrote("updated to +41 650 123 457", said) is None  # another number
    assert as_user_wrote("call 020-7946-0958", "call 020 7946 0958 at 15:00") == "call 020 7946 0958"  # dialled at home
    assert as_user_wrote("call +44 20 7946 0958", "call 020 7946 0958") == "call 020 7946 0958"  # the code added
    assert as_user_wrote("call 020 7946 0958", "call +44 20 7946 0958") == "call +44 20 7946 0958"  # the code dropped
    assert as_user_wrote("call 06 1234 5678", "call +39 06 1234 5678") == "call +39 06 1234 5678"  # the 0 kept
    assert as_user_wrote("call 020 7946 0958", "+44 20 7946 0958, or 020 7946 0958") is None  # as one source wrote it
    assert as_user_wrote("call 020 7946 0959", "call +44 20 7946 0958") is None  # another number
    assert as_user_wrote("call 0958", "call +44 20 7946 0958") is None  # a part of it is no phone number
    assert _is_phone("+41650123456") and not _is_phone("+41 650 123 456 (mobile)")


def test_durations_and_numbers_are_rewritten_as_given() -> None:
    """A duration is read as minutes however written ("60-minute", "1 hour", "1h", "0.75 h", "half an hour"), a number
    however grouped ("12973", "12,973", "12.973"), and a bare number is the same as an amount of that sum; each is
    written as given. An amount the writer gives a currency the source left out is not rewritten as a bare number,
    and paths, date-times and a phone number's groups are no numbers to rewrite."""
    from coworkenv.validate._user_formats import as_user_wrote, mentions

    said = "Book a 60-minute 'Sync' and a '1:1' (45 min). The file says: annual value | EUR 12,973 | 4,210 seats"
    assert as_user_wrote("'Sync' is booked (1 hour), the '1:1' takes 0.75 h.", said) == \
        "'Sync' is booked (60-minute), the '1:1' takes 45 min."
    assert as_user_wrote("booked (1h), about an hour", said) == "booked (60-minute), about 60-minute"
    assert as_user_wrote("booked (45 min)", said) is None  # as the user wrote it
    assert as_user_wrote("'Sync' (1:00 h), '1:1' (0:45 hrs)", said) == "'Sync' (60-minute), '1:1' (45 min)"
    assert as_user_wrote("'Sync' (PT1H), '1:1' (PT45M)", said) == "'Sync' (60-minute), '1:1' (45 min)"
    assert [(w.kind, w.shown) for w in mentions("at 1:30 pm, for 1:30 hours, PT1H30M, PT5")] == [
        ("time", "1:30 pm"), ("duration", "1:30 hours"), ("duration", "PT1H30M")]
    assert as_user_wrote("The value is 12973.", said) == "The value is EUR 12,973."
    assert as_user_wrote("worth 12,973 euros, or €12.973", said) == "worth EUR 12,973, or EUR 12,973"
    assert as_user_wrote("4210 seats", said) == "4,210 seats"
    assert as_user_wrote("EUR 4,210 a seat", said) is None  # the writer names a currency the source did not give
    assert as_user_wrote("worth 12974", said) is None  # another number
    assert [(w.kind, w.shown) for w in mentions("12 973 € and 12.973,50 EUR")] == [("amount", "12 973 €"),
                                                                                   ("amount", "12.973,50 EUR")]
    assert [(w.kind, w.shown) for w in mentions("in 2026, see reports/2026-11-03T09:30:00Z, call 020 7946 0958")] == [
        ("number", "2026"), ("phone", "020 7946 0958")]  # the year; the phone's groups are not numbers


def test_abbreviated_numbers_durations_in_words_and_days_are_rewritten_as_given() -> None:
    """A sum with its thousands (millions, billions) abbreviated ("€41.62k", "89.76k EUR", "1.2M") is that sum, an
    amount where a currency is written; a duration in words ("forty-five minutes", "two hours"), with the minute mark
    ("45'"), as "60m" or in days ("2 days") is read as minutes; each is written as given. An abbreviation that is no
    whole number of cents, the pronoun "one" and a possessive "5's" are nothing to rewrite."""
    from coworkenv.validate._user_formats import as_user_wrote, mentions

    said = "Book a 45-minute 'Sync', keep it for 48 hours. The file says: approval limit | EUR 41,620 | 1,200,000 rows"
    assert as_user_wrote("The limit is €41.62k, or 41.62k EUR.", said) == \
        "The limit is EUR 41,620, or EUR 41,620."
    assert as_user_wrote("about 41.62k", said) == "about EUR 41,620"  # a bare number is the amount's sum
    assert as_user_wrote("1.2M rows", said) == "1,200,000 rows"
    assert as_user_wrote("EUR 41.63k", said) is None  # another sum
    assert as_user_wrote("'Sync' (forty-five minutes), kept 2 days", said) == "'Sync' (45-minute), kept 48 hours"
    assert as_user_wrote("'Sync' (45'), or 45m", said) == "'Sync' (45-minute), or 45-minute"
    assert [(w.kind, w.values[0][2]) for w in mentions("two hours, twenty one minutes, seven days, 3bn")] == [
        ("duration", 120), ("duration", 21), ("duration", 7 * 24 * 60), ("number", 300_000_000_000)]
    assert mentions("12.3456k, which one, the 5's") == []


def test_relative_dates_are_read_against_the_turns_day() -> None:
    """Given the day a turn is written, "today", "tomorrow" and a weekday are dates ("next Tuesday" either the coming
    one or the one after), written as the user gave them; without the day, or for another date, nothing changes."""
    from datetime import date

    from coworkenv.validate._user_formats import as_user_wrote, mentions

    wednesday = date(2026, 6, 10)
    said = "Ask Diego whether he can pick it up by 2026-06-12, and book the review on Tuesday 16 June."
    assert as_user_wrote("Can you pick it up by Friday?", said, wednesday) == "Can you pick it up by 2026-06-12?"
    assert as_user_wrote("by this Friday; review next Tuesday", said, wednesday) == \
        "by 2026-06-12; review Tuesday 16 June"
    assert as_user_wrote("Can you pick it up by Friday?", said) is None  # no day to read it against
    assert as_user_wrote("Can you pick it up by Thursday?", said, wednesday) is None  # another day
    assert as_user_wrote("booked for tomorrow", "on Thursday 11 June", wednesday) == "booked for Thursday 11 June"
    assert [(w.kind, w.values) for w in mentions("on Tuesday 16 June at 15:00, or today", wednesday)] == [
        ("date", ((None, 6, 16),)), ("time", ((None, 15, 0),)), ("date", ((2026, 6, 10),))]


def test_what_a_search_showed_counts_as_read() -> None:
    """The reference of contact_phone_update@3 finds the customer's mail by `mail_search` and never opens it: the
    hit names the mail by id, so its body (the new number) counts as read, and a card written in another grouping is
    replayed as the mail wrote it; without the search's hits it was not."""
    from coworkenv.agents import OraclePolicy
    from coworkenv.env import Env, base_world
    from coworkenv.rollout import run_episode
    from coworkenv.synth import generate_spec, load_taxonomy
    from coworkenv.validate._user_formats import shown_text, user_formats

    spec = generate_spec(load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")["contact_phone_update"], 3)
    step = next(s for s in spec.reference[0].steps if s.call is not None and s.call.name == "contacts_update")
    assert step.call is not None
    number = step.call.arguments["phone"]
    assert not any(s.call is not None and s.call.name == "mail_read_message" for s in spec.reference[0].steps)
    compact = spec.model_copy(deep=True)
    for s in compact.reference[0].steps:
        if s.call is not None and s.call.name == "contacts_update":
            s.call.arguments["phone"] = number.replace(" ", "")
    env = Env(compact)
    run_episode(env, OraclePolicy(compact))
    initial = base_world(compact)
    seen = shown_text(env.audit, initial)
    assert number in seen[0]()
    assert [f.tool for f in user_formats(compact, initial)] == []
    found = [f for f in user_formats(compact, initial, seen) if f.tool == "contacts_update"]
    assert len(found) == 1 and number in found[0].description


def test_a_keyed_write_is_taken_back_unless_the_reference_overwrites_it() -> None:
    """`services_set_flag` names a key of the service's `flags`: an order check crediting it makes a replay with the
    key's old value; a write the reference itself turns back later (the failed canary's flag) makes none, and the
    write that turns it back (staging off again, as before the episode) is overwritten with the other value
    (defects69: putting the old value back would change nothing)."""
    from coworkenv.env import base_world
    from coworkenv.synth import generate_spec, load_taxonomy
    from coworkenv.validate._undone import undone_writes

    taxonomy = load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")["feature_flag_rollout"]
    clean, failed = generate_spec(taxonomy, 6), generate_spec(taxonomy, 1)  # production reached; canary failed
    found = list(undone_writes(clean, base_world(clean)))
    assert [f.tool for f in found] == ["services_set_flag", "services_set_flag"]
    last = [s.call for s in found[-1].reference[-1].steps if s.call is not None][-1]
    assert last is not None and last.arguments["enabled"] is False and set(last.arguments) == {
        "service", "flag", "enabled"}
    found = list(undone_writes(failed, base_world(failed)))
    assert [f.tool for f in found] == ["services_set_flag"] and "another value" in found[0].description
    last = [s.call for s in found[0].reference[-1].steps if s.call is not None][-1]
    assert last is not None and last.arguments["enabled"] is True


def test_a_record_allowed_whole_meets_the_apps_other_tools() -> None:
    """A service the reference redeploys (a tool that sets nothing else) is also given a flag flip by the app's
    other tool; a tool that only names the record (a restart) is an action, not tried."""
    from coworkenv.apps.services import Service
    from coworkenv.spec import ToolCallSpec
    from coworkenv.validate._whole_records import _other_tool_calls

    svc = Service(id="svc-a", name="A", flags={"beta": True, "alpha": False})
    call = ToolCallSpec(name="services_deploy", arguments={"service": "svc-a", "version": "1.2.3"})
    exposed = {"services_deploy", "services_restart", "services_set_flag", "services_rollback_config"}
    tried = [(c.name, c.arguments) for c in _other_tool_calls(call, svc, [svc], exposed)]
    assert tried == [("services_set_flag", {"service": "svc-a", "flag": "alpha", "enabled": True})]


def test_clock_times_are_rewritten_in_the_zone_the_turn_asks() -> None:
    """A time of a known instant is written in the zone the turn names for that output (the mail "in UTC", the DM in
    "their time zone"), or the reader's own where it names none; one already stated in that zone, or no known
    instant, is left alone; a date-time only where the zone is named."""
    from coworkenv.validate._user_zones import _asked, in_zone
    from coworkenv.world import parse_time

    zones = {"UTC", "Asia/Dubai", "Europe/Helsinki"}
    start = {parse_time("2026-11-03T09:30:00Z")}
    turn = ("Book it. Show the event in my time zone (Asia/Dubai). Then email the attendees: the start time in UTC "
            "(HH:MM UTC) in the body. Then tell Sanna on chat (new time as HH:MM, their time zone). Tell me the time.")
    assert _asked(turn, "mail", "Asia/Dubai", None, zones) == ("UTC", True)
    assert _asked(turn, "chat", "Asia/Dubai", "Europe/Helsinki", zones) == ("Europe/Helsinki", True)
    assert _asked(turn, "reply", "Asia/Dubai", "Asia/Dubai", zones) == ("Asia/Dubai", False)
    assert in_zone("booked for 13:30 Dubai time", "UTC", start, None, "Asia/Dubai", zones) == "booked for 09:30 UTC"
    assert in_zone("moved to 09:30 UTC", "Europe/Helsinki", start, "Europe/Helsinki", "Asia/Dubai", zones) == \
        "moved to 11:30 Helsinki time"
    assert in_zone("at 09:30 UTC (13:30 your time)", "Asia/Dubai", start, "Asia/Dubai", "Asia/Dubai", zones) is None
    assert in_zone("at 10:00 UTC", "Asia/Dubai", start, "Asia/Dubai", "Asia/Dubai", zones) is None  # no such instant
    assert in_zone("at 2026-11-03T09:30:00Z", "Asia/Dubai", start, None, "Asia/Dubai", zones, named=False) is None
    assert in_zone("at 2026-11-03T09:30:00Z", "Asia/Dubai", start, None, "Asia/Dubai", zones) == \
        "at 2026-11-03T13:30:00+04:00"


def test_a_zone_argument_is_set_to_the_one_zone_the_turn_names() -> None:
    """`timezone="UTC"` where the user asks to see the event "in my time zone (Asia/Dubai)" is replayed with the
    user's zone; working hours "in their own time zone" and a clock time's "UTC" name none; two named zones, none."""
    from coworkenv.spec import ToolCallSpec
    from coworkenv.validate._user_zones import _zone_arguments

    zones = {"UTC", "Asia/Dubai", "Europe/Helsinki"}
    call = ToolCallSpec(name="calendar_create_event", arguments={"title": "Sync", "timezone": "UTC"})
    asked = ("Book it inside everyone's working hours (09:00-17:00 in their own time zone). Show the event in my time "
             "zone (Asia/Dubai). Mail the start time in UTC.")
    assert _zone_arguments(call, asked, "Asia/Dubai", zones) == {"timezone": "Asia/Dubai"}
    assert _zone_arguments(call, "Book it, shown in my time zone.", "Asia/Dubai", zones) == {"timezone": "Asia/Dubai"}
    assert _zone_arguments(call, "Book it (09:00-17:00 in their own time zone).", "Asia/Dubai", zones) == {}
    assert _zone_arguments(call, "Show it in Europe/Helsinki, in my time zone.", "Asia/Dubai", zones) == {}


def test_times_given_with_the_other_seasons_offset_are_corrected() -> None:
    """A time labelled with a zone that is a known instant only under the zone's offset of the other season (Helsinki's
    +02:00 in September, daylight saving in force) is written as the zone reads it then; a right time, a UTC one or
    one of a zone that keeps one offset is left alone."""
    from coworkenv.validate._user_zones import in_season
    from coworkenv.world import parse_time

    zones = {"UTC", "Europe/Helsinki", "Asia/Dubai"}
    moved = {parse_time("2026-09-16T09:00:00Z")}
    assert in_season("moved to 11:00 your time", moved, "Europe/Helsinki", zones) == "moved to 12:00 your time"
    assert in_season("moved to 10:00 Helsinki", moved, None, zones) is None  # neither season: no such instant
    assert in_season("moved to 12:00 your time", moved, "Europe/Helsinki", zones) is None
    assert in_season("moved to 09:00 UTC", moved, None, zones) is None
    assert in_season("moved to 12:00 your time", moved, "Asia/Dubai", zones) is None


def test_date_time_arguments_are_respelled_as_the_same_instant() -> None:
    """A date-time argument is respelled in the user's zone, or in UTC where it is already in the user's offset; a
    UTC user's `Z` time as `+00:00`; anything else is no time."""
    from coworkenv.validate._spelling import respelled_time

    assert respelled_time("2026-11-03T09:30:00Z", "Asia/Dubai") == "2026-11-03T13:30:00+04:00"
    assert respelled_time("2026-11-03T13:30:00+04:00", "Asia/Dubai") == "2026-11-03T09:30:00Z"
    assert respelled_time("2026-06-07T07:00:00-05:00", "Europe/Warsaw") == "2026-06-07T14:00:00+02:00"
    assert respelled_time("2026-09-16T09:00:00Z", "UTC") == "2026-09-16T09:00:00+00:00"
    assert respelled_time("2026-09-16", "UTC") is None
    assert respelled_time("ops/paused-jobs", "UTC") is None


def test_a_slower_agent_is_replayed_at_each_turn_with_a_write() -> None:
    """Each turn with a write of a spec with a log stream is replayed with a quiet read repeated until the slowest
    stream adds a line; where a rule's effect is delayed (or due at a set time), also with as many reads as the step
    budget leaves right after the turn's last write (frames counted), and once without the quiet reads after the
    call that starts a delayed effect (the quicker agent); a spec with neither is replayed with the read made
    `STAMP_READS` times at the turn's start (its writes stamped a minute later)."""
    from coworkenv.validate._pace import EXTRA_READS, STAMP_READS, reads_left, slower_agents

    incident = load_example("incident_rollback")
    found = list(slower_agents(incident))
    assert [f.path for f in found] == ["reference[0].steps[0]", "reference[0].steps[5]",
                                       "reference[1].steps[0]", "reference[1].steps[2]", "reference[0].steps[5]"]
    quicker = found[-1]
    assert quicker.calls_must_succeed and "quiet read" in quicker.description
    assert sum(len(t.steps) for t in quicker.reference) < sum(len(t.steps) for t in incident.reference)
    assert reads_left(incident) == 60 - sum(len(t.steps) for t in incident.reference) >= EXTRA_READS
    extra = len(found[0].reference[0].steps) - len(incident.reference[0].steps)
    assert extra == 120 // incident.world.tick_s
    added = found[0].reference[0].steps[0].call
    assert added is not None and added.name == "logs_search"
    after = found[1].reference[0].steps
    assert len(after) - len(incident.reference[0].steps) == reads_left(incident)
    assert after[:6] == incident.reference[0].steps[:6] and after[6].call == added
    meeting = load_example("meeting_reschedule")
    delayed = list(slower_agents(meeting))  # an action rule's delay_s 600, no stream
    assert len(delayed[0].reference[0].steps) - len(meeting.reference[0].steps) == STAMP_READS
    assert any("steps[0]" not in f.path for f in delayed)
    report = load_example("report_from_files")
    stamped = list(slower_agents(report))
    assert [f.path for f in stamped if f.path.endswith("steps[0]")] == ["reference[0].steps[0]", "reference[1].steps[0]"]
    assert len(stamped[0].reference[0].steps) - len(report.reference[0].steps) == STAMP_READS
    assert list(slower_agents(load_example("restock_store_declared_tools"))) == []  # no built-in read to repeat


def test_writes_are_taken_back_by_their_inverse() -> None:
    """Each write with an inverse the agent is given is taken back by it at the end: a config update rolled back to
    the version the service ran before, a label added taken off, a transfer sent back; none where nothing is written
    or the agent lacks the inverse tool."""
    from coworkenv.env import base_world
    from coworkenv.synth import generate_spec, load_taxonomy
    from coworkenv.validate._undone import inverse_writes

    taxonomy = load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")

    def last_calls(name: str, seed: int) -> list[Any]:
        spec = generate_spec(taxonomy[name], seed)
        found = list(inverse_writes(spec, base_world(spec)))
        return [[s.call for s in f.reference[-1].steps if s.call is not None][-1] for f in found]

    (grant,) = last_calls("access_request_approval", 1)
    assert grant.name == "services_rollback_config" and set(grant.arguments) == {"service", "to_version"}
    (label,) = last_calls("todo_track_mail_requests", 1)
    assert label.name == "mail_label" and set(label.arguments) == {"message_ids", "remove"}
    transfers = last_calls("inventory_restock_policy", 1)
    assert transfers and all(c.name == "inventory_transfer" for c in transfers)
    assert last_calls("access_request_approval", 3) == []  # declined: nothing written to take back
    spec = generate_spec(taxonomy["access_request_approval"], 1)
    data = spec.model_dump(mode="json", by_alias=True)
    unequipped = type(spec).model_validate({**data, "tools": [t for t in data["tools"]
                                                              if t != "services_rollback_config"]})
    assert list(inverse_writes(unequipped, base_world(unequipped))) == []


def test_lists_of_records_are_replayed_in_reverse() -> None:
    """A reply or message listing records of one table is replayed with the list in reverse, each item with what it
    says of its record and the words around the list in place; a list whose ends do not line up, or a turn whose
    output is asked sorted, makes none."""
    from coworkenv.env import base_world
    from coworkenv.synth import generate_spec, load_taxonomy
    from coworkenv.validate._list_order import _asks_sorted, _Names, reordered_lists

    taxonomy = load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")
    roster = generate_spec(taxonomy["correct_bad_data"], 2)
    found = [f.description for f in reordered_lists(roster, base_world(roster))]
    assert found == [
        "chat_send_dm with its list in reverse: text 'I fixed the roster rows of Viktor Kowalski, Dario Adeyemi.'",
        "the reply of turn 0 with its list in reverse: 'Fixed 2 row(s) in ops/oncall-roster-2026-04.csv (Viktor "
        "Kowalski, Dario Adeyemi) and told Alma.'"]
    stock = generate_spec(taxonomy["inventory_restock_policy"], 7)
    names = _Names(base_world(stock))
    assert names.reversed("Moved 28 x BATT-26, 14 x MOUSE-13, 16 x BOXL-63 from wh-warsaw to store-seoul.") == \
        "Moved 16 x BOXL-63, 14 x MOUSE-13, 28 x BATT-26 from wh-warsaw to store-seoul."
    assert names.reversed("Moved 28 x BATT-26 from wh-warsaw to store-seoul.") is None  # one item
    assert names.reversed("Moved BATT-26, BATT-26 and more.") is None  # the same record twice
    jobs = generate_spec(taxonomy["scheduler_pause_failing_jobs"], 2)
    reply = [s.say for s in jobs.reference[0].steps if s.say][-1]
    new = _Names(base_world(jobs)).reversed(reply)
    assert new is not None and new.split(". ")[1] == reply.split(". ")[1]  # the config value's order is its own
    assert new.startswith("Paused notifications-cache-warmup (last run 2026-06-21T15:45:03Z); ")
    assert _asks_sorted("List the open tickets, highest priority first.")
    assert _asks_sorted("Then tell me which ones you paused, in order of their last run.")
    assert not _asks_sorted("Record their names in ops/paused: alphabetical. Tell me when each one last ran.")


def test_created_records_are_removed_by_their_apps_removal_tool() -> None:
    """Each record the reference creates is removed at the end by its app's tool that deletes or cancels a record
    of its kind (the event cancelled, the to-do and the file deleted), where the agent is given that tool; a record
    no tool removes is closed by its app's update tool, one replay per closing value of its status (a filed ticket:
    `closed`, then `resolved`); one of a kind with neither (a sent mail) is left alone."""
    from coworkenv.synth import generate_spec, load_taxonomy
    from coworkenv.validate._undone import _removals, created_writes

    taxonomy = load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")

    def removals(name: str, seed: int) -> list[Any]:
        spec = generate_spec(taxonomy[name], seed)
        episodes = SpecEpisodes(spec)
        episodes.oracle()
        found = list(created_writes(spec, episodes.created, episodes.made))
        assert all(f.write_path.startswith("reference[") for f in found)  # each traced to the write that made it
        return [[s.call for s in f.reference[-1].steps if s.call is not None][-1] for f in found]

    (cancel,) = removals("schedule_meeting_timezones", 1)
    assert cancel.name == "calendar_cancel_event" and set(cancel.arguments) == {"event_id"}
    (delete,) = removals("report_from_data", 1)
    assert delete.name == "files_delete_file" and delete.arguments == {"path": "reports/open-tickets-2026-10-05.csv"}
    assert [c.name for c in removals("todo_track_mail_requests", 1)] == ["todo_delete_task"] * 4
    closing = removals("mail_ticket_chat_coordination", 1)  # a ticket, closed; the sent mail: no tool removes it
    assert [(c.name, c.arguments["status"]) for c in closing] == [("tickets_update", "closed"),
                                                                   ("tickets_update", "resolved")]
    assert _removals("todo", "tasks", "t-1", {"todo_add_task"}) == []  # the agent lacks the removal tool
    assert _removals("notes", "notes", "n-1", {"notes_delete_note"}) == [("notes_delete_note", {"note_id": "n-1"})]
    assert _removals("tickets", "tickets", "OPS-1", {"tickets_create"}) == []  # nor is it given the update tool
    assert _removals("mail", "messages", "msg-9", {"mail_send", "mail_label"}) == []


def test_created_records_are_put_out_of_force_by_a_write_of_their_app() -> None:
    """Each record the reference creates is also set to each value out of force a write tool of its app sets by its
    id (a to-do ticked off, by the first such tool: `todo_complete_task`, not again by `todo_update_task`; a job
    disabled; an article archived or taken back to a draft), never to a value it already holds, and only by a tool
    the agent is given; the to-do checked open (`done: false`, as the generators now check it) stops the replay."""
    from coworkenv.spec import EnvSpec
    from coworkenv.synth import generate_spec, load_taxonomy
    from coworkenv.validate._undone import _deactivations, created_writes

    todo = {"todo_complete_task", "todo_update_task", "todo_delete_task"}
    assert _deactivations("todo", "tasks", "t-1", {"done": False}, todo) == [
        ("todo_complete_task", {"task_id": "t-1", "done": True})]
    assert _deactivations("todo", "tasks", "t-1", {"done": True}, todo) == []  # the task ticked it off itself
    assert _deactivations("todo", "tasks", "t-1", {"done": False}, {"todo_delete_task"}) == []
    assert _deactivations("scheduler", "jobs", "j-1", {"enabled": True}, {"scheduler_update_job"}) == [
        ("scheduler_update_job", {"job_id": "j-1", "enabled": False})]
    assert _deactivations("kb", "articles", "a-1", {"status": "published"}, {"kb_update_article"}) == [
        ("kb_update_article", {"article_id": "a-1", "status": "draft"}),
        ("kb_update_article", {"article_id": "a-1", "status": "archived"})]
    assert _deactivations("tickets", "tickets", "T-1", {"status": "open"}, {"tickets_update"}) == []  # closing's

    taxonomy = load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")
    data = generate_spec(taxonomy["web_page_audit"], 1).model_dump(mode="json", by_alias=True)
    episodes = SpecEpisodes(EnvSpec.model_validate(data))
    episodes.oracle()
    found = [f for f in created_writes(episodes.spec, episodes.created, episodes.made, episodes.created_values)
             if "out of force" in f.description]
    assert [f.tool for f in found] == ["todo_complete_task"]
    assert validate_spec(EnvSpec.model_validate(data), policy="strict").passed
    for check in data["checks"]:
        if check["rule"]["kind"] == "records" and check["rule"]["app"] == "todo":
            check["rule"]["where"] = [w for w in check["rule"]["where"] if w["field"] != "done"]
    found_errors = validate_spec(EnvSpec.model_validate(data), policy="strict").errors()
    assert [e.code for e in found_errors] == ["undone_unchecked"] and "todo_complete_task" in found_errors[0].message


def test_a_filed_ticket_checked_without_its_status_is_closed_by_the_first_value_the_workflow_takes() -> None:
    """A filed ticket checked without its status: the gate closes it (`closed`); where the reference left it in
    progress, from which the workflow refuses `closed`, the refused replay is not judged and `resolved` is tried;
    the check wanting it open stops both."""
    from coworkenv.spec import EnvSpec
    from coworkenv.synth import generate_spec, load_taxonomy

    taxonomy = load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")
    data = generate_spec(taxonomy["mail_ticket_chat_coordination"], 1).model_dump(mode="json", by_alias=True)
    episodes = SpecEpisodes(EnvSpec.model_validate(data))
    episodes.oracle()
    ((_, _, ticket),) = [key for key in episodes.created if key[:2] == ("tickets", "tickets")]
    filed = next(c for c in data["checks"] if c["id"] == "ticket-filed")
    assert {"field": "status", "op": "equals", "value": "open"} in filed["rule"]["where"]
    assert validate_spec(EnvSpec.model_validate(data), policy="strict").passed

    def undone(spec: dict[str, Any]) -> list[str]:
        found = validate_spec(EnvSpec.model_validate(spec), policy="strict").errors()
        return [e.message for e in found if e.code == "undone_unchecked"]

    filed["rule"]["where"] = [w for w in filed["rule"]["where"] if w["field"] != "status"]
    (message,) = undone(data)
    assert f"tickets_update {{'ticket_id': '{ticket}', 'status': 'closed'}}" in message
    steps = data["reference"][-1]["steps"]
    steps.insert(len(steps) - 1, {"call": {"name": "tickets_update",
                                           "arguments": {"ticket_id": ticket, "status": "in_progress"}}})
    (message,) = undone(data)
    assert "'status': 'resolved'" in message


def test_numbers_in_words_are_replayed_in_digits() -> None:
    """A number from two to ninety-nine written in words is written in digits, one that begins a sentence too; a count
    of one (`one` or `a single` before a noun, `one of` a number) too; `one` as a pronoun or in a phrase, a
    capitalised word inside a sentence (a name) and a duration (the format replay's) are left as they are."""
    from coworkenv.validate._numerals import as_digits

    assert as_digits("Three of 9 pages are broken") == "3 of 9 pages are broken"
    assert as_digits("Added four tasks; twenty-one left. Seven remain") == "Added 4 tasks; 21 left. 7 remain"
    assert as_digits("the one that failed") is None
    assert as_digits("Booked with Seven Seas Ltd") is None
    assert as_digits("no numbers here") is None
    assert as_digits("a forty-five minutes slot for two people") == "a forty-five minutes slot for 2 people"  # a duration
    assert as_digits("One of 5 pages is broken") == "1 of 5 pages is broken"
    assert as_digits("Handed one incident ticket and a single note") == "Handed 1 incident ticket and 1 note"
    assert as_digits("twenty one pages") == "21 pages"
    for pronoun in ("one of the reasons", "pick one.", "one by one", "this one is down", "no one came", "one is down",
                    "Call One Medical", "One Medical called", "one minute"):
        assert as_digits(pronoun) is None, pronoun


def test_counts_in_digits_are_replayed_in_words() -> None:
    """A count from two to ninety-nine written in digits before a noun (or `of`) is written in words, capitalised at a
    sentence's start (`digits_pinned`); digits in an id, a version, a time, a date, an amount, a range, a decimal, a
    quantity of a unit, after a label or a name, before a verb, and a count copied from what the agent read are not."""
    from coworkenv.validate._numerals import as_words, spelled

    assert [spelled(n) for n in (2, 13, 20, 42, 99)] == ["two", "thirteen", "twenty", "forty-two", "ninety-nine"]
    assert as_words("3 of 9 pages are broken: https://x.example/3") == "Three of nine pages are broken: https://x.example/3"
    assert as_words("Triaged 3 tickets. 12 remain open") == "Triaged three tickets. Twelve remain open"
    assert as_words("Wrote errors-2026-03-17.csv (7 rows) and 42 notes") == \
        "Wrote errors-2026-03-17.csv (seven rows) and forty-two notes"
    assert as_words("Fixed 2 row(s); 1 left") == "Fixed two row(s); One left"  # a count of one too, read back
    assert as_words("1 of 5 pages are broken") == "One of five pages are broken"
    assert 1.0 in numbers_in("one of five pages are broken") and as_words("Rolled back to version 1 now") is None
    for alike in ("Moved 15 x GLOVE-96", "booked for 09:30 UTC (30 min).", "svc-pricing@3; svc-pricing@4 was", "page 3 is",
                  "on 3 June we met", "by 12 May", "Sprint 12 tasks", "sent to Team 4 members", "INV-12 items",
                  "v2 notes", "costs 12 EUR", "at 3 pm", "12% of rows", "3-5 days", "3\u20135 days", "2.5 GB left",
                  "2,5 units", "wait 45 minutes", "for 3 hours", "-4 degrees", "week 42 report", "the 3rd ticket",
                  "3/11 due", "room 4 booked", "100 rows", "PLAT-108 and 3x retries", "12 kg boxes"):
        assert as_words(alike) is None, alike
    assert as_words("Order 2 laptops for Ana", "Please order 2 laptops for the new hires") is None  # copied
    assert as_words('{"note": "3 rows fixed"}') is None  # JSON, a table's row and CSV rows are data
    assert as_words("Fixed 3 rows.\n| p1 | 4 tasks |\nsku,3 units,EUR 12\na\t2 boxes") == \
        "Fixed three rows.\n| p1 | 4 tasks |\nsku,3 units,EUR 12\na\t2 boxes"


def test_counts_said_as_idioms_are_replayed_in_digits_unless_copied() -> None:
    """A count said as an idiom before a noun (`a couple of`, `a pair of`, `half a dozen`, `a dozen`, `a`/`an`) is
    written in digits; a phrase that counts nothing (`a few`, `a lot`), a duration (`an hour`), a name (`Plan A`) and
    a count written as the source writes it (a quoted subject: `with a timeout`) are left as they are."""
    from coworkenv.validate._numerals import as_digits

    assert as_digits("Fixed a couple of rows and a pair of tasks") == "Fixed 2 rows and 2 tasks"
    assert as_digits("2 of half a dozen pages; a dozen left") == "2 of 6 pages; 12 left"
    assert as_digits("Handed an incident ticket and fixed a row") == "Handed 1 incident ticket and fixed 1 row"
    assert as_digits("A dozen pages") == "12 pages"
    assert as_digits("a hundred rows") is None
    for nothing in ("a few minutes", "a lot of noise", "Plan A is ready", "in an hour", "a 15-minute call",
                    "a.m. slot", "a good idea"):
        assert as_digits(nothing) is None, nothing
    told = "re: hickory games: exports fail with a timeout"
    assert as_digits("Re: Hickory Games: exports fail with a timeout", told) is None
    assert as_digits("Fixed a row; exports fail with a timeout", told) == "Fixed 1 row; exports fail with a timeout"


def test_data_sizes_are_replayed_in_the_sources_unit() -> None:
    """A size shown under a key naming its unit (`max_body_kb: 512`, `cache_size_bytes: 1048576`,
    `max_upload_mb: 1536`), stated in another unit, decimal or binary (`0.5 MB`, `524,288 bytes`, `512,000 bytes`,
    `512 KiB`, `1 MiB`, `1.5 GB`), is written in the source's unit; the source's own unit, or another size, is not."""
    from coworkenv.validate._units import _sources, as_source_unit

    sizes = _sources([{"max_body_kb": 512, "cache_size_bytes": 1048576, "max_upload_mb": 1536}])
    for stated in ("0.5 MB", "524,288 bytes", "512,000 bytes", "512 KiB"):
        assert as_source_unit(f"a body of {stated}", sizes) == "a body of 512 KB", stated
    assert as_source_unit("a 1 MiB cache, 1.5 gigabytes of uploads", sizes) == \
        "a 1048576 bytes cache, 1536 MB of uploads"
    for same in ("512 KB", "512 kB", "1,048,576 bytes", "1536 MB", "2 MB"):
        assert as_source_unit(f"a body of {same}", sizes) is None, same


def test_quantities_are_replayed_in_the_sources_unit() -> None:
    """A quantity the reference's reads were shown under a key naming its unit (`cache_ttl_s: 900`,
    `rate_limit_rps: 40`, `threshold_pct: 85`), stated in another unit (`15 minutes`, `15m`, `quarter-hour`, `0.6 s`,
    `an hour`, `fifteen min`, `2,400 requests per minute`, `0.85`), is written in the source's unit; one stated in the
    source's own unit, or no source's quantity, is left as it is."""
    from coworkenv.validate._units import _sources, as_source_unit

    sources = _sources([{"values": {"cache_ttl_s": 900, "timeout_ms": 600, "token_ttl_s": 3600, "max_rows": 500,
                                    "enabled_s": True}}])
    assert set(sources) == {("t", 900_000), ("t", 600), ("t", 3_600_000)}
    assert as_source_unit("a cache TTL of 15 minutes", sources) == "a cache TTL of 900 s"
    assert as_source_unit("a timeout of 0.6 s and fifteen min", sources) == "a timeout of 600 ms and 900 s"
    assert as_source_unit("valid for an hour", sources) == "valid for 3600 s"
    assert as_source_unit("a cache TTL of 900 seconds", sources) is None  # the source's unit
    assert as_source_unit("at 15:00 for 20 minutes", sources) is None  # no source gives 20 minutes
    for idiom in ("15m", "quarter-hour", "a quarter of an hour"):
        assert as_source_unit(f"a TTL of {idiom}", sources) == "a TTL of 900 s", idiom
    assert as_source_unit("valid for 60m or half an hour", sources) == "valid for 3600 s or half an hour"
    more = _sources([{"rate_limit_rps": 40, "threshold_pct": 85, "timeout_ms": 1500}])
    for rate in ("2,400 requests per minute", "2400 req/min", "2,400/min", "2400 rpm"):
        assert as_source_unit(f"up to {rate}", more) == "up to 40 rps", rate
    assert as_source_unit("a timeout of 1½ s, a threshold of 0.85", more) == "a timeout of 1500 ms, a threshold of 85%"
    assert as_source_unit("40 rps, 85% and 1500 ms", more) is None  # the sources' own units
    assert as_source_unit("a share of 0.85", sources) is None  # a fraction is read for a percentage source only


def test_a_share_written_with_its_unit_as_a_word_is_replayed_as_the_source_gives_it() -> None:
    """A share shown as `threshold_pct: 85` and stated `85 percent`, `85 per cent`, `85-percent`, `85pct` or
    `eighty-five percent` is written `85%` (`share_word_pinned`); `85%`, a percentile or another share is not."""
    from coworkenv.validate._units import _sources, as_source_unit

    shares = _sources([{"threshold_pct": 85}])
    for stated in ("85 percent", "85 per cent", "85-percent", "85pct", "85 PCT", "eighty-five percent"):
        assert as_source_unit(f"a threshold of {stated} now", shares) == "a threshold of 85% now", stated
    for other in ("85%", "the 85th percentile", "40 percent", "85 percentage points"):
        assert as_source_unit(f"a threshold of {other}", shares) is None, other


def test_a_mutant_ending_as_the_reference_but_leaving_an_earlier_turn_otherwise_is_no_equivalent() -> None:
    """The equivalence is judged at each turn's end too: a first booking the second turn moves (overwritten, so the
    final state is the reference's) differs at the first turn's end, which the episodes keep with the signature."""
    from coworkenv.synth import generate_spec, load_taxonomy
    from coworkenv.validate._episodes import EpisodeOutcome
    from coworkenv.validate.mutation_gate import _turn_left_otherwise

    spec = generate_spec(load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")["adapt_announced_change"], 2)
    episodes = SpecEpisodes(spec)
    oracle = episodes.oracle()
    assert oracle.turn_ends is not None and len(oracle.turn_ends) == len(spec.turns) - 1 == 1
    booked = [v for a, t, _i, v in oracle.turn_ends[0] if (a, t) == ("calendar", "events")]
    assert booked, oracle.turn_ends  # the first booking as the first turn left it
    same = EpisodeOutcome("m", None, signature=oracle.signature, turn_ends=oracle.turn_ends)
    other = EpisodeOutcome("m", None, signature=oracle.signature, turn_ends=((),))
    assert _turn_left_otherwise(same, oracle) is None
    assert _turn_left_otherwise(other, oracle) == 0
    assert _turn_left_otherwise(EpisodeOutcome("m", None, signature=oracle.signature), oracle) is None
