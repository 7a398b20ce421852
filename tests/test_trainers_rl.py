"""RL from student rollouts: reward treatments, turn-level advantages, token-level episodes, and GRPO steps through
TRL's GRPOTrainer with scripted episodes (so rewards differ and the credit assignment can be checked exactly)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedTokenizerBase

from coworkenv.agents import NoopPolicy, OraclePolicy, Policy
from coworkenv.apps import TOOLS
from coworkenv.env import Action, Env
from coworkenv.rollout import run_agent
from coworkenv.spec import EnvSpec
from coworkenv.synth.generate import generate_specs
from coworkenv.synth.taxonomy import load_taxonomy
from trainers.local_backend import ChatRenderer
from trainers.rewards import (
    TurnProgress,
    episode_reward,
    reference_call_share,
    turn_advantages,
    turn_progress,
    turn_rewards,
)
from trainers.rl import build_rl_trainer, reference_conversations, train_rl
from trainers.rl_config import RLRunConfig, load_rl_config
from trainers.rl_rollout import RolloutLimits, SamplerFactory, TokenSampler, rollout_episode

# --- reward treatments and advantages: pure arithmetic ----------------------------------------------------------------


def test_reward_treatments_split_the_episode_reward_over_turns() -> None:
    progress = TurnProgress(spec_turns=3, scores=(0.4, 0.4, 1.0), passed=(False, False, True))
    assert turn_rewards(progress, "binary") == [0.0, 0.0, 1.0]
    assert turn_rewards(progress, "partial") == pytest.approx([0.4, 0.0, 0.6])
    assert turn_rewards(progress, "shaped") == pytest.approx([0.4, 0.0, 0.6 / 3])
    assert episode_reward(progress, "binary") == 1.0
    assert episode_reward(progress, "partial") == pytest.approx(1.0)
    assert episode_reward(progress, "shaped") == pytest.approx((0.4 + 0.4 + 1.0) / 3)  # mean per-turn score
    stopped = TurnProgress(spec_turns=3, scores=(0.5,), passed=(False,))  # unreached turns keep the last score
    assert episode_reward(stopped, "shaped") == pytest.approx(0.5)
    assert turn_rewards(stopped, "partial") == [0.5, 0.0, 0.0]
    with pytest.raises(ValueError, match="unknown reward treatment"):
        turn_rewards(progress, "dense")  # type: ignore[arg-type]


def test_call_credit_adds_to_the_score_without_outweighing_it() -> None:
    # A student that never completes the task: every score 0, the calls it made differ.
    failing = [TurnProgress(1, (0.0,), (False,), (c,)) for c in (0.0, 0.5, 1.0)]
    assert [episode_reward(p, "partial", 0.1) for p in failing] == pytest.approx([0.0, 0.05, 0.1])
    assert {episode_reward(p, "partial") for p in failing} == {0.0}  # without call credit: no variance at all
    assert {episode_reward(p, "binary", 0.1) for p in failing} == {0.0}  # binary never takes it
    done = TurnProgress(1, (1.0,), (True,), (0.2,))  # a pass stays 1 whatever the calls
    assert episode_reward(done, "partial", 0.1) == 1.0
    # One more completion check passed (0.25) beats every call made without it.
    assert episode_reward(TurnProgress(1, (0.25,), (False,), (0.0,)), "partial", 0.1) > episode_reward(
        TurnProgress(1, (0.0,), (False,), (1.0,)), "partial", 0.1)
    two = TurnProgress(2, (0.0, 0.5), (False, False), (0.5, 1.0))  # per turn: the gain of the blended metric
    assert turn_rewards(two, "partial", 0.2) == pytest.approx([0.1, 0.6 - 0.1])
    with pytest.raises(ValueError, match="call_credit"):
        turn_rewards(two, "partial", 1.5)


def test_turn_advantages_normalise_each_turn_within_its_group() -> None:
    rewards = [[0.4, 0.6], [0.4, 0.1], [0.0, 1.0], [0.5, 1.0]]  # two groups of two episodes
    grouped = turn_advantages(rewards, group_size=2, scale="group")
    assert grouped[0][0] == grouped[1][0] == 0.0  # same reward for turn 0 within the group: no credit
    assert grouped[0][1] == pytest.approx(0.25 / (0.5 / 2**0.5 + 1e-4))
    assert grouped[1][1] == pytest.approx(-grouped[0][1])
    assert grouped[2][1] == grouped[3][1] == 0.0 and grouped[2][0] < 0 < grouped[3][0]
    plain = turn_advantages(rewards, group_size=2, scale="none")
    assert plain[0] == pytest.approx([0.0, 0.25]) and plain[1] == pytest.approx([0.0, -0.25])
    assert turn_advantages([[1.0], [0.0, 0.5]], 2, "none") == [[0.5], [-0.5, 0.25]]  # a missing turn counts as 0
    with pytest.raises(ValueError, match="groups of 2"):
        turn_advantages(rewards[:3], group_size=2)


# --- episodes in a real env ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spec() -> EnvSpec:
    """A multi-turn env with a short prompt (12 tools): delegate work, then follow up in a second turn."""
    return generate_specs(load_taxonomy(Path("taxonomy"))["delegate_and_follow_up"], 1, 0)[0]


class FirstTurnOnly:
    """Plays the reference solution in the first turn, then only says okay."""

    name = "first-turn-only"

    def __init__(self, spec: EnvSpec) -> None:
        self.oracle = OraclePolicy(spec)

    def act(self, env: Env) -> Action:
        return self.oracle.act(env) if env.turn == 0 else Action.say("Okay.")


@pytest.fixture(scope="module")
def two_turn_spec() -> EnvSpec:
    """A two-turn env whose first turn alone earns part of the score. (delegate_and_follow_up's did not from
    GENERATOR_VERSION 15: its guard that the ticket was last changed only after the delegate answered fails on the
    first turn's own assignment until the second turn's write, so its first turn scored 0 until turn_progress judged a
    turn before the last by the reference's same turn; tests/test_turn_credit.py holds every multi-turn spec to it.)"""
    return generate_specs(load_taxonomy(Path("taxonomy"))["clarify_ambiguous_request"], 1, 1)[0]


def test_turn_progress_scores_each_turn_where_the_agent_left_it(two_turn_spec: EnvSpec) -> None:
    spec = two_turn_spec
    full = turn_progress(run_agent(Env(spec), OraclePolicy(spec)), spec)
    half = turn_progress(run_agent(Env(spec), FirstTurnOnly(spec)), spec)
    noop = turn_progress(run_agent(Env(spec), NoopPolicy()), spec)
    assert full.passed == (False, True) and full.scores[-1] == 1.0
    assert half.scores[0] == full.scores[0] > noop.scores[0]  # the same first turn, judged the same
    assert noop.scores[1] < half.scores[1] < full.scores[1]


def test_reference_call_share_counts_the_reference_calls_made(spec: EnvSpec) -> None:
    oracle = run_agent(Env(spec), OraclePolicy(spec))
    assert reference_call_share(spec, oracle.audit) == 1.0
    assert reference_call_share(spec, run_agent(Env(spec), NoopPolicy()).audit) == 0.0
    first = oracle.audit[0]
    assert reference_call_share(spec, oracle.audit[:1]) == pytest.approx(1 / len(oracle.audit))
    # The same tool with other arguments earns half; twice the same call counts once; a call the env refused, none.
    other = type(first)(0, 0, first.tool, {k: "elsewhere" for k in first.args}, True, None, None, first.time, "", "")
    assert reference_call_share(spec, [other]) == pytest.approx(0.5 / len(oracle.audit))
    assert reference_call_share(spec, [first, first]) == reference_call_share(spec, [first])
    refused = type(first)(0, 0, first.tool, first.args, False, None, "refused", first.time, "", "")
    assert reference_call_share(spec, [refused]) == 0.0
    progress = turn_progress(oracle, spec)
    assert progress.calls[-1] == 1.0 and episode_reward(progress, "partial", 0.1) == 1.0


class FirstCallOnly:
    """The oracle's first message (a read-only look-up in the capabilities tested), then a reply ending the turn."""

    name = "first-call-only"

    def __init__(self, spec: EnvSpec) -> None:
        self.oracle, self.acted = OraclePolicy(spec), False

    def act(self, env: Env) -> Action:
        if self.acted:
            return Action.say("Done.")
        self.acted = True
        return self.oracle.act(env)


def test_call_credit_is_not_cancelled_by_a_guard_the_untouched_world_fails() -> None:
    # correct_bad_data's "the new config of svc-payments keeps every other key" fails before any config is written:
    # it says nothing of a look-up, which earns call credit; a do-nothing episode still earns none (round rl13).
    spec = generate_specs(load_taxonomy(Path("taxonomy"))["correct_bad_data"], 1, 3)[0]
    untouched = Env(spec)
    untouched.reset(tools=False)
    assert untouched.score().guards_failed  # the class this test is about
    looked = turn_progress(run_agent(Env(spec), FirstCallOnly(spec)), spec)
    assert looked.scores[-1] == 0.0 and looked.calls[-1] > 0.0
    assert episode_reward(looked, "partial", 0.1) > 0.0
    assert turn_progress(run_agent(Env(spec), NoopPolicy()), spec).calls[-1] == 0.0


def _tiny_checkpoint(tmp_path_factory: pytest.TempPathFactory, spec: EnvSpec, copy_head: bool) -> Path:
    from trainers.chat_templates import trl_chat_template
    from trainers.tiny_model import TinyModelSpec, build_tiny_model, render_corpus_text

    template = trl_chat_template("qwen3_training")
    sizes = TinyModelSpec(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                          num_key_value_heads=1, head_dim=16, min_token_frequency=1, copy_head=copy_head,
                          copy_head_dim=8)
    model, tokenizer = build_tiny_model(render_corpus_text(reference_conversations([spec]), template), sizes, 0,
                                        template)
    folder = tmp_path_factory.mktemp("rl") / "start"
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory: pytest.TempPathFactory, spec: EnvSpec) -> Path:
    """A tiny randomly initialised Qwen3 model with a tokenizer trained on the env's reference transcript."""
    return _tiny_checkpoint(tmp_path_factory, spec, copy_head=False)


