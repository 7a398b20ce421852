"""Grounded vs plain oracle on every capability: values written before they were seen, outcomes, and speed.

For `--seeds` procedural specs of each capability, both oracles play every spec (terse). Printed per capability and
in total: passing episodes, values written that the spec's world holds but the agent had not seen yet (guesses a
demonstration would teach; `coworkenv.rollout.grounding`), and episodes per CPU-second.

    python benchmarks/bench_grounding.py [--seeds 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coworkenv.rollout import OracleTeacher  # noqa: E402
from coworkenv.rollout.grounding import unseen_in_record, world_text  # noqa: E402
from coworkenv.synth.generate import generate_spec  # noqa: E402
from coworkenv.synth.taxonomy import load_taxonomy  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    teachers = {"plain": OracleTeacher(terse=True, grounded=False), "grounded": OracleTeacher(terse=True)}
    totals = {name: {"passed": 0, "guessed": 0, "cpu_s": 0.0, "episodes": 0, "caps": 0} for name in teachers}
    print(f"{'capability':32s} {'plain: passed / guessed':>24s} {'grounded: passed / guessed':>28s}")
    for cap in load_taxonomy(ROOT / "taxonomy"):
        specs = [generate_spec(cap, seed) for seed in range(args.seeds)]
        row = []
        for name, teacher in teachers.items():
            started = time.process_time()
            records = [teacher.run(spec)[0] for spec in specs]
            totals[name]["cpu_s"] += time.process_time() - started
            guessed = 0
            for spec, record in zip(specs, records, strict=True):
                world = world_text(spec)
                guessed += sum(value in world for _, value in unseen_in_record(record.messages, record.tools))
            passed = sum(r.passed for r in records)
            for key, value in (("passed", passed), ("guessed", guessed), ("episodes", len(records)),
                               ("caps", int(guessed > 0))):
                totals[name][key] += value
            row.append(f"{passed} / {guessed}")
        print(f"{cap.id:32s} {row[0]:>24s} {row[1]:>28s}")
    for name, t in totals.items():
        print(f"{name}: {t['passed']}/{t['episodes']} passed, {t['guessed']} values guessed in {t['caps']} "
              f"capabilities, {t['episodes'] / t['cpu_s']:.0f} episodes per CPU-second")


if __name__ == "__main__":
    main()
