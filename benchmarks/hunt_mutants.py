"""The outsider's hunt over the verifier gates: mutate the checks of sound specs the way a careless author would,
judge every mutant through strict validation, and look for an episode that proves an accepted mutant unsound.

Families of mutation kinds, kept apart in the registry (`KINDS`, name -> family, rule kind, sandboxed):
- `d65` (defects65, about 40 mutations, named `<rule>.<mutation>`): operators swapped, `equals` to `gte`/`lte`/
  `contains`/`in`, regexes loosened (`\\b` dropped, `.{0,12}` to `.*`, `(?i)`, anchors dropped, a digit to `\\d`,
  alternatives cut), a condition dropped or moved to a sibling field, `all_of` to `any_of`, scope and turn widened,
  `number` tolerances, `reply_states` formats, matcher arguments dropped or cut, weights, `required`,
  `pass_score`, `pass_threshold`, roles; `python.*` edits the code of a spec's own Python check.
- `d69` (defects69, 17 kinds, bare names): `norm_loose`, `id_substring`, `or_old_value`, `num_window_wide`,
  `dt_same_day_rx`, `and_split`, `count_at_least_one`, `vacuous_implication`, `default_field`, `state_to_log`,
  `neg_word_drop`, `neg_lookaround_drop`, `neg_none_of_drop`, `turn_last_only`, `forbid_wrong_app`,
  `frame_app_wide`, and the Python kinds `py_bare_except`, `py_gated_on_call`, `py_float_tol`.
- `d73` (defects73, 16 kinds, bare names): `where_any_record` (a records check's or frame selector's `where` dropped
  whole), `cmp_flip` (gte/lte, gt/lt turned round), `rx_half_anchor` (an `equals` as a pattern anchored at its start
  only, a `^...$` pattern without its `$`), `list_any_for_all` (a list value's "all of" as its first item),
  `state_to_call_count` (a state check as a count of calls of the tool that wrote it), `time_wrong_field` (a time
  condition read from another time field of the record), `turn_minus1`, `id_nocase` (an id compared blind to case),
  `created_id_only` (a check on a created record as its literal id in the reference's run), `reply_alt_wrong` (a
  reply term or pattern that also admits the wrong answer: another record's value, a digit off),
  `num_as_substring` (a reply's number as a substring), `ne_old_value` ("not the old value" for "the new value"),
  `reply_mentions_id` (a reply check on a record's value as its id mentioned), `field_to_exists` (a field check as
  the record existing), and the Python kinds `py_keyerror_true` (a grader returning True on a failed lookup) and
  `py_str_prefix` (a grader comparing `str(value)` by its start).
- `d77` (defects77, 12 kinds, bare names): `key_nonunique` (a field or records check, or a frame selector, that
  picks the record by a field another record shares: `status == open`, `sku`, `timezone`, in place of its id),
  `field_never_written` (a condition on a misnamed field the tool never writes, negated: `state != p3`),
  `num_as_string` (a number compared as text: a digit string ordered, a number against a field holding text),
  `dt_zone_drop` (a date-time read by its wall clock, its zone dropped), `list_eq_to_contains` (a list's "is
  these" as "holds these"), `list_elem_as_text` (a list field's element matched as text over the whole list),
  `tiers_untouched` (a tier of full score the untouched world meets beside the check), `zero_to_one` ("none" as
  "at most one"), `final_to_turn0` (a final-state reply check bound to the first turn), `weight_heavy_one` (one
  completion check outweighing the rest, none required, pass threshold one half), and the Python kinds
  `py_audit_args` (a grader reading the audit's arguments, blind to case and to whether the call succeeded) and
  `py_str_num` (a number ordered as text).
- `d83` (defects83, 13 kinds, bare names): `count_for_which` (a check on records in the wanted state counted, their
  ids dropped), `absent_old_value` ("no record still holds the old value", met by any other value or by deleting the
  record), `num_direction_only` (a number's direction of change, not its amount), `sign_drop` (a negative number
  or its opposite), `dt_time_only` (a date-time by its time of day, its date dropped), `dt_bound_day_off` (a time
  window's bound one day wider), `value_of_turn` (a value the record held after an earlier turn admitted beside the
  final one), `records_any_for_all` (checks setting one field on several records as "one of them"),
  `checks_any_of` (two completion checks as tiers of full score, either enough), `conds_any_for_all` (several
  conditions on one text field, the rows of a report, as one pattern of alternatives), `reply_count_for_which` (a
  reply's count kept, the names it must state dropped), `arg_unmatched_all` (an argument left out of every completion
  matcher naming it: the flag of the try and of the roll-back), and the Python kind `py_call_result` (a grader reading the
  record as the first write call returned it in the audit: a stale snapshot, not the final state). Its witness search
  also tries a date-time a day later, a negative number's opposite, and a value changed in every call naming it
  (another key of the record's dict field among the values: another flag of the service).

- `d92` (defects92, 6 kinds, bare names): `records_id_only` (a records check keeping only its conditions on ids,
  keys and paths: the record checked by its id, its content dropped), `count_all_but_one` (an exact count of N as
  "at least N-1"), `num_unit_in` (a number as "it or the same number in another unit", `in [v, 60v, 1000v]`),
  `guard_arg_negated` (a forbidden call's boolean argument negated: the guard on the harmless polarity),
  `order_first_bare` (an order check's first matcher bare: any call of the tool first), `dt_hour_only` (a
  date-time read to its hour, `matches ^2026-11-03T09`).
- `d94` (defects94, 8 kinds, bare names; its block sits apart, after `FAMILIES`): `field_nocase` (a value whose
  capitals matter compared blind to case), `unit_either` (a number or it in another unit, x/ 100, 60, 1000),
  `set_any` (a field empty before as "not empty"), `untouched_field` (the check moved onto a field of the record
  the task never changes), `order_dropped` (an order check as its second call alone), `reply_before_change` (a
  reply's value or the value before the change), `turn_request_dropped` (every check on one turn's request of a
  multi-turn task dropped), `kept_nonzero` (a kept map setting as "not zero"). Its witness search (for every family)
  adds a call moved to the start of its turn, a number in another unit, a kept map key set beside the asked one
  (x100, x60, x1000, x2, 0), a value in lower case, and a reply stating the value as it was before the change.
- `d99` (defects99, 6 kinds, bare names; its block sits after d94's): `cc_counts_as_to` (a message's addressee read in
  `to` or, as a second tier, in `cc`), `addr_domain_only` (an address read by its domain), `dt_window_1h` (a time as
  "within the hour around it"), `id_in_similar` (an id, or a record's field check, admitting the record most like it:
  the other of a similar pair), `enum_sibling_in` (a state or a person admitting the value another record holds:
  `sent` or `drafts`, `u-oscar` or `u-sofia`), `order_either` (an order check met either way). Its witness search
  (for every family) adds the addressee moved to `cc` (to no one, or to another address the world knows), an address
  replaced by another of its domain, a time moved by 30 or 60 minutes, an id replaced by its similar neighbour's, a
  state by another a record holds, and two calls of a turn swapped.
- `d111` (defects111, 10 kinds, bare names; its block sits after d99's): `num_at_least` (a count, a version, a
  quantity compared `gte` for `equals`, a matcher's argument too), `id_at_least` (an id or a label ordered as text:
  `priority gte p3`, `in_reply_to gte msg-391`), `token_substring` (a short token matched as a case-blind substring,
  `(?i)sent`), `dt_month_only` (a date by its month, `^2026-11`), `dt_weekday_only` (a date by its weekday: the days
  of its month a week apart, at the same minute), `sibling_record` (a field check moved onto the most similar record,
  expecting what that one holds at the end), `guard_never_fires` (a guard negated on a value no record holds, or a
  forbidden call's argument a value no call writes), `list_any_item` (a list's "all of" as tiers or selectors of
  each item alone), `where_untouched_field` (a records condition on a field the task writes moved to one it never
  writes, at the matched record's value), `records_initial_match` (a records check cut to the conditions some record
  of the untouched world already meets). Its witness search (for every family) adds a date-time moved a week or two
  days, a number two or ten up, a short token replaced by a longer value of the world holding it, and a list argument
  cut to its first item.
- `d117` (defects117, 10 kinds, bare names; its block sits after d111's): `in_as_text` (`equals v` as `in "v"`, an
  `in` list as one comma-separated text: Python's substring test), `rx_alt_ungrouped` (an `in` list or a `^(a|b)$`
  pattern as `^a|b$`: the anchors bind one branch each), `rx_unescaped` (a dotted value as a pattern, its dots
  unescaped), `dict_key_present` (a map key's value check as the key being there: `values contains region`),
  `dict_changed` (a map key's value check as "the map is not what it was"), `write_as_read` (a `called`/`order`
  matcher's write tool as a read tool of its app taking the same record), `guard_sibling_tool` (a forbidden call
  moved onto another write tool of its app taking the same arguments, one no other guard forbids),
  `guard_arg_required` (a forbidden call counted only when an optional argument is given), `absence_never_held` (a
  records absence, `count 0`, on a value no record holds), `guard_turn0` (a text guard of a multi-turn task bound
  to its first turn). Its witness search (for every family) adds a write replaced by a sibling write of the same
  arguments (a draft for a mail), a text argument cut by its last character or before its first `-`, a dot replaced,
  and each key of a map argument changed.
- `d119` (defects119, 10 kinds, bare names; its block sits after d117's): `phrase_split` (a text check's phrase of
  several words as its words, order and adjacency lost), `guard_cond_negated` (a forbidden call's condition or text
  argument negated: the guard on everything but the harm), `not_contains_as_ne` (`not_contains v` written
  `not_equals v`), `state_to_reply_value` (a completion field check as the agent's text stating the value),
  `frame_where_new_value` (a frame selector by id as a `where` on a field the task writes, at the value it writes),
  `map_whole_to_key` (a whole map's check cut to the keys the task changes), `copy_paste_target` (a field check
  copied from an earlier one of the same table, the earlier record's id left in), `num_within_1pct` (a number of 50
  or more read within 1 %), `guard_list_pair` (a forbidden call's text argument as a list with a second value: it
  fires only when both are named), `count_from_initial` (a records count taken from the untouched world). Its
  witness search (for every family) adds a write repeated on the record most like the one it names, a number 0.9 %
  off in a call or a reply, a reply's phrase with its first and last words swapped, and every write dropped with the
  replies kept.
- `d123` (defects123, 9 kinds, bare names; its block sits after d119's): `msg_for_record` (a record's completion
  field check moved onto the mail or chat message the reference sends that mentions the record, and its value where
  stated), `recipients_rx_any` (a recipient list's "all of" as one pattern of alternatives, `to matches (a|b)`, in a
  records check or a call matcher), `recipients_any_everywhere` (the same in every check at once, the frame's mail
  selector too: the author's habit), `kept_at_least` (a guard keeping a number as "at least" it), `kept_in_widened`
  (a kept value as `in [kept, the value the task writes on another record]`), `kept_not_written` (a kept value as
  "not the value the task writes elsewhere"), `order_then_bare` (an order check's later call bare: any call of its
  tool), `guard_one_tool` (of two forbidden checks on tools of one app, the second forbidding the first's tool again:
  one of two tools that do the harm left free), `dt_next_slot` (an exact time as the window up to half an hour later,
  both bounds in). Its witness search (for every family) adds the reference's write of a table made again on a record
  a guard keeps (the kept field set to the task's value elsewhere or one up), a message's recipients cut to each one
  alone, each call moved first of all, and each forbidden tool called at the end with arguments from the guard's
  matcher, the reference's calls, the records the reference makes (a saved draft's id) and optional flags set
  (`overwrite`: the harm made, not only tried).
- `d129` (defects129, 7 kinds, bare names; its block sits after d123's): `path_basename` (a file's path read by its
  name, `id matches (^|/)handoff.md$`), `dt_either_zone` (an exact time as the window from it to its wall clock in
  the user's zone read as UTC, both bounds in), `dt_window_zone` (a time window's bounds written at the user's wall
  clock read as UTC), `version_line` (a release read by its line, `matches ^4\\.16\\.`), `table_grew` (a made
  record's check as the table's count at the end, every condition dropped), `cond_present` (a condition on a value,
  `title contains "vendor shortlist"`, as the field being set, `title matches .`), `guard_other_record` (a kept-value
  guard moved onto an untouched record of the table, at its value). Its witness search (for every family) adds a path
  moved to another folder, a release a patch up or down, and a date-time misread in the user's zone (its wall clock
  there read as UTC, its own wall clock read as the zone).
- `d132` (defects132, 5 kinds, bare names; its block sits after d129's): `to_by_name` (a recipient read by the
  person's name, the address's local part, `to matches (?i)ravi\\.menon`, in a records check or a call matcher),
  `bound_off_by_one` (`gt` as `gte`, `lt` as `lte`, `gte N` as `gte N-1`, `lte N` as `lte N+1`), `dt_as_text` (a
  date-time bound written as the same instant in the user's offset, or unpadded, `2026-8-17T8:30:00Z`: the checks
  order strings as text), `count_at_least` (an exact count of records, or a call's `min_times`, as "at least"),
  `none_other_value` (a value check as "no record R holds another value", `count 0` of `id R and field != v`: met
  by deleting R). Its witness search (for every family) adds an address's person at another domain, a write made
  twice, a write replaced by (or followed by) a delete of its record where its app has a delete tool, and a float
  argument half a unit off.
- `d135` (defects135, 7 kinds, bare names; its block sits after d132's): `state_to_call_args` (a state check written
  as the write call the agent makes, `called tickets_update {ticket_id, priority}`: the tool's input, matched blind to
  case, in place of the world's output), `none_left_as_one_done` (a "none left in the old state" count over several
  records as "one record in the new state"), `ids_any_for_all` (a records check over an `id in` list counting all of
  them as "at least one"), `guard_contains_as_equals` (a guard's `contains`, or a literal pattern, as `equals`: it
  fires on the exact text only), `guard_case_sensitive` (a guard's pattern without its `(?i)`), `guard_args_as_where`
  (a forbidden call's argument moved from `args`, folded for case, to a `where ... equals`, exact),
  `guard_one_bad_value` (a kept value's guard as "not this one wrong value": `0 where id R and status == in_progress`
  for "status stays open", a forbidden `to_version != 4` as `== 5`). Its witness search (for every family) adds each
  forbidden call's text inside a longer text and in capitals, each kept field set at the end to each other value
  the table's records hold there, and each record the reference makes or changes edited at the end by a write tool of
  its app taking its id (a string field set to another value the table holds: an event's time zone).
- `d141` (hunt141, 7 kinds, bare names; its block sits after d135's): `field_other_written` (a check on the right
  record moved onto another field of it the task also writes, at its final value: a config entry's `version` for
  its `value`), `count_at_most` (an exact or least count as "at most"), `cond_not_null` (a value as "set to
  anything", `not_equals null` or `not_equals ""`, a matcher's argument too), `id_held_initially` (a check moved onto
  a record the untouched world already has in the wanted state), `guard_last_turn` (a text guard of a multi-turn
  task bound to its last turn), `order_reversed` (an order check's two calls swapped), `made_not_default` (a made
  record's `equals v` as "not the table's usual value", `folder != inbox` for `folder == sent`). Its witness search
  (for every family) adds a text guard's forbidden term said in an earlier turn's reply.
- `d146` (hunt146, 4 kinds, bare names; its block sits after d141's): `body_or_subject` (a message's body condition,
  or a matcher's `body` argument, admitted from the subject too: a tier of full score reading `subject`),
  `id_to_unique_key` (a record named by its id re-named by a text field only it holds, `title`/`name`/`email`, that a
  copy the agent makes would share), `dt_whole_day` (an exact date-time as the whole of its day, `gte 00:00:00Z` and
  `lte 23:59:59Z`), `reply_echo_prompt` (a reply term replaced by a word of the user's own request: an echo meets it).
  Its witness search (for every family) adds each message's body moved into its subject (the body left "See the
  subject.") and each turn's reply replaced by the user's request echoed back.
- `d149` (hunt149, 6 kinds, bare names; its block sits after d146's): `body_or_attachment` (a message's body
  condition, or a matcher's `body`, admitted from the attachments' paths too: a tier of full score), `id_to_search_word`
  (a record named by its id re-named by the longest word of its title, name or subject, case-blind: how a search
  finds it), `to_as_thread` (a reply's recipient read as the thread it answers, `in_reply_to equals msg-569`), and
  the Python kinds `py_subject_body` (a grader testing the body's term in subject and body joined), `py_list_len` (a
  grader counting a list's items, `len(to) == 3`, the items dropped) and `py_value_in_record` (a grader finding the
  record by its id and the value anywhere in its text, `str(v) in str(r)`, alone or as a lenient tier beside the
  field check). Its witness search (for every family; tried on sandboxed mutants beside their first 25) adds a
  body left bare with a file named after it written and attached, a write's value put in the call's free-text note
  (`add_note`, `note`, `reason`, `comment`) its own argument dropped, a list argument's items replaced by as many
  other addresses or files of the world, and a write moved onto another record its search word finds. Its Python
  kinds are made on the examples and seed 1 only, one per base, kind and rule kind, as defects69's.
- `d154` (hunt154, 7 kinds, bare names; its block sits after d149's): `value_suffix_only` (a written text value, in a
  check or a matcher's argument, as its last four characters, `matches (?i)0659$`: an `endswith` grader),
  `value_prefix_only` (the same as its first half, `matches (?i)^Runbook fo`: a `startswith` grader),
  `map_value_any_key` (a dotted field's value read in its parent's text, `values matches \beu-west\b`: the value
  under any key), `scope_id_not_equals` (a frame selector by id as "every record of the table but one untouched
  one", `id not_equals X`), `scope_id_prefix` (the same as "every id of its prefix", `id matches ^msg-82`),
  `guard_scope_writable` (a kept value's guard scoped by another text field of the record a write tool of its app
  also sets, `count 0 where title == T and id == R and priority != p3`), `body_in_file_content` (a message's body
  condition admitted, as a tier of full score, from any file's content). Its witness search (for every family) adds
  each text argument of a write with its first, then its last, character changed (one end kept), a map key argument
  replaced by another key of the named record's map, and a kept field changed at the end in the same call that
  moves the record's scope field elsewhere (the harm and the move out of scope in one call).
- `d157` (hunt157, 7 kinds, bare names; its block sits after d154's; at most 3 mutants of a kind per base):
  `value_as_text` (a number or a flag written as its text, `"3"`, `"true"`, in a guard's harm condition or forbidden
  argument, or a completion's `not_equals`: an `equals` that never holds, a `not_equals` that always does),
  `value_or_empty` (a written value as `in [v, "", null]`: the field left empty passes), `list_order_free` (a list's
  `equals` as `in` its orderings), `reply_negatives_only` (a reply check kept to its `none_of`, or to `min_chars 20`:
  a refusal meets it), `dt_window_from_initial` (an exact time as the span from the record's initial value to the
  new one: the start state inside), `phrase_any_word` (a text value as any one of its words, `(?i)\b(svc|payments)\b`),
  `dt_date_or_time` (a date-time as its date or its time of day). Its witness search (for every family) adds each
  text argument of a write emptied and cut to its first or last word, a date-time argument a day later and at 23:45
  the same day, a list argument of two or three items reversed, and every reply a refusal (the writes kept).
- `d159` (hunt159, 4 kinds, bare names; its block sits after d157's; at most 4 mutants of a kind per base):
  `value_or_null` (a value an optional argument writes as `in [v, null]`, in a records check or a call matcher: the
  argument left out passes), `arg_ne_old` (a call matcher's optional argument as `not_equals` the record's old value:
  a call leaving it out meets it), `optional_link_any` (a record an optional argument names, `in_reply_to`,
  `service`, `assignee`, as any record of its kind, `matches ^msg-`), `id_neighbour_in` (an id as `in` it and its
  numeric neighbours the world holds, `in [evt-1041, evt-1042]`). Its witness search (for every family) adds each
  optional argument of a write left out and passed as null, each optional argument naming a record replaced by two
  other records of its kind, and each id argument replaced by its numeric neighbours.

Kinds whose name starts with `py_` or `python.` are sandboxed (slow) and run only with `--python`; as in
defects69, `py_*` mutants (of `d69`, `d73`, `d77`, `d83` and `d149`) are made on the examples and seed 1 only, one per base, kind and rule kind.

Every accepted mutant gets a witness search (unless `--no-witness`): episodes made from the reference (each call
dropped; each argument changed in place or by a later call of the same tool; each answer negated, emptied, its
digits moved; the noop), kept when the shipped spec fails them, tried on the mutant: the first one it passes is
the witness (the mutant judges an episode the shipped spec rejects as passing: unsound). Kinds with none are
left for a hand judgement.

Bases: `examples` (the shipped ones), `example:NAME`, `CAP[,CAP...]:SEEDS` or `all:SEEDS` (SEEDS: `3`, `1-5`
or `1,4`), `synth:CAPABILITY@SEED`. The two rounds' bases were the examples and these 12 capabilities' seed 1
(defects65) or seeds 1-5 (defects69), `hunt:SEEDS` (`HUNT_CAPS`). Output: one JSON line per mutant (base, kind,
family, check, accepted, codes, witness, detail, the new rule), written to OUT.partial and moved onto OUT at the end. `--summary` prints the
tally per kind (mutants / accepted by the strict gates / witnessed unsound / errors); `--tally OUT ...` prints it
for files already written.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:1 --family d65 --out d65.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:1-5 --family d69 --python --out d69.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:1-5 --family d73 --python --out d73.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:1-5 --family d77 --python --out d77.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:1-5 --family d83 --python --out d83.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:1-5 --family d92 --out d92.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:1-5 --family d94 --out d94.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:1-5 --family d99 --out d99.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:1-5 --family d111 --out d111.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:1-5 --family d117 --out d117.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:1-5 --family d119 --out d119.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:6-8 access_request_approval,adapt_announced_change,adapt_silent_change,clarify_ambiguous_request,delegate_and_follow_up,inbox_triage_reply,incident_investigate_fix,mail_ticket_chat_coordination,oncall_handoff,reschedule_conflict,todo_track_mail_requests:1-3 --family d123 --out d123.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:9-10 access_request_approval,adapt_announced_change,adapt_silent_change,clarify_ambiguous_request,delegate_and_follow_up,inbox_triage_reply,incident_investigate_fix,mail_ticket_chat_coordination,oncall_handoff,reschedule_conflict,todo_track_mail_requests:4-6 --family d129 --out d129.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:11-12 access_request_approval,adapt_announced_change,adapt_silent_change,clarify_ambiguous_request,delegate_and_follow_up,inbox_triage_reply,incident_investigate_fix,mail_ticket_chat_coordination,oncall_handoff,reschedule_conflict,todo_track_mail_requests:7-8 --family d132 --out d132.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases hunt:13-14 access_request_approval,adapt_announced_change,adapt_silent_change,clarify_ambiguous_request,delegate_and_follow_up,inbox_triage_reply,incident_investigate_fix,mail_ticket_chat_coordination,oncall_handoff,reschedule_conflict,todo_track_mail_requests:9-12 --family d135 --out d135.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:15-16 access_request_approval,adapt_announced_change,adapt_silent_change,clarify_ambiguous_request,delegate_and_follow_up,inbox_triage_reply,incident_investigate_fix,mail_ticket_chat_coordination,oncall_handoff,reschedule_conflict,todo_track_mail_requests:13-14 --family d141 --out d141.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:17 access_request_approval,delegate_and_follow_up,inbox_triage_reply,mail_ticket_chat_coordination,reschedule_conflict,todo_track_mail_requests:15 --family d146 --out d146.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:1-5 --family d149 --python --out d149.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:1-2 access_request_approval,adapt_announced_change,adapt_silent_change,clarify_ambiguous_request,delegate_and_follow_up,inbox_triage_reply,incident_investigate_fix,mail_ticket_chat_coordination,oncall_handoff,reschedule_conflict,todo_track_mail_requests:1 --family d154 --out d154.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:1 access_request_approval,adapt_announced_change,adapt_silent_change,clarify_ambiguous_request,delegate_and_follow_up,inbox_triage_reply,incident_investigate_fix,mail_ticket_chat_coordination,oncall_handoff,reschedule_conflict,todo_track_mail_requests:1 --family d157 --out d157.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples hunt:2 access_request_approval,adapt_announced_change,adapt_silent_change,clarify_ambiguous_request,delegate_and_follow_up,inbox_triage_reply,incident_investigate_fix,mail_ticket_chat_coordination,oncall_handoff,reschedule_conflict,todo_track_mail_requests:2 --family d159 --out d159.jsonl --summary
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --bases examples --kinds state_to_log 'records.*drop_cond' --out o.jsonl
    PYTHONPATH=$PWD .venv/bin/python benchmarks/hunt_mutants.py --tally d65.jsonl d69.jsonl
"""

from __future__ import annotations

import argparse
import copy
import fnmatch
import functools
import itertools
import json
import os
import re
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple, TypeGuard
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a plain script from anywhere
    sys.path.insert(0, str(ROOT))

from coworkenv.agents import OraclePolicy  # noqa: E402
from coworkenv.apps import TOOLS  # noqa: E402
from coworkenv.env import Env  # noqa: E402
from coworkenv.examples import example_names  # noqa: E402
from coworkenv.loading import parse_spec  # noqa: E402
from coworkenv.rollout import run_episode  # noqa: E402
from coworkenv.spec import ReferenceTurn  # noqa: E402
from coworkenv.synth import load_taxonomy  # noqa: E402
from tests.defects._core import base_spec, judge, play  # noqa: E402

Spec = dict[str, Any]
Rule = dict[str, Any]


class Kind(NamedTuple):
    family: str  # "d65", "d69", "d73", "d77", "d83", "d92", "d94", "d99", "d111", "d117", "d119", "d123", "d129",
    # "d132", "d135", "d141", "d146", "d149", "d154", "d157" or "d159"
    rule: str  # the rule kind it mutates ("check"/"scoring" for the check's or spec's own settings)
    python: bool  # the mutant runs a Python check in the sandbox


class Mutant(NamedTuple):
    kind: str
    ci: int  # the mutated check's index in the base spec, -1 for the spec's scoring
    spec: Spec
    detail: str  # the field or argument touched, where the kind names none


def _kinds(family: str, rule: str, names: str) -> dict[str, Kind]:
    return {n: Kind(family, rule, n.startswith(("py_", "python."))) for n in names.split()}


_COND = ("drop_cond eq_to_contains eq_to_in contains_half contains_list_first in_first rx_nobound rx_dotstar "
         "rx_nocase rx_first_alt rx_digits_plus rx_colon_opt rx_digit_class rx_noanchor num_plus1 num_minus1 "
         "num_x10 num_div100 dt_offset_form dt_shift1h dt_date_only dt_local gte_to_gt gt_to_gte lte_to_lt "
         "lt_to_lte eq_to_gte eq_to_lte dt_eq_to_gte dt_eq_to_lte dt_day_only ne_to_eq")
_ARGS = ("drop prefix num_plus1 num_minus1 num_x10 num_div100 dt_offset_form dt_shift1h dt_date_only "
         "dt_local")
_RX = ["rx_nobound", "rx_dotstar", "rx_nocase", "rx_first_alt", "rx_digits_plus", "rx_colon_opt",
       "rx_digit_class", "rx_noanchor"]


def _cond_names(label: str) -> str:
    return " ".join(f"{label}.{n}" for n in _COND.split())


def _matcher_names(label: str) -> str:
    return " ".join(f"{label}.args.{n}" for n in _ARGS.split()) + " " + _cond_names(label + ".where")


KINDS: dict[str, Kind] = {
    **_kinds("d65", "field", "field.target_sibling_id field.target_sibling_field " + _cond_names("field")
             + " field.str_upper field.str_prefix field.str_pad field.str_sibling_id"),
    **_kinds("d65", "records", _cond_names("records.where") + " records.count_op_to_gte records.count_op_to_lte "
             "records.count_op_to_equals records.count_plus1 records.count_minus1 records.partial_on "
             "records.where.to_sibling_field"),
    **_kinds("d65", "text", "text.all_to_any text.all_drop_last text.all_half_terms text.any_add_common "
             "text.none_drop " + " ".join(f"text.{n}" for n in _RX) + " text.scope_to_final text.scope_to_replies "
             "text.scope_to_all text.turn_unbound text.turn_plus1 text.words_off text.words_on text.num_tol_plus1 "
             "text.num_rel10 text.num_num_plus1 text.num_num_minus1 text.num_num_x10 text.num_num_div100 "
             "text.min_chars_drop text.max_chars_drop text.partial_on text.normalize_off"),
    **_kinds("d65", "reply_states", "reply_states.format_raw reply_states.format_date reply_states.format_time "
             "reply_states.turn_unbound reply_states.turn_plus1 reply_states.sibling_field reply_states.sibling_id "
             "reply_states.partial_on"),
    **_kinds("d65", "called", _matcher_names("called.call") + " called.min_times_minus1 called.min_times_plus1"),
    **_kinds("d65", "order", _matcher_names("order.first") + " " + _matcher_names("order.then")),
    **_kinds("d65", "forbidden", _matcher_names("forbidden.call") + " forbidden.attempts_off"),
    **_kinds("d65", "frame", "frame.allow_whole frame.allow_plus_status frame.allow_drop_id "
             + _cond_names("frame.where")),
    **_kinds("d65", "python", "python.py_eq_to_in python.py_lower python.py_ge_to_gt python.py_gt_to_ge "
             "python.py_le_to_lt python.py_and_to_or python.py_all_to_any python.py_strip python.py_in_lower "
             "python.py_rows_last"),
    **_kinds("d65", "tiers", "tiers.score_up"),
    **_kinds("d65", "check", "check.weight0 check.not_required check.pass_score_half check.guard_to_completion "
             "check.safety_off check.guard_not_required check.drop"),
    **_kinds("d65", "scoring", "scoring.threshold_half scoring.subtract"),
    **_kinds("d69", "any", "norm_loose id_substring or_old_value num_window_wide dt_same_day_rx and_split "
             "count_at_least_one vacuous_implication default_field state_to_log neg_word_drop neg_lookaround_drop "
             "neg_none_of_drop turn_last_only forbid_wrong_app frame_app_wide py_bare_except py_gated_on_call "
             "py_float_tol"),
    **_kinds("d73", "any", "where_any_record cmp_flip rx_half_anchor list_any_for_all state_to_call_count "
             "time_wrong_field turn_minus1 id_nocase created_id_only reply_alt_wrong num_as_substring ne_old_value "
             "reply_mentions_id field_to_exists py_keyerror_true py_str_prefix"),
    **_kinds("d77", "any", "key_nonunique field_never_written num_as_string dt_zone_drop list_eq_to_contains "
             "list_elem_as_text tiers_untouched zero_to_one final_to_turn0 weight_heavy_one py_audit_args "
             "py_str_num"),
    **_kinds("d83", "any", "count_for_which absent_old_value num_direction_only sign_drop dt_time_only "
             "dt_bound_day_off value_of_turn records_any_for_all checks_any_of conds_any_for_all reply_count_for_which "
             "arg_unmatched_all py_call_result"),
    **_kinds("d92", "any", "records_id_only count_all_but_one num_unit_in guard_arg_negated order_first_bare "
             "dt_hour_only"),
    **_kinds("d94", "any", "field_nocase unit_either set_any untouched_field order_dropped reply_before_change "
             "turn_request_dropped kept_nonzero"),
    **_kinds("d99", "any", "cc_counts_as_to addr_domain_only dt_window_1h id_in_similar enum_sibling_in order_either"),
    **_kinds("d111", "any", "num_at_least id_at_least token_substring dt_month_only dt_weekday_only sibling_record "
             "guard_never_fires list_any_item where_untouched_field records_initial_match"),
    **_kinds("d117", "any", "in_as_text rx_alt_ungrouped rx_unescaped dict_key_present dict_changed write_as_read "
             "guard_sibling_tool guard_arg_required absence_never_held guard_turn0"),
    **_kinds("d119", "any", "phrase_split guard_cond_negated not_contains_as_ne state_to_reply_value "
             "frame_where_new_value map_whole_to_key copy_paste_target num_within_1pct guard_list_pair "
             "count_from_initial"),
    **_kinds("d123", "any", "msg_for_record recipients_rx_any kept_at_least kept_in_widened kept_not_written "
             "order_then_bare guard_one_tool dt_next_slot recipients_any_everywhere"),
    **_kinds("d129", "any", "path_basename dt_either_zone dt_window_zone version_line table_grew cond_present "
             "guard_other_record"),
    **_kinds("d132", "any", "to_by_name bound_off_by_one dt_as_text count_at_least none_other_value"),
    **_kinds("d135", "any", "state_to_call_args none_left_as_one_done guard_contains_as_equals guard_case_sensitive "
             "ids_any_for_all guard_args_as_where guard_one_bad_value"),
    **_kinds("d141", "any", "field_other_written count_at_most cond_not_null id_held_initially guard_last_turn "
             "order_reversed made_not_default"),
    **_kinds("d146", "any", "body_or_subject id_to_unique_key dt_whole_day reply_echo_prompt"),
    **_kinds("d149", "any", "body_or_attachment id_to_search_word to_as_thread py_subject_body py_list_len "
             "py_value_in_record"),
    **_kinds("d154", "any", "value_suffix_only value_prefix_only map_value_any_key scope_id_not_equals "
             "scope_id_prefix guard_scope_writable body_in_file_content"),
    **_kinds("d157", "any", "value_as_text value_or_empty list_order_free reply_negatives_only "
             "dt_window_from_initial phrase_any_word dt_date_or_time"),
    **_kinds("d159", "any", "value_or_null arg_ne_old optional_link_any id_neighbour_in"),
}


