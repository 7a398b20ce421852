"""Curation of 1M synthetic trajectory rows under a 2 GB memory cap: wall time and peak memory.

The rows are written as Parquet (files of 50k rows) by this process; curation then runs in a child process,
which reports its wall time, peak RSS (ru_maxrss) and the curation report; the run fails if peak RSS exceeds
the cap. (RLIMIT_AS/RLIMIT_DATA cannot be the cap: polars reserves over 1 GB of address space it never
touches, e.g. VmData 2.1 GB at 0.9 GB RSS, so a 2 GB rlimit fails on reservations, not on use.)

    python benchmarks/bench_curate.py [--rows 1000000] [--cap-gb 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coworkenv.rollout.record import MESSAGE_TYPE, TOOL_CALL_TYPE, TRAJECTORY_SCHEMA  # noqa: E402

ROWS_PER_FILE = 50_000
SAMPLES_PER_ENV = 4
CAPABILITIES = [f"cap-{i:02d}" for i in range(20)]
HELDOUT = "cap-19"
TOOLS_JSON = orjson.dumps([
    {"type": "function", "function": {"name": "logs_search", "description": "Search log lines.",
                                      "parameters": {"type": "object", "properties": {"service": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "services_rollback_config", "description": "Roll a config back.",
                                      "parameters": {"type": "object", "properties": {
                                          "service": {"type": "string"}, "to_version": {"type": "integer"}}}}},
]).decode()


def _requests(n_envs: int, rng: np.random.Generator) -> list[str]:
    """40 words per request from a 5000-word vocabulary; 2% are one-word edits of another env's (near-dups)."""
    vocab = np.array([f"w{i}" for i in range(5000)])
    words = vocab[rng.integers(0, len(vocab), size=(n_envs, 40))]
    near = rng.random(n_envs) < 0.02
    source = rng.integers(0, n_envs, size=n_envs)
    words[near] = words[source[near]]
    words[near, 20] = "edited"
    return [" ".join(row) for row in words]


def _empty_lists(n: int, field: str) -> pa.Array:
    value_type = TRAJECTORY_SCHEMA.field(field).type.value_type
    return pa.ListArray.from_arrays(pa.array(np.zeros(n + 1, dtype=np.int32)), pa.array([], type=value_type))


def _messages(rows: np.ndarray, env: np.ndarray, requests: list[str]) -> pa.Array:
    n = len(rows)
    calls = pa.StructArray.from_arrays(
        [pa.array([f"call-{r}" for r in rows]), pa.array(["function"] * n),
         pa.StructArray.from_arrays([pa.array(["logs_search"] * n),
                                     pa.array([f'{{"service": "svc-{e % 97}"}}' for e in env])], ["name", "arguments"])],
        fields=list(TOOL_CALL_TYPE))
    per_message = np.tile(np.array([0, 0, 1, 0, 0], dtype=np.int32), n)
    call_lists = pa.ListArray.from_arrays(pa.array(np.concatenate([[0], np.cumsum(per_message)]).astype(np.int32)),
                                          calls)
    content, call_ids, names = [], [], []
    for r, e in zip(rows.tolist(), env.tolist(), strict=True):
        content += ["You are an AI coworker.", requests[e], "Let me check the logs.",
                    f'[{{"id": "log-{r}", "level": "ERROR", "message": "timeout in svc-{e % 97}"}}]',
                    f"Found the timeout in svc-{e % 97} and rolled it back (run {r})."]
        call_ids += ["", "", "", f"call-{r}", ""]
        names += ["", "", "", "logs_search", ""]
    roles = pa.array(np.tile(np.array(["system", "user", "assistant", "tool", "assistant"]), n))
    messages = pa.StructArray.from_arrays([roles, pa.array(content), call_lists, pa.array(call_ids), pa.array(names)],
                                          fields=list(MESSAGE_TYPE))
    return pa.ListArray.from_arrays(pa.array(np.arange(0, 5 * n + 1, 5, dtype=np.int32)), messages)


