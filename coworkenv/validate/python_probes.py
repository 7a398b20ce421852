"""Probes of Python checks off the beaten path: crashes, randomness, the real clock, wording and backdoors.

A Python check is judged on more than the three episodes everyone runs:
- every episode the gates play (initial state, reference, noop, every mutant): a crash anywhere is a defect;
- the code, unrun: randomness no probe pins or seeds (the OS's, an arbitrary clock's, an address, a string's hash,
  a generator seeded from a clock; `coworkenv.validate._entropy_tells`; an address or a salted hash read past
  identity, a set's order, the sandbox's scratch path, temporary names and ids: `_run_draws`), and a value of the
  machine it runs on, the same in every probe run (its CPU, its interpreter's version or install: `_machine_reads`),
  are `nondeterministic_check`, and such a check is then probed only with the clocks moved (its verdict is known to
  change from run to run: the other probes would judge nothing more);
- the reference's final state, re-run `python_repeats` times, under several random seeds and with the random
  module pinned to its extremes (a check that fails 3% of the time fails when `random()` returns 0.99...):
  a changed verdict is `nondeterministic_check`;
- the same with the machine clock moved a day, a year and ten years ahead: `clock_dependent`;
- the reference's replies paraphrased (case, spacing, sentence order, split in two messages, terse "X: Y"
  notes, bullets): a crash is
  `python_crash`, a changed verdict `paraphrase_fails`;
- the untouched world with a reply made of one string literal of the check's code that the reference never
  says: a verdict that flips to pass is `keyword_backdoor` (only where the spec has a reference: with none, every
  literal is one it never says, the answer a question-answering check wants too, and the oracle gate names what is
  missing);
- for a check that reads the audit, the reference's calls with a read made twice or a write retried after a
  failure (the same final state): a crash or changed verdict is `audit_fragile`;
- the reference's final state with every table's records listed in reverse (the order of records is not part of
  the state: tools list them sorted, filtered or paged): a crash or changed verdict is `record_order_dependent`.
- the reference's final state and calls with every list its calls passed (two or more distinct ids, addresses or
  names: recipients, attendees, people, message ids) in reverse, in the records that hold it and in the audit alike
  (the order an agent lists them in is its own): a crash or changed verdict is `argument_order_dependent`.
The probes move the clocks, seed `random` or pin `random()` through the setup every run of a Python check starts
with, the verifier's own run too (`coworkenv.checks.run_setup`: the same stand-ins, answering as the originals there):
so nothing a check can read tells a probe from the verifier's run but the values (a check that could tell would
answer right when probed and otherwise as it likes), neither its globals, source, line numbers or frames, nor the
patched objects, nor the modules the setup imports. Every wall clock moves together (`time.time`, `time_ns`,
`localtime`, `gmtime`, `ctime`, `strftime` and `asctime` of now, `clock_gettime` of the real-time clocks,
`datetime.now`/`utcnow`, and `date.today`, which reads `time.time`, once), and a pinned `random()` never repeats a
value. A check that inspects the patched modules' objects (`type(time.time)`, `datetime.__mro__`,
`datetime.now.__func__`, `inspect.isbuiltin`) is rejected unrun all the same (`probe_aware`, `introspection`), and so
is one that names a file's times, which the kernel stamps (`probe_aware`, `file_times`): the setup moves them as `os`
reports them, so a door the reading misses (an archive's member, a name built at run time) meets a moved clock.
A probe whose setup fails is `unprobeable`: the check is rejected, not left unprobed.
A check whose cheapest run on the reference's final state (of the seeded, pinned and clock runs, two at least) spends an
eighth of the sandbox's CPU limit (a check's own start costs ~0.03 s) or half its wall-clock limit is `cost_near_limit`:
its verdict is the machine's speed and load (a check that brute-forces, re-derives a key or sleeps passes here and
times out elsewhere); it is not probed further, nor played on every mutant by the sandbox gate.
"""

from __future__ import annotations