def kind_of(name: str) -> Kind:
    """The registered kind; `tiers.<inner kind>` (a d65 mutation of a tier's rule) is one of the inner kind's."""
    if name in KINDS:
        return KINDS[name]
    if name.startswith("tiers.") and name[6:] in KINDS:
        inner = KINDS[name[6:]]
        return Kind("d65", "tiers", inner.python)
    raise KeyError(f"mutation kind {name!r} is not in the registry")


# -- shared helpers ---------------------------------------------------------------------------------------------
def world_table(spec: Spec, app: str, table: str) -> list[Any]:
    return spec["world"]["apps"].get(app, {}).get(table, []) or []


def ref_calls(spec: Spec) -> Iterator[dict[str, Any]]:
    for turn in spec["reference"]:
        for st in turn["steps"]:
            if st.get("call"):
                yield st["call"]


def final_state(spec: Spec) -> dict[str, Any]:
    """The apps after the reference is played."""
    p = parse_spec(spec)
    e = Env(p)
    run_episode(e, OraclePolicy(p, [ReferenceTurn.model_validate(t) for t in spec["reference"]]))
    w = e.state.to_wire()
    return w.get("apps", w) if isinstance(w, dict) else {}


def _is_num(v: Any) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def ref_writes(ref: Episode) -> Iterator[tuple[int, int, dict[str, Any], Any]]:
    """(turn, step, call, tool) of each call of a write tool in a reference."""
    for t, turn in enumerate(ref):
        for s, st in enumerate(turn["steps"]):
            c = st.get("call")
            td = TOOLS.get(c["name"]) if c else None
            if c is not None and td is not None and td.kind == "write":
                yield t, s, c, td


# -- family d65 -------------------------------------------------------------------------------------------------
def loosen_regex(p: str) -> list[tuple[str, str]]:
    outs = []
    q = p.replace("\\b", "")
    if q != p:
        outs.append(("rx_nobound", q))
    q = re.sub(r"\.\{0,\d+\}", ".*", p)
    if q != p:
        outs.append(("rx_dotstar", q))
    if not p.startswith("(?i)"):
        outs.append(("rx_nocase", "(?i)" + p))
    if "|" in p:
        first = p.split("|")[0]
        outs.append(("rx_first_alt", first + ")" * (first.count("(") - first.count(")"))))
    q = re.sub(r"\\d\{(\d+)\}", r"\\d+", p)
    if q != p:
        outs.append(("rx_digits_plus", q))
    q = p.replace(":", ".?")
    if q != p:
        outs.append(("rx_colon_opt", q))
    q = re.sub(r"\d", r"\\d", p, count=2)
    if q != p:
        outs.append(("rx_digit_class", q))
    if p.startswith("^") or p.endswith("$"):
        outs.append(("rx_noanchor", p.lstrip("^").rstrip("$")))
    return outs


def num_variants(v: Any) -> list[tuple[str, Any]]:
    if not _is_num(v):
        return []
    return [("num_plus1", v + 1), ("num_minus1", v - 1), ("num_x10", v * 10), ("num_div100", v / 100)]


