"""A Python check's verdict is the check's, not the pace of the machine or process that ran it.

`make test`'s parallel run failed CE09's report-policy validation twice (the sandbox gate's probes found the keyword
check not robust) while it passed alone, its file alone and under CPU burners: a reading of the wall clock (a run the
wall clock stopped, or a wall-clock cost with no CPU cost to match) was counted at once, so a stall of the validating
process (a busy neighbour, a thread that got no time) became a defect of the check. Here the stall is put in first
(the sandbox answers a probe run as a stalled host saw it), and the verdict must be the one an unstalled run gives;
a check that really takes its time is still found (every run slow)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from coworkenv.checks import Reply
from coworkenv.checks import verifier as verifier_module
from coworkenv.sandbox import SandboxResult
from coworkenv.spec import PythonRule
from coworkenv.validate import python_probes

# CE09's check, as the importer writes it (`keywords_present`)
RULE = PythonRule(code='KEYWORDS = ["td-11", "td-12", "duplicate", "overdue", "td-14"]\n\n'
                       'def check(state, audit, messages):\n'
                       '    text = " ".join(m["text"] for m in messages).lower()\n'
                       '    missing = [k for k in KEYWORDS if k.lower() not in text]\n'
                       '    return {"passed": not missing, "reason": "missing " + ", ".join(missing)}\n',
                  entrypoint="check")
REPLIES = [Reply(0, "td-12 was a duplicate of td-11: I completed td-12. Overdue: td-14.")]
ORACLE: dict[str, Any] = {"state": {"clock": "2026-03-02T09:00:00Z", "apps": {}}, "audit": [],
          "messages": [{"turn": r.turn, "text": r.text} for r in REPLIES]}
STOPPED = SandboxResult(False, None, "timeout", "wall-clock limit of 5s exceeded", 5.0)
REAL_RUN = python_probes.run_sandboxed
# The probes that read the wall clock: the repeated, seeded and pinned runs on the reference's final state (replies
# given in the payload only: no paraphrase runs, which read no cost), so a probe costs ~6 runs of ~0.05 s.
PROBES: dict[str, Any] = {"repeats": 1, "offsets": ()}


def _stalled(real: Callable[..., SandboxResult], stall: Callable[[int, SandboxResult | None], SandboxResult | None],
             ) -> tuple[Callable[..., SandboxResult], list[int]]:
    """`real` with call n answered by `stall(n, None)` where that gives a result (the run never reached), else run
    and passed through `stall(n, result)` (the run as a stalled host measured it)."""
    calls: list[int] = []

    def run(*args: Any, **kwargs: Any) -> SandboxResult:
        n = len(calls)
        calls.append(n)
        instead = stall(n, None)
        if instead is not None:
            return instead
        result = real(*args, **kwargs)
        return stall(n, result) or result

    return run, calls


def _probe(monkeypatch: pytest.MonkeyPatch, stall: Callable[[int, SandboxResult | None], SandboxResult | None],
           ) -> list[python_probes.Probe]:
    run, _ = _stalled(REAL_RUN, stall)
    monkeypatch.setattr(python_probes, "run_sandboxed", run)
    return python_probes.probe_check(RULE, True, ORACLE, [], None, None, **PROBES)


@pytest.fixture(scope="module")
def unstalled() -> list[python_probes.Probe]:
    found = python_probes.probe_check(RULE, True, ORACLE, [], None, None, **PROBES)
    assert found == []
    return found


def test_a_probe_run_the_wall_clock_stopped_once_is_no_finding(monkeypatch: pytest.MonkeyPatch,
                                                                 unstalled: list[python_probes.Probe]) -> None:
    # a seeded run stopped by the wall clock (the host stalled): main reported `nondeterministic_check` ("random
    # seed ... gives an error (timeout: ...) instead of True") and rejected the check
    assert _probe(monkeypatch, lambda n, got: STOPPED if n == 1 else None) == unstalled


def test_a_wall_clock_cost_the_machine_made_is_no_finding(monkeypatch: pytest.MonkeyPatch,
                                                          unstalled: list[python_probes.Probe]) -> None:
    # the first two runs took 3 s of the wall clock and 0.03 s of CPU (a stall): main found `cost_near_limit`
    def slow_first_two(n: int, got: SandboxResult | None) -> SandboxResult | None:
        return None if got is None or n >= 2 else SandboxResult(True, got.value, None, None, 3.0, got.cpu_s)

    assert _probe(monkeypatch, slow_first_two) == unstalled


def test_a_check_that_takes_its_time_in_every_run_is_still_found(monkeypatch: pytest.MonkeyPatch) -> None:
    def always_slow(n: int, got: SandboxResult | None) -> SandboxResult | None:
        return None if got is None else SandboxResult(True, got.value, None, None, 3.0, got.cpu_s)

    assert [p.code for p in _probe(monkeypatch, always_slow)] == ["cost_near_limit"]
    always_stopped = _probe(monkeypatch, lambda n, got: STOPPED if n in (1, 2) else None)
    assert [p.code for p in always_stopped] == ["nondeterministic_check"]
    assert "timeout" in always_stopped[0].message


@pytest.fixture
def verifier_run(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable[..., Any]], Any]]:
    import coworkenv.sandbox

    def play(stall: Callable[[int, SandboxResult | None], SandboxResult | None]) -> Any:
        run, _ = _stalled(coworkenv.sandbox.run_sandboxed, stall)
        monkeypatch.setattr(coworkenv.sandbox, "run_sandboxed", run)  # the verifier imports it when it runs
        world = SimpleNamespace(to_wire=lambda apps=None: {"clock": ORACLE["state"]["clock"], "apps": {}})
        return verifier_module._python(RULE, world, [], SimpleNamespace(replies=REPLIES))  # type: ignore[arg-type]

    yield play


def test_the_verifiers_run_is_not_the_machines_pace_either(verifier_run: Callable[..., Any]) -> None:
    # an episode's run of the check (the sandbox gate reads a crash on any episode as a defect)
    score, reason, error, verdict = verifier_run(lambda n, got: STOPPED if n == 0 else None)
    assert (score, error, verdict) == (1.0, False, True), reason
    score, reason, error, _ = verifier_run(lambda n, got: STOPPED)  # stopped again: it is the check's
    assert error and "timeout" in reason
