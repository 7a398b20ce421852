"""The verifier: evaluates a spec's checks over the final state, the audit log and the agent's text."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from coworkenv.checks.primitives import (
    MISSING,
    call_matches,
    count_records,
    holds,
    render_value,
    resolve,
    selector_allows,
    state_holds,
    states_value,
)
from coworkenv.checks.results import AuditEntry, CheckResult, Reply, VerifierResult, compose, decided_fail
from coworkenv.checks.run_setup import setup
from coworkenv.checks.text import CompiledText, Transcript
from coworkenv.spec import (
    CalledRule,
    Check,
    EnvSpec,
    FieldRule,
    ForbiddenRule,
    FrameRule,
    OrderRule,
    PythonRule,
    RecordsRule,
    ReplyStatesRule,
    TiersRule,
)
from coworkenv.spec_regex import PatternRefused, PatternTimeout, regex_budget
from coworkenv.world import World

# What evaluating a rule gives: score in [0, 1], the reason of a shortfall, whether the check could not run,
# and the verdict when the rule decides it (python checks may); None: passed = score >= the check's pass_score.
Outcome = tuple[float, str, bool, bool | None]


class Verifier:
    """Scores one episode of a spec from the world, its audit log and the agent's text."""

    def __init__(self, spec: EnvSpec) -> None:
        self.spec = spec
        self._texts: dict[int, CompiledText] = {}  # per text rule (by identity), compiled once per spec
        self._judged = any(_asks_a_judge(c.rule) for c in spec.checks)
        self._code = [_runs_code(c.rule) for c in spec.checks]  # per check: whether it runs sandboxed code
        # Set by a caller that reads only whether the episode passed (`SpecEpisodes.lazy_python`): a sandboxed check
        # is left unrun where the other checks already fail the episode (`decided_fail`); the result then lacks it.
        self.lazy_python = False
        # Set by a validation that keeps its sandboxed runs (`coworkenv.validate._run_memo.RunMemo`): `get(rule,
        # payload)` answers a run it may stand in for (None: run it), `put(rule, payload, outcome)` is told each run;
        # while it is `collecting` (a dry pass) a run is only started (`start`), and `take` hands over one started.
        self.python_runs: Any = None

    def score(
        self,
        world: World,
        audit: Sequence[AuditEntry],
        replies: Sequence[Reply],
        notes: Sequence[Reply] = (),
        robustness: float | None = None,
        heard: Sequence[Reply] = (),
    ) -> VerifierResult:
        """Every check's result and the composed score (`compose`).

        `replies` are the messages that ended a turn, `notes` the assistant text sent beside tool calls, `heard`
        what a simulated user answered (each opening a turn); `robustness` (in [0, 1]) is weighed in when the
        spec's scoring gives it a weight.
        """
        transcript = Transcript(replies, notes, heard)
        runs = self.python_runs
        if runs is not None and runs.collecting and not self._judged:
            # a dry pass (`SpecEpisodes.play_ahead`) only starts the sandboxed runs its checks will ask for and throws
            # its result away: the checks that run no sandboxed code start none, so they are not evaluated
            return compose(self.spec.scoring, [self._check(c, world, audit, transcript)
                                               for c, code in zip(self.spec.checks, self._code, strict=True) if code],
                           robustness)
        if self.lazy_python and not self._judged and any(self._code):
            results = [self._check(c, world, audit, transcript) for c, code in zip(self.spec.checks, self._code,
                                                                                   strict=True) if not code]
            if decided_fail(self.spec.scoring, results):
                return compose(self.spec.scoring, results, robustness)  # fewer results than checks: partial
            results = [self._check(c, world, audit, transcript) if code else results.pop(0)
                       for c, code in zip(self.spec.checks, self._code, strict=True)]
        elif not self._judged:
            results = [self._check(c, world, audit, transcript) for c in self.spec.checks]
        else:  # its judged checks share one budget of judge requests and time (coworkenv.llm loaded only here)
            from coworkenv.checks.judge import judge_budget

            with judge_budget():
                results = [self._check(c, world, audit, transcript) for c in self.spec.checks]
        return compose(self.spec.scoring, results, robustness)

    def _check(self, check: Check, world: World, audit: Sequence[AuditEntry], transcript: Transcript) -> CheckResult:
        try:
            with regex_budget():  # every pattern search of the check together (coworkenv.spec_regex)
                score, reason, error, verdict = self._evaluate(check.rule, world, audit, transcript)
        except (PatternTimeout, PatternRefused) as exc:  # unknown, never "no match": a guard must not pass on it
            score, reason, error, verdict = 0.0, f"check error (regex): {exc}", True, None
        passed = verdict_of(score, verdict, check.pass_score)
        if score not in (0.0, 1.0):
            score = round(score, 6)
        return CheckResult(check.id, check.rule.kind, passed, check.weight, check.required, check.safety,
                           "" if passed and score >= 1.0 else reason, error, check.role or "completion", score)

    def _evaluate(self, rule: Any, world: World, audit: Sequence[AuditEntry], transcript: Transcript) -> Outcome:
        kind = rule.kind
        if kind == "text":
            compiled = self._texts.get(id(rule))
            if compiled is None:
                compiled = self._texts[id(rule)] = CompiledText(rule)
            score, reason, error = compiled.evaluate(world, transcript)
            return score, reason, error, None
        if kind == "tiers":
            return self._tiers(rule, world, audit, transcript)
        if kind == "python":
            return _python(rule, world, audit, transcript, self.python_runs)
        handler = _RULES.get(kind)
        if handler is None:
            raise TypeError(f"unknown check rule {type(rule).__name__}")
        return handler(rule, world, audit, transcript)

    def _tiers(self, rule: TiersRule, world: World, audit: Sequence[AuditEntry], transcript: Transcript) -> Outcome:
        best, reasons = 0.0, []
        for tier in rule.tiers:
            score, reason, error, verdict = self._evaluate(tier.rule, world, audit, transcript)
            if error:
                return 0.0, reason, True, None
            if verdict if verdict is not None else score >= 1.0:
                best = max(best, tier.score)
            elif tier.score > best:
                reasons.append(f"tier {tier.score:g}: {reason}")
        return best, "; ".join(reasons), False, None


