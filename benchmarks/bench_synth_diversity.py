"""Procedural synthesis: generation speed and diversity of N specs per capability (default 1000).

Diversity is counted as curation counts it: near-duplicate clusters of the request texts (MinHash/Jaccard of
word 3-shingles at the curation defaults) and request families, both per 1k specs; content hashes, reference
sequences and entities follow.

    python benchmarks/bench_synth_diversity.py                      # every capability, 1000 specs each
    python benchmarks/bench_synth_diversity.py -c incident_investigate_fix --n 500 --oracle

Prints one line per capability and a JSON report (diversity figures per capability) at the end.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from coworkenv.agents import OraclePolicy
from coworkenv.env import Env
from coworkenv.rollout import run_episode
from coworkenv.synth import diversity_report, generate_specs, load_taxonomy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-c", "--capability", action="append", help="capability id (repeatable); default all")
    parser.add_argument("--n", type=int, default=1000, help="specs per capability")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--taxonomy", type=Path, default=Path("taxonomy"))
    parser.add_argument("--oracle", action="store_true", help="also run the oracle on every spec and time it")
    args = parser.parse_args()
    tax = load_taxonomy(args.taxonomy)
    reports = {}
    total_specs, total_gen = 0, 0.0
    for cap_id in args.capability or list(tax.capabilities):
        cap = tax[cap_id]
        started = time.perf_counter()
        specs = generate_specs(cap, args.n, args.seed)
        gen_s = time.perf_counter() - started
        total_specs, total_gen = total_specs + len(specs), total_gen + gen_s
        report = diversity_report(specs)
        report["generation_ms_per_spec"] = round(gen_s / len(specs) * 1000, 3)
        if args.oracle:
            started = time.perf_counter()
            failures = sum(1 for s in specs if run_episode(Env(s), OraclePolicy(s)).result.score != 1.0)
            report["oracle_ms_per_spec"] = round((time.perf_counter() - started) / len(specs) * 1000, 3)
            report["oracle_failures"] = failures
        reports[cap_id] = report
        oracle = f"  oracle {report['oracle_ms_per_spec']:6.2f} ms" if args.oracle else ""
        print(
            f"{cap_id:32s} gen {report['generation_ms_per_spec']:5.2f} ms/spec{oracle}  near-dup clusters/1k "
            f"{report['near_dup_clusters_per_1k']:6.1f}  families/1k {report['request_families_per_1k']:6.1f}  content "
            f"{report['distinct_content_fraction']:.3f}  ref-seqs {report['distinct_reference_sequences']:4d}  "
            f"write-seqs {report['distinct_write_sequences']:3d}  prompts {report['distinct_prompts']:4d}  "
            f"people {report['distinct_entities']['people']:5d}"
        )
    print(f"total: {total_specs} specs in {total_gen:.2f}s ({total_specs / total_gen:.0f} specs/s generation only)")
    print(json.dumps(reports, indent=2))


if __name__ == "__main__":
    main()
