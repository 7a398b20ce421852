"""Yield at scale: how many generated specs of a capability survive curation's near-duplicate removal and
decontamination, and how many request families (near-duplicate clusters) the generator makes.

For each capability and N, specs 0..N-1 are generated procedurally in batches; only each spec's request text
(its user turns, the near-duplicate key of curation) is kept, so memory stays flat with N. The texts then go
through `coworkenv.curate.split_requests`, the env-level half of `coworkenv.curate.curate` exactly: one
representative per near-duplicate cluster (Jaccard >= near_dup_threshold), request families (connected at
decontam_threshold) split whole, then train envs within decontam_threshold of a held-out request removed.
Every env is assumed to yield one passing trajectory (the oracle teacher passes every validated spec), so kept
envs = kept rows and `kept_per_spec` = kept rows / generated specs.

    python benchmarks/bench_yield.py [-c inbox_triage_reply -c delegate_and_follow_up ...] [--n 200 1000 10000]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections import Counter
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a plain script from anywhere
    sys.path.insert(0, str(REPO_ROOT))

from coworkenv import synth  # noqa: E402
from coworkenv.curate import TRAIN, CurationConfig, split_requests  # noqa: E402

DEFAULT_CAPABILITIES = ("inbox_triage_reply", "web_page_audit", "incident_investigate_fix", "delegate_and_follow_up")
BATCH = 500  # specs generated and dropped per batch: only their request texts stay


def request_texts(capability: synth.Capability, n: int) -> dict[str, str]:
    """Env id -> request text of specs 0..n-1, generated in batches of BATCH and not kept."""
    texts: dict[str, str] = {}
    for start in range(0, n, BATCH):
        for spec in synth.generate_specs(capability, min(BATCH, n - start), start):
            texts[spec.id] = "\n\n".join(t.content for t in spec.turns)
    return texts


def measure(capability: synth.Capability, n: int, config: CurationConfig) -> dict[str, object]:
    t0 = time.perf_counter()
    texts = request_texts(capability, n)
    generated_s = time.perf_counter() - t0
    splits = split_requests(texts, sorted(texts), dict.fromkeys(texts, capability.id), config)
    families = Counter(splits.family.values())
    kept = len(splits.kept)
    return {
        "capability": capability.id, "multi_turn": capability.multi_turn, "generated": n,
        "near_dup_clusters": len(splits.split), "families": len(families), "largest_family": max(families.values()),
        "held_out": sum(s != TRAIN for s in splits.split.values()), "decontaminated": len(splits.contaminated),
        "kept_rows": kept, "kept_per_spec": round(kept / n, 3),
        "generate_s": round(generated_s, 1), "curate_s": round(time.perf_counter() - t0 - generated_s, 1),
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-c", "--capability", action="append", help=f"repeatable; default {DEFAULT_CAPABILITIES}")
    parser.add_argument("--n", type=int, nargs="+", default=[200, 1000, 10000])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    taxonomy = synth.load_taxonomy(REPO_ROOT / "taxonomy")
    config = CurationConfig()
    columns: list[str] = []
    rows = []
    if not args.json:
        print(f"near_dup_threshold {config.near_dup_threshold}, decontam_threshold {config.decontam_threshold}")
    for cap_id in args.capability or DEFAULT_CAPABILITIES:
        for n in args.n:
            row = measure(taxonomy[cap_id], n, config)
            rows.append(row)
            if args.json:
                continue
            if not columns:
                columns = list(row)
                print(" ".join(f"{c:>16}" if c != "capability" else f"{c:<30}" for c in columns))
            print(" ".join(f"{row[c]!s:>16}" if c != "capability" else f"{row[c]!s:<30}" for c in columns),
                  flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
