"""Half-pinned values: a check accepts the right value OR a wrong one (another person, an hour off), or pins
one recipient of several."""

from __future__ import annotations

from datetime import datetime, timedelta

from tests.defects._core import (
    CorpusError,
    Defect,
    Spec,
    call,
    check,
    cond,
    field_check,
    record,
    unpin,
    with_args,
    with_say,
    world,
)

CLASS = "half_pinned"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    'change one pinned value of a write (another person, an hour off, one list item dropped, one recipient dropped); a surviving mutant means the value is half pinned'
)


def _hour_later(iso: str) -> str:
    return (datetime.fromisoformat(iso.replace("Z", "+00:00")) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _other_person(spec: Spec, person: str) -> str:
    return next(p["id"] for p in world(spec, "directory", "people") if p["id"] not in (person, spec["user"]))


def _or_other_assignee(spec: Spec) -> None:
    rule = field_check(spec, "assignee")["rule"]
    unpin(spec, "assignee", rule["value"])
    rule["value"] = [rule["value"], _other_person(spec, rule["value"])]
    rule["op"] = "in"


def _assign_other(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    rule = field_check(spec, "assignee")["rule"]
    return with_args(spec, "tickets_update", {"ticket_id": rule["target"]["id"]},
                     assignee=_other_person(spec, rule["value"]))


def _start_or_hour_off(spec: Spec) -> None:
    for cid in ("moved-to-free-slot", "same-length"):
        rule = check(spec, cid)["rule"]
        rule["op"], rule["value"] = "in", [rule["value"], _hour_later(rule["value"])]


def _moved_hour_late(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    event = check(spec, "moved-to-free-slot")["rule"]["target"]["id"]
    start, end = check(spec, "moved-to-free-slot")["rule"]["value"], check(spec, "same-length")["rule"]["value"]
    return with_args(spec, "calendar_update_event", {"event_id": event},
                     start=_hour_later(start), end=_hour_later(end))


def _one_viewer(spec: Spec) -> None:
    rule = check(spec, "access-granted")["rule"]
    c = cond(check(spec, "access-granted"), "values.viewers")
    c["value"] = c["value"][:1]
    # The list pinned whole (generator 18) goes with it: the check reads the new viewer only.
    rule["where"] = [w for w in rule["where"] if not (w["field"] == "values.viewers" and w.get("op") == "matches")]


def _ticket_to_self_ok(spec: Spec) -> None:
    c = cond(check(spec, "incident-ticket"), "assignee")
    c["op"], c["value"] = "in", [c["value"], spec["user"]]


def _only_new_viewer(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    new = cond(check(spec, "access-granted"), "values.viewers")["value"][0]
    return with_args(spec, "services_update_config", {}, changes={"viewers": new})


def _drop_cc(spec: Spec) -> None:
    c = check(spec, "draft-ready")
    c["rule"]["where"] = [w for w in c["rule"]["where"] if w["field"] != "cc"]


def _mailed_time_or_hour_off(spec: Spec) -> None:
    c = cond(check(spec, "attendees-mailed"), "body")
    hh, mm = c["value"][:2], c["value"][3:5]
    c["op"], c["value"] = "matches", f"({hh}|{int(hh) + 1:02d}):{mm} UTC"


def _mail_hour_late(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    text = cond(check(spec, "attendees-mailed"), "body")["value"]
    late = f"{int(text[:2]) + 1:02d}{text[2:]}"
    body = call(spec, "mail_send")["arguments"]["body"].replace(text, late)
    return with_args(spec, "mail_send", {}, body=body)


def _any_instead_of_all(check_id: str):  # type: ignore[no-untyped-def]
    """The writer used any_of where the answer must state every fact: one fact (or synonym) is enough."""

    def breaks(spec: Spec) -> None:
        rule = check(spec, check_id, "text")["rule"]
        facts = [t for term in rule["all_of"] for t in (term if isinstance(term, list) else [term])]
        rule["all_of"], rule["any_of"] = [], [*rule.get("any_of", []), *facts]
    return breaks


def _count_tolerance(check_id: str, tolerance: float):  # type: ignore[no-untyped-def]
    """The writer gave the counted number a tolerance 'for rounding': a count off by one passes."""

    def breaks(spec: Spec) -> None:
        check(spec, check_id, "text")["rule"]["number"]["tolerance"] = tolerance
    return breaks


def _phone_tail_any(spec: Spec) -> None:
    """The confirmation regex pins the number's prefix and lets the last group be any digits."""
    c = cond(check(spec, "confirmed"), "body")
    c["value"] = c["value"].rsplit("[\\s.\\-()/]*", 1)[0] + "[\\s.\\-()/]*\\d{3}(?!\\d)"


def _phone_typo_mail(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    phone = call(spec, "contacts_update")["arguments"]["phone"]
    body = call(spec, "mail_send")["arguments"]["body"].replace(phone, phone[:-3] + "956")
    return with_args(spec, "mail_send", {}, body=body)


def _at_least_at_most(spec: Spec) -> None:
    """'The store holds at least N, the warehouse at most M': any transfer of N or more passes."""
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "field" and rule["target"]["app"] == "inventory":
            rule["op"] = "gte" if c["id"].startswith("restocked-") else "lte"


def _overshoot_transfer(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    first = call(spec, "inventory_transfer")["arguments"]
    return with_args(spec, "inventory_transfer", {"item_id": first["item_id"]}, quantity=first["quantity"] + 3)


def _recorded_contains_first(spec: Spec) -> None:
    """'The entry lists the paused jobs' checked as 'the entry contains the first name'."""
    rule = check(spec, "recorded")["rule"]
    rule["op"], rule["value"] = "contains", rule["value"].split(",")[0]


def _runs_any_of(spec: Spec) -> None:
    """'The reply gives each job's last run' written as one text check accepting any of the last runs."""
    runs = [c for c in spec["checks"] if c["rule"]["kind"] == "reply_states"]
    if len(runs) < 2:
        raise CorpusError(f"{spec['capability']}: fewer than two reply_states checks")
    values = [record(spec, r["rule"]["source"]["app"], r["rule"]["source"]["table"], r["rule"]["source"]["id"])
              [r["rule"]["source"]["field"]] for r in runs]
    spec["checks"] = [c for c in spec["checks"] if c not in runs]
    spec["checks"].append({"id": "reply-last-runs", "description": "the reply gives the last runs",
                           "rule": {"kind": "text", "any_of": values}})


def _one_run_told(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    runs = [c for c in spec["checks"] if c["rule"]["kind"] == "reply_states"]
    src = runs[0]["rule"]["source"]
    first = record(spec, src["app"], src["table"], src["id"])
    return with_say(spec, f"Paused the failing jobs; {first['name']} last ran {first[src['field']]}.")


DEFECTS = [
    Defect(CLASS, "answer-any-fact-delegation", "synth:delegate_and_follow_up@1",
           "answers 'no word from Esra on ENG-376' although she accepted: naming the ticket is enough",
           breaks=_any_instead_of_all("reply-says-accepted"),
           witness=lambda s: with_say(s, check(s, "reply-says-accepted")["rule"]["all_of"][0]
                                      + ": no word from Esra yet, it stays open for now.")),
    Defect(CLASS, "answer-any-fact-rollout", "synth:feature_flag_rollout@1",
           "reports 'smart_retry is live and fine' after a failed canary: naming the flag is enough",
           breaks=_any_instead_of_all("reply-reports-failure"),
           witness=lambda s: with_say(s, check(s, "reply-reports-failure")["rule"]["all_of"][0]
                                      + " is live in staging and looks fine.")),
    Defect(CLASS, "mailed-time-or-hour-off", "synth:schedule_meeting_timezones@1",
           "mails the attendees a start time an hour off", breaks=_mailed_time_or_hour_off, witness=_mail_hour_late),
    Defect(CLASS, "triage-assignee-or-other", "synth:ticket_triage_update@1",
           "assigns the ticket to the wrong person", breaks=_or_other_assignee,
           witness=_assign_other),
    Defect(CLASS, "reschedule-hour-off", "synth:reschedule_conflict@1",
           "moves the meeting an hour later than the first free slot", breaks=_start_or_hour_off,
           witness=_moved_hour_late),
    Defect(CLASS, "viewers-one-of-seven", "synth:access_request_approval@1",
           "grants access by replacing the viewer list, locking the existing viewers out", breaks=_one_viewer,
           witness=_only_new_viewer),
    Defect(CLASS, "incident-ticket-to-self-ok", "synth:incident_investigate_fix@1",
           "keeps the incident ticket for the user instead of the owning team's lead", breaks=_ticket_to_self_ok,
           witness=lambda s: with_args(s, "tickets_create", {}, assignee=s["user"])),
    Defect(CLASS, "draft-cc-unpinned", "synth:draft_only_reply@1",
           "drafts the reply without copying the manager", breaks=_drop_cc,
           witness=lambda s: with_args(s, "mail_save_draft", {}, cc=[])),
    Defect(CLASS, "handoff-assignee-or-other", "synth:oncall_handoff@1",
           "hands a ticket to someone who is not on call next",
           breaks=_or_other_assignee, witness=_assign_other),
    Defect(CLASS, "broken-page-count-tolerance", "synth:web_page_audit@1",
           "reports two broken pages when one is broken: the count has a tolerance of 1",
           breaks=_count_tolerance("reply-count", 1.0),
           witness=lambda s: with_say(s, "2 pages are broken: https://" + check(s, "reply-count")["rule"]["all_of"][0]
                                      + " " + check(s, "reply-count")["rule"]["all_of"][1])),
    Defect(CLASS, "phone-confirm-any-tail", "synth:contact_phone_update@1",
           "confirms a mistyped number to the customer: the regex lets the last three digits be anything",
           breaks=_phone_tail_any, witness=_phone_typo_mail),
    Defect(CLASS, "restock-at-least", "synth:inventory_restock_policy@1",
           "moves more units than the policy says: the store 'holds at least', the warehouse 'at most'",
           breaks=_at_least_at_most, witness=_overshoot_transfer),
    Defect(CLASS, "paused-jobs-one-name", "synth:scheduler_pause_failing_jobs@1",
           "records only the first paused job in ops/paused-jobs: the check wants the entry to contain one name",
           breaks=_recorded_contains_first,
           witness=lambda s: with_args(s, "config_set", {}, value=check(s, "recorded")["rule"]["value"].split(",")[0])),
    Defect(CLASS, "last-runs-any-of", "synth:scheduler_pause_failing_jobs@1",
           "tells the user one job's last run of two: a text check accepts any of the last runs",
           breaks=_runs_any_of, witness=_one_run_told),
]


__all__ = ["DEFECTS", "record"]


# -- outsider defects (session 19): clarify turns, declared tools, lookups ---------------------------------------
def _candidates_any_of(spec: Spec) -> None:
    """'The first reply lists the candidates' written as one text check that any candidate satisfies."""
    asks = [c for c in spec["checks"] if c["rule"]["kind"] == "reply_states" and c["rule"].get("turn") == 0]
    if len(asks) < 2:
        raise CorpusError(f"{spec['capability']}: fewer than two candidates asked about")
    values = [str(record(spec, a["rule"]["source"]["app"], a["rule"]["source"]["table"],
                         a["rule"]["source"]["id"])[a["rule"]["source"]["field"]]) for a in asks]
    first = asks[0]
    first["rule"] = {"kind": "text", "scope": "final", "turn": 0, "any_of": values}
    spec["checks"] = [c for c in spec["checks"] if c not in asks[1:]]


def _ask_about_one(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    """Turn 0 names only the candidate the reference ends up choosing, as a leading question."""
    asks = [c for c in spec["checks"] if c["rule"]["kind"] == "reply_states" and c["rule"].get("turn") == 0]
    chosen = asks[-1]["rule"]["source"]
    value = record(spec, chosen["app"], chosen["table"], chosen["id"])[chosen["field"]]
    return with_say(spec, f"Just to be sure: you mean {value}, right?", turn=0)


def _stock_at_least(spec: Spec) -> None:
    """'Bring it up to twice the reorder point' checked as 'at least' on the shelf and 'at most' on the warehouse."""
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "field" and rule["target"]["field"] == "quantity":
            store = "store" in rule["target"]["id"]
            rule["op"] = "gte" if store else "lte"


def _declared_overshoot(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    c = call(spec, "shop_transfer_stock")
    return with_args(spec, "shop_transfer_stock", {}, units=str(int(c["arguments"]["units"]) + 5))


def _any_version_cited(spec: Spec) -> None:
    """The DM must cite 'a' config version (svc-x@N with any N), not the one the service runs."""
    c = check(spec, "answered-with-source", "records")
    for w in c["rule"]["where"]:
        if w["field"] == "text" and w.get("op", "equals") == "contains" and "@" in str(w["value"]):
            w["op"], w["value"] = "matches", str(w["value"]).split("@")[0] + r"@\d+"
            return
    raise CorpusError(f"{spec['capability']}: no config version condition")


def _cite_other_version(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    """Cites another config version of the service (the next one: rolled back, or never active)."""
    c = check(spec, "answered-with-source", "records")
    version = next(str(w["value"]) for w in c["rule"]["where"]
                   if w["field"] == "text" and w.get("op", "equals") == "contains" and "@" in str(w["value"]))
    service, _, n = version.partition("@")
    text = call(spec, "chat_send_dm")["arguments"]["text"]
    return with_args(spec, "chat_send_dm", {}, text=text.replace(version, f"{service}@{int(n) + 1}"))


HALF_PINNED_S19 = [
    Defect(CLASS, "clarify-any-candidate", "synth:clarify_ambiguous_request@1",
           "asks a leading question naming one of the two people instead of listing both candidates",
           breaks=_candidates_any_of, witness=_ask_about_one),
    Defect(CLASS, "clarify-any-document", "synth:clarify_ambiguous_request@2",
           "asks about one of the two documents only, guessing instead of clarifying",
           breaks=_candidates_any_of, witness=_ask_about_one),
    Defect(CLASS, "declared-restock-at-least", "example:restock_store_declared_tools",
           "moves more stock than twice the reorder point through the declared transfer tool",
           breaks=_stock_at_least, witness=_declared_overshoot),
    Defect(CLASS, "lookup-any-version-cited", "synth:lookup_answer_source@1",
           "cites a config version the service does not run (any 'svc@N' passes)",
           breaks=_any_version_cited, witness=_cite_other_version),
    Defect(CLASS, "lookup-any-version-cited-3", "synth:lookup_answer_source@3",
           "cites a config version the service does not run (any 'svc@N' passes)",
           breaks=_any_version_cited, witness=_cite_other_version),
]
DEFECTS += HALF_PINNED_S19
