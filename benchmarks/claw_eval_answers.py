"""Where imported Claw-Eval tools answer differently from Claw-Eval's own mock services, by class.

    PYTHONPATH=. python benchmarks/claw_eval_answers.py CHECKOUT IMPORT_DIR [EPISODES] [--wall-clock] [--keys]
        [--values] [--probes]

IMPORT_DIR holds an import of CHECKOUT (`coworkenv import claw-eval CHECKOUT --out IMPORT_DIR`, with a judge to
include the `full (judge)` tasks). On every `full` and `full (judge)` task, the parity test's seeded episodes
(EPISODES a task, default 2) are played call by call on the task's env and on its services (loaded in process from
the checkout, tests/support/claw_eval_own.py), and each answer pair is compared: error or not (a status of 400 or
more, or an `error` field in an answer that is not a record, on either side alike), for list answers the ids
of the records listed, and where both answer an error and the service's is its own answer (status 200: `{"error":
"Ticket X not found"}`), the error's text (`error text`; a 4xx/5xx of the service's framework, a request model's
422 or a route it lacks, is not compared: the env words those its own way). Prints the number of calls and,
per (tool, kind of difference), how many calls differ, the tasks and a first example. The services move their
calendar and mail relative to the clock they read as they load; they load at the world's start (less the second
`world_now` takes: they load before the first call), as the import places the fixture's times relative to it, so
that a date of the fixture (the one the task's prompt and grader name) means the same day on both sides, and then
read the world's clock at each call (it runs `tick_s` a call; the wall clock would run milliseconds). `--wall-clock` has them read the wall clock
instead, as a run of Claw-Eval does: their records then lie on other days than the task names
(`--world-clock`, the default, is accepted as before).

Answers that read alike are compared as the agent's text too (`agent text`: the tool message against the text
Claw-Eval's dispatcher shows, `json.dumps(body, ensure_ascii=False)` or its `Error: ...` line; import40).

`--values` compares the values both answers hold at the same (dotted) path, of the calls both sides answer: how many
answers hold a value of other shape (JSON type, date or time format: `2026-03-02`, `...Z`, `...+00:00`), how many
other values (a word, a number, a text), and how many list the same records in another order (their values then
compared record by record), with per (tool, path) the calls and a first example. Lists of the same scalar values in
another order are counted apart (`values in another order`): a service that lists a set (`list(set(...))`, the rss
feeds' categories) gives them in the order of its run's string hashes, which `PYTHONHASHSEED` varies from run to
run: there is no order of its own to match.

`--probes` plays, in place of the seeded episodes, calls aimed at the edges of each tool (import36): per task, every
read tool with its required arguments, then with an id no record has and one in lower case, each filter in upper,
lower and title case, cut in half and empty, each count or limit at 0, 1, 2, -1 and 1000, each day as a date, a
UTC time, a time with an offset, `03/02/2026` and empty; then each write followed by every read, twice, and each
write of an unknown id. Combine it with `--keys --values` to read the answers too.

`--keys` also reads what the answers hold: of the calls both sides answer (no error on either), how many answers
have other top-level keys than the service's, how many other keys anywhere (nested ones as dotted paths, a list's
items merged), the (tool, key) differences summed over those calls (all, and at the top level), and per tool the
keys (dotted paths) one side alone gives, with their calls (the probe import31 and import32 measured with).
"""

from __future__ import annotations

import collections
import json
import random
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import yaml

from coworkenv import Env
from coworkenv.env import Action
from coworkenv.loading import load_spec
from coworkenv.world import parse_time
from tests.support.claw_eval_own import MockService, dispatched, shown, unknown_tool, world_now
from tests.test_import_claw_eval_parity import _argument, _episodes, _fixture_values


def _record(answer: Any) -> bool:
    """Whether the answer is one record (it has an id field of its own): a get's answer, not a list's."""
    return isinstance(answer, dict) and any(k.endswith("_id") or k == "id" for k in answer)


