"""Our LLM client against `vllm bench serve`: same vllm-cpu server, prompts, output lengths and concurrency.

A real vLLM server runs on the CPU with the tiny local Qwen3 model of `tests/support/vllm_cpu.py` (the
`.venv-vllm` it creates takes ~2 min the first time; `COWORKENV_VLLM_VENV` points at another one). For each
concurrency C, `vllm bench serve` (openai-chat backend, custom dataset) sends `--prompts` chat requests with at
most C in flight, each forced to `--output-len` tokens (`ignore_eos`); then `OpenAICompatibleBackend` sends the
same prompts with the same `max_tokens` and `ignore_eos` at concurrency C. Printed per C: requests/s of both
and our ratio (target >= 0.95), and the server's prefix-cache hit rate over the run from /metrics.

    python benchmarks/bench_vllm_serve.py [--concurrency 4 16 64] [--prompts 128] [--output-len 16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a plain script from anywhere
    sys.path.insert(0, str(REPO_ROOT))

from coworkenv.llm import LLMRequest, LLMResponse, OpenAICompatibleBackend  # noqa: E402
from tests.support.vllm_cpu import SERVED_MODEL_NAME, VLLMServer, running_vllm_cpu_server, vllm_python  # noqa: E402

WORDS = ("mail", "ticket", "deploy", "rollback", "meeting", "report", "invoice", "team", "schedule", "incident")
BENCH_SERVE = ("import sys; from vllm.utils.argparse_utils import FlexibleArgumentParser; "
               "from vllm.benchmarks.serve import add_cli_args, main; "
               "p = FlexibleArgumentParser(); add_cli_args(p); main(p.parse_args(sys.argv[1:]))")
_METRIC = re.compile(r"^(vllm:prefix_cache_(?:queries|hits))(?:_total)?(?:\{[^}]*\})?\s+([0-9.eE+-]+)$", re.M)


def prompts(n: int, words: int, seed: int = 0) -> list[str]:
    """Distinct prompts of `words` workplace words each (deterministic)."""
    rng = random.Random(seed)
    return [f"request {i}: " + " ".join(rng.choice(WORDS) for _ in range(words)) for i in range(n)]


def prefix_cache_counters(server: VLLMServer) -> tuple[float, float]:
    """(queries, hits) in tokens from the server's Prometheus /metrics (0, 0 when it does not export them)."""
    with urllib.request.urlopen(f"{server.base_url}/metrics", timeout=10) as response:
        text = response.read().decode()
    found = {name: float(value) for name, value in _METRIC.findall(text)}
    return found.get("vllm:prefix_cache_queries", 0.0), found.get("vllm:prefix_cache_hits", 0.0)


def vllm_bench(server: VLLMServer, dataset: Path, n: int, concurrency: int, output_len: int, out: Path) -> float:
    """Requests/s that `vllm bench serve` reaches; raises with its output when it fails."""
    command = [
        # `vllm bench serve` itself; its CLI wrapper reads the package version of `vllm`, which vllm-cpu lacks.
        str(vllm_python()), "-c", BENCH_SERVE,
        "--backend", "openai-chat", "--base-url", server.base_url, "--endpoint", "/v1/chat/completions",
        "--model", SERVED_MODEL_NAME, "--tokenizer", str(server.model_dir),
        "--dataset-name", "custom", "--dataset-path", str(dataset), "--custom-output-len", str(output_len),
        "--skip-chat-template", "--num-prompts", str(n), "--max-concurrency", str(concurrency), "--ignore-eos",
        "--save-result", "--result-dir", str(out.parent), "--result-filename", out.name,
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)
    if result.returncode != 0 or not out.exists():
        raise SystemExit(f"vllm bench serve failed ({result.returncode}):\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    return float(json.loads(out.read_text())["request_throughput"])


def ours(server: VLLMServer, texts: list[str], concurrency: int, output_len: int) -> float:
    """Requests/s of our client with the same prompts, output length and concurrency."""
    backend = OpenAICompatibleBackend(server.base_url, SERVED_MODEL_NAME, api_key="", max_concurrency=concurrency,
                                      timeout_s=600, extra_body={"ignore_eos": True})
    requests = [LLMRequest(messages=[{"role": "user", "content": t}], max_tokens=output_len) for t in texts]

    async def run() -> tuple[int, float]:
        try:
            started = time.perf_counter()
            results = await asyncio.gather(*(backend.complete(r) for r in requests), return_exceptions=True)
            return sum(isinstance(r, LLMResponse) for r in results), time.perf_counter() - started
        finally:
            await backend.aclose()

    ok, elapsed = asyncio.run(run())
    if ok != len(requests):
        raise SystemExit(f"our client: {len(requests) - ok} of {len(requests)} requests failed ({backend.stats})")
    return ok / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[4, 16, 64])
    parser.add_argument("--prompts", type=int, default=128)
    parser.add_argument("--prompt-words", type=int, default=64)
    parser.add_argument("--output-len", type=int, default=16)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    has_pandas = subprocess.run([str(vllm_python()), "-c", "import pandas"], capture_output=True, check=False)
    if has_pandas.returncode != 0:  # vllm bench's custom (JSONL) dataset reads with pandas, an optional extra
        raise SystemExit(f"vllm bench serve needs pandas in the vLLM venv: {vllm_python()} -m pip install pandas")
    rows = []
    with tempfile.TemporaryDirectory() as tmp, running_vllm_cpu_server(Path(tmp)) as server:
        texts = prompts(args.prompts, args.prompt_words)
        dataset = Path(tmp) / "prompts.jsonl"
        dataset.write_text("".join(json.dumps({"prompt": t}) + "\n" for t in texts))
        # Warm-up with every prompt: both sides then meet the same warm prefix cache (they send the same prompts).
        ours(server, texts, 4, args.output_len)
        for c in args.concurrency:
            theirs = vllm_bench(server, dataset, args.prompts, c, args.output_len, Path(tmp) / f"bench-{c}.json")
            before = prefix_cache_counters(server)
            mine = ours(server, texts, c, args.output_len)
            after = prefix_cache_counters(server)
            queries, hits = after[0] - before[0], after[1] - before[1]
            rows.append({"concurrency": c, "vllm_bench_rps": round(theirs, 3), "ours_rps": round(mine, 3),
                         "ratio": round(mine / theirs, 3),
                         "prefix_cache_hit_rate": round(hits / queries, 3) if queries else None})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{args.prompts} prompts of {args.prompt_words} words, {args.output_len} output tokens, vllm-cpu tiny model")
    print(f"{'C':>4} {'vllm bench req/s':>17} {'ours req/s':>11} {'ratio':>6} {'prefix hit':>10}")
    for r in rows:
        print(f"{r['concurrency']:>4} {r['vllm_bench_rps']:>17} {r['ours_rps']:>11} {r['ratio']:>6} "
              f"{r['prefix_cache_hit_rate']!s:>10}")


if __name__ == "__main__":
    main()
