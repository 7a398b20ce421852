"""Whether the RL reward rises: the slope of one run with its regression interval, and of a variant over seeds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coworkenv.spec import EnvSpec
from coworkenv.synth.generate import generate_specs
from coworkenv.synth.taxonomy import load_taxonomy
from trainers.rl_compare import compare_rl_variants, mean_log
from trainers.rl_report import (
    comparison_markdown,
    reward_slope,
    seed_slopes,
    slope_summary,
    variant_table,
    write_variant_plot,
    zero_variance_fraction,
)


def _log(rewards: list[float]) -> list[dict[str, float]]:
    return [{"step": float(i + 1), "reward": r, "env/score": r} for i, r in enumerate(rewards)]


def test_one_runs_slope_has_the_regressions_interval() -> None:
    slope = reward_slope(_log([0.1, 0.2, 0.35, 0.4]))
    assert slope is not None
    assert slope.value == pytest.approx(0.105)  # least squares over steps 1..4
    # residual sum of squares 0.00175, stderr sqrt(0.00175 / 2 / 5), t(0.975, 2 df) = 4.303: half width 0.0569
    assert (slope.low, slope.high) == pytest.approx((0.105 - 0.0569, 0.105 + 0.0569), abs=1e-3) and slope.significant
    flat = reward_slope(_log([0.2, 0.2, 0.2]))
    assert flat is not None and (flat.value, flat.low, flat.high) == (0.0, 0.0, 0.0) and not flat.significant
    assert reward_slope(_log([0.3])) is None
    noisy = reward_slope(_log([0.1, 0.5, 0.0, 0.4, 0.1]))
    assert noisy is not None and not noisy.significant


def test_seed_slopes_give_a_t_interval_per_variant() -> None:
    rows = [{"reward": "partial", "credit": "turn", "seed": s, "log": _log([0.1, 0.1 + d, 0.1 + 2 * d])}
            for s, d in enumerate([0.1, 0.2, 0.15])]
    rows.append({"reward": "binary", "credit": "turn", "seed": 0, "log": _log([0.0, 0.5])})
    partial, binary = seed_slopes(rows)
    assert partial["slopes"] == pytest.approx([0.1, 0.2, 0.15]) and partial["slope"]["significant"]
    assert partial["slope"]["value"] == pytest.approx(0.15)
    assert binary["seeds"] == 1 and binary["slope"] is None  # one seed: no interval claimed
    mean = mean_log([_log([0.0, 0.2]), _log([0.2, 0.4, 0.9])])  # step 3: only one seed logged it
    assert [e["step"] for e in mean] == [1.0, 2.0] and [e["reward"] for e in mean] == pytest.approx([0.1, 0.3])


def test_a_flat_slope_says_whether_any_group_had_reward_variance() -> None:
    """A slope of exactly 0 where every GRPO group's episodes got the same reward means no gradient at all (what
    `make run`'s RL from its 24-step SFT student measured: 4 of 4 groups, docs/learning.md); the report says so."""
    flat = [{**e, "frac_reward_zero_std": 1.0} for e in _log([0.0, 0.0, 0.0, 0.0])]
    assert zero_variance_fraction(flat) == 1.0
    assert slope_summary(flat) == ("+0.0000 [+0.0000, +0.0000] (n.s.); 100% of GRPO groups had no reward variance "
                                   "(every advantage 0: no gradient, nothing learned)")
    mixed = [{**e, "frac_reward_zero_std": z} for e, z in zip(_log([0.1, 0.2, 0.35, 0.4]), [0.5, 0.0, 0.25, 0.25],
                                                               strict=True)]
    assert slope_summary(mixed).endswith("; 25% of GRPO groups had no reward variance")
    assert zero_variance_fraction(_log([0.1, 0.2])) is None and slope_summary(_log([0.1, 0.2])) == (
        "+0.1000 [+0.1000, +0.1000]")  # a log without TRL's field: the slope alone
    rows = [{"reward": "partial", "credit": "turn", "seed": s, "log": flat, "wall_s": 1.0,
             "steps": 4, "summary": {"steps": 4.0, **dict.fromkeys(("reward_first", "reward_last", "reward_mean",
                                     "score_first", "score_last", "score_mean", "pass_rate_mean"), 0.0),
                                     "frac_zero_std_groups": 1.0}} for s in range(2)]
    assert seed_slopes(rows)[0]["zero_std_groups"] == 1.0
    assert "| partial | turn | 2 | +0.0000 [+0.0000, +0.0000] (n.s.) | 1.00 |" in comparison_markdown(rows, "toy")


