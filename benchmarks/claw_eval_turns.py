"""How many model calls an imported Claw-Eval task's env takes past the task's `environment.max_turns` (import42).

    PYTHONPATH=. python benchmarks/claw_eval_turns.py CHECKOUT IMPORT_DIR

Claw-Eval's loop (`runner/loop.py`) calls the model at most `max_turns` times (20 unless the task says) and then
grades. On every imported task of IMPORT_DIR (an import of CHECKOUT), one call of its first declared tool is made a
message until the env stops (at most `max_turns` + 5 messages); prints the tasks whose env took more than `max_turns`
messages and the calls past the limits, summed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

from coworkenv import Env
from coworkenv.env import Action, ToolCallRequest
from coworkenv.loading import load_spec


def main() -> None:
    checkout, imported = Path(sys.argv[1]), Path(sys.argv[2])
    report = json.loads((imported / "import_report.json").read_text(encoding="utf-8"))
    turns = {}
    for path in (checkout / "tasks").glob("*/task.yaml"):
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        turns[doc["task_id"]] = (doc.get("environment") or {}).get("max_turns", 20)
    tasks = over = past = 0
    for task in report["tasks"]:
        if not task.get("spec_file"):
            continue
        spec, limit = load_spec(imported / task["spec_file"]), turns[task["task_id"]]
        env = Env(spec)
        env.reset()
        tasks, taken = tasks + 1, 0
        while not env.done and taken < limit + 5:
            env.step(Action(None, (ToolCallRequest(spec.tool_decls[0].name, {}, f"c{taken}"),)))
            taken += 1
        over, past = over + (taken > limit), past + max(0, taken - limit)
    print(f"tasks {tasks}: the env took more model calls than Claw-Eval's max_turns in {over} (calls past it: {past})")


if __name__ == "__main__":
    main()
