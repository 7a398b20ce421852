"""Count by pace: the user asks how many error lines the failing service had logged by the time the agent fixed it,
and the writer checks the reply for the number its own reference saw (`number: {value: N, tolerance: 0}`, or the
digits as a term). The live system keeps logging while the fault is on (an error stream, every two or five minutes),
so the count depends on when the agent fixes it: an honest agent that reads the logs a few more times before its fix
sees one line more and, stating what it saw, fails; only an agent that happens to keep the reference's pace passes.
The pace replay (`_pace`) plays the reference's own reply at the slower pace, which still states N, so main saw a
check the slower agent passes. The sound twin asks for a count the world no longer changes (the lines logged before
the reporter's mail), checked the same way.

Caught by the pace replay reading the reply's numbers (`_paced_counts`): a number a reply states that is the count
of records of a table the world adds to at its own pace (the failing service's ERROR lines), where the slower agent's
world holds another count, is replaced by that count in the slower agent's reply; a check the reference passes that
then fails is `pace_pinned`."""

from __future__ import annotations

from typing import Any

from coworkenv.agents import OraclePolicy
from coworkenv.env import Env
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import ReferenceTurn
from coworkenv.world import parse_time
from tests.defects._core import CorpusError, Defect, Spec, reference
from tests.defects.pace_pinned import _stream
from tests.defects.solved_by_clock import quiet_read

CLASS = "count_by_pace"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "replay the reference at a slower pace and read the numbers its replies state: one that counts records the live "
    "world adds at its own pace (a stream's error lines) and that the slower world counts otherwise, stated as that "
    "count, fails a check the reference passes: the answer is pinned to the reference's pace"
)


def _errors(spec: Spec, ref: list[dict[str, Any]], before: str | None = None) -> int:
    """The failing service's ERROR lines at the end of `ref`'s episode (only those before `before`, if given)."""
    parsed = parse_spec({**spec, "reference": ref})
    env = Env(parsed)
    run_episode(env, OraclePolicy(parsed, [ReferenceTurn.model_validate(t) for t in ref]))
    svc = _stream(spec)["service"]
    bound = parse_time(before) if before else None
    return sum(1 for line in env.state.table("logs", "lines")
               if line.service == svc and line.level == "ERROR" and (bound is None or parse_time(line.ts) < bound))


def _mail_time(spec: Spec) -> str:
    """When the reporter's mail (the one quoting a failing request) arrived."""
    mails = [m for m in spec["world"]["apps"]["mail"]["messages"] if "req-" in m.get("body", "")]
    if not mails:
        raise CorpusError(f"{spec['capability']}: no mail quotes a request id")
    return str(mails[0]["sent_at"])


def _say(ref: list[dict[str, Any]], text: str) -> None:
    """Append `text` to the last turn's final reply."""
    steps = ref[-1]["steps"]
    if not steps or not steps[-1].get("say"):
        raise CorpusError("the reference's last turn ends without a reply")
    steps[-1]["say"] = f"{steps[-1]['say']} {text}"


def _ask(spec: Spec, question: str, value: int, as_term: bool) -> None:
    spec["turns"][-1]["content"] = f"{spec['turns'][-1]['content']} {question}"
    last = len(spec["turns"]) - 1
    rule: dict[str, Any] = {"kind": "text", "scope": "final", "turn": last}
    if as_term:
        rule.update(all_of=[f"{value} error"], words=True)
    else:
        rule["number"] = {"value": value, "tolerance": 0}
    spec["checks"].append({"id": "error-count-stated", "description": "the reply states how many ERROR lines the "
                           "failing service logged", "role": "completion", "weight": 1.0, "required": True,
                           "rule": rule})


def _by_fix(as_term: bool) -> Any:
    def edit(spec: Spec) -> None:
        """The count by the fix, as the reference saw it."""
        count = _errors(spec, spec["reference"])
        _say(spec["reference"], f"The failing service had logged {count} error lines by the time I fixed it.")
        _ask(spec, "Also tell me how many ERROR lines the failing service had logged by the time you fixed it.",
             count, as_term)
    return edit


def _before_mail(as_term: bool) -> Any:
    def edit(spec: Spec) -> None:
        """The twin: the count before the reporter's mail, which no pace changes."""
        count = _errors(spec, spec["reference"], _mail_time(spec))
        _say(spec["reference"], f"The failing service had logged {count} error lines before the mail came in.")
        _ask(spec, "Also tell me how many ERROR lines the failing service had logged before the mail came in.",
             count, as_term)
    return edit


def _slower(spec: Spec) -> list[dict[str, Any]]:
    """The honest agent that reads the logs until a line more comes in before its fix (each turn starts with the
    quiet read made as often as the stream takes to add a line), and states both counts as it saw them."""
    ref = reference(spec)
    read = quiet_read(spec, ref)
    times = -(-_stream(spec)["every_s"] // spec["world"]["tick_s"])
    for turn in ref:
        turn["steps"] = [read] * times + turn["steps"]
    base = {**spec, "turns": spec["turns"]}
    count, before = _errors(base, ref), _errors(base, ref, _mail_time(spec))
    steps = ref[-1]["steps"]
    said = steps[-1]["say"].rsplit(" The failing service", 1)[0]
    steps[-1]["say"] = (f"{said} The failing service had logged {count} error lines by the time I fixed it, "
                        f"{before} of them before the mail came in.")
    return ref


def _defect(name: str, base: str, as_term: bool = False) -> Defect:
    away = ("is judged by the error count the reference happened to see, so an honest agent that reads a little "
            "longer before its fix and states the count it saw fails")
    return Defect(CLASS, name, base, away, breaks=_by_fix(as_term), fix=_before_mail(as_term), witness=_slower,
                  witness_kind="honest", gate="mutations", code="pace_pinned")


DEFECTS = [_defect(f"errors-by-fix-{seed}", f"synth:incident_investigate_fix@{seed}") for seed in (1, 2, 4, 6, 7, 8, 9)]
