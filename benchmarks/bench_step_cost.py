"""Where an agent-path call's time goes at 10x tau2-retail size: the tool, the step around it, the garbage collector.

For every workload tool of bench_tool_scaling.py, in the same 10x tau2-retail world as its agent path: CPU time per
call through `Env.step` and through `ToolBox.call` with the same arguments, as `Env.step` calls it (`rendered=True`
where the toolbox has it: rows as JSON rendered once per record), after two warm-up passes, so indexes are built;
best of `--rounds`. The difference is the step's own cost: the tool-call message, the dynamics tick (the
example's log stream writes a line every 4th call), the audit entry, the state hashes and the JSON observation.
The collector is on, as in use; its collections during the `Env.step` rounds are counted and timed per generation
(a full collection traverses every tracked object, the world's included).

Two more columns split what a call costs: `one call` is `Env.step` of one of the 256 calls repeated 256 times (its
records, sets and index entries stay in the CPU caches; the difference to `Env.step` is what reaching the data of
varied calls costs), and `null tool` is `Env.step` with every tool answering one fixed small row (the step alone:
message, dynamics tick, audit entry, hashes, JSON). Last, the dynamics tick alone: `Dynamics.advance` by one call's
tick, the example's log stream writing a line every 4th.

    python benchmarks/bench_step_cost.py [--rounds 3] [--passes 2] [--tools mail_search,logs_search]
"""

from __future__ import annotations

import argparse
import gc
import inspect
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.bench_tool_scaling import WORKLOADS, agent_actions, agent_env, big_workspace  # noqa: E402
from coworkenv import Action, Env  # noqa: E402
from coworkenv.tools import ToolBox, ToolOutcome  # noqa: E402

# `ToolBox.call` as `Env.step` makes it: rows rendered once per record where the toolbox can (`rendered`), so that the
# difference to `Env.step` stays the step's own cost.
RENDERED = {"rendered": True} if "rendered" in inspect.signature(ToolBox.call).parameters else {}


class Collections:
    """Count and CPU time of the garbage collector's runs per generation while it is `recording`."""

    def __init__(self) -> None:
        self.count = [0, 0, 0]
        self.cpu_s = [0.0, 0.0, 0.0]
        self.recording = False
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if not self.recording:
            return
        if phase == "start":
            self._start = time.process_time()
        else:
            self.count[info["generation"]] += 1
            self.cpu_s[info["generation"]] += time.process_time() - self._start


def us_per_call(env: Env, actions: list[Action], call: Callable[[Action], Any], passes: int, rounds: int) -> float:
    """Best CPU microseconds per call over `rounds` of `passes` through the actions; the episode restarts after each."""
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(passes):
            for action in actions:
                call(action)
        best = min(best, (time.process_time() - start) / (passes * len(actions)) * 1e6)
        env.reset()
    return best


def null_tool_us(env: Env, actions: list[Action], passes: int, rounds: int) -> float:
    """`Env.step` per call with every tool answering one fixed small row: the step's own cost."""
    box = env.toolbox
    row = [{"id": "u-1", "name": "Ana Diaz", "email": "ana@example.test"}]
    real = box.call
    box.call = lambda name, arguments, **_: ToolOutcome(True, result=row)  # type: ignore[method-assign]
    try:
        return us_per_call(env, actions, env.step, passes, rounds * 3)
    finally:
        box.call = real  # type: ignore[method-assign]


def advance_us(env: Env, rounds: int, calls: int = 400) -> float:
    """`Dynamics.advance` by one call's tick, per call (the example's stream writes a line every 4th call)."""
    best = float("inf")
    for _ in range(rounds * 3):
        env.reset()
        tick = env.state.tick_s
        start = time.process_time()
        for _ in range(calls):
            env.dynamics.advance(tick)
        best = min(best, (time.process_time() - start) / calls * 1e6)
    env.reset()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--passes", type=int, default=2, help="passes through a tool's 256 calls per round")
    parser.add_argument("--tools", default=",".join(WORKLOADS), help="comma-separated subset of the workloads")
    args = parser.parse_args()
    tools = args.tools.split(",")
    unknown = sorted(set(tools) - set(WORKLOADS))
    if unknown:
        raise SystemExit(f"unknown tools {unknown}; the workloads are: {', '.join(WORKLOADS)}")
    records, _ = big_workspace(10 * 2_800_000)
    env = agent_env(records)
    box = env.toolbox
    collections = Collections()
    gc.callbacks.append(collections)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"us per call (CPU, best of {args.rounds} x {args.passes} passes of 256 calls); "
          f"{len(gc.get_objects()):,} objects tracked by the collector; load {load:.1f}")
    print(f"  {'tool':24} {'Env.step':>9} {'ToolBox.call':>12} {'step cost':>10} {'one call':>9}")
    steps, calls, ones = [], [], []
    for tool in tools:
        actions = agent_actions(env, tool)
        for _ in range(2):  # warm-up: the first queries scan, the next build the indexes
            for action in actions:
                env.step(action)
        env.reset()
        collections.recording = True
        step = us_per_call(env, actions, env.step, args.passes, args.rounds)
        collections.recording = False
        call = us_per_call(env, actions, lambda a: box.call(a.tool_calls[0].name, a.tool_calls[0].arguments,
                                                            **RENDERED), args.passes, args.rounds)
        one = us_per_call(env, [actions[7]] * len(actions), env.step, args.passes, args.rounds)
        steps.append(step)
        calls.append(call)
        ones.append(one)
        print(f"  {tool:24} {step:9.1f} {call:12.1f} {step - call:10.1f} {one:9.1f}", flush=True)
    mean_step, mean_call, mean_one = sum(steps) / len(steps), sum(calls) / len(calls), sum(ones) / len(ones)
    print(f"  {'mean':24} {mean_step:9.1f} {mean_call:12.1f} {mean_step - mean_call:10.1f} {mean_one:9.1f}")
    print(f"null tool (the step alone): {null_tool_us(env, agent_actions(env, tools[0]), args.passes, args.rounds):.1f} us "
          f"per call; Dynamics.advance of one tick alone: {advance_us(env, args.rounds):.2f} us per call")
    n_steps = len(tools) * args.rounds * args.passes * 256
    print(f"collections during the Env.step rounds ({n_steps:,} calls): " + ", ".join(
        f"generation {g}: {collections.count[g]} taking {collections.cpu_s[g] * 1e3:.0f} ms CPU" for g in range(3)))
    print(f"load after: {os.getloadavg()[0] if hasattr(os, 'getloadavg') else float('nan'):.1f}")


if __name__ == "__main__":
    main()
