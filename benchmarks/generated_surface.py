"""What generated environments show the agent: every strict-sweep spec's prompt tools and a sample of tool results.

    PYTHONPATH=<tree> python benchmarks/generated_surface.py OUT.json      # record it for the code of <tree>
    python benchmarks/generated_surface.py --compare A.json B.json         # how two records differ

For each spec of `benchmarks/sweep_strict.py` (the shipped examples, then seeds 1-30 of every capability): the tools
as `Env.reset` hands them to the agent (the JSON every request carries), the opening messages' length, and the JSON
of the results of each to-do, calendar and inventory read that takes no argument (on the fresh world) and of each
call of the reference solution. Record it on two trees (a `git worktree` of a past commit, with `PYTHONPATH` naming
it) and compare: a change to the apps or tools that should leave generated envs alone gives no difference.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

READS_OF = {"todo", "calendar", "inventory"}


def record(out: Path) -> int:
    import orjson

    from coworkenv.env import Action, Env

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from sweep_strict import sweep_specs

    rows: dict[str, Any] = {}
    for name, make in sweep_specs(30, None):
        spec = make()
        env = Env(spec)
        messages, info = env.reset()
        results = [[t.name, orjson.dumps(env.toolbox.call(t.name, {}, rendered=True).observation()).decode()]
                   for t in env.toolbox.defs() if t.app in READS_OF and t.kind == "read"
                   and not t.openai_schema()["function"]["parameters"].get("required")]
        env.reset()
        for turn in spec.reference:
            for step in turn.steps:
                if env.done:
                    break
                if step.call is None:
                    env.step(Action(step.say))
                else:
                    results.append([step.call.name,
                                    env.step(Action.call(step.call.name, step.call.arguments)).messages[-1]["content"]])
        rows[name] = {"tools": orjson.dumps(info["tools"]).decode(),
                      "opening": sum(len(m["content"]) for m in messages), "results": results}
    out.write_text(json.dumps(rows, sort_keys=True))
    print(f"{len(rows)} specs recorded in {out}")
    return 0


def compare(a_path: Path, b_path: Path) -> int:
    a, b = (json.loads(p.read_text()) for p in (a_path, b_path))
    if a.keys() != b.keys():
        print(f"the records hold other specs: {sorted(a.keys() ^ b.keys())[:5]}")
        return 1
    tools = [k for k in a if a[k]["tools"] != b[k]["tools"]]
    pairs = [(k, x, y) for k in a for x, y in zip(a[k]["results"], b[k]["results"], strict=False)]
    results = [(k, x, y) for k, x, y in pairs if x != y]
    counts = sum(len(a[k]["results"]) != len(b[k]["results"]) for k in a)
    chars = [sum(len(r[k]["tools"]) for k in r) for r in (a, b)]
    shown = [sum(len(x[1]) for k in r for x in r[k]["results"]) for r in (a, b)]
    print(f"specs {len(a)}: tools differ in {len(tools)} ({chars[0]:,} -> {chars[1]:,} characters); opening messages "
          f"differ in {sum(a[k]['opening'] != b[k]['opening'] for k in a)}; results {len(pairs):,}, {len(results)} "
          f"differ ({shown[0]:,} -> {shown[1]:,} characters); {counts} specs with another number of results")
    for k, x, y in results[:1]:  # from a little before the first character that differs
        at = max(0, next((i for i, (c, d) in enumerate(zip(x[1], y[1], strict=False)) if c != d), 0) - 60)
        print(f"e.g. {k} {x[0]}, from character {at}:\n  {x[1][at:at + 200]}\n  {y[1][at:at + 200]}")
    return 1 if tools or results or counts else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="OUT.json, or A.json B.json with --compare")
    parser.add_argument("--compare", action="store_true", help="compare two records (exit 1 when they differ)")
    args = parser.parse_args(argv)
    if args.compare != (len(args.paths) == 2) or len(args.paths) > 2:
        parser.error("give OUT.json to record, or --compare A.json B.json")
    return compare(*args.paths) if args.compare else record(args.paths[0])


if __name__ == "__main__":
    sys.exit(main())
