"""Where an imported Claw-Eval task's grader scores an episode otherwise than Claw-Eval's, for what the agent wrote
beside its tool calls (import43).

    PYTHONPATH=. python benchmarks/claw_eval_transcript.py CHECKOUT IMPORT_DIR [EPISODES]

Claw-Eval's trace holds every assistant message of the episode, the text the model wrote beside its tool calls too
(`runner/loop.py`), and its graders read them: `_get_all_assistant_text` joins the text of all of them,
`_get_final_assistant_text` is the last one's (in an episode cut at `max_turns`, the one that made the last calls),
`format_conversation` gives the judge each. On every `full` and `full (judge)` task of IMPORT_DIR (an import of
CHECKOUT, with a judge for the judged ones), EPISODES seeded episodes (default 2) of the parity test's calls are
played with fixture texts written beside each call and a short reply ("Done."), and one more is cut at the task's
limit (a call with text every message, no reply); each is scored by the task's env and by Claw-Eval's own services
and grader (its judge, where it asks one, answering by a digest of the texts it is sent, as the judged parity test's).
Prints the episodes and tasks whose scores differ, by kind, with a first example.

Since import44 each narrated episode is also played ending with an empty message ("empty": no text, no calls), which
ends Claw-Eval's loop and is its trace's last assistant message, its final text "".
"""

from __future__ import annotations

import collections
import json
import random
import sys
from pathlib import Path
from typing import Any

from coworkenv import Env
from coworkenv.checks.judge import judge_backend, judging
from coworkenv.env import Action, ToolCallRequest
from coworkenv.loading import load_spec
from tests.support.claw_eval_own import claw_eval_score, world_now
from tests.support.fake_openai_server import FakeOpenAIServer
from tests.test_import_claw_eval_parity import _episodes, _fixture_values, text_digest_score


def narrated(root: Path, task_dir: Path, spec: Any, count: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """The parity test's episodes with fixture texts beside every call and "Done." as the reply, each again ending
    with an empty message, and one cut."""
    rng = random.Random(f"narrated {task_dir.name}")
    _, texts = _fixture_values(root, task_dir)
    texts = texts or ["noted"]

    def words() -> str:
        return " ".join(rng.sample(texts, min(len(texts), rng.randint(1, 12))))

    out: list[tuple[str, list[dict[str, Any]]]] = []
    for steps in _episodes(root, task_dir, spec, count)[1:]:
        calls = [{**s, "text": words()} for s in steps if "call" in s]
        out.append(("narrated", [*calls[:(spec.max_steps or 40) - 1], {"say": "Done."}]))
        out.append(("empty", [*calls[:(spec.max_steps or 40) - 1], {"say": ""}]))
    calls = [s for steps in _episodes(root, task_dir, spec, 6)[1:] for s in steps if "call" in s]
    limit = spec.max_steps or 40
    out.append(("cut", [{**c, "text": words()} for c in (calls * limit)[:limit]]))
    return out


def our_score(spec: Any, steps: list[dict[str, Any]]) -> float:
    env = Env(spec)
    env.reset()
    for n, step in enumerate(steps):
        if env.done:
            break
        if "say" in step:
            env.step(Action.say(step["say"]))
        else:
            call = step["call"]
            env.step(Action(step.get("text"), (ToolCallRequest(call["name"], call["arguments"], f"call_{n}"),)))
    return env.score().score


def main() -> None:
    root, imported = Path(sys.argv[1]), Path(sys.argv[2])
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    report = json.loads((imported / "import_report.json").read_text(encoding="utf-8"))
    tasks = [t for t in report["tasks"] if t["status"] in ("full", "full (judge)")]

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        return {"content": json.dumps({"score": text_digest_score(body["messages"]), "reasoning": "digest"})}

    episodes, differ, where = 0, collections.Counter[str](), collections.defaultdict[str, set[str]](set)
    first: dict[str, tuple[str, float, float]] = {}
    with FakeOpenAIServer(responder=answer) as server:
        backend = judge_backend(f"{server.url}/v1", "stand-in")
        assert backend is not None
        with judging(backend):
            episodes = _compare(root, imported, tasks, count, differ, where, first)
    print(f"tasks {len(tasks)}, episodes {episodes}: differing {sum(differ.values())}")
    for kind, n in differ.most_common():
        print(f"  {kind}: {n} episodes, {len(where[kind])} tasks; first {first[kind]}")


def _compare(root: Path, imported: Path, tasks: list[dict[str, Any]], count: int, differ: collections.Counter[str],
             where: dict[str, set[str]], first: dict[str, tuple[str, float, float]]) -> int:
    episodes = 0
    for task in tasks:
        task_dir = root / "tasks" / task["task_id"]
        spec = load_spec(imported / task["spec_file"]).model_copy(update={"faults": None})
        for kind, steps in narrated(root, task_dir, spec, count):
            episodes += 1
            ours = our_score(spec, steps)
            theirs, _ = claw_eval_score(root, task_dir, steps, judge_rule=text_digest_score,
                                        now=world_now(spec))
            if abs(ours - theirs) > 1e-9:
                differ[kind] += 1
                where[kind].add(task["task_id"])
                first.setdefault(kind, (task["task_id"], ours, theirs))
    return episodes


if __name__ == "__main__":
    main()
