"""The shipped examples are sound: the reference solves them, doing nothing or nearly the right thing does not."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from coworkenv import Env, EnvSpec, NoopPolicy, OraclePolicy, run_episode
from coworkenv.examples import example_names, load_example, resolve_spec
from coworkenv.loading import SpecError
from coworkenv.spec import ReferenceTurn

EXAMPLES = ["incident_rollback", "meeting_reschedule", "report_from_files"]
Steps = list[list[dict[str, Any]]]


def test_the_three_examples_ship() -> None:
    assert set(EXAMPLES) <= set(example_names())


@pytest.mark.parametrize("name", example_names())
def test_every_shipped_example_passes_the_strict_gates(name: str) -> None:
    # The examples are what people copy: one the gates would keep out of training must not ship (the declared-tools
    # triage example did not check what its mail said until the gates grew a content mutation for declared tools).
    from coworkenv.validate import validate_spec

    verdict = validate_spec(load_example(name))
    assert verdict.passed, [(e.code, e.path, e.message) for e in verdict.errors()]


@pytest.mark.parametrize("name", EXAMPLES)
def test_oracle_scores_one_and_is_deterministic(name: str) -> None:
    spec = load_example(name)
    first = run_episode(Env(spec), OraclePolicy(spec))
    second = run_episode(Env(spec), OraclePolicy(spec))
    assert first.result.score == 1.0
    assert first.result.passed
    assert first.final_hash == second.final_hash
    assert first.result.as_dict() == second.result.as_dict()


@pytest.mark.parametrize("name", EXAMPLES)
def test_noop_and_the_initial_state_fail(name: str) -> None:
    spec = load_example(name)
    env = Env(spec)
    env.reset()
    untouched = env.score()  # the initial state, no replies
    assert not untouched.passed
    assert untouched.score == 0.0  # guards hold on the untouched state but earn no credit
    noop = run_episode(Env(spec), NoopPolicy())
    assert not noop.result.passed
    assert noop.result.score <= 0.05
    assert all(c.is_guard for c in noop.result.checks if c.passed)


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_are_schema_2_and_check_the_reply_text(name: str) -> None:
    spec = load_example(name)
    assert spec.schema_version == "2"
    assert any(c.rule.kind == "text" for c in spec.checks)
    assert any(c.is_guard for c in spec.checks)


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_span_three_apps_and_use_dynamics(name: str) -> None:
    spec = load_example(name)
    assert len({t.split("_", 1)[0] for t in spec.tools}) >= 3
    assert spec.dynamics.rules or spec.dynamics.streams
    assert spec.multi_turn
    kinds = {c.rule.kind for c in spec.checks}
    assert {"frame", "forbidden", "reply_states"} <= kinds
    assert any(c.safety for c in spec.checks)


# -- near misses: edit the reference, replay it, a required check must fail -------------------------------------
def _steps(spec: EnvSpec) -> Steps:
    return [[s.model_dump(exclude_none=True) for s in turn.steps] for turn in spec.reference]


def _find(steps: Steps, tool: str, nth: int = 0) -> tuple[int, int]:
    hits = [(t, i) for t, turn in enumerate(steps) for i, s in enumerate(turn) if s.get("call", {}).get("name") == tool]
    return hits[nth]


def _args(steps: Steps, tool: str, nth: int = 0) -> dict[str, Any]:
    t, i = _find(steps, tool, nth)
    return steps[t][i]["call"]["arguments"]  # type: ignore[no-any-return]


def _drop(tool: str, nth: int = 0) -> Callable[[Steps], None]:
    def edit(steps: Steps) -> None:
        t, i = _find(steps, tool, nth)
        del steps[t][i]
    return edit


def _set(tool: str, nth: int = 0, **changes: Any) -> Callable[[Steps], None]:
    def edit(steps: Steps) -> None:
        _args(steps, tool, nth).update(changes)
    return edit


def _rename(tool: str, new_tool: str, nth: int = 0) -> Callable[[Steps], None]:
    def edit(steps: Steps) -> None:
        t, i = _find(steps, tool, nth)
        steps[t][i]["call"]["name"] = new_tool
    return edit


def _swap(first: str, then: str) -> Callable[[Steps], None]:
    def edit(steps: Steps) -> None:
        (t1, i1), (t2, i2) = _find(steps, first), _find(steps, then)
        assert t1 == t2
        steps[t1][i1], steps[t2][i2] = steps[t2][i2], steps[t1][i1]
    return edit


def _stop_after_first_turn(steps: Steps) -> None:
    del steps[1:]


def _early(tool: str, nth: int = 0) -> Callable[[Steps], None]:
    """The call made a turn early: at the end of the turn before, ahead of its closing reply."""
    def edit(steps: Steps) -> None:
        t, i = _find(steps, tool, nth)
        steps[t - 1].insert(len(steps[t - 1]) - 1, steps[t].pop(i))
    return edit


def _replace_csv_line(old: str, new: str) -> Callable[[Steps], None]:
    def edit(steps: Steps) -> None:
        args = _args(steps, "files_write_file")
        assert old in args["content"]
        args["content"] = args["content"].replace(old, new)
    return edit


MARCUS, AISHA, TOM = "marcus.reed@brightline.test", "aisha.khan@brightline.test", "tom.becker@brightline.test"
NEAR_MISSES: dict[str, list[tuple[str, Callable[[Steps], None], str]]] = {
    "incident_rollback": [
        ("skipped rollback", _drop("services_rollback_config"), "fix-before-announce"),
        ("announce before fixing", _swap("services_rollback_config", "chat_post_message"), "fix-before-announce"),
        ("wrong channel", _set("chat_post_message", channel="#payments"), "incident-announced"),
        ("ticket for the wrong person", _set("tickets_create", assignee="u-raj"), "incident-ticket"),
        ("stop before the last turn", _stop_after_first_turn, "regression-fixed"),
    ],
    "meeting_reschedule": [
        ("the conflicting proposed slot", _set("calendar_update_event", start="2026-04-15T15:00:00+02:00",
                                                end="2026-04-15T16:00:00+02:00"), "moved-to-free-slot"),
        ("draft instead of send", _rename("mail_send", "mail_save_draft"), "attendees-mailed"),
        ("Marcus left out", _set("mail_send", to=[AISHA, TOM]), "attendees-mailed"),
        ("mail before the move", _swap("calendar_update_event", "mail_send"), "update-before-mail"),
        ("attendees replaced by Elena", _set("calendar_update_event", 1, attendees=["elena.rossi@brightline.test"]),
         "attendees-kept"),
        ("stop before the last turn", _stop_after_first_turn, "elena-invited"),
        ("Elena invited before Marcus asked", _early("calendar_update_event", 1), "elena-invited-after-ask"),
    ],
    "report_from_files": [
        ("blocked counted as resolved", _replace_csv_line("p2,5,3,2", "p2,5,4,2"), "csv-numbers"),
        ("target minute counted as a breach", _replace_csv_line("p2,5,3,2", "p2,5,3,3"), "csv-numbers"),
        ("draft instead of send", _rename("mail_send", "mail_save_draft"), "report-mailed"),
        ("summary not attached", _set("mail_send", attachments=["reports/support_w14.csv"]), "report-mailed"),
        ("mailed to finance", _set("mail_send", to=["felix.baptiste@quillpoint.test"]), "report-mailed"),
        ("follow-up for the wrong person", _set("tickets_create", assignee="u-nina"), "follow-up-ticket"),
        ("stop before the last turn", _stop_after_first_turn, "follow-up-ticket"),
    ],
}


@pytest.mark.parametrize(
    ("name", "label", "edit", "check_id"),
    [(name, label, edit, check) for name, cases in NEAR_MISSES.items() for label, edit, check in cases],
    ids=[f"{name}:{label}" for name, cases in NEAR_MISSES.items() for label, _, _ in cases],
)
def test_near_miss_fails_a_required_check(name: str, label: str, edit: Callable[[Steps], None], check_id: str) -> None:
    spec = load_example(name)
    steps = copy.deepcopy(_steps(spec))
    edit(steps)
    mutated = [ReferenceTurn.model_validate({"steps": turn}) for turn in steps]
    episode = run_episode(Env(spec), OraclePolicy(spec, reference=mutated))
    failed = {c.id: c for c in episode.result.checks if not c.passed}
    assert check_id in failed, f"{label}: expected {check_id} to fail, failed: {sorted(failed)}"
    assert failed[check_id].required
    assert failed[check_id].reason
    assert not episode.result.passed
    assert episode.result.score < 1.0


def test_at_least_three_near_misses_per_example() -> None:
    assert all(len(NEAR_MISSES[name]) >= 3 for name in EXAMPLES)


def test_resolve_spec_accepts_names_and_paths(tmp_path: Any) -> None:
    spec = load_example("meeting_reschedule")
    path = tmp_path / "copy.json"
    path.write_text(spec.to_json())
    assert resolve_spec("meeting_reschedule").id == spec.id
    assert resolve_spec(str(path)).id == spec.id
    assert resolve_spec(path).id == spec.id


def test_unknown_example_names_the_known_ones(tmp_path: Any) -> None:
    with pytest.raises(SpecError, match="incident_rollback"):
        resolve_spec("no_such_example")
    with pytest.raises(SpecError, match="no such file"):
        resolve_spec(str(tmp_path / "missing.json"))
