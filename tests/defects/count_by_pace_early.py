"""Count by pace, told in an earlier turn: `count_by_pace` with a second turn after the count (the user then asks
which service it was). The count the agent tells in its first answer is checked (`turn: 0`) against the number the
reference's run saw; an honest agent that reads a little longer before its fix sees one line more and, saying so,
fails. The replay of defects84 read only the last turn's replies, against the final worlds, so a count told before
the last turn was never restated at the slower pace.

The sound twins ask for the count before the reporter's mail, which no pace changes.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, reference
from tests.defects.count_by_pace import _before_mail, _by_fix, _errors, _mail_time, _stream
from tests.defects.solved_by_clock import quiet_read

CLASS = "count_by_pace_early"
DETECTION = (
    "replay the reference at a slower pace and read the numbers each turn's replies state against the world as it "
    "was when that turn ended (the final world for the last turn): a count of records the live world adds at its own "
    "pace, stated as the slower world's count then, fails a check the reference passes: the answer is pinned to the "
    "reference's pace"
)


def _then_service(edit: Any) -> Any:
    """`edit` (the count asked and told in the first turn), then a second turn asking which service failed."""
    def then(spec: Spec) -> None:
        edit(spec)
        service = check(spec, kind="reply_states")["rule"]["source"]
        spec["turns"].append({"content": "Thanks. Which service was it again?", "condition": {"kind": "after_reply"},
                              "changes": [], "announce": None, "advance_s": 0})
        spec["reference"].append({"steps": [{"call": None, "say": f"It was {service['id']}."}]})
        spec["checks"].append({"id": "reply-service-again", "description": "the second answer names the service",
                               "role": "completion", "weight": 1.0, "required": True,
                               "rule": {"kind": "reply_states", "source": dict(service), "turn": 1}})
    return then


def _slower(spec: Spec) -> list[dict[str, Any]]:
    """The honest agent that reads the logs until a line more comes in before its fix and states, in its first
    answer, both counts as it saw them."""
    ref = reference(spec)
    read = quiet_read(spec, ref)
    times = -(-_stream(spec)["every_s"] // spec["world"]["tick_s"])
    ref[0]["steps"] = [read] * times + ref[0]["steps"]
    count, before = _errors(spec, ref), _errors(spec, ref, _mail_time(spec))
    steps = ref[0]["steps"]
    if not steps[-1].get("say"):
        raise CorpusError(f"{spec['capability']}: the first turn ends without a reply")
    said = steps[-1]["say"].rsplit(" The failing service", 1)[0]
    steps[-1]["say"] = (f"{said} The failing service had logged {count} error lines by the time I fixed it, "
                        f"{before} of them before the mail came in.")
    return ref


def _defect(name: str, base: str) -> Defect:
    away = ("is judged by the error count the reference happened to see in its first answer, so an honest agent that "
            "reads a little longer before its fix and states the count it saw fails")
    return Defect(CLASS, name, base, away, breaks=_then_service(_by_fix(False)), fix=_then_service(_before_mail(False)),
                  witness=_slower, witness_kind="honest", gate="mutations", code="pace_pinned")


DEFECTS = [_defect(f"errors-by-fix-then-service-{seed}", f"synth:incident_investigate_fix@{seed}")
           for seed in (1, 2, 4, 6, 7)]
