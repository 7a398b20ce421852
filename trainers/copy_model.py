"""A Qwen3-architecture causal LM with a copy head (a pointer-generator), for models trained from scratch on CPU.

An agent carries values over: the ids, paths, names and amounts it read in a tool result go into its next call.
A transformer of a few million parameters trained for half an hour learns the call format quickly but copies
values poorly (docs/learning.md: 0.61 of carried tokens right at 30 CPU-minutes, and one wrong token fails an
episode). Pretrained models bring that ability from pretraining; a model trained from scratch does not.

The copy head gives the model a direct way to copy, as in pointer-generator networks (See et al., 2017,
"Get To The Point"): at every position a query attends over the keys of all earlier positions; the attention
weights, summed per token id, form a copy distribution over the vocabulary; a learned gate mixes it with the LM
head's softmax. The model's `logits` are the log of that mixture (a normalised distribution, so softmax, sampling,
greedy decoding and cross-entropy work on them unchanged).

The copy keys of earlier positions ride along with the KV cache (`_copy_memory` on the cache object), so cached,
batched and left-padded generation give what one full forward pass gives (`tests/test_copy_model.py`).

TRL's trainers compute log-probabilities through a fused LM head that multiplies the backbone's hidden states by
the LM head's weights directly; that path cannot see the copy head. `install_fused_lm_head` replaces it on a
copy-head model by one that returns the same fields (`FusedCausalLMOutput`) from the model's own distribution;
`trainers.sft` and `trainers.rl` install it after TRL patched the model. The checkpoint's config has its own
`model_type`, registered with the Auto classes when this module is imported, so
`AutoModelForCausalLM.from_pretrained` loads it.
"""

from __future__ import annotations

import contextlib
import functools
import math
import types
from dataclasses import dataclass, fields
from typing import Any

import torch
from torch import nn
from transformers import AutoConfig, AutoModelForCausalLM, Qwen3Config, Qwen3ForCausalLM
from transformers.modeling_outputs import CausalLMOutputWithPast

__all__ = [
    "CopyHeadConfig",
    "CopyHeadForCausalLM",
    "attach_copy_memory",
    "cached_copy_memory",
    "install_fused_lm_head",
    "uses_copy_head",
]

_MIN_ROOM = 256  # positions of spare room the copy memory allocates when it grows, at least
_FLOOR = 1e-9  # added to the mixture before the log: a token neither head proposes keeps a finite logit
_INDUCTION_PRIOR = 2.0  # the initial weight of a match, in logits of the copy attention
_INDUCTION_SHIFTS = (1, 2)  # matched: the token just written with the one before a key, and the two before those


class CopyHeadConfig(Qwen3Config):
    """Qwen3's config plus the width of the copy head's queries and keys, and optionally the token that opens a
    message (`copy_boundary_token_id`, e.g. `<|im_start|>`): with it, a position copies only from messages before
    its own, so the model copies what it read, never the tokens it is writing (which can feed a loop).

    `copy_induction` adds to each copy score a learned, per-position weight times whether the token before the
    earlier position equals the token just written, and another for the token before that (an exact match of
    token ids, `_INDUCTION_SHIFTS`): once the first token of a value is copied, the rest of it follows from where
    it was read (the induction-head pattern, Olsson et al. 2022, given to the model instead of left for it to form
    from scratch). Values span several tokens (digits are single tokens), and one wrong token fails an episode.

    `copy_induction_run` (n >= 1) replaces those two independent matches by a run: depth d counts only where the
    d tokens up to the one just written equal the d tokens before the earlier position, for d = 1..n, each depth
    with its own learned weight, so the score grows with the length of the common run. Two matched tokens do not
    tell apart the places a digit pair occurs (`59` is in `PO-62599` and in `CC-9596`, so after `PO-6259` the
    two-token match credits both continuations the same); the run credits the one read from where it was read.
    """

    model_type = "coworkenv_copy_qwen3"

    def __init__(self, copy_head_dim: int = 64, copy_boundary_token_id: int | None = None,
                 copy_induction: bool = False, copy_induction_run: int = 0, **kwargs: Any) -> None:
        if copy_induction_run < 0 or (copy_induction_run and not copy_induction):
            raise ValueError(f"copy_induction_run={copy_induction_run}: give 0 (two independent matches) or a run "
                             "length >= 1 together with copy_induction=True")
        self.copy_head_dim = copy_head_dim
        self.copy_boundary_token_id = copy_boundary_token_id
        self.copy_induction = copy_induction
        self.copy_induction_run = copy_induction_run
        super().__init__(**kwargs)


