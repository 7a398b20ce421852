"""Code versions of the assets, shown by the Dagster UI and part of every input hash.

Bump an asset's version when a change to its code changes what it produces: the UI then marks it stale, and
`python -m pipelines.run` rebuilds it (and, through data versions, whatever depends on it).
"""

CODE_VERSIONS = {
    # 2: task_specs seeds the generator with the base seed, as `coworkenv synth --seed` does.
    "task_specs": "2", "validated_envs": "1", "teacher_trajectories": "1",
    # 3: sft_shards splits with settings.test_fraction. 3: eval_report adds bootstrap intervals on differences.
    # 3: pocketworker_checkpoint's `tiny` recipe renders tools and calls minimally and trains more steps (round rl12).
    "sft_shards": "3", "hub_dataset": "2", "pocketworker_checkpoint": "3", "eval_report": "3",
    # 2: rl_checkpoint's reward slope and rl_comparison's slope table say how many GRPO groups had no reward variance.
    # 3: the partial and shaped rewards take the config's call credit (trainers.rewards.reference_call_share);
    #    rl_checkpoint logs tool calls per episode and the share of the reference's calls made.
    # 4: rl-tiny's episodes are tool calls under the grammar (rollout.tool_choice: required), and a guard the
    #    untouched world already fails no longer cancels the call credit (round rl13).
    "rl_checkpoint": "4", "rl_comparison": "4",
}
