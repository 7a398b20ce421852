"""A tiny Qwen3-architecture causal LM and a byte-level BPE tokenizer, built locally from the SFT corpus.

No weights can be downloaded in the embedded setup, so the `tiny` SFT config starts from a randomly initialised
model whose tokenizer is trained on the rendered conversations themselves. The tokenizer mirrors Qwen's: the same
pre-tokenization regex, byte-level BPE and control tokens; the chat template is passed in (the `tiny` config uses
TRL's Qwen3 training template: tool rendering plus `{% generation %}` markers for assistant-only loss).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

import torch
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers
from tokenizers import trainers as bpe_trainers
from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM
from transformers.utils.chat_template_utils import render_jinja_template

from trainers.copy_model import CopyHeadConfig, CopyHeadForCausalLM

__all__ = [
    "CONTROL_TOKENS",
    "SPECIAL_TOKENS",
    "TinyModelSpec",
    "build_tiny_model",
    "render_corpus_text",
    "tiny_model_config",
    "train_tokenizer",
]

# Qwen treats these as special (skipped on decode); the tool/think markers stay visible in decoded text.
SPECIAL_TOKENS: tuple[str, ...] = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
CONTROL_TOKENS: tuple[str, ...] = (
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
)
# The pre-tokenization split used by Qwen2/Qwen3 tokenizers (words, single digits, punctuation runs, newlines).
_QWEN_SPLIT_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
# The same split where a word or a punctuation run never takes the character before it. Under Qwen's split a value
# is other tokens in prose (' INC', ' Heron') than after a JSON quote ('INC', 'H' 'eron'), so a copy head cannot copy
# the first word of a value the request names into a tool call's arguments: it has to come from the LM head's prior
# (L13 wrote 'OPS-647' for 'INC-647'). Under this one spaces are tokens of their own (sequences grow by about a fifth).
_BARE_SPLIT_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|\p{L}+|\p{N}|[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
# Qwen's split except that a word starting with a capital letter never takes the character before it. The values a
# request names in prose are mostly such words (ids like 'INC-647', names like 'Heron Games'), so their first word is
# the same tokens in prose and in a call, as under the bare split, while the far more frequent lowercase words keep
# their space: only the spaces before capitalized words become tokens of their own.
_CAPITALS_SPLIT_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|\p{Lu}\p{L}*|[^\r\n\p{L}\p{N}]?(?!\p{Lu})\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_SPLIT_PATTERNS = {"qwen": _QWEN_SPLIT_PATTERN, "bare": _BARE_SPLIT_PATTERN, "capitals": _CAPITALS_SPLIT_PATTERN}


@dataclass(frozen=True)
class TinyModelSpec:
    """Sizes of the tiny model and its tokenizer (the `model.tiny` section of an SFT config)."""

    vocab_size: int = 2048
    hidden_size: int = 128
    intermediate_size: int = 384
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    head_dim: int = 32
    max_position_embeddings: int = 4096
    min_token_frequency: int = 2
    copy_head: bool = False  # a pointer-generator copy head (trainers.copy_model)
    copy_head_dim: int = 64
    copy_from_read: bool = False  # the copy head copies only from earlier messages, not from the one being written
    copy_induction: bool = False  # copy keys and queries carry the tokens just before (trainers.copy_model)
    copy_induction_run: int = 0  # the induction match credits the common run's length, up to this many tokens
    word_split: str = "qwen"  # "bare": words never carry the space before them (_BARE_SPLIT_PATTERN); "capitals": only
    # capitalized words do not (_CAPITALS_SPLIT_PATTERN)


def render_corpus_text(
    conversations: Iterable[tuple[list[dict], list[Any] | None]], chat_template: str
) -> Iterable[str]:
    """Render (messages, tools) pairs with `chat_template`: exactly the text the model will be trained on."""
    for messages, tools in conversations:
        # Annotated as returning str, but returns (rendered conversations, generation spans).
        rendered, _ = cast(
            "tuple[list[str], list[Any]]",
            render_jinja_template([messages], tools=tools or None, chat_template=chat_template),
        )
        yield rendered[0]


def train_tokenizer(corpus: Iterable[str], spec: TinyModelSpec, chat_template: str) -> PreTrainedTokenizerFast:
    """Train a Qwen-style byte-level BPE tokenizer on `corpus` and attach `chat_template`."""
    backend = Tokenizer(models.BPE(byte_fallback=False))
    backend.normalizer = normalizers.NFC()
    backend.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(_SPLIT_PATTERNS[spec.word_split]), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    backend.decoder = decoders.ByteLevel()
    reserved = [*SPECIAL_TOKENS, *CONTROL_TOKENS]
    trainer = bpe_trainers.BpeTrainer(
        vocab_size=spec.vocab_size,
        min_frequency=spec.min_token_frequency,
        special_tokens=reserved,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(corpus, trainer=trainer)
    # Registered as added tokens so they are matched whole in any text, never split by BPE.
    backend.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIAL_TOKENS])
    backend.add_tokens([AddedToken(t, special=False, normalized=False) for t in CONTROL_TOKENS])

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        clean_up_tokenization_spaces=False,
        model_max_length=spec.max_position_embeddings,
    )
    tokenizer.chat_template = chat_template
    return tokenizer


def tiny_model_config(spec: TinyModelSpec, vocab_size: int, eos_token_id: int | None, pad_token_id: int | None,
                      copy_boundary_token_id: int | None = None) -> Qwen3Config:
    """The model config of `spec`'s sizes for a tokenizer of `vocab_size` (a `CopyHeadConfig` when `spec.copy_head`;
    `copy_boundary_token_id` is used when `spec.copy_from_read`)."""
    sizes: dict[str, Any] = dict(
        vocab_size=vocab_size,
        hidden_size=spec.hidden_size,
        intermediate_size=spec.intermediate_size,
        num_hidden_layers=spec.num_hidden_layers,
        num_attention_heads=spec.num_attention_heads,
        num_key_value_heads=spec.num_key_value_heads,
        head_dim=spec.head_dim,
        max_position_embeddings=spec.max_position_embeddings,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=eos_token_id,
        pad_token_id=pad_token_id,
    )
    if not spec.copy_head:
        return Qwen3Config(**sizes)
    return CopyHeadConfig(copy_head_dim=spec.copy_head_dim, copy_induction=spec.copy_induction,
                          copy_induction_run=spec.copy_induction_run,
                          copy_boundary_token_id=copy_boundary_token_id if spec.copy_from_read else None, **sizes)


def build_tiny_model(
    corpus: Iterable[str], spec: TinyModelSpec, seed: int, chat_template: str
) -> tuple[Qwen3ForCausalLM, PreTrainedTokenizerFast]:
    """Train the tokenizer on `corpus` and initialise a `Qwen3ForCausalLM` of `spec`'s size from `seed` (with a copy
    head, `trainers.copy_model`, when `spec.copy_head`).

    `corpus` should be the conversations rendered with `chat_template` (see `render_corpus_text`), so that the
    merges fit the text the model is trained on.
    """
    tokenizer = train_tokenizer(corpus, spec, chat_template)
    boundary = int(cast(int, tokenizer.convert_tokens_to_ids("<|im_start|>"))) if spec.copy_from_read else None
    config = tiny_model_config(spec, len(tokenizer), tokenizer.eos_token_id, tokenizer.pad_token_id, boundary)
    # The seed fixes the initial weights, so two runs on the same data start from the same model.
    torch.manual_seed(seed)
    model = CopyHeadForCausalLM(config) if isinstance(config, CopyHeadConfig) else Qwen3ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model, tokenizer
