"""The early-action replay finds the turns that gate their writes from the spec alone: a turn answering a question,
a turn bringing announced changes, a turn after the world's delayed reaction to the earlier turn's calls; a plain
further request gates nothing (doing it early is only eager). The slow replay reads on at the end of the earlier
turn for as long as the clock leaves before the news (the next turn, or the delayed reaction), never past it."""

from __future__ import annotations

from pathlib import Path

from coworkenv.checks.results import AuditEntry
from coworkenv.spec import EnvSpec
from coworkenv.synth import generate_spec, load_taxonomy
from coworkenv.validate._early_action import early_actions, news_reads, slow_early_actions
from coworkenv.validate._episodes import SpecEpisodes
from coworkenv.validate._pace import quiet_read, reads_left
from coworkenv.world import format_time, parse_time

TAXONOMY = load_taxonomy(Path(__file__).resolve().parents[1] / "taxonomy")


def _spec(cap: str, seed: int) -> EnvSpec:
    return generate_spec(TAXONOMY[cap], seed)


def test_announced_changes_gate_the_turns_writes() -> None:
    spec = _spec("adapt_announced_change", 1)  # the owner goes on leave with the second turn
    found = list(early_actions(spec))
    assert len(found) == 2 and all(f.path.startswith("reference[1].steps[") for f in found)
    first, every = found[0], found[-1]
    assert "announces" in first.description
    moved = [s.call.name for s in first.reference[0].steps if s.call is not None][-1]
    assert moved == "tickets_update" and first.reference[0].steps[-1].say  # before turn 0's closing reply
    assert not any(s.call is not None and s.call.name in ("tickets_update", "chat_send_dm")
                   for s in every.reference[1].steps)  # every write of the turn moved


def test_a_delayed_reaction_gates_the_next_turns_writes() -> None:
    spec = _spec("access_request_approval", 1)  # the manager's approval comes 5-45 min after the request mail
    found = list(early_actions(spec))
    assert found and "manager-answers" in found[0].description


def test_a_plain_further_request_gates_nothing() -> None:
    spec = _spec("adapt_announced_change", 1)
    turns = [spec.turns[0], spec.turns[1].model_copy(update={"changes": [], "announce": None})]
    plain = spec.model_copy(update={"turns": turns, "dynamics": spec.dynamics.model_copy(update={"rules": []})})
    assert list(early_actions(plain)) == []
    late = spec.dynamics.rules[0].model_copy(update={"delay_s": 0})  # a reaction at once: there before turn 0 ends
    instant = plain.model_copy(update={"dynamics": spec.dynamics.model_copy(update={"rules": [late]})})
    assert list(early_actions(instant)) == []


def _oracle_audit(spec: EnvSpec) -> list[AuditEntry]:
    return SpecEpisodes(spec).oracle().audit


def test_the_slow_replay_reads_until_just_before_the_announced_news() -> None:
    spec = _spec("adapt_announced_change", 1)  # the leave comes with the second turn, 35 minutes on
    audit = _oracle_audit(spec)
    reads = news_reads(spec, audit, 1)
    assert 2 <= reads <= reads_left(spec)
    end = parse_time([e for e in audit if e.turn == 0][-1].time)
    news = parse_time(next(e for e in audit if e.turn == 1).time)
    assert end + (reads + 1) * spec.world.tick_s < news  # the moved write still comes before the news
    found = list(slow_early_actions(spec, audit))
    assert [f.path for f in found] == ["reference[1].steps[1]", "reference[1].steps[2]", "reference[1].steps[1]"]
    read = quiet_read(spec)
    for f in found:  # each write alone, then both, after the quiet reads; the plain twin without them
        assert f.plain is not None and read is not None
        assert sum(s == read for s in f.reference[0].steps) == reads + sum(s == read for s in f.plain[0].steps)
        assert f.reference[0].steps[-1].say and f.plain[0].steps[-1].say


def test_the_slow_replay_stops_before_a_delayed_reaction_lands() -> None:
    spec = _spec("delegate_and_follow_up", 1)  # the delegate answers 17 minutes after the DM
    audit = _oracle_audit(spec)
    rule = next(r for r in spec.dynamics.rules if r.delay_s)
    sent = min(parse_time(e.time) for e in audit if e.turn == 0 and e.tool == "chat_send_dm")
    end = parse_time([e for e in audit if e.turn == 0][-1].time)
    reads = news_reads(spec, audit, 1)
    assert reads >= 2 and end + (reads + 1) * spec.world.tick_s < sent + rule.delay_s


def test_no_slow_replay_where_no_clock_is_left_before_the_news() -> None:
    spec = _spec("adapt_announced_change", 1)
    audit = _oracle_audit(spec)
    late = [e for e in audit if e.turn == 0]
    at = format_time(parse_time(late[-1].time) + spec.world.tick_s)  # the next turn at once, a tick later
    soon = [*late, *(AuditEntry(e.index, e.turn, e.tool, e.args, e.ok, e.result, e.error, at, e.hash_before,
                                e.hash_after) for e in audit if e.turn == 1)]
    assert news_reads(spec, soon, 1) == 0 and list(slow_early_actions(spec, soon)) == []
