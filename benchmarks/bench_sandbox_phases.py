"""Where one sandboxed call's time goes, phase by phase, host and child (prints figures; not a test).

The child's phases: the benchmark runs a copy of the bootstrap (`_child.py`) with a stamp (`time.time()`, the
process's CPU) after every statement of `prepare`, `isolate` (each seal of its seal loop apart) and `main`, written to
stderr before the child exits; nothing else of the bootstrap changes. The child's CPU is its thread's clock: its
process clock moved in steps of ~3 ms once the rlimits were set (RLIMIT_CPU's timer); the child is one thread. The host's phases: the run's host-side steps
(`coworkenv.sandbox`'s and `_host`'s functions) wrapped with the same clocks. Both use the real-time clock, which
the run's time namespace does not move, so the child's stamps line up with the host's. Printed: the median over
`--calls` calls (after `--warmup` calls) of each phase's wall and CPU ms, in call order, the phases under
`--min-ms` of wall folded into "(other)"; and the bare interpreter's start (`python -I -S -B -c pass`) for scale.

    python benchmarks/bench_sandbox_phases.py [--calls 30] [--warmup 3] [--disable netns,...] [--prelude] [--modules]
        [--json]
"""

from __future__ import annotations

import argparse
import ast
import json
import marshal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a plain script from anywhere
    sys.path.insert(0, str(REPO_ROOT))

from coworkenv import sandbox  # noqa: E402
from coworkenv.sandbox import _host  # noqa: E402

CHECK = "def check(n):\n    return n + 1\n"
STAMP_MARK = b"\x00BENCH-STAMPS "
INSTRUMENTED = ("prepare", "isolate", "main")
# The host-side steps, in call order: (module, attribute, label). Each wrapper records its entry and exit.
HOST_STEPS = (
    (sandbox, "_libc_path_offsets", "host: libc offsets (cached)"),
    (sandbox, "_remove_abandoned_runs_once", "host: abandoned runs (once)"),
    (sandbox, "hold_run_dir", "host: mkdtemp + hold run dir"),
    (sandbox, "make_run_cgroups", "host: make run cgroups"),
    (sandbox, "bootstrap_bytes", "host: boot.py bytes"),
    (sandbox, "spawn_and_collect", "host: spawn and collect"),
    (_host, "_result_channel", "host: channels"),
    (_host.RunPidNamespace, "_start_init", "host: pid namespace init (cat)"),
    (_host, "_join_early", "host: early cgroup join"),
    (_host, "_pump", "host: pump until exit"),
    (_host, "_classify", "host: classify"),
    (sandbox, "remove_run_cgroup", "host: remove run cgroups"),
    (sandbox, "remove_run_dir", "host: remove run dir"),
)


def _stamp_call(label: ast.expr) -> ast.stmt:
    return ast.Expr(ast.Call(ast.Name("_bench_stamp", ast.Load()), [label], []))


def _labelled(stmt: ast.stmt, lines: list[str], loop_var: str | None = None) -> ast.expr:
    text = f"L{stmt.lineno}: {lines[stmt.lineno - 1].strip()[:60]}"
    if loop_var is None:
        return ast.Constant(text)
    return ast.BinOp(ast.Constant(text + " | "), ast.Add(), ast.Call(ast.Name("str", ast.Load()),
                                                                        [ast.Name(loop_var, ast.Load())], []))


def _stamped(body: list[ast.stmt], lines: list[str], loop_var: str | None = None) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.Try):
            stmt.body = _stamped(stmt.body, lines)
        if isinstance(stmt, ast.For) and loop_var is None:
            target = stmt.target.elts[0] if isinstance(stmt.target, ast.Tuple) else stmt.target
            if isinstance(target, ast.Name):
                stmt.body = _stamped(stmt.body, lines, target.id)
        if isinstance(stmt, ast.Return) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                                            and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "exit_"):
            out += [_stamp_call(_labelled(stmt, lines, loop_var)), ast.parse(_EMIT).body[0], stmt] \
                if not isinstance(stmt, ast.Return) else [_stamp_call(_labelled(stmt, lines, loop_var)), stmt]
            continue
        out += [stmt, _stamp_call(_labelled(stmt, lines, loop_var))]
    return out


