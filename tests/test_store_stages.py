"""The stage contracts of `coworkenv.store.stages`: every stage's table survives write -> read unchanged, files of
older releases migrate at read, a wrong table is refused with its differences named, and no module outside the
stage API reads or writes stage files itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coworkenv.examples import example_names, load_example
from coworkenv.loading import SpecError, load_spec
from coworkenv.rollout import OracleTeacher, TrajectoryRecord, trajectories_table
from coworkenv.spec_seal import sealed_table_hashes
from coworkenv.spec_seal_write import seal_spec
from coworkenv.store import stages
from coworkenv.validate import Candidate, accepted_table, procedural_candidates, rejected_table, validate_and_repair
from coworkenv.validate.gates import schema_gate

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def records() -> list[TrajectoryRecord]:
    return [OracleTeacher(0, k=2).run(load_example(n))[1] for n in example_names()]


def _candidates() -> list[Candidate]:
    specs = [load_example(n) for n in example_names()]
    return [
        *procedural_candidates(specs),
        Candidate("inbox", '{"capability": "inbox", "world": ', source="model-x", tokens=812, origin="inbox/req=3"),
        Candidate("inbox", "", source="model-x", error="timeout", origin="inbox/req=4"),
    ]


# -- write -> read round trips ---------------------------------------------------------------------------------------
def test_specs_round_trip_keeps_every_candidate(tmp_path: Path) -> None:
    candidates = _candidates()
    path = stages.write_specs(candidates, tmp_path / "specs.parquet")
    assert pq.read_table(path).equals(stages.specs_table(candidates))
    assert stages.SPECS.read(path).equals(stages.specs_table(candidates))
    rows = stages.read_spec_rows(path)
    assert [(r.capability, r.source, r.origin, r.tokens, r.error) for r in rows] == \
        [(c.capability, c.source, c.origin, c.tokens, c.error) for c in candidates]
    # a spec is stored sealed: it loads on the sealed path, equal to the spec written
    assert rows[0].text == seal_spec(load_example(example_names()[0])).decode()
    stored = load_spec(rows[0].text)
    assert sealed_table_hashes(stored) is not None and stored == load_example(example_names()[0])
    with pytest.raises(SpecError, match="row 5"):
        stages.read_specs(path)  # the raw payload is not a spec: its row is named
    parsed = stages.write_specs(candidates[:-2] + candidates[-1:], tmp_path / "parsed.parquet")
    assert stages.read_specs(parsed) == [c.payload for c in candidates[:-2]]  # a failed generation is passed over
    assert stages.write_specs(candidates, tmp_path / "again.parquet").read_bytes() == path.read_bytes()


_word = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_word, st.text(max_size=30), _word, _word, st.integers(0, 2**40),
                          st.none() | _word), max_size=5))
def test_any_stored_candidate_reads_back_field_for_field(tmp_path_factory: pytest.TempPathFactory,
                                                          fields: list[tuple[str, str, str, str, int, str | None]]) -> None:
    candidates = [Candidate(cap, text, source=src, origin=origin, tokens=tokens, error=error)
                  for cap, text, src, origin, tokens, error in fields]
    path = stages.write_specs(candidates, tmp_path_factory.mktemp("specs") / "specs.parquet")
    rows = stages.read_spec_rows(path, allow_empty=True)
    assert [(r.capability, r.text, r.source, r.origin, r.tokens, r.error) for r in rows] == fields
    assert stages.SPECS.read(path).equals(stages.specs_table(candidates))


def test_envs_and_rejected_round_trip(tmp_path: Path) -> None:
    run = validate_and_repair(_candidates()[:2] + _candidates()[-1:])
    accepted, rejected = accepted_table(run), rejected_table(run)
    assert accepted.num_rows == 2 and rejected.num_rows == 1
    envs = stages.ENVS.write(accepted, tmp_path / "accepted.parquet")
    assert stages.ENVS.read(envs).equals(accepted)
    read = stages.read_envs(envs)
    assert read == [a.spec for a in run.accepted]
    assert all(sealed_table_hashes(spec) is not None for spec in read)  # stored sealed, loaded on the sealed path
    assert [s.id for s in read] == accepted.column("env_id").to_pylist()
    wanted = run.accepted[1].spec.id
    assert [s.id for s in stages.read_envs(envs, {wanted})] == [wanted]
    assert [s.id for s in stages.read_specs(envs)] == [a.spec.id for a in run.accepted]  # envs are specs too
    assert stages.REJECTED.read(stages.REJECTED.write(rejected, tmp_path / "rejected.parquet")).equals(rejected)


def test_trajectories_round_trip(records: list[TrajectoryRecord], tmp_path: Path) -> None:
    path = stages.write_trajectories(records, tmp_path, written_by="rollout")
    assert stages.read_trajectories(path) == records
    assert stages.TRAJECTORIES.read(path).equals(trajectories_table(records))
    stored = stages.stored_trajectories_table(records)
    assert all(r.timings.wall_s for r in records) and set(stored.column("wall_s").to_pylist()) == {0.0}
    assert stages.read_trajectories(stored) == [stages.without_measurements(r) for r in records]


def test_rl_rollouts_round_trip_with_their_step_and_refuse_a_table_without_it(
    records: list[TrajectoryRecord], tmp_path: Path
) -> None:
    table = trajectories_table(records)
    steps = table.append_column("rl_step", pa.array([3] * table.num_rows, pa.int32()))
    stored = stages.RL_ROLLOUTS.store(steps, tmp_path, "rl_rollouts", written_by="rl")
    assert stages.RL_ROLLOUTS.read(stored).equals(steps)
    with pytest.raises(stages.StageError, match="missing rl_step"):
        stages.RL_ROLLOUTS.store(table, tmp_path, "rl_rollouts")
    strict = pa.schema([f.with_nullable(False) if f.name == "rl_step" else f for f in steps.schema])
    with pytest.raises(stages.StageError, match="rl_step is not nullable, unlike the schema"):
        stages.RL_ROLLOUTS.check(steps.cast(strict))


def test_sft_rows_round_trip_through_shards(records: list[TrajectoryRecord], tmp_path: Path) -> None:
    table = stages.sft_table(records, "train")
    assert table.schema.equals(stages.SFT_SCHEMA) and table.column("split").to_pylist() == ["train"] * len(records)
    # The one producer: SFT rows from records and from their trajectory rows are the same rows.
    assert table.equals(stages.sft_rows(trajectories_table(records), "train"))
    writer = stages.ShardWriter(tmp_path, "train", table.num_rows, max_rows=2)
    writer.add(table)
    files = writer.finish()
    assert [f.name for f in files] == [stages.shard_name("train", i, len(files)) for i in range(len(files))]
    assert stages.sft_files(tmp_path) == files
    assert stages.read_sft(files).equals(table)
    assert sum(stages.SFT.num_rows(f) for f in files) == len(records)
    one = stages.SFT.write(table, tmp_path / "one" / "train-00000-of-00001.parquet")
    assert stages.read_sft([one]).equals(table)


def test_envs_in_several_splits_names_each_leaked_env_once() -> None:
    from coworkenv.curate import envs_in_several_splits

    def split(*envs: str) -> pa.Table:
        return pa.table({"env_id": list(envs)})

    assert envs_in_several_splits({"train": split("a", "b", "b"), "test": split("c")}) == []
    leaked = {"train": split("a", "b"), "validation": split("b", "c"), "test": split("b", "a")}
    assert envs_in_several_splits(leaked) == ["a", "b"]


# -- migration and refusals ------------------------------------------------------------------------------------------
OLD_SPECS_SCHEMA = pa.schema([  # what `coworkenv synth` wrote before the stage contract
    pa.field("env_id", pa.string(), nullable=False), pa.field("capability", pa.string(), nullable=False),
    pa.field("difficulty", pa.int8(), nullable=False), pa.field("multi_turn", pa.bool_(), nullable=False),
    pa.field("apps", pa.list_(pa.string()), nullable=False), pa.field("generator", pa.string(), nullable=False),
    pa.field("seed", pa.int64(), nullable=True), pa.field("spec_json", pa.string(), nullable=False),
])


def test_a_specs_file_of_the_old_schema_migrates_at_read(tmp_path: Path) -> None:
    specs = [load_example(n) for n in example_names()[:2]]
    old = pa.Table.from_pylist([{
        "env_id": s.id, "capability": s.capability, "difficulty": s.metadata.difficulty, "multi_turn": s.multi_turn,
        "apps": list(s.metadata.apps), "generator": "procedural:old@1", "seed": 7, "spec_json": s.to_json(),
    } for s in specs], schema=OLD_SPECS_SCHEMA)
    path = tmp_path / "specs-old.parquet"
    pq.write_table(old, path)
    table = stages.SPECS.read(path)
    assert table.schema.equals(stages.SPECS_SCHEMA)
    assert table.column("source").to_pylist() == ["procedural:old@1"] * 2  # `generator` is now `source`
    assert table.column("tokens").to_pylist() == [None, None] and table.column("origin").null_count == 2
    rows = stages.read_spec_rows(path)
    assert [(r.source, r.tokens, r.origin) for r in rows] == [("procedural:old@1", 0, f"{path.name}#{i}")
                                                               for i in range(2)]
    assert stages.read_specs(path) == specs


def test_a_table_of_another_shape_is_refused_naming_the_difference(tmp_path: Path) -> None:
    table = stages.specs_table(_candidates()).drop_columns(["tokens"])
    with pytest.raises(stages.StageError, match="not a specs table \\(missing tokens\\)"):
        stages.SPECS.write(table, tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()
    pq.write_table(pa.table({"env_id": ["a"]}), tmp_path / "envs.parquet")
    with pytest.raises(stages.StageError, match="not a envs file, no column spec_json"):
        stages.read_envs(tmp_path / "envs.parquet")
    with pytest.raises(stages.StageError, match="no such file"):
        stages.ENVS.read(tmp_path / "nowhere.parquet")


# -- nobody reads or writes stage files around the stage API ---------------------------------------------------------
SCANNED = ("coworkenv", "assets", "trainers", "pipelines")
# Modules that may touch Parquet directly, and why.
ALLOWED = {
    "coworkenv/store/_parquet.py": "the deterministic, content-addressed Parquet writer every stage writes through",
    "coworkenv/store/stages/_stage.py": "the stage contract: the one writer and reader of every stage",
    "coworkenv/store/stages/sft.py": "the SFT stage: its streaming shard writer and its reader",
    "coworkenv/store/stages/trajectories.py": "the trajectories stage: its streaming reader",
}
_PARQUET_CALLS = {"read_parquet", "scan_parquet", "from_parquet", "load_dataset", "read_table", "write_table",
                  "write_rows", "write_to_dataset", "read_schema", "read_metadata", "ParquetFile", "ParquetWriter"}


def parquet_bypasses(root: Path) -> list[str]:
    """Where a module outside ALLOWED imports pyarrow.parquet or calls a Parquet reader/writer directly."""
    found = []
    for package in SCANNED:
        for file in sorted((root / package).rglob("*.py")):
            rel = file.relative_to(root).as_posix()
            if rel in ALLOWED:
                continue
            for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import) and any(a.name.startswith("pyarrow.parquet") for a in node.names):
                    found.append(f"{rel}:{node.lineno}: import pyarrow.parquet")
                elif isinstance(node, ast.ImportFrom) and (
                        (node.module or "").startswith("pyarrow.parquet")
                        or (node.module == "pyarrow" and any(a.name == "parquet" for a in node.names))):
                    found.append(f"{rel}:{node.lineno}: from {node.module} import ...")
                elif isinstance(node, ast.Call):
                    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                    if name in _PARQUET_CALLS:
                        found.append(f"{rel}:{node.lineno}: {name}(...)")
    return found


def test_stage_files_are_read_and_written_only_through_the_stage_api() -> None:
    assert parquet_bypasses(ROOT) == [], "read and write stage tables with coworkenv.store.stages"


def test_the_bypass_scan_catches_a_direct_read(tmp_path: Path) -> None:
    for package in SCANNED:
        (tmp_path / package).mkdir()
    (tmp_path / "assets" / "sneaky.py").write_text(
        "import pyarrow.parquet as pq\nimport polars as pl\nfrom coworkenv import store\n\n"
        "def specs(path):\n    return pq.read_table(path), pl.scan_parquet(path), store.read_table(path)\n")
    assert parquet_bypasses(tmp_path) == [
        "assets/sneaky.py:1: import pyarrow.parquet", "assets/sneaky.py:6: read_table(...)",
        "assets/sneaky.py:6: scan_parquet(...)", "assets/sneaky.py:6: read_table(...)",
    ]


def test_a_recorded_funnel_reads_back_with_every_count() -> None:
    from coworkenv.validate import Funnel

    funnel = Funnel()
    funnel.record("inbox", "accepted", rounds=2, tokens=900, mutation_score=0.75)
    funnel.record("inbox", "schema_valid", rejected_by="coherence", tokens=300)
    funnel.record_llm_failure("inbox", "timeout", during="generation")
    funnel.record_llm_failure("calendar", "length", tokens=40)
    back = Funnel.from_dict(funnel.as_dict())
    assert back.as_dict() == funnel.as_dict()
    assert back.generation_failures == {"timeout": 1} and back.by_capability["calendar"].llm_failures == {"length": 1}
    assert back.merge(back).as_dict()["requested"] == 2 * funnel.as_dict()["requested"]


def test_sealed_spec_files_are_read_from_a_folder(tmp_path: Path) -> None:
    spec = load_example(example_names()[0])
    (tmp_path / "sealed.json").write_bytes(seal_spec(spec))
    (tmp_path / "funnel.json").write_text('{"kept": 1}')  # not a spec: passed over
    rows = stages.read_spec_rows(tmp_path)
    assert [(r.capability, r.where) for r in rows] == [(spec.capability, str(tmp_path / "sealed.json"))]
    [read] = stages.read_specs(tmp_path)
    assert read == spec and sealed_table_hashes(read) is not None


def test_a_damaged_seal_in_the_envs_stage_loads_in_full(tmp_path: Path) -> None:
    run = validate_and_repair(_candidates()[:1])
    table = accepted_table(run)
    text = table.column("spec_json")[0].as_py()
    damaged = text.replace('"tick_s":30', '"tick_s":31', 1)
    assert damaged != text
    broken = table.set_column(table.schema.get_field_index("spec_json"), "spec_json", pa.array([damaged]))
    envs = stages.ENVS.write(broken, tmp_path / "accepted.parquet")
    [read] = stages.read_envs(envs)
    assert sealed_table_hashes(read) is None and read.world.tick_s == 31  # validated in full, as written


def test_the_schema_gate_takes_a_sealed_payload() -> None:
    spec = load_example(example_names()[0])
    result, parsed = schema_gate(seal_spec(spec).decode())
    assert result.passed and parsed == spec and result.details == {"source": "sealed"}
    damaged = seal_spec(spec).replace(b'"tick_s":30', b'"tick_s":31', 1)
    result, parsed = schema_gate(damaged)
    assert result.passed and parsed is not None and parsed.world.tick_s == 31
