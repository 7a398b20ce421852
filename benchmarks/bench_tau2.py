"""coworkenv against tau2-bench's retail domain, side by side in one run: agent-path tool calls, env memory and build
time, and tau2-style evaluation from stored data (parse, build, replay, verify).

tau2-bench is not a dependency of this project. Give a checkout with `--tau2 PATH` (the folder holding `src/tau2` and
`data/tau2`) and a Python that can import it with `--tau2-python` (e.g. a throwaway venv holding tau2's own
requirements); the tau2 side then runs in a child process pinned to the same core, right after this side, and the
ratios are printed. Without `--tau2`, the ratios use the tau2 figures quoted in issue 14, labelled as quoted.

coworkenv side:
- agent path: calls/s of every search and list tool through `Env.step` (tool call, dynamics, audit entry, state
  hashes, JSON observation) in a world 10x tau2-retail's size (the workloads of bench_tool_scaling.py);
- a tau2-retail-size spec (an example plus ~32k records, ~6 MB of JSON, bench_env.py's large workspace): parse,
  build an Env from a spec parsed just now (cold: its world is built) and from a spec already loaded (the world is
  shared copy-on-write), memory per live env (tracemalloc, each env after playing the reference episode: the first
  env with the shared world it builds, then the mean of `--envs` later ones, after a second env has built the
  shared indexes its searches need), and
  evaluation from the stored spec: parse + build + replay the reference episode + verify, per trajectory.
  Parse, build and evaluation are measured for both load paths of `load_spec` (each row names its path): `full`,
  plain spec JSON validated record by record, and `sealed`, the file `spec_seal_write.seal_spec` writes (its
  checksum verified on every load; records built without validation, spec id and table hashes read from the file).
  Every repetition loads the stored bytes again (nothing parsed is reused; the bench checks each load took the path
  its row names); per-process constants (the schema fingerprint, compiled validators) are computed once;
tau2 side (same figures): `Environment.get_response` per tool; `get_environment()`; tracemalloc over live envs;
`EnvironmentEvaluator.calculate_reward` on trajectories made by playing each task's golden actions.
Rates are CPU time of the measuring process, best of `--rounds`; build and evaluation times are medians.

    python benchmarks/bench_tau2.py [--tau2 PATH --tau2-python PY] [--seconds 0.3] [--rounds 3] [--json OUT]
                                    [--evaluation-only]

`--evaluation-only`: only the stored-spec figures (parse, cold build, evaluation from stored data; tau2's build and
evaluation), no agent path and no memory figures: a run takes ~1 minute instead of ~4, for alternating runs.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.bench_env import large_workspace, oracle_actions, with_workspace  # noqa: E402
from benchmarks.bench_tool_scaling import agent_path, big_workspace  # noqa: E402
from coworkenv import Action, Env, EnvSpec, load_spec  # noqa: E402
from coworkenv.examples import load_example  # noqa: E402
from coworkenv.spec_seal import sealed_table_hashes  # noqa: E402
from coworkenv.spec_seal_write import seal_spec  # noqa: E402

# tau2-bench 1.0.1 retail, as quoted in issue 14 (used only when tau2 is not given).
QUOTED = {"scan_calls_per_s": 14_324.0, "env_bytes": 10.8 * 2**20, "build_s": 0.113, "evaluation_s": 1 / 2.3}
TAU2_SCAN_TOOL = "find_user_id_by_email"
FULL, SEALED = "full", "sealed"  # the two load paths of coworkenv.loading.load_spec (see coworkenv.spec_seal)

# Runs in the tau2 interpreter: argv = seconds, rounds, live envs, evaluations, evaluation only (0/1). Prints one
# JSON object.
TAU2_SIDE = r'''
import gc, json, random, sys, time, tracemalloc
from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage
from tau2.domains.retail.environment import get_environment, get_tasks
from tau2.evaluator.evaluator_env import EnvironmentEvaluator

seconds, rounds, n_envs, n_evals = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
evaluation_only = sys.argv[5] == "1"


def rate(fn):
    best = 0.0
    for _ in range(rounds):
        calls, t = 0, time.process_time()
        while time.process_time() - t < seconds:
            calls += fn()
        best = max(best, calls / (time.process_time() - t))
    return best


env = get_environment()
db = env.tools.db
rng = random.Random(4)
users, orders, products = list(db.users.values()), list(db.orders), list(db.products)
workloads = {
    "find_user_id_by_email": lambda: {"email": rng.choice(users).email},
    "find_user_id_by_name_zip": lambda: (lambda u: {"first_name": u.name.first_name, "last_name": u.name.last_name,
                                                    "zip": u.address.zip})(rng.choice(users)),
    "get_user_details": lambda: {"user_id": rng.choice(users).user_id},
    "get_order_details": lambda: {"order_id": rng.choice(orders)},
    "get_product_details": lambda: {"product_id": rng.choice(products)},
    "list_all_product_types": lambda: {},
}
agent_path = {}
for name, args in () if evaluation_only else workloads.items():
    calls = [ToolCall(id=f"c{k}", name=name, arguments=args()) for k in range(256)]
    assert not any(env.get_response(c).error for c in calls), name

    def run(calls=calls):
        for c in calls:
            env.get_response(c)
        return len(calls)

    agent_path[name] = rate(run)
builds = []
for _ in range(max(3, rounds)):
    t = time.process_time()
    get_environment()
    builds.append(time.process_time() - t)
env_bytes = None
if not evaluation_only:
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    held = [get_environment() for _ in range(n_envs)]
    gc.collect()
    env_bytes = (tracemalloc.get_traced_memory()[0] - base) / n_envs
    tracemalloc.stop()
    del held
tasks = [t for t in get_tasks() if t.evaluation_criteria and t.evaluation_criteria.actions][:n_evals]
trajectories = []
for task in tasks:
    live, messages = get_environment(), []
    for k, action in enumerate(task.evaluation_criteria.actions):
        call = ToolCall(id=f"t{k}", name=action.name, arguments=action.arguments, requestor=action.requestor)
        messages.append(AssistantMessage(role="assistant", content=None, tool_calls=[call]))
        response = live.get_response(call)
        messages.append(ToolMessage(id=call.id, role="tool", content=response.content, requestor="assistant",
                                    error=response.error))
    trajectories.append((task, messages))
times, rewards = [], []
for task, messages in trajectories:
    t = time.process_time()
    rewards.append(EnvironmentEvaluator.calculate_reward(get_environment, task, messages).reward)
    times.append(time.process_time() - t)
print(json.dumps({"db_json_bytes": len(json.dumps(db.model_dump())), "agent_path": agent_path, "build_s": builds,
                  "env_bytes": env_bytes, "evaluation_s": times, "mean_reward": sum(rewards) / len(rewards)}))
'''


def pin(cpu: int) -> str:
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity)"
    allowed = os.sched_getaffinity(0)
    chosen = cpu if cpu in allowed else min(allowed)
    os.sched_setaffinity(0, {chosen})
    return f"pinned to CPU {chosen}"


def tau2_side(root: Path, python: str, seconds: float, rounds: int, envs: int, evals: int,
              evaluation_only: bool = False) -> dict[str, Any]:
    """The tau2 figures, measured in a child process (it inherits this process's CPU pinning)."""
    environ = {**os.environ, "PYTHONPATH": str(root / "src"), "TAU2_DATA_DIR": str(root / "data"),
               "LOGURU_LEVEL": "ERROR"}
    done = subprocess.run([python, "-c", TAU2_SIDE, str(seconds), str(rounds), str(envs), str(evals),
                           str(int(evaluation_only))],
                          capture_output=True, text=True, env=environ, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the tau2 side failed (exit {done.returncode}); is {root} a tau2-bench checkout that "
                         f"{python} can import?\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _played(spec: EnvSpec) -> list[Action]:
    return [a for turn in oracle_actions(spec) for a in turn]


def _replay(env: Env, actions: list[Action]) -> float:
    env.reset()
    for action in actions:
        env.step(action)
    return env.score().score


def _loaded(data: bytes, path: str) -> EnvSpec:
    """`load_spec` of stored bytes, checked to have taken the load path the row is labelled with."""
    spec = load_spec(data)
    assert (sealed_table_hashes(spec) is not None) == (path == SEALED), f"expected the {path} path"
    return spec


def coworkenv_side(example: str, seconds: float, rounds: int, envs: int, evals: int,
                   evaluation_only: bool = False) -> dict[str, Any]:
    """Every coworkenv figure (see the module docstring), for both load paths; only the stored-spec ones (parse,
    cold build, evaluation from stored data) with `evaluation_only`."""
    spec = with_workspace(load_example(example), large_workspace())
    files = {FULL: spec.to_json().encode(), SEALED: seal_spec(spec)}
    actions = _played(spec)
    figures: dict[str, Any] = {}
    for path, stored in files.items():
        parse, cold, evaluation = [], [], []
        for _ in range(max(3, rounds)):
            gc.collect()
            t = time.process_time()
            fresh = _loaded(stored, path)
            parse.append(time.process_time() - t)
            t = time.process_time()
            Env(fresh)
            cold.append(time.process_time() - t)
        scores = []
        for _ in range(evals):  # from the stored bytes every time: nothing is reused between evaluations
            gc.collect()
            t = time.process_time()
            scores.append(_replay(Env(_loaded(stored, path)), actions))
            evaluation.append(time.process_time() - t)
        assert all(s == 1.0 for s in scores), "the reference episode must pass"
        figures[path] = {"spec_json_bytes": len(stored), "parse_s": statistics.median(parse),
                         "build_cold_s": statistics.median(cold), "evaluation_s": statistics.median(evaluation)}
    if evaluation_only:
        return {"paths": figures}
    warm, evaluation_loaded = [], []
    for _ in range(max(3, rounds)):
        t = time.process_time()
        Env(spec)
        warm.append(time.process_time() - t)
    for _ in range(evals * 5):  # trajectories of a spec already loaded (its world built once, shared)
        t = time.process_time()
        assert _replay(Env(spec), actions) == 1.0
        evaluation_loaded.append(time.process_time() - t)
    stored = files[FULL]
    fresh = load_spec(stored)  # a spec whose world is not built yet: the first env below builds it
    gc.collect()
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    held = [Env(fresh)]
    _replay(held[0], actions)
    gc.collect()
    first = tracemalloc.get_traced_memory()[0] - start
    held.append(Env(fresh))  # the second env's searches build the shared indexes (once per spec): not per env
    _replay(held[1], actions)
    gc.collect()
    warmed = tracemalloc.get_traced_memory()[0]
    for _ in range(envs):
        env = Env(fresh)
        _replay(env, actions)  # each live env holds what its episode changed
        held.append(env)
    gc.collect()
    per_env = (tracemalloc.get_traced_memory()[0] - warmed) / envs
    tracemalloc.stop()
    records, _ = big_workspace(10 * 2_800_000)
    size, rates = agent_path(records, seconds, rounds)
    return {
        "paths": figures, "records": sum(len(t) for t in held[0].state.tables()),
        "build_warm_s": statistics.median(warm), "first_env_bytes": first, "env_bytes": per_env,
        "evaluation_loaded_s": statistics.median(evaluation_loaded),
        "agent_world_json_bytes": size, "agent_path": rates,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tau2", type=Path, help="a tau2-bench checkout (holding src/tau2 and data/tau2)")
    parser.add_argument("--tau2-python", default=sys.executable, help="a Python that can import tau2 and its deps")
    parser.add_argument("--example", default="incident_rollback", help="the example the large spec is built on")
    parser.add_argument("--seconds", type=float, default=0.3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--envs", type=int, default=8, help="live envs held for the memory figure")
    parser.add_argument("--evals", type=int, default=10, help="evaluations from stored data, each side")
    parser.add_argument("--cpu", type=int, default=1, help="the core both sides are pinned to")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--evaluation-only", action="store_true",
                        help="only the stored-spec figures (parse, build, evaluation), on both sides")
    args = parser.parse_args()
    where = pin(args.cpu)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    ours = coworkenv_side(args.example, args.seconds, args.rounds, args.envs, args.evals, args.evaluation_only)
    if args.tau2 is not None:
        theirs = tau2_side(args.tau2, args.tau2_python, args.seconds, args.rounds, args.envs, args.evals,
                           args.evaluation_only)
        label = "tau2 measured in this run"
        tau2 = {"scan_calls_per_s": theirs["agent_path"].get(TAU2_SCAN_TOOL, QUOTED["scan_calls_per_s"]),
                "env_bytes": theirs["env_bytes"] or QUOTED["env_bytes"],
                "build_s": statistics.median(theirs["build_s"]), "evaluation_s": statistics.median(theirs["evaluation_s"])}
    else:
        theirs, label, tau2 = {}, "tau2 QUOTED from issue 14 (not measured here)", dict(QUOTED)
    load_after = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    report = {"coworkenv": ours, "tau2": theirs, "tau2_used": tau2, "tau2_source": label,
              "load_before": load, "load_after": load_after, "pinning": where}
    print(f"coworkenv vs tau2-bench retail ({label}); {where}; load average {load[0]:.1f} before, "
          f"{load_after[0]:.1f} after")
    if theirs.get("agent_path"):
        print("tau2 agent path (Environment.get_response), calls/s: " +
              ", ".join(f"{k} {v:,.0f}" for k, v in theirs["agent_path"].items()))
    bar = 5 * tau2["scan_calls_per_s"]
    if "agent_path" in ours:
        print(f"\nagent path at 10x tau2-retail ({ours['agent_world_json_bytes'] / 1e6:.1f} MB world JSON): calls/s and "
          f"ratio to tau2's {TAU2_SCAN_TOOL} ({tau2['scan_calls_per_s']:,.0f}/s); bar 5x = {bar:,.0f}/s")
    for tool, rate in ours.get("agent_path", {}).items():
        print(f"  {tool:24} {rate:9,.0f}  {rate / tau2['scan_calls_per_s']:5.2f}x  {'met' if rate >= bar else 'below'}")
    mib = 2**20

    def per_mib(n: float | None) -> float | None:
        return None if n is None else n / mib

    full, sealed = ours["paths"][FULL], ours["paths"][SEALED]
    rows = [
        ("memory per live env (MiB)", FULL, per_mib(ours.get("env_bytes")), tau2["env_bytes"] / mib, "<= 1x"),
        ("  first env of a spec, with its shared world (MiB)", FULL, per_mib(ours.get("first_env_bytes")),
         tau2["env_bytes"] / mib, "(info)"),
        ("build from a spec just parsed, cold (s)", SEALED, sealed["build_cold_s"], tau2["build_s"], "<= 1x"),
        ("build from a spec just parsed, cold (s)", FULL, full["build_cold_s"], tau2["build_s"], "(info)"),
        ("parse + cold build (s)", SEALED, sealed["parse_s"] + sealed["build_cold_s"], tau2["build_s"], "<= 1x"),
        ("parse + cold build (s)", FULL, full["parse_s"] + full["build_cold_s"], tau2["build_s"], "(info)"),
        ("build from a loaded spec, shared world (s)", "", ours.get("build_warm_s"), tau2["build_s"], "<= 1x"),
        ("evaluation from stored data: parse+build+replay+verify (s)", SEALED, sealed["evaluation_s"],
         tau2["evaluation_s"], ">= 5x faster"),
        ("evaluation from stored data: parse+build+replay+verify (s)", FULL, full["evaluation_s"],
         tau2["evaluation_s"], "(info)"),
        ("evaluation of a trajectory, spec loaded (s)", "", ours.get("evaluation_loaded_s"), tau2["evaluation_s"],
         "(info)"),
    ]
    print(f"\ntau2-retail-size spec: {full['spec_json_bytes'] / 1e6:.1f} MB JSON ({sealed['spec_json_bytes'] / 1e6:.1f} "
          f"MB sealed), {ours.get('records', '~32k')} records (tau2 retail DB: {theirs.get('db_json_bytes', 2_800_000) / 1e6:.1f} MB)")
    print(f"load paths: {FULL} = plain spec JSON, every record validated by pydantic (load_spec of spec.to_json()); "
          f"{SEALED} = a file written by seal_spec, its checksum verified, records built without validation")
    print(f"  {'figure':60} {'path':7} {'coworkenv':>10} {'tau2':>10} {'tau2/ours':>10}  goal")
    for name, path, mine, other, goal in rows:
        if mine is None:  # not measured (--evaluation-only)
            continue
        print(f"  {name:60} {path:7} {mine:10.4f} {other:10.4f} {other / mine:10.2f}  {goal}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
