"""Curation: each filter removes what it should, splits by env with a held-out capability, no train request
near a test one, capability quotas, shards of the right size, and a report whose counts add up."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from coworkenv.curate import (
    TRAIN,
    CurationConfig,
    CurationResult,
    assign_split,
    count_duplicate_rows,
    curate,
    jaccard,
    shingles,
    write_shards,
)
from coworkenv.curate.neardup import request_families
from coworkenv.examples import load_example
from coworkenv.rollout import TRAJECTORY_SCHEMA, OracleTeacher
from coworkenv.rollout.record import record_row
from coworkenv.store.stages import SFT_SCHEMA

VOCAB = [f"w{i}" for i in range(3000)]
CONFIG = CurationConfig(validation_fraction=0.15, test_fraction=0.15, heldout_capabilities=("cap-held",),
                        max_rows_per_shard=7, seed=0)
EXPECTED = {"not_passed": 5, "malformed": 3, "tool_errors": 2, "too_long": 2, "exact_duplicate": 4,
            "near_duplicate": 3, "decontaminated": 0, "over_env_cap": 0}


def _request(rng: random.Random) -> str:
    return " ".join(rng.sample(VOCAB, 60))


def _edit(text: str, positions: list[int], rng: random.Random) -> str:
    words = text.split()
    for p in positions:
        words[p] = f"x{rng.randrange(10**6)}"
    return " ".join(words)


class Rows:
    """A synthetic trajectory set built from one real oracle row, with known defects."""

    def __init__(self) -> None:
        self.template = record_row(OracleTeacher(0).run(load_example("incident_rollback"))[0])
        self.rows: list[dict[str, Any]] = []
        self.requests: dict[str, str] = {}

    def add(self, env_id: str, capability: str, **overrides: Any) -> dict[str, Any]:
        n = len(self.rows)
        row = {**self.template, "record_id": f"traj-{n}", "env_id": env_id, "capability": capability,
               "request": self.requests[env_id], "transcript_hash": f"{n:064x}", **overrides}
        row["messages"] = [dict(m) for m in row["messages"]]
        row["messages"][1]["content"] = f"{self.requests[env_id]} (row {n})"
        self.rows.append(row)
        return row

    def table(self) -> pa.Table:
        return pa.Table.from_pylist(self.rows, schema=TRAJECTORY_SCHEMA)


def _env_in(split: str, capability: str, prefix: str) -> str:
    return next(f"{prefix}-{i}" for i in range(1000) if assign_split(f"{prefix}-{i}", capability, CONFIG) == split)


@pytest.fixture(scope="module")
def data() -> Rows:
    rng = random.Random(5)
    rows = Rows()
    normal = [(f"env-{i:03d}", "cap-a" if i % 2 else "cap-b") for i in range(48)]
    normal += [(f"env-held-{i}", "cap-held") for i in range(6)]
    for env_id, cap in normal:
        rows.requests[env_id] = _request(rng)
        rows.add(env_id, cap)
        rows.add(env_id, cap)
    defects = [{"passed": False}] * 5 + [{"malformed_calls": 1}] * 3 + [{"tool_errors": 5, "tool_calls": 10}] * 2 + \
        [{"transcript_chars": 10**6}] * 2
    for i, defect in enumerate(defects):
        env_id, cap = normal[i]
        rows.add(env_id, cap, **defect)
    for i in range(4):  # the same transcript as an earlier row
        env_id, cap = normal[10 + i]
        rows.add(env_id, cap, transcript_hash=rows.rows[2 * (10 + i)]["transcript_hash"])
    for i in range(3):  # one word changed: Jaccard about 0.9 with env i's request
        env_id = f"env-near-{i}"
        rows.requests[env_id] = _edit(rows.requests[normal[20 + i][0]], [30], rng)
        rows.add(env_id, normal[20 + i][1])
    # An env three words away (Jaccard about 0.73) from a test env: not a near-dup, but in the test env's family.
    test_env = next(e for e, c in normal if assign_split(e, c, CONFIG) == "test")
    contam = _env_in(TRAIN, "cap-a", "env-contam")
    rows.requests[contam] = _edit(rows.requests[test_env], [10, 30, 50], rng)
    rows.add(contam, "cap-a")
    rows.add(contam, "cap-a")
    return rows


@pytest.fixture(scope="module")
def result(data: Rows) -> CurationResult:
    return curate(data.table(), config=CONFIG)


def test_each_filter_removes_what_it_should(data: Rows, result: CurationResult) -> None:
    removed = result.report["removed"]
    assert {k: removed[k] for k in EXPECTED} == EXPECTED
    assert removed["over_capability_quota"] == 0
    kept = {data.rows[i]["record_id"] for i in range(len(data.rows)) if result.selection[i] >= 0}
    assert not any(r["record_id"] in kept for r in data.rows if not r["passed"] or r["malformed_calls"])
    assert not any(r["record_id"] in kept for r in data.rows if r["env_id"].startswith("env-near"))


def test_report_counts_add_up(data: Rows, result: CurationResult) -> None:
    report = result.report
    splits = report["splits"]
    assert report["input_rows"] == len(data.rows)
    assert report["input_rows"] - report["removed_total"] == report["kept_rows"] == sum(s["rows"] for s in splits.values())
    assert report["removed_total"] == sum(report["removed"].values())
    assert all(sum(s["capabilities"].values()) == s["rows"] for s in splits.values())
    assert {name: t.num_rows for name, t in result.splits.items()} == {n: s["rows"] for n, s in splits.items()}
    assert report["train_by_capability"] == splits["train"]["capabilities"]
    everything = pa.concat_tables(result.splits.values())
    assert count_duplicate_rows(everything) == 0
    assert count_duplicate_rows(pa.concat_tables([everything, everything.slice(0, 3)])) == 3


def test_splits_are_by_env_with_the_held_out_capability_apart(data: Rows, result: CurationResult) -> None:
    envs = {name: set(t.column("env_id").to_pylist()) for name, t in result.splits.items()}
    names = list(envs)
    assert all(not (envs[a] & envs[b]) for i, a in enumerate(names) for b in names[i + 1:])
    assert all(envs[n] for n in ("train", "validation", "test", "test_heldout"))
    held = result.splits["test_heldout"]
    assert set(held.column("capability").to_pylist()) == {"cap-held"}
    assert held.num_rows == 12 and all("cap-held" not in s["capabilities"] for n, s in result.report["splits"].items()
                                       if n != "test_heldout")
    assert all(set(t.column("split").to_pylist()) <= {name} for name, t in result.splits.items())


def test_nothing_in_train_is_near_a_test_env(data: Rows, result: CurationResult) -> None:
    def requests(split: str) -> list[frozenset[str]]:
        return [shingles(data.requests[e], CONFIG.shingle_words)
                for e in set(result.splits[split].column("env_id").to_pylist())]

    evaluation = requests("validation") + requests("test") + requests("test_heldout")
    closest = max(jaccard(t, e) for t in requests("train") for e in evaluation)
    assert closest < CONFIG.decontam_threshold
    # ... while the contaminated env really was close to its test env.
    contam = next(e for e in data.requests if e.startswith("env-contam"))
    test_env = max((e for e in data.requests if e != contam),
                   key=lambda e: jaccard(shingles(data.requests[e]), shingles(data.requests[contam])))
    similarity = jaccard(shingles(data.requests[test_env]), shingles(data.requests[contam]))
    assert CONFIG.decontam_threshold <= similarity < CONFIG.near_dup_threshold


def test_a_request_family_goes_whole_to_one_split(data: Rows, result: CurationResult) -> None:
    # The env near a test env would have been decontaminated out of train; as one family they share the split.
    contam = next(e for e in data.requests if e.startswith("env-contam"))
    assert assign_split(contam, "cap-a", CONFIG) == TRAIN
    split_of = {e: name for name, t in result.splits.items() for e in t.column("env_id").to_pylist()}
    assert split_of[contam] == "test"
    assert result.report["request_families"] == result.report["kept_envs"] - 1


def test_request_families_are_connected_components() -> None:
    rng = random.Random(9)
    base = _request(rng)
    chain = [base, _edit(base, [10, 30, 50], rng)]  # each link about 0.73; the ends of the chain are further apart
    chain.append(_edit(chain[1], [15, 35, 55], rng))
    texts = {f"c{i}": t for i, t in enumerate(chain)} | {"lone": _request(rng), "copy": chain[2]}
    assert jaccard(shingles(chain[0]), shingles(chain[2])) < CONFIG.decontam_threshold
    families = request_families(texts, sorted(texts), threshold=CONFIG.decontam_threshold,
                                num_perm=CONFIG.num_perm, k=CONFIG.shingle_words)
    assert families == {"c0": "c0", "c1": "c0", "c2": "c0", "copy": "c0", "lone": "lone"}


def test_capability_quota_and_env_cap_balance_train(data: Rows, result: CurationResult) -> None:
    train = result.report["splits"]["train"]["capabilities"]
    quota = min(train.values()) - 3
    capped = curate(data.table(), config=CurationConfig(**{**CONFIG.__dict__, "max_rows_per_capability": quota}))
    after = capped.report["splits"]["train"]["capabilities"]
    assert all(n <= quota for n in after.values())
    assert capped.report["removed"]["over_capability_quota"] == sum(n - quota for n in train.values())
    assert capped.report["splits"]["test"] == result.report["splits"]["test"]  # quotas apply to train only

    one = curate(data.table(), config=CurationConfig(**{**CONFIG.__dict__, "max_rows_per_env": 1}))
    for table in one.splits.values():
        env_ids = table.column("env_id").to_pylist()
        assert len(env_ids) == len(set(env_ids))
    assert one.report["removed"]["over_env_cap"] > 0


def test_shards_are_sized_right_and_load_as_one_dataset(result: CurationResult, tmp_path: Path) -> None:
    (tmp_path / "train-00000-of-00042.parquet").write_bytes(b"stale")  # from an earlier run: replaced
    paths = write_shards(result, tmp_path)
    assert not (tmp_path / "train-00000-of-00042.parquet").exists()
    for name, split in result.report["splits"].items():
        mine = sorted(p for p in paths if p.name.startswith(f"{name}-"))
        count = math.ceil(split["rows"] / 7)
        assert [p.name for p in mine] == [f"{name}-{i:05d}-of-{count:05d}.parquet" for i in range(count)]
        sizes = [pq.read_metadata(p).num_rows for p in mine]
        assert sum(sizes) == split["rows"] and all(s == 7 for s in sizes[:-1]) and 0 < sizes[-1] <= 7
        assert result.shards[name] == count
    assert all(pq.read_schema(p).equals(SFT_SCHEMA) for p in paths)
    train = datasets.load_dataset("parquet", data_files=str(tmp_path / "train-*.parquet"), split="train")
    assert train.num_rows == result.report["splits"]["train"]["rows"]
    assert train.features == datasets.Features.from_arrow_schema(SFT_SCHEMA)
    assert not list(tmp_path.glob(".tmp-*"))


def test_a_folder_of_parquet_curates_like_the_table(data: Rows, result: CurationResult, tmp_path: Path) -> None:
    table = data.table()
    pq.write_table(table.slice(0, 50), tmp_path / "part-a.parquet")
    pq.write_table(table.slice(50), tmp_path / "part-b.parquet")
    from_files = curate(tmp_path, config=CONFIG)
    assert from_files.report == result.report and (from_files.selection == result.selection).all()
    assert from_files.splits["train"].equals(result.splits["train"])


def test_bad_input_and_config_are_reported() -> None:
    with pytest.raises(ValueError, match="near_dup_threshold"):
        CurationConfig(near_dup_threshold=1.5)
    with pytest.raises(ValueError, match="leave room for train"):
        CurationConfig(validation_fraction=0.5, test_fraction=0.5)
    with pytest.raises(ValueError, match="lack columns"):
        curate(pa.table({"env_id": ["a"]}))


def test_spec_turns_and_external_texts_drive_dedup_and_decontamination(data: Rows) -> None:
    spec = load_example("incident_rollback")
    train_envs = [e for e in ("env-001", "env-003", "env-005", "env-007") if assign_split(e, "cap-a", CONFIG) == TRAIN]
    first, second = train_envs[:2]
    # With their specs given, two envs with different stored requests ask the same thing: one is a duplicate.
    same = curate(data.table(), specs_by_env={first: spec, second: spec}, config=CONFIG)
    assert same.report["removed"]["near_duplicate"] == EXPECTED["near_duplicate"] + 2
    # A request from an outside benchmark removes the train env that asks it.
    outside = CurationConfig(**{**CONFIG.__dict__, "decontaminate_against": (data.requests[first],)})
    cleaned = curate(data.table(), config=outside)
    assert cleaned.report["removed"]["decontaminated"] == EXPECTED["decontaminated"] + 2
    assert first not in set(cleaned.splits[TRAIN].column("env_id").to_pylist())
