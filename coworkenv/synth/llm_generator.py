"""LLMSpecGenerator: an LLM writes new environment specs for a capability, and revises them from gate reports.

Requests go through the `LLMBackend` interface with the EnvSpec JSON Schema as structured output, so a
backend that supports constrained decoding (vLLM, OpenAI) can only answer with schema-shaped JSON. Prompts
are pure functions of their inputs (capability, exemplars, seed, payload, report), so a cached backend
answers a re-run without new requests.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import Any, Protocol

import orjson

from coworkenv.apps import TOOLS
from coworkenv.llm import LLMBackend, LLMError, LLMRequest, LLMResponse, LLMStats
from coworkenv.spec import EnvSpec, envspec_json_schema
from coworkenv.validate.repair import Candidate

_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*)\n\s*```\s*$", re.DOTALL)

SYSTEM_PROMPT = """\
You design training environments for AI coworkers. An environment is one JSON object following the EnvSpec
schema: a simulated workplace (world.apps), the tools the agent may use, the user's turns, optional dynamics,
checks that verify the outcome, and a reference solution (one list of steps per user turn).

Rules every environment must follow:
1. Everything the turns, checks and reference name (people, ids, services, files, channels) exists in
   world.apps, or is created by the reference or by dynamics.
2. The reference calls only tools listed in `tools`, with valid arguments, and passes every check.
3. Checks verify the result: state (field, records), actions (called, order, forbidden) and values the reply
   must state (reply_states). Doing nothing must fail a required check, and so must every near miss: a
   missing write, a wrong value or id, a wrong recipient, the wrong order, stopping before the last turn.
4. Nothing the agent can read (records, context, user turns) reveals the checks or the reference.
5. Multi-turn: follow-up turns may change the state first (changes), announced or silently.

Workplace tools (name [read|write](arguments): what it does):
{tools}

Answer with the JSON object only."""


class CapabilityLike(Protocol):
    """What the generator needs of a capability (coworkenv.synth.Capability has it)."""

    # Read-only members, so a frozen model with narrower types (e.g. a Literal) matches.
    @property
    def id(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def skills(self) -> list[str]: ...
    @property
    def apps(self) -> list[str]: ...
    @property
    def hints(self) -> list[str]: ...
    @property
    def multi_turn(self) -> bool: ...
    @property
    def state_change(self) -> str: ...


class LLMSpecGenerator:
    """Writes specs with an LLM (`generate`) and repairs them from validation reports (`revise`).

    It is a `SpecReviser`, so `validate_and_repair(generator.generate(cap, n, seed), reviser=generator)`
    runs the whole loop on one backend.
    """

    def __init__(self, backend: LLMBackend, exemplars: Sequence[EnvSpec] | None = None, *,
                 max_exemplars: int = 2, max_exemplar_chars: int = 40_000, temperature: float = 0.8,
                 max_tokens: int = 12_000) -> None:
        self.backend = backend
        self.exemplars = list(exemplars) if exemplars is not None else _shipped_examples()
        self.max_exemplars = max_exemplars
        self.max_exemplar_chars = max_exemplar_chars
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.schema = envspec_json_schema()

    @property
    def stats(self) -> LLMStats:
        """The backend's counters (requests, retries, cache hits, failures, tokens paid)."""
        return self.backend.stats

    # -- generation --------------------------------------------------------------------------------------------
    def generation_request(self, capability: CapabilityLike, seed: int) -> LLMRequest:
        """The request for one new spec of `capability`; `seed` varies the answer and keys the cache."""
        lines = [
            f"Capability: {capability.id}",
            f"Description: {capability.description}",
            "Skills the agent must show:", *(f"- {s}" for s in capability.skills),
            f"Apps: {', '.join(capability.apps)}",
            f"Multi-turn: {'yes' if capability.multi_turn else 'no'}; state change between turns: "
            f"{capability.state_change}",
        ]
        if capability.hints:
            lines += ["Hints:", *(f"- {h}" for h in capability.hints)]
        for i, example in enumerate(self._exemplars_for(capability)):
            lines += ["", f"Example environment {i + 1} (for the format only; write a different one):",
                      "```json", example.to_json(), "```"]
        lines += ["", f"Write one new environment for capability {capability.id}, with its own company, people "
                      f"and situation. Variation seed: {seed}."]
        return self._request([{"role": "user", "content": "\n".join(lines)}], seed)

    def generate(self, capability: CapabilityLike, n: int, seed: int) -> list[Candidate]:
        """`n` candidates (seeds seed..seed+n-1); a request that fails after retries is a Candidate with `error`."""
        requests = [self.generation_request(capability, seed + i) for i in range(n)]
        answers = self.backend.complete_batch(requests)
        out = []
        for i, answer in enumerate(answers):
            origin = f"llm:{capability.id}:{seed + i}"
            if isinstance(answer, LLMResponse) and answer.truncated:
                answer = _truncation(answer, self.max_tokens)
                out.append(Candidate(capability.id, "", self.backend.name, answer.tokens, answer.kind, answer.message,
                                     origin))
            elif isinstance(answer, LLMError):
                out.append(Candidate(capability.id, "", self.backend.name, 0, answer.kind, answer.message, origin))
            else:
                out.append(Candidate(capability.id, spec_text(answer), answer.model or self.backend.name,
                                     _tokens(answer), origin=origin))
        return out

    # -- repair --------------------------------------------------------------------------------------------
    def revision_request(self, capability: str, payload: str, report: dict[str, Any]) -> LLMRequest:
        """The request to fix `payload` given the structured validation report."""
        report_json = orjson.dumps(report, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2).decode()
        messages = [
            {"role": "user", "content": f"Write an environment for capability {capability}."},
            {"role": "assistant", "content": payload},
            {"role": "user", "content": (
                "Validation rejected this environment. The report lists each failed gate with error codes, the "
                f"field path and what is wrong:\n```json\n{report_json}\n```\n"
                "Fix every error, keep what passed, and answer with the complete corrected environment.")},
        ]
        return self._request(messages, None)

    def revise(self, capability: str, payload: str, report: dict[str, Any]) -> tuple[str, int]:
        """A fixed payload and the tokens it cost; raises LLMError when the backend gives up."""
        answer = self._revised(self.backend.complete_batch([self.revision_request(capability, payload, report)])[0])
        if isinstance(answer, LLMError):
            raise answer
        return answer

    def revise_batch(self, requests: Sequence[tuple[str, str, dict[str, Any]]]) -> list[tuple[str, int] | LLMError]:
        """Revise many specs concurrently; a failed request is an LLMError in its slot."""
        answers = self.backend.complete_batch([self.revision_request(*r) for r in requests])
        return [self._revised(a) for a in answers]

    def _revised(self, answer: LLMResponse | LLMError) -> tuple[str, int] | LLMError:
        if isinstance(answer, LLMError):
            return answer
        if answer.truncated:
            return _truncation(answer, self.max_tokens)
        return spec_text(answer), _tokens(answer)

    # -- internals -----------------------------------------------------------------------------------------
    def _request(self, messages: list[dict[str, Any]], seed: int | None) -> LLMRequest:
        system = {"role": "system", "content": SYSTEM_PROMPT.format(tools=tool_catalog_text())}
        return LLMRequest([system, *messages], json_schema=self.schema, temperature=self.temperature,
                          max_tokens=self.max_tokens, seed=seed)

    def _exemplars_for(self, capability: CapabilityLike) -> list[EnvSpec]:
        """The exemplars closest to the capability (same id, then most shared apps), within the char budget."""
        wanted = set(capability.apps)
        ranked = sorted(self.exemplars, key=lambda s: (s.capability != capability.id,
                                                       -len(wanted & set(s.metadata.apps)), s.id))
        chosen: list[EnvSpec] = []
        used = 0
        for spec in ranked[: self.max_exemplars]:
            size = len(spec.to_json())
            if chosen and used + size > self.max_exemplar_chars:
                break
            chosen.append(spec)
            used += size
        return chosen