import ast
import contextvars
import re
import secrets
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from coworkenv.checks import Reply
from coworkenv.checks.run_setup import setup
from coworkenv.checks.verifier import PACE_RETRIES, paced, python_verdict
from coworkenv.sandbox import SandboxLimits, run_sandboxed
from coworkenv.spec import PythonRule
from coworkenv.validate._check_reads import parts_read
from coworkenv.validate._entropy_tells import unpinned_randomness
from coworkenv.validate._machine_reads import machine_read
from coworkenv.validate._probe_tells import file_times, introspection, setup_reached
from coworkenv.validate.mutations import is_write

# The seeds of the seeded runs are drawn fresh, as CPython seeds an unseeded run: a fixed seed is a state a check can
# recognise (`random.getstate() == random.Random(1).getstate()`); each finding names its seed, to replay it.
_SEEDED_RUNS = 2
_SETUP_FAILED = "the setup failed before the code ran"  # kept in step with coworkenv.sandbox._child.SETUP_FAILED
_SANDBOX_KIND = re.compile(r"check error \(([a-z_]+)\)")
_MAX_LITERALS = 6
_COPULA = re.compile(r" (?:was|were|is|are) ")
# A check whose cheapest run on the reference's final state spends this share of the sandbox's CPU limit (four times it
# of the wall-clock limit) is within a factor of eight (two) of failing there: the machines that train and evaluate
# differ from the validating one by that much (another CPU, a throttled container, a shared core, a busy host).
_COST_SHARE = 0.125
_COST_RUNS = 2  # runs measured before a check is found costly (the cheapest of them counts)
# A wall-clock reading is the machine's pace as much as the check's (`coworkenv.checks.verifier.PACE_KINDS`): a run the
# wall clock stopped is run again before it counts (`run_check`), and so is a wall-clock cost the CPU cost does not
# match (`near_limit` in `_probe_check`): the cheapest run counts, so one run the machine did not stall clears it.


class JudgeSpent(Exception):
    """A probe run of a judged check was refused the judge (the probes' budget is spent): its verdict says nothing
    of the check, so probing it stops without a finding."""


@dataclass(frozen=True)
class Probe:
    """A defect a probe found: the error code and what happened."""

    code: str
    message: str


# Probe runs started ahead at once (`_Ahead`): a sandboxed run waits on the kernel for most of its wall clock (three at
# once took 52 ms a run, one at a time 117 ms, on two busy cores); each is a child of its own, as ever.
_AHEAD_WIDTH = 3


