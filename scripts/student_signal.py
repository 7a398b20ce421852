"""Does an SFT checkpoint act, and would GRPO see reward differences? (docs/learning.md, round rl12)

    python scripts/student_signal.py DATA_DIR CHECKPOINT [--rl-envs 8]

DATA_DIR is a `make run` data folder (its store and published dataset); CHECKPOINT an SFT checkpoint folder. Prints
one JSON line after each part:

- held-out: the eval_report asset's envs (the SFT test splits, round-robin over capabilities, 30) run greedily as it
  runs them (96 tokens and 4 assistant messages an episode): tool calls per episode, malformed calls, pass@1;
- RL: the first `--rl-envs` of the rl_checkpoint asset's train envs whose prompt fits `rl-tiny`'s max_prompt_tokens,
  4 episodes each at its rollout settings (temperature 1, 64 tokens a message, 4 messages), rewarded as `rl-tiny`
  rewards them (`partial`, call credit from the config): how many of these GRPO-sized groups have reward variance.
"""

from __future__ import annotations

import argparse
import json
import time
from itertools import chain, zip_longest
from pathlib import Path

import polars as pl

from coworkenv.env import Env
from coworkenv.loading import parse_spec
from trainers.batching import BatchedLocalBackend
from trainers.evaluate import evaluate
from trainers.rewards import episode_reward, turn_progress
from trainers.rl_config import load_rl_config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path)
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--rl-envs", type=int, default=8)
    parser.add_argument("--rl-config", default="rl-tiny")
    parser.add_argument("--decoding", choices=["free", "grammar"], default=None,
                        help="decoding of every episode (default: the RL config's rollout.decoding)")
    parser.add_argument("--tool-choice", choices=["auto", "first", "required"], default=None,
                        help="first: the first message of every user turn must be tool calls, required: every message "
                        "(grammar only; default: the RL config's rollout.tool_choice)")
    parser.add_argument("--temperature", type=float, default=None,
                        help="the RL groups' sampling temperature (default: the RL config's)")
    parser.add_argument("--skip-held-out", action="store_true", help="only the RL groups")
    args = parser.parse_args()
    rl = load_rl_config(args.rl_config)
    decoding = args.decoding or rl.rollout.decoding
    tool_choice = args.tool_choice or getattr(rl.rollout, "tool_choice", "auto")
    temperature = rl.rollout.temperature if args.temperature is None else args.temperature
    specs, capability = {}, {}
    for path in sorted((args.data / "store" / "validated_envs").glob("*/*.parquet")):
        for row in pl.read_parquet(path, columns=["env_id", "capability", "spec_json"]).iter_rows(named=True):
            specs[row["env_id"]], capability[row["env_id"]] = row["spec_json"], row["capability"]

    def split_ids(test: bool, limit: int) -> list[str]:  # as pipelines.freshness picks them
        chosen: set[str] = set()
        for path in (args.data / "hub" / "dataset" / "data" / "sft").glob("*.parquet"):
            split = path.name.split("-")[0]
            if split.startswith("test") if test else split == "train":
                chosen |= set(pl.read_parquet(path, columns=["env_id"])["env_id"].to_list())
        by_capability: dict[str, list[str]] = {}
        for env_id in sorted(chosen & capability.keys()):
            by_capability.setdefault(capability[env_id], []).append(env_id)
        rounds = zip_longest(*(by_capability[c] for c in sorted(by_capability)))
        return [env_id for env_id in chain.from_iterable(rounds) if env_id is not None][:limit]

    model = BatchedLocalBackend(args.checkpoint, name="student", decoding=decoding, tool_choice=tool_choice)
    out: dict = {"decoding": decoding, "tool_choice": tool_choice, "rl_temperature": temperature}
    if not args.skip_held_out:
        started = time.perf_counter()
        held_out = [parse_spec(specs[e], source=e) for e in split_ids(True, 30)]
        records: list = []
        report = evaluate(model, held_out, 1, max_tokens=96, max_steps=4, records=records)
        out.update({
            "held_out_envs": len(records),
            "tool_calls_per_episode": sum(r.tool_calls for r in records) / len(records),
            "episodes_with_a_call": sum(r.tool_calls > 0 for r in records),
            "malformed_per_episode": sum(r.malformed_calls for r in records) / len(records),
            "pass_at_1": report.overall.pass_at_1, "mean_score": report.overall.mean_score,
            "held_out_s": round(time.perf_counter() - started)})
        print(json.dumps(out), flush=True)
    fitting = []
    for env_id in split_ids(False, 64):
        spec = parse_spec(specs[env_id], source=env_id)
        messages, info = Env(spec).reset()
        if len(model.renderer.prompt_ids(messages, info["tools"])) <= (rl.rollout.max_prompt_tokens or 10**9):
            fitting.append(spec)
    started, records = time.perf_counter(), []
    chosen = {spec.id: spec for spec in fitting[:args.rl_envs]}
    evaluate(model, list(chosen.values()), rl.training.num_generations, temperature=temperature,
             max_tokens=rl.rollout.max_new_tokens, max_steps=rl.rollout.max_agent_steps, records=records)
    groups: dict[str, list[float]] = {}
    for r in records:
        groups.setdefault(r.env_id, []).append(
            round(episode_reward(turn_progress(r, chosen[r.env_id]), rl.reward, rl.call_credit), 4))
    out.update({
        "rl_envs_fitting": len(fitting), "rl_groups": len(groups),
        "rl_groups_with_variance": sum(len(set(g)) > 1 for g in groups.values()),
        "rl_tool_calls_per_episode": sum(r.tool_calls for r in records) / len(records),
        "rl_malformed_per_episode": sum(r.malformed_calls for r in records) / len(records),
        "rl_mean_reward": sum(map(sum, groups.values())) / len(records),
        "rl_rewards": groups, "rl_s": round(time.perf_counter() - started),
        # which tools the episodes called (ok: the env carried the call out) against the tools the reference calls
        "rl_calls": {env_id: {"made": [[f"{e.tool}{'' if e.ok else '!'}" for e in r.audit] for r in records
                                       if r.env_id == env_id],
                              "reference": sorted({s.call.name for t in chosen[env_id].reference for s in t.steps
                                                   if s.call is not None})} for env_id in chosen}})
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