class ScriptedSampler:
    """Emits a policy's next action as the tokens a Qwen model would generate (hermes tool-call text + EOS)."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase, env: Env, policy: Policy) -> None:
        self.tokenizer, self.env, self.policy = tokenizer, env, policy

    def generate(self, ids: Sequence[int], max_new_tokens: int, temperature: float, top_p: float = 1.0,
                 seed: int | None = None) -> list[int]:
        action = self.policy.act(self.env)
        if action.tool_calls:
            call = action.tool_calls[0]
            body = f'<tool_call>\n{json.dumps({"name": call.name, "arguments": call.arguments})}\n</tool_call>'
        else:
            body = action.content or ""
        text = f"<think>\n\n</think>\n\n{body}"
        return [*self.tokenizer.encode(text, add_special_tokens=False), self.tokenizer.eos_token_id][:max_new_tokens]


class LookTwiceFirstTurnOnly(FirstTurnOnly):
    """Repeats the first (read-only) lookup of the reference, plays the first turn, then only says okay."""

    def __init__(self, spec: EnvSpec) -> None:
        super().__init__(spec)
        first = spec.reference[0].steps[0].call
        assert first is not None and TOOLS[first.name].kind == "read"
        self.extra: Action | None = Action.call(first.name, dict(first.arguments))

    def act(self, env: Env) -> Action:
        extra, self.extra = self.extra, None
        return extra if extra is not None else super().act(env)


def scripted(tokenizer: PreTrainedTokenizerBase, second: type[FirstTurnOnly] = FirstTurnOnly) -> SamplerFactory:
    """Episode 0 of every group plays the whole reference solution, episode 1 (`second`) only its first turn."""

    def factory(spec: EnvSpec, env: Env, position: int) -> TokenSampler:
        policy: Policy = OraclePolicy(spec) if position % 2 == 0 else second(spec)
        return ScriptedSampler(tokenizer, env, policy)

    return factory


LIMITS = RolloutLimits(max_new_tokens=400, max_agent_steps=14, max_completion_tokens=2000)


def test_episode_tokens_mark_generated_tokens_and_their_turns(spec: EnvSpec, tiny_checkpoint: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(tiny_checkpoint)
    renderer = ChatRenderer(tokenizer)
    record, tokens = rollout_episode(spec, renderer, scripted(tokenizer), LIMITS, position=0)
    assert record.passed and record.score == 1.0  # the token-level loop drives the env like the oracle
    assert len(tokens.completion_ids) == len(tokens.env_mask) == len(tokens.token_turns) <= LIMITS.max_completion_tokens
    generated = [t for t, m in zip(tokens.completion_ids, tokens.env_mask, strict=True) if m]
    env_side = [t for t, m in zip(tokens.completion_ids, tokens.env_mask, strict=True) if not m]
    assert set(tokens.token_turns) == {-1, 0, 1}
    assert all((turn >= 0) == bool(mask) for turn, mask in zip(tokens.token_turns, tokens.env_mask, strict=True))
    assert "<tool_call>" in tokenizer.decode(generated) and "<tool_response>" not in tokenizer.decode(generated)
    assert spec.turns[1].content[:40] in tokenizer.decode(env_side)  # the second user turn is env-side context
    messages, info = Env(spec).reset()
    expected = tokenizer.apply_chat_template(messages, tools=info["tools"], add_generation_prompt=True, tokenize=False)
    assert tokenizer.decode(tokens.prompt_ids) == expected


def test_continuation_is_the_templates_text_between_assistant_messages(tiny_checkpoint: Path) -> None:
    renderer = ChatRenderer(AutoTokenizer.from_pretrained(tiny_checkpoint))
    tool = [{"role": "tool", "tool_call_id": "c1", "name": "mail_search", "content": '{"ok": true}'}]
    assert renderer.tokenizer.decode(renderer.continuation_ids(tool)) == (
        '\n<|im_start|>user\n<tool_response>\n{"ok": true}\n</tool_response><|im_end|>\n<|im_start|>assistant\n')
    user = [{"role": "user", "content": "And now?"}]
    assert renderer.tokenizer.decode(renderer.continuation_ids(user)) == (
        "\n<|im_start|>user\nAnd now?<|im_end|>\n<|im_start|>assistant\n")


def test_episode_stops_at_its_token_budget(spec: EnvSpec, tiny_checkpoint: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(tiny_checkpoint)
    limits = RolloutLimits(max_new_tokens=400, max_agent_steps=14, max_completion_tokens=300)
    record, tokens = rollout_episode(spec, ChatRenderer(tokenizer), scripted(tokenizer), limits)
    assert record.stop_reason == "llm_error" and "budget" in record.error
    assert len(tokens.completion_ids) <= 300 and not record.passed


# --- GRPO through TRL ---------------------------------------------------------------------------------------------------


def _config(reward: str, credit: str) -> RLRunConfig:
    return RLRunConfig.model_validate({
        "name": "rl-test", "model": {"source": "tiny", "chat_template": "qwen3_training"},
        "rollout": {"max_new_tokens": 400, "max_agent_steps": 14, "max_completion_tokens": 2000},
        "training": {"max_steps": 1, "num_generations": 2, "per_device_train_batch_size": 2,
                     "learning_rate": 1e-3},
        "reward": reward, "credit": credit,
    })


def test_turn_credit_gives_each_turn_its_own_advantage(spec: EnvSpec, tiny_checkpoint: Path, tmp_path: Path) -> None:
    config = _config("partial", "turn").variant(model_path=tiny_checkpoint)
    tokenizer = AutoTokenizer.from_pretrained(tiny_checkpoint)
    setup = build_rl_trainer(config, [spec], tmp_path / "run", sampler_factory=scripted(tokenizer))
    before = {k: v.detach().clone() for k, v in setup.trainer.model.named_parameters()}
    setup.trainer.train()
    credit = setup.trainer.last_turn_credit
    assert credit is not None
    # both episodes did the first turn alike (equal turn-0 reward); only the first one did the second turn
    (full0, full1), (half0, half1) = credit.turn_rewards
    assert full0 == half0 and full1 > half1
    assert credit.turn_advantages[0][0] == credit.turn_advantages[1][0] == 0.0
    assert credit.turn_advantages[0][1] == pytest.approx(0.707, abs=1e-2) == -credit.turn_advantages[1][1]
    tokens = credit.token_advantages  # per completion token: its turn's advantage; 0 on env tokens and turn 0
    for row, episode in enumerate(setup.rollout.tokens):
        expected = [credit.turn_advantages[row][t] if t >= 0 else 0.0 for t in episode.token_turns]
        assert tokens[row, : len(expected)].tolist() == pytest.approx(expected)
    after = dict(setup.trainer.model.named_parameters())
    assert any(not torch.equal(before[k], after[k].detach()) for k in before)  # a non-zero advantage moved weights
    (entry,) = setup.recorder.entries
    assert entry["turn_credit/mean_abs_advantage"] == pytest.approx(0.707 / 2, abs=1e-2)
    assert entry["env/score"] == pytest.approx((1.0 + setup.rollout.records[1].score) / 2)


@pytest.mark.parametrize("credit", ["trajectory", "turn"])
def test_the_loss_uses_the_chosen_credit(spec: EnvSpec, tiny_checkpoint: Path, tmp_path: Path, credit: str) -> None:
    """The second episode repeats a lookup in turn 0 (same turn-0 reward, other tokens): trajectory credit pushes
    those tokens down with the episode, turn credit leaves them alone. On-policy, the DAPO loss is
    -sum(advantage of each generated token) / generated tokens, which tells the two apart."""
    config = _config("partial", credit).variant(model_path=tiny_checkpoint)
    tokenizer = AutoTokenizer.from_pretrained(tiny_checkpoint)
    setup = build_rl_trainer(config, [spec], tmp_path / "run",
                             sampler_factory=scripted(tokenizer, LookTwiceFirstTurnOnly))
    setup.trainer.train()
    (entry,) = setup.recorder.entries
    episodes = setup.rollout.tokens
    scores = [r.score for r in setup.rollout.records]
    mean, std = sum(scores) / 2, abs(scores[0] - scores[1]) / 2**0.5
    episode_advantage = [(s - mean) / (std + 1e-4) for s in scores]
    turn_credit = setup.trainer.last_turn_credit
    if credit == "turn":
        assert turn_credit is not None and turn_credit.turn_advantages[1][0] == 0.0  # equal turn-0 progress
        per_token = [[turn_credit.turn_advantages[i][t] for t in e.token_turns if t >= 0] for i, e in enumerate(episodes)]
    else:
        assert turn_credit is None
        per_token = [[episode_advantage[i]] * sum(e.env_mask) for i, e in enumerate(episodes)]
    generated = sum(sum(e.env_mask) for e in episodes)
    trajectory_loss = -sum(a * sum(e.env_mask) for a, e in zip(episode_advantage, episodes, strict=True)) / generated
    assert entry["loss"] == pytest.approx(-sum(map(sum, per_token)) / generated, rel=1e-3, abs=1e-5)
    if credit == "turn":
        assert abs(entry["loss"] - trajectory_loss) > 1e-3  # the extra turn-0 lookup is not blamed on the episode


def test_trajectory_credit_run_writes_checkpoint_log_and_curve(spec: EnvSpec, tiny_checkpoint: Path,
                                                               tmp_path: Path) -> None:
    tokenizer = AutoTokenizer.from_pretrained(tiny_checkpoint)
    result = train_rl(_config("binary", "trajectory"), [spec], tmp_path / "out", model_path=tiny_checkpoint,
                      sampler_factory=scripted(tokenizer))
    (entry,) = result.log
    assert entry["reward"] == pytest.approx(0.5) and entry["env/pass_rate"] == pytest.approx(0.5)  # 1 of 2 passed
    assert entry["frac_reward_zero_std"] == 0.0 and "turn_credit/mean_abs_advantage" not in entry
    out = result.out_dir
    assert (out / "reward_curve.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((out / "rl_log.json").read_text())["steps"] == result.log
    run = json.loads((out / "rl_run.json").read_text())
    assert run["reward"] == "binary" and run["credit"] == "trajectory" and run["envs"] == [spec.id]
    (rollouts,) = (out / "rollouts").rglob("*.parquet")
    assert sorted(pq.read_table(rollouts, columns=["passed"]).column("passed").to_pylist()) == [False, True]
    assert pq.read_metadata(rollouts).metadata[b"coworkenv.written_by"] == b"rl"  # never taken as the teacher's
    reloaded = AutoModelForCausalLM.from_pretrained(out)
    assert reloaded.config.hidden_size == 32 and AutoTokenizer.from_pretrained(out).chat_template


def test_a_copy_head_model_trains_with_its_own_log_probs(spec: EnvSpec, tmp_path_factory: pytest.TempPathFactory,
                                                         tmp_path: Path) -> None:
    """GRPO scores completions through TRL's fused LM head, which cannot see a copy head (trainers.copy_model): the
    trainer installs the model's own, and the run trains and saves a copy-head checkpoint."""
    from trainers.copy_model import uses_copy_head

    start = _tiny_checkpoint(tmp_path_factory, spec, copy_head=True)
    tokenizer = AutoTokenizer.from_pretrained(start)
    result = train_rl(_config("binary", "trajectory"), [spec], tmp_path / "out", model_path=start,
                      sampler_factory=scripted(tokenizer))
    (entry,) = result.log
    assert entry["reward"] == pytest.approx(0.5) and entry["frac_reward_zero_std"] == 0.0
    reloaded = AutoModelForCausalLM.from_pretrained(result.out_dir)
    assert uses_copy_head(reloaded)
    before = AutoModelForCausalLM.from_pretrained(start)
    assert any(not torch.equal(a, b) for a, b in zip(reloaded.parameters(), before.parameters(), strict=True))


