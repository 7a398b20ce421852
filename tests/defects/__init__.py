"""A corpus of defective environment specs, one module per defect class, each defect next to its sound twin.

Each module has CLASS, DETECTION (how a program can detect the class) and DEFECTS. A `Defect` names a sound base
spec (a shipped example or a seeded procedural spec), the edit that makes the defect (`breaks`), optionally the
edit that makes a deliberately fixed twin (`fix`), what an agent gets away with, and where possible a witness: an
agent behaviour on which defect and twin disagree, which tests/test_defects.py plays to prove the defect real.
Edits find what they change by structure (check kind, field, tool), not by seed-specific ids, and raise
`CorpusError` when a base spec no longer has that structure.

    from tests.defects import CLASSES, all_defects
    for d in all_defects(): d.defect_spec(), d.twin_spec(), d.gets_away_with
"""

from __future__ import annotations

from tests.defects import (
    broken_reference,
    case_pinned,
    content_blind,
    created_id_pinned,
    dead_guard,
    dst_pinned,
    duplicate_tolerant,
    duration_pinned,
    format_pinned,
    frame_blind,
    frame_config_values,
    frame_dict_field,
    frame_everything,
    frame_whole_other_tool,
    frame_whole_unwritten,
    frame_whole_world_put,
    funnel_attribution,
    guard_default_arg,
    guard_deletion_evades,
    guard_draft_route,
    guard_one_end_state,
    guard_one_route,
    guard_other_channel,
    guard_respelled,
    half_pinned,
    instant_pinned,
    isolation_leak,
    later_state_by_rule,
    later_state_own_write,
    later_state_read,
    later_state_unbound,
    lenient_scoring,
    list_order_pinned,
    namesake_record,
    number_pinned,
    numeral_pinned,
    order_blind,
    order_unasked,
    pace_pinned,
    partial_credit,
    phone_code_pinned,
    phrase_pinned,
    pinned_wording,
    presolved,
    probe_aware,
    python_fragile,
    python_messages_table,
    python_record_order,
    relative_date_pinned,
    reply_only,
    silent_change,
    solved_by_world,
    spelling_pinned,
    time_window,
    unchosen_field,
    undone_created,
    undone_filed_ticket,
    undone_inverse,
    undone_write,
    unit_pinned,
    vacuous,
    wrong_expected,
    wrong_route,
    zone_pinned,
)
from tests.defects._core import Defect, has_policy, judge, play, witness_holds

MODULES = (
    order_blind,
    order_unasked,
    frame_blind,
    partial_credit,
    content_blind,
    half_pinned,
    vacuous,
    dead_guard,
    python_fragile,
    isolation_leak,
    presolved,
    funnel_attribution,
    wrong_expected,
    broken_reference,
    reply_only,
    silent_change,
    duplicate_tolerant,
    time_window,
    unchosen_field,
    lenient_scoring,
    list_order_pinned,
    pinned_wording,
    phrase_pinned,
    created_id_pinned,
    spelling_pinned,
    guard_respelled,
    guard_one_route,
    guard_draft_route,
    guard_default_arg,
    namesake_record,
    wrong_route,
    python_record_order,
    python_messages_table,
    probe_aware,
    frame_everything,
    solved_by_world,
    guard_one_end_state,
    guard_deletion_evades,
    guard_other_channel,
    frame_whole_other_tool,
    case_pinned,
    frame_whole_unwritten,
    later_state_read,
    frame_dict_field,
    later_state_by_rule,
    later_state_own_write,
    frame_whole_world_put,
    frame_config_values,
    format_pinned,
    later_state_unbound,
    undone_inverse,
    undone_write,
    duration_pinned,
    number_pinned,
    phone_code_pinned,
    relative_date_pinned,
    zone_pinned,
    instant_pinned,
    dst_pinned,
    pace_pinned,
    undone_created,
    numeral_pinned,
    unit_pinned,
    undone_filed_ticket,
)
CLASSES: dict[str, list[Defect]] = {m.CLASS: m.DEFECTS for m in MODULES}
# How a program can detect each class: what the gates are expected to do.
DETECTION: dict[str, str] = {m.CLASS: m.DETECTION for m in MODULES}


def all_defects() -> list[Defect]:
    """Every defect of every class, in module order."""
    return [d for m in MODULES for d in m.DEFECTS]


__all__ = ["CLASSES", "DETECTION", "MODULES", "Defect", "all_defects", "has_policy", "judge", "play", "witness_holds"]
