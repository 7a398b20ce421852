"""The LLM judge a `python` check may ask (`judge: true`): configured in the host, reached from the sandbox by text.

A check that declares `judge: true` runs in the sandbox as any other, with one way out: `ask_host({"system": ...,
"user": ...})` (see `coworkenv.sandbox`). The host answers each request from the configured judge backend (the
same backends as the pipeline: an OpenAI-compatible server such as `vllm serve`, or vLLM offline), at temperature
0, at most JUDGE_MAX_TOKENS tokens (or $COWORKENV_JUDGE_MAX_TOKENS), and gives the check the reply's text. Only texts cross, within `JUDGE_LIMITS` (count, size, time); the check's
own code stays in the sandbox. One verification (every check scored for one episode: `judge_budget`) asks the judge
at most JUDGE_VERIFICATION_ASKS times, for at most JUDGE_VERIFICATION_SECONDS in all, however many judged checks
its spec holds; validate's probes of a spec's Python checks share one such budget, and no judged check runs outside
one. The judge is, in this order: the one of the innermost `judging(backend)` scope, else
$COWORKENV_JUDGE_URL with $COWORKENV_JUDGE_MODEL; with none, a judged check is a check error saying so.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any

from coworkenv.escaping import escape_hidden
from coworkenv.llm import (
    LLMBackend,
    LLMError,
    LLMRequest,
    LLMResponse,
    NoLLMBackend,
    OpenAICompatibleBackend,
    VLLMOfflineBackend,
    backend_from_config,
    display_url,
    run_sync,
)
from coworkenv.sandbox import AskRefused, SandboxLimits
from coworkenv.spec import PythonRule

JUDGE_URL_ENV = "COWORKENV_JUDGE_URL"
JUDGE_MODEL_ENV = "COWORKENV_JUDGE_MODEL"
JUDGE_MAX_TOKENS_ENV = "COWORKENV_JUDGE_MAX_TOKENS"
JUDGE_MAX_TOKENS = 2048  # a judge's answer is a score and a short reason; a request cannot ask for more
# A judged check: the sandbox's usual limits, with room for the episode's text in each request and up to 16 of them.
JUDGE_LIMITS = SandboxLimits(max_asks=16, max_ask_bytes=256 * 2**10, max_answer_bytes=16 * 2**10, ask_seconds=300.0)
# One verification: its judged checks together. Each check's own limits (JUDGE_LIMITS) bound one sandboxed call
# only, so a spec of N judged checks asked N x 16 requests and waited N x 300 s of judge time per episode scored
# (64 requests from 4 checks, measured on main): the verification's budget bounds them together. Claw-Eval's
# judged graders ask once or twice per episode.
JUDGE_VERIFICATION_ASKS = 32
JUDGE_VERIFICATION_SECONDS = 600.0
# A judge request is stopped this long after the seconds the sandbox gave it: the sandbox refuses it first (as any
# handler that overruns), then the request ends instead of waiting on for the server.
_STOP_AFTER_S = 0.5
_LEAST_SECONDS = 0.05  # less left than this is none (no judge answers sooner; what is given back leaves crumbs)
NO_JUDGE = (f"this check asks an LLM judge and none is configured: set ${JUDGE_URL_ENV} (an OpenAI-compatible "
            f"server, e.g. http://127.0.0.1:8000/v1, or vllm-offline) and ${JUDGE_MODEL_ENV}")
_ROLES = ("system", "user")
_log = logging.getLogger(__name__)
_scoped: ContextVar[LLMBackend | None] = ContextVar("coworkenv_judge", default=None)


@dataclass
class JudgeBudget:
    """What one verification may still ask its judge: requests, and seconds of the judge's time. Drawn on from the
    sandbox's handler threads (a request the sandbox stopped waiting for may still run beside the next check's)."""

    asks: int
    seconds: float
    asks_left: int = field(init=False)
    seconds_left: float = field(init=False)
    refusals: int = field(init=False, default=0)  # requests refused because the budget was spent
    _lock: threading.Lock = field(init=False, repr=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.asks < 1 or not self.seconds > 0:
            raise ValueError(f"a judge budget needs at least one request and some time, got {self.asks} requests "
                             f"and {self.seconds!r} s")
        self.asks_left, self.seconds_left = self.asks, self.seconds

    def take(self, seconds: float) -> float:
        """One request that may run for `seconds`: the seconds held for it (AskRefused, saying why, when spent)."""
        with self._lock:
            if self.asks_left <= 0:
                self.refusals += 1
                raise AskRefused(f"this verification's {self.asks} judge requests are spent")
            if self.seconds_left < _LEAST_SECONDS:
                self.refusals += 1
                raise AskRefused(f"this verification's {self.seconds:g}s of judge time are spent")
            held = min(seconds, self.seconds_left)
            self.asks_left -= 1
            self.seconds_left -= held
            return held

    def give_back(self, held: float, used: float) -> None:
        """A request held `held` seconds and ran `used`: what it did not use is the verification's again."""
        with self._lock:
            self.seconds_left += max(0.0, held - used)