class _CopyMemory:
    """The copy keys, token ids and validity of the positions a KV cache holds: views of buffers with room to grow,
    so a decode step writes its position instead of copying the whole memory."""

    def __init__(self, keys: torch.Tensor, ids: torch.Tensor, valid: torch.Tensor,
                 buffers: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None) -> None:
        self.keys, self.ids, self.valid = keys, ids, valid
        self._buffers = buffers

    def extended(self, past: int, keys: torch.Tensor, ids: torch.Tensor, valid: torch.Tensor) -> _CopyMemory:
        """This memory's first `past` positions followed by the given ones (which then own the buffers' room)."""
        end = past + keys.shape[1]
        buffers, self._buffers = self._buffers, None
        if buffers is None or past != self.keys.shape[1] or end > buffers[0].shape[1]:
            room = end + max(end // 2, _MIN_ROOM)
            buffers = (keys.new_empty(keys.shape[0], room, keys.shape[2]), ids.new_empty(ids.shape[0], room),
                       valid.new_empty(valid.shape[0], room))
            for buffer, held in zip(buffers, (self.keys, self.ids, self.valid), strict=True):
                buffer[:, :past] = held[:, :past]
        for buffer, new in zip(buffers, (keys, ids, valid), strict=True):
            buffer[:, past:end] = new
        return _CopyMemory(buffers[0][:, :end], buffers[1][:, :end], buffers[2][:, :end], buffers)


def cached_copy_memory(cache: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None:
    """(copy keys, token ids, validity) of the positions a KV cache holds, each (batch, positions, ...); None when
    the cache was filled by a model without a copy head."""
    memory = getattr(cache, "_copy_memory", None)
    return None if memory is None else (memory.keys, memory.ids, memory.valid)


def attach_copy_memory(cache: Any, keys: torch.Tensor, ids: torch.Tensor, valid: torch.Tensor) -> None:
    """Give a KV cache assembled outside the model (e.g. from rows of earlier caches) the copy memory of its
    positions, as `cached_copy_memory` returned it, so the copy head sees what a full forward pass would."""
    if not keys.shape[:2] == ids.shape == valid.shape:
        raise ValueError(f"copy memory shapes disagree: keys {tuple(keys.shape)}, ids {tuple(ids.shape)}, "
                         f"valid {tuple(valid.shape)}; pass (batch, positions) for all three")
    cache._copy_memory = _CopyMemory(keys, ids, valid.bool())


# The KV cache's name in model outputs and forward arguments: transformers 5.2x renamed `past_key_values` to
# `cache`; releases before the rename (e.g. 5.17) still use the old name.
_CACHE_FIELD = "cache" if "cache" in {f.name for f in fields(CausalLMOutputWithPast)} else "past_key_values"


@dataclass
class CopyHeadOutput(CausalLMOutputWithPast):
    """The causal LM output, plus (with `pointer_loss=True` and labels) the copy head's own negative log-likelihood of
    each scored label: 0 where the label occurs nowhere the position may copy from; and the weight the gate gives
    the copy head at each position (batch, positions, 1)."""

    pointer_nll: torch.Tensor | None = None
    copy_weight: torch.Tensor | None = None


def _pointer_nll(copied: torch.Tensor, targets: torch.Tensor, ids: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """-log of the copy distribution's mass on each target (batch, queries), where the target can be copied."""
    picked = copied.gather(-1, targets.clamp(min=0)[..., None]).squeeze(-1)
    available = ((ids[:, None, :] == targets[:, :, None]) & allowed).any(-1) & (targets != -100)
    return torch.where(available, -torch.log(picked + _FLOOR), 0.0)


def _induction_shifts(config: Any) -> tuple[int, ...]:
    """How far back the induction match looks: 1..n under a run of n, else the two independent shifts."""
    run = int(getattr(config, "copy_induction_run", 0) or 0)
    return tuple(range(1, run + 1)) if run else _INDUCTION_SHIFTS


class CopyHeadForCausalLM(Qwen3ForCausalLM):
    """`Qwen3ForCausalLM` whose next-token distribution mixes the LM head with a copy of earlier tokens."""

    config_class = CopyHeadConfig

    def __init__(self, config: CopyHeadConfig) -> None:
        super().__init__(config)
        width = config.copy_head_dim
        self.copy_query = nn.Linear(config.hidden_size, width, bias=False)
        self.copy_key = nn.Linear(config.hidden_size, width, bias=False)
        self.copy_gate = nn.Linear(config.hidden_size, 1)
        self.induction_shifts = _induction_shifts(config)
        self.copy_induction_weight = (nn.Linear(config.hidden_size, len(self.induction_shifts))
                                      if getattr(config, "copy_induction", False) else None)
        self.post_init()
        if self.copy_induction_weight is not None:  # a match counts from the first step; training tunes it
            with torch.no_grad():
                self.copy_induction_weight.bias.fill_(_INDUCTION_PRIOR)

    def _induction_scores(self, hidden: torch.Tensor, memory: _CopyMemory, positions: torch.Tensor) -> torch.Tensor:
        """Per query and earlier position: sum over shifts s of weight_s(query) x [the token s - 1 before the query
        is the token s before the earlier position] (under `copy_induction_run`: and so are all shallower ones)."""
        assert self.copy_induction_weight is not None
        keys_side = torch.where(memory.valid, memory.ids, -1)
        query_side = torch.where(memory.valid, memory.ids, -2)  # padding never matches padding
        weights = self.copy_induction_weight(hidden).float()  # (batch, queries, shifts)
        total = memory.ids.shape[1]
        steps = torch.arange(total, device=hidden.device)
        run = bool(getattr(self.config, "copy_induction_run", 0))
        out = matched = None
        for index, shift in enumerate(self.induction_shifts):
            before_key = nn.functional.pad(keys_side[:, : total - shift], (shift, 0), value=-1)
            at = positions - (shift - 1)  # the query's own token for shift 1, the one before it for shift 2
            before_query = torch.where(at >= 0, query_side[:, at.clamp(min=0)], -2)
            match = (before_query[:, :, None] == before_key[:, None, :]) & (steps[None, None, :] >= shift)
            if run:
                match = match if matched is None else match & matched
                matched = match
            term = weights[..., index:index + 1] * match
            out = term if out is None else out + term
        assert out is not None
        return out

    def _memory(self, cache: Any, keys: torch.Tensor, ids: torch.Tensor, valid: torch.Tensor) -> _CopyMemory:
        """Earlier positions (from the cache's memory) followed by this call's; stored back on the cache."""
        new = keys.shape[1]
        memory = getattr(cache, "_copy_memory", None) if cache is not None else None
        if memory is not None:
            past = cache.get_seq_length() - new  # the KV cache already holds this call's positions
            if memory.keys.shape[1] < past:
                raise RuntimeError("the copy memory lost positions the KV cache holds; do not crop the cache")
            memory = memory.extended(past, keys, ids, valid)
        else:
            memory = _CopyMemory(keys, ids, valid)
        if cache is not None:
            cache._copy_memory = memory
        return memory

    def forward(  # type: ignore[override]  # same parameters as Qwen3ForCausalLM.forward
        self,
        input_ids: torch.LongTensor | None = None,
        attention_mask: torch.Tensor | None = None,
        position_ids: torch.LongTensor | None = None,
        cache: Any = None,
        inputs_embeds: torch.Tensor | None = None,
        labels: torch.LongTensor | None = None,
        use_cache: bool | None = None,
        logits_to_keep: int | torch.Tensor = 0,
        pointer_loss: bool = False,
        **kwargs: Any,
    ) -> CopyHeadOutput:
        if input_ids is None:
            raise ValueError("the copy head copies token ids: pass input_ids, not inputs_embeds")
        if "past_key_values" in kwargs:  # the name before transformers 5.2x
            cache = kwargs.pop("past_key_values")
        outputs = self.model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                             inputs_embeds=inputs_embeds, use_cache=use_cache, **{_CACHE_FIELD: cache}, **kwargs)
        hidden = outputs.last_hidden_state  # (batch, new, hidden)
        new = input_ids.shape[1]
        valid_new = (attention_mask[:, -new:] if attention_mask is not None
                     else torch.ones_like(input_ids)).bool()
        memory = self._memory(getattr(outputs, _CACHE_FIELD) if use_cache else None, self.copy_key(hidden), input_ids, valid_new)
        total = memory.keys.shape[1]
        positions = torch.arange(total - new, total, device=hidden.device)  # absolute positions of the queries
        if labels is not None:  # score only positions whose next token carries a label
            scored = (labels[:, 1:] != -100).any(dim=0).nonzero().squeeze(-1)
            positions = positions[scored]
            hidden = hidden[:, scored]
        elif isinstance(logits_to_keep, int) and logits_to_keep > 0:
            positions, hidden = positions[-logits_to_keep:], hidden[:, -logits_to_keep:]
        vocab = torch.softmax(self.lm_head(hidden).float(), dim=-1)
        scores = self.copy_query(hidden) @ memory.keys.transpose(1, 2) / math.sqrt(self.config.copy_head_dim)
        if self.copy_induction_weight is not None:
            scores = scores.float() + self._induction_scores(hidden, memory, positions)
        steps = torch.arange(total, device=hidden.device)
        allowed = (steps[None, :] <= positions[:, None])[None] & memory.valid[:, None]
        boundary = getattr(self.config, "copy_boundary_token_id", None)
        if boundary is not None:  # only from messages before the one each position is in
            opened = torch.where(memory.ids == boundary, steps, -1).cummax(dim=1).values  # (batch, total)
            allowed = allowed & (steps[None, None, :] < opened[:, positions][:, :, None])
        attention = torch.softmax(scores.float().masked_fill(~allowed, float("-inf")), dim=-1).nan_to_num(0.0)
        copied = torch.zeros_like(vocab).scatter_add_(2, memory.ids[:, None, :].expand(-1, hidden.shape[1], -1),
                                                      attention)
        # Where nothing may be copied, the LM head alone speaks (the mixture stays a distribution).
        gate = torch.where(allowed.any(-1, keepdim=True), torch.sigmoid(self.copy_gate(hidden).float()), 1.0)
        logits = torch.log(gate * vocab + (1 - gate) * copied + _FLOOR)
        loss = pointer_nll = None
        if labels is not None:
            targets = labels[:, 1:][:, scored]
            loss = nn.functional.nll_loss(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=-100)
            if pointer_loss:
                pointer_nll = _pointer_nll(copied, targets, memory.ids, allowed)
        return CopyHeadOutput(loss=loss, logits=logits, pointer_nll=pointer_nll, copy_weight=1 - gate,
                              **{_CACHE_FIELD: getattr(outputs, _CACHE_FIELD) if use_cache else None})


def install_fused_lm_head(model: Any, temperature: float = 1.0, unpad_rows: bool = True,
                          pointer_loss_weight: float = 0.0) -> None:
    """Give a copy-head model the `fused_lm_head=True` call TRL's SFT and GRPO trainers make (per-token log-probs,
    entropy and top-1 hits of the labels, and the mean negative log-likelihood), computed from its own mixture.

    With `pointer_loss_weight` > 0 (SFT only), while the model trains each label's log-prob also carries
    `- weight x` the copy head's own negative log-likelihood of it, where the label can be copied: the pointer is
    trained on every value it could copy, also where the gate gives the position to the LM head. Without it the
    gate can settle on the LM head early and the pointer never learns those positions (docs/learning.md, L11: at
    `"query":"` the gate gave the LM head 0.93-1.00 and the pointer put ~0 on the key the request named). GRPO
    must not use it: its log-probs are the policy's.

    With `unpad_rows`, rows padded only at their ends (TRL's layout) run one at a time without their padding:
    on CPU about 2x faster than the padded batch for GRPO's groups (`benchmarks/bench_rl_step.py`), same values.

    Call it after the trainer's constructor, which patches `model.forward` with TRL's own fused head.
    """
    from trl.trainer.utils import FusedCausalLMOutput  # TRL is a training dependency only

    if not isinstance(model, CopyHeadForCausalLM):
        raise TypeError(f"{type(model).__name__} has no copy head; TRL's own fused LM head serves it")
    own: Any = type(model).forward

    @functools.wraps(own)
    def forward(self: CopyHeadForCausalLM, *args: Any, fused_lm_head: bool = False, labels: Any = None,
                shift_labels: Any = None, num_items_in_batch: Any = None, **kwargs: Any) -> Any:
        if not fused_lm_head:
            return own(self, *args, labels=labels, **kwargs)
        kwargs["use_cache"] = False
        pointer = pointer_loss_weight > 0 and self.training
        targets = labels[:, 1:] if shift_labels is None else shift_labels
        mask = targets != -100
        # With labels the model scores only the labelled positions (aligned so that position t predicts t + 1).
        aligned = labels if shift_labels is None else torch.nn.functional.pad(shift_labels, (1, 0), value=-100)
        spans = _row_spans(kwargs.get("attention_mask"), aligned, kwargs) if unpad_rows and not args else None
        if spans is None:
            scored = mask.any(dim=0).nonzero().squeeze(-1)
            rows = torch.arange(mask.shape[0], device=mask.device)[:, None].expand(-1, len(scored))
            columns = scored[None].expand(mask.shape[0], -1)
            whole = own(self, *args, labels=aligned, pointer_loss=pointer, **kwargs)
            logits, pointer_nll = whole.logits, whole.pointer_nll
        else:
            # Each row alone, without its padding: causal attention with no mask to build (the fast kernels) and a
            # copy head over the row's own positions; the same log-probs as the padded batch, up to float rounding.
            input_ids = kwargs.pop("input_ids")
            kwargs.pop("attention_mask")
            row_logits, row_pointer, row_index, column_index = [], [], [], []
            for row, (start, end) in enumerate(spans):
                local = (aligned[row, start + 1:end] != -100).nonzero().squeeze(-1)
                if len(local) == 0:
                    continue
                out = own(self, input_ids=input_ids[row:row + 1, start:end], labels=aligned[row:row + 1, start:end],
                          pointer_loss=pointer, **kwargs)
                row_logits.append(out.logits[0])
                if out.pointer_nll is not None:
                    row_pointer.append(out.pointer_nll[0])
                row_index.append(torch.full_like(local, row))
                column_index.append(local + start)
            logits, rows, columns = torch.cat(row_logits), torch.cat(row_index), torch.cat(column_index)
            pointer_nll = torch.cat(row_pointer) if row_pointer else None
        logits = torch.log_softmax(logits / temperature, dim=-1)
        picked = targets[rows, columns]
        chosen = logits.gather(-1, picked.clamp(min=0)[..., None]).squeeze(-1)
        if pointer_nll is not None:
            chosen = chosen - pointer_loss_weight * pointer_nll
        entropy = -(logits.exp() * logits).sum(-1)
        top1 = (logits.argmax(-1) == picked).to(logits.dtype)

        def spread(values: torch.Tensor) -> torch.Tensor:
            return values.new_zeros(mask.shape).index_put((rows, columns), values).masked_fill(~mask, 0)

        log_probs = spread(chosen)
        tokens = mask.sum().clamp(min=1) if num_items_in_batch is None else num_items_in_batch
        return FusedCausalLMOutput(loss=-log_probs.sum() / tokens, log_probs=log_probs, entropy=spread(entropy),
                                   is_top1=spread(top1), label_mask=mask)

    model.forward = types.MethodType(forward, model)  # type: ignore[method-assign]


def _row_spans(attention_mask: torch.Tensor | None, labels: torch.Tensor,
               kwargs: dict[str, Any]) -> list[tuple[int, int]] | None:
    """Each row's [start, end) of attended tokens when rows are padded only at their ends (TRL's left-padded prompts
    and right-padded completions), nothing else depends on the padded layout and some row has a label to score
    after its first token; None otherwise (the padded batch is scored as it is)."""
    if attention_mask is None or attention_mask.ndim != 2 or set(kwargs) - {"input_ids", "attention_mask", "use_cache"}:
        return None
    spans = []
    for row in attention_mask.bool():
        where = row.nonzero().squeeze(-1)
        if len(where) == 0:
            spans.append((0, 0))
            continue
        start, end = int(where[0]), int(where[-1]) + 1
        if end - start != len(where):
            return None  # a gap inside the row: only the padded batch's mask describes it
        spans.append((start, end))
    labelled = any(bool((labels[row, start + 1:end] != -100).any()) for row, (start, end) in enumerate(spans))
    return spans if labelled else None


def uses_copy_head(model: Any) -> bool:
    """Whether `model` (possibly wrapped) is a copy-head model, whose loss must come from its own forward."""
    return isinstance(getattr(model, "module", model), CopyHeadForCausalLM)


def _register() -> None:
    """Let the Auto classes load copy-head checkpoints (a second registration, e.g. on reload, is a no-op)."""
    for register, args in ((AutoConfig.register, (CopyHeadConfig.model_type, CopyHeadConfig)),
                           (AutoModelForCausalLM.register, (CopyHeadConfig, CopyHeadForCausalLM))):
        with contextlib.suppress(ValueError):
            register(*args)  # type: ignore[operator]


_register()