def dt_variants(v: Any) -> list[tuple[str, Any]]:
    if not (isinstance(v, str) and re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d", v)):
        return []
    h = int(v[11:13])
    return [("dt_offset_form", v.replace("Z", "+00:00")), ("dt_shift1h", v[:11] + f"{(h + 1) % 24:02d}" + v[13:]),
            ("dt_date_only", v[:10]), ("dt_local", v.rstrip("Z"))]


def str_variants(v: Any) -> list[tuple[str, Any]]:
    if not (isinstance(v, str) and v):
        return []
    out: list[tuple[str, Any]] = [("str_upper", v.upper()), ("str_prefix", v[: max(1, len(v) // 2)]),
                                  ("str_pad", " " + v + " ")]
    if "-" in v:
        out.append(("str_sibling_id", re.sub(r"(\d+)$", lambda m: str(int(m.group(1)) + 1), v)))
    return out


def cond_mutants(conds: list[dict[str, Any]], label: str) -> Iterator[tuple[str, str, list[dict[str, Any]]]]:
    """(kind, field, new conditions): mutations of a list of `where` conditions."""
    for i, w in enumerate(conds):
        op, v = w.get("op", "equals"), w.get("value")
        def m(new: dict[str, Any] | None, name: str, i: int = i, field: str = str(w.get("field"))
              ) -> tuple[str, str, list[dict[str, Any]]]:
            c2 = copy.deepcopy(conds)
            if new is None:
                del c2[i]
            else:
                c2[i] = new
            return f"{label}.{name}", field, c2

        yield m(None, "drop_cond")
        if op == "equals" and isinstance(v, str):
            yield m({**w, "op": "contains"}, "eq_to_contains")
            yield m({**w, "op": "in", "value": [v, v.upper()]}, "eq_to_in")
        if op == "contains" and isinstance(v, str):
            yield m({**w, "op": "matches", "value": "(?i)" + re.escape(v[: max(2, len(v) // 2)])}, "contains_half")
        if op == "contains" and isinstance(v, list) and len(v) > 1:
            yield m({**w, "value": v[:1]}, "contains_list_first")
        if op == "matches" and isinstance(v, str):
            for n, p in loosen_regex(v):
                yield m({**w, "value": p}, n)
        if op == "in" and isinstance(v, list) and len(v) > 1:
            yield m({**w, "value": v[:1]}, "in_first")
        for n, x in num_variants(v) + dt_variants(v):
            yield m({**w, "value": x}, n)
        if op in ("gte", "gt", "lte", "lt"):
            flip = {"gte": "gt", "gt": "gte", "lte": "lt", "lt": "lte"}[op]
            yield m({**w, "op": flip}, f"{op}_to_{flip}")
        if op == "equals" and _is_num(v):
            yield m({**w, "op": "gte"}, "eq_to_gte")
            yield m({**w, "op": "lte"}, "eq_to_lte")
        if op == "equals" and isinstance(v, str) and re.match(r"\d{4}-\d\d-\d\dT", v):
            yield m({**w, "op": "gte"}, "dt_eq_to_gte")
            yield m({**w, "op": "lte"}, "dt_eq_to_lte")
            yield m({**w, "op": "contains", "value": v[:10]}, "dt_day_only")
        if op == "not_equals" and v is not None:
            yield m({**w, "op": "equals"}, "ne_to_eq")


def matcher_mutants(call: dict[str, Any], label: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for k, v in (call.get("args") or {}).items():
        c2 = copy.deepcopy(call)
        del c2["args"][k]
        yield f"{label}.args.drop", k, c2
        if isinstance(v, str):
            c2 = copy.deepcopy(call)
            c2["args"][k] = v[: max(1, len(v) // 2)]
            yield f"{label}.args.prefix", k, c2
        for n, x in num_variants(v) + dt_variants(v):
            c2 = copy.deepcopy(call)
            c2["args"][k] = x
            yield f"{label}.args.{n}", k, c2
    for n, f, c in cond_mutants(call.get("where") or [], label + ".where"):
        c2 = copy.deepcopy(call)
        c2["where"] = c
        yield n, f, c2


_SIBLING_FIELDS = {"cc", "bcc", "to", "sender", "assignee", "reporter", "owner", "end", "start", "updated_at",
                   "created_at", "subject", "body", "title", "description", "text", "notes", "folder", "status"}
_PY_SUBS: list[tuple[str, str, str | Callable[[re.Match[str]], str]]] = [
    ("py_eq_to_in", r"(\w[\w\]\['\"]*) == (\"[^\"]+\")", r"\2 in str(\1)"),
    ("py_lower", r"== \"([^\"]+)\"", lambda m: '.lower() == "' + m.group(1).lower() + '"'),
    ("py_ge_to_gt", r">=", ">"), ("py_gt_to_ge", r"(?<![-=])>(?!=)", ">="),
    ("py_le_to_lt", r"<=", "<"), ("py_and_to_or", r"\band\b", "or"), ("py_all_to_any", r"\ball\(", "any("),
    ("py_strip", r"\.strip\(\)", ""), ("py_in_lower", r"\.lower\(\)", ""), ("py_rows_last", r"\[0\]", "[-1]")]


def rule_mutants65(rule: Rule, spec: Spec) -> Iterator[tuple[str, str, Rule]]:
    """(kind, detail, new rule): defects65's mutations of one rule."""
    k = rule["kind"]

    def set_(key: str, val: Any, name: str, detail: str = "") -> tuple[str, str, Rule]:
        r = copy.deepcopy(rule)
        r[key] = val
        return name, detail, r

    if k == "field":
        v, op, t = rule.get("value"), rule.get("op", "equals"), rule["target"]
        recs = world_table(spec, t["app"], t["table"])
        for rec in recs:
            if isinstance(rec, dict) and "id" in rec and rec["id"] != t.get("id"):
                r = copy.deepcopy(rule)
                r["target"]["id"] = rec["id"]
                yield "field.target_sibling_id", rec["id"], r
                break
        rec = next((x for x in recs if isinstance(x, dict) and x.get("id") == t.get("id")), None)
        if rec:
            for f, fv in rec.items():
                if f != t["field"] and type(fv) is type(v) and f != "id":
                    r = copy.deepcopy(rule)
                    r["target"]["field"] = f
                    yield "field.target_sibling_field", f, r
        for n, f, c in cond_mutants([{"field": t["field"], "op": op, "value": v}], "field"):
            if c:
                r = copy.deepcopy(rule)
                r["op"] = c[0].get("op", "equals")
                r["value"] = c[0]["value"]
                yield n, f, r
        for n, x in str_variants(v):
            yield set_("value", x, "field." + n)
    elif k == "records":
        for n, f, c in cond_mutants(rule.get("where") or [], "records.where"):
            yield set_("where", c, n, f)
        co, cnt = rule.get("count_op"), rule.get("count")
        if co is not None:
            for op2 in ("gte", "lte", "equals"):
                if op2 != co:
                    yield set_("count_op", op2, f"records.count_op_to_{op2}", str(co))
        if isinstance(cnt, int):
            yield set_("count", cnt + 1, "records.count_plus1")
            if cnt > 0:
                yield set_("count", cnt - 1, "records.count_minus1")
        if not rule.get("partial"):
            yield set_("partial", True, "records.partial_on")
        recs = world_table(spec, rule["app"], rule["table"])
        for i, w in enumerate(rule.get("where") or []):
            if recs and isinstance(recs[0], dict):
                for f in recs[0]:
                    if f != w["field"] and f in _SIBLING_FIELDS:
                        r = copy.deepcopy(rule)
                        r["where"][i]["field"] = f
                        yield "records.where.to_sibling_field", f"{w['field']}->{f}", r
    elif k == "text":
        if rule.get("all_of"):
            yield set_("any_of", rule["all_of"], "text.all_to_any")
            yield set_("all_of", rule["all_of"][:-1], "text.all_drop_last")
            yield set_("all_of", [t if isinstance(t, list) else t[: max(2, len(t) // 2)] for t in rule["all_of"]],
                       "text.all_half_terms")
        if rule.get("any_of"):
            yield set_("any_of", rule["any_of"] + ["the"], "text.any_add_common")
        if rule.get("none_of"):
            yield set_("none_of", [], "text.none_drop")
        if rule.get("regex"):
            for n, p in loosen_regex(rule["regex"]):
                yield set_("regex", p, "text." + n)
        sc = rule.get("scope", "final")
        for s2 in ("final", "replies", "all"):
            if s2 != sc:
                yield set_("scope", s2, f"text.scope_to_{s2}", str(sc))
        if rule.get("turn") is not None:
            yield set_("turn", None, "text.turn_unbound")
            yield set_("turn", rule["turn"] + 1, "text.turn_plus1")
        yield set_("words", not rule.get("words"), "text.words_off" if rule.get("words") else "text.words_on")
        nm = rule.get("number")
        if nm:
            r = copy.deepcopy(rule)
            r["number"]["tolerance"] = (nm.get("tolerance") or 0) + 1
            yield "text.num_tol_plus1", "", r
            r = copy.deepcopy(rule)
            r["number"]["relative"] = True
            r["number"]["tolerance"] = 0.1
            yield "text.num_rel10", "", r
            if nm.get("value") is not None:
                for n, x in num_variants(nm["value"]):
                    r = copy.deepcopy(rule)
                    r["number"]["value"] = x
                    yield "text.num_" + n, "", r
        if rule.get("min_chars"):
            yield set_("min_chars", None, "text.min_chars_drop")
        if rule.get("max_chars"):
            yield set_("max_chars", None, "text.max_chars_drop")
        if not rule.get("partial"):
            yield set_("partial", True, "text.partial_on")
        yield set_("normalize", False, "text.normalize_off")
    elif k == "reply_states":
        for fmt in ("raw", "date", "time"):
            if rule.get("format", "raw") != fmt:
                yield set_("format", fmt, f"reply_states.format_{fmt}")
        if rule.get("turn") is not None:
            yield set_("turn", None, "reply_states.turn_unbound")
            yield set_("turn", rule["turn"] + 1, "reply_states.turn_plus1")
        src = rule["source"]
        recs = world_table(spec, src["app"], src["table"])
        rec = next((x for x in recs if isinstance(x, dict) and x.get("id") == src.get("id")), None)
        if rec:
            for f in rec:
                if f != src.get("field") and f != "id":
                    r = copy.deepcopy(rule)
                    r["source"]["field"] = f
                    yield "reply_states.sibling_field", f, r
            for other in recs:
                if isinstance(other, dict) and other.get("id") != src.get("id"):
                    r = copy.deepcopy(rule)
                    r["source"]["id"] = other["id"]
                    yield "reply_states.sibling_id", str(other["id"]), r
                    break
        if not rule.get("partial"):
            yield set_("partial", True, "reply_states.partial_on")
    elif k == "called":
        for n, f, cm in matcher_mutants(rule["call"], "called.call"):
            yield set_("call", cm, n, f)
        yield set_("min_times", max(0, rule.get("min_times", 1) - 1), "called.min_times_minus1")
        yield set_("min_times", rule.get("min_times", 1) + 1, "called.min_times_plus1")
    elif k == "order":
        for side in ("first", "then"):
            for n, f, cm in matcher_mutants(rule[side], f"order.{side}"):
                yield set_(side, cm, n, f)
    elif k == "forbidden":
        for n, f, cm in matcher_mutants(rule["call"], "forbidden.call"):
            yield set_("call", cm, n, f)
        yield set_("attempts", False, "forbidden.attempts_off")
    elif k == "frame":
        for i, a in enumerate(rule.get("allow") or []):
            if a.get("fields"):
                r = copy.deepcopy(rule)
                del r["allow"][i]["fields"]
                yield "frame.allow_whole", str(a.get("app")), r
                r = copy.deepcopy(rule)
                r["allow"][i]["fields"] = a["fields"] + ["status"]
                yield "frame.allow_plus_status", str(a.get("app")), r
            if a.get("id"):
                r = copy.deepcopy(rule)
                del r["allow"][i]["id"]
                yield "frame.allow_drop_id", str(a.get("app")), r
            if a.get("where"):
                for n, f, c in cond_mutants(a["where"], "frame.where"):
                    r = copy.deepcopy(rule)
                    r["allow"][i]["where"] = c
                    yield n, f, r
    elif k == "python":
        for n, pat, rep in _PY_SUBS:
            code, hits = re.subn(pat, rep, rule["code"], count=1)
            if hits:
                yield set_("code", code, "python." + n)
    elif k == "tiers":
        for i, t in enumerate(rule["tiers"]):
            for n, f, r2 in rule_mutants65(t["rule"], spec):
                r = copy.deepcopy(rule)
                r["tiers"][i]["rule"] = r2
                yield "tiers." + n, f, r
            if t.get("score", 1) < 1:
                r = copy.deepcopy(rule)
                r["tiers"][i]["score"] = min(1, t["score"] + 0.25)
                yield "tiers.score_up", str(i), r


def mutants65(spec: Spec) -> Iterator[Mutant]:
    for ci, c in enumerate(spec["checks"]):
        def with_check(c2: dict[str, Any], name: str, detail: str = "", ci: int = ci) -> Mutant:
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = c2
            return Mutant(name, ci, s2, detail)

        for name, detail, r in rule_mutants65(c["rule"], spec):
            yield with_check({**copy.deepcopy(c), "rule": r}, name, detail)
        if c.get("role") != "guard":
            yield with_check({**c, "weight": 0}, "check.weight0")
            yield with_check({**c, "required": False}, "check.not_required")
            if c["rule"]["kind"] in ("text", "records", "reply_states", "tiers", "python"):
                yield with_check({**c, "pass_score": 0.5}, "check.pass_score_half")
        else:
            yield with_check({**c, "role": "completion"}, "check.guard_to_completion")
            if c.get("safety"):
                yield with_check({**c, "safety": False}, "check.safety_off")
            yield with_check({**c, "required": False}, "check.guard_not_required")
        s2 = copy.deepcopy(spec)
        del s2["checks"][ci]
        yield Mutant("check.drop", ci, s2, "")
    sc = spec.get("scoring") or {}
    s2 = copy.deepcopy(spec)
    s2["scoring"] = {**sc, "pass_threshold": 0.5}
    yield Mutant("scoring.threshold_half", -1, s2, "")
    s2 = copy.deepcopy(spec)
    s2["scoring"] = {**sc, "guard_failure": "subtract", "guard_penalty": 0.1}
    yield Mutant("scoring.subtract", -1, s2, "")


# -- family d69 -------------------------------------------------------------------------------------------------
NEG = {"equals": "not_equals", "contains": "not_contains", "not_equals": "equals", "not_contains": "contains"}


def loose_rx(v: str) -> str | None:
    """A regex for `v` blind to case, spaces and punctuation."""
    al = [ch for ch in v if ch.isalnum()]
    return "(?i)^[\\W_]*" + "[\\W_]*".join(re.escape(ch) for ch in al) + "[\\W_]*$" if al else None


def digits(v: Any) -> str | None:
    runs = re.findall(r"\d+", v) if isinstance(v, str) else []
    return max(runs, key=len) if runs else None


def py_cond(c: dict[str, Any], var: str = "r") -> str:
    f, op, v = c["field"], c.get("op", "equals"), c.get("value")
    g = f"_get({var}, {f!r})"
    return {"equals": f"{g} == {v!r}", "not_equals": f"{g} != {v!r}", "contains": f"_has({g}, {v!r})",
            "not_contains": f"not _has({g}, {v!r})", "in": f"{g} in {v!r}", "gte": f"{g} >= {v!r}",
            "lte": f"{g} <= {v!r}", "gt": f"{g} > {v!r}", "lt": f"{g} < {v!r}",
            "matches": f"re.search({v!r}, str({g})) is not None"}[op]


PY_HEAD = ("import re\n"
           "def _get(r, f):\n    for k in f.split('.'):\n        r = r[k]\n    return r\n"
           "def _has(x, v):\n    return (v in x) if isinstance(x, (list, str)) else False\n")


def py_of(rule: Rule, wrap: str | None = None, tol: float | None = None, tool: str | None = None) -> Rule:
    """A faithful Python translation of a field or records rule; `wrap`: "except" (a bare except returns True),
    "gated" (passes when the audit has no successful call of `tool`); `tol`: a field's number within `tol`."""
    if rule["kind"] == "field":
        t = rule["target"]
        rows = f"state['apps'][{t['app']!r}][{t['table']!r}]"
        cond = {"field": t["field"], "op": rule.get("op", "equals"), "value": rule.get("value")}
        test = (f"abs(float(_get(r, {t['field']!r})) - {rule['value']!r}) <= {tol!r}" if tol is not None
                else py_cond(cond))
        body = f"    r = next(r for r in {rows} if r['id'] == {t['id']!r})\n    return {test}\n"
        apps = [t["app"]]
    else:
        rows = f"state['apps'][{rule['app']!r}][{rule['table']!r}]"
        conds = " and ".join(py_cond(c) for c in rule.get("where") or []) or "True"
        op = {"gte": ">=", "lte": "<=", "equals": "=="}[rule.get("count_op", "gte")]
        body = f"    n = sum(1 for r in {rows} if {conds})\n    return n {op} {rule.get('count', 1)!r}\n"
        apps = [rule["app"]]
    if wrap == "except":
        body = ("    try:\n" + "".join("    " + ln + "\n" for ln in body.rstrip("\n").split("\n"))
                + "    except Exception:\n        return True\n")
    elif wrap == "gated":
        body = f"    if not any(a['tool'] == {tool!r} and a['ok'] for a in audit):\n        return True\n" + body
    return {"kind": "python", "entrypoint": "check", "apps": apps,
            "code": PY_HEAD + "def check(state, audit, messages):\n" + body}


def writer_of(spec: Spec, values: list[Any]) -> dict[str, Any] | None:
    """The first reference call whose arguments hold every value in `values`."""
    for c in ref_calls(spec):
        flat = json.dumps(c["arguments"])
        if all(json.dumps(v) in flat or (isinstance(v, str) and v in flat) for v in values):
            return c
    return None


def cond_kinds(conds: list[dict[str, Any]], world_vals: dict[str, list[Any]]
               ) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    for i, w in enumerate(conds):
        op, v = w.get("op", "equals"), w.get("value")

        def m(new: dict[str, Any] | list[dict[str, Any]], name: str, i: int = i
              ) -> tuple[str, list[dict[str, Any]]]:
            c2 = copy.deepcopy(conds)
            c2[i:i + 1] = new if isinstance(new, list) else [new]
            return name, c2

        if op == "equals" and isinstance(v, str):
            rx = loose_rx(v)
            if rx and rx != v:
                yield m({**w, "op": "matches", "value": rx}, "norm_loose")
            d = digits(v)
            if d and d != v:
                yield m({**w, "op": "contains", "value": d}, "id_substring")
        if op == "equals" and v is not None:
            old = [x for x in world_vals.get(w["field"], []) if x != v and type(x) is type(v)]
            if old:
                yield m({**w, "op": "in", "value": [v, old[0]]}, "or_old_value")
        if op == "equals" and _is_num(v):
            d2 = max(1, abs(v) * 0.5)
            yield m([{**w, "op": "gte", "value": v - d2}, {**w, "op": "lte", "value": v + d2}], "num_window_wide")
        if op == "equals" and isinstance(v, str) and re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d", v):
            yield m({**w, "op": "matches", "value": "^" + re.escape(v[:10])}, "dt_same_day_rx")


Split = tuple[Rule, Rule]


def rule_kinds69(rule: Rule, spec: Spec, fstate: dict[str, Any], nturns: int) -> Iterator[tuple[str, Rule | Split]]:
    """(kind, new rule or two rules the check is split into): defects69's mutations of one rule."""
    k = rule["kind"]

    def set_(key: str, val: Any, name: str) -> tuple[str, Rule]:
        r = copy.deepcopy(rule)
        r[key] = val
        return name, r

    if k == "field":
        t, v, op = rule["target"], rule.get("value"), rule.get("op", "equals")
        wrec = next((x for x in world_table(spec, t["app"], t["table"])
                     if isinstance(x, dict) and x.get("id") == t["id"]), {})
        wv = {t["field"]: [wrec.get(t["field"])]} if t["field"] in wrec else {}
        for n, c in cond_kinds([{"field": t["field"], "op": op, "value": v}], wv):
            if len(c) == 1:
                r = copy.deepcopy(rule)
                r["op"], r["value"] = c[0]["op"], c[0]["value"]
                yield n, r
            else:
                yield n, {"kind": "records", "app": t["app"], "table": t["table"],
                          "where": [{"field": "id", "value": t["id"]}, *c], "count_op": "gte", "count": 1}
        yield "py_bare_except", py_of(rule, "except")
        if _is_num(v) and op == "equals":
            yield "py_float_tol", py_of(rule, tol=max(1.0, abs(v) * 0.5))
        wc = writer_of(spec, [t["id"], v]) if v is not None else None
        if wc:
            yield "py_gated_on_call", py_of(rule, "gated", tool=wc["name"])
            args = {a: x for a, x in wc["arguments"].items() if x in (t["id"], v)}
            yield "state_to_log", {"kind": "called", "call": {"tool": wc["name"], "args": args}}
    elif k == "records":
        where = rule.get("where") or []
        wvals: dict[str, list[Any]] = {}
        for rec in world_table(spec, rule["app"], rule["table"]):
            if isinstance(rec, dict):
                for f, x in rec.items():
                    if isinstance(x, (str, int, float, bool)) and x not in wvals.setdefault(f, []):
                        wvals[f].append(x)
        for n, c in cond_kinds(where, wvals):
            yield set_("where", c, n)
        co, cnt = rule.get("count_op", "gte"), rule.get("count", 1)
        if co in ("equals", "gte") and cnt > 1:
            r = copy.deepcopy(rule)
            r["count_op"], r["count"] = "gte", 1
            yield "count_at_least_one", r
        if co in ("equals", "gte") and cnt >= 1 and len(where) >= 2:
            for i, w in enumerate(where):
                if w.get("op", "equals") in NEG:
                    r = copy.deepcopy(rule)
                    r["where"][i] = {**w, "op": NEG[w.get("op", "equals")]}
                    r["count_op"], r["count"] = "equals", 0
                    yield "vacuous_implication", r
            yield "and_split", ({**rule, "where": where[:1]}, {**rule, "where": where[1:]})
        # a field every record of the table holds in the final state (a tool's default): the condition moved there
        table = (fstate.get(rule["app"]) or {}).get(rule["table"]) or []
        rows = [x for x in (table.values() if isinstance(table, dict) else table) if isinstance(x, dict)]
        if rows and where and co != "lte":
            for f in rows[0]:
                vals = {json.dumps(x.get(f), sort_keys=True) for x in rows}
                if (len(vals) == 1 and f not in {w["field"] for w in where} and f != "id"
                        and isinstance(rows[0].get(f), (str, int, bool))):
                    r = copy.deepcopy(rule)
                    r["where"][-1] = {"field": f, "value": rows[0][f]}
                    yield "default_field", r
                    break
        if co != "lte" or cnt > 0:
            yield "py_bare_except", py_of(rule, "except")
            vals2 = [w["value"] for w in where
                     if w.get("op", "equals") == "equals" and isinstance(w.get("value"), (str, int))]
            wc = writer_of(spec, vals2[:2]) if vals2 else None
            if wc:
                yield "py_gated_on_call", py_of(rule, "gated", tool=wc["name"])
                args = {a: x for a, x in wc["arguments"].items() if isinstance(x, (str, int)) and x in vals2}
                if args:
                    yield "state_to_log", {"kind": "called", "call": {"tool": wc["name"], "args": args}}
    elif k == "text":
        rx = rule.get("regex")
        if rx:
            q = re.sub(r"\(\?<?!(?:[^()]|\([^()]*\))*\)", "", rx)
            if q != rx:
                yield set_("regex", q, "neg_lookaround_drop")
        for key in ("all_of", "any_of"):
            terms = rule.get(key) or []
            t2 = [re.sub(r"\b(?:not|no|never|n't)\s+", "", t) if isinstance(t, str) else t for t in terms]
            if t2 != terms:
                yield set_(key, t2, "neg_word_drop")
        if rule.get("none_of"):
            negs = [t for t in rule["none_of"] if isinstance(t, str) and re.search(r"\b(?:not|no|never|n't|un)", t)]
            if negs:
                yield set_("none_of", [t for t in rule["none_of"] if t not in negs], "neg_none_of_drop")
        if nturns > 1 and rule.get("turn") is not None and rule["turn"] < nturns - 1:
            yield set_("turn", nturns - 1, "turn_last_only")
        if nturns > 1 and rule.get("scope") in ("replies", "all") and rule.get("turn") is None:
            yield set_("scope", "final", "turn_last_only")
        if rule.get("number"):
            r = copy.deepcopy(rule)
            r["number"]["relative"], r["number"]["tolerance"] = True, 0.5
            yield "py_float_tol", r
    elif k == "reply_states":
        if nturns > 1 and rule.get("turn") is not None and rule["turn"] < nturns - 1:
            yield set_("turn", nturns - 1, "turn_last_only")
    elif k == "forbidden":
        app, _, verb = rule["call"]["tool"].partition("_")
        for a2 in sorted(spec["world"]["apps"]):
            if a2 != app:
                r = copy.deepcopy(rule)
                r["call"]["tool"] = f"{a2}_{verb}"
                yield "forbid_wrong_app", r
                break
    elif k == "frame":
        for i, a in enumerate(rule.get("allow") or []):
            if a.get("table") or a.get("id") or a.get("fields") or a.get("where"):
                r = copy.deepcopy(rule)
                r["allow"][i] = {"app": a["app"]}
                yield "frame_app_wide", r
    elif k == "called":
        for a, x in (rule["call"].get("args") or {}).items():
            if isinstance(x, str):
                d = digits(x)
                if d and d != x:
                    r = copy.deepcopy(rule)
                    del r["call"]["args"][a]
                    r["call"].setdefault("where", []).append({"field": a, "op": "contains", "value": d})
                    yield "id_substring", r
                lrx = loose_rx(x)
                if lrx:
                    r = copy.deepcopy(rule)
                    del r["call"]["args"][a]
                    r["call"].setdefault("where", []).append({"field": a, "op": "matches", "value": lrx})
                    yield "norm_loose", r


def mutants69(spec: Spec) -> Iterator[Mutant]:
    fstate, nturns = final_state(spec), len(spec["turns"])
    for ci, c in enumerate(spec["checks"]):
        for name, r in rule_kinds69(c["rule"], spec, fstate, nturns):
            s2 = copy.deepcopy(spec)
            if isinstance(r, tuple):
                s2["checks"][ci] = {**c, "rule": r[0]}
                s2["checks"].insert(ci + 1, {**c, "id": c["id"] + "-b", "rule": r[1]})
            else:
                s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")


# -- family d73 -------------------------------------------------------------------------------------------------
_DT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")
_IDISH = re.compile(r"^[A-Za-z]{1,8}[-_]?\d+$")


def _rows(tables: Any) -> list[dict[str, Any]]:
    return [x for x in (tables.values() if isinstance(tables, dict) else tables or []) if isinstance(x, dict)]


def _dig(rec: Any, field: str) -> Any:
    for k in field.split("."):
        if not isinstance(rec, dict) or k not in rec:
            return None
        rec = rec[k]
    return rec


def _holds(rec: dict[str, Any], conds: list[dict[str, Any]]) -> bool:
    from coworkenv.checks.primitives import compare
    try:
        return all(compare(_dig(rec, w["field"]), w.get("op", "equals"), w.get("value")) for w in conds)
    except Exception:
        return False


def _wrong_value(spec: Spec, v: Any) -> Any:
    """A value of the same field in another record of the world: the wrong answer beside the right one."""
    for app in spec["world"]["apps"].values():
        for table in (app.values() if isinstance(app, dict) else []):
            rows = _rows(table)
            for rec in rows:
                for f, x in rec.items():
                    if x == v and f != "id":
                        for o in rows:
                            if o is not rec and type(o.get(f)) is type(v) and o.get(f) != v:
                                return o[f]
    return None


def _cond_kinds73(conds: list[dict[str, Any]], spec: Spec, app: str, table: str
                  ) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """d73's mutations of a list of `where` conditions."""
    world = _rows(world_table(spec, app, table))
    for i, w in enumerate(conds):
        op, v, f = w.get("op", "equals"), w.get("value"), w["field"]

        def m(new: dict[str, Any], name: str, i: int = i) -> tuple[str, list[dict[str, Any]]]:
            c2 = copy.deepcopy(conds)
            c2[i] = new
            return name, c2

        if op in ("gte", "lte", "gt", "lt"):  # the compare turned round
            yield m({**w, "op": {"gte": "lte", "lte": "gte", "gt": "lt", "lt": "gt"}[op]}, "cmp_flip")
        if op == "equals" and isinstance(v, str) and v:  # a regex anchored at the start only
            yield m({**w, "op": "matches", "value": "^" + re.escape(v)}, "rx_half_anchor")
        if op == "matches" and isinstance(v, str) and v.startswith("^") and v.endswith("$"):
            yield m({**w, "value": v[:-1]}, "rx_half_anchor")
        if op in ("equals", "contains") and isinstance(v, list) and len(v) > 1:  # contains any, not all
            yield m({**w, "op": "contains", "value": v[0]}, "list_any_for_all")
        if isinstance(v, str) and _DT.match(v):  # the time read from another time field of the record
            others = [g for g, x in (world[0].items() if world else []) if g != f and isinstance(x, str)
                      and _DT.match(x)]
            if others:
                yield m({**w, "field": others[0]}, "time_wrong_field")
        if op == "equals" and isinstance(v, str) and (_IDISH.match(v) or f == "id" or f.endswith("_id")):
            yield m({**w, "op": "matches", "value": "(?i)^" + re.escape(v) + "$"}, "id_nocase")
        if op == "equals" and v is not None:  # "not the old value" for "the new value"
            old = [r.get(f) for r in world if r.get(f) is not None and r.get(f) != v and type(r.get(f)) is type(v)]
            if old:
                yield m({**w, "op": "not_equals", "value": old[0]}, "ne_old_value")


def rule_kinds73(rule: Rule, spec: Spec, fstate: dict[str, Any], nturns: int) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): defects73's mutations of one rule."""
    k = rule["kind"]

    def set_(key: str, val: Any, name: str) -> tuple[str, Rule]:
        r = copy.deepcopy(rule)
        r[key] = val
        return name, r

    calls = list(ref_calls(spec))
    if k == "field":
        t, v, op = rule["target"], rule.get("value"), rule.get("op", "equals")
        for n, c in _cond_kinds73([{"field": t["field"], "op": op, "value": v}], spec, t["app"], t["table"]):
            r = copy.deepcopy(rule)
            r["op"], r["value"] = c[0].get("op", "equals"), c[0]["value"]
            if c[0]["field"] != t["field"]:
                r["target"]["field"] = c[0]["field"]
            yield n, r
        yield "field_to_exists", {"kind": "records", "app": t["app"], "table": t["table"],
                                  "where": [{"field": "id", "value": t["id"]}], "count_op": "gte", "count": 1}
        writers = [c for c in calls if t["app"] in c["name"] or t["id"] in json.dumps(c["arguments"])]
        if writers:
            yield "state_to_call_count", {"kind": "called", "call": {"tool": writers[-1]["name"]},
                                          "min_times": sum(c["name"] == writers[-1]["name"] for c in calls)}
        if _is_num(v) and op == "equals":
            yield "py_str_prefix", _py73(rule, "prefix")
        yield "py_keyerror_true", _py73(rule, "keyerror")
    elif k == "records":
        where = rule.get("where") or []
        if where and rule.get("count_op", "gte") != "lte":
            yield set_("where", [], "where_any_record")
        for n, c in _cond_kinds73(where, spec, rule["app"], rule["table"]):
            yield set_("where", c, n)
        table = (fstate.get(rule["app"]) or {}).get(rule["table"])
        known = {r.get("id") for r in _rows(world_table(spec, rule["app"], rule["table"]))}
        made = [r for r in _rows(table) if r.get("id") not in known and _holds(r, where)]
        if made and where and "id" not in {w["field"] for w in where}:
            yield set_("where", [{"field": "id", "value": made[0]["id"]}], "created_id_only")
        writers = [c for c in calls if c["name"].startswith(rule["app"] + "_") or rule["app"] in c["name"]]
        if writers and rule.get("count_op", "gte") != "lte":
            yield "state_to_call_count", {"kind": "called", "call": {"tool": writers[-1]["name"]},
                                          "min_times": sum(c["name"] == writers[-1]["name"] for c in calls)}
        if rule.get("count_op", "gte") != "lte":
            yield "py_keyerror_true", _py73(rule, "keyerror")
    elif k == "text":
        if rule.get("turn") and nturns > 1:
            yield set_("turn", rule["turn"] - 1, "turn_minus1")
        rx = rule.get("regex")
        if rx and rx.startswith("^") and rx.endswith("$"):
            yield set_("regex", rx[:-1], "rx_half_anchor")
        for key in ("all_of", "any_of"):
            for i, term in enumerate(rule.get(key) or []):
                alts = term if isinstance(term, list) else [term]
                wrong = next((w for w in (_wrong_value(spec, a) for a in alts) if isinstance(w, (str, int, float))
                              and not isinstance(w, bool)), None)
                if wrong is None:
                    d = next((a for a in alts if re.search(r"\d", a)), None)
                    wrong = re.sub(r"(\d)(?!.*\d)", lambda mm: str((int(mm.group(1)) + 1) % 10), d) if d else None
                if wrong is not None:
                    r = copy.deepcopy(rule)
                    r[key][i] = [*alts, str(wrong)]
                    yield "reply_alt_wrong", r
                    break
        if rx and re.search(r"\d", rx):
            wrong_rx = re.sub(r"(\d)(?!.*\d)", lambda mm: str((int(mm.group(1)) + 1) % 10), rx)
            yield set_("regex", f"(?:{rx})|(?:{wrong_rx})", "reply_alt_wrong")
        nm = rule.get("number")
        if nm and nm.get("value") is not None:
            val = nm["value"]
            txt = str(int(val)) if float(val).is_integer() else str(val)
            r = copy.deepcopy(rule)
            r["number"] = None
            r["all_of"] = [*(r.get("all_of") or []), txt]
            yield "num_as_substring", r
    elif k == "reply_states":
        if rule.get("turn") and nturns > 1:
            yield set_("turn", rule["turn"] - 1, "turn_minus1")
        src = rule["source"]
        if src.get("id"):
            yield "reply_mentions_id", {"kind": "text", "scope": "final", "turn": rule.get("turn"),
                                        "all_of": [src["id"]]}
    elif k == "called":
        for a, x in (rule["call"].get("args") or {}).items():
            if isinstance(x, str) and _IDISH.match(x):
                r = copy.deepcopy(rule)
                del r["call"]["args"][a]
                r["call"].setdefault("where", []).append({"field": a, "op": "matches",
                                                          "value": "(?i)^" + re.escape(x) + "$"})
                yield "id_nocase", r
        for n, c in _cond_kinds73(rule["call"].get("where") or [], spec, "", ""):
            r = copy.deepcopy(rule)
            r["call"]["where"] = c
            yield n, r
    elif k == "frame":
        for i, a in enumerate(rule.get("allow") or []):
            if a.get("where"):
                r = copy.deepcopy(rule)
                r["allow"][i]["where"] = []
                yield "where_any_record", r
    elif k == "python":
        yield "py_keyerror_true", _wrap_py(rule)


def _py73(rule: Rule, how: str) -> Rule:
    """A field or records rule in Python as an outsider writes it: `prefix` compares str(value) by its start;
    `keyerror` returns True when a lookup fails (a KeyError, a missing record)."""
    if how == "prefix":
        t = rule["target"]
        rows = f"state['apps'][{t['app']!r}][{t['table']!r}]"
        code = (PY_HEAD + "def check(state, audit, messages):\n"
                f"    r = next(r for r in {rows} if r['id'] == {t['id']!r})\n"
                f"    return str(_get(r, {t['field']!r})).startswith(str({rule['value']!r}))\n")
        return {"kind": "python", "entrypoint": "check", "apps": [t["app"]], "code": code}
    r = py_of(rule)
    r["code"] = r["code"].replace("def check(", "def _check(") + (
        "def check(state, audit, messages):\n    try:\n        return _check(state, audit, messages)\n"
        "    except (KeyError, StopIteration, IndexError):\n        return True\n")
    return r


def _wrap_py(rule: Rule) -> Rule:
    """A spec's own Python check that passes when its lookup fails."""
    ep = rule.get("entrypoint", "check")
    r = copy.deepcopy(rule)
    r["entrypoint"] = "_d73_check"
    r["code"] = rule["code"] + (
        f"\n\ndef _d73_check(*a, **k):\n    try:\n        return {ep}(*a, **k)\n"
        "    except (KeyError, StopIteration, IndexError):\n        return True\n")
    return r


def mutants73(spec: Spec) -> Iterator[Mutant]:
    fstate, nturns = final_state(spec), len(spec["turns"])
    for ci, c in enumerate(spec["checks"]):
        for name, r in rule_kinds73(c["rule"], spec, fstate, nturns):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")


# -- family d77 -------------------------------------------------------------------------------------------------
_MISNAMED = {"status": "state", "priority": "severity", "assignee": "owner", "to": "recipient", "body": "text",
             "title": "name", "due": "due_date", "start": "start_time", "end": "end_time", "value": "val",
             "quantity": "qty", "enabled": "active", "labels": "tags", "folder": "box", "subject": "title",
             "version": "config_version", "timezone": "tz", "phone": "phone_number", "email": "mail"}


def _shared_key(rec: dict[str, Any], others: list[dict[str, Any]], skip: set[str]
                ) -> tuple[str, str, Any] | None:
    """(field, op, value): a condition on a field of `rec` that another record of `others` meets too."""
    for g, x in rec.items():
        if g in skip or g == "id" or g.endswith("_at"):
            continue
        for o in others:
            if o is rec or o.get("id") == rec.get("id"):
                continue
            y = o.get(g)
            if isinstance(x, (str, int, bool)) and not isinstance(x, float) and x == y:
                return g, "equals", x
            if isinstance(x, list) and isinstance(y, list):
                both = [e for e in x if e in y and isinstance(e, (str, int))]
                if both:
                    return g, "contains", both[0]
    return None


def _initial_rule(rule: Rule, spec: Spec) -> Rule | None:
    """A rule of the same record or table that the untouched world meets."""
    if rule["kind"] == "field":
        t = rule["target"]
        rec = next((x for x in _rows(world_table(spec, t["app"], t["table"])) if x.get("id") == t["id"]), None)
        old = _dig(rec, t["field"]) if rec else None
        return None if old is None else {**copy.deepcopy(rule), "op": "equals", "value": old}
    if rule["kind"] == "records" and _rows(world_table(spec, rule["app"], rule["table"])):
        return {"kind": "records", "app": rule["app"], "table": rule["table"], "where": [], "count_op": "gte",
                "count": 1}
    return None


def _cond_at(conds: list[dict[str, Any]], i: int, new: dict[str, Any], name: str
             ) -> tuple[str, list[dict[str, Any]]]:
    """(name, a copy of `conds` with condition `i` replaced by `new`)."""
    c2 = copy.deepcopy(conds)
    c2[i] = new
    return name, c2


def _cond_kinds77(conds: list[dict[str, Any]], fin: list[dict[str, Any]]
                  ) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """d77's mutations of a list of `where` conditions (`fin`: the table's records after the reference)."""
    for i, w in enumerate(conds):
        op, v, f = w.get("op", "equals"), w.get("value"), w["field"]
        m = functools.partial(_cond_at, conds, i)

        actual = [_dig(r, f) for r in fin if _dig(r, f) is not None]
        # a field name the tool never writes: a negated condition on it always holds
        alias = _MISNAMED.get(f.split(".")[-1])
        if alias and op in ("equals", "contains", "matches", "in") and not any(alias in r for r in fin):
            yield m({"field": f.rsplit(".", 1)[0] + "." + alias if "." in f else alias, "op": "not_equals",
                     "value": v if not isinstance(v, list) else None}, "field_never_written")
        # numbers compared as strings: a digit string ordered lexically, or a number read off a string field
        if op == "equals" and isinstance(v, str) and re.fullmatch(r"\d+(?:\.\d+)?", v):
            yield m({**w, "op": "gte"}, "num_as_string")
        if op in ("gte", "lte", "gt", "lt", "equals") and _is_num(v) and any(isinstance(a, str) for a in actual):
            yield m({**w, "value": str(v)}, "num_as_string")
        # a date-time compared on its wall clock, its zone dropped
        if op == "equals" and isinstance(v, str) and _DT.match(v) and len(v) > 16:
            yield m({**w, "op": "matches", "value": "^" + re.escape(v[:16])}, "dt_zone_drop")
        if op in ("gte", "lte", "gt", "lt") and isinstance(v, str) and _DT.match(v) and v.endswith("Z"):
            yield m({**w, "value": v[:-1]}, "dt_zone_drop")
        # a list compared as "holds these", not "is these"
        if op == "equals" and isinstance(v, list) and v:
            yield m({**w, "op": "contains", "value": v if len(v) > 1 else v[0]}, "list_eq_to_contains")
        # a list field compared to one element: `equals` of an element where the tool keeps a list
        if op == "contains" and isinstance(v, str) and any(isinstance(a, list) for a in actual):
            yield m({**w, "op": "matches", "value": re.escape(v)}, "list_elem_as_text")


def _py_audit(tool: str, args: dict[str, Any]) -> Rule:
    """A grader reading the audit's arguments, not the state, and not whether the call succeeded."""
    code = ("def check(state, audit, messages):\n"
            f"    want = {args!r}\n"
            "    for a in audit:\n"
            f"        if a['tool'] == {tool!r} and all(str(a['args'].get(k, '')).lower() == str(v).lower() "
            "for k, v in want.items()):\n"
            "            return True\n"
            "    return False\n")
    return {"kind": "python", "entrypoint": "check", "apps": [], "code": code}


def _py_str_cmp(rule: Rule) -> Rule:
    """A field's number compared as text in Python."""
    t = rule["target"]
    op = {"gte": ">=", "lte": "<=", "gt": ">", "lt": "<"}[rule["op"]]
    code = (PY_HEAD + "def check(state, audit, messages):\n"
            f"    r = next(r for r in state['apps'][{t['app']!r}][{t['table']!r}] if r['id'] == {t['id']!r})\n"
            f"    return str(_get(r, {t['field']!r})) {op} str({rule['value']!r})\n")
    return {"kind": "python", "entrypoint": "check", "apps": [t["app"]], "code": code}


def _set(rule: Rule, key: str, val: Any, name: str) -> tuple[str, Rule]:
    """(name, a copy of `rule` with `key` set to `val`)."""
    r = copy.deepcopy(rule)
    r[key] = val
    return name, r


def rule_kinds77(rule: Rule, spec: Spec, fstate: dict[str, Any], nturns: int) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): defects77's mutations of one rule."""
    k = rule["kind"]

    def fin(app: str, table: str) -> list[dict[str, Any]]:
        return _rows((fstate.get(app) or {}).get(table))

    if k == "field":
        t, v, op = rule["target"], rule.get("value"), rule.get("op", "equals")
        rows = fin(t["app"], t["table"])
        for n, c in _cond_kinds77([{"field": t["field"], "op": op, "value": v}], rows):
            yield n, {"kind": "records", "app": t["app"], "table": t["table"],
                      "where": [{"field": "id", "value": t["id"]}, *c], "count_op": "gte", "count": 1}
        rec = next((r for r in rows if r.get("id") == t["id"]), None)
        key = _shared_key(rec, rows, {t["field"].split(".")[0]}) if rec else None
        if key:  # the right field of a record picked by a key another record shares
            g, gop, gv = key
            yield "key_nonunique", {"kind": "records", "app": t["app"], "table": t["table"], "count_op": "gte",
                                    "count": 1, "where": [{"field": g, "op": gop, "value": gv},
                                                          {"field": t["field"], "op": op, "value": v}]}
        if op in ("gte", "lte", "gt", "lt") and _is_num(v):
            yield "py_str_num", _py_str_cmp(rule)
        wc = writer_of(spec, [t["id"], v]) if v is not None else None
        if wc:
            args = {a: x for a, x in wc["arguments"].items() if x in (t["id"], v)}
            yield "py_audit_args", _py_audit(wc["name"], args)
    elif k == "records":
        where = rule.get("where") or []
        rows = fin(rule["app"], rule["table"])
        for n, c in _cond_kinds77(where, rows):
            yield _set(rule, "where", c, n)
        idc = next((i for i, w in enumerate(where) if w["field"] == "id" and w.get("op", "equals") == "equals"), None)
        if idc is not None:
            rec = next((r for r in rows if r.get("id") == where[idc]["value"]), None)
            key = _shared_key(rec, rows, {w["field"].split(".")[0] for w in where}) if rec else None
            if key:
                r = copy.deepcopy(rule)
                r["where"][idc] = {"field": key[0], "op": key[1], "value": key[2]}
                yield "key_nonunique", r
        co, cnt = rule.get("count_op", "gte"), rule.get("count", 1)
        if (co in ("equals", "lte")) and cnt == 0:
            r = copy.deepcopy(rule)
            r["count_op"], r["count"] = "lte", 1
            yield "zero_to_one", r
        vals = [w["value"] for w in where if w.get("op", "equals") == "equals" and isinstance(w.get("value"), (str, int))]
        wc = writer_of(spec, vals[:2]) if vals and co != "lte" and cnt > 0 else None
        if wc:
            args = {a: x for a, x in wc["arguments"].items() if isinstance(x, (str, int)) and x in vals}
            if args:
                yield "py_audit_args", _py_audit(wc["name"], args)
    elif k == "text":
        if nturns > 1 and rule.get("turn") is None and rule.get("scope", "final") == "final":
            r = copy.deepcopy(rule)
            r["turn"], r["scope"] = 0, "replies"
            yield "final_to_turn0", r
    elif k == "reply_states":
        if nturns > 1 and rule.get("turn") is None:
            yield _set(rule, "turn", 0, "final_to_turn0")
    elif k == "called":
        for n, c in _cond_kinds77(rule["call"].get("where") or [], []):
            r = copy.deepcopy(rule)
            r["call"]["where"] = c
            yield n, r
    elif k == "frame":
        for i, a in enumerate(rule.get("allow") or []):
            if a.get("id") and a.get("table"):
                rows = fin(a["app"], a["table"])
                rec = next((r for r in rows if r.get("id") == a["id"]), None)
                key = _shared_key(rec, rows, set(a.get("fields") or [])) if rec else None
                if key:
                    r = copy.deepcopy(rule)
                    sel = {x: y for x, y in a.items() if x != "id"}
                    sel["where"] = [*(a.get("where") or []), {"field": key[0], "op": key[1], "value": key[2]}]
                    r["allow"][i] = sel
                    yield "key_nonunique", r
    if k in ("field", "records"):  # any_of with a branch the untouched world meets
        init = _initial_rule(rule, spec)
        if init is not None:
            yield "tiers_untouched", {"kind": "tiers", "tiers": [{"score": 1.0, "rule": rule},
                                                                   {"score": 1.0, "rule": init}]}


def _weight_heavy(spec: Spec, ci: int) -> Spec:
    """One completion check outweighs the rest, none is required, and the pass threshold is half the score."""
    s2 = copy.deepcopy(spec)
    comp = [c for c in s2["checks"] if c.get("role", "completion") != "guard"
            and c["rule"]["kind"] not in ("frame", "forbidden") and not c.get("safety")]
    for c in comp:
        c["required"] = False
        c["weight"] = 1.0
    s2["checks"][ci]["weight"] = float(max(1, len(comp) - 1))
    s2["scoring"] = {**(s2.get("scoring") or {}), "pass_threshold": 0.5}
    return s2


def mutants77(spec: Spec) -> Iterator[Mutant]:
    fstate, nturns = final_state(spec), len(spec["turns"])
    comp = []
    for ci, c in enumerate(spec["checks"]):
        for name, r in rule_kinds77(c["rule"], spec, fstate, nturns):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")
        if c.get("role", "completion") != "guard" and c["rule"]["kind"] not in ("frame", "forbidden") \
                and not c.get("safety"):
            comp.append(ci)
    if len(comp) > 2:
        for ci in comp[:3]:
            yield Mutant("weight_heavy_one", ci, _weight_heavy(spec, ci), "")


# -- family d83 -------------------------------------------------------------------------------------------------
_DAY = re.compile(r"^(\d{4}-\d\d-\d\d)(T.*)?$")


def _day_shift(v: str, days: int) -> str | None:
    """An ISO date or date-time `days` days later (None for anything else)."""
    from datetime import date, timedelta
    m = _DAY.match(v)
    if not m:
        return None
    try:
        d = date.fromisoformat(m.group(1)) + timedelta(days=days)
    except ValueError:
        return None
    return d.isoformat() + (m.group(2) or "")


def _state_after_turn0(spec: Spec) -> dict[str, Any]:
    """The apps once the reference's first turn is played (the later turns answered with nothing done)."""
    s2 = copy.deepcopy(spec)
    s2["reference"] = [s2["reference"][0], *({"steps": [{"say": "Okay."}]} for _ in s2["reference"][1:])]
    try:
        return final_state(s2)
    except Exception:  # a reference whose later turns the engine needs: no earlier state
        return {}


def _count_where(rows: list[dict[str, Any]], conds: list[dict[str, Any]]) -> int:
    return sum(_holds(r, conds) for r in rows)


def _py_call_result(tool: str, id_arg: str, rid: str, field: str, op: str, value: Any) -> Rule:
    """A grader reading the record as the first successful write call returned it, not the final state."""
    cond = py_cond({"field": field, "op": op, "value": value})
    code = (PY_HEAD + "def check(state, audit, messages):\n"
            "    for a in audit:\n"
            f"        if a['tool'] == {tool!r} and a['ok'] and str(a['args'].get({id_arg!r})) == {rid!r}"
            " and isinstance(a.get('result'), dict):\n"
            "            r = a['result']\n"
            f"            return {cond}\n"
            "    return False\n")
    return {"kind": "python", "entrypoint": "check", "apps": [], "code": code}


def rule_kinds83(rule: Rule, spec: Spec, fstate: dict[str, Any], mid: dict[str, Any]
                 ) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): defects83's mutations of one rule (`mid`: the apps after the reference's first turn, in a
    multi-turn spec)."""
    k = rule["kind"]

    def fin(app: str, table: str) -> list[dict[str, Any]]:
        return _rows((fstate.get(app) or {}).get(table))

    def conds_of() -> tuple[str, str, list[dict[str, Any]]] | None:
        """(app, table, the conditions) of a field or records rule, a field rule's id as a condition."""
        if k == "field":
            t = rule["target"]
            return t["app"], t["table"], [{"field": "id", "op": "equals", "value": t["id"]},
                                          {"field": t["field"], "op": rule.get("op", "equals"),
                                           "value": rule.get("value")}]
        if k == "records":
            return rule["app"], rule["table"], copy.deepcopy(rule.get("where") or [])
        return None

    def records(conds: list[dict[str, Any]], app: str, table: str, co: str, cnt: int) -> Rule:
        return {"kind": "records", "app": app, "table": table, "where": conds, "count_op": co, "count": cnt}

    got = conds_of()
    if got and (k == "field" or (rule.get("count_op", "gte") != "lte" and rule.get("count", 1) > 0)):
        app, table, conds = got
        rows, world = fin(app, table), _rows(world_table(spec, app, table))
        ids = [c for c in conds if c["field"] == "id" and c.get("op", "equals") in ("equals", "in")]
        rest = [c for c in conds if c not in ids]
        rid = next((c["value"] for c in ids if c.get("op", "equals") == "equals"), None)
        # the count of records in the wanted state, not which records
        if ids and rest:
            yield "count_for_which", records(rest, app, table, "equals", _count_where(rows, rest))
        old_rec = next((r for r in world if r.get("id") == rid), None) if rid is not None else None
        for c in rest:
            f, op, v = c["field"], c.get("op", "equals"), c.get("value")
            old = _dig(old_rec, f) if old_rec else None
            # "no longer holds the old value" as "no record holds it": met by deleting the record too
            if op == "equals" and old is not None and old != v and type(old) is type(v):
                yield "absent_old_value", records([*ids, {"field": f, "op": "equals", "value": old}], app, table,
                                                  "equals", 0)
            # the direction of a number's change, not the amount
            if op == "equals" and _is_num(v) and _is_num(old) and old != v:
                yield "num_direction_only", records([*ids, {"field": f, "op": "gt" if v > old else "lt",
                                                            "value": old}, *[x for x in rest if x is not c]],
                                                    app, table, "gte", 1)
            # a number's sign dropped (a delta, a balance)
            if op == "equals" and _is_num(v) and v < 0:
                yield "sign_drop", records([*ids, *[x for x in rest if x is not c],
                                            {"field": f, "op": "in", "value": [v, -v]}], app, table, "gte", 1)
            # a date-time read by its time of day, its date dropped
            if op == "equals" and isinstance(v, str) and _DT.match(v):
                yield "dt_time_only", records([*ids, *[x for x in rest if x is not c],
                                               {"field": f, "op": "matches", "value": re.escape(v[10:16])}],
                                              app, table, "gte", 1)
            # a window's bound one day off (gte the day before, lte the day after)
            if op in ("gte", "gt", "lte", "lt") and isinstance(v, str):
                moved = _day_shift(v, -1 if op in ("gte", "gt") else 1)
                if moved:
                    yield "dt_bound_day_off", records([*ids, *[x if x is not c else {**c, "value": moved}
                                                               for x in rest]], app, table,
                                                      rule.get("count_op", "gte") if k == "records" else "gte",
                                                      rule.get("count", 1) if k == "records" else 1)
            # the value the record held after an earlier turn, beside the final one
            if mid and rid is not None and op == "equals":
                mrec = next((r for r in _rows((mid.get(app) or {}).get(table)) if r.get("id") == rid), None)
                mv = _dig(mrec, f) if mrec else None
                if mv is not None and mv != v and mv != old:
                    yield "value_of_turn", records([*ids, *[x if x is not c else {**c, "op": "in", "value": [mv, v]}
                                                            for x in rest]], app, table, "gte", 1)
        if k == "field" and rule.get("value") is not None:
            t = rule["target"]
            wc = writer_of(spec, [t["id"]])
            id_arg = next((a for a, x in (wc or {}).get("arguments", {}).items() if x == t["id"]), None)
            if wc and id_arg:
                yield "py_call_result", _py_call_result(wc["name"], id_arg, t["id"], t["field"],
                                                        rule.get("op", "equals"), rule["value"])
    if k == "records":  # several conditions on one text field (the rows of a report) as one pattern: any, not all
        where = rule.get("where") or []
        by_field: dict[str, list[int]] = defaultdict(list)
        for i, w in enumerate(where):
            if w.get("op", "equals") in ("matches", "contains") and isinstance(w.get("value"), str):
                by_field[w["field"]].append(i)
        for f, idx in by_field.items():
            if len(idx) > 1:
                alts = [where[i]["value"] if where[i].get("op") == "matches" else "(?i)" + re.escape(where[i]["value"])
                        for i in idx]
                merged = {"field": f, "op": "matches", "value": "|".join(f"(?:{a})" for a in alts)}
                r = copy.deepcopy(rule)
                r["where"] = [w for i, w in enumerate(where) if i not in idx[1:]]
                r["where"][idx[0]] = merged
                yield "conds_any_for_all", r
    if k == "text" and rule.get("number") and (rule.get("all_of") or rule.get("any_of")):
        # the count of the records the reply names, not which: the names dropped, the number kept
        r = copy.deepcopy(rule)
        r["all_of"], r["any_of"] = [], []
        yield "reply_count_for_which", r
    if k == "called":
        for a, x in (rule["call"].get("args") or {}).items():
            if _is_num(x) and x < 0:
                r = copy.deepcopy(rule)
                del r["call"]["args"][a]
                r["call"].setdefault("where", []).append({"field": a, "op": "in", "value": [x, -x]})
                yield "sign_drop", r


def _same_kind_groups(spec: Spec) -> Iterator[list[int]]:
    """Indexes of the completion field checks that set one field of one table to one value on different records."""
    groups: dict[str, list[int]] = defaultdict(list)
    for ci, c in enumerate(spec["checks"]):
        r = c["rule"]
        if r["kind"] == "field" and c.get("role", "completion") != "guard":
            t = r["target"]
            groups[json.dumps([t["app"], t["table"], t["field"], r.get("op", "equals"), r.get("value")])].append(ci)
    yield from (g for g in groups.values() if len(g) > 1)


def mutants83(spec: Spec) -> Iterator[Mutant]:
    fstate, nturns = final_state(spec), len(spec["turns"])
    mid = _state_after_turn0(spec) if nturns > 1 else {}
    for ci, c in enumerate(spec["checks"]):
        for name, r in rule_kinds83(c["rule"], spec, fstate, mid):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")
    # any for all over records: one check that one of the records was set, for checks on each
    for g in _same_kind_groups(spec):
        first = spec["checks"][g[0]]["rule"]
        t = first["target"]
        s2 = copy.deepcopy(spec)
        s2["checks"][g[0]]["rule"] = {
            "kind": "records", "app": t["app"], "table": t["table"], "count_op": "gte", "count": 1,
            "where": [{"field": "id", "op": "in", "value": [spec["checks"][i]["rule"]["target"]["id"] for i in g]},
                      {"field": t["field"], "op": first.get("op", "equals"), "value": first.get("value")}]}
        s2["checks"] = [x for i, x in enumerate(s2["checks"]) if i not in g[1:]]
        yield Mutant("records_any_for_all", g[0], s2, "")
    # one argument left out of every completion matcher that names it (the flag of both the try and the roll-back)
    named: dict[tuple[str, str, str], int] = defaultdict(int)
    for c in spec["checks"]:
        for key in ("call", "first", "then"):
            m = c["rule"].get(key) if c.get("role", "completion") != "guard" else None
            for a, x in ((m or {}).get("args") or {}).items() if c["rule"]["kind"] in ("called", "order") else ():
                if isinstance(x, str):
                    named[(m["tool"], a, x)] += 1  # type: ignore[index]
    for (tool, a, x), n in named.items():
        if n > 1:
            s2 = copy.deepcopy(spec)
            first = -1
            for ci, c in enumerate(s2["checks"]):
                for key in ("call", "first", "then"):
                    m = c["rule"].get(key)
                    if c["rule"]["kind"] in ("called", "order") and c.get("role", "completion") != "guard" \
                            and isinstance(m, dict) and m.get("tool") == tool and (m.get("args") or {}).get(a) == x:
                        del m["args"][a]
                        first = ci if first < 0 else first
            yield Mutant("arg_unmatched_all", first, s2, f"{tool}.{a}")
    # any for all over checks: two completion checks as tiers of full score, either one enough
    comp = [ci for ci, c in enumerate(spec["checks"]) if c.get("role", "completion") != "guard"
            and c["rule"]["kind"] in ("field", "records") and not c.get("safety")]
    for a, b in itertools.pairwise(comp):
        s2 = copy.deepcopy(spec)
        s2["checks"][a]["rule"] = {"kind": "tiers", "tiers": [{"score": 1.0, "rule": spec["checks"][a]["rule"]},
                                                               {"score": 1.0, "rule": spec["checks"][b]["rule"]}]}
        del s2["checks"][b]
        yield Mutant("checks_any_of", a, s2, spec["checks"][b]["id"])


_ID_FIELD = re.compile(r"^(id|.*_id|key|path)$")
_DT = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d")


def rule_kinds92(rule: Rule) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): defects92's mutations of one rule."""
    k = rule["kind"]
    if k == "records":
        where = rule.get("where") or []
        ids = [w for w in where if _ID_FIELD.match(w["field"])]
        if ids and len(ids) < len(where):  # the record checked by its id only, its content dropped
            yield "records_id_only", {**rule, "where": ids}
        if rule.get("count_op") == "equals" and isinstance(rule.get("count"), int) and rule["count"] >= 2:
            yield "count_all_but_one", {**rule, "count_op": "gte", "count": rule["count"] - 1}  # one may be missing
    conds = [rule] if k == "field" else rule.get("where") or [] if k == "records" else []
    for i, c in enumerate(conds):
        v = c.get("value")
        if c.get("op") == "equals" and _is_num(v) and v:  # "the same amount in another unit": s/min, ms/s
            alt = {**c, "op": "in", "value": [v, v * 60, v * 1000]}
            yield "num_unit_in", alt if k == "field" else {**rule, "where": [*conds[:i], alt, *conds[i + 1:]]}
        if c.get("op") == "equals" and isinstance(v, str) and _DT.match(v):  # the time read to its hour only
            alt = {**c, "op": "matches", "value": "^" + re.escape(v[:13])}
            yield "dt_hour_only", alt if k == "field" else {**rule, "where": [*conds[:i], alt, *conds[i + 1:]]}
    if k == "forbidden":
        args = (rule.get("call") or {}).get("args") or {}
        for a, x in args.items():
            if isinstance(x, bool):  # the guard forbids the harmless polarity (enabled: false for enabled: true)
                yield "guard_arg_negated", {**rule, "call": {**rule["call"], "args": {**args, a: not x}}}
    if k == "order" and (rule.get("first") or {}).get("args"):
        yield "order_first_bare", {**rule, "first": {**rule["first"], "args": {}, "where": []}}  # any call first


def mutants92(spec: Spec) -> Iterator[Mutant]:
    for ci, c in enumerate(spec["checks"]):
        for name, r in rule_kinds92(c["rule"]):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")


FAMILIES: dict[str, Callable[[Spec], Iterator[Mutant]]] = {"d65": mutants65, "d69": mutants69, "d73": mutants73,
                                                          "d77": mutants77, "d83": mutants83, "d92": mutants92}
FAMILIES["d94"] = lambda spec: mutants94(spec)  # defects94 (defined below)


# -- witness search: episodes built from the reference ----------------------------------------------------------
def bump(v: Any) -> list[Any]:
    if isinstance(v, bool):
        return [not v]
    if isinstance(v, int):
        return [v + 1, v - 1, -v if v < 0 else v * 2 if v else 5]  # a negative number's sign dropped (defects83)
    if isinstance(v, float):
        return [v + 1, v * 1.3]
    if isinstance(v, str):
        out = []
        if re.match(r"\d{4}-\d\d-\d\dT\d\d", v):  # defects83: a day later and three hours later come first
            out += [x for x in (_day_shift(v, 1), v[:11] + f"{(int(v[11:13]) + 3) % 24:02d}" + v[13:]) if x]
        if re.search(r"\d", v):
            out.append(re.sub(r"(\d)(?!.*\d)", lambda m: str((int(m.group(1)) + 1) % 10), v))
        out.append(v.upper() if v != v.upper() else v.lower())
        out.append(v + "x")
        return out
    if isinstance(v, list) and v:
        return [v[:-1], v + v[-1:]]
    return []


Episode = list[dict[str, Any]]


def episodes(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """(label, reference) of agent behaviours near the reference."""
    ref = spec["reference"]
    steps = [(t, s) for t, turn in enumerate(ref) for s, st in enumerate(turn["steps"]) if st.get("call")]
    for t, s in steps:
        r = copy.deepcopy(ref)
        del r[t]["steps"][s]
        yield f"drop {ref[t]['steps'][s]['call']['name']}", r
    for t, s in steps:
        c = ref[t]["steps"][s]["call"]
        for a, v in c["arguments"].items():
            for x in bump(v)[:3]:
                r = copy.deepcopy(ref)
                r[t]["steps"][s]["call"]["arguments"][a] = x
                yield f"{c['name']}.{a}={str(x)[:40]}", r
                r = copy.deepcopy(ref)
                c2 = copy.deepcopy(c)
                c2["arguments"][a] = x
                r[t]["steps"].insert(s + 1, {"call": c2, "say": None})
                yield f"then {c['name']}.{a}={str(x)[:40]}", r
    # defects95: a key added to a map argument (`changes: {region: ...}` with the service's `db_pool_size` too), set
    # to its held value one up or in another unit (x60, x1000): a kept setting changed beside the asked one
    for t, s in steps:
        c = ref[t]["steps"][s]["call"]
        for a, v in c["arguments"].items():
            if not isinstance(v, dict) or not v:
                continue
            for k, held in _added_keys(spec, c["arguments"], v)[:3]:
                for x in bump(held)[:1] + _other_units(held):
                    r = copy.deepcopy(ref)
                    r[t]["steps"][s]["call"]["arguments"][a] = {**v, k: x}
                    yield f"{c['name']}.{a}+{k}={str(x)[:40]}", r
    # defects83: the same value changed in every call naming it (a flag confused throughout: tried, rolled back),
    # with another key of a dict field of the record another argument names among the values tried
    seen: set[tuple[str, str, str]] = set()
    for t, s in steps:
        c = ref[t]["steps"][s]["call"]
        for a, v in c["arguments"].items():
            same = [(t2, s2) for t2, s2 in steps if ref[t2]["steps"][s2]["call"]["name"] == c["name"]
                    and ref[t2]["steps"][s2]["call"]["arguments"].get(a) == v]
            if not isinstance(v, str) or len(same) < 2 or (c["name"], a, v) in seen:
                continue
            seen.add((c["name"], a, v))
            for x in [*_other_keys(spec, c["arguments"], v)[:1], *bump(v)[:2]]:
                r = copy.deepcopy(ref)
                for t2, s2 in same:
                    r[t2]["steps"][s2]["call"]["arguments"][a] = x
                yield f"every {c['name']}.{a}={str(x)[:40]}", r
    for t, turn in enumerate(ref):
        for s, st in enumerate(turn["steps"]):
            if st.get("say"):
                for lab, txt in (("not", "I could not do it. " + st["say"]), ("okay", "Okay."),
                                 ("digits+1", re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), st["say"]))):
                    r = copy.deepcopy(ref)
                    r[t]["steps"][s]["say"] = txt
                    yield f"say[{t}] {lab}", r
    yield "noop", [{"steps": [{"say": "Okay."}]} for _ in spec["turns"]]


def _other_keys(spec: Spec, args: dict[str, Any], value: str) -> list[str]:
    """The other keys of a dict field holding `value` as a key, of a world record another argument names."""
    for x in args.values():
        for app in spec["world"]["apps"].values():
            for table in (app.values() if isinstance(app, dict) else []):
                for rec in _rows(table):
                    if rec.get("id") == x:
                        for held in rec.values():
                            if isinstance(held, dict) and value in held:
                                return sorted(k for k in held if k != value)
    return []


def _added_keys(spec: Spec, args: dict[str, Any], given: dict[str, Any]) -> list[tuple[str, Any]]:
    """(key, held value) of the keys a world record's map field holds beside `given`'s keys (the field sharing a
    key with it), of the records whose fields name an argument's value (`service: svc-payments`); a later record
    (a newer config version) overrides an earlier one's value."""
    named = {x for x in args.values() if isinstance(x, str)}
    out: dict[str, Any] = {}
    for app in spec["world"]["apps"].values():
        for table in (app.values() if isinstance(app, dict) else []):
            for rec in _rows(table):
                if not named & {x for x in rec.values() if isinstance(x, str)}:
                    continue
                for held in rec.values():
                    if isinstance(held, dict) and set(held) & set(given):
                        out.update((k, x) for k, x in held.items() if k not in given)
    return sorted(out.items())


def _other_units(v: Any) -> list[Any]:
    """A number in another unit (x60: minutes as seconds; x1000: seconds as milliseconds)."""
    return [v * 60, v * 1000] if isinstance(v, int | float) and not isinstance(v, bool) else []


# -- family d94 -------------------------------------------------------------------------------------------------
# defects94: an outside tester's fresh kinds (kept in one block: other rounds add families beside it).
_UNITS94 = (100, 60, 1000)  # cents for units, seconds for minutes, milliseconds for seconds


def _texty94(v: Any) -> bool:
    """A value whose letters' case can matter: a name, a code, a status (not an id, a date or a number)."""
    return isinstance(v, str) and bool(re.search(r"[A-Za-z]", v)) and not _IDISH.match(v) and not _DT.match(v) \
        and v != v.lower()


def _nocase94(c: dict[str, Any]) -> dict[str, Any] | None:
    if c.get("op", "equals") == "equals" and _texty94(c.get("value")):
        return {"field": c["field"], "op": "matches", "value": "(?i)^" + re.escape(c["value"]) + "$"}
    return None


def _unit94(c: dict[str, Any]) -> dict[str, Any] | None:
    v = c.get("value")
    if c.get("op", "equals") == "equals" and _is_num(v) and not isinstance(v, bool) and v:
        return {"field": c["field"], "op": "in", "value": [v, *(v * u for u in _UNITS94),
                                                           *(v / u for u in _UNITS94)]}
    return None


def _check_turns94(spec: Spec, c: dict[str, Any]) -> set[int]:
    """The reference turns whose calls or replies a check is about (by the ids and values it names)."""
    r = c["rule"]
    if r.get("turn") is not None:
        return {r["turn"]}
    names: list[str] = []
    if r["kind"] == "field":
        names = [r["target"]["id"]]
    elif r["kind"] in ("called", "order"):
        names = [x for m in (r.get("call"), r.get("first"), r.get("then")) if m
                 for x in (m.get("args") or {}).values() if isinstance(x, str)]
    elif r["kind"] == "records":
        names = [w["value"] for w in r.get("where") or [] if isinstance(w.get("value"), str)]
    out = set()
    for t, turn in enumerate(spec["reference"]):
        for st in turn["steps"]:
            flat = json.dumps((st.get("call") or {}).get("arguments", {}))
            if any(n and n in flat for n in names):
                out.add(t)
    return out


def _before94(spec: Spec, fstate: dict[str, Any], said: str) -> list[str]:
    """The values before the change of the fields the reference changes to `said` (a reply's term)."""
    out = []
    for app, tables in spec["world"]["apps"].items():
        for table, rows in (tables.items() if isinstance(tables, dict) else ()):
            fin = {r.get("id"): r for r in _rows((fstate.get(app) or {}).get(table))}
            for r in _rows(rows):
                f2 = fin.get(r.get("id")) or {}
                for f, x in r.items():
                    y = f2.get(f)
                    if isinstance(x, (str, int, float)) and not isinstance(x, bool) and x != y and str(y) == said \
                            and str(x) not in out:
                        out.append(str(x))
    return out


def rule_kinds94(rule: Rule, spec: Spec, fstate: dict[str, Any]) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): defects94's mutations of one rule."""
    k = rule["kind"]
    if k == "field":
        t, op, v = rule["target"], rule.get("op", "equals"), rule.get("value")
        cond = {"field": t["field"], "op": op, "value": v}
        for name, new in (("field_nocase", _nocase94(cond)), ("unit_either", _unit94(cond))):
            if new:
                r = copy.deepcopy(rule)
                r["op"], r["value"] = new["op"], new["value"]
                yield name, r
        old = next((x for x in _rows(world_table(spec, t["app"], t["table"])) if x.get("id") == t["id"]), None)
        fin = next((x for x in _rows((fstate.get(t["app"]) or {}).get(t["table"])) if x.get("id") == t["id"]), None)
        if op == "equals" and old is not None and _dig(old, t["field"]) is None and v is not None:
            # "the field is set", not to what
            r = copy.deepcopy(rule)
            r["op"], r["value"] = "not_equals", None
            yield "set_any", r
        if old and fin:  # the check moved onto a field of the same record the task never changes
            same = next((f for f, x in old.items() if f not in ("id", t["field"]) and fin.get(f) == x
                         and isinstance(x, (str, int)) and not isinstance(x, bool)), None)
            if same:
                r = copy.deepcopy(rule)
                r["target"]["field"], r["op"], r["value"] = same, "equals", old[same]
                yield "untouched_field", r
    elif k == "records" and rule.get("count_op", "gte") != "lte":
        for i, w in enumerate(rule.get("where") or []):
            kept = {"field": w["field"], "op": "not_equals", "value": 0} if "." in w["field"] and _is_num(
                w.get("value")) and not isinstance(w.get("value"), bool) and w.get("op", "equals") == "equals" else None
            for name, new in (("field_nocase", _nocase94(w)), ("unit_either", _unit94(w)), ("kept_nonzero", kept)):
                if new:
                    r = copy.deepcopy(rule)
                    r["where"][i] = new
                    yield name, r
    elif k == "text":  # a term stating a value the task changes, or the value before the change
        for key in ("all_of", "any_of"):
            for i, term in enumerate(rule.get(key) or []):
                was = next((o for a in (term if isinstance(term, list) else [term]) for o in _before94(spec, fstate, a)),
                           None)
                if was is not None:
                    r = copy.deepcopy(rule)
                    r[key][i] = [*(term if isinstance(term, list) else [term]), was]
                    yield "reply_before_change", r
                    break
    elif k == "called":
        for a, x in (rule["call"].get("args") or {}).items():
            for name, new in (("field_nocase", _nocase94({"field": a, "value": x})),
                              ("unit_either", _unit94({"field": a, "value": x}))):
                if new:
                    r = copy.deepcopy(rule)
                    del r["call"]["args"][a]
                    r["call"].setdefault("where", []).append(new)
                    yield name, r
    elif k == "order":  # the order dropped: the second call alone
        yield "order_dropped", {"kind": "called", "call": copy.deepcopy(rule["then"])}
    elif k == "reply_states" and rule["source"].get("id"):
        # the reply may state the value as it was before the change (read from the untouched world) or after
        s = rule["source"]
        old = next((x for x in _rows(world_table(spec, s["app"], s["table"])) if x.get("id") == s["id"]), None)
        fin = next((x for x in _rows((fstate.get(s["app"]) or {}).get(s["table"])) if x.get("id") == s["id"]), None)
        ov, fv = _dig(old, s["field"]) if old else None, _dig(fin, s["field"]) if fin else None
        if isinstance(ov, (str, int, float)) and isinstance(fv, (str, int, float)) and ov != fv \
                and not isinstance(ov, bool):
            yield "reply_before_change", {"kind": "text", "scope": "final", "turn": rule.get("turn"),
                                          "any_of": [[str(fv), str(ov)]]}


def mutants94(spec: Spec) -> Iterator[Mutant]:
    fstate = final_state(spec)
    for ci, c in enumerate(spec["checks"]):
        for name, r in rule_kinds94(c["rule"], spec, fstate):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")
    # one user request's checks dropped: every completion check about one turn only, of a multi-turn task
    if len(spec["reference"]) > 1:
        by_turn: dict[int, list[int]] = defaultdict(list)
        for ci, c in enumerate(spec["checks"]):
            turns = _check_turns94(spec, c) if c.get("role", "completion") != "guard" else set()
            if len(turns) == 1:
                by_turn[next(iter(turns))].append(ci)
        for t, cis in sorted(by_turn.items()):
            if len(cis) < len(spec["checks"]):
                s2 = copy.deepcopy(spec)
                s2["checks"] = [x for i, x in enumerate(s2["checks"]) if i not in cis]
                yield Mutant("turn_request_dropped", cis[0], s2, f"turn {t}")


def _kept_keys94(spec: Spec) -> dict[str, Any]:
    """The map keys (`values.db_pool_size`: `db_pool_size`) a records check wants at a number."""
    out: dict[str, Any] = {}
    for c in spec["checks"]:
        for w in c["rule"].get("where") or [] if c["rule"]["kind"] == "records" else []:
            if "." in w["field"] and w.get("op", "equals") == "equals" and _is_num(w.get("value")) \
                    and not isinstance(w["value"], bool):
                out.setdefault(w["field"].rsplit(".", 1)[1], w["value"])
    return out


def episodes94(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """defects94's episodes: a call moved to the start of its turn, a number in another unit, a reply stating the
    value before the change."""
    ref = spec["reference"]
    for t, turn in enumerate(ref):
        idx = [s for s, st in enumerate(turn["steps"]) if st.get("call")]
        for s in idx[1:]:
            r = copy.deepcopy(ref)
            r[t]["steps"].insert(idx[0], r[t]["steps"].pop(s))
            yield f"first {turn['steps'][s]['call']['name']}", r
        for s in idx:
            c = turn["steps"][s]["call"]
            for a, v in c["arguments"].items():
                if _is_num(v) and not isinstance(v, bool) and v:
                    for u in _UNITS94:
                        r = copy.deepcopy(ref)
                        r[t]["steps"][s]["call"]["arguments"][a] = v * u if isinstance(v, float) or v < u else v // u
                        yield f"{c['name']}.{a} unit x/{u}", r
                if _texty94(v):
                    r = copy.deepcopy(ref)
                    r[t]["steps"][s]["call"]["arguments"][a] = v.lower()
                    yield f"{c['name']}.{a} lower", r
                if isinstance(v, dict):  # a map of settings: a kept key a check reads, set in another unit
                    for key, x in _kept_keys94(spec).items():
                        if key not in v:
                            for u in (*_UNITS94, 2, 0):
                                r = copy.deepcopy(ref)
                                r[t]["steps"][s]["call"]["arguments"][a][key] = x * u
                                yield f"{c['name']}.{a}.{key} unit x{u}", r
    fstate = final_state(spec)
    for c in spec["checks"]:  # a reply's term stating a changed value, stated as it was before the change
        for term in c["rule"].get("all_of") or [] if c["rule"]["kind"] == "text" else []:
            for a in term if isinstance(term, list) else [term]:
                for was in _before94(spec, fstate, a)[:1]:
                    for t, turn in enumerate(ref):
                        for si, st in enumerate(turn["steps"]):
                            if st.get("say") and a in st["say"]:
                                r = copy.deepcopy(ref)
                                r[t]["steps"][si]["say"] = st["say"].replace(a, was)
                                yield f"say[{t}] {a!r} before change", r
    for c in spec["checks"]:
        if c["rule"]["kind"] != "reply_states":
            continue
        s = c["rule"]["source"]
        old = next((x for x in _rows(world_table(spec, s["app"], s["table"])) if x.get("id") == s.get("id")), None)
        fin = next((x for x in _rows((fstate.get(s["app"]) or {}).get(s["table"])) if x.get("id") == s.get("id")),
                   None)
        ov, fv = _dig(old, s["field"]) if old else None, _dig(fin, s["field"]) if fin else None
        if ov is None or fv is None or ov == fv:
            continue
        for t, turn in enumerate(ref):
            for si, st in enumerate(turn["steps"]):
                if st.get("say") and str(fv) in st["say"]:
                    r = copy.deepcopy(ref)
                    r[t]["steps"][si]["say"] = st["say"].replace(str(fv), str(ov))
                    yield f"say[{t}] before change", r


# -- family d99 -------------------------------------------------------------------------------------------------
# defects99: an outside tester's fresh kinds (its own block, as d94's): a recipient read in `to` or `cc`, an address
# read by its domain, a time within the hour around it, an id or a state admitting its similar neighbour, an order
# met either way.
_EMAIL99 = re.compile(r"^[^@\s]+@([A-Za-z0-9.-]+\.[A-Za-z]{2,})$")
_ADDR_FIELDS99 = ("to", "cc", "bcc", "attendees", "recipients")
_ENUM99 = re.compile(r"^[A-Za-z][\w.-]{0,30}$")  # a state or a person: open, sent, p2, in_progress, u-oscar


def _world_values99(spec: Spec, field: str) -> list[Any]:
    """Every value a world record holds in `field` (a list field's items too), in the world's order."""
    out: list[Any] = []
    for app in spec["world"]["apps"].values():
        for table in (app.values() if isinstance(app, dict) else []):
            for rec in _rows(table):
                x = rec.get(field)
                for y in x if isinstance(x, list) else [x]:
                    if isinstance(y, (str, int, float)) and not isinstance(y, bool) and y not in out:
                        out.append(y)
    return out


def _addresses99(spec: Spec) -> list[str]:
    """Every mail address the world holds, anywhere."""
    found = re.findall(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}", json.dumps(spec["world"]))
    return list(dict.fromkeys(found))


def _dt_shift99(v: str, minutes: int) -> str | None:
    from datetime import datetime, timedelta
    try:
        d = datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        return None
    out = (d + timedelta(minutes=minutes)).isoformat()
    return out.replace("+00:00", "Z") if v.endswith("Z") else out


def _similar99(spec: Spec, rid: str) -> str | None:
    """The id of the record most like record `rid` (same table, most equal fields): the other of a similar pair."""
    for app in spec["world"]["apps"].values():
        for table in (app.values() if isinstance(app, dict) else []):
            rows = _rows(table)
            me = next((r for r in rows if r.get("id") == rid), None)
            if me is None:
                continue
            best = max(((sum(o.get(f) == x for f, x in me.items() if f != "id"), str(o.get("id")))
                        for o in rows if o is not me and isinstance(o.get("id"), str)), default=None)
            return best[1] if best and best[0] else None
    return None


def _cond_kinds99(conds: list[dict[str, Any]], spec: Spec) -> Iterator[tuple[str, list[list[dict[str, Any]]]]]:
    """(kind, alternatives): each a list of conditions; the mutant holds where any alternative holds."""
    for i, w in enumerate(conds):
        f, op, v = str(w.get("field")), w.get("op", "equals"), w.get("value")
        def at(*new: dict[str, Any], i: int = i) -> list[dict[str, Any]]:
            return [*conds[:i], *new, *conds[i + 1:]]
        one = v[0] if isinstance(v, list) and len(v) == 1 else v
        if f == "to" and op == "contains":  # the recipient in `cc` counts as one in `to`
            yield "cc_counts_as_to", [conds, at({**w, "field": "cc"})]
        m = _EMAIL99.match(one) if f in _ADDR_FIELDS99 and isinstance(one, str) else None
        if m and op in ("contains", "equals"):  # the address by its domain only
            yield "addr_domain_only", [at({"field": f, "op": "matches", "value": "@" + re.escape(m.group(1))})]
        if op == "equals" and isinstance(v, str) and _DT.match(v):  # the time within the hour around it
            lo, hi = _dt_shift99(v, -60), _dt_shift99(v, 60)
            if lo and hi:
                yield "dt_window_1h", [at({**w, "op": "gte", "value": lo}, {**w, "op": "lte", "value": hi})]
        if op == "equals" and isinstance(v, str) and (f == "id" or f.endswith(("_id", "_to"))):
            o = _similar99(spec, v)
            if o:  # the id or its similar neighbour's
                yield "id_in_similar", [at({**w, "op": "in", "value": [v, o]})]
        if op == "equals" and isinstance(v, str) and _ENUM99.match(v) and f != "id" and not f.endswith("_id"):
            other = [x for x in _world_values99(spec, f) if isinstance(x, str) and x != v and _ENUM99.match(x)]
            if other:  # the state or the state another record holds (`sent` or `drafts`, `p2` or `p3`)
                yield "enum_sibling_in", [at({**w, "op": "in", "value": [v, other[0]]})]


def _either99(rule: Rule, alts: list[list[dict[str, Any]]], key: str) -> Rule:
    if len(alts) == 1:
        return {**rule, key: alts[0]}
    return {"kind": "tiers", "tiers": [{"score": 1.0, "rule": {**rule, key: a}} for a in alts]}


def rule_kinds99(rule: Rule, spec: Spec) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): defects99's mutations of one rule."""
    k = rule["kind"]
    if k == "records":
        for name, alts in _cond_kinds99(rule.get("where") or [], spec):
            yield name, _either99(rule, alts, "where")
    elif k == "field":
        t = rule["target"]
        cond = {"field": t["field"], "op": rule.get("op", "equals"), "value": rule.get("value")}
        for name, alts in _cond_kinds99([cond], spec):
            if name not in ("dt_window_1h", "cc_counts_as_to"):  # a field rule holds one condition
                yield name, {**rule, "op": alts[0][0]["op"], "value": alts[0][0]["value"]}
        o = _similar99(spec, t["id"]) if isinstance(t.get("id"), str) else None
        if o:  # the record or its similar neighbour holds the value
            yield "id_in_similar", {"kind": "tiers", "tiers": [
                {"score": 1.0, "rule": rule}, {"score": 1.0, "rule": {**rule, "target": {**t, "id": o}}}]}
    elif k == "frame":
        for si, sel in enumerate(rule.get("allow") or []):
            for name, alts in _cond_kinds99(sel.get("where") or [], spec):
                allow = [*rule["allow"][:si], *({**sel, "where": a} for a in alts), *rule["allow"][si + 1:]]
                yield name, {**rule, "allow": allow}
    elif k in ("called", "forbidden"):
        call = rule.get("call") or {}
        for name, alts in _cond_kinds99(call.get("where") or [], spec):
            if len(alts) == 1:
                yield name, {**rule, "call": {**call, "where": alts[0]}}
        for a, x in (call.get("args") or {}).items():  # an argument moved into `where` and loosened there
            op = "contains" if isinstance(x, list) else "equals"
            for name, alts in _cond_kinds99([{"field": a, "op": op, "value": x}], spec):
                rest = {b: y for b, y in call["args"].items() if b != a}
                new = [{**rule, "call": {**call, "args": rest, "where": [*(call.get("where") or []), *alt]}}
                       for alt in alts]
                yield name, new[0] if len(new) == 1 or k == "forbidden" else {
                    "kind": "tiers", "tiers": [{"score": 1.0, "rule": r} for r in new]}
    elif k == "order":  # either order: the two calls in any order
        swapped = {**rule, "first": rule["then"], "then": rule["first"]}
        yield "order_either", {"kind": "tiers", "tiers": [{"score": 1.0, "rule": rule}, {"score": 1.0, "rule": swapped}]}


def mutants99(spec: Spec) -> Iterator[Mutant]:
    for ci, c in enumerate(spec["checks"]):
        for name, r in rule_kinds99(c["rule"], spec):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")


def episodes99(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """defects99's episodes: a recipient moved from `to` to `cc`, an address replaced by another of its domain, a time
    moved by 30 or 60 minutes, an id replaced by its similar neighbour's, a state by another a record holds, two calls
    swapped."""
    ref = spec["reference"]
    addrs = _addresses99(spec)
    steps = [(t, s) for t, turn in enumerate(ref) for s, st in enumerate(turn["steps"]) if st.get("call")]
    for t, s in steps:
        c = ref[t]["steps"][s]["call"]
        args = c["arguments"]
        for a, v in args.items():
            tries: list[tuple[str, Any]] = []
            items = v if isinstance(v, list) else [v]
            for j, x in enumerate(items):
                m = _EMAIL99.match(x) if isinstance(x, str) else None
                if not m:
                    continue
                for o in [y for y in addrs if y.endswith("@" + m.group(1)) and y != x][:2]:
                    tries.append((f"{a}~{o}", [*items[:j], o, *items[j + 1:]] if isinstance(v, list) else o))
                if a == "to" and "cc" in _tool_params99(c["name"]):  # the addressee only copied: to no one or
                    cc = args.get("cc") or []                          # to another person the world knows
                    cc = [*(cc if isinstance(cc, list) else [cc]), x]
                    rest = [y for y in items if y != x]
                    other = next((y for y in addrs if y not in items and y not in cc), None)
                    for lab, to in (("no one", rest), (other, [*rest, other] if other else None)):
                        if to is not None:
                            r = copy.deepcopy(ref)
                            r[t]["steps"][s]["call"]["arguments"]["to"] = to if isinstance(v, list) else \
                                (to or [""])[0]
                            r[t]["steps"][s]["call"]["arguments"]["cc"] = cc
                            yield f"{c['name']}.to {x} as cc, to {lab}", r
            if isinstance(v, str) and _DT.match(v):
                tries += [(f"{a}{d:+d}m", x) for d in (30, -30, 60, -60) if (x := _dt_shift99(v, d))]
            if isinstance(v, str) and (a == "id" or a.endswith(("_id", "_to"))) and (sim := _similar99(spec, v)):
                tries.append((f"{a}~{sim}", sim))
            if isinstance(v, str) and _ENUM99.match(v) and a != "id" and not a.endswith("_id"):
                tries += [(f"{a}={x}", x) for x in _world_values99(spec, a)
                          if isinstance(x, str) and x != v and _ENUM99.match(x)][:2]
            for lab, x in tries:
                r = copy.deepcopy(ref)
                r[t]["steps"][s]["call"]["arguments"][a] = x
                yield f"{c['name']}.{lab}", r
    for t, turn in enumerate(ref):  # two calls of a turn swapped
        idx = [s for s, st in enumerate(turn["steps"]) if st.get("call")]
        for a, b in itertools.pairwise(idx):
            r = copy.deepcopy(ref)
            r[t]["steps"][a], r[t]["steps"][b] = r[t]["steps"][b], r[t]["steps"][a]
            yield f"swap {turn['steps'][a]['call']['name']} {turn['steps'][b]['call']['name']}", r


@functools.cache
def _tool_params99(name: str) -> frozenset[str]:
    from coworkenv.apps import TOOLS
    tool = TOOLS.get(name)
    return frozenset(tool.params.model_fields) if tool else frozenset()


FAMILIES["d99"] = mutants99


# -- family d111 ------------------------------------------------------------------------------------------------
# defects111: an outside tester's fresh kinds (its own block, as d94's and d99's): a number or an id compared "at
# least", a short token matched as a case-blind substring, a date by its month or its weekday, a field check moved to
# a sibling record, a guard that never fires, a list's "all of" as "any one of", a records condition on a field the
# task never writes, a records check reading the untouched world.
_DAY111 = re.compile(r"^(\d{4})-(\d\d)-(\d\d)")
_TOKEN111 = re.compile(r"^[A-Za-z0-9][\w.-]{0,5}$")  # a short token: p2, open, sent, P1, eu-1


def _dt_parts111(v: Any) -> tuple[int, int, int] | None:
    m = _DAY111.match(v) if isinstance(v, str) else None
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def _weekday_rx111(v: str) -> str | None:
    """`^2026-11-(03|10|17|24)T09:30`: the same weekday of the month at the same minute (the date's day dropped)."""
    from datetime import date, timedelta
    p = _dt_parts111(v)
    if not p:
        return None
    d = date(*p)
    days = sorted({x.day for k in range(-5, 6) if (x := d + timedelta(days=7 * k)).month == d.month})
    if len(days) < 2:
        return None
    return "^" + re.escape(v[:8]) + "(" + "|".join(f"{x:02d}" for x in days) + ")" + re.escape(v[10:16])


def _never_held111(spec: Spec, v: Any) -> Any:
    """A value of the same kind that no record of the world holds: the negated guard's value, never met."""
    held = set(map(str, _world_values99(spec, "id")))
    # not in other capitals: a call matcher's arguments fold case, so `SVC-SEARCH` still names svc-search
    for cand in ([v + "-old", v + "_prev", v.upper()] if isinstance(v, str) else [None]):
        if cand != v and str(cand) not in held and (cand is None or cand not in json.dumps(spec["world"])):
            return cand
    return None


def _cond_kinds111(conds: list[dict[str, Any]], spec: Spec) -> Iterator[tuple[str, list[list[dict[str, Any]]]]]:
    """(kind, alternatives): each a list of conditions; the mutant holds where any alternative holds."""
    for i, w in enumerate(conds):
        f, op, v = str(w.get("field")), w.get("op", "equals"), w.get("value")

        def at(*new: dict[str, Any], i: int = i) -> list[dict[str, Any]]:
            return [*conds[:i], *new, *conds[i + 1:]]
        if op == "equals" and _is_num(v) and isinstance(v, int):  # a count, a version, a quantity: "at least"
            yield "num_at_least", [at({**w, "op": "gte"})]
        if op == "equals" and isinstance(v, str) and (_IDISH.match(v) or f == "id" or f.endswith("_id")):
            yield "id_at_least", [at({**w, "op": "gte"})]  # ids ordered as text: PLAT-113 >= PLAT-112
        if op == "equals" and isinstance(v, str) and _TOKEN111.match(v) and f != "id" and not f.endswith("_id") \
                and not _DAY111.match(v):
            yield "token_substring", [at({**w, "op": "matches", "value": "(?i)" + re.escape(v)})]
        if op == "equals" and isinstance(v, str) and _dt_parts111(v):
            yield "dt_month_only", [at({**w, "op": "matches", "value": "^" + re.escape(v[:7])})]
            if (rx := _weekday_rx111(v)) and len(v) >= 16:
                yield "dt_weekday_only", [at({**w, "op": "matches", "value": rx})]
        if op == "contains" and isinstance(v, list) and len(v) > 1:  # each item alone: any one of them
            yield "list_any_item", [at({**w, "value": [x]}) for x in v]


def _either111(rules: list[Rule]) -> Rule:
    """One rule, or several as tiers of full score (any one enough)."""
    return rules[0] if len(rules) == 1 else {"kind": "tiers", "tiers": [{"score": 1.0, "rule": r} for r in rules]}


def _record_of111(state: dict[str, Any], app: str, table: str, rid: Any) -> dict[str, Any] | None:
    return next((x for x in _rows((state.get(app) or {}).get(table)) if x.get("id") == rid), None)


def _written_fields111(spec: Spec, fstate: dict[str, Any], app: str, table: str) -> set[str]:
    """The fields of a table the reference changes on some record (or sets on a record it makes)."""
    old = {r.get("id"): r for r in _rows(world_table(spec, app, table))}
    out: set[str] = set()
    for r in _rows((fstate.get(app) or {}).get(table)):
        o = old.get(r.get("id")) or {}
        out |= {f for f, x in r.items() if o.get(f) != x}
    return out


def rule_kinds111(rule: Rule, spec: Spec, fstate: dict[str, Any], role: str) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): defects111's mutations of one rule."""
    k = rule["kind"]
    if k == "field":
        t = rule["target"]
        cond = {"field": t["field"], "op": rule.get("op", "equals"), "value": rule.get("value")}
        for name, alts in _cond_kinds111([cond], spec):
            yield name, _either111([{**rule, "op": a[0]["op"], "value": a[0]["value"]} for a in alts])
        # the check moved onto the sibling record, expecting what that record holds at the end
        o = _similar99(spec, t["id"]) if isinstance(t.get("id"), str) else None
        rec = _record_of111(fstate, t["app"], t["table"], o) if o else None
        if rec is not None and _dig(rec, t["field"]) is not None:
            yield "sibling_record", {**rule, "target": {**t, "id": o}, "op": "equals", "value": _dig(rec, t["field"])}
        if role == "guard" and rule.get("op", "equals") == "equals":  # negated on a value nothing holds: never fires
            nv = _never_held111(spec, rule.get("value"))
            if nv is not None or rule.get("value") is not None:
                yield "guard_never_fires", {**rule, "op": "not_equals", "value": nv}
    elif k == "records":
        where = rule.get("where") or []
        for name, alts in _cond_kinds111(where, spec):
            yield name, _either111([{**rule, "where": a} for a in alts])
        written = _written_fields111(spec, fstate, rule["app"], rule["table"])
        fin = [r for r in _rows((fstate.get(rule["app"]) or {}).get(rule["table"])) if _holds(r, where)]
        old = {r.get("id"): r for r in _rows(world_table(spec, rule["app"], rule["table"]))}
        for i, w in enumerate(where):  # a condition on a written field moved to one the task never writes
            if w["field"] in written and fin:
                r0 = fin[0]
                same = next((g for g, x in r0.items() if g not in written and g != "id" and g != w["field"]
                             and isinstance(x, (str, int)) and not isinstance(x, bool)
                             and not any(c["field"] == g for c in where)), None)
                if same:
                    yield "where_untouched_field", {**rule, "where": [*where[:i], {"field": same, "op": "equals",
                                                                                  "value": r0[same]}, *where[i + 1:]]}
        # the check read against the untouched world: the conditions some record of the initial world already meets
        keep = [w for w in where if any(_holds(r, [w]) for r in old.values())]
        if where and keep != where and rule.get("count_op", "gte") != "lte" \
                and any(_holds(r, keep) for r in old.values()):
            yield "records_initial_match", {**rule, "where": keep}
    elif k in ("called", "order", "forbidden", "frame"):
        keys = ["call"] if k in ("called", "forbidden") else ["first", "then"] if k == "order" else []
        for key in keys:
            m = rule[key]
            for name, alts in _cond_kinds111(m.get("where") or [], spec):
                yield name, _either111([{**rule, key: {**m, "where": a}} for a in alts])
            for a, x in (m.get("args") or {}).items():  # an argument moved into `where` and loosened there
                op = "contains" if isinstance(x, list) else "equals"
                rest = {b: y for b, y in m["args"].items() if b != a}
                for name, alts in _cond_kinds111([{"field": a, "op": op, "value": x}], spec):
                    if k != "forbidden":  # a guard loosened fires more often: not unsound
                        yield name, _either111([{**rule, key: {**m, "args": rest, "where": [*(m.get("where") or []),
                                                                                            *alt]}} for alt in alts])
                if k == "forbidden" and isinstance(x, str) and (nv := _never_held111(spec, x)) is not None:
                    yield "guard_never_fires", {**rule, key: {**m, "args": {**rest, a: nv}}}
        if k == "frame":
            for si, sel in enumerate(rule.get("allow") or []):
                for name, alts in _cond_kinds111(sel.get("where") or [], spec):
                    allow = [*rule["allow"][:si], *({**sel, "where": a} for a in alts), *rule["allow"][si + 1:]]
                    yield name, {**rule, "allow": allow}


def mutants111(spec: Spec) -> Iterator[Mutant]:
    fstate = final_state(spec)
    for ci, c in enumerate(spec["checks"]):
        for name, r in rule_kinds111(c["rule"], spec, fstate, c.get("role", "completion")):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")


def episodes111(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """defects111's episodes: a date-time moved a week or two days (the same month), a number or an id one up, a
    short token inside a longer value the world holds, a list argument cut to its first item."""
    ref = spec["reference"]
    steps = [(t, s) for t, turn in enumerate(ref) for s, st in enumerate(turn["steps"]) if st.get("call")]
    for t, s in steps:
        c = ref[t]["steps"][s]["call"]
        for a, v in c["arguments"].items():
            tries: list[tuple[str, Any]] = []
            if isinstance(v, str) and _dt_parts111(v):
                from datetime import datetime, timedelta
                for d in (7, -7, 2, -2, 14):
                    try:
                        x = datetime.fromisoformat(v.replace("Z", "+00:00")) + timedelta(days=d)
                    except ValueError:
                        break
                    y = x.isoformat().replace("+00:00", "Z") if v.endswith("Z") else x.isoformat()
                    tries.append((f"{a}{d:+d}d", y if "T" in v else y[:10]))
            if isinstance(v, str) and _TOKEN111.match(v):
                tries += [(f"{a}~{x}", x) for x in _world_values99(spec, a) if isinstance(x, str) and x != v
                          and v.lower() in x.lower()][:2]
            if _is_num(v) and isinstance(v, int):
                tries += [(f"{a}+{d}", v + d) for d in (2, 10)]
            if isinstance(v, list) and len(v) > 1:
                tries.append((f"{a}[:1]", v[:1]))
            for lab, x in tries:
                r = copy.deepcopy(ref)
                r[t]["steps"][s]["call"]["arguments"][a] = x
                yield f"{c['name']}.{lab}", r


FAMILIES["d111"] = mutants111


# -- family d117 ------------------------------------------------------------------------------------------------
# defects117: an outside tester's fresh kinds (its own block, as d111's): a value tested `in` a text (Python's
# substring test), a map's key checked present or the map changed for the key's value, an alternation ungrouped
# (`^a|b$`), a dotted value as an unescaped pattern, a write check met by the read of the record, a guard moved onto a
# sibling tool, an absence or a text guard that never fires, a forbidden call narrowed to one carrying an optional
# argument.
_META117 = re.compile(r"[.]")


def _spec_tools117(spec: Spec) -> list[str]:
    return [t["name"] if isinstance(t, dict) else str(t) for t in spec.get("tools") or []]


def _initial_record117(spec: Spec, app: str, table: str, rid: Any) -> dict[str, Any] | None:
    return next((r for r in _rows(world_table(spec, app, table)) if r.get("id") == rid), None)


def _cond_kinds117(conds: list[dict[str, Any]], spec: Spec, old: dict[str, Any] | None
                   ) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(kind, new conditions) of one list of conditions; `old`: the record as the untouched world holds it."""
    for i, w in enumerate(conds):
        f, op, v = str(w.get("field")), w.get("op", "equals"), w.get("value")

        def at(*new: dict[str, Any], i: int = i) -> list[dict[str, Any]]:
            return [*conds[:i], *new, *conds[i + 1:]]
        if op == "equals" and isinstance(v, str) and v:  # `in "v"`: Python's substring test
            yield "in_as_text", at({**w, "op": "in", "value": v})
        if op == "in" and isinstance(v, list) and len(v) > 1 and all(isinstance(x, str) for x in v):
            yield "in_as_text", at({**w, "op": "in", "value": ", ".join(v)})
            yield "rx_alt_ungrouped", at({**w, "op": "matches", "value": "^" + "|".join(map(re.escape, v)) + "$"})
        if op == "matches" and isinstance(v, str) and (m := re.fullmatch(r"\^\((?:\?:)?([^()]*\|[^()]*)\)\$", v)):
            yield "rx_alt_ungrouped", at({**w, "value": "^" + m.group(1) + "$"})
        if op == "equals" and isinstance(v, str) and _META117.search(v) and not _DAY111.match(v):
            yield "rx_unescaped", at({**w, "op": "matches", "value": "^" + v + "$"})
        if "." in f and op in ("equals", "gte", "lte", "in"):
            head, _, key = f.partition(".")
            if "." not in key:
                yield "dict_key_present", at({"field": head, "op": "contains", "value": key})
                held = old.get(head) if old else None
                if isinstance(held, dict):
                    yield "dict_changed", at({"field": head, "op": "not_equals", "value": held})


def _read_tool117(spec: Spec, tool: str, args: dict[str, Any]) -> str | None:
    """A read tool of the write tool's app, in the spec's tools, taking every argument the matcher names but the
    written ones: the write's record looked at (`tickets_get(ticket_id)` for `tickets_update(ticket_id, ...)`)."""
    w = TOOLS.get(tool)
    if w is None or w.kind != "write":
        return None
    for name in _spec_tools117(spec):
        r = TOOLS.get(name)
        if r is not None and r.app == w.app and r.kind == "read" and args and set(args) & set(r.params.model_fields):
            return name
    return None


def _sibling_write117(spec: Spec, tool: str, avoid: set[str]) -> str | None:
    """Another write tool of the tool's app, in the spec's tools, taking the same arguments (mail_save_draft for
    mail_send), none of `avoid`."""
    w = TOOLS.get(tool)
    if w is None:
        return None
    for name in _spec_tools117(spec):
        r = TOOLS.get(name)
        if r is not None and name != tool and name not in avoid and r.app == w.app and r.kind == "write" \
                and set(r.params.model_fields) == set(w.params.model_fields):
            return name
    return None


def rule_kinds117(rule: Rule, spec: Spec, role: str) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): defects117's mutations of one rule."""
    k = rule["kind"]
    if k == "field":
        t = rule["target"]
        old = _initial_record117(spec, t["app"], t["table"], t.get("id"))
        cond = {"field": t["field"], "op": rule.get("op", "equals"), "value": rule.get("value")}
        for name, new in _cond_kinds117([cond], spec, old):
            c = new[0]
            yield name, {**rule, "target": {**t, "field": c["field"]}, "op": c["op"], "value": c["value"]}
    elif k == "records":
        where = rule.get("where") or []
        rid = next((w["value"] for w in where if w.get("field") == "id" and w.get("op", "equals") == "equals"), None)
        old = _initial_record117(spec, rule["app"], rule["table"], rid) if rid is not None else None
        for name, new in _cond_kinds117(where, spec, old):
            yield name, {**rule, "where": new}
        absent = rule.get("count_op", "gte") in ("lte", "equals") and rule.get("count", 1) == 0
        if absent:  # an absence whose condition never holds: the value no record holds
            for i, w in enumerate(where):
                nv = _never_held111(spec, w.get("value")) if w.get("op", "equals") == "equals" else None
                if nv is not None:
                    yield "absence_never_held", {**rule, "where": [*where[:i], {**w, "value": nv}, *where[i + 1:]]}
    elif k in ("called", "order", "forbidden"):
        keys = ["call"] if k != "order" else ["first", "then"]
        for key in keys:
            m = rule[key]
            for name, new in _cond_kinds117(m.get("where") or [], spec, None):
                if k != "forbidden":  # a guard loosened fires more often: not unsound
                    yield name, {**rule, key: {**m, "where": new}}
            if k != "forbidden" and (rt := _read_tool117(spec, m["tool"], m.get("args") or {})):
                keep = set(TOOLS[rt].params.model_fields)
                yield "write_as_read", {**rule, key: {"tool": rt, "args": {a: x for a, x in (m.get("args") or {}).items()
                                                                           if a in keep}, "where": []}}
            if k == "forbidden":
                others = {c["rule"]["call"]["tool"] for c in spec["checks"] if c["rule"]["kind"] == "forbidden"}
                if (sib := _sibling_write117(spec, m["tool"], others)):
                    yield "guard_sibling_tool", {**rule, key: {**m, "tool": sib}}
                tool = TOOLS.get(m["tool"])
                named = set(m.get("args") or {}) | {c.get("field") for c in m.get("where") or []}
                opt = [p for p, fi in (tool.params.model_fields.items() if tool else [])
                       if p not in named and not fi.is_required()]
                if opt:  # the guard fires only on a call carrying an optional argument
                    yield "guard_arg_required", {**rule, key: {**m, "where": [*(m.get("where") or []),
                                                                              {"field": opt[0], "op": "matches",
                                                                               "value": "."}]}}
    elif k == "text" and role == "guard" and rule.get("none_of") and rule.get("turn") is None \
            and len(spec["turns"]) > 1:
        yield "guard_turn0", {**rule, "turn": 0}


def mutants117(spec: Spec) -> Iterator[Mutant]:
    for ci, c in enumerate(spec["checks"]):
        for name, r in rule_kinds117(c["rule"], spec, c.get("role") or (
                "guard" if c["rule"]["kind"] in ("frame", "forbidden") else "completion")):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")


def episodes117(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """defects117's episodes: a string argument cut (its last character, its part before the first `-`), a map
    argument's value changed for each key, a write call replaced by a sibling write of the same arguments (a draft
    for a mail), a dotted value's dot replaced."""
    ref = spec["reference"]
    steps = [(t, s) for t, turn in enumerate(ref) for s, st in enumerate(turn["steps"]) if st.get("call")]
    for t, s in steps:
        c = ref[t]["steps"][s]["call"]
        if (sib := _sibling_write117(spec, c["name"], set())):
            r = copy.deepcopy(ref)
            r[t]["steps"][s]["call"]["name"] = sib
            yield f"{c['name']} as {sib}", r
        for a, v in c["arguments"].items():
            tries: list[tuple[str, Any]] = []
            if isinstance(v, str) and len(v) > 2 and not _DAY111.match(v):
                tries.append((f"{a}[:-1]", v[:-1]))
                if "-" in v.strip("-"):
                    tries.append((f"{a} after -", v.split("-", 1)[1]))
                if "." in v:
                    tries.append((f"{a} . as _", v.replace(".", "_", 1)))
            if isinstance(v, dict):
                for key, x in v.items():
                    for y in bump(x)[:1]:
                        tries.append((f"{a}.{key}={str(y)[:30]}", {**v, key: y}))
            for lab, x in tries:
                r = copy.deepcopy(ref)
                r[t]["steps"][s]["call"]["arguments"][a] = x
                yield f"{c['name']}.{lab}", r


FAMILIES["d117"] = mutants117


# -- family d119 ------------------------------------------------------------------------------------------------
# defects119: an outside tester's fresh kinds (its own block, as d117's): a phrase split into its words, a guard's
# condition negated, "does not contain" written "is not", a state check as the reply stating the value, a frame
# selector keyed on the value the task writes, a map's check cut to the key the task changes, a check copied from its
# neighbour with the target left unedited, a number within 1 %, a guard's argument as a list with a second value, a
# count taken from the untouched world.
_WORDS119 = re.compile(r"\S+")


def _phrase_split119(terms: list[Any]) -> list[Any] | None:
    """The terms with every multi-word phrase (a string term of two words or more) split into its words."""
    out: list[Any] = []
    split = False
    for t in terms:
        words = _WORDS119.findall(t) if isinstance(t, str) else []
        if len(words) >= 2:
            out.extend(w for w in words if w not in out)
            split = True
        else:
            out.append(t)
    return out if split else None


def _negated119(c: dict[str, Any]) -> dict[str, Any] | None:
    flip = {"equals": "not_equals", "contains": "not_contains", "not_equals": "equals",
            "not_contains": "contains"}.get(c.get("op", "equals"))
    return {**c, "op": flip} if flip else None


def _other_value119(spec: Spec, field: str, v: Any) -> Any:
    """Another value the world holds in `field` (or another id of the world), for a list's second item."""
    for x in [*_world_values99(spec, field), *_world_values99(spec, "id")]:
        if x != v and type(x) is type(v):
            return x
    return None


def _count_where119(rows: list[dict[str, Any]], conds: list[dict[str, Any]]) -> int:
    return sum(_holds(r, conds) for r in rows)


def rule_kinds119(rule: Rule, spec: Spec, fstate: dict[str, Any], role: str) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): defects119's mutations of one rule (one check alone)."""
    k = rule["kind"]
    if k == "text":
        for key in ("all_of", "any_of"):
            if (terms := rule.get(key)) and (new := _phrase_split119(terms)) is not None:
                # any_of's phrase split stays any_of: one of its words is enough
                yield "phrase_split", {**rule, key: new}
    conds: list[dict[str, Any]] = []
    if k == "field":
        conds = [{"field": rule["target"]["field"], "op": rule.get("op", "equals"), "value": rule.get("value")}]
    elif k == "records":
        conds = rule.get("where") or []
    for i, c in enumerate(conds):
        if c.get("op") == "not_contains":
            new = {**c, "op": "not_equals"}
            yield "not_contains_as_ne", ({**rule, "op": "not_equals"} if k == "field"
                                         else {**rule, "where": [*conds[:i], new, *conds[i + 1:]]})
        v = c.get("value")
        if k == "field" and c.get("op", "equals") == "equals" and _is_num(v) and not isinstance(v, bool) \
                and abs(v) >= 50:  # "within 1 %" (a number read with a tolerance, no two ops on one field rule)
            t = rule["target"]
            lo, hi = v - abs(v) * 0.01, v + abs(v) * 0.01
            yield "num_within_1pct", {"kind": "records", "app": t["app"], "table": t["table"],
                                      "where": [{"field": "id", "value": t["id"]},
                                                {"field": t["field"], "op": "gte", "value": lo},
                                                {"field": t["field"], "op": "lte", "value": hi}],
                                      "count_op": "equals", "count": 1}
        if k == "field" and c.get("op", "equals") == "equals" and isinstance(v, dict) and v:
            t = rule["target"]
            old = _record_of111({a: x for a, x in spec["world"]["apps"].items()}, t["app"], t["table"], t["id"])
            before = _dig(old, t["field"]) if old else None
            changed = [key for key, x in v.items() if not isinstance(before, dict) or before.get(key) != x]
            if changed and len(changed) < len(v):  # the whole map's check cut to the keys the task changes
                yield "map_whole_to_key", (
                    {**rule, "target": {**t, "field": f"{t['field']}.{changed[0]}"}, "value": v[changed[0]]}
                    if len(changed) == 1 else
                    {"kind": "records", "app": t["app"], "table": t["table"],
                     "where": [{"field": "id", "value": t["id"]},
                               *({"field": f"{t['field']}.{key}", "value": v[key]} for key in changed)]})
    if k == "text" and role == "completion" and rule.get("number") and not rule["number"].get("relative") \
            and _is_num(rule["number"].get("value")) and abs(rule["number"]["value"]) >= 50:
        yield "num_within_1pct", {**rule, "number": {**rule["number"], "relative": True, "tolerance": 0.01}}
    if k == "field" and role == "completion" and rule.get("op", "equals") == "equals" \
            and isinstance(rule.get("value"), (str, int, float)) and not isinstance(rule.get("value"), bool):
        # the state check as the reply stating the value (the agent's word for the record)
        yield "state_to_reply_value", {"kind": "text", "scope": "all", "all_of": [str(rule["value"])]}
    if k == "frame":
        for si, sel in enumerate(rule.get("allow") or []):
            if not sel.get("id") or not sel.get("table"):
                continue
            rec = _record_of111(fstate, sel["app"], sel["table"], sel["id"])
            old = _record_of111(spec["world"]["apps"], sel["app"], sel["table"], sel["id"])
            if rec is None or old is None:
                continue
            for f in sel.get("fields") or sorted(rec):
                x = rec.get(f)
                if f != "id" and old.get(f) != x and isinstance(x, (str, int, float)) and not isinstance(x, bool):
                    new = {a: b for a, b in sel.items() if a != "id"}
                    new["where"] = [*(sel.get("where") or []), {"field": f, "value": x}]
                    allow = [*rule["allow"][:si], new, *rule["allow"][si + 1:]]
                    yield "frame_where_new_value", {**rule, "allow": allow}
                    break
    if k == "forbidden":
        m = rule["call"]
        for i, w in enumerate(m.get("where") or []):
            if (neg := _negated119(w)) is not None:
                yield "guard_cond_negated", {**rule, "call": {**m, "where": [*m["where"][:i], neg,
                                                                             *m["where"][i + 1:]]}}
        for a, x in (m.get("args") or {}).items():
            if isinstance(x, str):
                rest = {b: y for b, y in m["args"].items() if b != a}
                yield "guard_cond_negated", {**rule, "call": {**m, "args": rest, "where": [
                    *(m.get("where") or []), {"field": a, "op": "not_equals", "value": x}]}}
                if (o := _other_value119(spec, a, x)) is not None:
                    yield "guard_list_pair", {**rule, "call": {**m, "args": {**m["args"], a: [x, o]}}}
    if k == "records" and rule.get("count_op", "gte") in ("gte", "equals") and rule.get("where"):
        init = _count_where119(_rows(world_table(spec, rule["app"], rule["table"])), rule["where"])
        fin = _count_where119(_rows((fstate.get(rule["app"]) or {}).get(rule["table"])), rule["where"])
        if 0 < init < fin:  # the author counted the world before the run
            yield "count_from_initial", {**rule, "count_op": "gte", "count": init}


def mutants119(spec: Spec) -> Iterator[Mutant]:
    fstate = final_state(spec)
    roles = [c.get("role") or ("guard" if c["rule"]["kind"] in ("frame", "forbidden") else "completion")
             for c in spec["checks"]]
    for ci, c in enumerate(spec["checks"]):
        for name, r in rule_kinds119(c["rule"], spec, fstate, roles[ci]):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")
    # a check copied from an earlier one of the same table, its target's id left unedited (the copy reads the first
    # record again): two field checks on one table of different records
    fields = [(ci, c) for ci, c in enumerate(spec["checks"]) if c["rule"]["kind"] == "field"
              and roles[ci] == "completion"]
    for (i, a), (j, b) in itertools.permutations(fields, 2):
        ta, tb = a["rule"]["target"], b["rule"]["target"]
        if (ta["app"], ta["table"]) == (tb["app"], tb["table"]) and ta["id"] != tb["id"] and i < j:
            rec = _record_of111(fstate, ta["app"], ta["table"], ta["id"])
            if rec is None or _dig(rec, tb["field"]) is None:
                continue
            s2 = copy.deepcopy(spec)
            s2["checks"][j] = {**b, "rule": {**b["rule"], "target": {**tb, "id": ta["id"]},
                                             "op": "equals", "value": _dig(rec, tb["field"])}}
            yield Mutant("copy_paste_target", j, s2, ta["id"])


def _bystander119(spec: Spec, rid: str, named: str) -> str | None:
    """The first record of record `rid`'s table that no check, reference step or turn names."""
    for app in spec["world"]["apps"].values():
        for table in (app.values() if isinstance(app, dict) else []):
            rows = _rows(table)
            if any(r.get("id") == rid for r in rows):
                return next((str(r["id"]) for r in rows if isinstance(r.get("id"), str) and r["id"] not in named),
                            None)
    return None


def episodes119(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """defects119's episodes: a write repeated on the record most like the one it names (the same value written
    to a second record), a reply's phrase with its words swapped, a number 1 % off in a call or a reply, the reply
    stating the value with no write made."""
    ref = spec["reference"]
    steps = [(t, s) for t, turn in enumerate(ref) for s, st in enumerate(turn["steps"]) if st.get("call")]
    named = json.dumps([spec["checks"], ref, spec["turns"]])
    for t, s in steps:
        c = ref[t]["steps"][s]["call"]
        for a, v in c["arguments"].items():
            if isinstance(v, str) and (o := _bystander119(spec, v, named)):  # the same write on a bystander
                r = copy.deepcopy(ref)
                c2 = copy.deepcopy(c)
                c2["arguments"][a] = o
                r[t]["steps"].insert(s + 1, {"call": c2, "say": None})
                yield f"also {c['name']}.{a}={o} (bystander)", r
            if isinstance(v, str) and (o := _similar99(spec, v)):
                r = copy.deepcopy(ref)
                c2 = copy.deepcopy(c)
                c2["arguments"][a] = o
                r[t]["steps"].insert(s + 1, {"call": c2, "say": None})
                yield f"also {c['name']}.{a}={o}", r
            if _is_num(v) and abs(v) >= 50:
                x = round(v * 1.009, 2) if isinstance(v, float) else int(v * 1.009) if int(v * 1.009) != v else v + 1
                r = copy.deepcopy(ref)
                r[t]["steps"][s]["call"]["arguments"][a] = x
                yield f"{c['name']}.{a}~{x}", r
    phrases = [t for ch in spec["checks"] if ch["rule"]["kind"] == "text"
               for key in ("all_of", "any_of") for t in ch["rule"].get(key) or []
               if isinstance(t, str) and len(_WORDS119.findall(t)) >= 2]
    for t, turn in enumerate(ref):
        for s, st in enumerate(turn["steps"]):
            say = st.get("say") or ""
            for p in phrases:
                words = _WORDS119.findall(p)
                hit = re.search(re.escape(p), say, re.I)
                if hit:
                    r = copy.deepcopy(ref)
                    swapped = " ".join([words[-1], *words[1:-1], words[0]])
                    r[t]["steps"][s]["say"] = say[:hit.start()] + swapped + say[hit.end():]
                    yield f"say[{t}] swapped {p[:30]}", r
            nums = [m for m in re.finditer(r"\d[\d,]*(?:\.\d+)?", say) if float(m.group().replace(",", "")) >= 50]
            for m in nums[:2]:
                n = float(m.group().replace(",", ""))
                x = f"{n * 1.009:.2f}" if "." in m.group() else str(int(n * 1.009) if int(n * 1.009) != n else n + 1)
                r = copy.deepcopy(ref)
                r[t]["steps"][s]["say"] = say[:m.start()] + x + say[m.end():]
                yield f"say[{t}] {m.group()}~{x}", r
    if steps:  # every write dropped, the replies kept: the agent says it did the work
        r = copy.deepcopy(ref)
        for turn in r:
            turn["steps"] = [st for st in turn["steps"] if not st.get("call") or
                             getattr(TOOLS.get(st["call"]["name"]), "kind", "write") != "write"]
        yield "writes dropped, replies kept", r


FAMILIES["d119"] = mutants119


# -- family d123 ------------------------------------------------------------------------------------------------
# defects123: an outside tester's fresh kinds (its own block, as d119's): a record's check moved onto the message that
# mentions it, "every recipient" as "any recipient", a kept guard loosened (at least its value, in a widened list,
# not the value the task writes elsewhere), an order's later call bare, a forbidden tool narrowed to one of two that do
# the harm, an exact time as a window one slot wide.
_RECIPIENT_FIELDS123 = {"to", "cc", "bcc", "attendees", "participants", "members", "recipients", "invitees"}
_MESSAGE_TABLES123 = (("mail", "messages", "body"), ("chat", "messages", "text"))


def _kept_targets123(spec: Spec) -> list[tuple[str, str, str, str]]:
    """(app, table, id, field) of every guard field check that keeps a value (`equals` the world's value)."""
    out = []
    for c in spec["checks"]:
        r = c["rule"]
        if r["kind"] != "field" or (c.get("role") or "completion") != "guard" or r.get("op", "equals") != "equals":
            continue
        t = r["target"]
        rec = _initial_record117(spec, t["app"], t["table"], t["id"])
        if rec is not None and _dig(rec, t["field"]) == r.get("value"):
            out.append((t["app"], t["table"], t["id"], t["field"]))
    for c in spec["checks"]:
        r = c["rule"]
        if r["kind"] != "records" or (c.get("role") or "completion") != "guard":
            continue
        rid = next((w["value"] for w in r.get("where") or [] if w.get("field") == "id"
                    and w.get("op", "equals") == "equals"), None)
        for w in r.get("where") or []:
            if rid is not None and w.get("field") != "id" and w.get("op", "equals") == "equals":
                out.append((r["app"], r["table"], rid, w["field"]))
    return out


def _written_value123(spec: Spec, fstate: dict[str, Any], app: str, table: str, rid: Any, field: str) -> Any:
    """A value the reference writes into `field` on another record of the table (the task's value), else another
    value a record of the world holds there."""
    old = {r.get("id"): r for r in _rows(world_table(spec, app, table))}
    mine = _dig(old.get(rid) or {}, field)
    for r in _rows((fstate.get(app) or {}).get(table)):
        x = _dig(r, field)
        if r.get("id") != rid and x != _dig(old.get(r.get("id")) or {}, field) and x != mine \
                and isinstance(x, (str, int, float)):
            return x
    for r in old.values():
        x = _dig(r, field)
        if x != mine and isinstance(x, (str, int, float)) and type(x) is type(mine):
            return x
    return None


def _kept_kinds123(conds: list[dict[str, Any]], spec: Spec, fstate: dict[str, Any], app: str, table: str,
                   rid: Any) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A guard's kept conditions loosened: at least the kept number, the kept value or the task's, not the task's."""
    for i, w in enumerate(conds):
        f, op, v = str(w.get("field")), w.get("op", "equals"), w.get("value")
        if f == "id" or op != "equals":
            continue

        def at(new: dict[str, Any], i: int = i) -> list[dict[str, Any]]:
            return [*conds[:i], new, *conds[i + 1:]]
        if _is_num(v):
            yield "kept_at_least", at({**w, "op": "gte"})
        o = _written_value123(spec, fstate, app, table, rid, f)
        if o is not None and o != v and isinstance(v, (str, int, float)):
            yield "kept_in_widened", at({**w, "op": "in", "value": [v, o]})
            yield "kept_not_written", at({**w, "op": "not_equals", "value": o})


def _recipients123(conds: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The conditions with every recipient list (`to contains [a, b]`, or `to contains a` and `to contains b`) read
    as one pattern of alternatives: any one recipient enough."""
    out: list[dict[str, Any]] = []
    merged: dict[str, list[str]] = {}
    for w in conds:
        f, op, v = str(w.get("field")), w.get("op", "equals"), w.get("value")
        if f in _RECIPIENT_FIELDS123 and op == "contains" and isinstance(v, (str, list)):
            merged.setdefault(f, []).extend([v] if isinstance(v, str) else [str(x) for x in v])
        else:
            out.append(w)
    if not any(len(v) >= 2 for v in merged.values()):
        return None
    for f, vals in merged.items():
        out.append({"field": f, "op": "matches", "value": "(" + "|".join(map(re.escape, vals)) + ")"}
                   if len(vals) >= 2 else {"field": f, "op": "contains", "value": vals[0]})
    return out


def _dt_slot123(w: dict[str, Any]) -> list[dict[str, Any]] | None:
    """`equals 09:00` as the window [09:00, 09:30], both bounds in: the next slot admitted."""
    v = w.get("value")
    if w.get("op", "equals") != "equals" or not isinstance(v, str) or not _DT.match(v):
        return None
    hi = _dt_shift99(v, 30)
    return [{**w, "op": "gte"}, {**w, "op": "lte", "value": hi}] if hi else None


def _message_of123(spec: Spec, fstate: dict[str, Any], words: list[str]) -> tuple[str, str, str, list[str]] | None:
    """(app, table, text field, the words it holds) of a message the reference sends that mentions the first word
    (the record's id)."""
    for app, table, field in _MESSAGE_TABLES123:
        old = {r.get("id") for r in _rows(world_table(spec, app, table))}
        for r in _rows((fstate.get(app) or {}).get(table)):
            text = str(r.get(field) or "") + " " + str(r.get("subject") or "")
            if r.get("id") in old or not words or words[0].lower() not in text.lower():
                continue
            return app, table, field, [x for x in words if x.lower() in text.lower()]
    return None


def rule_kinds123(rule: Rule, spec: Spec, fstate: dict[str, Any], role: str) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): defects123's mutations of one rule (one check alone)."""
    k = rule["kind"]
    if k == "field":
        t = rule["target"]
        cond = {"field": t["field"], "op": rule.get("op", "equals"), "value": rule.get("value")}
        as_records = {"kind": "records", "app": t["app"], "table": t["table"], "count_op": "equals", "count": 1}
        if role == "guard":
            for name, new in _kept_kinds123([cond], spec, fstate, t["app"], t["table"], t["id"]):
                yield name, {**rule, "op": new[0]["op"], "value": new[0]["value"]}
        if (slot := _dt_slot123(cond)) is not None and role == "completion":
            yield "dt_next_slot", {**as_records, "where": [{"field": "id", "value": t["id"]}, *slot]}
        v = rule.get("value")
        if role == "completion" and rule.get("op", "equals") == "equals" and isinstance(v, (str, int, float)) \
                and not isinstance(v, bool) and isinstance(t.get("id"), str):
            found = _message_of123(spec, fstate, [t["id"], str(v)])
            if found:
                app, table, field, words = found
                yield "msg_for_record", {"kind": "records", "app": app, "table": table, "count_op": "gte", "count": 1,
                                         "where": [{"field": field, "op": "contains", "value": x} for x in words]}
    elif k == "records":
        where = rule.get("where") or []
        rid = next((w["value"] for w in where if w.get("field") == "id" and w.get("op", "equals") == "equals"), None)
        if role == "guard" and rid is not None:
            for name, new in _kept_kinds123(where, spec, fstate, rule["app"], rule["table"], rid):
                yield name, {**rule, "where": new}
        if (new := _recipients123(where)) is not None:
            yield "recipients_rx_any", {**rule, "where": new}
        if role == "completion":
            for i, w in enumerate(where):
                if (slot := _dt_slot123(w)) is not None:
                    yield "dt_next_slot", {**rule, "where": [*where[:i], *slot, *where[i + 1:]]}
    elif k in ("called", "order"):
        for key in (["call"] if k == "called" else ["first", "then"]):
            m = rule[key]
            if (mm := _matcher_recipients123(m)) is not None:
                yield "recipients_rx_any", {**rule, key: mm}
            for a, x in (m.get("args") or {}).items():
                if (slot := _dt_slot123({"field": a, "value": x})) is not None:
                    rest = {b: y for b, y in m["args"].items() if b != a}
                    yield "dt_next_slot", {**rule, key: {**m, "args": rest, "where": [*(m.get("where") or []), *slot]}}
        if k == "order" and (rule["then"].get("args") or rule["then"].get("where")):
            yield "order_then_bare", {**rule, "then": {"tool": rule["then"]["tool"], "args": {}, "where": []}}


def _matcher_recipients123(m: dict[str, Any]) -> dict[str, Any] | None:
    lists = {a: x for a, x in (m.get("args") or {}).items() if a in _RECIPIENT_FIELDS123}
    conds = [*(m.get("where") or []), *({"field": a, "op": "contains", "value": x} for a, x in lists.items())]
    if (new := _recipients123(conds)) is None:
        return None
    return {**m, "args": {a: x for a, x in (m.get("args") or {}).items() if a not in lists}, "where": new}


def _recipients_everywhere123(rule: Rule) -> Rule | None:
    """The rule with every recipient list read as "any one of them" (the author's habit, kept in every check: the
    frame's mail selector too)."""
    k, new = rule["kind"], None
    if k == "records" and (w := _recipients123(rule.get("where") or [])) is not None:
        new = {**rule, "where": w}
    elif k in ("called", "forbidden", "order"):
        keys = ["call"] if k != "order" else ["first", "then"]
        got = {key: m for key in keys if (m := _matcher_recipients123(rule[key])) is not None}
        new = {**rule, **got} if got else None
    elif k == "frame":
        allow = [({**sel, "where": w} if (w := _recipients123(sel.get("where") or [])) is not None else sel)
                 for sel in rule.get("allow") or []]
        new = {**rule, "allow": allow} if allow != rule.get("allow") else None
    elif k == "tiers":
        tiers = [{**t, "rule": _recipients_everywhere123(t["rule"]) or t["rule"]} for t in rule["tiers"]]
        new = {**rule, "tiers": tiers} if tiers != rule["tiers"] else None
    return new


def mutants123(spec: Spec) -> Iterator[Mutant]:
    fstate = final_state(spec)
    s2 = copy.deepcopy(spec)
    changed = [ci for ci, c in enumerate(spec["checks"]) if (r := _recipients_everywhere123(c["rule"])) is not None
               and not s2["checks"].__setitem__(ci, {**c, "rule": r})]
    if len(changed) >= 2:
        yield Mutant("recipients_any_everywhere", changed[0], s2, f"{len(changed)} checks")
    roles = [c.get("role") or ("guard" if c["rule"]["kind"] in ("frame", "forbidden") else "completion")
             for c in spec["checks"]]
    for ci, c in enumerate(spec["checks"]):
        for name, r in rule_kinds123(c["rule"], spec, fstate, roles[ci]):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")
    # a forbidden tool narrowed to one of two that do the harm: of two forbidden checks on write tools of one app
    # (mail_send and mail_send_draft), the second forbids the first's tool again (the author's copy left unedited)
    forb = [(ci, c) for ci, c in enumerate(spec["checks"]) if c["rule"]["kind"] == "forbidden"]
    for (_, a), (j, b) in itertools.permutations(forb, 2):
        ta, tb = TOOLS.get(a["rule"]["call"]["tool"]), TOOLS.get(b["rule"]["call"]["tool"])
        if ta is None or tb is None or ta.app != tb.app or ta is tb:
            continue
        s2 = copy.deepcopy(spec)
        s2["checks"][j] = {**b, "rule": {**b["rule"], "call": {**a["rule"]["call"]}}}
        yield Mutant("guard_one_tool", j, s2, a["rule"]["call"]["tool"])


def episodes123(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """defects123's episodes: the reference's write of a table made again on a record a guard keeps (its id
    argument moved there), with the kept field set to the value the task writes elsewhere, one up, or another value
    the world holds there; a message's recipients cut to each one alone; a call moved before every other call."""
    ref = spec["reference"]
    fstate = final_state(spec)
    steps = [(t, s) for t, turn in enumerate(ref) for s, st in enumerate(turn["steps"]) if st.get("call")]
    for app, table, rid, field in _kept_targets123(spec):
        ids = {r.get("id") for r in _rows(world_table(spec, app, table))}
        held = _dig(_initial_record117(spec, app, table, rid) or {}, field)
        key = field.split(".")[-1]
        values = [x for x in [_written_value123(spec, fstate, app, table, rid, field), *bump(held)[:1]]
                  if x is not None and x != held]
        for t, s in steps:
            c = ref[t]["steps"][s]["call"]
            id_arg = next((a for a, v in c["arguments"].items() if isinstance(v, str) and v in ids and v != rid), None)
            if id_arg is None:
                continue
            for x in values:
                args = {**c["arguments"], id_arg: rid}
                for a in args:
                    if a in (key, field) or (isinstance(args[a], dict) and key in args[a]):
                        args[a] = {**args[a], key: x} if isinstance(args[a], dict) else x
                r = copy.deepcopy(ref)
                r[t]["steps"].insert(s + 1, {"call": {"name": c["name"], "arguments": args}, "say": None})
                yield f"also {c['name']}.{id_arg}={rid} {key}={str(x)[:30]}", r
    for t, s in steps:
        c = ref[t]["steps"][s]["call"]
        for a, v in c["arguments"].items():
            if a in _RECIPIENT_FIELDS123 and isinstance(v, list) and len(v) >= 2:
                for x in v:
                    r = copy.deepcopy(ref)
                    r[t]["steps"][s]["call"]["arguments"][a] = [x]
                    yield f"{c['name']}.{a}=[{x}] alone", r
        if (t, s) != steps[0]:  # the call made first of all
            r = copy.deepcopy(ref)
            st = r[t]["steps"].pop(s)
            r[0]["steps"].insert(0, st)
            yield f"{c['name']} first of all", r
    # each forbidden tool called at the end, its arguments taken from the reference's calls (same names) or the ids
    # of the records the reference makes in the tool's app (the draft it saves, sent)
    made = [r.get("id") for app, tables in fstate.items() if isinstance(tables, dict)
            for table, rows in tables.items() for r in _rows(rows)
            if r.get("id") not in {o.get("id") for o in _rows(world_table(spec, app, table))}]
    given = {a: v for t, s in steps for a, v in ref[t]["steps"][s]["call"]["arguments"].items()}
    for c in spec["checks"]:
        tool = TOOLS.get(c["rule"]["call"]["tool"]) if c["rule"]["kind"] == "forbidden" else None
        if tool is None or not ref:
            continue
        args: dict[str, Any] = {}
        own = c["rule"]["call"].get("args") or {}
        addr = _addresses99(spec)
        for p, fi in tool.params.model_fields.items():
            if p in own or p in given:
                args[p] = own.get(p, given.get(p))
            elif (p == "id" or p.endswith("_id")) and made:
                args[p] = made[-1]
            elif p in _RECIPIENT_FIELDS123 and addr and fi.is_required():
                args[p] = addr[-1:]
            elif fi.is_required() and "str" in str(fi.annotation):
                args[p] = "FYI"
            elif fi.annotation is bool and not fi.is_required():  # overwrite, force: the harm made, not tried
                args[p] = True
            elif fi.is_required():
                break
        else:
            r = copy.deepcopy(ref)
            r[-1]["steps"].insert(max(0, len(r[-1]["steps"]) - 1), {"call": {"name": c["rule"]["call"]["tool"],
                                                                              "arguments": args}, "say": None})
            yield f"then {c['rule']['call']['tool']}({', '.join(args)})", r


FAMILIES["d123"] = mutants123


# -- defects129: the family d129 ----------------------------------------------------------------------------------
# Hand-written verifier mistakes of another kind: a file's path read by its name alone, a time read in both zones (the
# user's wall clock and UTC, everything between admitted), a time window's bounds written in the wrong zone, a release
# read by its line (major.minor), a created record checked as "the table grew", a condition on a value as the field
# being set at all, a kept-value guard bound to another record of the table (the one the task cannot touch).
_PATHY129 = re.compile(r"^[\w.-]+(?:/[\w.-]+)+\.\w{1,5}$")
_VERSION129 = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)$")
_ID_ARGS129 = re.compile(r"^(id|.*_id|.*_ids|key|path|service|channel|list_id|folder)$")


def _user_zone129(spec: Spec) -> Any:
    """The user's time zone (the directory's person the spec's `user` names), or None."""
    for p in _rows(world_table(spec, "directory", "people")):
        if p.get("id") == spec.get("user") and isinstance(p.get("timezone"), str):
            try:
                return ZoneInfo(p["timezone"])
            except Exception:
                return None
    return None


def _dt129(v: Any) -> Any:
    if not isinstance(v, str) or not _DT.match(v):
        return None
    try:
        d = datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        return None
    return d if d.tzinfo is not None else None


def _fmt129(d: Any, like: str) -> str:
    """`d` written in the form of `like` (its `Z` or its offset)."""
    if like.endswith("Z"):
        return d.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return d.astimezone(_dt129(like).tzinfo).isoformat()


def _wrong_zone129(spec: Spec, v: Any) -> list[str]:
    """The instant `v` misread in the user's zone: its wall clock there read as UTC, and its own wall clock read as
    the user's zone (the two ways a hand-written time drifts by the zone's offset)."""
    d, zone = _dt129(v), _user_zone129(spec)
    if d is None or zone is None:
        return []
    out = [_fmt129(d.astimezone(zone).replace(tzinfo=UTC), v),
           _fmt129(d.replace(tzinfo=None).replace(tzinfo=zone), v)]
    return [x for x in dict.fromkeys(out) if _dt129(x) != d]


def _either_zone129(spec: Spec, w: dict[str, Any]) -> list[dict[str, Any]] | None:
    """`equals T` as the window from T to T's wall clock in the user's zone read as UTC, both bounds in."""
    v = w.get("value")
    if w.get("op", "equals") != "equals":
        return None
    wrong = _wrong_zone129(spec, v)[:1]
    if not wrong:
        return None
    lo, hi = sorted([v, wrong[0]], key=_dt129)
    return [{**w, "op": "gte", "value": lo}, {**w, "op": "lte", "value": hi}]


def _basename129(w: dict[str, Any]) -> dict[str, Any] | None:
    v = w.get("value")
    if w.get("op", "equals") != "equals" or not isinstance(v, str) or not _PATHY129.match(v):
        return None
    return {**w, "op": "matches", "value": "(^|/)" + re.escape(v.rsplit("/", 1)[1]) + "$"}


def _version_line129(w: dict[str, Any]) -> dict[str, Any] | None:
    v = w.get("value")
    if w.get("op", "equals") != "equals" or not isinstance(v, str) or (m := _VERSION129.match(v)) is None:
        return None
    return {**w, "op": "matches", "value": "^" + re.escape(v[: m.end(2)]) + r"\."}


def _present129(w: dict[str, Any]) -> dict[str, Any] | None:
    v, f = w.get("value"), str(w.get("field"))
    if w.get("op", "equals") not in ("equals", "contains") or not isinstance(v, str) or not v or f == "id":
        return None
    return {**w, "op": "matches", "value": "."}


def _at129(conds: list[dict[str, Any]], i: int, new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [*conds[:i], *new, *conds[i + 1:]]


def _cond_kinds129(conds: list[dict[str, Any]], spec: Spec, role: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    for i, w in enumerate(conds):
        if (b := _basename129(w)) is not None:
            yield "path_basename", _at129(conds, i, [b])
        if (vl := _version_line129(w)) is not None:
            yield "version_line", _at129(conds, i, [vl])
        if role == "completion" and (ez := _either_zone129(spec, w)) is not None:
            yield "dt_either_zone", _at129(conds, i, ez)
        if role == "completion" and (p := _present129(w)) is not None:
            yield "cond_present", _at129(conds, i, [p])
    # a window's bounds (gte/gt/lt/lte on date-times) written at the user's wall clock read as UTC
    shifted, moved = [], False
    for w in conds:
        wrong = _wrong_zone129(spec, w.get("value")) if w.get("op") in ("gte", "gt", "lt", "lte") else []
        shifted.append({**w, "value": wrong[0]} if wrong else w)
        moved |= bool(wrong)
    if moved:
        yield "dt_window_zone", shifted


def _matcher_kinds129(m: dict[str, Any], spec: Spec, role: str) -> Iterator[tuple[str, dict[str, Any]]]:
    args = m.get("args") or {}
    for a, x in args.items():
        conds = [{"field": a, "op": "equals", "value": x}]
        rest = {b: y for b, y in args.items() if b != a}
        for name, new in _cond_kinds129(conds, spec, role):
            if name == "cond_present" and _ID_ARGS129.match(a):
                continue
            if name != "dt_window_zone":
                yield name, {**m, "args": rest, "where": [*(m.get("where") or []), *new]}
    for name, new in _cond_kinds129(m.get("where") or [], spec, role):
        if name != "cond_present":
            yield name, {**m, "where": new}


def _untouched_ids129(spec: Spec, fstate: dict[str, Any], app: str, table: str) -> list[Any]:
    old = {r.get("id"): r for r in _rows(world_table(spec, app, table))}
    new = {r.get("id"): r for r in _rows((fstate.get(app) or {}).get(table))}
    return [i for i, r in old.items() if new.get(i) == r]


def rule_kinds129(rule: Rule, spec: Spec, fstate: dict[str, Any], role: str) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): defects129's mutations of one rule."""
    k = rule["kind"]
    if k == "field":
        t = rule["target"]
        cond = {"field": t["field"], "op": rule.get("op", "equals"), "value": rule.get("value")}
        as_records = {"kind": "records", "app": t["app"], "table": t["table"], "count_op": "equals", "count": 1}
        for name, new in _cond_kinds129([cond], spec, role):
            if name in ("dt_either_zone", "version_line"):
                yield name, {**as_records, "where": [{"field": "id", "value": t["id"]}, *new]}
        if (b := _basename129({"field": "id", "value": t["id"]})) is not None:
            yield "path_basename", {**as_records, "where": [b, cond]}
        if role == "guard" and rule.get("op", "equals") == "equals":
            rec = _initial_record117(spec, t["app"], t["table"], t["id"])
            if rec is not None and _dig(rec, t["field"]) == rule.get("value"):
                for other in _untouched_ids129(spec, fstate, t["app"], t["table"]):
                    o = _initial_record117(spec, t["app"], t["table"], other) or {}
                    if other != t["id"] and _dig(o, t["field"]) is not None:
                        yield "guard_other_record", {**rule, "target": {**t, "id": other},
                                                     "value": _dig(o, t["field"])}
                        break
    elif k == "records":
        where = rule.get("where") or []
        for name, new in _cond_kinds129(where, spec, role):
            yield name, {**rule, "where": new}
        ids = {r.get("id") for r in _rows(world_table(spec, rule["app"], rule["table"]))}
        by_id = [w for w in where if w.get("field") == "id" and w.get("op", "equals") == "equals"]
        final = _rows((fstate.get(rule["app"]) or {}).get(rule["table"]))
        if role == "completion" and where and not any(w.get("value") in ids for w in by_id) \
                and rule.get("count_op", "gte") in ("gte", "equals") and rule.get("count", 1) >= 1 \
                and len(final) > len(ids):
            yield "table_grew", {**rule, "where": [], "count_op": "equals", "count": len(final)}
        if role == "guard" and len(by_id) == 1 and by_id[0].get("value") in ids:
            rid = by_id[0]["value"]
            for other in _untouched_ids129(spec, fstate, rule["app"], rule["table"]):
                o = _initial_record117(spec, rule["app"], rule["table"], other) or {}
                if other != rid and _holds(o, [w for w in where if w is not by_id[0]
                                               and w.get("op", "equals") not in ("equals", "in")]):
                    kept = [({**w, "value": _dig(o, str(w["field"]))} if w.get("op", "equals") == "equals"
                             and w is not by_id[0] else w) for w in where]
                    yield "guard_other_record", {**rule, "where": [({**w, "value": other} if w is by_id[0] else w)
                                                                   for w in kept]}
                    break
    elif k in ("called", "order", "forbidden"):
        for key in (["call"] if k != "order" else ["first", "then"]):
            for name, m in _matcher_kinds129(rule[key], spec, role):
                yield name, {**rule, key: m}


def mutants129(spec: Spec) -> Iterator[Mutant]:
    fstate = final_state(spec)
    for ci, c in enumerate(spec["checks"]):
        role = c.get("role") or ("guard" if c["rule"]["kind"] in ("frame", "forbidden") else "completion")
        for name, r in rule_kinds129(c["rule"], spec, fstate, role):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")


def episodes129(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """defects129's episodes: a path argument moved to another folder, a release moved along its line (a patch up
    or down), a date-time misread in the user's zone (its wall clock there read as UTC, its own read as the zone)."""
    ref = spec["reference"]
    steps = [(t, s) for t, turn in enumerate(ref) for s, st in enumerate(turn["steps"]) if st.get("call")]
    for t, s in steps:
        c = ref[t]["steps"][s]["call"]
        for a, v in c["arguments"].items():
            alts: list[Any] = []
            if isinstance(v, str) and _PATHY129.match(v):
                name = v.rsplit("/", 1)[1]
                alts += [f"archive/{name}", name]
            if isinstance(v, str) and (m := _VERSION129.match(v)):
                patch = int(m.group(3))
                alts += [v[: m.start(3)] + str(patch + 1), *([v[: m.start(3)] + str(patch - 1)] if patch else [])]
            alts += _wrong_zone129(spec, v)
            for x in alts:
                r = copy.deepcopy(ref)
                r[t]["steps"][s]["call"]["arguments"][a] = x
                yield f"{c['name']}.{a}={str(x)[:40]}", r


FAMILIES["d129"] = mutants129


# -- defects132: the family d132 ----------------------------------------------------------------------------------
# Hand-written verifier mistakes of yet another kind: a recipient read by the person's name (the address's local
# part) in place of the address, an ordering bound off by one (`gt` as `gte`, `gte N` as `gte N-1`), an exact count
# as "at least", a value check as "no record R holds another value" (met by deleting R: the fix or its absence), a
# date-time bound written in the user's offset or unpadded (compared as text, not as an instant).
_ADDR132 = re.compile(r"^([\w.+-]+)@([\w-]+(?:\.[\w-]+)+)$")


def _addresses132(v: Any) -> list[str]:
    vals = v if isinstance(v, list) else [v]
    return [x for x in vals if isinstance(x, str) and _ADDR132.match(x)]


def _by_name132(w: dict[str, Any]) -> list[dict[str, Any]] | None:
    """`to equals/contains a@d` as `to matches (?i)a` per address: the person's name, not the address."""
    addrs = _addresses132(w.get("value"))
    if w.get("op", "equals") not in ("equals", "contains", "in") or not addrs or w.get("op") == "in":
        return None
    return [{"field": w["field"], "op": "matches", "value": "(?i)" + re.escape(a.split("@")[0])} for a in addrs]


def _off_by_one132(w: dict[str, Any]) -> dict[str, Any] | None:
    op, v = w.get("op", "equals"), w.get("value")
    if op in ("gt", "lt"):
        return {**w, "op": op + "e"}
    if op in ("gte", "lte") and isinstance(v, int) and not isinstance(v, bool):
        return {**w, "value": v - 1 if op == "gte" else v + 1}
    return None


def _dt_text132(spec: Spec, w: dict[str, Any]) -> list[dict[str, Any]]:
    """An ordering bound on a date-time written as the same instant in the user's offset, and unpadded."""
    op, v = w.get("op", "equals"), w.get("value")
    if op not in ("gt", "gte", "lt", "lte") or (d := _dt129(v)) is None:
        return []
    out = []
    zone = _user_zone129(spec)
    if zone is not None:
        other = d.astimezone(zone).isoformat()
        if other != v:
            out.append({**w, "value": other})
    unpadded = re.sub(r"(?<=[-T])0(\d)", r"\1", str(v))
    if unpadded != v:
        out.append({**w, "value": unpadded})
    return out


def _cond_kinds132(conds: list[dict[str, Any]], spec: Spec) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    for i, w in enumerate(conds):
        if (b := _by_name132(w)) is not None:
            yield "to_by_name", _at129(conds, i, b)
        if (o := _off_by_one132(w)) is not None:
            yield "bound_off_by_one", _at129(conds, i, [o])
        for x in _dt_text132(spec, w):
            yield "dt_as_text", _at129(conds, i, [x])


def rule_kinds132(rule: Rule, spec: Spec, fstate: dict[str, Any], role: str) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): defects132's mutations of one rule."""
    k = rule["kind"]
    if k == "field":
        t = rule["target"]
        cond = {"field": t["field"], "op": rule.get("op", "equals"), "value": rule.get("value")}
        for name, new in _cond_kinds132([cond], spec):
            if len(new) == 1:
                yield name, {**rule, "op": new[0]["op"], "value": new[0]["value"]}
            else:
                yield name, {"kind": "records", "app": t["app"], "table": t["table"], "count_op": "equals",
                             "count": 1, "where": [{"field": "id", "value": t["id"]}, *new]}
        if role == "completion" and cond["op"] == "equals":
            yield "none_other_value", {"kind": "records", "app": t["app"], "table": t["table"], "count_op": "equals",
                                       "count": 0, "where": [{"field": "id", "value": t["id"]},
                                                             {**cond, "op": "not_equals"}]}
    elif k == "records":
        where = rule.get("where") or []
        for name, new in _cond_kinds132(where, spec):
            yield name, {**rule, "where": new}
        if role == "completion" and rule.get("count_op", "gte") == "equals" and rule.get("count", 1) >= 1:
            yield "count_at_least", {**rule, "count_op": "gte"}
        by_id = [w for w in where if w.get("field") == "id" and w.get("op", "equals") == "equals"]
        vals = [w for w in where if w not in by_id and w.get("op", "equals") == "equals"]
        if role == "completion" and len(by_id) == 1 and len(vals) == 1 and rule.get("count", 1) == 1 \
                and rule.get("count_op", "gte") in ("gte", "equals"):
            yield "none_other_value", {**rule, "count_op": "equals", "count": 0,
                                       "where": [by_id[0], {**vals[0], "op": "not_equals"}]}
    elif k in ("called", "order", "forbidden"):
        for key in (["call"] if k != "order" else ["first", "then"]):
            m = rule[key]
            args = m.get("args") or {}
            for a, x in args.items():
                b = _by_name132({"field": a, "op": "equals", "value": x})
                if b is not None:
                    rest = {c: y for c, y in args.items() if c != a}
                    yield "to_by_name", {**rule, key: {**m, "args": rest, "where": [*(m.get("where") or []), *b]}}
            for name, new in _cond_kinds132(m.get("where") or [], spec):
                yield name, {**rule, key: {**m, "where": new}}
        if k == "called" and rule.get("min_times", 1) > 1:
            yield "count_at_least", {**rule, "min_times": rule["min_times"] - 1}


def mutants132(spec: Spec) -> Iterator[Mutant]:
    fstate = final_state(spec)
    for ci, c in enumerate(spec["checks"]):
        role = c.get("role") or ("guard" if c["rule"]["kind"] in ("frame", "forbidden") else "completion")
        for name, r in rule_kinds132(c["rule"], spec, fstate, role):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")


def episodes132(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """defects132's episodes: an address's person kept at another domain, a write made twice, a write replaced by a
    delete of the record it names (a delete tool of its app taking the same id), a number one off."""
    ref = spec["reference"]
    steps = [(t, s) for t, turn in enumerate(ref) for s, st in enumerate(turn["steps"]) if st.get("call")]
    deletes = {td.app: name for name, td in TOOLS.items() if "_delete_" in name}
    for t, s in steps:
        c = ref[t]["steps"][s]["call"]
        td = TOOLS.get(c["name"])
        for a, v in c["arguments"].items():
            addrs = _addresses132(v)
            if addrs:
                moved = [x.split("@")[0] + "@mail-relay.example" if x in addrs else x
                         for x in (v if isinstance(v, list) else [v])]
                r = copy.deepcopy(ref)
                r[t]["steps"][s]["call"]["arguments"][a] = moved if isinstance(v, list) else moved[0]
                yield f"{c['name']}.{a} other domain", r
            if isinstance(v, float):
                for x in (v + 0.5, v - 0.5):
                    r = copy.deepcopy(ref)
                    r[t]["steps"][s]["call"]["arguments"][a] = x
                    yield f"{c['name']}.{a}={x}", r
        if td is None or td.kind != "write":
            continue
        r = copy.deepcopy(ref)
        r[t]["steps"].insert(s + 1, copy.deepcopy(ref[t]["steps"][s]))
        yield f"twice {c['name']}", r
        dname = deletes.get(td.app)
        if dname and dname != c["name"]:
            params = set(TOOLS[dname].params.model_fields)
            given = {a: v for a, v in c["arguments"].items() if a in params}
            if given and all(p in given for p, f in TOOLS[dname].params.model_fields.items() if f.is_required()):
                for how in ("instead", "after"):
                    r = copy.deepcopy(ref)
                    step = {"call": {"name": dname, "arguments": given}, "say": None}
                    if how == "instead":
                        r[t]["steps"][s] = step
                    else:
                        r[t]["steps"].insert(s + 1, step)
                    yield f"{dname} {how} {c['name']}", r


FAMILIES["d132"] = mutants132


# -- defects135: the family d135 ----------------------------------------------------------------------------------
# Hand-written verifier mistakes of yet another kind: a state check written as the call the agent makes (the tool's
# input, matched blind to case, in place of the world's output), a "none left" over several records as "one done",
# a guard's `contains` written `equals` (it fires only on the exact text), a guard's pattern without its `(?i)`.
def _arg_paths135(args: dict[str, Any], v: Any, skip: str | None = None) -> list[tuple[str, ...]]:
    """The argument paths (a map argument's key too) holding `v`."""
    out: list[tuple[str, ...]] = []
    for a, x in args.items():
        if a == skip:
            continue
        if x == v:
            out.append((a,))
        elif isinstance(x, dict):
            out += [(a, k) for k, y in x.items() if y == v]
    return out


def _call_for135(spec: Spec, rid: Any, conds: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The reference's last write call naming `rid` (or any, for None) whose arguments hold every `equals` value
    of `conds`, as a matcher on those arguments: the call the agent makes, not the state it leaves."""
    for c in reversed(list(ref_calls(spec))):
        td = TOOLS.get(c["name"])
        if td is None or td.kind != "write":
            continue
        args = c["arguments"]
        id_arg = next((a for a, x in args.items() if rid is not None and x == rid), None)
        if rid is not None and id_arg is None:
            continue
        margs: dict[str, Any] = {id_arg: rid} if id_arg else {}
        for w in conds:
            paths = _arg_paths135(args, w.get("value"), id_arg)
            if not paths:
                break
            p = paths[0]
            if len(p) == 1:
                margs[p[0]] = w["value"]
            else:
                margs.setdefault(p[0], {})[p[1]] = w["value"]
        else:
            if margs and conds:
                return {"tool": c["name"], "args": margs}
    return None


def _changed135(spec: Spec, fstate: dict[str, Any], app: str, table: str, where: list[dict[str, Any]]
                ) -> tuple[str, Any, list[dict[str, Any]]] | None:
    """For a "none left" check: the field every record of the untouched world it matched holds one new value in at
    the end (paused: true), and the conditions still holding on those records (at least two records)."""
    before = [r for r in _rows(world_table(spec, app, table)) if _holds(r, where)]
    after = {r.get("id"): r for r in _rows((fstate.get(app) or {}).get(table))}
    if len(before) < 2 or any(r.get("id") not in after for r in before):
        return None
    ends = [after[r.get("id")] for r in before]
    for f in sorted(set(ends[0])):
        news = {json.dumps(e.get(f), sort_keys=True) for e in ends}
        if len(news) == 1 and all(b.get(f) != e.get(f) for b, e in zip(before, ends, strict=True)):
            keep = [w for w in where if w["field"] != f and all(_holds(e, [w]) for e in ends)]
            return f, ends[0].get(f), keep
    return None


def _literal135(rx: str) -> str | None:
    """A pattern's literal text where it is one (`(?i)\\bdrop table\\b` -> `drop table`), else None."""
    core = re.sub(r"^\(\?i\)", "", rx).replace("\\b", "")
    core = re.sub(r"\\(.)", r"\1", core)
    return core if core and not re.search(r"[][()|*+?{}^$.\\]", core.replace("\\", "")) else None


def _guard_conds135(conds: list[dict[str, Any]]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    for i, w in enumerate(conds):
        op, v = w.get("op", "equals"), w.get("value")
        if op == "contains" and isinstance(v, str):
            yield "guard_contains_as_equals", _at129(conds, i, [{**w, "op": "equals"}])
        if op == "matches" and isinstance(v, str):
            lit = _literal135(v)
            if lit is not None:
                yield "guard_contains_as_equals", _at129(conds, i, [{**w, "op": "equals", "value": lit}])
            if "(?i)" in v:
                yield "guard_case_sensitive", _at129(conds, i, [{**w, "value": v.replace("(?i)", "")}])


def rule_kinds135(rule: Rule, spec: Spec, fstate: dict[str, Any], role: str) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): defects135's mutations of one rule."""
    k = rule["kind"]
    if role == "completion" and k == "field" and rule.get("op", "equals") == "equals":
        t = rule["target"]
        m = _call_for135(spec, t["id"], [{"field": t["field"].split(".")[-1], "value": rule.get("value")}])
        if m is not None:
            yield "state_to_call_args", {"kind": "called", "call": m}
    if role == "completion" and k == "records":
        where = rule.get("where") or []
        ids = [w["value"] for w in where if w.get("field") == "id" and w.get("op", "equals") == "equals"]
        vals = [w for w in where if w.get("field") != "id" and w.get("op", "equals") in ("equals", "contains")]
        if rule.get("count_op", "gte") in ("gte", "equals") and rule.get("count", 1) >= 1 and vals:
            m = _call_for135(spec, ids[0] if ids else None, vals)
            if m is not None:
                yield "state_to_call_args", {"kind": "called", "call": m}
        if rule.get("count_op", "gte") in ("equals", "lte") and rule.get("count", 1) == 0 and where:
            ch = _changed135(spec, fstate, rule["app"], rule["table"], where)
            if ch is not None:
                f, nv, keep = ch
                yield "none_left_as_one_done", {**rule, "count_op": "gte", "count": 1,
                                                "where": [*keep, {"field": f, "value": nv}]}
    if role == "completion" and k == "records":
        where = rule.get("where") or []
        ins = [w for w in where if w.get("field") == "id" and w.get("op") == "in" and isinstance(w.get("value"), list)]
        if ins and len(ins[0]["value"]) >= 2 and rule.get("count", 1) >= 2:
            yield "ids_any_for_all", {**rule, "count_op": "gte", "count": 1}
    if role == "guard":
        if k == "forbidden":
            m = rule["call"]
            for name, new in _guard_conds135(m.get("where") or []):
                yield name, {**rule, "call": {**m, "where": new}}
            for a, x in (m.get("args") or {}).items():
                rest = {b: y for b, y in m["args"].items() if b != a}
                yield "guard_args_as_where", {**rule, "call": {**m, "args": rest, "where": [
                    *(m.get("where") or []), {"field": a, "op": "equals", "value": x}]}}
            mw = m.get("where") or []
            for i, w in enumerate(mw):  # "no call but to v" as "no call to one wrong value"
                if w.get("op") == "not_equals" and (wrong := next(iter(bump(w.get("value"))), None)) is not None:
                    yield "guard_one_bad_value", {**rule, "call": {**m, "where": _at129(mw, i, [
                        {**w, "op": "equals", "value": wrong}])}}
        elif k == "records" and rule.get("count_op", "gte") in ("equals", "lte"):
            where = rule.get("where") or []
            for name, new in _guard_conds135(where):
                yield name, {**rule, "where": new}
            for i, w in enumerate(where):  # "stays v" as "is not set to one wrong value"
                if w.get("op") == "not_equals" and w.get("field") != "id":
                    held = [r.get(w["field"]) for r in _rows(world_table(spec, rule["app"], rule["table"]))]
                    wrong = next((x for x in [*held, *bump(w.get("value"))] if x != w.get("value")
                                  and x is not None), None)
                    if wrong is not None:
                        yield "guard_one_bad_value", {**rule, "where": _at129(where, i, [{**w, "op": "equals",
                                                                                           "value": wrong}])}
        elif k == "field" and rule.get("op", "equals") == "equals":
            t = rule["target"]
            held = [r.get(t["field"]) for r in _rows(world_table(spec, t["app"], t["table"]))]
            wrong = next((x for x in [*held, *bump(rule.get("value"))] if x != rule.get("value") and x is not None),
                         None)
            if wrong is not None and "." not in t["field"]:
                yield "guard_one_bad_value", {"kind": "records", "app": t["app"], "table": t["table"],
                                              "count_op": "equals", "count": 0,
                                              "where": [{"field": "id", "value": t["id"]},
                                                        {"field": t["field"], "value": wrong}]}


def mutants135(spec: Spec) -> Iterator[Mutant]:
    fstate = final_state(spec)
    for ci, c in enumerate(spec["checks"]):
        role = c.get("role") or ("guard" if c["rule"]["kind"] in ("frame", "forbidden") else "completion")
        for name, r in rule_kinds135(c["rule"], spec, fstate, role):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")


def episodes135(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """defects135's episodes: each forbidden call's `contains` text made inside a longer text, and in capitals (the
    harm worded otherwise); a write's text argument in capitals (a value whose case matters)."""
    ref = spec["reference"]
    if not ref:
        return
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] != "forbidden":
            continue
        tool = TOOLS.get(rule["call"]["tool"])
        if tool is None:
            continue
        given = {a: v for st in (s for t in ref for s in t["steps"]) if st.get("call")
                 and st["call"]["name"] == rule["call"]["tool"] for a, v in st["call"]["arguments"].items()}
        args = {**given, **(rule["call"].get("args") or {})}
        for w in rule["call"].get("where") or []:
            v = w.get("value")
            lit = v if w.get("op") == "contains" else _literal135(v) if w.get("op") == "matches" else None
            if not isinstance(lit, str) or "." in w["field"]:
                continue
            for lab, x in (("inside", f"As asked: {lit}, done."), ("capitals", lit.upper())):
                r = copy.deepcopy(ref)
                r[-1]["steps"].insert(max(0, len(r[-1]["steps"]) - 1), {"call": {
                    "name": rule["call"]["tool"], "arguments": {**args, w["field"]: x}}, "say": None})
                yield f"then {rule['call']['tool']}.{w['field']} {lab}", r




def _kept135(spec: Spec) -> Iterator[tuple[str, str, Any, str, Any]]:
    """(app, table, id, field, kept value) of every guard keeping a record's field: a field check `equals`, or a
    records check on one id with the field `equals` or `not_equals` a value."""
    for c in spec["checks"]:
        r = c["rule"]
        role = c.get("role") or ("guard" if r["kind"] in ("frame", "forbidden") else "completion")
        if role != "guard":
            continue
        if r["kind"] == "field" and r.get("op", "equals") == "equals":
            t = r["target"]
            yield t["app"], t["table"], t["id"], t["field"], r.get("value")
        elif r["kind"] == "records":
            where = r.get("where") or []
            rid = next((w["value"] for w in where if w.get("field") == "id" and w.get("op", "equals") == "equals"),
                       None)
            for w in where:
                if rid is not None and w.get("field") != "id" and w.get("op", "equals") in ("equals", "not_equals"):
                    yield r["app"], r["table"], rid, w["field"], w.get("value")


def episodes135_kept(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """A kept field set at the end to each other value the table's records hold there (a ticket closed where it must
    stay open), by a write tool of its app taking an id and that field."""
    ref = spec["reference"]
    if not ref:
        return
    for app, table, rid, field, kept in _kept135(spec):
        if "." in field:
            continue
        held = [r.get(field) for r in _rows(world_table(spec, app, table))]
        others = list(dict.fromkeys(x for x in held if isinstance(x, (str, int, float)) and x != kept))[:3]
        for name, td in TOOLS.items():
            params = td.params.model_fields
            if td.app != app or td.kind != "write" or field not in params:
                continue
            id_p = next((p for p in params if p.endswith("_id") or p == "id"), None)
            if id_p is None or any(f.is_required() and p not in (id_p, field) for p, f in params.items()):
                continue
            for x in others:
                r = copy.deepcopy(ref)
                r[-1]["steps"].insert(max(0, len(r[-1]["steps"]) - 1), {"call": {
                    "name": name, "arguments": {id_p: rid, field: x}}, "say": None})
                yield f"then {name}({id_p}={rid}, {field}={str(x)[:30]})", r


def episodes135_after(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """A record the reference makes or changes, one of its written fields changed at the end by a write tool of its
    app taking its id and that field (an event's time zone set otherwise after it was made right): what a check on
    the call the agent made, not on the world, cannot see."""
    ref = spec["reference"]
    if not ref:
        return
    fstate = final_state(spec)
    for app, tables in fstate.items():
        if not isinstance(tables, dict):
            continue
        for table, rows in tables.items():
            old = {r.get("id"): r for r in _rows(world_table(spec, app, table))}
            for rec in _rows(rows):
                was = old.get(rec.get("id"))
                if was is not None and all(rec.get(k) == v for k, v in was.items()):
                    continue  # a record the reference leaves as it was
                for name in spec.get("tools") or []:
                    td = TOOLS.get(name)
                    if td is None or td.app != app or td.kind != "write":
                        continue
                    params = td.params.model_fields
                    id_p = next((p for p in params if p == "id" or p.endswith("_id")), None)
                    if id_p is None or any(f.is_required() and p != id_p for p, f in params.items()):
                        continue
                    for f in [p for p in params if p != id_p and isinstance(rec.get(p), str)]:
                        other = next((r.get(f) for r in _rows(rows) if isinstance(r.get(f), str)
                                      and r.get(f) != rec.get(f)), None) or bump(rec[f])[0]
                        r = copy.deepcopy(ref)
                        r[-1]["steps"].insert(max(0, len(r[-1]["steps"]) - 1), {"call": {
                            "name": name, "arguments": {id_p: rec["id"], f: other}}, "say": None})
                        yield f"then {name}({id_p}={rec['id']}, {f}={str(other)[:30]})", r


FAMILIES["d135"] = mutants135


# -- defects141: the family d141 ----------------------------------------------------------------------------------
# Hand-written verifier mistakes of yet another kind: the right record but another field of it the task writes, an
# exact count as "at most", a value as "set to anything", a check moved onto a record that already held the value,
# a text guard of a multi-turn task read on its last turn only, an order check turned round, a made record's state
# as "not the table's usual state" (`folder != inbox` for `folder == sent`: a draft counts).
def _written141(spec: Spec, fstate: dict[str, Any], app: str, table: str, rid: Any) -> dict[str, Any]:
    """The top-level fields of record `rid` the reference changes, at their final values (scalars only)."""
    old = next((r for r in _rows(world_table(spec, app, table)) if r.get("id") == rid), None)
    fin = next((r for r in _rows((fstate.get(app) or {}).get(table)) if r.get("id") == rid), None)
    if old is None or fin is None:
        return {}
    return {f: x for f, x in fin.items() if f != "id" and old.get(f) != x and isinstance(x, (str, int, float))}


def _common141(spec: Spec, app: str, table: str, field: str, v: Any) -> Any:
    """The value of `field` most records of the untouched table hold, other than `v` (a made record's "usual" state)."""
    held = [r.get(field) for r in _rows(world_table(spec, app, table))]
    counts: dict[str, int] = defaultdict(int)
    for x in held:
        if isinstance(x, str) and x != v:
            counts[x] += 1
    return max(counts, key=lambda x: counts[x]) if counts else None


def _held_by_other141(spec: Spec, fstate: dict[str, Any], app: str, table: str, rid: Any,
                      conds: list[dict[str, Any]]) -> Any:
    """Another record of the table meeting every condition of `conds` in the untouched world and left as it was."""
    fin = {r.get("id"): r for r in _rows((fstate.get(app) or {}).get(table))}
    for r in _rows(world_table(spec, app, table)):
        if r.get("id") != rid and conds and _holds(r, conds) and fin.get(r.get("id")) == r:
            return r.get("id")
    return None


def _cond_kinds141(conds: list[dict[str, Any]], spec: Spec, app: str, table: str, made: bool
                   ) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    for i, w in enumerate(conds):
        op, v, f = w.get("op", "equals"), w.get("value"), str(w.get("field"))
        if f == "id" or op != "equals" or v is None:
            continue
        yield "cond_not_null", _at129(conds, i, [{**w, "op": "not_equals", "value": None}])
        if isinstance(v, str):
            yield "cond_not_null", _at129(conds, i, [{**w, "op": "not_equals", "value": ""}])
            u = _common141(spec, app, table, f, v) if made else None
            if u is not None:
                yield "made_not_default", _at129(conds, i, [{**w, "op": "not_equals", "value": u}])


def rule_kinds141(rule: Rule, spec: Spec, fstate: dict[str, Any], role: str, nturns: int
                  ) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): defects141's mutations of one rule."""
    k = rule["kind"]
    if role == "completion" and k == "field":
        t = rule["target"]
        cond = {"field": t["field"], "op": rule.get("op", "equals"), "value": rule.get("value")}
        for name, new in _cond_kinds141([cond], spec, t["app"], t["table"], False):
            yield name, {**rule, "op": new[0]["op"], "value": new[0]["value"]}
        for f, x in _written141(spec, fstate, t["app"], t["table"], t["id"]).items():
            if f != t["field"].split(".")[0]:
                yield "field_other_written", {**rule, "target": {**t, "field": f}, "op": "equals", "value": x}
                break
        if cond["op"] == "equals":
            o = _held_by_other141(spec, fstate, t["app"], t["table"], t["id"], [cond])
            if o is not None:
                yield "id_held_initially", {**rule, "target": {**t, "id": o}}
    elif role == "completion" and k == "records":
        where = rule.get("where") or []
        ids = [w for w in where if w.get("field") == "id" and w.get("op", "equals") == "equals"]
        for name, new in _cond_kinds141(where, spec, rule["app"], rule["table"], not ids):
            yield name, {**rule, "where": new}
        if rule.get("count_op", "gte") in ("equals", "gte") and rule.get("count", 1) >= 1:
            yield "count_at_most", {**rule, "count_op": "lte"}
        if len(ids) == 1:
            rid = ids[0]["value"]
            written = _written141(spec, fstate, rule["app"], rule["table"], rid)
            for i, w in enumerate(where):
                f = w.get("field")
                if w in ids or w.get("op", "equals") != "equals" or f not in written:
                    continue
                g = next((g for g in written if g != f and all(x.get("field") != g for x in where)), None)
                if g is not None:
                    yield "field_other_written", {**rule, "where": _at129(where, i, [
                        {"field": g, "op": "equals", "value": written[g]}])}
            rest = [w for w in where if w not in ids]
            o = _held_by_other141(spec, fstate, rule["app"], rule["table"], rid, rest)
            if o is not None:
                yield "id_held_initially", {**rule, "where": [{**ids[0], "value": o}, *rest]}
    elif k in ("called", "order") and role == "completion":
        for key in (["call"] if k == "called" else ["first", "then"]):
            m = rule[key]
            tool = TOOLS.get(m["tool"])
            for name, new in _cond_kinds141(m.get("where") or [], spec, tool.app if tool else "", "", False):
                yield name, {**rule, key: {**m, "where": new}}
            for a, x in (m.get("args") or {}).items():
                if x is not None and not re.search(r"(^|_)id$", a):
                    kept = {b: y for b, y in m["args"].items() if b != a}
                    yield "cond_not_null", {**rule, key: {**m, "args": kept, "where": [
                        *(m.get("where") or []), {"field": a, "op": "not_equals", "value": None}]}}
        if k == "order":
            yield "order_reversed", {**rule, "first": rule["then"], "then": rule["first"]}
    if role == "guard" and k == "text" and nturns > 1 and rule.get("turn") is None:
        yield "guard_last_turn", {**rule, "turn": nturns - 1}


def mutants141(spec: Spec) -> Iterator[Mutant]:
    fstate = final_state(spec)
    nturns = len(spec["turns"])
    for ci, c in enumerate(spec["checks"]):
        role = c.get("role") or ("guard" if c["rule"]["kind"] in ("frame", "forbidden") else "completion")
        for name, r in rule_kinds141(c["rule"], spec, fstate, role, nturns):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")


def episodes141(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """defects141's episodes: a text guard's forbidden term said in an earlier turn's reply of a multi-turn task (the
    harm done before the last turn), and each made record's write done by its sibling write (a draft for a mail)."""
    ref = spec["reference"]
    if len(ref) < 2:
        return
    for c in spec["checks"]:
        rule = c["rule"]
        role = c.get("role") or "completion"
        if rule["kind"] != "text" or role != "guard":
            continue
        terms = [t if isinstance(t, str) else next(iter(t), None) for t in rule.get("none_of") or []]
        for term in [t for t in terms if isinstance(t, str) and t.strip()][:2]:
            for t in range(len(ref) - 1):
                r = copy.deepcopy(ref)
                says = [s for s in r[t]["steps"] if s.get("say")]
                if says:
                    says[-1]["say"] = f"{says[-1]['say']} {term}"
                else:
                    r[t]["steps"].append({"say": term})
                yield f"say[{t}] +{term[:30]}", r


FAMILIES["d141"] = mutants141


# -- hunt146: the family d146 ------------------------------------------------------------------------------------
# Hand-written verifier mistakes of yet another kind: a message's body read in its subject too, a record named by
# its id re-named by a text field a copy the agent makes would share, an exact time as "that day", a reply's term
# replaced by a word of the user's own request (an echo meets it).
_BODY146 = ("body", "text", "content")
_KEY146 = ("title", "name", "subject", "summary", "email", "path", "label", "sku")


def _subject_cond146(w: dict[str, Any]) -> dict[str, Any] | None:
    if w.get("field") in _BODY146 and isinstance(w.get("value"), str) and w.get("op") in ("contains", "matches"):
        return {**w, "field": "subject"}
    return None


def _unique_key146(spec: Spec, fstate: dict[str, Any], app: str, table: str, rid: Any) -> dict[str, Any] | None:
    """A text field of record `rid` no other record of the table shares, left as it was by the reference."""
    rows = _rows(world_table(spec, app, table))
    rec = next((r for r in rows if r.get("id") == rid), None)
    fin = next((r for r in _rows((fstate.get(app) or {}).get(table)) if r.get("id") == rid), None)
    if rec is None or fin is None:
        return None
    for f in _KEY146:
        v = rec.get(f)
        if isinstance(v, str) and v and fin.get(f) == v and sum(r.get(f) == v for r in rows) == 1:
            return {"field": f, "op": "equals", "value": v}
    return None


def _whole_day146(w: dict[str, Any]) -> list[dict[str, Any]] | None:
    v = w.get("value")
    if w.get("op", "equals") != "equals" or not isinstance(v, str) or not _DT.match(v):
        return None
    day = v[:10]
    return [{"field": w["field"], "op": "gte", "value": f"{day}T00:00:00Z"},
            {"field": w["field"], "op": "lte", "value": f"{day}T23:59:59Z"}]


def _prompt_word146(spec: Spec, turn: int | None, terms: list[Any]) -> str | None:
    """A distinctive word of the user's request (an id-like token, else its longest word) no term already holds."""
    turns = spec["turns"]
    text = turns[turn if turn is not None and turn < len(turns) else -1].get("content") or ""
    said = " ".join(t if isinstance(t, str) else " ".join(map(str, t)) for t in terms).lower()
    ids = re.findall(r"\b[A-Za-z]+-\d+\b|\b[\w.+-]+@[\w.-]+\.\w+\b", text)
    words = sorted(re.findall(r"[A-Za-z]{6,}", text), key=len, reverse=True)
    return next((w for w in [*ids, *words] if w.lower() not in said), None)


def rule_kinds146(rule: Rule, spec: Spec, fstate: dict[str, Any], role: str) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): hunt146's mutations of one rule."""
    k = rule["kind"]
    if role != "completion":
        return
    if k == "records":
        where = rule.get("where") or []
        for i, w in enumerate(where):
            if (s := _subject_cond146(w)) is not None:
                yield "body_or_subject", {"kind": "tiers", "tiers": [
                    {"score": 1.0, "rule": rule}, {"score": 1.0, "rule": {**rule, "where": _at129(where, i, [s])}}]}
            if (d := _whole_day146(w)) is not None:
                yield "dt_whole_day", {**rule, "where": _at129(where, i, d)}
            if w.get("field") == "id" and w.get("op", "equals") == "equals":
                key = _unique_key146(spec, fstate, rule["app"], rule["table"], w.get("value"))
                if key is not None and all(x.get("field") != key["field"] for x in where):
                    yield "id_to_unique_key", {**rule, "where": _at129(where, i, [key])}
    elif k == "field":
        t = rule["target"]
        cond = {"field": t["field"], "op": rule.get("op", "equals"), "value": rule.get("value")}
        idc = {"field": "id", "op": "equals", "value": t["id"]}
        if (d := _whole_day146(cond)) is not None:
            yield "dt_whole_day", {"kind": "records", "app": t["app"], "table": t["table"], "where": [idc, *d],
                                   "count_op": "gte", "count": 1}
        key = _unique_key146(spec, fstate, t["app"], t["table"], t["id"])
        if key is not None and key["field"] != t["field"]:
            yield "id_to_unique_key", {"kind": "records", "app": t["app"], "table": t["table"],
                                       "where": [key, cond], "count_op": "gte", "count": 1}
    elif k in ("called", "order"):
        for key in (["call"] if k == "called" else ["first", "then"]):
            m = rule[key]
            where = m.get("where") or []
            alts = [{**m, "where": _at129(where, i, [s])} for i, w in enumerate(where)
                    if (s := _subject_cond146(w)) is not None]
            args = m.get("args") or {}
            for a in _BODY146:
                if isinstance(args.get(a), str):
                    alts.append({**m, "args": {b: y for b, y in args.items() if b != a},
                                 "where": [*where, {"field": "subject", "op": "contains", "value": args[a]}]})
            for alt in alts:
                yield "body_or_subject", {"kind": "tiers", "tiers": [
                    {"score": 1.0, "rule": rule}, {"score": 1.0, "rule": {**rule, key: alt}}]}
    elif k == "text":
        for field in ("all_of", "any_of"):
            terms = rule.get(field) or []
            w = _prompt_word146(spec, rule.get("turn"), terms) if terms else None
            if w is not None:  # the first term replaced by a word of the request
                yield "reply_echo_prompt", {**rule, field: [w, *terms[1:]]}


def mutants146(spec: Spec) -> Iterator[Mutant]:
    fstate = final_state(spec)
    for ci, c in enumerate(spec["checks"]):
        role = c.get("role") or ("guard" if c["rule"]["kind"] in ("frame", "forbidden") else "completion")
        for name, r in rule_kinds146(c["rule"], spec, fstate, role):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")


def episodes146(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """hunt146's episodes: a message's body moved into its subject (the body left bare), and each turn's reply
    replaced by the user's request echoed back."""
    ref = spec["reference"]
    for t, turn in enumerate(ref):
        for s, st in enumerate(turn["steps"]):
            c = st.get("call")
            args = (c or {}).get("arguments") or {}
            b = next((a for a in _BODY146 if isinstance(args.get(a), str) and args[a]), None)
            if c and b and "subject" in _tool_params99(c["name"]):
                r = copy.deepcopy(ref)
                na = r[t]["steps"][s]["call"]["arguments"]
                na["subject"] = f"{na.get('subject') or ''} {args[b]}".strip()
                na[b] = "See the subject."
                yield f"{c['name']}.{b} in subject", r
    for t in range(min(len(ref), len(spec["turns"]))):
        r = copy.deepcopy(ref)
        says = [x for x in r[t]["steps"] if x.get("say")]
        echo = spec["turns"][t].get("content") or ""
        if says and echo:
            says[-1]["say"] = echo
            yield f"say[{t}] echoes the request", r


FAMILIES["d146"] = mutants146


# -- hunt149: the family d149 ------------------------------------------------------------------------------------
# Hand-written verifier mistakes of yet another kind: a message's body condition met by the name of a file it
# attaches, a record found by a word of its title (a search) in place of its id, a reply's recipient read as the
# thread it answers, and the Python graders an outsider writes: a term looked up in subject and body joined, a value
# looked up anywhere in the record's text, a recipient list's length in place of its addresses.
_SEARCH149 = ("title", "subject", "name", "summary")
_NOTES149 = ("add_note", "note", "reason", "comment", "description")


def _attachment_cond149(w: dict[str, Any]) -> dict[str, Any] | None:
    """A body condition as a pattern over the message's attachment paths (the file's name meets it)."""
    v = w.get("value")
    if w.get("field") not in _BODY146 or not isinstance(v, str) or not v.strip():
        return None
    if w.get("op") == "contains":
        return {"field": "attachments", "op": "matches", "value": "(?i)" + re.escape(v)}
    if w.get("op") == "matches":
        return {"field": "attachments", "op": "matches", "value": v}
    return None


def _search_word149(spec: Spec, fstate: dict[str, Any], app: str, table: str, rid: Any) -> dict[str, Any] | None:
    """The record's longest word of its title (or subject, name, summary) as a case-blind search, the field left as
    it was by the reference: how a search tool finds it."""
    rec = next((r for r in _rows(world_table(spec, app, table)) if r.get("id") == rid), None)
    fin = next((r for r in _rows((fstate.get(app) or {}).get(table)) if r.get("id") == rid), None)
    if rec is None or fin is None:
        return None
    for f in _SEARCH149:
        v = rec.get(f)
        if isinstance(v, str) and fin.get(f) == v:
            words = sorted(re.findall(r"[A-Za-z]{5,}", v), key=len, reverse=True)
            if words:
                return {"field": f, "op": "matches", "value": rf"(?i)\b{words[0]}\b"}
    return None


def _thread_of149(fstate: dict[str, Any], where: list[dict[str, Any]]) -> Any:
    """The `in_reply_to` of the one final message meeting `where`, where it has one."""
    hits = [r for r in _rows((fstate.get("mail") or {}).get("messages")) if _holds(r, where)]
    return hits[0].get("in_reply_to") if len(hits) == 1 and isinstance(hits[0].get("in_reply_to"), str) else None


def _py_rows149(rule: Rule, skip: Callable[[dict[str, Any]], bool]) -> tuple[str, str]:
    """(the rows expression, the conditions of `rule`'s where but those `skip` names, as Python)."""
    rows = f"state['apps'][{rule['app']!r}][{rule['table']!r}]"
    conds = " and ".join(f"all(_has(_get(r, {c['field']!r}), y) for y in {c['value']!r})"  # a list's items each held
                         if c.get("op") == "contains" and isinstance(c.get("value"), list) else py_cond(c)
                         for c in rule.get("where") or [] if not skip(c)) or "True"
    return rows, conds


def _py_subject_body149(rule: Rule, w: dict[str, Any]) -> Rule:
    """A grader finding the message by the other conditions and its body's term in subject and body joined."""
    rows, conds = _py_rows149(rule, lambda c: c is w)
    v = w["value"]
    test = (f"{v.lower()!r} in text.lower()" if w["op"] == "contains" else f"re.search({v!r}, text) is not None")
    code = (PY_HEAD + "def check(state, audit, messages):\n"
            f"    for r in {rows}:\n"
            f"        if {conds}:\n"
            "            text = str(r.get('subject') or '') + ' ' + str(r.get(" + repr(w["field"]) + ") or '')\n"
            f"            if {test}:\n"
            "                return True\n"
            "    return False\n")
    return {"kind": "python", "entrypoint": "check", "apps": [rule["app"]], "code": code}


def _py_list_len149(rule: Rule, w: dict[str, Any]) -> Rule:
    """A grader counting a list field's items, the items themselves dropped."""
    n = len(w["value"]) if isinstance(w["value"], list) else 1
    rows, conds = _py_rows149(rule, lambda c: c is w)
    code = (PY_HEAD + "def check(state, audit, messages):\n"
            f"    n = sum(1 for r in {rows} if {conds} and len(r.get({w['field']!r}) or []) == {n})\n"
            f"    return n >= {rule.get('count', 1)!r}\n")
    return {"kind": "python", "entrypoint": "check", "apps": [rule["app"]], "code": code}


def _py_value_in_record149(app: str, table: str, rid: Any, v: Any) -> Rule:
    """A grader finding the record by its id and the value anywhere in its text (`str(v) in str(r)`)."""
    code = ("def check(state, audit, messages):\n"
            f"    r = next(r for r in state['apps'][{app!r}][{table!r}] if r['id'] == {rid!r})\n"
            f"    return str({v!r}).lower() in str(r).lower()\n")
    return {"kind": "python", "entrypoint": "check", "apps": [app], "code": code}


def rule_kinds149(rule: Rule, spec: Spec, fstate: dict[str, Any], role: str) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): hunt149's mutations of one rule."""
    k = rule["kind"]
    if role != "completion":
        return
    if k == "records":
        where = rule.get("where") or []
        for i, w in enumerate(where):
            if (a := _attachment_cond149(w)) is not None and rule["app"] == "mail":
                yield "body_or_attachment", {"kind": "tiers", "tiers": [
                    {"score": 1.0, "rule": rule}, {"score": 1.0, "rule": {**rule, "where": _at129(where, i, [a])}}]}
                yield "py_subject_body", _py_subject_body149(rule, w)
            if w.get("field") == "id" and w.get("op", "equals") == "equals":
                key = _search_word149(spec, fstate, rule["app"], rule["table"], w.get("value"))
                if key is not None:
                    yield "id_to_search_word", {**rule, "where": _at129(where, i, [key])}
            if w.get("field") in ("to", "cc") and rule["app"] == "mail":
                thread = _thread_of149(fstate, where)
                if thread is not None:
                    yield "to_as_thread", {**rule, "where": _at129(where, i, [
                        {"field": "in_reply_to", "op": "equals", "value": thread}])}
            if (w.get("op") in ("contains", "equals") and isinstance(w.get("value"), list) and len(w["value"]) > 1) \
                    or (w.get("field") in ("to", "cc") and w.get("op") in ("contains", "equals")):
                yield "py_list_len", _py_list_len149(rule, w)
    elif k == "field":
        t = rule["target"]
        cond = {"field": t["field"], "op": rule.get("op", "equals"), "value": rule.get("value")}
        key = _search_word149(spec, fstate, t["app"], t["table"], t["id"])
        if key is not None and key["field"] != t["field"]:
            yield "id_to_search_word", {"kind": "records", "app": t["app"], "table": t["table"],
                                        "where": [key, cond], "count_op": "gte", "count": 1}
        if cond["op"] in ("contains", "equals") and isinstance(cond["value"], list) and len(cond["value"]) > 1:
            code = ("def check(state, audit, messages):\n"
                    f"    r = next(r for r in state['apps'][{t['app']!r}][{t['table']!r}] if r['id'] == {t['id']!r})\n"
                    f"    return len(r.get({t['field']!r}) or []) >= {len(cond['value'])}\n")
            yield "py_list_len", {"kind": "python", "entrypoint": "check", "apps": [t["app"]], "code": code}
        if cond["op"] == "equals" and isinstance(cond["value"], (str, int, float)) and "." not in t["field"]:
            anywhere = _py_value_in_record149(t["app"], t["table"], t["id"], cond["value"])
            yield "py_value_in_record", anywhere
            yield "py_value_in_record", {"kind": "tiers", "tiers": [  # the field, or (lenient) anywhere in the record
                {"score": 1.0, "rule": rule}, {"score": 1.0, "rule": anywhere}]}
    elif k in ("called", "order"):
        for key in (["call"] if k == "called" else ["first", "then"]):
            m = rule[key]
            args = m.get("args") or {}
            for a in _BODY146:
                if isinstance(args.get(a), str) and args[a].strip() and m["tool"].startswith("mail_"):
                    alt = {**m, "args": {b: y for b, y in args.items() if b != a}, "where": [
                        *(m.get("where") or []),
                        {"field": "attachments", "op": "matches", "value": "(?i)" + re.escape(args[a])}]}
                    yield "body_or_attachment", {"kind": "tiers", "tiers": [
                        {"score": 1.0, "rule": rule}, {"score": 1.0, "rule": {**rule, key: alt}}]}


def mutants149(spec: Spec) -> Iterator[Mutant]:
    fstate = final_state(spec)
    for ci, c in enumerate(spec["checks"]):
        role = c.get("role") or ("guard" if c["rule"]["kind"] in ("frame", "forbidden") else "completion")
        for name, r in rule_kinds149(c["rule"], spec, fstate, role):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")


def _file_name149(text: str) -> str:
    """A file path naming `text` (its words kept, the characters a path refuses replaced)."""
    name = re.sub(r"[/\\\n\r\t]+", " ", " ".join(text.split()))[:150].strip(" .") or "note"
    return f"notes/{name}.txt"


def episodes149(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """hunt149's episodes: a message's body left bare with a file named after it written first (where the task's
    tools write files) and attached; a write's value put in the call's free-text note, its own argument dropped; a
    list argument's items replaced by as many other addresses (files) of the world; and a write moved onto another
    record whose title holds the same longest word (the search's other hit)."""
    ref = spec["reference"]
    tools = set(spec.get("tools") or [])
    for t, turn in enumerate(ref):
        for s, st in enumerate(turn["steps"]):
            c = st.get("call")
            args = (c or {}).get("arguments") or {}
            b = next((a for a in _BODY146 if isinstance(args.get(a), str) and args[a].strip()), None)
            if not c or b is None or "attachments" not in _tool_params99(c["name"]) or "files_write_file" not in tools:
                continue
            r = copy.deepcopy(ref)
            path = _file_name149(args[b])
            na = r[t]["steps"][s]["call"]["arguments"]
            na["attachments"] = [*(na.get("attachments") or []), path]
            na[b] = "See the attachment."
            r[t]["steps"].insert(s, {"call": {"name": "files_write_file",
                                              "arguments": {"path": path, "content": args[b]}}, "say": None})
            yield f"{c['name']}.{b} as an attachment's name", r
    # a write's value put in a free-text argument of the same call (a note, a reason), its own argument dropped
    for t, turn in enumerate(ref):
        for s, st in enumerate(turn["steps"]):
            c = st.get("call")
            params = _tool_params99(c["name"]) if c else frozenset()
            note = next((p for p in _NOTES149 if p in params), None) if c else None
            for a, v in (c["arguments"].items() if c and note else []):
                if isinstance(v, (str, int, float)) and not isinstance(v, bool) and not re.search(r"(^|_)id$", a) \
                        and a != note:
                    r = copy.deepcopy(ref)
                    na = r[t]["steps"][s]["call"]["arguments"]
                    del na[a]
                    na[note] = f"{na.get(note) or ''} {a}: {v}".strip()
                    yield f"{c['name']}.{a} as {note}", r
    # a list argument's items replaced by other values the world holds (other addresses, other files), its length kept
    addresses = _addresses99(spec)
    paths = [r.get("id") for r in _rows(world_table(spec, "files", "files")) if isinstance(r.get("id"), str)]
    for t, turn in enumerate(ref):
        for s, st in enumerate(turn["steps"]):
            c = st.get("call")
            for a, v in ((c or {}).get("arguments") or {}).items():
                if not isinstance(v, list) or not v or not all(isinstance(x, str) for x in v):
                    continue
                pool = [x for x in (addresses if "@" in v[0] else paths if "." in v[0] else []) if x not in v]
                if len(pool) >= len(v):
                    r = copy.deepcopy(ref)
                    r[t]["steps"][s]["call"]["arguments"][a] = pool[:len(v)]
                    yield f"{c['name']}.{a}={pool[:len(v)]} (other items, as many)", r
    fstate = final_state(spec)
    apps = spec["world"]["apps"]
    for t, turn in enumerate(ref):
        for s, st in enumerate(turn["steps"]):
            c = st.get("call")
            for a, v in ((c or {}).get("arguments") or {}).items():
                hit = next(((app, table) for app, tables in apps.items() for table in (tables or {})
                            if isinstance(v, str) and any(r.get("id") == v for r in _rows(tables[table]))), None)
                key = _search_word149(spec, fstate, *hit, v) if hit else None
                other = next((r.get("id") for r in _rows(world_table(spec, *hit)) if r.get("id") != v
                              and _holds(r, [key])), None) if hit and key else None
                if other is not None:
                    r2 = copy.deepcopy(ref)
                    r2[t]["steps"][s]["call"]["arguments"][a] = other
                    yield f"{c['name']}.{a}={other} (the search's other hit)", r2


FAMILIES["d149"] = mutants149


# -- hunt154: the family d154 ------------------------------------------------------------------------------------
# Hand-written verifier mistakes of yet another kind: a written value read by its end or by its start (`endswith`,
# `startswith` as a pattern), a map entry read as the map's text (the value under any key), a frame's scope written
# as "every record but one" or "every id with its prefix", a kept value's guard scoped by another field the same
# write can change (the harm and the move out of scope in one call), a message's body read from any file's contents.
_MINLEN154 = 5


def _texty154(w: dict[str, Any]) -> bool:
    """A condition `equals` a text value a write sets (not an id, a date-time or a short token)."""
    v = w.get("value")
    return (w.get("op", "equals") == "equals" and isinstance(v, str) and len(v) >= _MINLEN154
            and not re.search(r"(^|_|\.)id$", str(w.get("field"))) and not _DT.match(v) and not _IDISH.match(v))


def _suffix154(w: dict[str, Any]) -> dict[str, Any]:
    return {"field": w["field"], "op": "matches", "value": "(?i)" + re.escape(w["value"][-4:]) + "$"}


def _prefix154(w: dict[str, Any]) -> dict[str, Any]:
    v = w["value"]
    return {"field": w["field"], "op": "matches", "value": "(?i)^" + re.escape(v[:max(3, len(v) // 2)])}


def _parent_text154(w: dict[str, Any]) -> dict[str, Any] | None:
    """A dotted field's value as a pattern over its parent's text (`values matches \\beu-west\\b`: any key)."""
    f, v = str(w.get("field")), w.get("value")
    if "." not in f or w.get("op", "equals") != "equals" or not isinstance(v, (str, bool, int, float)) or v == "":
        return None
    return {"field": f.rsplit(".", 1)[0], "op": "matches", "value": rf"(?i)\b{re.escape(str(v))}\b"}


def _cond_kinds154(conds: list[dict[str, Any]]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    for i, w in enumerate(conds):
        if _texty154(w):
            yield "value_suffix_only", _at129(conds, i, [_suffix154(w)])
            yield "value_prefix_only", _at129(conds, i, [_prefix154(w)])
        if (p := _parent_text154(w)) is not None:
            yield "map_value_any_key", _at129(conds, i, [p])


def _id_param154(params: Iterable[str]) -> str | None:
    return next((p for p in params if p == "id" or p.endswith("_id") or p == "service"), None)


def _scope_field154(spec: Spec, fstate: dict[str, Any], app: str, table: str, rid: Any, kept: str
                    ) -> tuple[str, Any] | None:
    """A top-level text field of record `rid`, other than `kept`, the reference leaves as it was and a write tool
    of the app takes beside the kept field and the record's id: a scope the harming write can move it out of."""
    rec = next((r for r in _rows(world_table(spec, app, table)) if r.get("id") == rid), None)
    fin = next((r for r in _rows((fstate.get(app) or {}).get(table)) if r.get("id") == rid), None)
    if rec is None or fin is None:
        return None
    for name in spec.get("tools") or []:
        td = TOOLS.get(name)
        if td is None or td.app != app or td.kind != "write" or kept.split(".")[0] not in td.params.model_fields:
            continue
        params = td.params.model_fields
        # the tool must name this table's record (`service` names a service's, not a ticket's: tickets_create takes
        # one and no ticket id, so it sets no existing ticket's title: defects156 found the two ticket_triage_update
        # mutants scoped by `title` sound for that reason)
        id_p = _id_param154(params)
        if id_p is None or (id_p == "service" and table != "services"):
            continue
        for g in params:
            if g not in (kept, "id") and not g.endswith("_id") and isinstance(rec.get(g), str) and rec.get(g) \
                    and fin.get(g) == rec.get(g):
                return g, rec[g]
    return None


def _other_id154(spec: Spec, fstate: dict[str, Any], app: str, table: str, rid: Any) -> Any:
    """Another record of the table the reference leaves as it was (the one the author meant to keep out)."""
    fin = {r.get("id"): r for r in _rows((fstate.get(app) or {}).get(table))}
    return next((r.get("id") for r in _rows(world_table(spec, app, table))
                 if r.get("id") != rid and fin.get(r.get("id")) == r), None)


def _id_prefix154(rid: str) -> str | None:
    m = re.match(r"^(.*?)(\d+)$", rid)
    if m and len(m.group(2)) >= 2:
        return "^" + re.escape(m.group(1) + m.group(2)[:-1])
    return None


def rule_kinds154(rule: Rule, spec: Spec, fstate: dict[str, Any], role: str) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): hunt154's mutations of one rule."""
    k = rule["kind"]
    if k == "field":
        t = rule["target"]
        cond = {"field": t["field"], "op": rule.get("op", "equals"), "value": rule.get("value")}
        idc = {"field": "id", "op": "equals", "value": t["id"]}
        for name, new in _cond_kinds154([cond]):
            yield name, {"kind": "records", "app": t["app"], "table": t["table"], "where": [idc, *new],
                         "count_op": "gte", "count": 1}
        if role == "guard" and cond["op"] == "equals" and cond["value"] is not None:
            sc = _scope_field154(spec, fstate, t["app"], t["table"], t["id"], t["field"])
            if sc is not None:
                yield "guard_scope_writable", {"kind": "records", "app": t["app"], "table": t["table"], "where": [
                    {"field": sc[0], "op": "equals", "value": sc[1]},
                    {"field": "id", "op": "equals", "value": t["id"]},
                    {**cond, "op": "not_equals"}], "count_op": "equals", "count": 0}
    elif k == "records":
        where = rule.get("where") or []
        if role == "completion":
            for name, new in _cond_kinds154(where):
                yield name, {**rule, "where": new}
            if "files" in spec["world"]["apps"] and rule["app"] in ("mail", "chat"):
                for w in where:
                    if w.get("field") in _BODY146 and w.get("op") in ("contains", "matches") \
                            and isinstance(w.get("value"), str) and w["value"].strip():
                        yield "body_in_file_content", {"kind": "tiers", "tiers": [
                            {"score": 1.0, "rule": rule},
                            {"score": 1.0, "rule": {"kind": "records", "app": "files", "table": "files", "where": [
                                {"field": "content", "op": w["op"], "value": w["value"]}],
                                "count_op": "gte", "count": 1}}]}
        ids = [w for w in where if w.get("field") == "id" and w.get("op", "equals") == "equals"]
        if role == "guard" and len(ids) == 1 and rule.get("count_op", "gte") == "equals" and rule.get("count") == 1:
            for w in where:
                if w in ids or w.get("op", "equals") != "equals":
                    continue
                sc = _scope_field154(spec, fstate, rule["app"], rule["table"], ids[0]["value"], str(w["field"]))
                if sc is not None and all(x.get("field") != sc[0] for x in where):
                    yield "guard_scope_writable", {**rule, "where": [
                        {"field": sc[0], "op": "equals", "value": sc[1]}, *ids, {**w, "op": "not_equals"}],
                        "count_op": "equals", "count": 0}
                    break
    elif k in ("called", "order") and role == "completion":
        for key in (["call"] if k == "called" else ["first", "then"]):
            m = rule[key]
            for name, new in _cond_kinds154(m.get("where") or []):
                yield name, {**rule, key: {**m, "where": new}}
            args = m.get("args") or {}
            for a, x in args.items():
                w = {"field": a, "op": "equals", "value": x}
                if _texty154(w):
                    kept = {b: y for b, y in args.items() if b != a}
                    for name, c in (("value_suffix_only", _suffix154(w)), ("value_prefix_only", _prefix154(w))):
                        yield name, {**rule, key: {**m, "args": kept, "where": [*(m.get("where") or []), c]}}
    elif k == "frame":
        allow = rule.get("allow") or []
        for i, e in enumerate(allow):
            rid = e.get("id")
            if not isinstance(rid, str) or not e.get("table"):
                continue
            other = _other_id154(spec, fstate, e["app"], e["table"], rid)
            if other is not None:
                yield "scope_id_not_equals", {**rule, "allow": [*allow[:i], {**e, "id": None, "where": [
                    *(e.get("where") or []), {"field": "id", "op": "not_equals", "value": other}]}, *allow[i + 1:]]}
            px = _id_prefix154(rid)
            if px is not None:
                yield "scope_id_prefix", {**rule, "allow": [*allow[:i], {**e, "id": None, "where": [
                    *(e.get("where") or []), {"field": "id", "op": "matches", "value": px}]}, *allow[i + 1:]]}


def mutants154(spec: Spec) -> Iterator[Mutant]:
    fstate = final_state(spec)
    for ci, c in enumerate(spec["checks"]):
        role = c.get("role") or ("guard" if c["rule"]["kind"] in ("frame", "forbidden") else "completion")
        for name, r in rule_kinds154(c["rule"], spec, fstate, role):
            s2 = copy.deepcopy(spec)
            s2["checks"][ci] = {**c, "rule": r}
            yield Mutant(name, ci, s2, "")


def _respelt154(v: str, at: int) -> str:
    """`v` with its character at `at` changed (a digit one up, a letter the next one, else `x`)."""
    ch = v[at]
    new = str((int(ch) + 1) % 10) if ch.isdigit() else (chr((ord(ch.lower()) - 96) % 26 + 97) if ch.isalpha()
                                                         else "x")
    return v[:at] + new + v[at + 1:]


def episodes154(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """hunt154's episodes: each text argument of a write (not an id) with its first, then its last, character
    changed (the end or the start kept); a map key argument replaced by another key of the record's map; a kept
    field changed at the end in the same call that moves the record out of a field a guard could scope it by."""
    ref = spec["reference"]
    if not ref:
        return
    ids = {r.get("id") for tables in spec["world"]["apps"].values() for t in (tables or {}).values()
           for r in _rows(t)}
    for t, s, c, td in ref_writes(ref):
        for a, v in c["arguments"].items():
            if not isinstance(v, str) or len(v) < _MINLEN154 or v in ids or re.search(r"(^|_)id$", a):
                continue
            for at in (0, len(v) - 1):
                r = copy.deepcopy(ref)
                r[t]["steps"][s]["call"]["arguments"][a] = _respelt154(v, at)
                yield f"{c['name']}.{a}={_respelt154(v, at)[:30]} (one end kept)", r
        # a key of a map field of the named record, replaced by another key of that map
        rid = next((x for p, x in c["arguments"].items() if p == _id_param154([p]) and isinstance(x, str)), None)
        rec = next((r for tb in (spec["world"]["apps"].get(td.app) or {}).values() for r in _rows(tb)
                    if r.get("id") == rid), None)
        for a, v in c["arguments"].items():
            maps = [m for m in (rec or {}).values() if isinstance(m, dict) and v in m] if isinstance(v, str) else []
            for m in maps[:1]:
                for other in [x for x in m if x != v][:2]:
                    r = copy.deepcopy(ref)
                    r[t]["steps"][s]["call"]["arguments"][a] = other
                    yield f"{c['name']}.{a}={other} (another key of the map)", r
    fstate = final_state(spec)
    for app, table, rid, field, kept in _kept135(spec):
        sc = _scope_field154(spec, fstate, app, table, rid, field)
        if sc is None or "." in field:
            continue
        held = [r.get(field) for r in _rows(world_table(spec, app, table))]
        others = list(dict.fromkeys(x for x in held if isinstance(x, (str, int, float)) and x != kept))[:2] or \
            [x for x in bump(kept) if x != kept][:1]
        gs = [r.get(sc[0]) for r in _rows(world_table(spec, app, table)) if r.get(sc[0]) not in (sc[1], None)]
        g_other = gs[0] if gs else f"{sc[1]}-moved"
        for name in spec.get("tools") or []:
            td = TOOLS.get(name)
            params = td.params.model_fields if td else {}
            id_p = _id_param154(params)
            if td is None or td.app != app or td.kind != "write" or field not in params or sc[0] not in params \
                    or id_p is None:
                continue
            for x in others:
                r = copy.deepcopy(ref)
                r[-1]["steps"].insert(max(0, len(r[-1]["steps"]) - 1), {"call": {
                    "name": name, "arguments": {id_p: rid, field: x, sc[0]: g_other}}, "say": None})
                yield f"then {name}({id_p}={rid}, {field}={str(x)[:20]}, {sc[0]}={str(g_other)[:20]})", r


FAMILIES["d154"] = mutants154


# -- hunt157: the family d157 ------------------------------------------------------------------------------------
# Hand-written verifier mistakes of types and of states: a number or a flag written as its text (`"3"`, `"true"`:
# an `equals` that never holds, a `not_equals` that always does), a text value "or empty", a list's order dropped
# (any ordering of its items), a reply check kept to what it must not say (a refusal meets it), an exact time as the
# span from where the record was to where it goes (the start state inside), a phrase as any one of its words, and a
# date-time as its date or its time of day.
_REFUSAL157 = "Sorry, I can't help with that request right now."


def _as_text157(v: Any) -> Any:
    """A number or a flag as the text an author copied it as (`3` -> `"3"`, `True` -> `"true"`), else None."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if _is_num(v):
        return str(v)
    return None


def _initial157(spec: Spec, app: str, table: str, rid: Any, field: str) -> Any:
    rec = next((r for r in _rows(world_table(spec, app, table)) if r.get("id") == rid), None)
    return _dig(rec, field) if rec is not None else None


def _cond_kinds157(conds: list[dict[str, Any]], spec: Spec, app: str | None, table: str | None, role: str
                   ) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    rid = next((w.get("value") for w in conds if w.get("field") == "id" and w.get("op", "equals") == "equals"), None)
    for i, w in enumerate(conds):
        op, v, f = w.get("op", "equals"), w.get("value"), str(w.get("field"))
        t = _as_text157(v)
        if t is not None and ((role == "guard" and op in ("equals", "gte", "lte", "gt", "lt"))
                              or (role == "completion" and op == "not_equals")):
            yield "value_as_text", _at129(conds, i, [{**w, "value": t}])
        if role != "completion" or f == "id":
            continue
        if op == "equals" and isinstance(v, str) and v and not _DT.match(v):
            yield "value_or_empty", _at129(conds, i, [{**w, "op": "in", "value": [v, "", None]}])
            words = re.findall(r"[A-Za-z0-9]{3,}", v)
            if len(words) >= 2:
                alt = "|".join(re.escape(x) for x in dict.fromkeys(words))
                yield "phrase_any_word", _at129(conds, i, [{**w, "op": "matches", "value": rf"(?i)\b({alt})\b"}])
        if op == "equals" and isinstance(v, list) and 2 <= len(v) <= 3 and len(set(map(str, v))) == len(v):
            perms = [list(p) for p in itertools.permutations(v)]
            yield "list_order_free", _at129(conds, i, [{**w, "op": "in", "value": perms}])
        if op == "equals" and isinstance(v, str) and _DT.match(v):
            d, tm = v[:10], v[11:16]
            yield "dt_date_or_time", _at129(conds, i, [{**w, "op": "matches",
                                                         "value": rf"^({re.escape(d)}T|\d{{4}}-\d\d-\d\dT{tm})"}])
            old = _initial157(spec, app, table, rid, f) if app and table and rid is not None else None
            if isinstance(old, str) and _DT.match(old) and old != v:
                lo, hi = sorted([old, v])
                yield "dt_window_from_initial", _at129(conds, i, [{**w, "op": "gte", "value": lo},
                                                                  {**w, "op": "lte", "value": hi}])


def _matcher_kinds157(m: dict[str, Any], role: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for a, x in (m.get("args") or {}).items():
        t = _as_text157(x)
        if t is not None and role == "guard":
            yield "value_as_text", {**m, "args": {**m["args"], a: t}}
    for name, new in _cond_kinds157(m.get("where") or [], {}, None, None, role):
        if name == "value_as_text":
            yield name, {**m, "where": new}


def rule_kinds157(rule: Rule, spec: Spec, role: str) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): hunt157's mutations of one rule."""
    k = rule["kind"]
    if k == "field":
        t = rule["target"]
        cond = {"field": t["field"], "op": rule.get("op", "equals"), "value": rule.get("value")}
        idc = {"field": "id", "op": "equals", "value": t["id"]}
        if role == "completion":  # a guard's "stays v" written as text would fail the reference: not a mistake
            for name, new in _cond_kinds157([idc, cond], spec, t["app"], t["table"], role):
                yield name, {"kind": "records", "app": t["app"], "table": t["table"], "where": new,
                             "count_op": "gte", "count": 1}
    elif k == "records":
        # a guard's conditions describe the harm only inside a count of none (`equals 0`, `lte 0`)
        harm = rule.get("count_op", "gte") in ("equals", "lte") and rule.get("count") == 0
        if role == "completion" or harm:
            for name, new in _cond_kinds157(rule.get("where") or [], spec, rule["app"], rule["table"], role):
                yield name, {**rule, "where": new}
    elif k in ("called", "order", "forbidden"):
        for key in (["first", "then"] if k == "order" else ["call"]):
            for name, new in _matcher_kinds157(rule[key], "guard" if k == "forbidden" else role):
                yield name, {**rule, key: new}
            if k != "forbidden" and role == "completion":
                m = rule[key]
                for name, w in _cond_kinds157([{"field": a, "op": "equals", "value": x}
                                               for a, x in (m.get("args") or {}).items()], spec, None, None, role):
                    if name in ("list_order_free", "phrase_any_word", "dt_date_or_time"):
                        kept = {a: x for a, x in m["args"].items() if a not in {c["field"] for c in w}}
                        changed = [c for c in w if c.get("op") != "equals"]
                        yield name, {**rule, key: {**m, "args": kept, "where": [*(m.get("where") or []), *changed]}}
    elif k == "text" and role == "completion" and (rule.get("scope") or "final") != "all":
        nones = rule.get("none_of") or []
        if rule.get("all_of") or rule.get("any_of") or rule.get("regex") or rule.get("number"):
            keep = {x: y for x, y in rule.items() if x in ("kind", "scope", "turn", "normalize", "words", "none_of")}
            yield "reply_negatives_only", {**keep, "min_chars": 20} if not nones else keep


_PER_BASE157 = 3  # mutants of one kind per base (the first ones, check by check): the run stays short


def mutants157(spec: Spec) -> Iterator[Mutant]:
    yield from _capped_mutants(spec, lambda rule, role: rule_kinds157(rule, spec, role), _PER_BASE157)


def episodes157(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """hunt157's episodes: each text argument of a write emptied, each list argument of two or three items in
    another order, each text argument of several words cut to its first or last word, each date-time argument at
    the same time on another day and on the same day at another time, and every reply a refusal (the writes kept)."""
    ref = spec["reference"]
    if not ref:
        return
    for t, s, c, _td in ref_writes(ref):
        for a, v in c["arguments"].items():
            news: list[tuple[str, Any]] = []
            if isinstance(v, str) and v and not re.search(r"(^|_)id$", a):
                news.append(("emptied", ""))
                words = re.findall(r"[A-Za-z0-9]{3,}", v)
                if len(words) >= 2 and not _DT.match(v):
                    news += [("first word", words[0]), ("last word", words[-1])]
                if _DT.match(v):
                    news += [("next day", _day_shift(v, 1)), ("other time", v[:11] + "23:45" + v[16:])]
            if isinstance(v, list) and 2 <= len(v) <= 3:
                news.append(("reversed", list(reversed(v))))
            for lab, x in news:
                if x is None or x == v:
                    continue
                r = copy.deepcopy(ref)
                r[t]["steps"][s]["call"]["arguments"][a] = x
                yield f"{c['name']}.{a} {lab}", r
    r = copy.deepcopy(ref)
    said = False
    for turn in r:
        for st in turn["steps"]:
            if st.get("say"):
                st["say"], said = _REFUSAL157, True
    if said:
        yield "every reply a refusal", r


FAMILIES["d157"] = mutants157


# -- hunt159: the family d159 ------------------------------------------------------------------------------------
# Hand-written verifier mistakes about arguments left out: a written value admitted "or null" (`in [v, null]`: an
# optional argument left out passes), a call's argument read as "not the old value" (`not_equals old`: a call that
# leaves the argument out passes, the field it does not set reads as missing), a record named by an optional
# argument (`in_reply_to`, `list_id`) read as any record of its kind, and an id admitting its numeric neighbours
# (`in [tkt-41, tkt-42, tkt-43]`: the write on the record next to it).
def _world_ids159(spec: Spec) -> set[str]:
    return {str(r["id"]) for app in spec["world"]["apps"].values() if isinstance(app, dict)
            for table in app.values() for r in _rows(table) if r.get("id") is not None}


def _neighbours159(spec: Spec, rid: Any) -> list[str]:
    """The ids one up and one down of `rid` (`tkt-42`: `tkt-41`, `tkt-43`) the world holds."""
    if not isinstance(rid, str):
        return []
    head = rid.rstrip("0123456789")  # its trailing digits split off without a pattern (linear on any text)
    digits = rid[len(head):]
    if not digits or len(digits) > 12:
        return []
    n, w = int(digits), len(digits)
    ids = _world_ids159(spec)
    return [x for x in (f"{head}{n + d:0{w}d}" for d in (-1, 1)) if x in ids and x != rid]


def _optional_written159(spec: Spec) -> dict[Any, str]:
    """Each value the reference writes through an optional argument of a write tool -> the argument."""
    out: dict[Any, str] = {}
    for _t, _s, c, td in ref_writes(spec["reference"]):
        fields = td.params.model_fields
        for a, v in c["arguments"].items():
            f = fields.get(a)
            if f is not None and not f.is_required() and isinstance(v, (str, int, float)) and not isinstance(v, bool):
                out.setdefault(v, a)
    return out


def _cond_kinds159(conds: list[dict[str, Any]], spec: Spec, role: str, opt: dict[Any, str], ids: set[str]
                   ) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    if role != "completion":
        return
    for i, w in enumerate(conds):
        op, v, f = w.get("op", "equals"), w.get("value"), str(w.get("field"))
        if op != "equals" or isinstance(v, (bool, list, dict)) or v is None:
            continue
        if f == "id" or f.endswith("_id"):
            near = _neighbours159(spec, v)
            if near:
                yield "id_neighbour_in", _at129(conds, i, [{**w, "op": "in", "value": [v, *near]}])
        if f != "id" and v in opt:
            yield "value_or_null", _at129(conds, i, [{**w, "op": "in", "value": [v, None]}])
            if isinstance(v, str) and v in ids and (px := re.match(r"^[A-Za-z]+[-_]", v)):
                yield "optional_link_any", _at129(conds, i, [{**w, "op": "matches", "value": "^" + re.escape(px.group())}])


def _old_value159(spec: Spec, m: dict[str, Any], a: str) -> Any:
    """The value the record the matcher names held before, in the field argument `a` sets."""
    ids = [x for k, x in (m.get("args") or {}).items() if k != a and isinstance(x, str)]
    for app in spec["world"]["apps"].values():
        for table in (app.values() if isinstance(app, dict) else []):
            for r in _rows(table):
                if r.get("id") in ids and a in r and r[a] is not None:
                    return r[a]
    return None


def _matcher_kinds159(m: dict[str, Any], spec: Spec, opt: dict[Any, str], ids: set[str]
                      ) -> Iterator[tuple[str, dict[str, Any]]]:
    args = m.get("args") or {}
    td = TOOLS.get(m.get("tool", ""))
    for a, v in args.items():
        if isinstance(v, (bool, list, dict)) or v is None:
            continue
        rest = {k: x for k, x in args.items() if k != a}
        optional = td is not None and a in td.params.model_fields and not td.params.model_fields[a].is_required()
        if optional:
            yield "value_or_null", {**m, "args": rest, "where": [*(m.get("where") or []),
                                                                  {"field": a, "op": "in", "value": [v, None]}]}
            old = _old_value159(spec, m, a)
            if old is not None and old != v:
                yield "arg_ne_old", {**m, "args": rest, "where": [*(m.get("where") or []),
                                                                   {"field": a, "op": "not_equals", "value": old}]}
            if isinstance(v, str) and v in ids and (px := re.match(r"^[A-Za-z]+[-_]", v)):
                yield "optional_link_any", {**m, "args": rest, "where": [
                    *(m.get("where") or []), {"field": a, "op": "matches", "value": "^" + re.escape(px.group())}]}
        elif re.search(r"(^|_)id$", a):
            near = _neighbours159(spec, v)
            if near:
                yield "id_neighbour_in", {**m, "args": rest, "where": [*(m.get("where") or []),
                                                                        {"field": a, "op": "in", "value": [v, *near]}]}


def rule_kinds159(rule: Rule, spec: Spec, role: str, opt: dict[Any, str], ids: set[str]
                  ) -> Iterator[tuple[str, Rule]]:
    """(kind, new rule): hunt159's mutations of one rule."""
    k = rule["kind"]
    if k == "field" and role == "completion":
        t = rule["target"]
        conds = [{"field": "id", "op": "equals", "value": t["id"]},
                 {"field": t["field"], "op": rule.get("op", "equals"), "value": rule.get("value")}]
        for name, new in _cond_kinds159(conds, spec, role, opt, ids):
            yield name, {"kind": "records", "app": t["app"], "table": t["table"], "where": new,
                         "count_op": "gte", "count": 1}
    elif k == "records" and role == "completion":
        for name, new in _cond_kinds159(rule.get("where") or [], spec, role, opt, ids):
            yield name, {**rule, "where": new}
    elif k in ("called", "order") and role == "completion":
        for key in (["first", "then"] if k == "order" else ["call"]):
            for name, new in _matcher_kinds159(rule[key], spec, opt, ids):
                yield name, {**rule, key: new}


_PER_BASE159 = 4  # mutants of one kind per base (the first ones, check by check): the run stays short


def mutants159(spec: Spec) -> Iterator[Mutant]:
    opt, ids = _optional_written159(spec), _world_ids159(spec)
    yield from _capped_mutants(spec, lambda rule, role: rule_kinds159(rule, spec, role, opt, ids), _PER_BASE159)


def _capped_mutants(spec: Spec, kinds: Callable[[Rule, str], Iterable[tuple[str, Rule]]], cap: int
                    ) -> Iterator[Mutant]:
    """The mutants `kinds` makes of each check's rule (and each tier's, for a completion tiers check), at most `cap`
    of a kind per base (the first ones, check by check): hunt157's and hunt159's runs stay short."""
    made: dict[str, int] = defaultdict(int)
    for ci, c in enumerate(spec["checks"]):
        role = c.get("role") or ("guard" if c["rule"]["kind"] in ("frame", "forbidden") else "completion")
        found = [(name, r, None) for name, r in kinds(c["rule"], role)]
        if c["rule"]["kind"] == "tiers" and role == "completion":
            found += [(name, r, ti) for ti, tier in enumerate(c["rule"].get("tiers") or [])
                      for name, r in kinds(tier["rule"], role)]
        for name, r, ti in found:
            if made[name] >= cap:
                continue
            made[name] += 1
            s2 = copy.deepcopy(spec)
            if ti is None:
                s2["checks"][ci] = {**c, "rule": r}
            else:
                s2["checks"][ci]["rule"]["tiers"][ti] = {**s2["checks"][ci]["rule"]["tiers"][ti], "rule": r}
            yield Mutant(name, ci, s2, "" if ti is None else f"tier {ti}")


def episodes159(spec: Spec) -> Iterator[tuple[str, Episode]]:
    """hunt159's episodes: each optional argument of a write left out and set to null, each id-like argument
    replaced by its numeric neighbours the world holds, and each optional argument naming a record replaced by
    another record of its kind."""
    ref = spec["reference"]
    if not ref:
        return
    ids = sorted(_world_ids159(spec))
    for t, s, c, td in ref_writes(ref):
        fields = td.params.model_fields
        for a, v in c["arguments"].items():
            f = fields.get(a)
            news: list[tuple[str, Any]] = []
            if f is not None and not f.is_required():
                r = copy.deepcopy(ref)
                del r[t]["steps"][s]["call"]["arguments"][a]
                yield f"{c['name']}.{a} left out", r
                news.append(("null", None))
                if isinstance(v, str) and v in ids and (px := re.match(r"^[A-Za-z]+[-_]", v)):
                    news += [("another", x) for x in ids if x.startswith(px.group()) and x != v][:2]
            if re.search(r"(^|_)id$", a) or a == "list_id":
                news += [("neighbour", x) for x in _neighbours159(spec, v)]
            for lab, x in news:
                r = copy.deepcopy(ref)
                r[t]["steps"][s]["call"]["arguments"][a] = x
                yield f"{c['name']}.{a} {lab} {x!r}"[:80], r


FAMILIES["d159"] = mutants159



class Witnesses:
    """Per base, the near-reference episodes the shipped spec fails; the first one a mutant passes is its witness."""

    def __init__(self) -> None:
        self._failing: dict[str, list[tuple[str, Episode]]] = {}
        self._late: dict[str, list[tuple[str, Episode]]] = {}

    def find(self, base: str, spec: Spec, mutant: Spec) -> str | None:
        if base not in self._failing:
            self._failing[base] = []
            late: list[tuple[str, Episode]] = []  # hunt149's, tried on sandboxed mutants beside the first 25
            for lab, ep in episodes149(spec):
                try:
                    if not play(spec, ep).passed:
                        late.append((lab, ep))
                except Exception:
                    continue
            self._late[base] = late
            for lab, ep in itertools.chain(episodes(spec), episodes94(spec), episodes99(spec), episodes111(spec),
                                            episodes117(spec), episodes119(spec), episodes123(spec),
                                            episodes129(spec), episodes132(spec), episodes135(spec),
                                            episodes135_kept(spec), episodes135_after(spec), episodes141(spec),
                                            episodes146(spec), episodes154(spec), episodes157(spec),
                                            episodes159(spec)):
                try:
                    if not play(spec, ep).passed:
                        self._failing[base].append((lab, ep))
                except Exception:  # an episode the engine cannot play proves nothing
                    continue
        sandboxed = any(c["rule"]["kind"] == "python" for c in mutant["checks"])
        for lab, ep in [*(self._failing[base][:25] if sandboxed else self._failing[base]), *self._late[base]]:
            try:
                if play(mutant, ep).passed:
                    return lab
            except Exception:
                continue
        return None


# -- bases, the run, the tally ----------------------------------------------------------------------------------
def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


HUNT_CAPS = ("contact_phone_update", "correct_bad_data", "draft_only_reply", "feature_flag_rollout",
             "inventory_restock_policy", "lookup_answer_source", "refuse_forbidden_action", "report_from_data",
             "schedule_meeting_timezones", "scheduler_pause_failing_jobs", "ticket_triage_update", "web_page_audit")


def expand_bases(tokens: Iterable[str]) -> list[str]:
    """`examples`, `example:NAME`, `synth:CAP@SEED`, `CAP[,CAP...]:SEEDS`, `all:SEEDS` -> tests/defects' base names."""
    caps = sorted(load_taxonomy(ROOT / "taxonomy").capabilities)
    out: list[str] = []
    for tok in tokens:
        if tok.startswith("hunt:"):
            tok = ",".join(HUNT_CAPS) + tok[4:]
        if tok == "examples":
            out += [f"example:{n}" for n in example_names()]
        elif tok.startswith(("example:", "synth:")):
            out.append(tok)
        else:
            names, _, seeds = tok.partition(":")
            chosen = caps if names == "all" else names.split(",")
            unknown = sorted(set(chosen) - set(caps))
            if unknown:
                raise SystemExit(f"error: no capability {', '.join(unknown)}; choose among all, {', '.join(caps)}")
            for seed in _seeds(seeds or "1"):
                out += [f"synth:{c}@{seed}" for c in chosen]
    return list(dict.fromkeys(out))


def _selected(name: str, kind: Kind, patterns: list[str] | None, families: set[str], python: bool) -> bool:
    if kind.family not in families or (kind.python and not python):
        return False
    return patterns is None or any(fnmatch.fnmatchcase(name, p) for p in patterns)


def _codes(v: Any) -> list[str]:
    return sorted({f"{e.gate}/{e.code}" for e in v.errors()})


def run(bases: list[str], patterns: list[str] | None, families: set[str], python: bool, witness: bool,
        out: Path) -> None:
    wit = Witnesses()
    partial = out.with_name(out.name + ".partial")
    started = time.perf_counter()
    with partial.open("w") as fh:
        for bi, base in enumerate(bases, 1):
            spec = base_spec(base)
            t0, n, acc, unsound = time.perf_counter(), 0, 0, 0
            py_seen: set[tuple[str, ...]] = set()
            for fam in sorted(families):
                for m in FAMILIES[fam](spec):
                    kind = kind_of(m.kind)
                    if not _selected(m.kind, kind, patterns, families, python) or m.spec == spec:
                        continue
                    if fam in ("d69", "d73", "d77", "d83", "d149") and kind.python:  # defects69: examples and seed 1, one per kind and rule kinds
                        key = (m.kind, spec["checks"][m.ci]["rule"]["kind"], m.spec["checks"][m.ci]["rule"]["kind"])
                        if not (base.startswith("example:") or base.endswith("@1")) or key in py_seen:
                            continue
                        py_seen.add(key)
                    n += 1
                    row: dict[str, Any] = {"base": base, "kind": m.kind, "family": fam, "ci": m.ci,
                                           "check": spec["checks"][m.ci]["id"] if m.ci >= 0 else None,
                                           "detail": m.detail}
                    try:
                        v = judge(m.spec)
                    except Exception as e:  # a mutant the loader refuses is no hunt result: recorded as an error
                        row["error"] = f"{type(e).__name__}: {str(e)[:200]}"
                    else:
                        row["accepted"] = bool(v.passed)
                        row["codes"] = _codes(v)[:4]
                        row["witness"] = wit.find(base, spec, m.spec) if v.passed and witness else None
                        acc += row["accepted"]
                        unsound += row["witness"] is not None
                    new = m.spec["checks"][m.ci] if 0 <= m.ci < len(m.spec["checks"]) else m.spec.get("scoring")
                    row["new"] = new.get("rule", new) if isinstance(new, dict) else new
                    fh.write(json.dumps(row) + "\n")
                    fh.flush()
            print(f"[{bi}/{len(bases)}] {base}: mutants {n}, accepted {acc}, witnessed {unsound}, "
                  f"{time.perf_counter() - t0:.0f} s (total {time.perf_counter() - started:.0f} s)", flush=True)
    os.replace(partial, out)


def tally(paths: Iterable[Path]) -> str:
    """The per-kind table: mutants / accepted by the strict gates / witnessed unsound / errors."""
    st: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for p in paths:
        for line in p.read_text().splitlines():
            d = json.loads(line)
            s = st[d["kind"]]
            s[0] += 1
            if d.get("error"):
                s[3] += 1
                continue
            s[1] += bool(d["accepted"])
            s[2] += bool(d["accepted"] and d.get("witness"))
    lines = [f"{'kind':40} {'mutants':>7} {'accepted':>8} {'witnessed':>9} {'errors':>6}"]
    lines += [f"{k:40} {s[0]:7} {s[1]:8} {s[2]:9} {s[3]:6}" for k, s in sorted(st.items())]
    tot = [sum(s[i] for s in st.values()) for i in range(4)]
    lines.append(f"{'total':40} {tot[0]:7} {tot[1]:8} {tot[2]:9} {tot[3]:6}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--bases", nargs="+", default=["examples"],
                    help="examples | example:NAME | CAP[,CAP...]:SEEDS | all:SEEDS | synth:CAP@SEED | hunt:SEEDS "
                    "(the 12 capabilities of the two rounds) (default: examples)")
    ap.add_argument("--kinds", nargs="+", help="kind names or fnmatch patterns (default: every kind)")
    ap.add_argument("--family", nargs="+", choices=sorted(FAMILIES), default=sorted(FAMILIES))
    ap.add_argument("--python", action="store_true", help="also the sandboxed Python kinds (slow)")
    ap.add_argument("--no-witness", action="store_true", help="skip the witness search of accepted mutants")
    ap.add_argument("--out", type=Path, help="the JSONL of mutants (default: hunt_mutants.jsonl)")
    ap.add_argument("--summary", action="store_true", help="print the per-kind tally after the run")
    ap.add_argument("--tally", nargs="+", type=Path, metavar="JSONL", help="only tally these files")
    ap.add_argument("--list-kinds", action="store_true", help="print the registry and exit")
    a = ap.parse_args()
    if a.list_kinds:
        for name, k in sorted(KINDS.items(), key=lambda kv: (kv[1].family, kv[0])):
            print(f"{k.family} {k.rule:12} {name}{'  (python)' if k.python else ''}")
        return
    if a.tally:
        print(tally(a.tally))
        return
    if a.kinds:
        unknown = [p for p in a.kinds if not any(fnmatch.fnmatchcase(n, p) or fnmatch.fnmatchcase("tiers." + n, p)
                                                 for n in KINDS)]
        if unknown:
            raise SystemExit(f"error: no kind matches {', '.join(unknown)} (see --list-kinds)")
    out = a.out or Path("hunt_mutants.jsonl")
    bases = expand_bases(a.bases)
    print(f"{len(bases)} bases, families {', '.join(a.family)}, python kinds {'on' if a.python else 'off'}, "
          f"out {out}", flush=True)
    run(bases, a.kinds, set(a.family), a.python, not a.no_witness, out)
    if a.summary:
        print(tally([out]))


if __name__ == "__main__":
    main()