def spec_text(response: LLMResponse) -> str:
    """The JSON text of an answer (code fences removed; empty when the model sent no text)."""
    text = response.content or ""
    fenced = _FENCE.match(text)
    return fenced.group(1) if fenced else text.strip()


def _tokens(response: LLMResponse) -> int:
    return response.prompt_tokens + response.completion_tokens


class _TruncatedAnswer(LLMError):
    """An answer cut off at max_tokens: the model's failure (kind "truncated"), with the tokens it cost."""

    def __init__(self, message: str, tokens: int) -> None:
        super().__init__("truncated", message)
        self.tokens = tokens


def _truncation(response: LLMResponse, max_tokens: int) -> _TruncatedAnswer:
    # Half a spec would only fail gate 1 as "not valid JSON" and hide why; the funnel counts it as truncated.
    return _TruncatedAnswer(
        f"the answer was cut off at max_tokens={max_tokens} (finish_reason=length) after "
        f"{len(response.content or '')} characters; raise the generator's max_tokens", _tokens(response))


@cache
def tool_catalog_text() -> str:
    """One line per workplace tool: name, read/write, arguments and the first sentence of its description."""
    lines = []
    for name, tool in sorted(TOOLS.items()):
        args = ", ".join(
            f"{arg}{'' if f.is_required() else '?'}: {_type_name(f.annotation)}"
            for arg, f in tool.params.model_fields.items()
        )
        summary = tool.description.split(". ")[0].rstrip(".")
        lines.append(f"- {name} [{tool.kind}]({args}): {summary}")
    return "\n".join(lines)


def _type_name(annotation: Any) -> str:
    text = getattr(annotation, "__name__", None) if isinstance(annotation, type) else None
    return text or str(annotation).replace("typing.", "")


def _shipped_examples() -> list[EnvSpec]:
    from coworkenv.examples import example_names, load_example

    return [load_example(name) for name in example_names()]
