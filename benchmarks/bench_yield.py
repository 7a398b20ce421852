"""Yield at scale: how many generated specs of one capability survive curation's near-duplicate and
decontamination filters, and how many near-duplicate clusters (distinct requests) the generator makes.

For each N, N specs of `--capability` are generated procedurally (seeds 0..N-1) and put through the env-level
half of `coworkenv.curate.curate` exactly: request text = the spec's user turns, near-duplicate clusters at
`near_dup_threshold` (one representative kept per cluster), splits by `assign_split`, then training envs within
`decontam_threshold` of a held-out request removed. Every env is assumed to yield one passing trajectory (the
oracle teacher passes every validated spec), so kept envs = kept rows. Also printed: clusters at the
decontamination threshold (request families) and the largest cluster, the measure of diversity.

    python benchmarks/bench_yield.py [--capability inbox_triage_reply] [--n 200 1000 2000 10000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a plain script from anywhere
    sys.path.insert(0, str(REPO_ROOT))

from coworkenv import synth  # noqa: E402
from coworkenv.curate.config import CurationConfig  # noqa: E402
from coworkenv.curate.neardup import contaminated, near_duplicate_clusters  # noqa: E402
from coworkenv.curate.pipeline import TRAIN, assign_split  # noqa: E402


def measure(capability: synth.Capability, n: int, config: CurationConfig) -> dict[str, object]:
    t0 = time.perf_counter()
    specs = synth.generate_specs(capability, n, 0)
    texts = {s.id: "\n\n".join(t.content for t in s.turns) for s in specs}
    order = sorted(texts)
    representative, sigs = near_duplicate_clusters(texts, order, threshold=config.near_dup_threshold,
                                                   num_perm=config.num_perm, k=config.shingle_words)
    kept = sorted(e for e, r in representative.items() if e == r)
    split_of = {e: assign_split(e, capability.id, config) for e in kept}
    held = {e: texts[e] for e, s in split_of.items() if s != TRAIN}
    train = {e: texts[e] for e, s in split_of.items() if s == TRAIN}
    dirty = contaminated(train, held, sigs, threshold=config.decontam_threshold, num_perm=config.num_perm,
                         k=config.shingle_words)
    families, _ = near_duplicate_clusters(texts, order, threshold=config.decontam_threshold,
                                          num_perm=config.num_perm, k=config.shingle_words)
    sizes = Counter(families.values())
    kept_rows = len(kept) - len(dirty)
    return {
        "generated": n, "distinct_texts": len(set(texts.values())),
        "near_dup_clusters": len(kept), "held_out": len(held), "train": len(train), "decontaminated": len(dirty),
        "kept_rows": kept_rows, "kept_per_spec": round(kept_rows / n, 3),
        "families_at_decontam_threshold": len(sizes), "largest_family": max(sizes.values()),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--capability", default="inbox_triage_reply")
    parser.add_argument("--n", type=int, nargs="+", default=[200, 1000, 2000, 10000])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    capability = synth.load_taxonomy(REPO_ROOT / "taxonomy").capabilities[args.capability]
    config = CurationConfig()
    rows = [measure(capability, n, config) for n in args.n]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{args.capability}: near_dup_threshold {config.near_dup_threshold}, "
          f"decontam_threshold {config.decontam_threshold}")
    columns = list(rows[0])
    print(" ".join(f"{c:>14}" for c in columns))
    for row in rows:
        print(" ".join(f"{row[c]!s:>14}" for c in columns))


if __name__ == "__main__":
    main()
