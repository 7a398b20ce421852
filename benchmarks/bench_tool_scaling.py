"""Cost of every search and list tool as its table grows from 100 to 50,000 records, and calls/s at 10x tau2-retail.

For each tool, a world holds N records in the tables the tool reads (directory people are always there); the tool is
called with varied arguments drawn from a seeded stream (different words, windows, people each call, so no call is
a repeat of the previous one). Figures are microseconds per call through `ToolBox.call` (argument validation
included), best of `--rounds`, CPU time of this process. A PNG plots them (log-log) into docs/.

The second part builds one workspace about 10x the size of tau2-bench's retail database (2.8 MB of JSON: here
~28 MB over every app) and measures each tool's calls/s on the agent path (`Env.step`: tool call, dynamics tick,
audit entry and state hashes), against 5x tau2's scanning tool on its own database (14,324 calls/s -> 71,620).

    python benchmarks/bench_tool_scaling.py [--sizes 100,1000,10000,50000] [--seconds 0.3] [--png docs/tool_scaling.png]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from coworkenv import Action, Env, load_spec  # noqa: E402
from coworkenv.apps import APPS, TOOLS, WorldApps  # noqa: E402
from coworkenv.examples import load_example  # noqa: E402
from coworkenv.tools import ToolBox  # noqa: E402
from coworkenv.world import World, canonical_json, format_time, parse_time  # noqa: E402

START = parse_time("2026-01-05T08:00:00Z")
TAU2_SCAN_CALLS_PER_S = 14_324
BAR = 5 * TAU2_SCAN_CALLS_PER_S
Rng = random.Random
Records = dict[str, dict[str, list[dict[str, Any]]]]
ArgsFn = Callable[[Rng, int], dict[str, Any]]


def vocabulary(rng: Rng, n: int = 3_000) -> list[str]:
    """Pronounceable words: a few common ones and a long tail, like real text."""
    syllables = ["ka", "lo", "mi", "ne", "ra", "tu", "so", "vi", "de", "pa", "ge", "ri", "mo", "an", "el", "is"]
    return sorted({"".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(n)})


VOCAB = vocabulary(Rng(1))
PEOPLE = 200


def _text(rng: Rng, k: int) -> str:
    # Zipf-like: low indexes (common words) are drawn far more often.
    return " ".join(VOCAB[min(int(rng.paretovariate(1.1)) - 1, len(VOCAB) - 1)] if rng.random() < 0.5
                    else rng.choice(VOCAB) for _ in range(k))


def _email(i: int) -> str:
    return f"p{i}@corp.test"


def people() -> list[dict[str, Any]]:
    rng = Rng(2)
    return [{"id": f"u-{i}", "name": f"{rng.choice(VOCAB).title()} {rng.choice(VOCAB).title()}", "email": _email(i),
             "team": f"t-{i % 10}", "role": rng.choice(["engineer", "analyst", "manager"]), "chat_handle": f"p{i}"}
            for i in range(PEOPLE)]


def _t(seconds: int) -> str:
    return format_time(START + seconds)


# -- records per app, n of them in the main table ----------------------------------------------------------------
def mail(rng: Rng, n: int) -> Records:
    return {"mail": {"messages": [
        {"id": f"msg-{i}", "thread_id": f"thr-{i // 3}", "folder": rng.choice(["inbox", "inbox", "archive", "sent"]),
         "sender": _email(rng.randrange(PEOPLE)), "to": [_email(rng.randrange(PEOPLE))], "subject": _text(rng, 4),
         "body": _text(rng, 30), "sent_at": _t(-i * 600), "read": rng.random() < 0.7,
         "labels": rng.sample(["billing", "legal", "hr"], rng.randint(0, 1))} for i in range(n)]}}


def tickets(rng: Rng, n: int) -> Records:
    return {"tickets": {"tickets": [
        {"id": f"ENG-{i}", "title": _text(rng, 5), "description": _text(rng, 25),
         "status": rng.choice(["open", "in_progress", "blocked", "resolved", "closed"]),
         "assignee": f"u-{rng.randrange(PEOPLE)}", "labels": [rng.choice(VOCAB)]} for i in range(n)]}}


def calendar(rng: Rng, n: int) -> Records:
    return {"calendar": {"events": [
        {"id": f"evt-{i}", "title": _text(rng, 3), "start": _t(i * 1_800), "end": _t(i * 1_800 + rng.choice([1, 2]) * 1_800),
         "organizer": _email(rng.randrange(PEOPLE)), "attendees": [_email(rng.randrange(PEOPLE)) for _ in range(3)],
         "description": _text(rng, 8)} for i in range(n)]}}


def logs(rng: Rng, n: int) -> Records:
    return {"logs": {"lines": [
        {"id": f"log-{i}", "service": f"svc-{i % 5}", "ts": _t(i * 20), "level": rng.choice(["DEBUG", "INFO", "WARN", "ERROR"]),
         "request_id": f"req-{i // 4}", "message": _text(rng, 6)} for i in range(n)]},
        "services": {"services": [{"id": f"svc-{k}", "name": f"S{k}"} for k in range(5)]}}


def files(rng: Rng, n: int) -> Records:
    return {"files": {"files": [{"id": f"{rng.choice(['docs', 'reports', 'notes'])}/{i:06d}.md", "kind": "markdown",
                                 "content": _text(rng, 40)} for i in range(n)]}}


def chat(rng: Rng, n: int) -> Records:
    return {"chat": {"channels": [{"id": f"c-{k}", "name": f"#c{k}", "members": []} for k in range(20)],
                     "messages": [{"id": f"chat-{i}", "channel": f"c-{i % 20}", "sender": f"u-{rng.randrange(PEOPLE)}",
                                   "text": _text(rng, 8), "ts": _t(i * 30)} for i in range(n)]}}


def todo(rng: Rng, n: int) -> Records:
    return {"todo": {"lists": [{"id": f"list-{k}", "name": f"L{k}"} for k in range(10)], "tasks": [
        {"id": f"task-{i}", "list_id": f"list-{i % 10}", "title": _text(rng, 4), "notes": _text(rng, 6),
         "due": _t(rng.randrange(-86400 * 30, 86400 * 60)) if rng.random() < 0.8 else None, "done": rng.random() < 0.5}
        for i in range(n)]}}


def notes(rng: Rng, n: int) -> Records:
    return {"notes": {"notes": [{"id": f"note-{i}", "title": _text(rng, 3), "body": _text(rng, 30),
                                 "tags": [rng.choice(VOCAB[:50])], "updated_at": _t(-i * 300)} for i in range(n)]}}


def kb(rng: Rng, n: int) -> Records:
    return {"kb": {"articles": [{"id": f"KB-{i}", "title": _text(rng, 4), "body": _text(rng, 60),
                                 "category": f"cat-{i % 8}", "status": rng.choice(["published", "published", "archived"])}
                                for i in range(n)]}}


def contacts(rng: Rng, n: int) -> Records:
    return {"contacts": {"contacts": [{"id": f"ct-{i}", "name": f"{rng.choice(VOCAB).title()} {rng.choice(VOCAB).title()}",
                                       "company": rng.choice(VOCAB[:300]), "phone": f"+1 555 {i:07d}",
                                       "notes": _text(rng, 5), "tags": [rng.choice(["vip", "vendor", "lead"])]}
                                      for i in range(n)]}}


def config(rng: Rng, n: int) -> Records:
    keys = [f"{rng.choice(VOCAB[:40])}/{i}" for i in range(n)]
    return {"config": {"entries": [{"id": k, "value": str(i), "version": 1} for i, k in enumerate(keys)],
                       "revisions": [{"id": f"{k}@1", "key": k, "version": 1, "value": str(i)} for i, k in enumerate(keys)]}}


def scheduler(rng: Rng, n: int) -> Records:
    return {"scheduler": {"jobs": [{"id": f"job-{i}", "name": f"{rng.choice(VOCAB)}-{i}", "schedule": "0 3 * * *",
                                    "command": _text(rng, 3), "enabled": rng.random() < 0.8,
                                    "last_status": rng.choice(["ok", "failed", "never"])} for i in range(n)]}}


def inventory(rng: Rng, n: int) -> Records:
    return {"inventory": {"locations": [{"id": f"loc-{k}", "name": f"L{k}"} for k in range(10)], "items": [
        {"id": f"SKU{i}@loc-{i % 10}", "sku": f"SKU{i}", "name": _text(rng, 3), "location": f"loc-{i % 10}",
         "quantity": rng.randrange(0, 100), "reorder_level": rng.randrange(0, 30)} for i in range(n)]}}


def web(rng: Rng, n: int) -> Records:
    return {"web": {"pages": [{"id": f"https://site{i % 50}.test/p/{i}", "title": _text(rng, 4), "body": _text(rng, 50),
                               "status": rng.choice([200, 200, 200, 404, 500])} for i in range(n)]}}


def _word(rng: Rng) -> str:
    return _text(rng, 1)


# tool -> (records builder, arguments for the k-th call)
WORKLOADS: dict[str, tuple[Callable[[Rng, int], Records], ArgsFn]] = {
    "mail_search": (mail, lambda r, n: {"query": _word(r)}),
    "mail_list_messages": (mail, lambda r, n: {"folder": r.choice(["inbox", "archive"]), "unread_only": r.random() < 0.5}),
    "tickets_search": (tickets, lambda r, n: {"query": _word(r), "status": r.choice([None, "open"])}),
    "calendar_list_events": (calendar, lambda r, n: {"start": _t(t := r.randrange(n) * 1_800), "end": _t(t + 86_400),
                                                     "person": r.choice([None, f"u-{r.randrange(PEOPLE)}"])}),
    "calendar_find_events": (calendar, lambda r, n: {"query": _word(r)}),
    "calendar_free_busy": (calendar, lambda r, n: {"people": [f"u-{r.randrange(PEOPLE)}"], "start": _t(t := r.randrange(n) * 1_800),
                                                   "end": _t(t + 7 * 86_400)}),
    "logs_search": (logs, lambda r, n: {"service": f"svc-{r.randrange(5)}", "min_level": "WARN",
                                        "since": _t(t := r.randrange(max(1, n)) * 20), "until": _t(t + 3_600)}),
    "logs_tail": (logs, lambda r, n: {"service": f"svc-{r.randrange(5)}"}),
    "directory_search": (lambda r, n: {}, lambda r, n: {"query": _word(r)[:3]}),
    "files_list_files": (files, lambda r, n: {"prefix": f"{r.choice(['docs', 'reports', 'notes'])}/{r.randrange(10)}"}),
    "files_search_files": (files, lambda r, n: {"query": _word(r)}),
    "chat_read_channel": (chat, lambda r, n: {"channel": f"c-{r.randrange(20)}"}),
    "todo_list_tasks": (todo, lambda r, n: {"list_id": f"list-{r.randrange(10)}"}),
    "todo_search_tasks": (todo, lambda r, n: {"query": _word(r)}),
    "notes_list_notes": (notes, lambda r, n: {"tag": r.choice([None, r.choice(VOCAB[:50])])}),
    "notes_search_notes": (notes, lambda r, n: {"query": _word(r)}),
    "kb_search": (kb, lambda r, n: {"query": _word(r), "category": r.choice([None, f"cat-{r.randrange(8)}"])}),
    "contacts_search": (contacts, lambda r, n: {"query": _word(r)}),
    "config_list_keys": (config, lambda r, n: {"prefix": r.choice(VOCAB[:40]) + "/"}),
    "scheduler_list_jobs": (scheduler, lambda r, n: {"enabled": True, "last_status": "failed"}),
    "inventory_search_items": (inventory, lambda r, n: {"location": f"loc-{r.randrange(10)}", "below_reorder": True}),
    "web_search": (web, lambda r, n: {"query": _word(r)}),
}


def world_of(records: Records) -> World:
    apps = {"directory": {"people": people(), "teams": [{"id": f"t-{k}", "name": f"T{k}"} for k in range(10)]}, **records}
    return World.from_wire(APPS, WorldApps.model_validate(apps), START, 30, "u-0")


def us_per_call(box: ToolBox, tool: str, args_fn: ArgsFn, n: int, seconds: float, rounds: int, size: int) -> float:
    rng = Rng(3)
    batch = [args_fn(rng, n) for _ in range(size)]
    best = float("inf")
    for _ in range(rounds):
        calls, start = 0, time.process_time()
        while time.process_time() - start < seconds:
            for args in batch:
                outcome = box.call(tool, args)
                assert outcome.ok, (tool, args, outcome.error)
            calls += len(batch)
        best = min(best, (time.process_time() - start) / calls * 1e6)
    return best


def scaling(sizes: list[int], seconds: float, rounds: int, tools: list[str], batch: int) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = {}
    for tool in tools:
        build, args_fn = WORKLOADS[tool]
        out[tool] = {}
        for n in sizes:
            box = ToolBox(world_of(build(Rng(n), n)), TOOLS, TOOLS)
            out[tool][n] = us_per_call(box, tool, args_fn, n, seconds, rounds, batch)
        print(f"{tool:24} " + "  ".join(f"{n:>6}: {us:9.1f}us" for n, us in out[tool].items()), flush=True)
    return out


def big_workspace(target_bytes: int) -> tuple[Records, dict[str, int]]:
    """Every app at a size that together makes about `target_bytes` of world JSON."""
    weights = {mail: 0.35, calendar: 0.08, logs: 0.15, tickets: 0.1, files: 0.08, chat: 0.04, todo: 0.03, notes: 0.04,
               kb: 0.05, contacts: 0.02, config: 0.01, scheduler: 0.01, inventory: 0.02, web: 0.02}
    records: Records = {}
    sizes: dict[str, int] = {}
    for build, share in weights.items():
        probe = build(Rng(5), 200)
        per_record = len(canonical_json(probe)) / 200
        n = max(100, int(target_bytes * share / per_record))
        sizes[build.__name__] = n
        for app, tables in build(Rng(6), n).items():
            records.setdefault(app, {}).update(tables)
    return records, sizes


def agent_env(records: Records) -> Env:
    """An env of an example's spec (its checks and reference stay valid) with `records` added and every tool exposed."""
    raw = json.loads(load_example("incident_rollback").to_json())
    apps = raw["world"]["apps"]
    apps.setdefault("directory", {}).setdefault("people", []).extend(people())
    for app, tables in records.items():
        for table, rows in tables.items():
            apps.setdefault(app, {}).setdefault(table, []).extend(rows)
    raw["tools"] = sorted(TOOLS)
    env = Env(load_spec(raw), max_steps=10**9)
    env.reset()
    return env