def test_rl_configs_load_and_reject_mistakes(tmp_path: Path) -> None:
    tiny = load_rl_config("rl-tiny")
    assert tiny.model.source == "tiny" and tiny.training.per_device_train_batch_size % tiny.training.num_generations == 0
    # make run's RL: the reward gives a student that acts but never completes a task differing rewards, and the call
    # credit stays below one completion check of four (a check passed beats every call made)
    assert tiny.reward == "partial" and 0 < tiny.call_credit < 0.25
    big = load_rl_config("rl-pocketworker-8b")
    assert big.training.bf16 and big.distributed.deepspeed_config is not None and big.distributed.deepspeed_config.is_file()
    started = big.variant(model_path="runs/sft", reward="shaped")
    assert started.model.name_or_path == "runs/sft" and started.reward == "shaped" and started.credit == big.credit
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nmodel: {source: tiny, chat_template: qwen3_training}\n"
                   "training: {num_generations: 3, per_device_train_batch_size: 4}\n")
    with pytest.raises(ValueError, match="multiple of num_generations"):
        load_rl_config(bad)
    bad.write_text("name: x\nmodel: {source: tiny, chat_template: qwen3_training}\nrollout: {max_new_token: 3}\n")
    with pytest.raises(ValueError, match="max_new_token"):
        load_rl_config(bad)
    with pytest.raises(FileNotFoundError, match="rl-tiny"):
        load_rl_config("rl-nope")


