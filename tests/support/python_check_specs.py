"""The shipped meeting_reschedule example (user at +02:00, stored times UTC) with one Python guard written by hand:
the specs the static readers of Python checks' date-times are tried on (`_python_times`, `_python_utc_reads`)."""

from __future__ import annotations

from typing import Any

from coworkenv.examples import load_example
from coworkenv.loading import parse_spec

EVENTS = "for r in state['apps']['calendar']['events']:\n"
CALLS = "for e in audit:\n    a = e['args']\n"


def example_with_check(prelude: str, body: str, user_zone: str | None = None) -> Any:
    """The example with a guard `check(state, audit, messages)` whose body is `body` (indented here) after `prelude`;
    `user_zone`: the user's time zone set in the directory instead of the example's."""
    data = load_example("meeting_reschedule").model_dump(mode="json", by_alias=True)
    if user_zone is not None:
        for person in data["world"]["apps"]["directory"]["people"]:
            if person["id"] == data["user"]:
                person["timezone"] = user_zone
    code = prelude + "def check(state, audit, messages):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    data["checks"].append({"id": "probe", "role": "guard", "rule": {"kind": "python", "code": code}})
    return parse_spec(data)
