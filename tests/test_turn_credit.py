"""Turn-level credit (`trainers.rewards.turn_progress`) on every multi-turn spec the project ships: a turn before the
last is judged by what that turn is meant to have done (the reference's state at the end of the same turn), so a
check that can hold only once a later turn's work is there (a guard on a stamp the second turn sets, a guard on a
record the second turn brings) neither zeroes the first turn nor lets work done before its turn earn early credit."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from coworkenv.agents import NoopPolicy, OraclePolicy
from coworkenv.env import Env
from coworkenv.examples import example_names, load_example
from coworkenv.rollout import run_agent
from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn
from coworkenv.synth.generate import generate_specs
from coworkenv.synth.taxonomy import load_taxonomy
from trainers.rewards import turn_progress

# Every multi-turn spec of seeds 1-2 and of the shipped examples (adapt_announced_change@2 is its clash variant,
# access_request_approval@3 its declined branch); the completeness test below keeps the list whole.
MULTI_TURN = (
    "access_request_approval@1", "access_request_approval@2", "access_request_approval@3",
    "adapt_announced_change@1", "adapt_announced_change@2", "adapt_silent_change@1", "adapt_silent_change@2",
    "clarify_ambiguous_request@1", "clarify_ambiguous_request@2",
    "delegate_and_follow_up@1", "delegate_and_follow_up@2", "example:incident_rollback", "example:meeting_reschedule",
    "example:report_from_files",
)


@cache
def _spec(name: str) -> EnvSpec:
    if name.startswith("example:"):
        return load_example(name.removeprefix("example:"))
    capability, seed = name.split("@")
    return generate_specs(load_taxonomy(Path("taxonomy"))[capability], 1, int(seed))[0]


def _okay_after(first: ReferenceTurn, spec: EnvSpec) -> list[ReferenceTurn]:
    """A reference that plays `first` in the first turn and only says okay in every later one."""
    return [first, *(ReferenceTurn(steps=[ReferenceStep(say="Okay.")]) for _ in spec.turns[1:])]


def test_the_list_holds_every_multi_turn_spec() -> None:
    taxonomy = load_taxonomy(Path("taxonomy"))
    found = {f"example:{n}" for n in example_names() if len(load_example(n).turns) > 1}
    found |= {f"{c}@{seed}" for c in taxonomy.capabilities for seed in (1, 2)
              if len(_spec(f"{c}@{seed}").turns) > 1}
    assert found == set(MULTI_TURN) - {"access_request_approval@3"}


@pytest.mark.parametrize("name", MULTI_TURN)
def test_the_first_turn_earns_what_the_reference_first_turn_does(name: str) -> None:
    spec = _spec(name)
    full = turn_progress(run_agent(Env(spec), OraclePolicy(spec)), spec)
    half = turn_progress(run_agent(Env(spec), OraclePolicy(spec, reference=_okay_after(spec.reference[0], spec))), spec)
    noop = turn_progress(run_agent(Env(spec), NoopPolicy()), spec)
    assert full.scores[-1] == 1.0 and full.passed[-1]
    assert full.scores[0] > 0.0, "the reference's first turn earns nothing: a check fails until a later turn"
    assert half.scores[0] == full.scores[0] > noop.scores[0]  # the same first turn, judged the same
    assert half.scores[-1] < 1.0


@pytest.mark.parametrize("name", ["delegate_and_follow_up@1", "adapt_announced_change@1",
                                  "access_request_approval@1"])
def test_work_done_before_its_turn_earns_no_early_credit(name: str) -> None:
    """An agent doing the second turn's writes in the first (a guess before the answer, news or approval) earns no
    more for its first turn than the reference does, and fails the episode's guard at the end."""
    spec = _spec(name)
    first, second = spec.reference[0].steps, spec.reference[1].steps
    guess = [s for s in second if s.call is not None]
    early = _okay_after(ReferenceTurn(steps=[*(s for s in first if s.call), *guess, *(s for s in first if not s.call)]),
                        spec)
    eager = turn_progress(run_agent(Env(spec), OraclePolicy(spec, reference=early)), spec)
    full = turn_progress(run_agent(Env(spec), OraclePolicy(spec)), spec)
    assert eager.scores[0] <= full.scores[0]
    assert not eager.passed[-1]


def test_a_reference_that_fails_its_own_checks_leaves_every_turn_judged_as_written() -> None:
    """No reference to read a turn's work from (an import without one): the guard counts at the first turn again."""
    spec = _spec("delegate_and_follow_up@1")
    blank = spec.model_copy(update={"reference": _okay_after(ReferenceTurn(steps=[ReferenceStep(say="Okay.")]), spec)})
    played = run_agent(Env(spec), OraclePolicy(spec))
    assert turn_progress(played, spec).scores[0] > 0.0
    assert turn_progress(played, blank).scores == (0.0, 1.0)
