"""The verifier's sandboxed runs of one validation, kept so a mutant episode need not repeat a job already seen.

Most of a Python-check spec's sandboxed runs are the mutant episodes the sandbox gate scans for crashes (95 of 122 for
a python_messages_table spec), and a mutant often changes only what a check does not read: a write to an app outside
its `apps`, an argument in the audit of a check that reads the state alone, a reply a state check never looks at. Its
run is then the job the check already ran: the same code, the same setup, the same parts it reads (`job_reads`, the
gates' reading of the entrypoint: a part it cannot tell is read counts as read) and, of the state, the same values
below the paths it reads (`state["apps"]["mail"]["messages"]`, `state["clock"]`: constant keys taken from the
`state` parameter; the whole state wherever the code hands it on, aliases, iterates or writes it, takes a key it
builds, or names introspection, the garbage collector or a globals dict). Most mutants move the clock (each call is
a tick) or write a table a check never looks at: keyed on the whole state, a check over one table ran again for each
(a fifth of a Python-check validation's runs; see docs/testing.md, "Where the suite's time goes").

A run is not a pure function of its job where the check draws on randomness, the clock or the machine: that is what
the probes look for. So an earlier run stands in for a mutant's only
- for a check whose probes found nothing (no nondeterminism, clock dependence, cost near the limit, no finding at all:
  `RunMemo.trust`, set once they ran), never a judged one (its judge is an LLM);
- where that earlier run returned (a crash or a stopped run is never reused: the mutant runs it again);
- where every run of the same job so far gave the same outcome (two runs of the reference, or a mutant and the
  reference, that disagree make the check untrusted for the rest of the validation);
and only in mutant episodes (`SpecEpisodes.mutant`): the reference's second run and the probes are reruns on purpose.
Every other episode of the validation (initial state, reference, noop, mutants) records its runs.

The runs of the mutant episodes are started ahead (`SpecEpisodes.play_ahead`): a sandboxed run spends most of its
wall clock waiting on the kernel (namespaces, cgroups, the child's start and removal: ~117 ms a run here against
~32 ms of CPU), so a dry pass plays the mutants first, starting each run a mutant's checks will ask for on a few
threads (`AHEAD_WIDTH`, each run its own sandboxed child as ever: the sandbox keeps concurrent runs apart), and the
pass that counts takes each run's result for its exact job (code, entrypoint, the whole payload, the setup), once:
every run the verifier reads is still a run of its own, and one the dry pass did not start runs then. A run started
ahead that no episode takes (a dry pass that went another way) is dropped.
"""

from __future__ import annotations

import contextvars
import copy
import hashlib
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import orjson

from coworkenv.spec import PythonRule
from coworkenv.validate._check_reads import job_reads

Outcome = tuple[float, str, bool, bool | None]
_PARTS = ("state", "audit", "messages")
# Runs started ahead at once: a run waits on the kernel for most of its wall clock (three at once took 52 ms a run,
# one at a time 117 ms, on two busy cores), and each is a child of its own.
AHEAD_WIDTH = 3


