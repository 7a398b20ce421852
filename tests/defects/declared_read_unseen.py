"""Defects of other classes in specs whose every tool is declared, reads included.

A spec may give the agent its own read tools (`tool_decls`: an imported `configs_lookup` bound to `services_get_config`,
a `tickets_lookup` bound to `tickets_list`), under names no built-in catalogue knows. A validator that takes a read to
be a call of a built-in read tool sees no read at all in such a spec: not what the reference's reads were shown (the
config value a DM restates in another unit, an amount a DM writes in another notation: `unit_pinned`,
`format_pinned`), not which of its calls only read (the quiet read a slower agent pauses on: `pace_pinned`; the
reads-only agent of `solved_by_world`), not the records a read shows (a draft it lists). Each defect here is an
existing class's defect (its witness, gate and code) with every tool the agent is given declared under another name
(bound to the same op, the same arguments, the checks', rules' and turns' matchers following); the sound twin is that
defect's twin, declared alike (`declared_write_as_read` declares the writes only).
"""

from __future__ import annotations

from typing import Any

from tests.defects import number_pinned, size_pinned, stamp_pinned, undone_by_clock, unit_pinned
from tests.defects._core import CorpusError, Defect, Edit, Spec
from tests.defects.declared_write_as_read import _witness, declare_writes

CLASS = "declared_read_unseen"
DETECTION = (
    "take a spec's reads by its catalogue too (a declared tool counts as the op it is bound to, an audited call by "
    "its `op`), in every validator that reads what the reference's reads were shown or which of its calls only read: "
    "a declared read taken for no read hides the value a message restates, the quiet read a slower agent pauses on, "
    "and the reads-only agent that sets off the world"
)


def _all_declared(edit: Edit | None) -> Edit:
    def both(spec: Spec) -> None:
        if edit is not None:
            edit(spec)
        declare_writes(spec, every=True, reads=True)
    return both


def _declared(module: Any, name: str) -> Defect:
    """`module`'s defect `name`, its spec and twin with every tool the agent is given declared, reads included."""
    found = next((d for d in module.DEFECTS if d.name == name), None)
    if found is None:
        raise CorpusError(f"{module.CLASS}: no defect {name!r}")
    witness = _witness(found.witness) if found.witness is not None else None
    return Defect(CLASS, f"{module.CLASS}-{name}", found.base, f"{found.gets_away_with} (every tool declared)",
                  breaks=_all_declared(found.breaks), fix=_all_declared(found.fix), witness=witness,
                  witness_kind=found.witness_kind, gate=found.gate, code=found.code)


DEFECTS = [
    # _units, _user_formats.shown_text: the config value or amount a declared read showed never taken as a source
    _declared(unit_pinned, "config-value-converted-in-dm-1"),
    _declared(number_pinned, "dm-annual-value-bare-2"),
    _declared(size_pinned, "kb-as-mb-1"),
    # _pace.quiet_read: no declared read to pause a slower agent on, so a job's clock was never raced (a bot undoing
    # the triage, a ticket stamped by the clock)
    _declared(undone_by_clock, "sla-bot-resets-triage"),
    _declared(stamp_pinned, "failed-rollout-ticket"),
    # (also measured, outside the corpus for test time: `_episodes.world_only`'s quiet read, the same `quiet_read`,
    # so a read that wakes the world's bot was never seen to do the work alone: solved_by_read, solved_on_cue)
]