# One list of stamps for the bootstrap and the layers' modules (`--deep`), kept on `sys` while the child runs.
_HELPERS = """
import sys as _bench_sys, time as _bench_time
_BENCH_STAMPS = _bench_sys.__dict__.setdefault("_bench_stamps", [
    ("interpreter start, bootstrap's imports", _bench_time.time(), _bench_time.thread_time(), ())])
_BENCH_SEEN = _bench_sys.__dict__.setdefault("_bench_seen", set(_bench_sys.modules))
def _bench_stamp(label, now=_bench_time.time, cpu=_bench_time.thread_time, stamps=_BENCH_STAMPS, seen=_BENCH_SEEN,
                 modules=_bench_sys.modules):
    new = tuple(sorted(set(modules) - seen))
    seen.update(new)
    stamps.append((label, now(), cpu(), new))
"""
_EMIT = "posix.write(2, b'\\x00BENCH-STAMPS ' + repr(_BENCH_STAMPS).encode() + b'\\n')"


def instrumented_bootstrap(source: bytes, functions: tuple[str, ...] = INSTRUMENTED, prefix: str = "") -> bytes:
    """`_child.py` with the stamps: after its last top-level import, the stamp list; in the functions named in
    `functions`, a stamp after each statement (of a `try` body and a `for` body too), and the list written to fd 2
    before `main`'s final exit. Also used for the layers' modules (`prefix`: their name in the labels)."""
    lines = [prefix + line for line in source.decode("utf-8").splitlines()]
    tree = ast.parse(source)
    last_import = max(i for i, node in enumerate(tree.body) if isinstance(node, (ast.Import, ast.ImportFrom)))
    tree.body[last_import + 1:last_import + 1] = ast.parse(_HELPERS).body
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in functions:
            node.body = _stamped(node.body, lines)
    return ast.unparse(ast.fix_missing_locations(tree)).encode("utf-8")


class _HostClock:
    def __init__(self) -> None:
        self.events: list[tuple[str, float, float]] = []

    def wrap(self, owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name)
        events = self.events

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            events.append((f"{label} <", time.time(), time.process_time()))
            try:
                return original(*args, **kwargs)
            finally:
                events.append((f"{label} >", time.time(), time.process_time()))

        setattr(owner, name, wrapped)


def _child_stamps(output: bytes) -> list[tuple[str, float, float, tuple[str, ...]]]:
    at = output.rfind(STAMP_MARK)
    if at < 0:
        raise SystemExit(f"no stamps in the child's output: {output[-500:]!r}")
    return list(ast.literal_eval(output[at + len(STAMP_MARK):].split(b"\n", 1)[0].decode()))


def _one_call(clock: _HostClock, n: int, disable: frozenset[str], prelude: str | None, keep: Callable[[], bytes],
              imported: dict[str, set[str]]) -> list[tuple[str, float, float]]:
    clock.events.clear()
    start = (time.time(), time.process_time())
    outcome = sandbox._execute(CHECK, "check", {"n": n}, sandbox.SandboxLimits(), disable=disable, prelude=prelude)
    end = (time.time(), time.process_time())
    assert outcome.result.value == n + 1, outcome
    host = [("host: call start", *start), *clock.events, ("host: call end", *end)]
    child = []
    for label, wall, cpu, modules in _child_stamps(keep()):
        imported.setdefault(f"child {label}", set()).update(modules)
        child.append((label, wall, cpu))
    # The child's CPU is its own process clock; the host's is the host's: keep them apart by a flag in the label.
    merged = sorted([(label, wall, cpu, "host") for label, wall, cpu in host]
                    + [(f"child {label}", wall, cpu, "child") for label, wall, cpu in child], key=lambda e: e[1])
    phases, last_wall, last_cpu = [], {"host": start[0], "child": start[0]}, {"host": start[1], "child": 0.0}
    previous_wall = start[0]
    for label, wall, cpu, side in merged:
        phases.append((label, wall - previous_wall, cpu - last_cpu[side]))
        previous_wall, last_wall[side], last_cpu[side] = wall, wall, cpu
    return phases


