"""The backend used when no LLM is configured: procedural generation and the oracle teacher only."""

from __future__ import annotations

from collections.abc import Sequence

from coworkenv.llm._types import LLMError, LLMRequest, LLMResponse, LLMStats

NO_LLM_MESSAGE = (
    "no LLM configured: procedural generation only (set --llm URL --model NAME, "
    "or $COWORKENV_LLM_URL and $COWORKENV_LLM_MODEL, to use an OpenAI-compatible server)"
)


class NoLLMBackend:
    """Always raises `LLMError("unavailable")`, so LLM-only steps fail with a clear reason."""

    def __init__(self) -> None:
        self.name = "none"
        self.stats = LLMStats()

    def __repr__(self) -> str:
        return "NoLLMBackend()"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Raise `LLMError("unavailable")`."""
        self.stats.requests += 1
        self.stats.count_failure("unavailable")
        raise LLMError("unavailable", NO_LLM_MESSAGE)

    def complete_batch(self, requests: Sequence[LLMRequest]) -> list[LLMResponse | LLMError]:
        """Return one `LLMError("unavailable")` per request."""
        self.stats.requests += len(requests)
        if requests:
            self.stats.failures["unavailable"] = self.stats.failures.get("unavailable", 0) + len(requests)
        return [LLMError("unavailable", NO_LLM_MESSAGE) for _ in requests]
