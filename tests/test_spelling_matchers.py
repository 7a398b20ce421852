"""A check matcher built with `is_person`/`is_channel` credits a person or channel in every spelling the tools
accept, and nobody else; the early-action mutation moves a clarified write before the question's reply."""

from __future__ import annotations

from pathlib import Path

import pytest

from coworkenv.checks import call_matches
from coworkenv.spec import CallMatcher
from coworkenv.synth import generate_spec, load_taxonomy
from coworkenv.synth.entities import Person
from coworkenv.synth.procedural._task import is_channel, is_person
from coworkenv.validate._early_action import early_actions

ESRA = Person(id="u-esra", name="Esra Larsen", email="esra.larsen@orbitale.test", team="t-ops", role="Engineer",
              manager=None, timezone="UTC", chat_handle="esra")


def _person_matcher(person: Person) -> CallMatcher:
    return CallMatcher.model_validate({"tool": "tickets_update", "where": [is_person("assignee", person)]})


@pytest.mark.parametrize("spelling", ["u-esra", "esra.larsen@orbitale.test", "Esra.Larsen@Orbitale.test", "esra",
                                      "@esra", "ESRA"])
def test_person_condition_accepts_every_spelling(spelling: str) -> None:
    assert call_matches(_person_matcher(ESRA), "tickets_update", {"assignee": spelling})


@pytest.mark.parametrize("other", ["u-esra2", "esra.larsen@orbitale.test.evil", "u-lin", "esraa", "", "u.esra"])
def test_person_condition_rejects_other_people(other: str) -> None:
    assert not call_matches(_person_matcher(ESRA), "tickets_update", {"assignee": other})


def test_channel_condition_accepts_id_and_name_only() -> None:
    matcher = CallMatcher.model_validate({"tool": "chat_post_message",
                                          "where": [is_channel("channel", "c-releases", "#releases")]})
    for spelling in ("c-releases", "#releases", "releases"):
        assert call_matches(matcher, "chat_post_message", {"channel": spelling})
    for other in ("c-release", "#releases-old", "#general", "xreleases"):
        assert not call_matches(matcher, "chat_post_message", {"channel": other})


def test_early_action_moves_the_clarified_write_before_the_question() -> None:
    taxonomy = load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")
    spec = generate_spec(taxonomy["clarify_ambiguous_request"], 2)
    [found] = list(early_actions(spec))
    asked, answered = found.reference[0].steps, found.reference[1].steps
    assert asked[-1].say and "?" in asked[-1].say  # the question still closes turn 0
    assert asked[-2].call is not None and asked[-2].call.name == "mail_send"
    assert not any(s.call is not None and s.call.name == "mail_send" for s in answered)