def _bare_interpreter(calls: int) -> float:
    durations = []
    for _ in range(calls):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-S", "-B", "-c", "pass"], check=True)
        durations.append(time.perf_counter() - t)
    return statistics.median(durations) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--disable", default="", help="layers to switch off, comma-separated (as `_execute`'s)")
    parser.add_argument("--prelude", action="store_true", help="with the verifier's run_setup prelude")
    parser.add_argument("--min-ms", type=float, default=0.15)
    parser.add_argument("--modules", action="store_true", help="name the modules each child phase imported")
    parser.add_argument("--deep", default="", help="functions of _kernel/_confine/_hook to stamp too, comma-separated "
                                                   "(e.g. isolate_filesystem,install_seccomp)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    original_source = _host.bootstrap_source
    _host.bootstrap_source = lambda: instrumented_bootstrap(original_source())  # type: ignore[assignment]
    _host._bootstrap_code.cache_clear()
    _host._bootstrap_template.cache_clear()
    if args.deep:
        deep = tuple(args.deep.split(","))
        here = Path(_host.__file__).parent
        sandbox._child_modules.cache_clear()
        modules = {name: _host.compile_for_child(instrumented_bootstrap((here / f"{name}.py").read_bytes(), deep,
                                                                         f"{name}: "), f"<sandbox {name}>", -1)
                   for name in ("_kernel", "_confine", "_hook")}  # as `sandbox._child_modules` compiles them
        sandbox._child_modules = lambda: marshal.dumps(modules)  # type: ignore[assignment]
    output_chunks: list[bytes] = []
    original_add = _host._Output.add

    def add(self: Any, chunk: bytes) -> None:
        output_chunks.append(chunk)
        original_add(self, chunk)

    _host._Output.add = add  # type: ignore[method-assign]

    def keep() -> bytes:
        data = b"".join(output_chunks)
        output_chunks.clear()
        return data

    clock = _HostClock()
    for owner, name, label in HOST_STEPS:
        clock.wrap(owner, name, label)
    prelude = None
    if args.prelude:
        from coworkenv.checks.run_setup import setup  # only where asked for

        prelude = setup()  # the verifier's run
    disable = frozenset(filter(None, args.disable.split(",")))
    imported: dict[str, set[str]] = {}
    for n in range(args.warmup):
        _one_call(clock, n, disable, prelude, keep, imported)
    runs = [_one_call(clock, n, disable, prelude, keep, imported) for n in range(args.calls)]
    labels = [label for label, _, _ in runs[0]]
    if any([label for label, _, _ in run] != labels for run in runs):
        print("note: the phases' order differed between calls (host and child overlap); figures by label")
    table: dict[str, tuple[list[float], list[float]]] = {}
    for run in runs:
        for label, wall, cpu in run:
            walls, cpus = table.setdefault(label, ([], []))
            walls.append(wall * 1000)
            cpus.append(cpu * 1000)
    rows, other = [], [0.0, 0.0]
    for label in labels:
        walls, cpus = table[label]
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        if wall < args.min_ms and abs(cpu) < args.min_ms:
            other[0] += wall
            other[1] += cpu
        else:
            rows.append((label, round(wall, 2), round(cpu, 2), sorted(imported.get(label, ()))))
    totals = [sum(wall for _, wall, _ in run) * 1000 for run in runs]
    child_cpu = [sum(cpu for label, _, cpu in run if label.startswith("child ")) * 1000 for run in runs]
    host_cpu = [sum(cpu for label, _, cpu in run if not label.startswith("child ")) * 1000 for run in runs]
    report = {"phases": rows, "other_ms": [round(other[0], 2), round(other[1], 2)],
              "call_wall_median_ms": round(statistics.median(totals), 2),
              "child_cpu_median_ms": round(statistics.median(child_cpu), 2),
              "host_cpu_median_ms": round(statistics.median(host_cpu), 2),
              "bare_interpreter_ms": round(_bare_interpreter(10), 2)}
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{'phase (the time since the previous stamp; cpu: that side own process clock)':82s} {'wall':>7s} {'cpu':>7s}")
    for label, wall, cpu, names in rows:
        print(f"{label[:82]:82s} {wall:7.2f} {cpu:7.2f}{'  imports ' + ', '.join(names) if args.modules and names else ''}")
    print(f"{'(phases under --min-ms, together)':82s} {other[0]:7.2f} {other[1]:7.2f}")
    print(f"call wall median {report['call_wall_median_ms']} ms; CPU median: child (to its last stamp) "
          f"{report['child_cpu_median_ms']} ms, host {report['host_cpu_median_ms']} ms; bare interpreter start "
          f"{report['bare_interpreter_ms']} ms")


if __name__ == "__main__":
    main()