def agent_actions(env: Env, tool: str) -> list[Action]:
    """The workload's 256 calls of `tool` in `env`'s world (the same for every run)."""
    rng = Rng(4)
    n = max(len(t) for t in env.state.tables())
    return [Action.call(tool, WORKLOADS[tool][1](rng, n)) for _ in range(256)]


def agent_path(records: Records, seconds: float, rounds: int) -> tuple[int, dict[str, float]]:
    """Calls/s of every workload tool through Env.step in one big world."""
    env = agent_env(records)
    size = len(canonical_json(env.state.to_wire()))
    out: dict[str, float] = {}
    for tool in WORKLOADS:
        actions = agent_actions(env, tool)
        best = 0.0
        for _ in range(rounds):
            calls, start = 0, time.process_time()
            while time.process_time() - start < seconds:
                for action in actions:
                    env.step(action)
                calls += len(actions)
            best = max(best, calls / (time.process_time() - start))
            env.reset()
        out[tool] = best
    return size, out


def plot(results: dict[str, dict[int, float]], png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from coworkenv.atomic import atomic_write_bytes

    fig, ax = plt.subplots(figsize=(9, 6))
    colors = plt.get_cmap("tab20").colors
    for k, (tool, series) in enumerate(results.items()):
        ax.plot(list(series), list(series.values()), marker="os^D"[k % 4], linestyle=("-", "--")[k // 20 % 2],
                color=colors[k % 20], linewidth=1, markersize=3, label=tool)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("records in the table")
    ax.set_ylabel("µs per call (ToolBox.call, CPU time)")
    ax.set_title("coworkenv search and list tools: cost vs table size (indexed)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    png.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(png, buf.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,300,1000,3000,10000,30000,50000")
    parser.add_argument("--seconds", type=float, default=0.2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=256, help="distinct argument sets per tool (cycled)")
    parser.add_argument("--tools", default=",".join(WORKLOADS), help="comma-separated subset of the workloads")
    parser.add_argument("--png", type=Path, default=REPO_ROOT / "docs" / "tool_scaling.png")
    parser.add_argument("--no-png", action="store_true", help="do not write the plot")
    parser.add_argument("--no-agent-path", action="store_true", help="skip the 10x tau2-retail world")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"us per call by table size (best of {args.rounds} x {args.seconds}s CPU):")
    results = scaling(sizes, args.seconds, args.rounds, args.tools.split(","), args.batch)
    if not args.no_png:
        plot(results, args.png)
        print(f"plot: {args.png}")
    report: dict[str, Any] = {"us_per_call": results}
    if not args.no_agent_path:
        records, counts = big_workspace(10 * 2_800_000)
        size, rates = agent_path(records, args.seconds, args.rounds)
        print(f"\nagent path (Env.step) in one world of {size / 1e6:.1f} MB JSON ({sum(counts.values())} records: "
              f"{', '.join(f'{k} {v}' for k, v in counts.items())}); bar: 5 x tau2's {TAU2_SCAN_CALLS_PER_S}/s = {BAR}/s")
        for tool, rate in rates.items():
            print(f"  {tool:24} {rate:9.0f} calls/s  {'>= bar' if rate >= BAR else 'below bar'}")
        report["agent_path"] = {"world_json_bytes": size, "records": counts, "calls_per_s": rates}
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
