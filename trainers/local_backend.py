"""A local transformers checkpoint behind the `LLMBackend` interface, and the token-level pieces RL reuses.

`LocalTransformersBackend` renders the OpenAI-style request with the checkpoint's chat template (tools included),
generates (greedy at temperature 0, sampled otherwise), and parses hermes `<tool_call>` blocks with
`coworkenv.llm.parse_tool_calls`. `ChatRenderer` and `LocalSampler` work on token ids, so the RL rollout can keep
one growing token sequence per episode (what the model generated is exactly what it is trained on).
"""

from __future__ import annotations

import copy
import inspect
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import torch
from transformers import (
    AutoConfig,
    AutoModelForCausalLM,
    AutoTokenizer,
    DynamicCache,
    LogitsProcessorList,
    PreTrainedModel,
    PreTrainedTokenizerBase,
)

from coworkenv.llm import LLMError, LLMRequest, LLMResponse, LLMStats, ToolCall, parse_tool_calls, run_sync
from coworkenv.store import lfs_pointer_problem
from trainers import copy_model  # noqa: F401  # registers copy-head checkpoints with AutoModelForCausalLM
from trainers.checkpoint_files import (
    checkpoint_files_problem,
    file_versions,
    restore_interrupted_replace,
    unchanged_since_checked,
)
from trainers.rendering import SPACED_MODES, read_rendering, render_messages, render_tools, unspaced_arguments
from trainers.tool_grammar import (
    GrammarLogitsProcessor,
    MessageGrammar,
    ToolCallGrammars,
    check_decoding,
    check_tool_choice,
    requires_call,
)

__all__ = [
    "ChatRenderer",
    "CheckpointError",
    "LocalSampler",
    "LocalTransformersBackend",
    "ParsedMessage",
    "cache_argument",
    "load_checkpoint",
    "template_messages",
    "untrained_twin",
]

# Qwen3 templates open every assistant message with a (possibly empty) reasoning block; it is not part of the reply.
_THINK_BLOCK = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL)
_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


class CheckpointError(ValueError):
    """A checkpoint folder whose files cannot be loaded (damaged, incomplete, of another kind)."""

    def __init__(self, folder: Path, what: str, cause: BaseException) -> None:
        reason = (str(cause).strip().splitlines() or [""])[0][:300]
        super().__init__(f"{folder}: cannot load {what}: {type(cause).__name__}: {reason}; the checkpoint is damaged "
                         "or incomplete (an interrupted save or copy?): save, train or copy it again")