_budget: ContextVar[JudgeBudget | None] = ContextVar("coworkenv_judge_budget", default=None)


@contextmanager
def judge_budget(asks: int | None = None, seconds: float | None = None) -> Iterator[JudgeBudget]:
    """Within this scope (one verification), judged checks share one budget of judge requests and time (default
    JUDGE_VERIFICATION_ASKS and JUDGE_VERIFICATION_SECONDS). Inside another such scope it is that scope's budget:
    a verification within a verification asks no more than the outer one allows."""
    outer = _budget.get()
    if outer is not None:
        yield outer
        return
    budget = JudgeBudget(JUDGE_VERIFICATION_ASKS if asks is None else asks,
                         JUDGE_VERIFICATION_SECONDS if seconds is None else seconds)
    token = _budget.set(budget)
    try:
        yield budget
    finally:
        _budget.reset(token)


def current_budget() -> JudgeBudget | None:
    """The budget of the innermost `judge_budget` scope, or None outside any."""
    return _budget.get()


@contextmanager
def judging(backend: LLMBackend) -> Iterator[None]:
    """Within this scope, judged checks ask `backend`."""
    token = _scoped.set(backend)
    try:
        yield
    finally:
        _scoped.reset(token)


def judge_backend(url: str | None, model: str | None) -> LLMBackend | None:
    """The judge backend `url` and `model` name (None for no url or "none"); ValueError for a bad url or no model."""
    if not url or url.strip().lower() == "none":
        return None
    if not (model or "").strip():
        # Named without its credentials (user info, query): this message becomes a check's reason, a dataset row.
        raise ValueError(f"an LLM judge at {display_url(url)!r} needs a model name (--judge-model or "
                         f"${JUDGE_MODEL_ENV})")
    # One request waits at most 2 x 120 s (a retry); the check's ask budget (JUDGE_LIMITS) bounds them together.
    backend = backend_from_config(url, model, max_retries=1, timeout_s=120.0)
    return None if isinstance(backend, NoLLMBackend) else backend


def configured_judge() -> LLMBackend | None:
    """The judge of the innermost `judging` scope, else the one the environment names, else None."""
    scoped = _scoped.get()
    if scoped is not None:
        return scoped
    return _environment_judge(os.environ.get(JUDGE_URL_ENV, ""), os.environ.get(JUDGE_MODEL_ENV, ""))


@functools.lru_cache(maxsize=4)
def _environment_judge(url: str, model: str) -> LLMBackend | None:
    return judge_backend(url, model)


def judge_max_tokens() -> int:
    """The judge's answer length: $COWORKENV_JUDGE_MAX_TOKENS, else JUDGE_MAX_TOKENS; ValueError for a bad value."""
    raw = os.environ.get(JUDGE_MAX_TOKENS_ENV, "").strip()
    if not raw:
        return JUDGE_MAX_TOKENS
    value = int(raw) if raw.isdigit() else 0
    if value < 1:
        raise ValueError(f"${JUDGE_MAX_TOKENS_ENV} is {raw!r}: set it to a positive number of tokens, or unset it "
                         f"for the default {JUDGE_MAX_TOKENS}")
    return value


