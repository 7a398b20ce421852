"""The copy-head model (trainers.copy_model): a normalised distribution, the same answer cached or not, batched or
not, saved or not; TRL's fused-head call answered from the model's own mixture; trainable through TRL's SFTTrainer;
and it learns to copy unseen ids where the plain model of the same size does not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from transformers import AutoModelForCausalLM, DynamicCache  # noqa: E402

from tests.test_trainers_sft import _tiny_test_config, make_sft_rows, write_sft_shards  # noqa: E402
from trainers.copy_model import CopyHeadConfig, CopyHeadForCausalLM, install_fused_lm_head, uses_copy_head  # noqa: E402

SIZES: dict[str, Any] = dict(vocab_size=61, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=256,
                             tie_word_embeddings=True, eos_token_id=1, pad_token_id=0)


def _model(seed: int = 0, induction: bool | int = False) -> CopyHeadForCausalLM:
    """induction: False (plain keys), True (the two-token match) or a run length (the run match)."""
    torch.manual_seed(seed)
    run = 0 if isinstance(induction, bool) else induction
    return CopyHeadForCausalLM(CopyHeadConfig(copy_head_dim=16, copy_induction=bool(induction),
                                              copy_induction_run=run, **SIZES)).eval()


induction = pytest.mark.parametrize("induction", [False, True, 4], ids=["plain-keys", "induction-keys", "induction-run"])


@induction
@torch.no_grad()
def test_the_mixture_is_a_distribution_and_caching_changes_nothing(induction: bool | int) -> None:
    model = _model(0, induction)
    ids = torch.randint(2, 61, (1, 24))
    full = model(input_ids=ids).logits
    assert torch.allclose(full.exp().sum(-1), torch.ones(1, 24), atol=1e-4)
    cache = DynamicCache(config=model.config)
    parts = [model(input_ids=ids[:, a:b], use_cache=True, cache=cache).logits for a, b in ((0, 10), (10, 11), (11, 24))]
    assert torch.allclose(torch.cat(parts, 1), full, atol=1e-5)


@induction
@torch.no_grad()
def test_generation_cached_batched_and_left_padded_matches_plain_greedy(induction: bool | int) -> None:
    model = _model(1, induction)
    ids = torch.randint(2, 61, (1, 16))
    generated = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=8, do_sample=False)
    greedy = ids
    for _ in range(8):  # no cache, one full forward per token
        greedy = torch.cat([greedy, model(input_ids=greedy).logits[:, -1].argmax(-1, keepdim=True)], 1)
    assert torch.equal(generated, greedy)
    padded = torch.cat([torch.zeros(1, 5, dtype=torch.long), ids], 1)
    other = torch.cat([ids[:, :5], ids], 1)
    mask = torch.stack([torch.cat([torch.zeros(5), torch.ones(16)]), torch.ones(21)]).long()
    batch = model.generate(input_ids=torch.cat([padded, other]), attention_mask=mask, max_new_tokens=8, do_sample=False)
    assert torch.equal(batch[0, 5:], generated[0])


@induction
@torch.no_grad()
def test_a_checkpoint_loads_with_the_auto_classes(tmp_path: Path, induction: bool | int) -> None:
    model = _model(2, induction)
    ids = torch.randint(2, 61, (1, 12))
    model.save_pretrained(tmp_path)
    assert json.loads((tmp_path / "config.json").read_text())["model_type"] == "coworkenv_copy_qwen3"
    loaded = AutoModelForCausalLM.from_pretrained(tmp_path).eval()
    assert uses_copy_head(loaded) and torch.allclose(loaded(input_ids=ids).logits, model(input_ids=ids).logits)


@induction
def test_labels_score_only_labelled_positions_and_the_fused_call_agrees(induction: bool | int) -> None:
    model = _model(3, induction)
    ids = torch.randint(2, 61, (2, 20))
    labels = ids.clone()
    labels[:, :8] = -100
    labels[1, 15:] = -100
    full = torch.log_softmax(model(input_ids=ids).logits, -1)
    nll = -full[:, :-1].gather(-1, ids[:, 1:, None]).squeeze(-1)
    expected = nll[labels[:, 1:] != -100].mean()
    assert torch.allclose(model(input_ids=ids, labels=labels).loss, expected, atol=1e-5)
    install_fused_lm_head(model)
    fused = model(input_ids=ids, labels=labels, fused_lm_head=True)
    assert torch.allclose(fused.loss, expected, atol=1e-5)
    assert torch.allclose(fused.log_probs, (-nll).masked_fill(labels[:, 1:] == -100, 0), atol=1e-5)
    assert fused.entropy.shape == fused.is_top1.shape == labels[:, 1:].shape
    fused.loss.backward()
    assert model.copy_query.weight.grad is not None and model.copy_gate.weight.grad is not None
    with pytest.raises(TypeError, match="no copy head"):
        install_fused_lm_head(torch.nn.Linear(2, 2))


@induction
def test_the_fused_call_scores_padded_rows_as_each_row_alone(induction: bool | int) -> None:
    """TRL pads prompts on the left and completions on the right; the fused call gives each row's log-probs as that
    row alone would have them, and as the padded batch's own forward does, and trains through them."""
    model = _model(4, induction)
    ids = torch.randint(2, 61, (3, 30))
    mask = torch.ones_like(ids)
    mask[0, :4] = 0
    mask[1, 24:] = 0
    mask[2, :3], mask[2, 28:] = 0, 0
    labels = ids.masked_fill(mask == 0, -100)
    labels[:, :12] = -100
    with torch.no_grad():
        padded = torch.log_softmax(model(input_ids=ids, attention_mask=mask).logits, -1)
        alone = torch.zeros(3, 29)
        for row in range(3):
            start, end = int(mask[row].nonzero()[0]), int(mask[row].nonzero()[-1]) + 1
            own = torch.log_softmax(model(input_ids=ids[row:row + 1, start:end]).logits[0], -1)
            alone[row, start:end - 1] = own[:-1].gather(-1, ids[row, start + 1:end, None]).squeeze(-1)
    labelled = labels[:, 1:] != -100
    alone = alone.masked_fill(~labelled, 0)
    install_fused_lm_head(model)
    fused = model(input_ids=ids, attention_mask=mask, labels=labels, fused_lm_head=True)
    assert torch.allclose(fused.log_probs, alone, atol=1e-5)
    from_padded = padded[:, :-1].gather(-1, ids[:, 1:, None]).squeeze(-1).masked_fill(~labelled, 0)
    assert torch.allclose(fused.log_probs, from_padded, atol=1e-4)
    assert torch.allclose(fused.loss, -alone.sum() / labelled.sum(), atol=1e-5)
    fused.loss.backward()
    assert model.copy_key.weight.grad is not None and model.model.layers[0].self_attn.q_proj.weight.grad is not None


