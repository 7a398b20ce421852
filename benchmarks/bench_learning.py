"""Does the data teach? A from-scratch model, SFT on oracle demonstrations, then GRPO with env rewards, on CPU.

1. Envs: `--train-per-cap` validated procedural envs of each trained capability (seeds 0..), `--heldout-per-cap`
   held-out envs of the same capabilities (seeds from 1,000,000: new people, ids, values) and `--heldout-cap-envs`
   envs of a capability never trained on.
2. SFT: the oracle teacher's narrated trajectories, compact rendering, a few-million-parameter model built from
   scratch (`trainers/configs/learn-tiny.yaml`), stopped after `--sft-minutes` of training; held-out pass@1 every
   `--curve-every` steps on `--curve-envs` envs is the learning curve.
3. Evaluation of base (the untrained twin) and SFT with pass@1, pass^k and score, paired bootstrap intervals on the
   differences, per capability and single- vs multi-turn.
4. RL: GRPO from the SFT checkpoint for each reward x credit variant and seed (`--rl-variants`, `--rl-seeds`,
   `--rl-steps`) on a curriculum: the first `--rl-envs` of `--rl-probe-envs` train envs where the SFT student's
   reward varies between `--rl-probe-samples` samples, spread over the capabilities (`--rl-per-capability`) so that
   multi-turn envs can give `turn` credit and `shaped` reward something to differ on (`trainers/rl_curriculum.py`); reward slope per seed with a
   t-interval over seeds; held-out pass@1 after RL.
5. Probe: teacher-forced accuracy of base and SFT on the assistant tokens of `--probe-envs` held-out demonstrations,
   split into tokens carried over from what the agent read (ids, names, values) and the rest (format, tool names):
   what the student has learned before it passes whole episodes (`trainers/learning_probe.py`).

Every stage writes under `--out` and is skipped when its output exists (delete it to rerun). `--stages` runs a
subset, so independent stages can run in parallel processes (e.g. `eval-base` while `sft` trains):
data, base, sft, eval-base, eval-sft, probe, rl, report.
The RL comparison splits the same way: processes on one `--out`, each with its own `--rl-variants`, share the
curriculum (probed once, under a lock) and rl_summary.json (rebuilt from every finished run on disk).

    python benchmarks/bench_learning.py --out runs/bench-learning [--sft-minutes 30] [--rl-seeds 3]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pyarrow.parquet as pq  # noqa: E402
import torch  # noqa: E402

from coworkenv.atomic import atomic_write_bytes  # noqa: E402
from coworkenv.rollout import TrajectoryRecord  # noqa: E402
from coworkenv.rollout.grounding import unseen_in_record  # noqa: E402
from coworkenv.rollout.record import record_row  # noqa: E402
from coworkenv.spec import EnvSpec  # noqa: E402
from coworkenv.store.stages import sft_table  # noqa: E402
from coworkenv.synth.taxonomy import load_taxonomy  # noqa: E402
from trainers.chat_templates import trl_chat_template  # noqa: E402
from trainers.config import SFTRunConfig, load_sft_config  # noqa: E402
from trainers.eval_ci import Estimate, ols_slope, report_differences  # noqa: E402
from trainers.evaluate import EvalReport, evaluate, metrics_of  # noqa: E402
from trainers.learning_curve import HeldoutCurve, write_learning_curve  # noqa: E402
from trainers.learning_data import HELDOUT_SEED_OFFSET, demonstrations, validated_envs, write_sft_shard  # noqa: E402
from trainers.learning_probe import teacher_forced_accuracy  # noqa: E402
from trainers.local_backend import LocalTransformersBackend  # noqa: E402
from trainers.rendering import RENDERING_FILE, read_rendering, write_rendering  # noqa: E402
from trainers.rl import train_rl  # noqa: E402
from trainers.rl_config import load_rl_config  # noqa: E402
from trainers.rl_curriculum import learnable_envs  # noqa: E402
from trainers.rl_report import REFERENCE_VARIANT, variant_table, write_comparison_plot, write_variant_plot  # noqa: E402
from trainers.sft import portable_tokenizer_class, train_sft  # noqa: E402
from trainers.sft_data import load_train_split, to_chat  # noqa: E402
from trainers.tiny_model import build_tiny_model, render_corpus_text  # noqa: E402
from trainers.training_report import write_json_atomic  # noqa: E402

TRAINED = ("lookup_answer_source", "draft_only_reply", "delegate_and_follow_up")
HELDOUT_CAPABILITY = "reschedule_conflict"
TEACHERS = ("grounded", "terse", "narrated")
STAGES = ("data", "base", "sft", "eval-base", "eval-sft", "probe", "rl", "report")
VARIANTS = [(r, c) for r in ("binary", "partial", "shaped") for c in ("trajectory", "turn")]
EVAL_MAX_TOKENS = 128  # the longest demonstrated assistant message is 123 tokens
EVAL_MAX_STEPS = 16  # the grounded demonstrations take up to 13 messages
EVAL_CHUNK = 4
BUDGET_STEPS = 1_000_000  # max_steps under --lr-schedule budget: a ceiling the time budget always reaches first


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def _save_specs(path: Path, specs: list[EnvSpec]) -> None:
    write_json_atomic(path, [json.loads(s.model_dump_json()) for s in specs])


def _load_specs(path: Path) -> list[EnvSpec]:
    return [EnvSpec.model_validate(d) for d in json.loads(path.read_text(encoding="utf-8"))]


def make_envs(args: argparse.Namespace, out: Path) -> dict[str, list[EnvSpec]]:
    """Train, held-out (same capabilities) and held-out-capability envs, validated; cached as JSON."""
    paths = {name: out / "envs" / f"{name}.json" for name in ("train", "heldout", "heldout_capability")}
    if all(p.is_file() for p in paths.values()):
        return {name: _load_specs(p) for name, p in paths.items()}
    caps = {c.id: c for c in load_taxonomy(ROOT / "taxonomy")}
    sets: dict[str, list[EnvSpec]] = {"train": [], "heldout": [], "heldout_capability": []}
    for cap_id in args.capabilities:
        train = validated_envs(caps[cap_id], args.train_per_cap, 0)
        held = validated_envs(caps[cap_id], args.heldout_per_cap, HELDOUT_SEED_OFFSET)
        log(f"{cap_id}: {len(train.specs)} train ({train.rejected} rejected), {len(held.specs)} held-out")
        sets["train"] += train.specs
        sets["heldout"] += held.specs
    other = validated_envs(caps[args.heldout_capability], args.heldout_cap_envs, HELDOUT_SEED_OFFSET)
    sets["heldout_capability"] = other.specs
    for name, specs in sets.items():
        _save_specs(paths[name], specs)
    # Read back what was saved (JSON with sorted keys): a fresh run and one resumed from the cache then see the same
    # specs, down to the order of a reference call's arguments, which the demonstrations copy.
    return {name: _load_specs(p) for name, p in paths.items()}


def round_robin(specs: list[EnvSpec]) -> list[EnvSpec]:
    """`specs` reordered one capability after another (c1, c2, c3, c1, ...), so any prefix, e.g. what an
    interrupted evaluation finished, covers every capability."""
    by_cap: dict[str, list[EnvSpec]] = {}
    for spec in specs:
        by_cap.setdefault(spec.capability, []).append(spec)
    order = sorted(((i, cap) for cap, group in by_cap.items() for i in range(len(group))))
    return [by_cap[cap][i] for i, cap in order]


def teacher_demonstrations(specs: list[EnvSpec], teacher: str, progress: Any = None) -> list[TrajectoryRecord]:
    """The oracle's passing demonstrations in `teacher`'s style (`TEACHERS`). `grounded` ones that still write a
    value the agent has not seen (one discovery cannot show, e.g. a computed one) are left out."""
    records = demonstrations(specs, terse=teacher != "narrated", grounded=teacher == "grounded", progress=progress)
    if teacher != "grounded":
        return records
    kept = [r for r in records if not unseen_in_record(r.messages, r.tools)]
    log(f"{teacher} teacher: {len(kept)} of {len(records)} passing demonstrations write only values they have seen")
    return kept


def make_demonstrations(out: Path, envs: dict[str, list[EnvSpec]], teacher: str) -> int:
    """The oracle's passing demonstrations on the train envs, as an SFT shard; returns their number."""
    shard = out / "sft-data" / "train-00000-of-00001.parquet"
    if not shard.is_file():
        records = teacher_demonstrations(envs["train"], teacher, lambda i, n: log(f"demonstrations {i}/{n}"))
        write_sft_shard(records, out / "sft-data")
        log(f"{len(records)} passing oracle demonstrations -> {shard}")
    return int(pq.ParquetFile(shard).metadata.num_rows)