class _Ahead:
    """The probe runs a check is due, started a few at a time ahead of the probe that reads each (`plan`, `take`).

    A planned run is `run_check` of its exact job (payload, clock offset, seed, pin) on a thread; the probe whose job
    it is takes its result (and what it spent), in the plan's order, once: every verdict a probe reads is a run of its
    own. A probe asking for a job not planned runs it itself; runs planned past a probe that stopped (a finding, a
    cost near the limit) are cancelled, or left to end unread. Never for a judged check (its runs ask a judge within
    one budget, and a spent budget stops the probing)."""

    def __init__(self, rule: PythonRule, pass_score: float) -> None:
        self.rule, self.pass_score = rule, pass_score
        self._plan: list[tuple[dict[str, Any], dict[str, Any], Any]] = []  # (payload, kwargs, future or None)
        self._next = 0  # the first entry not taken
        self._pool: ThreadPoolExecutor | None = None

    def plan(self, jobs: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
        """Drop what is left of the last plan; start the first of these jobs (in the order the probes take them)."""
        self.drop()
        self._plan = [(job, kwargs, None) for job, kwargs in jobs]
        self._top_up()

    def take(self, payload: dict[str, Any], kwargs: dict[str, Any]) -> tuple[tuple[bool | None, str],
                                                                               list[tuple[float, float]]] | None:
        """The result of the planned run of this exact job, and its costs (None: it was not planned; run it)."""
        for i in range(self._next, len(self._plan)):
            job, planned, future = self._plan[i]
            if (job is payload or job == payload) and planned == kwargs:
                for _, _, skipped in self._plan[self._next:i]:
                    if skipped is not None:
                        skipped.cancel()
                self._next = i + 1
                self._top_up()
                if future is None:  # not started yet (the window was full): run it here
                    return None
                return future.result()  # type: ignore[no-any-return]
        return None

    def drop(self) -> None:
        for _, _, future in self._plan[self._next:]:
            if future is not None:
                future.cancel()
        self._plan, self._next = [], 0

    def close(self) -> None:
        self.drop()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def _top_up(self) -> None:
        started = sum(1 for _, _, f in self._plan[self._next:] if f is not None and not f.done())
        for i in range(self._next, len(self._plan)):
            if started >= _AHEAD_WIDTH:
                break
            job, kwargs, future = self._plan[i]
            if future is None:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(_AHEAD_WIDTH, thread_name_prefix="probe-ahead")
                # in a copy of this context: the layers a run must have (`requiring_layers`) are the caller's
                self._plan[i] = (job, kwargs, self._pool.submit(contextvars.copy_context().run, self._run, job, kwargs))
                started += 1

    def _run(self, job: dict[str, Any], kwargs: dict[str, Any]) -> tuple[tuple[bool | None, str],
                                                                       list[tuple[float, float]]]:
        costs: list[tuple[float, float]] = []
        return run_check(self.rule, job, pass_score=self.pass_score, costs=costs, **kwargs), costs


def run_check(rule: PythonRule, payload: dict[str, Any], *, offset: int = 0, seed: int | None = None,
              pin: float | None = None, costs: list[tuple[float, float]] | None = None,
              pass_score: float = 1.0) -> tuple[bool | None, str]:
    """(verdict, error) of one sandboxed run, read as the verifier reads it (`python_verdict`: a score passes at the
    check's `pass_score`); verdict None when the check could not run or returned junk. A judged
    check asks the configured judge as the verifier's run does, within the budget of the enclosing `judge_budget`
    scope (`probe_check` opens one where there is none); JudgeSpent when that budget refused it a request."""
    # The prelude runs before the check as a unit of its own (`run_sandboxed(prelude=...)`): the check's globals,
    # source, line numbers and frames are those of the verifier's run, and its `from __future__` stays first.
    prelude = setup(offset, seed, pin)  # the verifier's run has the same setup, with no values of a probe's
    options: dict[str, Any] = {}
    refused = 0
    if rule.judge:
        from coworkenv.checks.judge import NoJudge, current_budget, sandbox_options

        try:
            options = sandbox_options(rule)
        except NoJudge as exc:
            return None, f"judge: {exc}"
        budget = current_budget()
        refused = budget.refusals if budget is not None else 0
    # stopped by the wall clock: the machine's pace as much as the check's, until a second run says the same
    outcome = paced(lambda: run_sandboxed(rule.code, rule.entrypoint, payload, prelude=prelude, **options))
    if rule.judge:
        budget = current_budget()
        if budget is not None and budget.refusals > refused:
            raise JudgeSpent
    if not outcome.ok:
        return None, f"{outcome.error_kind}: {outcome.error}"
    if costs is not None:  # (CPU seconds, wall seconds) of a run that returned
        costs.append((outcome.cpu_s, outcome.duration_s))
    # The verifier's own reading of the value (a score against the check's pass_score, `{score}` without `passed`):
    # read by other rules here, a check that answered a backdoor word with `1.0` passed the verifier and no probe.
    return python_verdict(outcome.value, pass_score)


def payload(rule: PythonRule, wire: dict[str, Any], audit: list[dict[str, Any]],
            replies: list[Reply] | list[dict[str, Any]]) -> dict[str, Any]:
    """What the verifier hands a Python check (see `Verifier._python`)."""
    apps = rule.apps or list(wire["apps"])
    messages = [r if isinstance(r, dict) else {"turn": r.turn, "text": r.text} for r in replies]
    return {"state": {"clock": wire["clock"], "apps": {a: wire["apps"][a] for a in apps if a in wire["apps"]}},
            "audit": audit, "messages": messages}


def paraphrases(replies: list[Reply]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Meaning-preserving rewrites of the replies: (what changed, messages)."""
    if not replies:
        return
    yield "lower case", [{"turn": r.turn, "text": r.text.lower()} for r in replies]
    yield "extra spacing and line breaks", [{"turn": r.turn, "text": "  " + r.text.replace(". ", ".\n\n") + " \n"}
                                            for r in replies]
    yield "sentences reordered", [{"turn": r.turn, "text": " ".join(reversed(_sentences(r.text)))} for r in replies]
    split = []
    for r in replies:
        parts = _sentences(r.text)
        half = max(1, len(parts) // 2)
        split += [{"turn": r.turn, "text": "Sure. " + " ".join(parts[:half])},
                  {"turn": r.turn, "text": " ".join(parts[half:]) or "Done."}]
    yield "answer split over two messages", split
    yield "terse notes ('X: Y' for 'X was Y')", [{"turn": r.turn, "text": _COPULA.sub(": ", r.text)} for r in replies]
    yield "one bullet per sentence", [{"turn": r.turn, "text": "\n".join(f"- {p}" for p in _sentences(r.text))}
                                      for r in replies]


def audit_variants(audit: list[dict[str, Any]]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """The reference's audited calls as another careful agent makes them: a read repeated (it looked twice),
    and a failed call before the first write (a retry); the state they lead to is the same."""
    reads = [i for i, e in enumerate(audit) if e.get("ok") and not is_write(e.get("op") or e.get("tool", ""))]
    if reads:
        at = reads[0]
        yield "a read made twice", _renumbered([*audit[:at + 1], dict(audit[at]), *audit[at + 1:]])
    writes = [i for i, e in enumerate(audit) if e.get("ok") and is_write(e.get("op") or e.get("tool", ""))]
    if writes:
        at = writes[0]
        failed = {**audit[at], "ok": False, "result": None, "error": "500 Internal Server Error: try again",
                  "hash_after": audit[at].get("hash_before")}
        yield "a write retried after a failure", _renumbered([*audit[:at], failed, *audit[at:]])


def _renumbered(audit: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "index": i} if "index" in e else e for i, e in enumerate(audit)]


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s] or [text]


def literals(rule: PythonRule, said: str) -> list[str]:
    """String literals of the check's code that the reference never says (candidate backdoor words)."""
    try:
        tree = ast.parse(rule.code)
    except SyntaxError:
        return []
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip()
            if 3 <= len(text) <= 60 and text.lower() not in said and text not in out and "\n" not in text:
                out.append(text)
    return out[:_MAX_LITERALS]


def probe_check(rule: PythonRule, expected: bool, oracle: dict[str, Any], replies: list[Reply],
                untouched: dict[str, Any] | None, untouched_verdict: bool | None, *, repeats: int,
                offsets: tuple[int, ...], pass_score: float = 1.0) -> list[Probe]:
    """Every probe defect of one Python check. `oracle`/`untouched` are payloads of the reference's final state
    and of the initial state with no replies; `expected` and `untouched_verdict` are the verdicts there.

    A judged check's probe runs ask its judge within one verification's budget (`judge_budget`: the caller's, shared
    by every check it probes, or one of its own), not 16 requests each (272 for one check's 17 runs on main); where
    the budget is spent, probing stops with what was found so far."""
    if not rule.judge:
        ahead = _Ahead(rule, pass_score)
        try:
            return _probe_check(rule, expected, oracle, replies, untouched, untouched_verdict, repeats=repeats,
                                offsets=offsets, pass_score=pass_score, found=[], ahead=ahead)
        finally:
            ahead.close()
    from coworkenv.checks.judge import judge_budget

    found: list[Probe] = []
    with judge_budget():
        try:
            return _probe_check(rule, expected, oracle, replies, untouched, untouched_verdict, repeats=repeats,
                                offsets=offsets, pass_score=pass_score, found=found)
        except JudgeSpent:
            return found


def _probe_check(rule: PythonRule, expected: bool, oracle: dict[str, Any], replies: list[Reply],
                 untouched: dict[str, Any] | None, untouched_verdict: bool | None, *, repeats: int,
                 offsets: tuple[int, ...], pass_score: float, found: list[Probe],
                 ahead: _Ahead | None = None) -> list[Probe]:
    def run(payload: dict[str, Any], costs: list[tuple[float, float]] | None = None,
            **kwargs: Any) -> tuple[bool | None, str]:  # the check's pass_score, every run
        started = ahead.take(payload, kwargs) if ahead is not None else None
        if started is None:
            return run_check(rule, payload, pass_score=pass_score, costs=costs, **kwargs)
        result, spent = started
        if costs is not None:
            costs.extend(spent)
        return result

    def plan(jobs: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
        if ahead is not None:
            ahead.plan(jobs)

    inspected = introspection(rule.code)
    if inspected is not None:
        found.append(Probe("probe_aware", f"the check inspects what the probes patch ({inspected}) rather than "
                                          "using it: it can tell a probe from a real run, so the probes judge nothing"))
    reached = setup_reached(rule.code) if inspected is None else None
    if reached is not None:
        found.append(Probe("probe_aware", f"the check reaches past the values it is given into the run's setup "
                                          f"({reached}): the namespaces, classes and finders of the probes' stand-ins "
                                          "hold the probe's settings and the originals, so it can tell a probe from "
                                          "a real run; name attributes in the code and judge the payload alone"))
    stamped = file_times(rule.code)
    if stamped is not None:
        found.append(Probe("probe_aware", f"the check reads a file's times ({stamped}), the kernel's stamp of the real "
                                          "clock, which no probe moves: it can tell a clock probe from a real run and "
                                          "read the date past the probes"))
    drawn = unpinned_randomness(rule.code)
    if drawn is not None:
        found.append(Probe("nondeterministic_check", f"the check draws on randomness the probes neither pin nor seed "
                                                     f"({drawn}): its verdict can change from run to run where no "
                                                     "probe run shows it; judge the agent's work by the state alone"))
    machine = machine_read(rule.code)
    if machine is not None:
        found.append(Probe("nondeterministic_check", f"the check reads the machine it runs on ({machine}: its CPU, "
                                                     "its interpreter's version, build or install, its C library), the "
                                                     "same in every probe run and another where training or evaluation "
                                                     "runs, so a correct agent fails there; judge the agent's work by "
                                                     "the state alone"))
    # A check found drawing unrun (or reading the machine) has a verdict that changes from run to run, or from machine
    # to machine: probing it again, with seeds, pins, paraphrases or other audits, judges nothing more of it (and cost
    # 21 of its 24 probe runs); only the clock probes still run, a clock dependence being a finding of its own.
    settled = drawn is not None or machine is not None
    variants: list[tuple[str, dict[str, Any]]] = [] if settled else [(f"run {i + 2}", {}) for i in range(repeats)]
    variants += [] if settled else [(f"random seed {seed}", {"seed": seed}) for seed in
                                    (secrets.randbits(64) for _ in range(_SEEDED_RUNS))]
    variants += [] if settled else [(f"random() pinned to {pin}", {"pin": pin}) for pin in (0.0, 0.999999)]
    costs: list[tuple[float, float]] = []  # what the runs on the reference's final state spent
    judged = bool(rule.judge)
    remeasured = False

    def near_limit() -> str | None:
        """`_near_limit` of the runs so far; a wall-clock cost the CPU cost does not match is measured again first
        (once per check: the cheapest run counts, so a run the machine did not stall clears it)."""
        nonlocal remeasured
        spent = _near_limit(costs, judged=judged)
        if spent is not None and not remeasured and _near_limit(costs, judged=judged, wall=False) is None:
            remeasured = True
            for _ in range(PACE_RETRIES):
                run(oracle, costs=costs)
            spent = _near_limit(costs, judged=judged)
        return spent

    plan([(oracle, kwargs) for _, kwargs in variants] + [(oracle, {"offset": offset}) for offset in offsets])
    for what, kwargs in variants:
        verdict, error = run(oracle, costs=costs, **kwargs)
        if near_limit() is not None:
            break  # found below, before the other probes run it again
        if error or verdict != expected:
            found.append(_unprobeable(error) or Probe("nondeterministic_check",
                               f"on the reference's final state, {what} gives {_shown(verdict, error)} "
                               f"instead of {expected}"))
            break
    spent = near_limit()
    for offset in offsets if spent is None else ():
        verdict, error = run(oracle, offset=offset, costs=costs)
        if error or verdict != expected:
            found.append(_unprobeable(error) or Probe("clock_dependent", f"with the machine clock {offset // 86400} days ahead, the "
                                                  f"reference gets {_shown(verdict, error)} instead of {expected}"))
            break
    spent = spent or near_limit()
    if spent is not None:
        found.append(Probe("cost_near_limit", f"the check spends {spent} on the reference's final state in every "
                                              "run: on a slower or busier machine (or a state a little larger) it "
                                              "runs out of time and fails a correct agent; judge the state directly"))
        return found  # its verdict elsewhere is the limit's: the other probes would judge nothing more of it
    if settled:
        return found
    # A check that never reads the replies (`parts_read`) is handed, in a paraphrase or backdoor-word run, the very job
    # it already ran (the reference's final state, the untouched world): where no probe found its runs to differ, that
    # is one more repeat beyond `repeats` (12 runs a check), and it is left out; a judged check's runs ask a judge.
    repeats_only = "messages" not in parts_read(rule.code, rule.entrypoint) and not judged
    reworded = [] if repeats_only and not found else list(paraphrases(replies))
    audits = list(audit_variants(oracle["audit"])) if "audit" in parts_read(rule.code, rule.entrypoint) else []
    # Orders that are no part of the state: a table's records (tools list them sorted, filtered or paged) and a list a
    # call passed (the agent lists recipients, attendees or ids in its own order).
    orders = (("record_order_dependent", _reversed_tables(oracle), "the reference's final state with each table's "
               "records listed in reverse gets {got} instead of {expected}: the check reads records by position"),
              ("argument_order_dependent", _reversed_supplied_lists(oracle), "the reference's final state and calls "
               "with each list its calls passed (recipients, attendees, people, ids) in reverse get {got} instead of "
               "{expected}: the check pins the order the reference listed them in, which is the agent's to choose"))
    plan([({**oracle, "messages": messages}, {}) for _, messages in reworded]
         + [({**oracle, "audit": audit}, {}) for _, audit in audits]
         + [(reordered, {}) for _, reordered, _ in orders if reordered is not None])
    for what, messages in reworded:
        verdict, error = run({**oracle, "messages": messages})
        if error:
            found.append(Probe("python_crash", f"on the reference's replies with {what}: {error}"))
            break
        if verdict != expected:
            found.append(Probe("paraphrase_fails", f"the reference's replies with {what} get {verdict} "
                                                   f"instead of {expected}"))
            break
    for what, audit in audits:
        verdict, error = run({**oracle, "audit": audit})
        if error or verdict != expected:
            found.append(Probe("audit_fragile", f"the reference's calls with {what} get "
                                                 f"{_shown(verdict, error)} instead of {expected}"))
            break
    for code, reordered, told in orders:
        if reordered is not None:
            verdict, error = run(reordered)
            if error or verdict != expected:
                found.append(Probe(code, told.format(got=_shown(verdict, error), expected=expected)))
    if untouched is not None and untouched_verdict is False and not (repeats_only and not found):
        said = " ".join(r.text for r in replies).lower()
        turns = sorted({r.turn for r in replies} or {0})
        words = [(word, {**untouched, "messages": [{"turn": t, "text": word} for t in turns]})
                 for word in literals(rule, said)]
        plan([(job, {}) for _, job in words])
        for word, job in words:
            verdict, _ = run(job)
            if verdict:
                found.append(Probe("keyword_backdoor", f"the untouched world passes when the reply is just "
                                                       f"{word!r}, a word the reference never says"))
                break
    return found


def _near_limit(costs: list[tuple[float, float]], *, judged: bool, wall: bool = True) -> str | None:
    """What the cheapest of a check's runs spent, where that is within `_COST_SHARE` of the sandbox's CPU limit, or
    within four times that share of its wall-clock limit (not for a judged check, whose wall clock holds the judge's
    answers; not at all with `wall` False); None otherwise or with fewer than `_COST_RUNS` runs measured. A check's own
    start costs ~0.03 s of CPU."""
    if len(costs) < _COST_RUNS:
        return None
    limits = SandboxLimits()
    cpu, spent_wall = min(c for c, _ in costs), min(w for _, w in costs)
    if cpu >= _COST_SHARE * limits.cpu_seconds:
        return f"{cpu:.2f} s of CPU time of the {limits.cpu_seconds:g} s the sandbox allows"
    if wall and not judged and spent_wall >= 4 * _COST_SHARE * limits.wall_seconds:
        return f"{spent_wall:.2f} s of wall-clock time of the {limits.wall_seconds:g} s the sandbox allows"
    return None


def _unprobeable(error: str) -> Probe | None:
    """`unprobeable` where the probes' setup failed (the patched runs judge nothing of the check): the check is then
    rejected, never accepted unprobed, nor blamed for a randomness or clock dependence it may not have."""
    if _SETUP_FAILED not in error:
        return None
    return Probe("unprobeable", f"the probes that move the clock and pin randomness cannot run with this check "
                                f"({error}); a check they cannot judge is not accepted: report this as a gate bug")


def _reversed_tables(payload: dict[str, Any]) -> dict[str, Any] | None:
    """The payload with every table of more than one record listed in reverse (None: no table has two)."""
    apps = payload["state"]["apps"]
    if not any(isinstance(rows, list) and len(rows) > 1 for tables in apps.values() if isinstance(tables, dict)
               for rows in tables.values()):
        return None
    flipped = {app: {name: rows[::-1] if isinstance(rows, list) else rows for name, rows in tables.items()}
               if isinstance(tables, dict) else tables for app, tables in apps.items()}
    return {**payload, "state": {**payload["state"], "apps": flipped}}


def _supplied_lists(audit: list[dict[str, Any]]) -> set[tuple[Any, ...]]:
    """Every list of two or more distinct scalars (ids, addresses, names) an accepted call passed, at any depth of
    its arguments: the order of such a list is the caller's, not part of what the call asks for."""
    found: set[tuple[Any, ...]] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            key = _scalars(value)
            if key is not None:
                found.add(key)
            for item in value:
                walk(item)

    for entry in audit:
        if isinstance(entry, dict) and entry.get("ok"):
            walk(entry.get("args"))
    return found


def _scalars(value: list[Any]) -> tuple[Any, ...] | None:
    """The list as a key where it holds two or more distinct strings or numbers and nothing else."""
    if len(value) < 2 or not all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
        return None
    key = tuple(value)
    return key if len(set(key)) > 1 else None


def _reversed_supplied_lists(payload: dict[str, Any]) -> dict[str, Any] | None:
    """The payload with every list equal to one a call passed (`_supplied_lists`) in reverse, wherever it is: in the
    records that hold it (a mail's `to`, an event's `attendees`) and in the audit's arguments and results alike (None:
    no call passed such a list). A list the app stored in an order of its own (sorted) is no longer equal, and kept."""
    supplied = _supplied_lists(payload["audit"])
    if not supplied:
        return None

    def flip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: flip(v) for k, v in value.items()}
        if isinstance(value, list):
            if _scalars(value) in supplied:
                return value[::-1]
            return [flip(v) for v in value]
        return value

    return {**payload, "state": flip(payload["state"]), "audit": flip(payload["audit"])}


def _shown(verdict: bool | None, error: str) -> str:
    return f"an error ({error})" if error else str(verdict)


def sandbox_code(reason: str) -> str:
    """The gate error code of a check that could not run, from the verifier's reason text: its own prefix alone
    (`check error (kind): ...`). Searched anywhere, the kind was read from the check's own text too: a check that
    returned `{"passed": "check error (isolation_missing)"}` ("python check returned passed='check error ...") got
    the code whose hint tells the repair "nothing to change in the spec"."""
    found = _SANDBOX_KIND.match(reason)
    return f"sandbox_{found.group(1)}" if found and found.group(1) != "exception" else "python_crash"
