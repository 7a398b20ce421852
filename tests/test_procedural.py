"""Procedural generators: every capability yields sound, coherent, deterministic and diverse environments."""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import typer
from typer.testing import CliRunner

from coworkenv.agents import NoopPolicy, OraclePolicy
from coworkenv.apps import TOOLS
from coworkenv.env import Env
from coworkenv.loading import load_spec, reference_issues
from coworkenv.rollout import run_episode
from coworkenv.spec import EnvSpec, ReferenceTurn
from coworkenv.store.stages import SPECS_SCHEMA, read_specs, write_specs
from coworkenv.synth import (
    Capability,
    GeneratorError,
    diversity_report,
    generate_spec,
    generate_specs,
    load_taxonomy,
    pools,
    request_clusters,
    request_text,
)
from coworkenv.validate import procedural_candidates

ROOT = Path(__file__).resolve().parents[1]
TAXONOMY = load_taxonomy(ROOT / "taxonomy")
CAPS = sorted(TAXONOMY.capabilities)
SEEDS = (0, 1, 7)


@cache
def spec_for(cap_id: str, seed: int) -> EnvSpec:
    return generate_spec(TAXONOMY[cap_id], seed)


def _passes(spec: EnvSpec, reference: list[ReferenceTurn]) -> bool:
    return run_episode(Env(spec), OraclePolicy(spec, reference)).result.passed


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("cap_id", CAPS)
def test_spec_is_sound(cap_id: str, seed: int) -> None:
    spec = spec_for(cap_id, seed)
    assert load_spec(spec.to_json()) == spec  # loads cleanly, no reference issues
    assert reference_issues(spec) == []
    assert spec.capability == cap_id and spec.metadata.seed == seed
    lo, hi = TAXONOMY[cap_id].difficulty
    assert lo <= spec.metadata.difficulty <= hi
    assert spec.multi_turn == TAXONOMY[cap_id].multi_turn
    first = run_episode(Env(spec), OraclePolicy(spec))
    second = run_episode(Env(spec), OraclePolicy(spec))
    failed = [(c.id, c.reason) for c in first.result.checks if not c.passed]
    assert first.result.score == 1.0 and first.result.passed, failed
    assert first.final_hash == second.final_hash
    assert not run_episode(Env(spec), NoopPolicy()).result.passed
    env = Env(spec)
    env.reset()
    assert not env.score().passed, "the initial state must not already pass"


@pytest.mark.parametrize("cap_id", CAPS)
def test_near_misses_fail(cap_id: str) -> None:
    """Dropping any single write of the reference, or stopping before the last turn, fails a required check."""
    spec = spec_for(cap_id, 3)
    turns = [list(t.steps) for t in spec.reference]
    writes = [
        (t, i)
        for t, steps in enumerate(turns)
        for i, s in enumerate(steps)
        if s.call is not None and TOOLS[s.call.name].kind == "write"
    ]
    assert writes, "every task changes something"
    for t, i in writes:
        dropped = [list(steps) for steps in turns]
        del dropped[t][i]
        assert not _passes(spec, [ReferenceTurn(steps=s) for s in dropped]), f"dropping {turns[t][i].call} passed"
    if len(turns) > 1:
        stopped = [ReferenceTurn(steps=s) for s in turns[:-1]] + [ReferenceTurn(steps=[])]
        assert not _passes(spec, stopped), "stopping before the last turn passed"


@pytest.mark.parametrize("cap_id", CAPS)
def test_validation_gates_and_mutation_score(cap_id: str) -> None:
    """The validation helper's ten gates accept the spec with a mutation score of 1.0."""
    validate = pytest.importorskip("coworkenv.validate")
    result = validate.validate_spec(spec_for(cap_id, 11))
    assert result.passed, [g for g in result.gates if not g.passed]
    assert result.mutation_score == 1.0


