"""The verifier: declarative predicates over final state, audit log and the agent's text, composed into a score.

Public API re-exported here; implementation in `primitives` (fields, comparisons, calls, records), `text`
(normalisation, terms, numbers), `results` (results and score composition) and `verifier`.
"""

from coworkenv.checks.primitives import (
    MISSING,
    arg_matches,
    call_matches,
    compare,
    count_records,
    field_value,
    holds,
    record_matches,
    render_value,
    resolve,
    selector_allows,
    state_holds,
    states_value,
)
from coworkenv.checks.results import AuditEntry, CheckResult, Note, Reply, VerifierResult, compose
from coworkenv.checks.text import Transcript, normalize, numbers_in, states_number
from coworkenv.checks.verifier import Verifier, python_outcome

__all__ = [
    "MISSING", "AuditEntry", "CheckResult", "Note", "Reply", "Transcript", "Verifier", "VerifierResult", "arg_matches",
    "call_matches", "compare", "compose", "count_records", "field_value", "holds", "normalize", "numbers_in",
    "python_outcome", "record_matches", "render_value", "resolve", "selector_allows", "state_holds", "states_number",
    "states_value",
]
