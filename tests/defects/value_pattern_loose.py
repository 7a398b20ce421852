"""A written value checked by a pattern that admits other values: an `equals` on an id, a version or a phone number
the agent writes loosened to a pattern anchored at one end only (`in_reply_to matches ^msg-391`, `deployed_version
matches ^1\\.5\\.0`, `in_reply_to matches msg-391$`) or with a class over a digit (`phone matches
^\\+31 650 750 65[0-9]$`), where the tool stores the other value as written: a draft replying to `msg-3910` or
`re-msg-391` (the mail tool keeps a draft's unknown reply-to, unthreaded), release `1.5.0-rc1` deployed for `1.5.0`,
the contact's number with its last digit wrong. The near misses moved these values a step (a number group one off, an
id to another record the world holds) or changed their case, and the patterns admit none of those steps: they admit
what no near miss wrote (defects73's hunt left the anchored ids and version: `rx_half_anchor` on draft_only_reply 1-5
and refuse_forbidden_action 1).

The sound twins pin the value whole (`^...$`, every character written), or are the shipped check (`equals`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, base_spec
from tests.defects.loose_value_admitted import _written

CLASS = "value_pattern_loose"
DETECTION = (
    "for each written value a `matches` condition of a check reads, try the values the pattern admits near it (each "
    "character replaced by another the pattern admits there, a character more at an end it leaves open, one less), "
    "kept where they are another value of its kind (another instant, another number, another string): a near miss "
    "that still passes means the pattern admits a value the task does not want"
)
GATE = "mutations"


def _conditions(spec: Spec, app: str, field: str) -> list[dict[str, Any]]:
    """Every `equals` condition on `field` of a records check of `app`, and every field check on it (edit targets)."""
    out: list[dict[str, Any]] = []
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "records" and rule["app"] == app:
            out += [w for w in rule["where"] if w["field"] == field and w.get("op", "equals") == "equals"]
        elif rule["kind"] == "field" and rule["target"]["app"] == app and rule["target"]["field"] == field \
                and rule.get("op", "equals") == "equals":
            out.append(rule)
    if not out:
        raise CorpusError(f"{spec['capability']}: no exact check on {app}.{field}")
    return out


def start_only(value: str) -> str:
    return "^" + re.escape(value)


def end_only(value: str) -> str:
    return re.escape(value) + "$"


def whole(value: str) -> str:
    return "^" + re.escape(value) + "$"


def last_digit_class(value: str) -> str:
    """The value pinned whole but its last digit, read by `[0-9]`."""
    i = max(k for k, ch in enumerate(value) if ch.isdigit())
    return "^" + re.escape(value[:i]) + "[0-9]" + re.escape(value[i + 1:]) + "$"


def _read(app: str, field: str, how: Callable[[str], str]) -> Callable[[Spec], None]:
    def edit(spec: Spec) -> None:
        for cond in _conditions(spec, app, field):
            cond["op"], cond["value"] = "matches", how(str(cond["value"]))
    return edit


def _last_digit_on(value: str) -> str:
    i = max(k for k, ch in enumerate(value) if ch.isdigit())
    return value[:i] + str((int(value[i]) + 1) % 10) + value[i + 1:]


def _defect(name: str, base: str, away: str, app: str, field: str, how: Callable[[str], str], tool: str, arg: str,
            change: Callable[[str], str], code: str, twin: Callable[[str], str] | None = whole) -> Defect:
    base_spec(base)
    return Defect(CLASS, name, base, away, breaks=_read(app, field, how),
                  fix=_read(app, field, twin) if twin is not None else None,
                  witness=_written(tool, arg, change), gate=GATE, code=code)


def _draft(seed: int, how: Callable[[str], str], change: Callable[[str], str], shown: str) -> Defect:
    return _defect(f"draft-reply-{how.__name__.replace('_', '-')}-{seed}", f"synth:draft_only_reply@{seed}",
                   f"saves the draft replying to {shown} (the check reads the reply-to by "
                   f"{'its start' if how is start_only else 'its end'} only; the draft is kept, unthreaded)",
                   "mail", "in_reply_to", how, "mail_save_draft", "in_reply_to", change, "loose_value_accepted")


def _versions(how: Callable[[str], str]) -> Callable[[Spec], None]:
    """The deployed version's checks read by `how`: the field check, and each call matcher of `services_deploy`
    pinning the version among its `args` (as a `where` condition on it instead)."""
    field = _read("services", "deployed_version", how)

    def edit(spec: Spec) -> None:
        field(spec)
        for c in spec["checks"]:
            rule = c["rule"]
            for m in [rule.get("call"), rule.get("first"), rule.get("then")]:
                if isinstance(m, dict) and m.get("tool") == "services_deploy" and "version" in m.get("args", {}):
                    version = m["args"].pop("version")
                    m.setdefault("where", []).append({"field": "version", "op": "matches", "value": how(version)})
    return edit


def _release(base: str) -> Defect:
    return Defect(CLASS, f"release-start-only-{base.rsplit(':', 1)[-1].replace('@', '-')}", base,
                  "deploys a release candidate of the version asked for (`1.5.0-rc1` for `1.5.0`): the deployed "
                  "version is checked by its start only", breaks=_versions(start_only), fix=_versions(whole),
                  witness=_written("services_deploy", "version", lambda v: v + "-rc1"), gate=GATE,
                  code="loose_value_accepted")


def _phone(seed: int) -> Defect:
    """The twin is the shipped check (`equals`): the number is also a fact of the confirming mail, whose near misses
    read the checks' values as written."""
    return _defect(f"phone-last-digit-{seed}", f"synth:contact_phone_update@{seed}",
                   "saves the contact's new number with its last digit wrong (the check reads that digit by a class)",
                   "contacts", "phone", last_digit_class, "contacts_update", "phone", _last_digit_on,
                   "loose_value_accepted", twin=None)


DEFECTS = [
    _draft(1, start_only, lambda v: v + "0", "a longer id (`msg-3910` for `msg-391`)"),
    _draft(2, start_only, lambda v: v + "x", "an id no message has (`msg-391x`)"),
    _draft(3, start_only, lambda v: v + "0", "a longer id"),
    _draft(4, end_only, lambda v: "re-" + v, "an id no message has (`re-msg-391`)"),
    _draft(5, end_only, lambda v: "x" + v, "an id ending the same (`xmsg-391`)"),
    # Of the other generators deploying a release (incident_investigate_fix 3 and 6, adapt_silent_change 1-3 and 5),
    # none has the hole: the service stays unhealthy on a version the world does not know.
    _release("synth:refuse_forbidden_action@1"),
    _phone(1),
    _phone(2),
    _phone(3),
]