@pytest.mark.parametrize("cap_id", CAPS)
def test_world_is_coherent(cap_id: str) -> None:
    """Every person, service, file and channel a record refers to exists in the world."""
    for seed in SEEDS:
        apps = spec_for(cap_id, seed).world.apps
        people = {p.id for p in apps.directory.people}
        emails = {p.email for p in apps.directory.people}
        services = {s.id for s in apps.services.services}
        files = {f.id for f in apps.files.files}
        channels = {c.id for c in apps.chat.channels}
        assert len(people) == len(apps.directory.people) and len(emails) == len(people)
        for team in apps.directory.teams:
            assert team.lead in people and (team.channel is None or team.channel in channels)
        for p in apps.directory.people:
            assert p.manager is None or p.manager in people
        for e in apps.calendar.events:
            assert e.organizer in emails and set(e.attendees) <= emails, e
        for t in apps.tickets.tickets:
            assert (t.assignee is None or t.assignee in people) and t.reporter in people
            assert t.service is None or t.service in services
        for m in apps.mail.messages:
            assert set(m.attachments) <= files
            assert m.folder != "inbox" or set(m.to) <= emails
        for m in apps.chat.messages:
            assert m.channel in channels and m.sender in people
        for c in apps.services.configs:
            assert c.service in services and c.author in people
        for line in apps.logs.lines:
            assert line.service in services


def test_incident_mail_quotes_a_logged_request_of_the_failing_service() -> None:
    for seed in range(6):
        spec = (
            spec_for("incident_investigate_fix", seed)
            if seed in SEEDS
            else generate_spec(TAXONOMY["incident_investigate_fix"], seed)
        )
        apps = spec.world.apps
        broken = [s for s in apps.services.services if s.status == "degraded"]
        assert len(broken) == 1
        quoted = {w for m in apps.mail.messages for w in m.body.replace(".", " ").split() if w.startswith("req-")}
        assert len(quoted) == 1
        logged = [line for line in apps.logs.lines if line.request_id in quoted]
        assert any(line.service == broken[0].id and line.level == "ERROR" for line in logged)
        assert broken[0].id not in " ".join(m.body for m in apps.mail.messages), "the mail must not give it away"


def test_same_seed_same_spec_across_processes() -> None:
    code = (
        "from pathlib import Path; from coworkenv.synth import load_taxonomy, generate_spec; "
        "t = load_taxonomy(Path('taxonomy')); print(*[generate_spec(t[c], 5).id for c in sorted(t.capabilities)])"
    )
    ids = []
    for hash_seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": hash_seed, "PATH": "", "PYTHONPATH": str(ROOT)},
        )
        ids.append(out.stdout.split())
    assert ids[0] == ids[1] == [generate_spec(TAXONOMY[c], 5).id for c in CAPS]


def test_different_seeds_give_different_worlds() -> None:
    for cap_id in CAPS:
        a, b = spec_for(cap_id, 0), spec_for(cap_id, 1)
        assert a.world != b.world, cap_id
        assert a.id != b.id


@pytest.mark.parametrize("cap_id", ["incident_investigate_fix", "schedule_meeting_timezones", "ticket_triage_update"])
def test_diversity_of_100_specs(cap_id: str) -> None:
    report = diversity_report(generate_specs(TAXONOMY[cap_id], 100, 1000))
    assert report["n"] == 100
    assert report["distinct_content_fraction"] >= 0.95
    assert report["distinct_reference_sequences"] >= 10
    assert report["distinct_entities"]["people"] >= 300
    assert report["distinct_entities"]["companies"] >= 15
    assert report["near_dup_clusters_per_1k"] >= 950


@pytest.mark.parametrize("cap_id", CAPS)
def test_requests_are_not_near_duplicates(cap_id: str) -> None:
    # Curation keeps one spec per near-duplicate cluster and splits whole families: a generator whose requests
    # fall into a few families yields few training rows however many specs it makes.
    texts = {str(seed): request_text(spec_for(cap_id, seed)) for seed in range(40)}
    clusters, families = request_clusters(texts)
    assert clusters >= 38, f"{cap_id}: {clusters} near-duplicate clusters in 40 requests"
    assert families >= 34, f"{cap_id}: {families} request families in 40 requests"


def test_generator_shape_must_match_the_capability() -> None:
    cap = TAXONOMY["incident_investigate_fix"]
    wrong = cap.model_copy(update={"multi_turn": True, "state_change": "silent"})
    with pytest.raises(GeneratorError, match="multi_turn"):
        generate_spec(wrong, 0)
    orphan = Capability(id="make_coffee", area="office", description="d", skills=["s"], apps=["chat"])
    with pytest.raises(GeneratorError, match=r"no procedural generator 'make_coffee'.*--llm"):
        generate_spec(orphan, 0)
    reuse = orphan.model_copy(update={"generator": "draft_only_reply", "difficulty": (4, 4)})
    spec = generate_spec(reuse, 0)
    assert spec.capability == "make_coffee" and spec.metadata.difficulty == 4


