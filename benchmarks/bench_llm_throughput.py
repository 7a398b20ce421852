"""LLM client throughput against a loopback OpenAI-compatible server with a fixed answer latency.

With concurrency C and latency L the ideal is C / L requests per second; the target is >= 95% of it.
The server runs in its own process (so its threads do not share this process's GIL) and is
stopped by process group at the end.

    python benchmarks/bench_llm_throughput.py [--concurrency 8 16] [--delay-s 0.2] [--rounds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a plain script from anywhere
    sys.path.insert(0, str(REPO_ROOT))

from coworkenv.llm import LLMRequest, LLMResponse, OpenAICompatibleBackend  # noqa: E402
from tests.support.fake_openai_server import start_server_process  # noqa: E402

TARGET = 0.95


def measure(url: str, concurrency: int, delay_s: float, rounds: int) -> dict[str, float]:
    """Send `rounds * concurrency` distinct requests through one backend; return the figures.

    Warm-up and measurement share one event loop, as in a long-running generator, so the
    keep-alive connections opened by the warm-up are reused by the measured requests.
    """
    backend = OpenAICompatibleBackend(url, "bench-model", api_key="", max_concurrency=concurrency, timeout_s=30)

    async def run() -> tuple[int, float, float]:
        try:
            await asyncio.gather(*(backend.complete(_request(f"warm {i}")) for i in range(concurrency)))
            requests = [_request(f"bench {i}") for i in range(rounds * concurrency)]
            started, cpu_started = time.perf_counter(), time.process_time()
            results = await asyncio.gather(*(backend.complete(request) for request in requests), return_exceptions=True)
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        finally:
            await backend.aclose()
        return sum(isinstance(result, LLMResponse) for result in results), elapsed, cpu

    ok, elapsed, cpu = asyncio.run(run())
    achieved = ok / elapsed
    ideal = concurrency / delay_s
    return {
        "concurrency": concurrency,
        "latency_s": delay_s,
        "requests": rounds * concurrency,
        "ok": ok,
        "elapsed_s": round(elapsed, 3),
        "achieved_rps": round(achieved, 2),
        "ideal_rps": round(ideal, 2),
        "efficiency": round(achieved / ideal, 4),
        # Client CPU per request: the cost that limits throughput on a busy machine.
        "client_cpu_ms_per_request": round(cpu / (rounds * concurrency) * 1000, 3),
    }


def _request(text: str) -> LLMRequest:
    return LLMRequest(messages=[{"role": "user", "content": text}])


def main() -> int:
    """Run the benchmark for each concurrency and print one JSON line per run; exit 1 below target."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 16])
    parser.add_argument("--delay-s", type=float, default=0.2)
    parser.add_argument("--rounds", type=int, default=20, help="requests per concurrency slot")
    args = parser.parse_args()
    process, url = start_server_process(["--delay-s", str(args.delay_s)])
    below_target = False
    try:
        for concurrency in args.concurrency:
            figures = measure(url, concurrency, args.delay_s, args.rounds)
            below_target |= figures["efficiency"] < TARGET
            print(
                f"C={concurrency:>3} latency={args.delay_s:.2f}s: {figures['achieved_rps']:.1f} req/s of ideal "
                f"{figures['ideal_rps']:.1f} ({figures['efficiency']:.1%}, target >= {TARGET:.0%}); "
                f"client CPU {figures['client_cpu_ms_per_request']:.2f} ms/request"
            )
            print(json.dumps({"benchmark": "llm_throughput", **figures}))
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
    return 1 if below_target else 0


if __name__ == "__main__":
    raise SystemExit(main())