def write_synthetic(out: Path, total: int, seed: int = 0) -> None:
    """`total` trajectory rows in Parquet files, with failures, malformed calls, duplicates and near-dups."""
    rng = np.random.default_rng(seed)
    n_envs = -(-total // SAMPLES_PER_ENV)
    requests = _requests(n_envs, rng)
    capability = rng.integers(0, len(CAPABILITIES), size=n_envs)
    for start in range(0, total, ROWS_PER_FILE):
        rows = np.arange(start, min(start + ROWS_PER_FILE, total))
        n = len(rows)
        env = rows // SAMPLES_PER_ENV
        hashes = rng.integers(0, 2**63, size=n)
        duplicate = rng.random(n) < 0.03  # same transcript as the row before
        hashes[1:][duplicate[1:]] = hashes[:-1][duplicate[1:]]
        columns = {
            "record_id": pa.array([f"traj-{r}" for r in rows]), "env_id": pa.array([f"env-{e:07d}" for e in env]),
            "capability": pa.array(np.array(CAPABILITIES)[capability[env]]),
            "request": pa.array([requests[e] for e in env]), "messages": _messages(rows, env, requests),
            "tools": pa.array([TOOLS_JSON] * n), "turns": pa.array(np.where(rows % 3 == 0, "multi", "single")),
            "passed": pa.array(rng.random(n) > 0.1), "score": pa.array(rng.random(n)),
            "malformed_calls": pa.array((rng.random(n) < 0.02).astype(np.int32)),
            "tool_errors": pa.array(rng.poisson(0.3, n).astype(np.int32)), "tool_calls": pa.array(np.full(n, 3, np.int32)),
            "transcript_chars": pa.array(rng.integers(500, 90_000, n)),
            "transcript_hash": pa.array([f"{h:064x}" for h in hashes]),
        }
        arrays = []
        for field in TRAJECTORY_SCHEMA:
            if field.name in columns:
                arrays.append(columns[field.name].cast(field.type))
            elif pa.types.is_list(field.type):
                arrays.append(_empty_lists(n, field.name))
            else:
                arrays.append(pa.nulls(n, field.type).fill_null(0 if pa.types.is_integer(field.type)
                                                                 or pa.types.is_floating(field.type)
                                                                 else (False if pa.types.is_boolean(field.type) else "")))
        pq.write_table(pa.Table.from_arrays(arrays, schema=TRAJECTORY_SCHEMA), out / f"part-{start // ROWS_PER_FILE:04d}.parquet",
                       compression="zstd")


def child(data: Path, out: Path) -> None:
    """Run curation and print its figures as JSON."""
    from coworkenv.curate import CurationConfig, curate, write_shards

    t0 = time.perf_counter()
    result = curate(data, config=CurationConfig(heldout_capabilities=(HELDOUT,), max_rows_per_capability=25_000))
    t_select = time.perf_counter() - t0
    paths = write_shards(result, out)
    wall = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    status = {line.split(":")[0]: int(line.split()[1]) // 1024 for line in Path("/proc/self/status").read_text().splitlines()
              if line.startswith(("VmPeak", "VmData"))}
    print(json.dumps({"wall_s": wall, "select_s": t_select, "peak_rss_mb": peak_mb, "shards": len(paths),
                      "virtual_mb": status, "report": result.report}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--cap-gb", type=float, default=2.0)
    parser.add_argument("--keep", type=Path, help="write the synthetic data here and keep it")
    parser.add_argument("--child", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1])
        return
    with tempfile.TemporaryDirectory(prefix="bench-curate-") as tmp:
        data = args.keep or Path(tmp) / "trajectories"
        data.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        write_synthetic(data, args.rows)
        size_mb = sum(p.stat().st_size for p in data.glob("*.parquet")) / 2**20
        print(f"synthetic data: {args.rows:,} rows, {size_mb:.0f} MB Parquet, written in {time.perf_counter() - t0:.1f} s")
        proc = subprocess.run([sys.executable, __file__, "--child", str(data),
                               str(Path(tmp) / "shards")], capture_output=True, text=True, cwd=ROOT)
        if proc.returncode != 0:
            print(proc.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"curation failed (exit {proc.returncode})")
        figures = json.loads(proc.stdout.strip().splitlines()[-1])
    report = figures["report"]
    print(f"curation of {report['input_rows']:,} rows: {figures['wall_s']:.1f} s wall "
          f"({figures['select_s']:.1f} s filters/dedup/splits, the rest writing {figures['shards']} shards), "
          f"peak RSS {figures['peak_rss_mb']:.0f} MB (cap {args.cap_gb * 1024:.0f} MB; address space reserved: "
          f"{figures['virtual_mb']})")
    print(f"  kept {report['kept_rows']:,} rows of {report['kept_envs']:,} envs; removed: "
          + ", ".join(f"{k} {v:,}" for k, v in report["removed"].items()))
    print("  splits: " + ", ".join(f"{k} {v['rows']:,}" for k, v in report["splits"].items()))
    if figures["peak_rss_mb"] > args.cap_gb * 1024:
        raise SystemExit(f"peak RSS {figures['peak_rss_mb']:.0f} MB is over the {args.cap_gb:g} GB cap")


if __name__ == "__main__":
    main()