def test_parquet_round_trip_is_lossless(tmp_path: Path) -> None:
    specs = [spec_for(c, 0) for c in CAPS[:6]]
    path = write_specs(procedural_candidates(specs), tmp_path / "out" / "specs.parquet")
    table = pq.read_table(path)
    assert table.schema.equals(SPECS_SCHEMA)
    assert table.column("env_id").to_pylist() == [s.id for s in specs]
    assert table.column("source").to_pylist() == [s.metadata.generator for s in specs]
    back = read_specs(path)
    assert back == specs and [s.id for s in back] == [s.id for s in specs]
    assert list(path.parent.iterdir()) == [path], "no temp files left behind"


def test_synth_cli_writes_parquet(tmp_path: Path) -> None:
    from coworkenv.cli.synth import register

    app = typer.Typer()
    register(app)
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "synth",
            "--capability",
            "lookup_answer_source",
            "--n",
            "5",
            "--seed",
            "3",
            "--out",
            str(tmp_path),
            "--taxonomy",
            str(ROOT / "taxonomy"),
        ],
    )
    assert result.exit_code == 0, result.output
    path = tmp_path / "specs-lookup_answer_source.parquet"
    assert f"wrote 5 specs to {path}" in result.output
    assert [s.metadata.seed for s in read_specs(path)] == [3, 4, 5, 6, 7]
    bad = runner.invoke(app, ["synth", "--capability", "nope", "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "unknown capability nope" in bad.output
    half = runner.invoke(app, ["synth", "--out", str(tmp_path), "--llm", "http://127.0.0.1:9/v1"])
    assert half.exit_code == 2 and "--llm and --model go together" in half.output


@pytest.mark.parametrize("cap_id", CAPS)
def test_doing_nothing_scores_about_zero(cap_id: str) -> None:
    """Guards earn no credit and checks that hold untouched are guards: the noop agent's mean score is <= 0.05."""
    scores = []
    for seed in range(8):
        spec = spec_for(cap_id, seed)
        noop = run_episode(Env(spec), NoopPolicy()).result
        assert all(c.is_guard for c in noop.checks if c.passed), [c.id for c in noop.checks if c.passed]
        scores.append(noop.score)
        assert run_episode(Env(spec), OraclePolicy(spec)).result.score == 1.0
    assert sum(scores) / len(scores) <= 0.05


def test_request_framing_never_asks_for_an_answer() -> None:
    # A framing that asks for a reply ("let me know ...") would make the reply content that no check reads.
    from coworkenv.synth.procedural import _wording
    from coworkenv.validate._mutation_core import _ASKS
    from coworkenv.validate._reply_asks import asks_for_reply

    parts = [*_wording.GREETINGS, *_wording.LEADS, *_wording.REASONS, *_wording.SIGNOFFS]
    asking = [p for p in parts if _ASKS.search(framed := "Done. " + p[0].upper() + p[1:]) or asks_for_reply(framed)]
    assert not asking


def test_lookup_keys_are_many_and_never_inside_one_another() -> None:
    # A fact is asked for by its key (a customer, project or city). With a short closed list a student can learn the
    # keys by heart and write a frequent one where the request names another (docs/learning.md, L10); with many it
    # must copy. A key inside another key (or a customer's first word shared) would make "mentions the key"
    # ambiguous and give two customers one mail domain.
    keys = [*pools.CUSTOMERS, *pools.PROJECTS, *pools.CITIES]
    assert len(pools.CUSTOMERS) >= 100 and len(pools.PROJECTS) >= 60 and len(pools.CITIES) >= 50
    assert len(set(keys)) == len(keys)
    inside = [(a, b) for a in keys for b in keys if a != b and a.lower() in b.lower()]
    assert not inside, inside[:5]
    firsts = [name.split()[0].lower() for name in pools.CUSTOMERS]
    assert len(set(firsts)) == len(firsts)