_PASS: Outcome = (1.0, "", False, None)


def _runs_code(rule: Any) -> bool:
    if isinstance(rule, TiersRule):
        return any(_runs_code(tier.rule) for tier in rule.tiers)
    return isinstance(rule, PythonRule)


def _asks_a_judge(rule: Any) -> bool:
    if isinstance(rule, TiersRule):
        return any(_asks_a_judge(tier.rule) for tier in rule.tiers)
    return isinstance(rule, PythonRule) and rule.judge


def _field(rule: FieldRule, world: World, audit: Sequence[AuditEntry], transcript: Transcript) -> Outcome:
    if holds(world, rule):  # the reason is only worth building for a failure
        return _PASS
    return 0.0, state_holds(world, rule)[1], False, None


def _called(rule: CalledRule, world: World, audit: Sequence[AuditEntry], transcript: Transcript) -> Outcome:
    n = sum(1 for e in audit if e.ok and call_matches(rule.call, e.tool, e.args))
    if n >= rule.min_times:
        return _PASS
    return 0.0, f"{n} successful {rule.call.tool} call(s) matching {rule.call.args}", False, None


def _forbidden(rule: ForbiddenRule, world: World, audit: Sequence[AuditEntry], transcript: Transcript) -> Outcome:
    bad = [e.index for e in audit if (e.ok or rule.attempts) and call_matches(rule.call, e.tool, e.args)]
    if not bad:
        return _PASS
    what = "call(s) or attempt(s)" if rule.attempts else "call(s)"
    return 0.0, f"forbidden {rule.call.tool} {what} at step(s) {bad}", False, None