def sft_config(args: argparse.Namespace) -> SFTRunConfig:
    """The --sft-config, with --sft-seed (if given) as its training seed: initial weights and data order."""
    config = load_sft_config(args.sft_config)
    if args.sft_seed is None:
        return config
    return config.model_copy(update={"training": config.training.model_copy(update={"seed": args.sft_seed})})


def make_base(args: argparse.Namespace, out: Path) -> Path:
    """The SFT run's starting point saved as a checkpoint: the corpus-trained tokenizer and the seeded initial
    weights (`build_tiny_model` is deterministic), so `base` is exactly what SFT starts from."""
    folder = out / "base"
    if (folder / RENDERING_FILE).is_file():
        return folder
    config = sft_config(args)
    assert config.model.source == "tiny" and config.model.chat_template is not None
    rows, _ = load_train_split(out / "sft-data")
    template = trl_chat_template(config.model.chat_template)
    conversations = (to_chat(row, f"train row {i}", config.model.rendering) for i, row in enumerate(rows))
    model, tokenizer = build_tiny_model(render_corpus_text(conversations, template), config.model.tiny.spec(),
                                        config.training.seed, template)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    portable_tokenizer_class(folder)
    write_rendering(folder, config.model.rendering)
    return folder


def run_sft(args: argparse.Namespace, out: Path, envs: dict[str, list[EnvSpec]]) -> dict[str, Any]:
    """SFT shard -> from-scratch SFT with a held-out learning curve."""
    summary_path = out / "sft_summary.json"
    if summary_path.is_file():
        return dict(json.loads(summary_path.read_text(encoding="utf-8")))
    demos = make_demonstrations(out, envs, args.teacher)
    config = sft_config(args)
    if args.lr_schedule == "budget":  # the budget ends training; max_steps is only a ceiling far beyond it
        config = config.model_copy(update={"training": config.training.model_copy(update={"max_steps": BUDGET_STEPS})})
    curve = HeldoutCurve(envs["heldout"][:: max(1, len(envs["heldout"]) // args.curve_envs)][: args.curve_envs],
                         args.curve_every, config.model.rendering, budget_s=args.sft_minutes * 60,
                         clock=args.sft_clock, at_start=False, max_tokens=EVAL_MAX_TOKENS, max_steps=EVAL_MAX_STEPS,
                         anneal_lr=args.lr_schedule == "budget", log=log)
    result = train_sft(config, out / "sft-data", out / "sft",
                       progress=lambda p: log(f"sft step {p.step} loss {p.loss:.3f}") if p.step % 20 == 0 else None,
                       callbacks=[curve])
    params = sum(p.numel() for p in LocalTransformersBackend(out / "sft").model.parameters())
    summary = {"demonstrations": demos, "steps": result.steps, "wall_s": result.wall_s,
               "train_s": round(curve.train_seconds(), 1), "clock": args.sft_clock,
               "train_wall_s": round(curve.train_wall_seconds(), 1), "threads": args.threads,
               "teacher": args.teacher, "examples": result.examples,
               "examples_truncated": result.examples_truncated, "loss_first": result.train_loss_first,
               "loss_last": result.train_loss_last, "parameters": params, "curve": curve.to_dict(),
               "config": config.name, "rendering": config.model.rendering, "lr_schedule": args.lr_schedule,
               "seed": config.training.seed}
    write_json_atomic(summary_path, summary)
    return summary


def run_probe(args: argparse.Namespace, out: Path, envs: dict[str, list[EnvSpec]]) -> dict[str, Any]:
    """Teacher-forced accuracy of every trained checkpoint on held-out demonstrations (cached in probe.json)."""
    path = out / "probe.json"
    if path.is_file():
        return dict(json.loads(path.read_text(encoding="utf-8")))
    specs = envs["heldout"][:: max(1, len(envs["heldout"]) // args.probe_envs)][: args.probe_envs]
    rows = sft_table(teacher_demonstrations(specs, args.teacher), "test").to_pylist()
    results: dict[str, Any] = {}
    for name in ("base", "sft"):
        if (out / name / RENDERING_FILE).is_file():
            backend = LocalTransformersBackend(out / name, name=name)
            results[name] = teacher_forced_accuracy(backend.model, backend.tokenizer, rows,
                                                    read_rendering(out / name)).to_dict()
            log(f"probe {name}: {results[name]}")
    write_json_atomic(path, results)
    return results


def _read(path: Path) -> EvalReport:
    return EvalReport.from_dict(json.loads(path.read_text(encoding="utf-8")))


def partial_report(out: Path, name: str) -> EvalReport | None:
    """The whole report of `name`, or the merge of whatever parts have been saved so far (None if nothing)."""
    whole = out / "eval" / f"{name}.json"
    if whole.is_file():
        return _read(whole)
    parts = sorted((out / "eval").glob(f"{name}.part*of*.json"))
    return _merged(name, [_read(p) for p in parts]) if parts else None


def restricted(report: EvalReport, env_ids: set[str]) -> EvalReport:
    """`report` on the envs in `env_ids` only (so that partial evaluations are compared on the same envs)."""
    return _merged(report.model, [EvalReport(report.model, report.k, report.sampling, report.overall, {}, {},
                                             [e for e in report.episodes if e.env_id in env_ids], report.wall_s,
                                             report.created_at)])


def _merged(name: str, parts: list[EvalReport]) -> EvalReport:
    """One report from the reports of disjoint parts of the held-out envs."""
    episodes = sorted((e for part in parts for e in part.episodes), key=lambda e: (e.capability, e.env_id))
    k = parts[0].k
    return EvalReport(
        model=name, k=k, sampling=parts[0].sampling, overall=metrics_of(episodes, k),
        by_turns={t: metrics_of([e for e in episodes if e.turns == t], k) for t in sorted({e.turns for e in episodes})},
        by_capability={c: metrics_of([e for e in episodes if e.capability == c], k)
                       for c in sorted({e.capability for e in episodes})},
        episodes=episodes, wall_s=sum(p.wall_s for p in parts), created_at=parts[-1].created_at)


def run_eval(name: str, backend: Any, specs: list[EnvSpec], k: int, out: Path,
             part: tuple[int, int] = (1, 1)) -> EvalReport:
    """Evaluate (or read the cached report); with `part` = (i, n) only the i-th of n interleaved slices of `specs`,
    merged into the whole report once every part is there (parts can run in parallel processes)."""
    path = out / "eval" / f"{name}.json"
    if path.is_file():
        return EvalReport.from_dict(json.loads(path.read_text(encoding="utf-8")))
    index, count = part
    part_paths = [out / "eval" / f"{name}.part{i}of{count}.json" for i in range(1, count + 1)]
    started = time.perf_counter()
    mine = specs[index - 1::count]
    done: list[EvalReport] = []
    if part_paths[index - 1].is_file():
        done.append(EvalReport.from_dict(json.loads(part_paths[index - 1].read_text(encoding="utf-8"))))
    seen = {env for r in done for env in r.env_ids}
    todo = [spec for spec in mine if spec.id not in seen]
    # Every episode's whole record (messages, calls, checks), one JSON row per line, to read what the model did.
    transcripts = part_paths[index - 1].with_suffix(".transcripts.jsonl")
    lines = transcripts.read_bytes().splitlines() if transcripts.is_file() else []
    # Chunks, each saved as it finishes: an interrupted evaluation keeps what it measured (and resumes from it).
    for first in range(0, len(todo), EVAL_CHUNK):
        records: list[TrajectoryRecord] = []
        chunk = evaluate(backend, todo[first:first + EVAL_CHUNK], k, max_tokens=EVAL_MAX_TOKENS,
                         max_steps=EVAL_MAX_STEPS, concurrency=1, records=records)
        lines += [json.dumps(record_row(r), ensure_ascii=False).encode() for r in records]
        atomic_write_bytes(transcripts, b"".join(line + b"\n" for line in lines))  # before the report that counts them
        done = [_merged(chunk.model, [*done, chunk])]
        write_json_atomic(part_paths[index - 1], done[0].to_dict())
        log(f"eval {name} part {index}/{count}: {len(done[0].env_ids)}/{len(mine)} envs")
    report = done[0]
    if not all(p.is_file() and len(_read(p).env_ids) == len(specs[i::count]) for i, p in enumerate(part_paths)):
        log(f"eval {name} part {index}/{count} done; waiting for the other parts")
        return report
    report = _merged(report.model, [_read(p) for p in part_paths])
    write_json_atomic(path, report.to_dict())
    log(f"eval {name}: pass@1 {report.overall.pass_at_1:.3f} pass^{k} {report.overall.pass_hat_k:.3f} "
        f"score {report.overall.mean_score:.3f} ({time.perf_counter() - started:.0f}s, {len(specs)} envs)")
    return report


def run_rl(args: argparse.Namespace, out: Path, envs: dict[str, list[EnvSpec]]) -> dict[str, Any]:
    """GRPO from the SFT checkpoint for every variant and seed; reward slopes and held-out pass@1 after RL.

    Several processes may share one `--out` (e.g. one per group of `--rl-variants`): a run is skipped when its
    checkpoint exists, the curriculum is probed once under a lock, and rl_summary.json is rebuilt from every finished
    run on disk, so whichever process writes last lists them all.
    """
    base_config = load_rl_config(args.rl_config)
    tag = decoding_tag(args)
    curriculum = rl_curriculum(args, out, envs, base_config.rollout.temperature)
    train = {spec.id: spec for spec in envs["train"]}
    rl_envs = [train[env_id] for env_id in curriculum["kept"][: args.rl_envs] if env_id in train]
    if not rl_envs and not args.rl_without_signal:
        log(f"rl: skipped, none of the {curriculum['probed']} probed train envs gives the SFT student a varying reward")
        return {"runs": {}, "envs": 0, "eval_envs": 0, "curriculum": _curriculum_summary(curriculum, [])}
    rl_envs = rl_envs or envs["train"][: args.rl_envs]
    eval_specs = envs["heldout"][:: max(1, len(envs["heldout"]) // args.rl_eval_envs)][: args.rl_eval_envs]
    deadline = time.perf_counter() + args.rl_minutes * 60

    def summary() -> dict[str, Any]:
        return {"runs": _finished_rl_runs(out, tag), "envs": len(rl_envs), "eval_envs": len(eval_specs),
                "curriculum": _curriculum_summary(curriculum, rl_envs)}

    for reward, credit in [tuple(v.split("/")) for v in args.rl_variants]:
        for seed in range(args.rl_seeds):
            name = f"{reward}-{credit}-s{seed}"
            run_dir = out / f"rl{tag}" / name
            if not (run_dir / "rl_run.json").is_file():
                if time.perf_counter() > deadline:
                    log(f"rl {name}: skipped, the --rl-minutes budget is spent")
                    continue
                config = base_config.model_copy(update={
                    "training": base_config.training.model_copy(
                        update={"seed": seed, "unpad_loss_rows": not args.rl_reference_paths}),
                    "rollout": base_config.rollout.model_copy(update={"reuse_caches": not args.rl_reference_paths,
                                                                      "decoding": args.decoding})})
                result = train_rl(config, rl_envs, run_dir, reward=reward, credit=credit,  # type: ignore[arg-type]
                                  model_path=out / "sft", max_steps=args.rl_steps)
                log(f"rl {name}: {result.steps} steps in {result.wall_s:.0f}s")
            run_eval(f"rl{tag}-{name}", LocalTransformersBackend(run_dir, decoding=args.decoding), eval_specs, 1, out)
            # Written after every run, so a stopped comparison still reports the runs it finished.
            write_json_atomic(out / f"rl_summary{tag}.json", summary())
    return summary()


def decoding_tag(args: argparse.Namespace) -> str:
    """What names the reports, RL runs and curriculum of a `--decoding` other than free apart: `-grammar`."""
    return "" if args.decoding == "free" else f"-{args.decoding}"


def _finished_rl_runs(out: Path, tag: str = "") -> dict[str, Any]:
    """Every RL run under out/rl with a checkpoint and a held-out evaluation, whichever process made it."""
    runs: dict[str, Any] = {}
    for run_json in sorted((out / f"rl{tag}").glob("*/rl_run.json")):
        name = run_json.parent.name
        evaluation = out / "eval" / f"rl{tag}-{name}.json"
        if not evaluation.is_file():
            continue
        meta = json.loads(run_json.read_text(encoding="utf-8"))
        log_entries = json.loads((run_json.parent / "rl_log.json").read_text(encoding="utf-8"))["steps"]
        key = f"rewards/env_{meta['reward']}/mean"
        points = [(e["step"], e[key]) for e in log_entries if key in e]
        report = _read(evaluation)
        runs[name] = {"reward": meta["reward"], "credit": meta["credit"], "seed": int(name.rsplit("-s", 1)[1]),
                      "wall_s": meta.get("wall_s"), "log": log_entries,
                      "slope": ols_slope(*zip(*points, strict=True)) if len(points) >= 2 else None,
                      "heldout_pass_at_1": report.overall.pass_at_1, "heldout_score": report.overall.mean_score}
    return runs


def rl_curriculum(args: argparse.Namespace, out: Path, envs: dict[str, list[EnvSpec]],
                  temperature: float) -> dict[str, Any]:
    """The train envs where the SFT student's reward varies between samples (`trainers.rl_curriculum`), probed once
    for every variant and seed of the comparison; cached in rl_curriculum.json (rl_curriculum-grammar.json when the
    student decodes under the tool grammar)."""
    path = out / f"rl_curriculum{decoding_tag(args)}.json"
    with (out / "rl_curriculum.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second process of the comparison waits for the first one's probe
        if path.is_file():
            return dict(json.loads(path.read_text(encoding="utf-8")))
        return _probe_curriculum(args, out, envs, temperature, path)


def _probe_curriculum(args: argparse.Namespace, out: Path, envs: dict[str, list[EnvSpec]], temperature: float,
                      path: Path) -> dict[str, Any]:
    candidates = round_robin(envs["train"][:: max(1, len(envs["train"]) // args.rl_probe_envs)][: args.rl_probe_envs])
    curriculum = learnable_envs(LocalTransformersBackend(out / "sft", name="sft", decoding=args.decoding), candidates,
                                samples=args.rl_probe_samples, temperature=temperature, limit=args.rl_envs,
                                per_capability=args.rl_per_capability or -(-args.rl_envs // len(args.capabilities)),
                                max_tokens=EVAL_MAX_TOKENS, max_steps=EVAL_MAX_STEPS, log=log).to_dict()
    write_json_atomic(path, curriculum)
    return curriculum


def _curriculum_summary(curriculum: dict[str, Any], used: list[EnvSpec]) -> dict[str, Any]:
    return {k: curriculum[k] for k in ("samples", "temperature", "probed", "kept_mean_score")} | {
        "kept": len(curriculum["kept"]), "used": len(used)}


def summarize_rl(rl: dict[str, Any], sft_subset: EvalReport) -> list[dict[str, Any]]:
    return variant_table(list(rl["runs"].values()), sft_subset.overall.pass_at_1, order=VARIANTS)


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, dict) and "low" in value:
        return Estimate(value["value"], value["low"], value["high"], value["n"]).format()
    return json.dumps(value)


def write_markdown(path: Path, results: dict[str, Any]) -> None:
    lines = ["# bench-learning results", "", f"command: `{results['command']}`", ""]
    sft = results["sft"]
    lines += [f"SFT: {sft['parameters']:,} parameters, {sft['steps']} steps, {sft['train_s']:.0f}s of training on the "
              f"{sft.get('clock', 'wall')} clock ({sft.get('train_wall_s', sft['train_s']):.0f}s wall, "
              f"{sft['wall_s']:.0f}s with curve evaluations), {sft['demonstrations']} demonstrations "
              f"({sft.get('teacher', 'narrated')} teacher), rendering {sft['rendering']}", ""]
    lines += ["| group | metric | envs | " + " | ".join(results["labels"]) + " | differences (95% paired bootstrap) |",
              "|---|---|---|" + "---|" * len(results["labels"]) + "---|"]
    for row in results["differences"]:
        cells = [_fmt(row[label]) if label in row else "-" for label in results["labels"]]
        diffs = "; ".join(f"{k}: {_fmt(v)}" for k, v in row.items() if "-" in k and isinstance(v, dict))
        lines.append(f"| {row['group']} | {row['metric']} | {row['envs']} | " + " | ".join(cells) + f" | {diffs} |")
    if results.get("probe"):
        lines += ["", "| teacher-forced accuracy, held-out demonstrations | " + " | ".join(results["probe"]) + " |",
                  "|---|" + "---|" * len(results["probe"])]
        for key, label in (("accuracy", "all assistant tokens"), ("copied_accuracy", "carried over from what was read"),
                           ("first_copied_accuracy", "first token of each carried value"),
                           ("first_copied_pointer_accuracy", "... copy head alone >= 0.5 on it (copy-head models)"),
                           ("first_copied_copy_weight", "... gate's weight on the copy head there (copy-head models)"),
                           ("other_accuracy", "format, tool names, own words")):
            lines.append(f"| {label} | " + " | ".join(f"{p[key]:.3f}" if p.get(key) is not None else "-"
                                                      for p in results["probe"].values()) + " |")
    if results.get("rl_table"):
        ref = "/".join(REFERENCE_VARIANT)
        lines += ["", "| RL variant | seeds | reward slope per step (95% t) | slope vs " + ref + " (Welch) "
                  "| held-out pass@1 after RL | RL - SFT | pass@1 vs " + ref + " (Welch) | SFT, same envs |",
                  "|---|---|---|---|---|---|---|---|"]
        for row in results["rl_table"]:
            lines.append(f"| {row['variant']} | {row['seeds']} | {_fmt(row['slope'])} | "
                         f"{_fmt(row.get('slope_vs_reference'))} | {_fmt(row['heldout_pass_at_1'])} | "
                         f"{_fmt(row.get('rl_minus_sft'))} | {_fmt(row.get('pass_vs_reference'))} | "
                         f"{row['sft_pass_at_1_same_envs']:.3f} |")
        lines += ["", "`(n.s.)`: the 95% interval contains 0 (not significant). Slopes: Student-t over seeds; "
                  "differences between variants: Welch's t over seeds; RL - SFT: t over seeds of each run's held-out "
                  "pass@1 minus the SFT checkpoint's on the same envs."]
        if results.get("rl_curriculum"):
            c = results["rl_curriculum"]
            lines += ["", f"RL envs: the first {c.get('used', c['kept'])} of the {c['kept']} (of {c['probed']} probed) "
                          f"train envs where {c['samples']} samples of the SFT student at temperature "
                          f"{c['temperature']} scored differently (mean score of those kept {c['kept_mean_score']}); the "
                          "others would give GRPO groups with zero reward spread."]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "bench-learning")
    parser.add_argument("--docs", type=Path, default=None, help="also copy the plots here (e.g. docs/)")
    parser.add_argument("--capabilities", nargs="+", default=list(TRAINED))
    parser.add_argument("--heldout-capability", default=HELDOUT_CAPABILITY)
    parser.add_argument("--train-per-cap", type=int, default=700)
    parser.add_argument("--heldout-per-cap", type=int, default=40)
    parser.add_argument("--heldout-cap-envs", type=int, default=30)
    parser.add_argument("--teacher", choices=TEACHERS, default="grounded",
                        help="oracle demonstrations: grounded (terse, and it lists or searches before writing a value "
                        "it has not seen), terse (no narration) or narrated")
    parser.add_argument("--sft-config", default="learn-tiny-copy-induct-pointer-spaced",
                        help="learn-tiny-copy-induct-pointer-spaced (the default since L19: the next one under the "
                        "spaced rendering, docs/learning.md L19), learn-tiny-copy-induct-pointer (a copy head with the induction match and its own loss "
                        "on every label it could copy, bf16; docs/learning.md L12), learn-tiny-copy-induct (the same "
                        "without that loss, float32), learn-tiny-copy (no induction match) or learn-tiny (no copy "
                        "head)")
    parser.add_argument("--sft-seed", type=int, default=None,
                        help="the SFT run's seed (initial weights, data order); default: the config's")
    parser.add_argument("--sft-minutes", type=float, default=30.0, help="training budget, on --sft-clock")
    parser.add_argument("--sft-clock", choices=("cpu", "wall"), default="cpu",
                        help="cpu: the training process's CPU time (what 30 min of an idle machine give a "
                        "single-threaded run, whatever else shares the machine); wall: wall-clock time")
    parser.add_argument("--lr-schedule", choices=("budget", "steps"), default="budget",
                        help="budget: warmup, then a cosine to 0 over the --sft-minutes budget (on --sft-clock), "
                        "whatever the step rate; steps: the config's own schedule over its max_steps")
    parser.add_argument("--curve-every", type=int, default=200)
    parser.add_argument("--curve-envs", type=int, default=24)
    parser.add_argument("--k", type=int, default=2, help="samples per held-out env for pass^k (temperature 0.7)")
    parser.add_argument("--probe-envs", type=int, default=30, help="held-out demonstrations for the token probe")
    parser.add_argument("--rl-config", default="rl-learn-tiny")
    parser.add_argument("--rl-variants", nargs="*", default=[f"{r}/{c}" for r, c in VARIANTS])
    parser.add_argument("--rl-seeds", type=int, default=3)
    parser.add_argument("--rl-steps", type=int, default=6)
    parser.add_argument("--rl-envs", type=int, default=4, help="at most this many train envs for RL: those where the "
                        "SFT student's reward varies between samples (rl-learn-tiny takes 4 per step)")
    parser.add_argument("--rl-per-capability", type=int, default=None,
                        help="at most this many curriculum envs of one capability while others can fill a place "
                        "(default: --rl-envs spread evenly over the trained capabilities)")
    parser.add_argument("--rl-probe-envs", type=int, default=40, help="train envs probed for a varying reward")
    parser.add_argument("--rl-probe-samples", type=int, default=4, help="samples per probed env")
    parser.add_argument("--rl-eval-envs", type=int, default=30)
    parser.add_argument("--rl-minutes", type=float, default=90.0)
    parser.add_argument("--rl-reference-paths", action="store_true",
                        help="roll out without kept KV caches and run the loss on padded rows (rollout.reuse_caches "
                        "and training.unpad_loss_rows off): the slower paths, to time the default ones against")
    parser.add_argument("--rl-without-signal", action="store_true",
                        help="run RL even when the SFT student scores 0 on every held-out env")
    parser.add_argument("--eval-part", type=lambda v: tuple(int(x) for x in v.split("/")), default=(1, 1),
                        help="I/N: evaluate only the I-th of N slices of the held-out envs (run N processes)")
    parser.add_argument("--decoding", choices=("free", "grammar"), default="free",
                        help="how evaluations decode: free, or grammar (every message under a grammar of the env's "
                        "tools: well-formed calls of exposed tools with their required arguments, "
                        "trainers/tool_grammar.py); grammar reports are named base-grammar, sft-grammar, rl-...-grammar")
    parser.add_argument("--stages", nargs="+", default=list(STAGES), choices=STAGES)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads per process (default 1: on a shared 2-core machine two OpenMP threads "
                        "wait on each other whenever one is descheduled; one thread was 2-9x faster per step there)")
    args = parser.parse_args()
    torch.set_num_threads(max(1, args.threads))
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)

    stages = set(args.stages)
    envs = make_envs(args, out)
    log(f"envs: {len(envs['train'])} train, {len(envs['heldout'])} held-out, "
        f"{len(envs['heldout_capability'])} of held-out capability {args.heldout_capability}")
    make_demonstrations(out, envs, args.teacher)
    heldout = round_robin(envs["heldout"] + envs["heldout_capability"])
    if stages & {"base", "eval-base"}:
        base = make_base(args, out)
    suffix = decoding_tag(args)
    if "eval-base" in stages:
        run_eval(f"base{suffix}", LocalTransformersBackend(base, name=f"base{suffix}", decoding=args.decoding),
                 heldout, args.k, out, args.eval_part)
    if "sft" in stages:
        sft = run_sft(args, out, envs)
        log(f"sft: {sft['steps']} steps, {sft['train_s']:.0f}s training, {sft['parameters']:,} parameters")
    if "eval-sft" in stages:
        run_eval(f"sft{suffix}", LocalTransformersBackend(out / "sft", name=f"sft{suffix}", decoding=args.decoding),
                 heldout, args.k, out, args.eval_part)
    if "probe" in stages:
        run_probe(args, out, envs)
    if "rl" in stages and args.rl_seeds > 0 and args.rl_variants:
        sft_report = partial_report(out, f"sft{suffix}")
        if sft_report is not None and sft_report.overall.mean_score == 0.0 and not args.rl_without_signal:
            # GRPO learns from reward differences within a group; a student that scores 0 everywhere gives none.
            log(f"rl: skipped, the SFT student scores 0.000 on all {sft_report.overall.envs} held-out envs, so every "
                "group would have zero reward spread (pass --rl-without-signal to run it anyway)")
        else:
            run_rl(args, out, envs)
    if "report" in stages:
        report(args, out, envs)


def report(args: argparse.Namespace, out: Path, envs: dict[str, list[EnvSpec]]) -> None:
    """Tables with intervals and plots from whatever stages have finished."""
    sft = json.loads((out / "sft_summary.json").read_text(encoding="utf-8"))
    found = {name: partial_report(out, name) for name in ("base", "sft", "base-grammar", "sft-grammar")}
    reports = {name: r for name, r in found.items() if r is not None}
    common = set.intersection(*(set(r.env_ids) for r in reports.values())) if reports else set()
    reports = {name: restricted(r, common) for name, r in reports.items()}
    results: dict[str, Any] = {"command": " ".join(sys.argv), "sft": sft, "labels": list(reports),
                               "heldout_envs_planned": len(envs["heldout"]) + len(envs["heldout_capability"]),
                               "heldout_envs_evaluated": len(common)}
    results["differences"] = report_differences(reports) if reports else []
    if (out / "probe.json").is_file():
        results["probe"] = json.loads((out / "probe.json").read_text(encoding="utf-8"))
    plots = {"learning_curve.png": out / "learning_curve.png"}
    curve = list(sft["curve"])
    if "base" in reports and (not curve or curve[0]["step"] != 0):
        base_overall = reports["base"].overall
        curve.insert(0, {"step": 0, "train_s": 0.0, "pass_at_1": base_overall.pass_at_1,
                         "mean_score": base_overall.mean_score, "envs": base_overall.envs})
    write_learning_curve(plots["learning_curve.png"], curve, f"{sft['config']}: held-out pass@1 during SFT",
                         baseline=0.3)
    tag = decoding_tag(args)
    rl_path = out / f"rl_summary{tag}.json"
    if rl_path.is_file():
        rl = json.loads(rl_path.read_text(encoding="utf-8"))
        eval_ids: set[str] = set()
        for run in rl["runs"].values():
            eval_ids = set(EvalReport.from_dict(json.loads(
                (out / "eval" / f"rl{tag}-{run['reward']}-{run['credit']}-s{run['seed']}.json").read_text())).env_ids)
            break
        subset = [s for s in envs["heldout"] if s.id in eval_ids]
        if subset:
            sft_subset = run_eval(f"sft{tag}-rl-subset", LocalTransformersBackend(out / "sft", decoding=args.decoding),
                                  subset, 1, out)
            results["rl_table"] = summarize_rl(rl, sft_subset)
            results["rl_runs"] = {k: {kk: vv for kk, vv in v.items() if kk != "log"} for k, v in rl["runs"].items()}
            results["rl_curriculum"] = rl.get("curriculum")
            plots[f"rl_reward_curves{tag}.png"] = out / f"rl_reward_curves{tag}.png"
            write_comparison_plot(plots[f"rl_reward_curves{tag}.png"], {k: v["log"] for k, v in rl["runs"].items()},
                                  "RL from the SFT checkpoint")
            plots[f"rl_variants{tag}.png"] = out / f"rl_variants{tag}.png"
            write_variant_plot(plots[f"rl_variants{tag}.png"], list(rl["runs"].values()), sft_subset.overall.pass_at_1,
                               f"RL from the SFT checkpoint: {len(rl['runs'])} runs, held-out pass@1 on "
                               f"{sft_subset.overall.envs} envs")
    write_json_atomic(out / "results.json", results)
    write_markdown(out / "results.md", results)
    if args.docs is not None:
        args.docs.mkdir(parents=True, exist_ok=True)
        for name, path in plots.items():
            (args.docs / name).write_bytes(path.read_bytes())
    print((out / "results.md").read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
