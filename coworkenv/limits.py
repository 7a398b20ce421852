"""Upper bounds of the counts a run is sized by, shared by the pipeline's settings (COWORKENV_*) and the commands'
options. A value past them is a typo (a digit held down, a number pasted twice), not a plan: it would start a run
that never ends (10^13 specs), or fail hours later, so it is refused up front naming the setting and the range."""

from __future__ import annotations

MAX_QUOTA = 1_000_000  # specs or envs of one capability; seeds and counts are stored as 64-bit integers
MAX_ENVS = MAX_QUOTA  # envs a stage takes (evaluation, RL)
MAX_REPAIR_ROUNDS = 100  # LLM repair rounds per failing spec; each round is a call per spec
MAX_SAMPLES = 1_000  # episodes per env (pass@k / pass^k) and RL seeds per variant
MAX_STEPS = 1_000  # assistant messages per episode
MAX_REPLY_TOKENS = 131_072  # tokens per generated message: the longest context of current models

# The defaults of the episodes' counts, defined here beside their bounds so that a command's options show them (in
# `--help`) without importing the Env, the episode loop or the teachers that use them.
DEFAULT_ENV_STEPS = 60  # tool calls of one `Env` episode before it is truncated
DEFAULT_EPISODE_STEPS = 40  # assistant messages per episode of the loop (tool-call, final and clarification messages)
DEFAULT_ORACLE_K = 1  # oracle episodes per env; k > 1 phrases each differently (seeds seed .. seed + k - 1)
DEFAULT_LLM_K = 4  # LLM samples per env: rejection sampling, every sample kept with its pass flag
DEFAULT_SAMPLED_TEMPERATURE = 0.7  # temperature of sampled episodes: the LLM teacher, evaluation with k > 1
DEFAULT_REPAIR_ROUNDS = 3  # LLM repair rounds per failing spec in validation
DEFAULT_EVAL_REPLY_TOKENS = 512  # tokens per assistant message in evaluation (`coworkenv eval`, trainers.evaluate)
