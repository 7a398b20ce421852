"""What a repair LLM should do about each gate error code (the `hint` of a GateError)."""

from __future__ import annotations

HINTS: dict[str, str] = {
    "sandbox_isolation_missing": "nothing to change in the spec: run validation on a host where the sandbox's "
                                 "kernel layers take effect (see coworkenv.sandbox.isolation_report())",
    # schema / references / exposed tools
    "invalid_json": "return exactly one JSON object",
    "missing_field": "add the missing field",
    "unknown_field": "use a field the schema (or the referenced table) has, spelled as it spells it",
    "guard_value_unreal": "name the record as the world spells it (the whole id, path, flag or address); a guard on a "
                          "value no call carries never fires",
    "value_never_held": "compare with a value of the field's own type and spelling (false, not \"false\"; p1, not P1)",
    "in_text_value": "give `in` a list of the values (in [\"p1\", \"p2\"]); one value is `equals`, a piece of text "
                     "`contains`",
    "time_compared_as_text": "write a date-time bound (gte/gt/lte/lt) in the form of the values it meets: "
                             "YYYY-MM-DDTHH:MM:SSZ in UTC, every part two digits",
    "key_respelled": "spell a map's key as the records spell it (flags.smart_retry, not flags.smart-retry)",
    "failure_unscored": "make every required check and guard cost score when it fails (a weight, a guard penalty)",
    "harm_underpriced": "make a failed guard keep the score below passing (guard_failure zero, a larger penalty; "
                        "no role completion on frame/forbidden rules)",
    "attempt_uncounted": "let a forbidden guard count failed attempts (drop attempts: false) where it is a safety "
                         "guard or the user forbids even trying the act",
    "wrong_type": "give the field a value of the type the schema says",
    "invalid_value": "give the field a value the schema allows",
    "duplicate_id": "give every record, check and rule its own id",
    "not_an_object": "return exactly one JSON object",
    "unknown_tool": "use a tool from the catalog",
    "unknown_person": "name a person of world.apps.directory (by id)",
    "turn_count_mismatch": "give the reference one entry per user turn",
    "invalid_step": "give each reference step exactly one of call or say",
    "unknown_argument": "use the tool's own argument names",
    "invalid_record": "make the record match its table's schema",
    "invalid_time": "write times as ISO-8601, e.g. 2026-03-02T09:00:00Z",
    "unknown_app": "use an app of the catalog",
    "unknown_table": "use a table of that app",
    "unknown_service": "name a service of world.apps.services",
    "missing_record": "the id names no record: use an id that exists in the world, or one the reference creates",
    "unresolved_reference": "name something that exists in the world",
    "condition_tool_not_exposed": "wait for a tool the agent can call, or expose it",
    "tool_outside_catalog": "expose only workplace app tools",
    "reference_tool_not_exposed": "add the tool to `tools` or change the reference step",
    "check_tool_not_exposed": "match a tool the agent can call, or expose it",
    "invalid_reference_arguments": "fix the reference call's arguments to match the tool's schema",
    # isolation
    "verifier_in_world": "remove the check's text from world records; the agent must not read the verifier",
    "verifier_in_prompt": "remove the check's text from the prompt and user turns",
    "reference_in_world": "remove the answer (or the reference calls) from world records, also paraphrased",
    "reference_in_prompt": "remove the answer from the prompt and user turns",
    "answer_in_world": "a world record spells out the expected answer; remove it or make the agent derive it",
    "check_id_in_prompt": "rename the check or reword the prompt",
    # oracle / turns / sandbox
    "oracle_check_failed": "make the reference satisfy the check, or fix the check's expected value",
    "oracle_partial_credit": "make the reference do all the check wants, or fix the part of the check it misses",
    "reference_call_failed": "fix the reference call so it succeeds",
    "oracle_truncated": "shorten the reference",
    "nondeterministic": "remove randomness and real-clock reads from the world, dynamics and checks",
    "turn_not_reached": "make the reference meet the follow-up's condition, or change the condition",
    "python_crash": "make the Python check handle every state and reply shape (missing keys, other wording) "
                    "without raising; prefer a declarative check",
    "nondeterministic_check": "the check's verdict changes between identical runs or machines: remove "
                              "random/time/uuid use, a set's order (sort it), and reads of the machine (platform, "
                              "sys.version); do NOT change the expected value",
    "clock_dependent": "read time from state['clock'], never the machine clock; do NOT change the expected value",
    "probe_aware": "use time, datetime and random only by calling them (better: read time from state['clock']); never "
                   "inspect their functions or classes (type, __code__, __mro__, inspect), nor read a file's times",
    "paraphrase_fails": "judge the reply's facts, not its exact wording; prefer a reply_states check",
    "keyword_backdoor": "remove the branch that passes on a word in the reply; judge the state",
    "order_unasked": "drop the order check (or the Python audit-order test), or say the order in the user's turn "
                     "('first ..., then ...') if it matters",
    "order_pinned_by_rule": "let no dynamics rule set off by one of the task's writes undo another write the task "
                            "asks for (give the rule a `when` that holds only before that fix, or drop it), or say "
                            "the order in the user's turn if the live system needs it",
    "created_id_pinned": "find the new record by what the task fixes (a records check on its list, title, item "
                         "or channel), not by the id the reference's run gave it",
    "spelling_pinned": "match the person or channel in every form the tool accepts (a `where` condition with op "
                       "`in` over its id, email, handle / channel id and #name), not the reference's spelling",
    "audit_fragile": "judge the final state, or the calls that matter (a write happened), not the exact call list",
    "record_order_dependent": "find records by their fields (an id, a sender, the newest by its timestamp), not "
                              "by their position in a table",
    "cost_near_limit": "make the check cheap (look the records up, compare values; no brute force, key "
                       "derivation, large loops or sleeping): it must finish far inside the sandbox's limits",
    "argument_order_dependent": "compare a list a call passes (recipients, attendees, ids) as a set "
                                "(`set(...)`, `sorted(...)`), not in the order the reference happened to list it",
    "guard_bypassed": "forbid the harm on every route the tools offer (a second guard on `cc`, on the other "
                      "tool), or guard the state (a records or frame check) instead of one call",
    "wrong_route": "check the state the right route leaves (the record still exists, with the value the task "
                   "asks for), not only that the old state is gone",
    "created_instead": "find the task's record by its id (a field check, or a records check naming the id), not "
                       "by what it holds: a new record made to hold the same passes a check by content",
    # noop / mutations / reads_state
    "noop_passes": "add checks on the state the task must change",
    "noop_partial_score": "the do-nothing agent earns too much partial credit: weight the checks on what the "
                          "task changes, or declare preservation checks as guards",
    "initial_partial_check": "score only what the task changes: a tier, counted record or sub-score that holds "
                             "before the agent acts is credit for nothing",
    "initial_partial_score": "the initial state already earns too much credit: check what the task changes",
    "initial_state_passes": "the task asks for nothing the checks notice: check the state it must change",
    "presolved": "the world already satisfies every state check; only process checks (calls) keep noop failing: "
                 "make the initial state need the task's change",
    "solved_by_world": "check what the agent must change after the world's own change (the record it must "
                       "update or create), not a state the announced or silent change or the clock brings about",
    "mutant_survived": "add or tighten a check that fails on this mistake (pin the exact value, every list item, "
                       "the text's facts)",
    "duplicate_unchecked": "pin how many records the task creates (records count equals 1), so a second one fails",
    "made_wrong_first": "count every new record of the table the request asks one of exactly (a total by when it "
                        "was made, beside the checks on its values), and allow it in the frame by its values, not by "
                        "the id the reference's run gave it: a wrong record made before the right one stays",
    "frame_created_id": "allow the new record in the frame by its values (the conditions the task fixes), not by the "
                        "id the reference's run gave it (a wrong record made first takes that id), or count every new "
                        "record of the table exactly",
    "frame_scope_open": "name the records the frame allows (the made record by the values the task fixes), not only "
                        "those it leaves out: a selector of `id not_equals` conditions alone admits every record the "
                        "agent makes, a wrong one beside the right one included; or count the table's new records "
                        "exactly",
    "sent_wrong_first": "count the message the request asks one of exactly by whom it reaches (its channel or "
                        "recipient and sender), not by what it says: a wrong message sent before the right one stays "
                        "sent, and a count holding the right words misses it",
    "order_unchecked": "add an order check: the dependent write must come after the write it depends on",
    "harm_unguarded": "add a frame check allowing only the records the task changes, or a forbidden check on the "
                      "harmful call",
    "harm_erased_by_world": "forbid the harmful call itself (a forbidden check on the tool for the keys the task "
                            "does not touch): a later change of the world rewrites the field, so its final state "
                            "cannot show the harm",
    "sibling_unchecked": "check every item of a list the task asks for (each ticket, each row), not only some",
    "asked_unchecked": "check the fact the request asks for (the service, the value, the last runs, what the agent "
                       "wrote: the units moved, the new time), not only the answer's other facts",
    "guarded_write_unchecked": "check what the write changes on its record (the assignee), not another field or a "
                               "count of another tool's calls",
    "content_unchecked": "check the text's content (its facts, rows or lines), not only that it exists",
    "guard_never_fires": "the guard protects nothing: point it at a record/call that exists and can be harmed",
    "made_edit_unchecked": "check the made record's field in the world (a records check on its table), not only the "
                           "call that made it: an edit right after it passes",
    "guard_misses_value": "check the value the record must keep (field equals its value, or a count of 0 where "
                          "field not_equals it), not one wrong value: every other change of the field passes",
    "like_write_unchecked": "the reference makes the same write on several records and checks only some: check "
                            "what it changes on each",
    "incidental_write": "the reference write is not needed by any check; it was dropped from the reference",
    "asked_message_unchecked": "check what the message the request asks for says (a records check on its text), "
                               "not only that the agent read the conversation",
    "reply_only_checks": "add a field, records, called or order check on the world",
    "vacuous_check": "the check can never fail; compare with a value the wrong state does not have",
    "unexercised_check": "no mistake makes this check fail: tighten it, or declare it a guard if it preserves state",
    "unfalsifiable_frame": "narrow the frame's allow-list to what the task changes",
    "wording_pinned": "check the facts a free-text field must state (contains/matches), not the reference's wording",
    "reads_later_state": "judge a turn's reply against the value of its own turn (a literal), or bind the reply "
                         "check to a turn after the world's change",
    "case_pinned": "compare what the agent writes case-insensitively (`matches` with `(?i)`), or want the value "
                   "as the user spelled it",
    "format_pinned": "accept a date, time, duration, amount, number or phone number in the format the user (or the "
                     "source) wrote it as well as the reference's (a term of alternatives, or `matches` on either "
                     "format)",
    "undone_unchecked": "check the record's field in the final state (a `field` or `records` check), not the call "
                        "that set it nor a record it leaves behind (a config version, a movement)",
    "list_order_pinned": "want each listed record on its own (a term or a `contains` each), not one pattern in the "
                         "reference's order, unless the task asks for an order",
    "blocked": "fix the reference first (see gate oracle)",
    "env_error": "fix the world records or dynamics the runtime rejects",
    "episode_error": "fix the dynamics or records that make the episode crash",
    "internal_error": "report this: a gate crashed",
}


def hint_for(code: str) -> str:
    """The repair hint of an error code ('' when there is none)."""
    if code in HINTS:
        return HINTS[code]
    if code.startswith("sandbox_"):
        return "keep the Python check inside the sandbox limits (time, memory, no I/O, no network)"
    return ""
