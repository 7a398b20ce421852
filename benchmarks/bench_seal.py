"""What sealed specs cost and save in the store (README, "Light envs"): per procedural spec, generating it, sealing it
as the specs and envs stages do (`stored_spec_json`), and loading it back with `parse_spec` sealed against plain.

Printed: specs measured, generation / sealing ms per spec, parse ms per spec for both forms, and the ratio. CPU
time of this process, best of `--rounds`.

    python benchmarks/bench_seal.py [--n 3] [--rounds 3] [--taxonomy taxonomy]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from coworkenv.loading import parse_spec
from coworkenv.spec import EnvSpec
from coworkenv.spec_seal_write import stored_spec_json
from coworkenv.synth import generate_specs, load_taxonomy


def _best_ms(fn: Callable[[], object], count: int, rounds: int) -> float:
    """Best of `rounds` CPU times of one `fn()` call, in ms per item of the `count` it handles."""
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best / count * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=3, help="specs per capability (seeds 1..n)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--taxonomy", type=Path, default=Path("taxonomy"))
    args = parser.parse_args()
    tax = load_taxonomy(args.taxonomy)
    caps = [tax[cap_id] for cap_id in tax.capabilities]
    specs: list[EnvSpec] = []

    def generate() -> None:
        specs[:] = [spec for cap in caps for spec in generate_specs(cap, args.n, 1)]

    gen_ms = _best_ms(generate, len(caps) * args.n, args.rounds)
    sealed: list[str] = []
    seal_ms = _best_ms(lambda: sealed.__setitem__(slice(None), [stored_spec_json(s) for s in specs]),
                       len(specs), args.rounds)
    plain = [s.to_json() for s in specs]
    assert all(text.startswith('{"coworkenv_sealed_spec"') for text in sealed), "a procedural spec was not sealed"
    sealed_ms = _best_ms(lambda: [parse_spec(text) for text in sealed], len(sealed), args.rounds)
    plain_ms = _best_ms(lambda: [parse_spec(text) for text in plain], len(plain), args.rounds)
    print(f"{len(specs)} procedural specs of {len(caps)} capabilities")
    print(f"generate            {gen_ms:7.2f} ms/spec")
    print(f"seal (stored form)  {seal_ms:7.2f} ms/spec  (+{seal_ms / gen_ms:.0%} of generating)")
    print(f"parse_spec sealed   {sealed_ms:7.2f} ms/spec")
    print(f"parse_spec plain    {plain_ms:7.2f} ms/spec  (sealed takes {sealed_ms / plain_ms:.2f}x plain's time)")


if __name__ == "__main__":
    main()