def _run(reward: str, credit: str, seed: int, slope: float | None, passed: float) -> dict[str, object]:
    return {"reward": reward, "credit": credit, "seed": seed, "slope": slope, "heldout_pass_at_1": passed,
            "log": _log([0.1, 0.1 + (slope or 0.0), 0.1 + 2 * (slope or 0.0)])}


def test_the_variant_table_marks_which_differences_are_significant(tmp_path: Path) -> None:
    runs = [_run("partial", "trajectory", s, d, p) for s, (d, p) in enumerate([(0.02, 0.1), (0.03, 0.2), (0.025, 0.1)])]
    runs += [_run("binary", "turn", s, d, p) for s, (d, p) in enumerate([(0.0, 0.1), (0.001, 0.1), (-0.001, 0.2)])]
    runs += [_run("shaped", "turn", 0, 0.05, 0.3)]  # one seed: values listed, no interval claimed
    order = [("binary", "turn"), ("partial", "trajectory"), ("shaped", "turn"), ("shaped", "trajectory")]
    binary, partial, shaped = variant_table(runs, sft_pass_at_1=0.1, order=order)
    assert [r["variant"] for r in (binary, partial, shaped)] == ["binary/turn", "partial/trajectory", "shaped/turn"]
    assert partial["slope"]["significant"] and partial["slope"]["value"] == pytest.approx(0.025)
    assert "slope_vs_reference" not in partial  # the reference is not compared with itself
    assert binary["slope_vs_reference"]["value"] == pytest.approx(-0.025)
    assert binary["slope_vs_reference"]["significant"]
    assert not binary["pass_vs_reference"]["significant"]  # 0.133 vs 0.133 over three seeds each
    assert partial["rl_minus_sft"]["value"] == pytest.approx(0.1 / 3) and not partial["rl_minus_sft"]["significant"]
    assert shaped["slope"] == [0.05] and shaped["slope_vs_reference"] is None
    write_variant_plot(tmp_path / "variants.png", runs, 0.1, "test")
    assert (tmp_path / "variants.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def specs() -> list[EnvSpec]:
    return generate_specs(load_taxonomy(Path("taxonomy"))["delegate_and_follow_up"], 1, 0)


def test_a_comparison_over_seeds_reports_each_variants_slope(tmp_path: Path, specs: list[EnvSpec]) -> None:
    config = tmp_path / "rl.yaml"
    config.write_text("""
name: rl-seeds
model:
  source: tiny
  chat_template: qwen3_training
  tiny: {hidden_size: 32, intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2,
         num_key_value_heads: 1, head_dim: 16, min_token_frequency: 1, max_position_embeddings: 8192}
rollout: {max_new_tokens: 4, max_agent_steps: 1, max_completion_tokens: 64, save_rollouts: false}
training: {max_steps: 2, num_generations: 2, per_device_train_batch_size: 2, learning_rate: 1.0e-3}
""")
    comparison = compare_rl_variants(config, specs, tmp_path / "out", rewards=["partial"], credits=["trajectory"],
                                     seeds=[0, 1])
    assert [(r["seed"], r["steps"]) for r in comparison.rows] == [(0, 2), (1, 2)]
    assert (tmp_path / "out" / "partial-trajectory-s1" / "rl_log.json").is_file()
    table = comparison.markdown.read_text()
    assert "| partial | trajectory (seed 1) | 2 |" in table
    assert "## Does the reward rise?" in table and "| partial | trajectory | 2 |" in table
    saved = json.loads(comparison.json.read_text())
    assert len(saved["slopes"][0]["slopes"]) == 2 and saved["slopes"][0]["slope"]["n"] == 2
    assert comparison.plot.read_bytes()[:4] == b"\x89PNG"