def judge_asker(backend: LLMBackend, max_tokens: int = JUDGE_MAX_TOKENS,
                budget: JudgeBudget | None = None) -> Callable[[dict[str, str], float], str]:
    """The sandbox's `ask` handler that answers a check's requests from `backend`, drawing on `budget` (the
    verification's, when given: beyond it every request is refused, saying so).

    A request is `{"user": text}` with an optional `{"system": text}`; the host fixes everything else of the
    completion (temperature 0, at most `max_tokens`). A failed completion is refused with its kind only
    (`timeout`, `unavailable`...); the whole reason goes to the host's log.
    """

    def ask(request: dict[str, str], seconds_left: float) -> str:  # the call's budget is the sandbox's to enforce
        unknown = sorted(set(request) - set(_ROLES))
        if unknown or "user" not in request:
            raise AskRefused(f"a judge request is {{'system': text, 'user': text}} ('system' optional), not "
                             f"{sorted(request)}")
        messages = [{"role": role, "content": request[role]} for role in _ROLES if role in request]
        # The sandbox gives this request at most `seconds_left` (`sandbox_options` made that no more than the
        # verification has left): held from the verification's time while it runs, what it did not use given back
        # when it ends, so no later check counts on time a request it stopped waiting for may still be using.
        held = budget.take(seconds_left) if budget is not None else 0.0
        began = time.monotonic()
        try:
            answer = _complete_within(backend, LLMRequest(messages=messages, temperature=0.0, max_tokens=max_tokens),
                                      seconds_left + _STOP_AFTER_S)
        finally:
            if budget is not None:
                budget.give_back(held, time.monotonic() - began)
        if isinstance(answer, LLMError):
            # Its message names the judge's URL, model and retry policy and quotes the server's reply: the host's
            # to know (logged, escaped: the reply may echo the request), not the sandboxed code's.
            _log.warning("a judged check's request failed: %s", escape_hidden(str(answer)))
            raise AskRefused(f"the judge did not answer ({answer.kind})")
        return answer.content or ""

    return ask


def _complete_within(backend: LLMBackend, request: LLMRequest, seconds: float) -> LLMResponse | LLMError:
    """`backend`'s answer to `request`, given at most `seconds` where the backend can be stopped (an OpenAI-compatible
    server: the request, retries included, is cancelled and its connection closed at the deadline).

    The sandbox stops waiting for a handler at the call's deadline but cannot stop its thread: the judge's client went
    on waiting for the server (up to 2 x 120 s), holding the verification's judge seconds and a connection, after the
    call had returned. vLLM offline generates in the host's engine and cannot be stopped midway: it waits for the
    engine and generates only within the seconds (`VLLMOfflineBackend.complete_within`)."""
    if isinstance(backend, VLLMOfflineBackend):
        return backend.complete_within(request, seconds)
    if not isinstance(backend, OpenAICompatibleBackend):
        return backend.complete_batch([request])[0]

    async def bounded() -> LLMResponse | LLMError:
        try:
            return await asyncio.wait_for(backend.complete(request), max(seconds, 0.0))
        except LLMError as exc:
            return exc
        except TimeoutError:
            return LLMError("timeout", f"no answer within the {seconds:.3g}s the sandbox gave the request")
        finally:
            await backend.aclose()

    return run_sync(bounded)


class NoJudge(Exception):
    """A check asks an LLM judge and none is configured, or the environment configures one wrongly."""


def sandbox_options(rule: PythonRule) -> dict[str, Any]:
    """What `run_sandboxed` needs beside the code for this check: for a judged one, the judge channel and its
    limits (NoJudge, saying why, when no judge is configured or its settings are bad); for any other, nothing (the
    default limits, no channel). A judged check runs only within a `judge_budget` scope (RuntimeError otherwise):
    each call alone has its own 16 requests and 300 s, so a caller that made calls outside one (validate's probes,
    one sandboxed call per probe) asked the judge 16 times per call, however many calls."""
    if not rule.judge:
        return {}
    budget = _budget.get()
    if budget is None:
        raise RuntimeError("a judged check asks its judge only within a judge budget: run it inside "
                           "coworkenv.checks.judge.judge_budget() (one per verification, or per set of probes)")
    try:
        judge, max_tokens = configured_judge(), judge_max_tokens()
    except ValueError as exc:  # e.g. $COWORKENV_JUDGE_URL without a model: this check's error, not the run's end
        raise NoJudge(str(exc)) from None
    if judge is None:
        raise NoJudge(NO_JUDGE)
    limits = JUDGE_LIMITS
    if budget.seconds_left < limits.ask_seconds:  # the call may use what the verification has
        limits = replace(limits, ask_seconds=max(budget.seconds_left, _LEAST_SECONDS))
    return {"limits": limits, "ask": judge_asker(judge, max_tokens, budget)}
