"""The asked fact's reply check moved to a sibling: the user asks "tell me which failing request you traced", "tell me
when each one last ran", "tell me which service caused it", and the `reply_states` check reads another field of the
same record (the log line's service, the job's name) or the same field of a sibling record (the traced log line's
request id for the service) that the answer states too, while no other check reads the asked fact. The answer with
the asked fact wrong passes. Written declaratively: the asked-fact probes were made for Python graders only, and a
check pinned to a real field's value reads a fact no near miss of the answer touched.
"""

from __future__ import annotations

import re
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check
from tests.defects.written_fact_unread import _answer, _restated

CLASS = "asked_sibling_read"
DETECTION = (
    "near miss per asked fact, whatever kind of check reads the answer: leave out each fact of it that the request "
    "asks for (its asking sentence names the field holding it, or the table of the record it is the id of); if no "
    "answer fails a check but that answer passes every one, the checks read a sibling of the asked fact"
)
GATE, CODE = "mutations", "asked_unchecked"


def _reply_states(spec: Spec, field: str) -> list[dict[str, Any]]:
    found = [c for c in spec["checks"] if c["rule"]["kind"] == "reply_states" and c["rule"]["source"]["field"] == field]
    if not found:
        raise CorpusError(f"{spec['capability']}: no reply check reads {field}")
    return found


# -- incident_rollback ("Tell me which failing request you traced"): the log line's service, the text check without
# the request id.
def _traced_service(spec: Spec) -> None:
    source = _reply_states(spec, "request_id")[0]["rule"]["source"]
    asked = next(r["request_id"] for r in spec["world"]["apps"]["logs"]["lines"] if r["id"] == source["id"])
    source["field"] = "service"
    rule = check(spec, kind="text", where=lambda c: asked in c["rule"]["all_of"])["rule"]
    rule["all_of"] = [t for t in rule["all_of"] if t != asked]


# -- scheduler_pause_failing_jobs ("Tell me when each one last ran"): each job's name.
def _job_names(spec: Spec) -> None:
    for c in _reply_states(spec, "last_run"):
        c["rule"]["source"]["field"] = "name"


# -- incident_investigate_fix ("Tell me which service caused it"): the request id of the log line the answer traces.
def _traced_line(spec: Spec) -> None:
    said = _answer(spec)
    line = next((r for r in spec["world"]["apps"]["logs"]["lines"] if r.get("request_id") and r["request_id"] in said),
                None)
    if line is None:
        raise CorpusError(f"{spec['capability']}: the answer names no logged request")
    _reply_states(spec, "id")[0]["rule"]["source"] = {"app": "logs", "table": "lines", "id": line["id"],
                                                      "field": "request_id"}


def _other_service(spec: Spec) -> list[dict[str, Any]]:
    """Witness: the answer names another service as the cause."""
    cause = _reply_states(spec, "id")[0]["rule"]["source"]["id"]
    other = next(s["id"] for s in spec["world"]["apps"]["services"]["services"] if s["id"] != cause)
    return _restated(re.escape(cause), other)(spec)


def _defect(name: str, base: str, what: str, breaks: Any, witness: Any) -> Defect:
    return Defect(CLASS, name, base, what, breaks=breaks, witness=witness, gate=GATE, code=CODE)


DEFECTS = [
    _defect("traced-request-as-service", "example:incident_rollback",
            "names another request as the one traced (the reply check reads the log line's service)", _traced_service,
            _restated(r"req-7f3a91", "req-0c41d2")),
    *(_defect(f"last-run-as-name-{seed}", f"synth:scheduler_pause_failing_jobs@{seed}",
              "gives the paused jobs' last runs wrong (the reply checks read the jobs' names)", _job_names,
              _restated(r"last run [0-9T:Z-]+", "last run yesterday"))
      for seed in (1, 2, 4)),
    *(_defect(f"cause-as-traced-request-{seed}", f"synth:incident_investigate_fix@{seed}",
              "names another service as the cause (the reply check reads the traced request's id)", _traced_line,
              _other_service)
      for seed in (1, 2, 3)),
]
