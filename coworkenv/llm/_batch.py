"""Run async completions from synchronous code (scripts, Dagster ops, notebooks with a live loop)."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from coworkenv.llm._types import LLMError, LLMRequest, LLMResponse

T = TypeVar("T")


def run_sync(make_coroutine: Callable[[], Awaitable[T]]) -> T:
    """Run the coroutine made by `make_coroutine` to completion and return its result.

    With no event loop running in this thread it uses `asyncio.run`; inside a running loop
    (where `asyncio.run` is forbidden) it runs on a fresh loop in a worker thread.
    """

    async def main() -> T:
        return await make_coroutine()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, main()).result()


async def gather_completions(
    complete: Callable[[LLMRequest], Awaitable[LLMResponse]], requests: Sequence[LLMRequest]
) -> list[LLMResponse | LLMError]:
    """Await `complete` for every request concurrently; an `LLMError` is returned in its slot."""

    async def one(request: LLMRequest) -> LLMResponse | LLMError:
        try:
            return await complete(request)
        except LLMError as exc:
            return exc

    return list(await asyncio.gather(*(one(request) for request in requests)))