class RunMemo:
    """The outcomes of one validation's sandboxed runs by job (`get`/`put`, the verifier's `python_runs`)."""

    def __init__(self) -> None:
        self._outcomes: dict[bytes, Outcome] = {}
        self.trusted: frozenset[str] = frozenset()  # check code whose runs may stand in for each other
        self._untrusted: set[str] = set()  # code two runs of one job answered differently for
        self.replaying = False  # set while a mutant episode plays: only then is a run reused
        self.reused = 0
        self.collecting = False  # set while a dry pass plays the mutants ahead: runs are started, not waited for
        self._ahead: dict[bytes, list[Future[Any]]] = {}  # exact job -> runs started ahead, not yet taken
        self._ahead_jobs: set[bytes] = set()  # the jobs (`_job`) the dry pass started, for the runs `get` would spare
        self._pool: ThreadPoolExecutor | None = None
        self.taken = 0

    def trust(self, codes: set[str]) -> None:
        """The code of the checks the probes found nothing in (only these runs are reused)."""
        self.trusted = frozenset(codes)

    def get(self, rule: PythonRule, payload: dict[str, Any]) -> Outcome | None:
        """The outcome of an earlier run of the same job, where one may stand in for this run (None: run it)."""
        if not self.replaying or rule.judge or rule.code not in self.trusted or rule.code in self._untrusted:
            return None
        key = _job(rule, payload)
        found = self._outcomes.get(key) if key is not None else None
        if found is not None:
            self.reused += 1
        return found

    def start(self, rule: PythonRule, payload: dict[str, Any], prelude: str, run: Any, *, handed: bool = False) -> None:
        """In a dry pass: start `run(payload)` (the sandboxed run of this exact job, on a copy of the payload taken
        now) on the pool, unless the pass that counts will not run it (a trusted check's job already started once:
        `get` answers its repeat from the first). `handed`: the caller built the payload for this run alone and
        keeps no reference to any part of it (the verifier's, made afresh from the world, the audit and the replies),
        so the run is handed it as it is: the deep copy was a fifth of a Python-check validation's host CPU."""
        if rule.judge:
            return
        job = _job(rule, payload) if self.replaying and rule.code in self.trusted and rule.code not in self._untrusted \
            else None
        if job is not None:
            if job in self._ahead_jobs:
                return
            self._ahead_jobs.add(job)
        key = _exact(rule, payload, prelude)
        if key is None:
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(AHEAD_WIDTH, thread_name_prefix="sandbox-ahead")
        # in a copy of this context: the layers a run must have (`requiring_layers`, a context variable) are the
        # caller's, as for a run made here
        self._ahead.setdefault(key, []).append(self._pool.submit(contextvars.copy_context().run, run,
                                                                 payload if handed else copy.deepcopy(payload)))

    def take(self, rule: PythonRule, payload: dict[str, Any], prelude: str) -> Any:
        """The result of a run of this exact job started ahead (waited for), or None: run it now."""
        if not self._ahead or rule.judge:
            return None
        key = _exact(rule, payload, prelude)
        started = self._ahead.get(key) if key is not None else None
        if key is None or not started:
            return None
        future = started.pop(0)
        if not started:
            del self._ahead[key]
        self.taken += 1
        return future.result()

    def drop_ahead(self) -> None:
        """Drop the runs started ahead that no episode took (those not begun are cancelled; the threads end)."""
        pool, self._pool = self._pool, None
        self._ahead.clear()
        self._ahead_jobs.clear()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def put(self, rule: PythonRule, payload: dict[str, Any], outcome: Outcome) -> None:
        """A run that returned; a job whose runs disagree makes its check untrusted."""
        if rule.judge:
            return
        key = _job(rule, payload)
        if key is None:
            return
        seen = self._outcomes.setdefault(key, outcome)
        if seen != outcome:
            self._untrusted.add(rule.code)


def _job(rule: PythonRule, payload: dict[str, Any]) -> bytes | None:
    """What a run of the check can tell apart: its code and entrypoint, and the parts of the payload it reads (in
    their order: a check iterating a dict sees it); None where they do not serialise (a number past 64 bits)."""
    read, paths = job_reads(rule.code, rule.entrypoint)
    parts = [payload.get(p) if p in read else None for p in _PARTS]
    if paths is not None:  # of the state, only what lies below the paths the check reads (each found or not)
        parts[0] = [[list(path), *_below(payload.get("state"), path)] for path in sorted(paths)]
    try:
        text = orjson.dumps([rule.code, rule.entrypoint, parts])
    except orjson.JSONEncodeError:
        return None
    return hashlib.blake2b(text, digest_size=20).digest()


def _below(value: Any, path: tuple[str, ...]) -> list[Any]:
    """`[1, what lies at path]` in the state; `[0, k]` where its k-th key is missing, `[2, k, value]` where the
    value the k-th key is taken from is no dict (a check sees either: a default, or which key raised)."""
    for k, key in enumerate(path):
        if not isinstance(value, dict):
            return [2, k, value]
        if key not in value:
            return [0, k]
        value = value[key]
    return [1, value]


def _exact(rule: PythonRule, payload: dict[str, Any], prelude: str) -> bytes | None:
    """The whole job of a run: its code, entrypoint, payload (in its order) and setup; None where it does not
    serialise."""
    try:
        text = orjson.dumps([rule.code, rule.entrypoint, payload, prelude])
    except orjson.JSONEncodeError:
        return None
    return hashlib.blake2b(text, digest_size=20).digest()