def test_the_reference_paths_give_the_same_step_as_the_fast_ones(spec: EnvSpec, tmp_path_factory: pytest.TempPathFactory,
                                                                 tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`rollout.reuse_caches` and `training.unpad_loss_rows` off reach the batcher and the copy head's loss, and the
    model's own episodes, their rewards and the loss come out as with them on; each step logs its rollout time."""
    import trainers.rl as rl_module
    import trainers.rl_rollout as rollout_module

    seen: dict[str, list[bool]] = {"reuse_caches": [], "unpad_rows": []}

    class SpyBatcher(rollout_module.GroupBatcher):
        def __init__(self, *args: object, reuse_caches: bool = True, **kwargs: object) -> None:
            seen["reuse_caches"].append(reuse_caches)
            super().__init__(*args, reuse_caches=reuse_caches, **kwargs)  # type: ignore[arg-type]

    install = rl_module.install_fused_lm_head

    def spy_head(model: object, temperature: float = 1.0, unpad_rows: bool = True) -> None:
        seen["unpad_rows"].append(unpad_rows)
        install(model, temperature, unpad_rows)
    monkeypatch.setattr(rollout_module, "GroupBatcher", SpyBatcher)
    monkeypatch.setattr(rl_module, "install_fused_lm_head", spy_head)
    start = _tiny_checkpoint(tmp_path_factory, spec, copy_head=True)
    runs = []
    for fast in (True, False):
        config = _config("partial", "trajectory").variant(model_path=start)
        config = config.model_copy(update={
            "rollout": config.rollout.model_copy(update={"max_new_tokens": 12, "max_agent_steps": 3,
                                                         "max_completion_tokens": 200, "reuse_caches": fast}),
            "training": config.training.model_copy(update={"unpad_loss_rows": fast})})
        setup = build_rl_trainer(config, [spec], tmp_path / f"run-{fast}")
        setup.trainer.train()
        runs.append(setup)
    assert seen == {"reuse_caches": [True, False], "unpad_rows": [True, False]}
    fast_run, reference = runs
    assert [t.completion_ids for t in fast_run.rollout.tokens] == [t.completion_ids for t in reference.rollout.tokens]
    (fast_entry,), (reference_entry,) = fast_run.recorder.entries, reference.recorder.entries
    assert fast_entry["reward"] == reference_entry["reward"]
    assert fast_entry["loss"] == pytest.approx(reference_entry["loss"], abs=1e-5)
    for entry in (fast_entry, reference_entry):  # TRL's step_time is the whole step, the rollout within it
        assert 0 < entry["rollout_time"] < entry["step_time"]