def failed(answer: Any) -> bool:
    """Whether an answer says the call failed: an `error` field in an answer that is not a record (the services'
    `{"error": "Job X not found"}`, a fetch's `{"status_code": 404, "error": ...}`, the env's tool error); a
    record's own `error` field (a job's last error) is data."""
    return isinstance(answer, dict) and "error" in answer and not _record(answer)


def listed(answer: Any) -> set[str] | None:
    """The ids of the records a list answer holds (the first `*_id` field of each), else None (a record's own
    lists, such as a job's run history, are not a listing)."""
    if not isinstance(answer, dict) or _record(answer):
        return None
    for value in answer.values():
        if isinstance(value, list) and all(isinstance(r, dict) for r in value):
            return {str(next((r[k] for k in r if k.endswith("_id") or k in ("id", "url")), None)) for r in value}
    return None


def key_paths(answer: Any, prefix: str = "") -> set[str]:
    """The keys an answer holds, nested ones as dotted paths (a list's items merged under the list's path)."""
    paths: set[str] = set()
    if isinstance(answer, dict):
        for key, value in answer.items():
            paths.add(prefix + str(key))
            paths |= key_paths(value, f"{prefix}{key}.")
    elif isinstance(answer, list):
        for item in answer:
            paths |= key_paths(item, prefix)
    return paths


def leaf_values(answer: Any, prefix: str = "") -> dict[str, list[Any]]:
    """The leaf values of an answer by dotted path (a list's items merged under the list's path, in order; a list
    of scalars is one leaf)."""
    out: dict[str, list[Any]] = collections.defaultdict(list)
    if isinstance(answer, dict):
        for key, value in answer.items():
            for path, values in leaf_values(value, f"{prefix}{key}.").items():
                out[path] += values
    elif isinstance(answer, list) and any(isinstance(i, dict | list) for i in answer):
        for item in answer:
            for path, values in leaf_values(item, prefix).items():
                out[path] += values
    else:
        out[prefix.rstrip(".")].append(answer)
    return out