def _frame(rule: FrameRule, world: World, audit: Sequence[AuditEntry], transcript: Transcript) -> Outcome:
    extra = [c.path for c in world.changes() if not any(selector_allows(s, c, world) for s in rule.allow)]
    if not extra:
        return _PASS
    return 0.0, f"unexpected changes: {', '.join(extra[:5])}", False, None


def _records(rule: RecordsRule, world: World, audit: Sequence[AuditEntry], transcript: Transcript) -> Outcome:
    if holds(world, rule):
        return 1.0, "", False, None
    reason = state_holds(world, rule)[1]
    if not rule.partial or rule.count_op == "lte":
        return 0.0, reason, False, None
    n = count_records(world, rule)
    return min(n, rule.count) / max(n, rule.count, 1), reason, False, None


def _order(rule: OrderRule, world: World, audit: Sequence[AuditEntry], transcript: Transcript) -> Outcome:
    first = next((e.index for e in audit if e.ok and call_matches(rule.first, e.tool, e.args)), None)
    then = next((e.index for e in audit if e.ok and call_matches(rule.then, e.tool, e.args)), None)
    if first is None or then is None:
        missing = rule.first.tool if first is None else rule.then.tool
        return 0.0, f"no successful {missing} call matching the check", False, None
    return (float(first < then), f"{rule.then.tool} (step {then}) came before {rule.first.tool} (step {first})",
            False, None)


def _reply(rule: ReplyStatesRule, world: World, audit: Sequence[AuditEntry], transcript: Transcript) -> Outcome:
    value = resolve(world, rule.source)
    if value is MISSING:
        s = rule.source
        return 0.0, f"{s.app}.{s.table}[{s.id}].{s.field} does not exist in the final state", False, None
    text = transcript.raw("replies", rule.turn)
    wanted = render_value(value, rule.format)
    missing = [w for w in wanted if not states_value(text, w)]
    where = "the replies" if rule.turn is None else f"the reply to turn {rule.turn}"
    if not missing:
        return 1.0, "", False, None
    score = 1 - len(missing) / len(wanted) if rule.partial else 0.0
    return score, f"{where} do not state {', '.join(missing)}", False, None


# The error kinds of a sandboxed run that the machine's pace decides as much as the code: the wall clock stopped it
# (a stalled host or machine: a busy neighbour, a validating process whose thread got no time, or a check that loops).
# Such a run is taken again (`PACE_RETRIES` times) before its error counts, here and in the sandbox gate's probes: a
# check that loops does so again, one the machine stalled returns. Without it a verdict was the load of the process
# that ran it (CE09's report-policy validation failed twice in `make test`'s parallel run and passed alone).
PACE_KINDS = frozenset({"timeout"})
PACE_RETRIES = 1


def paced(run: Callable[[], Any]) -> Any:
    """`run()`'s sandbox result, taken again (up to `PACE_RETRIES` times) while the wall clock stopped it."""
    outcome = run()
    for _ in range(PACE_RETRIES):
        if outcome.ok or outcome.error_kind not in PACE_KINDS:
            break
        outcome = run()
    return outcome


