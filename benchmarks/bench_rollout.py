"""Rollout throughput: the oracle teacher per core, and the LLM teacher against a loopback server with latency.

1. Oracle: narrated reference episodes on the shipped examples, one process (one core), with the bare
   `run_episode(OraclePolicy)` loop as a baseline. Target: >= 200 episodes/s.
2. LLM teacher: the fake OpenAI-compatible server (its own process) answers every request after a fixed
   delay; with `concurrency` requests in flight the ideal rate is concurrency / delay. Target: >= 95% of it.

    python benchmarks/bench_rollout.py [--seconds 5] [--concurrency 32] [--delay-s 0.25] [--episodes 512]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coworkenv.agents import OraclePolicy  # noqa: E402
from coworkenv.env import Env  # noqa: E402
from coworkenv.examples import example_names, load_example  # noqa: E402
from coworkenv.llm import LLMError, LLMRequest, LLMResponse, OpenAICompatibleBackend  # noqa: E402
from coworkenv.rollout import LLMTeacher, OracleTeacher, run_episode  # noqa: E402
from tests.support.fake_openai_server import start_server_process  # noqa: E402

# Search the mail first; once its result (msg-1) is in the conversation, answer. Three requests per episode.
SCRIPT = {"responses": [
    {"match": '"id":"msg-1"', "content": "The failing request in Jon's report is req-7f3a91."},
    {"tool_calls": [{"name": "mail_search", "arguments": {"query": "checkout"}}]},
]}


def oracle_rate(seconds: float) -> tuple[dict[str, float], int]:
    """Episodes/s of the oracle teacher (grounded: it lists or searches before writing a value it has not seen), of
    the plain oracle teacher, and of a bare run_episode loop, alternating to share machine noise; and episodes."""
    specs = [load_example(n) for n in example_names()]
    teacher, plain = OracleTeacher(0), OracleTeacher(0, grounded=False)
    assert all(teacher.run(s)[0].passed for s in specs), "the oracle must pass every example"
    runs = {"teacher": teacher.run, "plain": plain.run, "bare": lambda s: run_episode(Env(s), OraclePolicy(s))}
    totals = {name: [0, 0.0] for name in runs}
    deadline = time.perf_counter() + 3 * seconds
    while time.perf_counter() < deadline:
        for name, run in runs.items():
            start = time.perf_counter()
            for spec in specs:
                run(spec)
            totals[name][0] += len(specs)
            totals[name][1] += time.perf_counter() - start
    return {name: done / spent for name, (done, spent) in totals.items()}, int(totals["teacher"][0])


class TimedBackend:
    """Forwards to a backend and notes when each answer arrived."""

    def __init__(self, inner: OpenAICompatibleBackend) -> None:
        self.inner, self.name, self.stats = inner, inner.name, inner.stats
        self.done: list[float] = []

    async def complete(self, request: LLMRequest) -> LLMResponse:
        response = await self.inner.complete(request)
        self.done.append(time.perf_counter())
        return response

    def complete_batch(self, requests: Sequence[LLMRequest]) -> list[LLMResponse | LLMError]:
        return self.inner.complete_batch(requests)

    async def aclose(self) -> None:
        await self.inner.aclose()


def llm_rate(concurrency: int, delay_s: float, episodes: int) -> dict[str, float]:
    """Requests/s of the LLM teacher against the delayed fake server, and the ideal concurrency / delay.

    `steady` is the rate over the middle 80% of answers: the pipe is full there, while the first and last
    requests of the run wait for a pipe that is filling or draining.
    """
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(SCRIPT, handle)
    process, url = start_server_process(["--delay-s", str(delay_s), "--script", handle.name])
    try:
        backend = TimedBackend(OpenAICompatibleBackend(url, "fake-model", max_concurrency=concurrency, max_retries=0,
                                                       timeout_s=30))
        teacher = LLMTeacher(backend, k=4, sampling={"temperature": 0.7, "seed": 0},
                             max_episodes_in_flight=4 * concurrency)
        specs = [load_example("incident_rollback")] * (episodes // 4)
        start = time.perf_counter()
        records = teacher.run_many(specs)
        wall = time.perf_counter() - start
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
        Path(handle.name).unlink()
    requests = sum(len(r.steps) for r in records)
    assert all(r.stop_reason == "done" for r in records), {r.stop_reason for r in records}
    ideal = concurrency / delay_s
    done = sorted(backend.done)
    lo, hi = len(done) // 10, len(done) * 9 // 10
    steady = (hi - lo) / (done[hi] - done[lo])
    return {"episodes": len(records), "requests": requests, "wall_s": wall, "rate": requests / wall, "ideal": ideal,
            "steady": steady, "efficiency": steady / ideal}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="time for each oracle measurement")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--delay-s", type=float, default=0.25)
    parser.add_argument("--episodes", type=int, default=512)
    args = parser.parse_args()

    rates, n = oracle_rate(args.seconds)
    teacher = rates["teacher"]
    print(f"oracle teacher: {teacher:.0f} episodes/s on one core ({n} narrated, grounded episodes of "
          f"{len(example_names())} examples; without grounding {rates['plain']:.0f}/s; bare run_episode loop "
          f"{rates['bare']:.0f}/s) -- target >= 200/s: {'met' if teacher >= 200 else 'MISSED'}")
    llm = llm_rate(args.concurrency, args.delay_s, args.episodes)
    print(f"llm teacher: {llm['steady']:.1f} requests/s steady ({llm['rate']:.1f}/s over the whole run: "
          f"{llm['requests']} requests, {llm['episodes']} episodes, {llm['wall_s']:.1f} s) vs ideal "
          f"{llm['ideal']:.0f}/s (concurrency {args.concurrency} / delay {args.delay_s:g} s) = "
          f"{100 * llm['efficiency']:.1f}% -- target >= 95%: {'met' if llm['efficiency'] >= 0.95 else 'MISSED'}")


if __name__ == "__main__":
    main()