def value_kind(value: Any) -> str:
    """A value's shape: its JSON type, and for a string that reads as a date or time, its format."""
    if isinstance(value, str):
        for kind, pattern in (("date", r"\d{4}-\d\d-\d\d"), ("time Z", r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"),
                              ("time Z.f", r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z"),
                              ("time +hh:mm", r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?(\.\d+)?[+-]\d\d:\d\d"),
                              ("time", r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?(\.\d+)?"),
                              ("date time", r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?")):
            if re.fullmatch(pattern, value):
                return kind
        return "str"
    return {bool: "bool", int: "int", float: "float", type(None): "null", list: "list", dict: "dict"}.get(
        type(value), type(value).__name__)


def _item_id(item: Any) -> Any:
    return next((item[k] for k in item if k.endswith("_id") or k in ("id", "url")), None) if isinstance(
        item, dict) else None


def aligned(ours: Any, theirs: Any, prefix: str = "") -> tuple[Any, list[str]]:
    """Our answer with each list of records that lists the same records as theirs in another order put in their
    order, and the (dotted) paths of those lists: an order differs, the records' values are compared by record."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        out, paths = dict(ours), []
        for key in ours.keys() & theirs.keys():
            out[key], found = aligned(ours[key], theirs[key], f"{prefix}{key}.")
            paths += found
        return out, paths
    if isinstance(ours, list) and isinstance(theirs, list) and ours and all(isinstance(i, dict) for i in ours):
        mine, yours = [_item_id(i) for i in ours], [_item_id(i) for i in theirs]
        if None not in mine and mine != yours and sorted(map(str, mine)) == sorted(map(str, yours)):
            order = {str(i): n for n, i in enumerate(yours)}
            return sorted(ours, key=lambda i: order[str(_item_id(i))]), [prefix.rstrip(".")]
    return ours, []


def _same_values(ours: list[Any], theirs: list[Any]) -> bool:
    """Whether two leaves hold lists of the same scalar values, one or more in another order (a list a service makes
    of a set, `list(set(...))`, is in the order of its run's string hashes, `PYTHONHASHSEED`: no order is its own)."""
    return len(ours) == len(theirs) and any(isinstance(a, list) for a in ours) and all(
        a == b or (isinstance(a, list) and isinstance(b, list) and sorted(map(str, a)) == sorted(map(str, b)))
        for a, b in zip(ours, theirs, strict=True))


class Values:
    """What `--values` counts: of the calls both sides answer, the leaves both hold (same dotted path) whose value
    differs in shape (type, date/time format) or in value (an enum word, a number, a text)."""

    def __init__(self) -> None:
        self.answered = self.shape = self.value = self.order = self.reordered = 0
        self.by_tool: dict[tuple[str, str], list[tuple[str, Any, Any]]] = collections.defaultdict(list)

    def add(self, task_id: str, name: str, ours: Any, theirs: Any) -> None:
        self.answered += 1
        ours, orders = aligned(ours, theirs)
        self.order += bool(orders)
        for path in orders:
            self.by_tool[(name, f"order {path}")].append((task_id, "", ""))
        mine, yours = leaf_values(ours), leaf_values(theirs)
        shape = value = reordered = False
        for path in sorted(set(mine) & set(yours)):
            a, b = mine[path], yours[path]
            kinds_a, kinds_b = {value_kind(v) for v in a}, {value_kind(v) for v in b}
            if kinds_a - {"null"} != kinds_b - {"null"} and kinds_a - {"null"} and kinds_b - {"null"}:
                shape = True
                self.by_tool[(name, f"shape {path}: {sorted(kinds_a)} here, {sorted(kinds_b)} there")].append(
                    (task_id, a[:2], b[:2]))
            elif a != b and _same_values(a, b):
                reordered = True
                self.by_tool[(name, f"values in another order {path}")].append((task_id, a[:2], b[:2]))
            elif a != b:
                value = True
                self.by_tool[(name, f"value {path}")].append((task_id, a[:2], b[:2]))
        self.shape += shape
        self.value += value
        self.reordered += reordered and not value

    def lines(self) -> list[str]:
        return [f"answered by both {self.answered}: values of other shape {self.shape}, other values {self.value}, "
                f"records listed in another order {self.order}; lists of the same values in another order "
                f"{self.reordered} (and no other value)",
                *(f"{len(cases):5d}  {name}: {what}  tasks {', '.join(sorted({c[0][:4] for c in cases}))}"
                  f"\n       e.g. {str(cases[0][1])[:150]} here, {str(cases[0][2])[:150]} there"[:500]
                  for (name, what), cases in sorted(self.by_tool.items(), key=lambda kv: (-len(kv[1]), kv[0])))]


class Keys:
    """What `--keys` counts: the calls both sides answer, and where their keys differ."""

    def __init__(self) -> None:
        self.answered = self.top = self.anywhere = self.pairs = self.top_pairs = 0
        self.by_tool: dict[tuple[str, str], list[str]] = collections.defaultdict(list)

    def add(self, task_id: str, name: str, ours: Any, theirs: Any) -> None:
        self.answered += 1
        mine, yours = key_paths(ours), key_paths(theirs)
        top_mine = {k for k in mine if "." not in k}
        top_yours = {k for k in yours if "." not in k}
        self.top += top_mine != top_yours
        self.anywhere += mine != yours
        self.pairs += len(mine ^ yours)
        self.top_pairs += len(top_mine ^ top_yours)
        for key in mine - yours:
            self.by_tool[(name, f"here only: {key}")].append(task_id)
        for key in yours - mine:
            self.by_tool[(name, f"there only: {key}")].append(task_id)

    def lines(self) -> list[str]:
        return [f"answered by both {self.answered}: other top-level keys {self.top}, other keys anywhere "
                f"{self.anywhere}; (tool, key) differences {self.pairs}, at the top level {self.top_pairs}",
                *(f"{len(tasks):5d}  {name}: {what}  tasks {', '.join(sorted({t[:4] for t in tasks}))}"[:300]
                  for (name, what), tasks in sorted(self.by_tool.items(), key=lambda kv: (-len(kv[1]), kv[0])))]


WRITES = ("create", "update", "delete", "send", "save", "close", "share", "export", "submit", "publish", "order",
          "notification")
FILTERS = ("query", "status", "category", "industry", "tier", "priority", "type", "department", "tag", "source",
           "feed_name", "user", "keyword")
LIMITS = ("max_results", "days_back", "limit", "days", "timeout_seconds")
DAYS = ("2026-03-02", "2026-03-02T00:00:00Z", "2026-03-02T09:00:00+08:00", "03/02/2026", "")


def _read_as_claw_eval(arguments: Any) -> Any:
    """A call's arguments as Claw-Eval's provider reads them (`json.loads`, `{}` when they are no JSON)."""
    if not isinstance(arguments, str):
        return arguments
    try:
        return json.loads(arguments)
    except ValueError:
        return {}


def _step(decl: Any, arguments: dict[str, Any] | str) -> dict[str, Any]:
    """A step calling the tool `decl` declares with `arguments`."""
    return {"call": {"name": decl.name, "arguments": arguments}}


def _probing(root: Path, task_dir: Path, spec: Any) -> tuple[random.Random, dict[str, list[Any]], list[str], list[Any],
                                                             list[Any], Any]:
    """What the probes of a task are made of: its seeded draws, the fixtures' values and texts, its read and write
    tools, and each tool's required arguments (an id of the fixture's, else a drawn value)."""
    rng = random.Random(task_dir.name)
    values, texts = _fixture_values(root, task_dir)
    reads = [d for d in spec.tool_decls if not any(w in d.name for w in WRITES)]
    writes = [d for d in spec.tool_decls if any(w in d.name for w in WRITES)]

    def base(decl: Any) -> dict[str, Any]:
        props = decl.parameters.get("properties", {})
        return {p: str(values[p][0]) if p.endswith("_id") and values.get(p) else _argument(
            p, props.get(p, {}), values, texts, rng) for p in decl.parameters.get("required", [])}
    return rng, values, texts, reads, writes, base


def probe_episodes(root: Path, task_dir: Path, spec: Any) -> list[list[dict[str, Any]]]:
    """The `--probes` episodes of a task: calls at the edges of its tools (see the module's doc)."""
    rng, values, texts, reads, writes, base = _probing(root, task_dir, spec)
    edges: list[dict[str, Any]] = []
    for decl in reads:
        given = base(decl)
        edges.append(_step(decl, given))
        for name in decl.parameters.get("properties", {}):
            tries: list[Any] = []
            if name.endswith("_id"):
                first = str(values[name][0]) if values.get(name) else ""
                tries += ["X-999", *([first.lower()] if first.lower() != first else [])]
            if name in FILTERS:
                word = next(iter([str(v) for v in values.get(name, [])] + [w for t in texts for w in t.split()
                                                                            if len(w) > 3]), None)
                if word is not None:
                    tries += [word.upper(), word.lower(), word.title(), word[:max(1, len(word) // 2)], ""]
            if name in LIMITS:
                tries += [0, 1, 2, -1, 1000]
            if "date" in name:
                tries += list(DAYS)
            edges += [_step(decl, {**given, name: value}) for value in tries]
    after: list[dict[str, Any]] = []
    for again in (False, True):  # a second create, a write to what the first deleted
        for decl in writes:
            props = decl.parameters.get("properties", {})
            arguments = base(decl) if again else {**base(decl), **{
                p: _argument(p, s, values, texts, rng) for p, s in props.items() if rng.random() < 0.7}}
            after += [_step(decl, arguments), *(_step(r, base(r)) for r in reads)]
    after += [_step(d, {**base(d), p: "X-999"}) for d in writes for p in d.parameters.get("properties", {})
              if p.endswith("_id")]
    return [edges, after]


LONG = "x" * 5000  # a value far longer than any the fixtures hold
UNICODE = "caf\u00e9 \u2615 \u65e5\u672c\u8a9e \U0001f600"  # accents, a symbol, CJK, an emoji


def wrong_kinds(schema: dict[str, Any]) -> list[Any]:
    """Values of other JSON kinds than a property's declared one, the ones a service's request model may coerce (a
    number in a string, a whole float, a bool for an int) and the ones it must refuse."""
    kind = schema.get("type")
    if kind == "integer":
        return ["2", "x", 2.0, 2.5, True, None, 10 ** 9, [1]]
    if kind == "number":
        return ["2.5", "x", True, None]
    if kind == "boolean":
        return ["true", "yes", "maybe", 0, 2, None]
    if kind == "array":
        return ["a", [1, 2], None, {}]
    if kind == "object":
        return ["a", [], None]
    return [5, 2.5, True, None, ["a"], {"a": 1}]


def typing_episodes(root: Path, task_dir: Path, spec: Any) -> list[list[dict[str, Any]]]:
    """The `--typing` episodes of a task (import37): per tool, a call without each required argument, with no
    arguments, with each argument of another kind, with a field the tool does not take, with a value outside the
    schema's `enum`, with unicode and with a 5,000-character text; the writes' after every read, as their refusal
    must leave the records as they were, or the service's coercion change them as it does. Then (import39) two
    tools the task does not declare, which Claw-Eval's dispatcher answers itself, and a read whose arguments are
    no JSON (cut short), which its provider reads as `{}`."""
    _, _, _, reads, writes, base = _probing(root, task_dir, spec)
    episodes = []
    for group in (reads, writes):
        steps: list[dict[str, Any]] = []
        for decl in group:
            given = base(decl)
            steps += [_step(decl, {}), _step(decl, {**given, "unexpected_field": 1})]
            steps += [_step(decl, {k: v for k, v in given.items() if k != name}) for name in given]
            for name, schema in decl.parameters.get("properties", {}).items():
                tries = wrong_kinds(schema if isinstance(schema, dict) else {})
                if isinstance(schema, dict) and schema.get("enum"):
                    tries.append("not-" + str(schema["enum"][0]))
                if isinstance(schema, dict) and schema.get("type", "string") == "string":
                    tries += [UNICODE, LONG, ""]
                steps += [_step(decl, {**given, name: value}) for value in tries]
            steps += [_step(r, base(r)) for r in reads]
        episodes.append(steps)
    # a tool the task does not declare (a name the agent made up, or another task's): the dispatcher answers it
    episodes[0] += [{"call": {"name": name, "arguments": {}}} for name in ("unknown_tool_x", "gmail_delete_message")
                    if spec.tool_decls and name not in {d.name for d in spec.tool_decls}]
    # arguments that are no JSON (cut short): Claw-Eval's provider reads them as `{}` and sends that
    episodes[0] += [_step(decl, '{"' + next(iter(decl.parameters.get("properties", {})), "x")) for decl in reads[:1]]
    return episodes


def compare(root: Path, out: Path, episodes: int, wall_clock: bool = False,
            keys: Keys | None = None, values: Values | None = None,
            probes: bool = False, typed: bool = False) -> tuple[int, dict[tuple[str, str], list[Any]]]:
    report = json.loads((out / "import_report.json").read_text(encoding="utf-8"))
    differ: dict[tuple[str, str], list[Any]] = collections.defaultdict(list)
    calls = 0
    for task in report["tasks"]:
        if task["status"] not in ("full", "full (judge)"):
            continue
        task_dir = root / "tasks" / task["task_id"]
        # the answers are compared call by call: no fault, and no turn limit (the runner's, tests/test_import_claw_eval_runner.py)
        spec = load_spec(out / task["spec_file"]).model_copy(update={"faults": None, "max_steps": None})
        doc = yaml.safe_load((task_dir / "task.yaml").read_text(encoding="utf-8"))
        endpoints = {e["tool_name"]: urlparse(e["url"]).path for e in doc.get("tool_endpoints", [])}
        methods = {e["tool_name"]: e.get("method", "POST") for e in doc.get("tool_endpoints", [])}
        played = typing_episodes(root, task_dir, spec) if typed else probe_episodes(
            root, task_dir, spec) if probes else _episodes(root, task_dir, spec, episodes)
        for steps in played:
            env = Env(spec, max_steps=len(steps) + 1)
            env.reset()
            # the services load a second before the world starts (`world_now`) and then read the world's clock at
            # each call, which runs `tick_s` a call, as the agent's time runs on between Claw-Eval's calls
            lag = [parse_time(spec.world.start) - world_now(spec).timestamp()]
            clock = None if wall_clock else (
                lambda: datetime.fromtimestamp(env.state.clock - lag[0], UTC))  # noqa: B023 (read in this episode)
            services = [MockService(root, s["command"], s.get("env") or {}, s["name"], clock)
                        for s in doc["services"]]
            lag[0] = 0
            for call in (s["call"] for s in steps if "call" in s):
                name, args = call["name"], call["arguments"]
                sent = _read_as_claw_eval(args)
                service = next((s for s in services if endpoints.get(name) in s.routes.handlers), None)
                status, theirs = service.call(endpoints[name], sent, methods[name]) if service else (
                    404, {"detail": "Not Found"})
                # what the agent is shown: the dispatcher's text of the service's answer (`dispatched`), or its own
                # for a tool the task does not declare (no service called); compared as read, and as text
                status, text = (status, dispatched(theirs)[1]) if name in endpoints else (404, unknown_tool(name)[1])
                theirs = shown(text)
                content = env.step(Action.call(name, args)).messages[-1]["content"]
                ours = shown(content)
                calls += 1
                our_error, their_error = not env.audit[-1].ok or failed(ours), status >= 400 or failed(theirs)
                if keys is not None and not our_error and not their_error:
                    keys.add(task["task_id"], name, ours, theirs)
                if values is not None and not our_error and not their_error:
                    values.add(task["task_id"], name, ours, theirs)
                if our_error != their_error:
                    kind = f"error here {our_error}, there {their_error}"
                elif our_error and status < 400 and ours != theirs:  # the service's own error answer
                    kind = "error text"
                elif our_error and ours != theirs:  # its framework's: a request model's 422, a 404, a 500
                    kind = f"framework answer {status}"
                elif not our_error and None not in (listed(ours), listed(theirs)) and listed(ours) != listed(theirs):
                    kind = "records listed"
                elif ours == theirs and content != text:  # the same answer written otherwise (import40)
                    kind = "agent text"
                else:
                    continue
                differ[(name, kind)].append((task["task_id"], args, str(ours)[:300], str(theirs)[:300]))
    return calls, differ


def main() -> None:
    args = [a for a in sys.argv[1:] if a not in ("--world-clock", "--wall-clock", "--keys", "--values", "--probes",
                                                 "--typing")]
    root, out = Path(args[0]), Path(args[1])
    keys = Keys() if "--keys" in sys.argv else None
    values = Values() if "--values" in sys.argv else None
    calls, differ = compare(root, out, int(args[2]) if len(args) > 2 else 2, "--wall-clock" in sys.argv, keys,
                            values, "--probes" in sys.argv, "--typing" in sys.argv)
    print(f"calls {calls}")
    if keys is not None:
        print("\n".join(keys.lines()))
    if values is not None:
        print("\n".join(values.lines()))
    for (name, kind), cases in sorted(differ.items(), key=lambda kv: -len(kv[1])):
        tasks = sorted({c[0][:4] for c in cases})
        print(f"{len(cases):5d}  {name}: {kind}  tasks {', '.join(tasks)}\n       e.g. {cases[0]}"[:900])


if __name__ == "__main__":
    main()