def load_checkpoint(
    path: str | Path, *, dtype: str = "float32", device: str | None = None
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """Load a causal LM and its tokenizer (with chat template) from a local checkpoint folder."""
    folder = Path(path)
    if not folder.exists():
        restore_interrupted_replace(folder)
    if not (folder / "config.json").is_file():
        raise FileNotFoundError(
            f"{folder} is not a transformers checkpoint (no config.json); pass the folder written by "
            "`coworkenv train sft` / `coworkenv train rl`, or an http(s):// URL of an OpenAI-compatible server"
        )
    if dtype not in _DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; use one of {', '.join(_DTYPES)}")
    # A checkpoint cloned from a hub without Git LFS: whole, only not fetched (not "damaged: train it again").
    pointer = next((problem for file in sorted(folder.iterdir()) if file.is_file()
                    and (problem := lfs_pointer_problem(file)) is not None), None)
    if pointer is not None:
        raise ValueError(pointer)
    checked = file_versions(folder)  # taken before the hashes are checked: a file changed after is caught below
    damaged = checkpoint_files_problem(folder)
    if damaged is not None:
        raise ValueError(damaged)
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(folder))
    except Exception as exc:  # tokenizers raises bare Exceptions that name no file
        what = "its tokenizer (tokenizer.json, tokenizer_config.json, config.json)"
        raise CheckpointError(folder, what, exc) from None
    if not tokenizer.chat_template:
        raise ValueError(f"{folder}: the tokenizer has no chat template, so tool calls cannot be rendered")
    try:
        model = AutoModelForCausalLM.from_pretrained(str(folder), dtype=_DTYPES[dtype])
    except Exception as exc:  # safetensors and torch raise their own types, naming no file
        raise CheckpointError(folder, "its model (config.json, model.safetensors)", exc) from None
    changed = unchanged_since_checked(folder, checked)
    if changed is not None:
        raise ValueError(changed)
    cast(Any, model).to(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    model.eval()
    return model, tokenizer


def template_messages(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI chat messages as chat templates expect them: string content, tool-call arguments as dicts.

    Qwen templates render dict arguments with `tojson`, exactly as in SFT rendering (`trainers.sft_data.to_chat`).
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        item: dict[str, Any] = {"role": message["role"], "content": message.get("content") or ""}
        calls = message.get("tool_calls") or []
        if calls:
            item["tool_calls"] = [
                {"id": c.get("id") or "", "type": "function",
                 "function": {"name": c["function"]["name"], "arguments": _arguments(c["function"].get("arguments"))}}
                for c in calls
            ]
        for key in ("tool_call_id", "name"):
            if message.get(key):
                item[key] = message[key]
        out.append(item)
    return out


def _arguments(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw if raw is not None else {}
    try:
        decoded = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        return raw  # a malformed call stays text, as the model wrote it
    return decoded if isinstance(decoded, dict) else raw


class ParsedMessage:
    """One generated assistant message: reply text, tool calls, parse errors, and whether it ended with EOS."""

    __slots__ = ("calls", "errors", "finished", "text")

    def __init__(self, text: str | None, calls: list[ToolCall], errors: list[str], finished: bool) -> None:
        self.text = text
        self.calls = calls
        self.errors = errors
        self.finished = finished


class ChatRenderer:
    """Token ids of chat-template renderings: prompts, the tokens between two assistant messages, and parsing."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase, rendering: str = "full") -> None:
        if tokenizer.eos_token_id is None:
            raise ValueError("the tokenizer has no EOS token; the chat template's end-of-turn token is needed")
        self.tokenizer = tokenizer
        self.eos_token_id = int(tokenizer.eos_token_id)
        self.rendering = rendering  # `full`, `compact`, `minimal` or `spaced` (trainers.rendering)
        render_tools(None, rendering)  # an unknown mode fails here, not at the first request

    def _ids(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, generation: bool) -> list[int]:
        ids = self.tokenizer.apply_chat_template(
            render_messages(messages, self.rendering), tools=cast(Any, render_tools(tools, self.rendering)), add_generation_prompt=generation, tokenize=True, return_dict=False
        )
        return list(cast("list[int]", ids))

    def prompt_ids(self, messages: Sequence[dict[str, Any]], tools: list[dict[str, Any]] | None) -> list[int]:
        """The conversation rendered for the next assistant message (generation prompt appended)."""
        return self._ids(template_messages(messages), tools, True)

    def continuation_ids(self, new_messages: Sequence[dict[str, Any]]) -> list[int]:
        """Tokens that follow an assistant message's EOS: `new_messages` (tool results, user turns) and the prompt
        for the next assistant message.

        Rendered as the difference of two renderings of a minimal conversation, like TRL's multi-turn tool loop,
        so the sequence the model continues from is what the template would produce for the whole conversation.
        """
        prefix: list[dict[str, Any]] = [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]
        if new_messages and new_messages[0].get("role") == "tool":
            # Some templates name the tool in the response header: give the previous message that call.
            name = new_messages[0].get("name") or "tool"
            prefix[1] = {"role": "assistant", "content": "", "tool_calls": [
                {"type": "function", "function": {"name": name, "arguments": {}}}]}
        head = self._ids(prefix, None, False)
        full = self._ids(prefix + template_messages(new_messages), None, True)
        ends = [i for i, token in enumerate(head) if token == self.eos_token_id]
        head = head[: ends[-1] + 1] if ends else head  # the template may put a newline after EOS
        if full[: len(head)] != head:
            raise ValueError("the chat template is not prefix-preserving; multi-turn rollouts need one that is "
                             "(e.g. trl/chat_templates/qwen3_training.jinja)")
        return full[len(head):]

    def parse(self, generated: Sequence[int]) -> ParsedMessage:
        """Reply text and tool calls of one generated assistant message (hermes `<tool_call>` blocks)."""
        finished = bool(generated) and generated[-1] == self.eos_token_id
        text = str(self.tokenizer.decode(list(generated), skip_special_tokens=True))
        text = _THINK_BLOCK.sub("", text, count=1)
        content, calls, errors = parse_tool_calls(text, None)
        if self.rendering in SPACED_MODES:  # the model writes each string value after one space (trainers.rendering)
            calls = [replace(call, arguments=unspaced_arguments(call.arguments)) for call in calls]
        return ParsedMessage(content, calls, errors, finished)


def cache_argument(model: PreTrainedModel) -> str:
    """The name under which `model.forward` takes its KV cache."""
    # transformers 5.2x renamed `past_key_values` to `cache`; models that predate the rename keep the old name.
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


class LocalSampler:
    """Generates one assistant message from token ids with a local model, reusing a KV cache across calls.

    The cache belongs to one conversation that only grows; when a call's ids do not extend what the cache holds,
    the cache is dropped and rebuilt, so a reused sampler is slower but never wrong.
    """

    def __init__(self, model: PreTrainedModel, eos_token_id: int, pad_token_id: int | None,
                 cache: DynamicCache | None = None, cached_ids: Sequence[int] = ()) -> None:
        self.model = model
        self.eos_token_id = eos_token_id
        self.pad_token_id = pad_token_id if pad_token_id is not None else eos_token_id
        self.cache = cache if cache is not None else DynamicCache(config=model.config)
        self.cached_ids = list(cached_ids) if cache is not None else []

    @classmethod
    def with_prefix(cls, model: PreTrainedModel, eos_token_id: int, pad_token_id: int | None,
                    prefix: DynamicCache, prefix_ids: Sequence[int]) -> LocalSampler:
        """A sampler starting from a copy of `prefix`, the cache of `prefix_ids` (a prompt shared by a group)."""
        return cls(model, eos_token_id, pad_token_id, copy.deepcopy(prefix), prefix_ids)

    @staticmethod
    def prefill(model: PreTrainedModel, ids: Sequence[int]) -> DynamicCache:
        """The KV cache of `ids` minus its last token (generation then starts by feeding that token)."""
        cache = DynamicCache(config=model.config)
        if len(ids) > 1:
            with torch.no_grad():
                model(input_ids=torch.tensor([list(ids[:-1])], device=model.device), use_cache=True,
                      **{cache_argument(model): cache})
        return cache

    def generate(self, ids: Sequence[int], max_new_tokens: int, temperature: float, top_p: float = 1.0,
                 seed: int | None = None, constraint: MessageGrammar | None = None) -> list[int]:
        """New token ids (ending with EOS unless `max_new_tokens` ran out); greedy when `temperature` is 0;
        `constraint`: the grammar the message is generated under (`trainers.tool_grammar`)."""
        ids = list(ids)
        if len(self.cached_ids) >= len(ids) or ids[: len(self.cached_ids)] != self.cached_ids:
            self.cache, self.cached_ids = DynamicCache(config=self.model.config), []
        sampled = temperature > 0
        kwargs: dict[str, Any] = {"do_sample": sampled, "max_new_tokens": max_new_tokens,
                                  "eos_token_id": self.eos_token_id, "pad_token_id": self.pad_token_id,
                                  cache_argument(self.model): self.cache, "use_cache": True}
        if constraint is not None:
            kwargs["logits_processor"] = LogitsProcessorList([GrammarLogitsProcessor([constraint])])
        if sampled:
            kwargs.update(temperature=temperature, top_p=top_p, top_k=0)
        else:
            kwargs.update(temperature=None, top_p=None, top_k=None)
        input_ids = torch.tensor([ids], device=self.model.device)
        with torch.no_grad(), torch.random.fork_rng(devices=[] if self.model.device.type == "cpu" else None):
            if seed is not None:  # a seeded request samples the same tokens again, without moving the global RNG
                torch.manual_seed(seed)
            output = cast(Any, self.model).generate(input_ids=input_ids, attention_mask=torch.ones_like(input_ids), **kwargs)
        sequence = [int(t) for t in output[0].tolist()]
        self.cached_ids = sequence[: self.cache.get_seq_length()]
        return sequence[len(ids):]


class LocalTransformersBackend:
    """`LLMBackend` over a local checkpoint: chat template with tools, `generate`, hermes tool-call parsing.

    Requests are answered one at a time (generation is compute-bound); each re-renders the conversation.
    `decoding="grammar"` generates every message under a grammar of the request's tools (`trainers.tool_grammar`):
    only well-formed calls of exposed tools, with their required arguments; `free` (the default) does not.
    `tool_choice="first"` (grammar only) makes the first message of every user turn tool calls.
    """

    def __init__(self, model: str | Path | PreTrainedModel, tokenizer: PreTrainedTokenizerBase | None = None, *,
                 name: str | None = None, dtype: str = "float32", device: str | None = None,
                 rendering: str | None = None, decoding: str = "free", tool_choice: str = "auto") -> None:
        if isinstance(model, str | Path):
            self.model, loaded = load_checkpoint(model, dtype=dtype, device=device)
            self.tokenizer = tokenizer or loaded
            self.name = name or f"local:{Path(model).name}"
            rendering = rendering or read_rendering(model)  # the rendering the checkpoint was trained with
        else:
            if tokenizer is None:
                raise ValueError("pass the tokenizer together with an in-memory model")
            self.model, self.tokenizer = model, tokenizer
            self.name = name or "local:in-memory"
        self.renderer = ChatRenderer(self.tokenizer, rendering or "full")
        self.decoding = check_decoding(decoding)
        self.tool_choice = check_tool_choice(tool_choice, self.decoding)
        if self.decoding == "grammar" and self.renderer.rendering in SPACED_MODES:
            raise ValueError(f"{self.name}: decoding='grammar' writes compact JSON values, which a model trained on "
                             "the `spaced` rendering does not; use decoding='free' for this checkpoint")
        self._grammars: ToolCallGrammars | None = None
        text_config = self.model.config.get_text_config()
        self.context = int(getattr(text_config, "max_position_embeddings", 0) or 0)
        self.stats = LLMStats()

    def __repr__(self) -> str:
        return f"LocalTransformersBackend(name={self.name!r})"

    def _prompt(self, request: LLMRequest) -> tuple[list[int], int]:
        """The request's prompt ids and how many tokens may be generated after them; `LLMError` when it cannot be
        answered here (structured output, or a prompt that fills the context)."""
        if request.json_schema is not None:
            raise LLMError("client_error", f"{self.name}: structured output (json_schema) is not supported locally")
        ids = self.renderer.prompt_ids(request.messages, request.tools)
        room = self.context - len(ids) if self.context else request.max_tokens
        if room <= 0:
            raise LLMError("context_length", f"{self.name}: the conversation is {len(ids)} tokens, the model's context "
                                           f"is {self.context}; use a model with a longer context or fewer tools")
        return ids, min(request.max_tokens, room)

    def constraint(self, request: LLMRequest) -> MessageGrammar | None:
        """The grammar of one request's message under `decoding="grammar"` (its tools), else None."""
        if self.decoding == "free":
            return None
        if self._grammars is None:
            self._grammars = ToolCallGrammars(self.tokenizer)
        return self._grammars.message(request.tools, requires_call(self.tool_choice, request.messages, request.tools))

    async def _generate(self, ids: list[int], max_new_tokens: int, request: LLMRequest) -> list[int]:
        """The new tokens after `ids` (one request at a time; `trainers.batching` batches concurrent ones)."""
        sampler = LocalSampler(self.model, self.renderer.eos_token_id, self.tokenizer.pad_token_id)
        return sampler.generate(ids, max_new_tokens, request.temperature, seed=request.seed,
                                constraint=self.constraint(request))

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer one request, or raise `LLMError` (the prompt does not fit the context, or generation failed)."""
        self.stats.requests += 1
        try:
            ids, max_new_tokens = self._prompt(request)
            generated = await self._generate(ids, max_new_tokens, request)
        except LLMError as exc:
            self.stats.count_failure(exc.kind)
            raise
        except (RuntimeError, ValueError) as exc:  # torch / template errors: reported per request, never a crash
            self.stats.count_failure("server_error")
            raise LLMError("server_error", f"{self.name}: generation failed: {type(exc).__name__}: {exc}") from exc
        self.stats.prompt_tokens += len(ids)
        self.stats.completion_tokens += len(generated)
        return generated_response(self.renderer.parse(generated), len(ids), len(generated), self.name)

    def complete_batch(self, requests: Sequence[LLMRequest]) -> list[LLMResponse | LLMError]:
        """Answer `requests` in order, one after the other."""

        async def run() -> list[LLMResponse | LLMError]:
            out: list[LLMResponse | LLMError] = []
            for request in requests:
                try:
                    out.append(await self.complete(request))
                except LLMError as exc:
                    out.append(exc)
            return out

        return run_sync(run)


def generated_response(parsed: ParsedMessage, prompt_tokens: int, completion_tokens: int, model: str) -> LLMResponse:
    """The `LLMResponse` of a locally generated assistant message (`finish_reason` "length" when it was cut off)."""
    return LLMResponse(
        content=parsed.text, tool_calls=parsed.calls, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
        finish_reason="stop" if parsed.finished else "length", cached=False, model=model,
        tool_call_errors=parsed.errors,
    )


def untrained_twin(checkpoint: str | Path, *, name: str = "base-untrained", seed: int = 0,
                   decoding: str = "free") -> LocalTransformersBackend:
    """A freshly initialised model of the checkpoint's architecture with its tokenizer: the 'base' of a model
    trained from scratch (the tiny config), so base-vs-SFT compares like with like."""
    checked = file_versions(Path(checkpoint))  # taken before the hashes are checked: a file changed after is caught
    damaged = checkpoint_files_problem(Path(checkpoint))
    if damaged is not None:
        raise ValueError(damaged)
    tokenizer = AutoTokenizer.from_pretrained(str(checkpoint))
    config = AutoConfig.from_pretrained(str(checkpoint))
    changed = unchanged_since_checked(Path(checkpoint), checked)
    if changed is not None:
        raise ValueError(changed)
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config)
    model.eval()
    return LocalTransformersBackend(model, tokenizer, name=name, rendering=read_rendering(checkpoint), decoding=decoding)
