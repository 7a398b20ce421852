"""Over a real Claw-Eval checkout (CLAW_EVAL_CHECKOUT): every task imported `full` scores each episode as
Claw-Eval does, its own mock services answering the same calls and its own grader scoring them; and every task
imported `full (judge)` does too (a noop and 3 episodes each) with a judge that answers by a fixed rule over the texts it is sent (a digest of
them as the score), so that its grader's judge, Claw-Eval's own `LLMJudge`, must be sent the same texts here and
there (the conversation, the calls as the services' audit logs record them) for the scores to agree. The services
read the world's clock (`world_now`): they move their calendar and mail relative to it as they load.

The episodes are made from the task's tools and fixtures (seeded): calls with ids, names, times and texts the
fixtures hold (now and then an id no record has, a value no app knows), and a reply made of fixture texts, so
graders give scores across their range.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from coworkenv import Env
from coworkenv.agents import OraclePolicy
from coworkenv.checks.judge import judge_backend, judging
from coworkenv.env import Action
from coworkenv.importers import FULL_JUDGE, import_checkout
from coworkenv.importers.claw_eval_routes import task_services, tool_endpoints
from coworkenv.importers.claw_eval_task import load_task
from coworkenv.loading import load_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn
from tests.support.claw_eval_own import claw_eval_score, world_now
from tests.support.fake_openai_server import FakeOpenAIServer

CHECKOUT = os.environ.get("CLAW_EVAL_CHECKOUT")
EPISODES = 8  # per task, besides a noop
JUDGED_EPISODES = 3  # per `full (judge)` task, besides a noop: its grader asks its judge up to 5 times an episode


def _fixture_values(root: Path, task_dir: Path) -> tuple[dict[str, list[Any]], list[str]]:
    """Each fixture field's values, and the fixtures' texts."""
    doc = yaml.safe_load((task_dir / "task.yaml").read_text(encoding="utf-8"))
    values: dict[str, list[Any]] = {}
    for service in doc.get("services") or []:
        files = [root / v for k, v in (service.get("env") or {}).items() if k.endswith("FIXTURES")]
        for path in files or sorted((task_dir / "fixtures" / service["name"]).glob("*.json")):
            data = orjson.loads(path.read_bytes()) if path.is_file() else []
            rows = data if isinstance(data, list) else next((v for v in data.values() if isinstance(v, list)), [])
            for row in (r for r in rows if isinstance(r, dict)):
                for key, value in row.items():
                    if isinstance(value, str | int | float) and not isinstance(value, bool):
                        values.setdefault(key, []).append(value)
    texts = sorted({v for vs in values.values() for v in vs if isinstance(v, str) and len(v) > 2})
    return values, texts


def _argument(name: str, schema: dict[str, Any], values: dict[str, list[Any]], texts: list[str],
              rng: random.Random) -> Any:
    kind = schema.get("type")
    emails = [t for t in texts if re.fullmatch(r"[^@\s,]+@[^@\s,]+", t)] or ["someone@company.com"]
    ids = values.get(name) or values.get(name.removesuffix("s")) or ["X-999"]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if kind == "array":
        return rng.sample(ids, min(2, len(ids))) if name.endswith("ids") else [rng.choice(emails)]
    if kind in ("integer", "number", "boolean"):
        return rng.choice({"integer": [1, 5, 50], "number": [10.0, 123.5], "boolean": [True, False]}[kind])
    if name.endswith("_id") or name == "url":
        return "X-999" if rng.random() < 0.15 else str(rng.choice(ids))
    if name in ("to", "user", "recipient"):
        return rng.choice(emails)
    if "time" in name or "date" in name:
        times = [v for k, vs in values.items() if "time" in k or "date" in k for v in vs if isinstance(v, str)]
        time = rng.choice(times or ["2026-03-03T10:00:00Z"])
        return time[:10] if name.endswith("date") else time
    if name in values and rng.random() < 0.5:  # a value of that field, or free text an app may refuse
        return str(rng.choice(values[name]))
    words = [w for t in texts for w in re.split(r"\W+", t) if len(w) > 3] or ["report"]
    return rng.choice(words) if name == "query" else " ".join(rng.sample(texts, min(3, len(texts))))[:600]


def _undeclared_kinds(task_dir: Path) -> dict[str, dict[str, str]]:
    """Per tool, the JSON kind of each field of its endpoint's request model (from the service's source)."""
    task = load_task(task_dir)
    sources = task_services(task_dir, task)
    return {tool: sources[service].kinds.get(path, {}) for tool, (service, path) in tool_endpoints(task).items()
            if service in sources}


def _episodes(root: Path, task_dir: Path, spec: EnvSpec, count: int = EPISODES) -> list[list[dict[str, Any]]]:
    rng = random.Random(task_dir.name)
    values, texts = _fixture_values(root, task_dir)
    kinds = _undeclared_kinds(task_dir)
    episodes: list[list[dict[str, Any]]] = [[{"say": "Okay."}]]
    for _ in range(count):
        steps: list[dict[str, Any]] = []
        if spec.simulated_user is not None:  # questions and the simulated user's answers, then the episode goes on
            said = texts or [line.strip() for line in spec.simulated_user.persona.splitlines() if line.strip()]
            for _ in range(rng.randint(1, max(spec.simulated_user.max_rounds, 1))):
                steps += [{"say": rng.choice(said)}, {"user": rng.choice(said)}]
        for _ in range(rng.randint(2, 14) if spec.tool_decls else 0):
            decl = rng.choice(spec.tool_decls)
            required = set(decl.parameters.get("required", []))
            # and the arguments the service takes though the schema does not list them, now and then
            params = {**decl.parameters.get("properties", {}), **{
                n: {"type": kinds.get(decl.name, {}).get(n, "string")} for n in decl.bind.undeclared}}
            steps.append({"call": {"name": decl.name, "arguments": {
                p: _argument(p, s, values, texts, rng) for p, s in params.items()
                if p in required or rng.random() < 0.5}}})
        steps.append({"say": " ".join(rng.sample(texts, min(len(texts), rng.randint(1, 40)))) or "Done."})
        # one model call a step: Claw-Eval's loop stops after `max_turns` of them, and so does the env (import42)
        episodes.append(steps[:spec.max_steps or len(steps)])
    return episodes


def _our_score(spec: EnvSpec, steps: list[dict[str, Any]]) -> float:
    if any("user" in s for s in steps):  # the env hears the simulated user's answers (`Env.hear`)
        env = Env(spec)
        env.reset()
        for n, step in enumerate(steps):
            answer = steps[n + 1].get("user") if n + 1 < len(steps) else None
            if "say" in step and answer is not None:
                env.hear(Action.say(step["say"]), f"[user_agent]\n{answer}")
            elif "say" in step:
                env.step(Action.say(step["say"]))
            elif "call" in step:
                env.step(Action.call(step["call"]["name"], step["call"]["arguments"]))
        return env.score().score
    turn = ReferenceTurn(steps=[ReferenceStep.model_validate(s) for s in steps])
    return run_episode(Env(spec), OraclePolicy(spec, reference=[turn])).result.score


@pytest.mark.skipif(not CHECKOUT, reason="set CLAW_EVAL_CHECKOUT to a claw-eval checkout")
def test_a_full_import_scores_every_episode_as_claw_evals_own_services_and_grader(tmp_path: Path) -> None:
    root = Path(str(CHECKOUT))
    full = [r for r in import_checkout(root, tmp_path) if r.status == "full"]
    assert full, "no task of the checkout imports full"
    differ = []
    for report in full:
        task_dir = next(p for p in (root / "tasks").iterdir() if (p / "task.yaml").is_file() and (
            p.name == report.task_id))
        # Claw-Eval's injected errors are random: both sides run without them
        spec = load_spec(tmp_path / str(report.spec_file)).model_copy(update={"faults": None})
        for steps in _episodes(root, task_dir, spec):
            ours = _our_score(spec, steps)
            theirs, answers = claw_eval_score(root, task_dir, steps, now=world_now(spec))
            if abs(ours - theirs) > 1e-9:
                differ.append((report.task_id, ours, theirs, [s["call"] for s in steps if "call" in s], answers))
    assert not differ, differ[:3]


def text_digest_score(messages: list[dict[str, str]]) -> float:
    """The stand-in judge's rule: a score in [0, 1] from a digest of the texts it is sent (any change of a text
    changes it, most likely)."""
    text = "\n\0".join(str(m["content"]) for m in messages)
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) % 101 / 100


@pytest.mark.timeout(1800)  # ~400 episodes, each judged up to 5 times on both sides
@pytest.mark.skipif(not CHECKOUT, reason="set CLAW_EVAL_CHECKOUT to a claw-eval checkout")
def test_a_judged_import_scores_every_episode_as_claw_evals_own_grader_and_judge(tmp_path: Path) -> None:
    root = Path(str(CHECKOUT))
    judged = [r for r in import_checkout(root, tmp_path, judge=True) if r.status == FULL_JUDGE]
    assert judged, "no task of the checkout imports full (judge)"

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        return {"content": json.dumps({"score": text_digest_score(body["messages"]), "reasoning": "digest"})}

    differ = []
    with FakeOpenAIServer(responder=answer) as server, judging(judge_backend(f"{server.url}/v1", "stand-in")):
        for report in judged:
            task_dir = root / "tasks" / report.task_id
            spec = load_spec(tmp_path / str(report.spec_file)).model_copy(update={"faults": None})
            for steps in _episodes(root, task_dir, spec, JUDGED_EPISODES):
                ours = _our_score(spec, steps)
                theirs, answers = claw_eval_score(root, task_dir, steps, judge_rule=text_digest_score,
                                                 now=world_now(spec))
                if abs(ours - theirs) > 1e-9:
                    differ.append((report.task_id, ours, theirs, [s["call"] for s in steps if "call" in s], answers))
        assert server.stats()["requests"] > 0
    assert not differ, differ[:3]