def _python(rule: PythonRule, world: World, audit: Sequence[AuditEntry], transcript: Transcript,
            runs: Any = None) -> Outcome:
    from coworkenv.sandbox import run_sandboxed  # the sandbox spawns processes: load it only when needed

    state = world.to_wire(rule.apps or None)  # a check scoped to its apps: only theirs serialised
    apps = rule.apps or list(state["apps"])
    payload = {
        "state": {"clock": state["clock"], "apps": {a: state["apps"][a] for a in apps}},
        "audit": [e.as_dict() for e in audit],
        "messages": transcript.messages() if rule.transcript else [
            {"turn": r.turn, "text": r.text} for r in transcript.replies],
    }
    options: dict[str, Any] = {}
    if rule.judge:  # the judge channel (coworkenv.llm is loaded only for a check that asks a judge)
        from coworkenv.checks.judge import NoJudge, sandbox_options

        try:
            options = sandbox_options(rule)
        except NoJudge as exc:
            return 0.0, f"check error (judge): {exc}", True, None
    known = runs.get(rule, payload) if runs is not None else None
    if known is not None:
        return known  # type: ignore[no-any-return]
    # the setup the sandbox gate's probes run too, with their values (`run_setup`): a check cannot tell the two
    prelude = setup()

    def run(job: dict[str, Any]) -> Any:
        return paced(lambda: run_sandboxed(rule.code, rule.entrypoint, job, prelude=prelude, **options))

    if runs is not None and runs.collecting:  # a dry pass (`RunMemo.start`): its outcomes are never read
        runs.start(rule, payload, prelude, run, handed=True)  # built above for this run alone: no copy needed
        return _PASS
    outcome = runs.take(rule, payload, prelude) if runs is not None else None
    if outcome is None:
        outcome = run(payload)
    if not outcome.ok:
        return 0.0, f"check error ({outcome.error_kind}): {outcome.error}", True, None
    found = python_outcome(outcome.value)
    if runs is not None:
        runs.put(rule, payload, found)
    return found


def verdict_of(score: float, verdict: bool | None, pass_score: float) -> bool:
    """Whether a check passed: the verdict its rule gave, else its score against the check's `pass_score`."""
    return verdict if verdict is not None else score >= pass_score


# The most of a python check's own text (its reason, a wrong `passed` or `score`) that its outcome carries: the
# sandbox's own reports stop at 500 characters, and a returned reason could fill the whole result channel (64 KiB),
# into every check result, report and log line of every episode.
_MAX_REASON_CHARS = 500


def _bounded(text: str) -> str:
    return text if len(text) <= _MAX_REASON_CHARS else text[:_MAX_REASON_CHARS] + f"... ({len(text)} characters)"


def python_outcome(value: Any) -> Outcome:
    """A python check's return value as an outcome: bool, a score in [0, 1], or {score, passed, reason}.

    The one reading of a returned value: the verifier's, and the sandbox gate's probes (`python_verdict`), which
    judged it by other rules (a score, or `{score}` without `passed`, was no pass there: a check that answered a
    backdoor word with `1.0` passed the verifier and no probe saw it)."""
    if isinstance(value, bool):
        return float(value), "" if value else "python check returned false", False, None
    if isinstance(value, int | float):
        score = float(value)
        if not 0.0 <= score <= 1.0:
            return 0.0, _bounded(f"python check returned score {score}, outside [0, 1]"), True, None
        return score, f"python check scored {score:g}", False, None
    if isinstance(value, dict) and ("passed" in value or "score" in value):
        reason = _bounded(str(value.get("reason", "python check failed")))
        passed = value.get("passed")
        if passed is not None and not isinstance(passed, bool):
            return 0.0, _bounded(f"python check returned passed={passed!r}, expected a bool"), True, None
        raw = value.get("score", float(passed) if passed is not None else 0.0)
        if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0.0 <= raw <= 1.0:
            return 0.0, _bounded(f"python check returned score {raw!r}, expected a number in [0, 1]"), True, None
        return float(raw), reason, False, passed
    return (0.0, f"python check returned {type(value).__name__}, expected bool, a score or {{score, passed, reason}}",
            True, None)


def python_verdict(value: Any, pass_score: float) -> tuple[bool | None, str]:
    """(verdict, error) of a python check's return value, as the verifier reads it (`python_outcome`, the check's
    `pass_score`); verdict None, and the error, where the verifier counts it a check error."""
    score, reason, error, verdict = python_outcome(value)
    if error:
        return None, reason
    return verdict_of(score, verdict, pass_score), ""


# Rule kinds evaluated without the verifier's own state (text and tiers rules need it).
_RULES: dict[str, Callable[[Any, World, Sequence[AuditEntry], Transcript], Outcome]] = {
    "field": _field, "records": _records, "called": _called, "forbidden": _forbidden, "order": _order,
    "frame": _frame, "reply_states": _reply, "python": _python,
}