def _copy_batch(generator: torch.Generator, size: int = 16) -> tuple[torch.Tensor, torch.Tensor]:
    """`key value ... SEP key` -> `value`: values are random tokens, new in every row (nothing to memorise)."""
    keys = torch.stack([torch.randperm(10, generator=generator)[:4] + 2 for _ in range(size)])
    values = torch.randint(12, 61, (size, 4), generator=generator)
    ask = torch.randint(0, 4, (size,), generator=generator)
    rows = torch.stack([keys, values], -1).reshape(size, 8)
    ids = torch.cat([rows, torch.full((size, 1), 1), keys.gather(1, ask[:, None]), values.gather(1, ask[:, None])], 1)
    labels = torch.full_like(ids, -100)
    labels[:, -1] = ids[:, -1]
    return ids, labels


def _copy_accuracy(model: torch.nn.Module, steps: int) -> tuple[float, float]:
    """(exact answers, answers that are one of the row's values) after `steps` steps on `_copy_batch`."""
    generator = torch.Generator().manual_seed(0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(steps):
        ids, labels = _copy_batch(generator)
        model(input_ids=ids, labels=labels).loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    ids, _ = _copy_batch(torch.Generator().manual_seed(99), 256)
    with torch.no_grad():
        predicted = model(input_ids=ids[:, :-1]).logits[:, -1].argmax(-1)
    in_context = (predicted[:, None] == ids[:, 1:8:2]).any(-1)
    return float((predicted == ids[:, -1]).float().mean()), float(in_context.float().mean())


def test_the_copy_head_learns_to_copy_values_from_its_context_where_the_plain_model_does_not() -> None:
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(0)
    plain = _copy_accuracy(Qwen3ForCausalLM(Qwen3Config(**SIZES)), 150)
    copying = _copy_accuracy(_model(0).train(), 150)
    # The values are new in every row: only copying from the context can name one.
    assert copying[1] >= 0.9 and copying[1] >= plain[1] + 0.3, (plain, copying)
    assert copying[0] >= plain[0], (plain, copying)


def _span_batch(generator: torch.Generator, size: int = 16, width: int = 4,
                symbols: int = 49) -> tuple[torch.Tensor, torch.Tensor]:
    """`key v1..v4 key v1..v4 key v1..v4 SEP key` -> `v1..v4`: a value of several tokens, new in every row, each
    token one of `symbols` (few symbols: the values share pairs of tokens, as ids of digits do)."""
    keys = torch.stack([torch.randperm(10, generator=generator)[:3] + 2 for _ in range(size)])
    values = torch.randint(12, 12 + symbols, (size, 3, width), generator=generator)
    ask = torch.randint(0, 3, (size,), generator=generator)
    rows = torch.cat([keys[:, :, None], values], -1).reshape(size, -1)
    answer = values[torch.arange(size), ask]
    ids = torch.cat([rows, torch.full((size, 1), 1), keys.gather(1, ask[:, None]), answer], 1)
    labels = torch.full_like(ids, -100)
    labels[:, -width:] = answer
    return ids, labels


def _span_accuracy(model: torch.nn.Module, steps: int, width: int = 4, symbols: int = 49) -> float:
    """Values copied whole by greedy decoding after `steps` steps on `_span_batch`."""
    generator = torch.Generator().manual_seed(0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(steps):
        ids, labels = _span_batch(generator, width=width, symbols=symbols)
        model(input_ids=ids, labels=labels).loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    ids, _ = _span_batch(torch.Generator().manual_seed(99), 128, width, symbols)
    with torch.no_grad():
        decoded = ids[:, :-width]
        for _ in range(width):
            decoded = torch.cat([decoded, model(input_ids=decoded).logits[:, -1].argmax(-1, keepdim=True)], 1)
    return float((decoded[:, -width:] == ids[:, -width:]).all(-1).float().mean())


def test_induction_keys_copy_a_value_of_several_tokens_whole() -> None:
    # The plain copy head must learn to point at the next token of a value by position; the induction match
    # follows the value from where it was read (docs/learning.md: multi-token values are what episodes fail on).
    plain, induction = _span_accuracy(_model(0).train(), 20), _span_accuracy(_model(0, True).train(), 20)
    assert induction >= 0.9 and induction >= plain + 0.5, (plain, induction)


def test_the_run_match_copies_values_that_share_pairs_of_tokens_whole() -> None:
    # Ids of digits share pairs (`59` in `PO-62599` and in `CC-9596`): after `PO-6259` the two-token match credits
    # both continuations alike, and the student stitched a value from two cells (docs/learning.md, L21). Values of
    # 6 tokens over 3 symbols share pairs in almost every row; the run match follows the one being copied.
    pairs = _span_accuracy(_model(0, True).train(), 20, width=6, symbols=3)
    run = _span_accuracy(_model(0, 6).train(), 20, width=6, symbols=3)
    assert run >= 0.9 and run >= pairs + 0.5, (pairs, run)


def test_a_run_match_needs_the_induction_match() -> None:
    with pytest.raises(ValueError, match="copy_induction=True"):
        CopyHeadConfig(copy_head_dim=16, copy_induction=False, copy_induction_run=4, **SIZES)


def test_sft_through_trl_trains_a_copy_head_checkpoint_the_local_backend_loads(tmp_path: Path) -> None:
    from trainers.local_backend import LocalTransformersBackend
    from trainers.sft import train_sft

    config = _tiny_test_config()
    tiny = config.model.tiny.model_copy(update={"copy_head": True, "copy_head_dim": 16})
    config = config.model_copy(update={"model": config.model.model_copy(update={"tiny": tiny})})
    repo = write_sft_shards(tmp_path / "repo", make_sft_rows(24))
    result = train_sft(config, repo, tmp_path / "ckpt")
    log = json.loads((tmp_path / "ckpt" / "training_log.json").read_text())
    losses = [entry["loss"] for entry in log["steps"]]
    assert result.steps == 12 and sum(losses[-3:]) < 0.8 * sum(losses[:3]), losses
    backend = LocalTransformersBackend(tmp_path / "ckpt")
    assert uses_copy_head(backend.model)


@torch.no_grad()
def test_copying_only_from_earlier_messages_never_copies_the_message_being_written() -> None:
    torch.manual_seed(4)
    model = CopyHeadForCausalLM(CopyHeadConfig(copy_head_dim=16, copy_boundary_token_id=1, **SIZES)).eval()
    torch.nn.init.constant_(model.copy_gate.bias, -30.0)  # the gate picks the copy head alone
    read = torch.randint(2, 30, (1, 12))  # what was read: ids 2..29
    written = torch.randint(30, 61, (1, 8))  # the message being written: ids 30..60 only
    ids = torch.cat([read, torch.tensor([[1]]), written], 1)
    probs = model(input_ids=ids).logits.exp()[0]
    assert float(probs[13:, 30:].sum(-1).max()) < 1e-3  # no mass on what this message wrote
    assert torch.allclose(probs.sum(-1), torch.ones(21), atol=1e-4)  # before any boundary: the LM head alone
    cache = DynamicCache(config=model.config)
    parts = [model(input_ids=ids[:, a:b], use_cache=True, cache=cache).logits for a, b in ((0, 13), (13, 21))]
    assert torch.allclose(torch.cat(parts, 1), model(input_ids=ids).logits, atol=1e-5)


def _pointer_accuracy(weight: float, steps: int = 150) -> float:
    """Trained through the fused call SFT makes, with the gate held on the LM head: how often the copy head alone
    then names the asked value (new in every row) on `_copy_batch`."""
    model = _model(0).train()
    install_fused_lm_head(model, pointer_loss_weight=weight)
    torch.nn.init.zeros_(model.copy_gate.weight)
    torch.nn.init.constant_(model.copy_gate.bias, 30.0)  # the LM head alone speaks, as the gate settled in L11
    model.copy_gate.requires_grad_(False)
    generator = torch.Generator().manual_seed(0)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3)
    for _ in range(steps):
        ids, labels = _copy_batch(generator)
        model(input_ids=ids, labels=labels, fused_lm_head=True).loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    torch.nn.init.constant_(model.copy_gate.bias, -30.0)  # now read the copy head alone
    ids, _ = _copy_batch(torch.Generator().manual_seed(99), 256)
    with torch.no_grad():
        predicted = model(input_ids=ids[:, :-1]).logits[:, -1].argmax(-1)
    return float((predicted == ids[:, -1]).float().mean())


def test_the_pointer_loss_trains_the_copy_head_where_the_gate_gives_the_position_to_the_lm_head() -> None:
    # Without it the pointer gets no gradient through a closed gate and stays below chance among the row's 4 values
    # (0.04 measured); with it, it learns to point at the asked value (0.75; a free gate: 0.30 at these steps).
    without, with_loss = _pointer_accuracy(0.0), _pointer_accuracy(1.0)
    assert with_loss >= 0.5 and with_loss >= without + 0.4, (without, with_loss)


def test_the_pointer_loss_is_training_only_and_zero_where_nothing_can_be_copied() -> None:
    model = _model(0)
    install_fused_lm_head(model, pointer_loss_weight=0.5)
    ids, labels = _copy_batch(torch.Generator().manual_seed(3), 4)
    plain = model(input_ids=ids, labels=labels, fused_lm_head=True)
    model.train()
    trained = model(input_ids=ids, labels=labels, fused_lm_head=True)
    assert torch.allclose(plain.log_probs, model.eval()(input_ids=ids, labels=labels, fused_lm_head=True).log_probs)
    assert bool((trained.log_probs[plain.label_mask] < plain.log_probs[plain.label_mask] - 1e-4).all())
    out = model(input_ids=ids, labels=labels, pointer_loss=True)
    assert out.pointer_nll is not None and out.pointer_nll.shape == (4, 1) and bool((out.pointer_nll > 0).all())
    ids_unseen = torch.where(ids == 60, 59, ids)  # token 60 now occurs nowhere in the rows ...
    ids_unseen[:, -1] = 60  # ... but as the label
    unseen = torch.where(labels == -100, labels, ids_unseen)
    out = model(input_ids=ids_unseen, labels=unseen, pointer_loss=True)
    assert out.pointer_nll is not None and bool((out.pointer_nll == 0).all())
