"""LLMSpecGenerator requests: structured output, capability and exemplar in the prompt, stable cache keys."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from coworkenv.examples import load_example
from coworkenv.llm import LLMError, LLMRequest, LLMResponse, LLMStats
from coworkenv.spec import envspec_json_schema
from coworkenv.synth import LLMSpecGenerator
from coworkenv.synth.llm_generator import spec_text
from coworkenv.validate import SpecReviser


@dataclass
class Cap:
    id: str = "schedule_meeting_timezones"
    description: str = "Find a slot that works across time zones and book it."
    skills: list[str] = field(default_factory=lambda: ["read calendars", "convert time zones"])
    apps: list[str] = field(default_factory=lambda: ["calendar", "mail", "directory"])
    hints: list[str] = field(default_factory=lambda: ["attendees in three zones"])
    multi_turn: bool = False
    state_change: str = "none"


class RecordingBackend:
    """Answers every request with a fixed text, or fails the ones whose index is in `fail`."""

    name = "recording"

    def __init__(self, content: str, fail: Sequence[int] = (), finish_reason: str = "stop") -> None:
        self.stats = LLMStats()
        self.content = content
        self.fail = set(fail)
        self.finish_reason = finish_reason
        self.requests: list[LLMRequest] = []

    async def complete(self, request: LLMRequest) -> LLMResponse:
        raise NotImplementedError

    def complete_batch(self, requests: Sequence[LLMRequest]) -> list[LLMResponse | LLMError]:
        out: list[LLMResponse | LLMError] = []
        for request in requests:
            index = len(self.requests)
            self.requests.append(request)
            out.append(LLMError("server_error", "HTTP 500") if index in self.fail else
                       LLMResponse(self.content, [], 1000, 500, self.finish_reason, False, "tiny-model"))
        return out


def generator(backend: RecordingBackend) -> LLMSpecGenerator:
    examples = [load_example(n) for n in ("incident_rollback", "meeting_reschedule", "report_from_files")]
    return LLMSpecGenerator(backend, examples, max_exemplars=1)


def test_generation_asks_for_schema_shaped_json_about_the_capability() -> None:
    backend = RecordingBackend('```json\n{"capability": "x"}\n```')
    candidates = generator(backend).generate(Cap(), 3, seed=40)
    assert [c.payload for c in candidates] == ['{"capability": "x"}'] * 3
    assert [c.origin for c in candidates] == [f"llm:schedule_meeting_timezones:{s}" for s in (40, 41, 42)]
    assert all(c.tokens == 1500 and c.source == "tiny-model" and c.error is None for c in candidates)
    request = backend.requests[0]
    assert request.json_schema == envspec_json_schema() and request.seed == 40
    system, user = request.messages[0]["content"], request.messages[1]["content"]
    assert "calendar_free_busy [read](people: list[str], start: str, end: str)" in system
    assert "Capability: schedule_meeting_timezones" in user and "- convert time zones" in user
    assert "attendees in three zones" in user and "Variation seed: 40" in user
    # The closest exemplar by apps (calendar, mail, directory) is the meeting one.
    assert "calendar_reschedule_across_time_zones" in user and "evt-1041" in user
    assert "db pool exhausted" not in user


def test_requests_are_pure_functions_of_their_inputs() -> None:
    gen = generator(RecordingBackend("{}"))
    a, b = gen.generation_request(Cap(), 7), gen.generation_request(Cap(), 7)
    assert a.cache_key("m") == b.cache_key("m") != gen.generation_request(Cap(), 8).cache_key("m")
    report = {"failed_gates": [{"gate": "references", "errors": [{"code": "missing_record"}]}]}
    r1 = gen.revision_request("cap", '{"a": 1}', report)
    assert r1.cache_key("m") == gen.revision_request("cap", '{"a": 1}', dict(report)).cache_key("m")
    assert r1.messages[2] == {"role": "assistant", "content": '{"a": 1}'}
    assert '"code": "missing_record"' in r1.messages[3]["content"]


def test_failed_generations_become_error_candidates_and_revise_raises() -> None:
    backend = RecordingBackend("{}", fail=[1, 4])
    gen = generator(backend)
    assert isinstance(gen, SpecReviser)
    candidates = gen.generate(Cap(), 3, seed=0)
    assert [c.error for c in candidates] == [None, "server_error", None]
    assert candidates[1].payload == "" and candidates[1].origin == "llm:schedule_meeting_timezones:1"
    assert gen.revise("cap", "{}", {}) == ("{}", 1500)
    with pytest.raises(LLMError) as failure:
        gen.revise("cap", "{}", {})
    assert failure.value.kind == "server_error"


def test_spec_text_strips_fences_and_survives_empty_answers() -> None:
    def answer(content: str | None) -> LLMResponse:
        return LLMResponse(content, [], 1, 1, "stop", False, "m")

    assert spec_text(answer('```\n{"a": 1}\n```')) == '{"a": 1}'
    assert spec_text(answer('  {"a": 1}\n')) == '{"a": 1}'
    assert spec_text(answer(None)) == ""


def test_cut_off_answers_are_model_failures_apart_from_server_failures() -> None:
    from coworkenv.validate import validate_and_repair

    cut = RecordingBackend('{"capability": "schedule_meeting_timezones", "world": {', fail=[1],
                           finish_reason="length")
    gen = generator(cut)
    candidates = gen.generate(Cap(), 3, seed=0)
    assert [c.error for c in candidates] == ["truncated", "server_error", "truncated"]
    assert "cut off at max_tokens=12000" in candidates[0].error_message and candidates[0].tokens == 1500
    run = validate_and_repair(candidates, reviser=gen)
    funnel = run.funnel.as_dict()
    assert funnel["requested"] == 3 and funnel["generated"] == 0
    assert funnel["generation_failures"] == {"server_error": 1, "truncated": 2}
    assert funnel["infrastructure_failures"] == {"server_error": 1}
    assert funnel["model_failures"] == {"truncated": 2}
    assert [r.gate for r in run.rejected] == ["generation"] * 3
    (revised,) = gen.revise_batch([("schedule_meeting_timezones", "{}", {"gate": "schema"})])
    assert isinstance(revised, LLMError) and revised.kind == "truncated"
