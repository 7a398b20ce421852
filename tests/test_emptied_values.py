"""`_emptied_values`: a written text value probed as (changed, emptied) pairs; a pair whose control fails a check while
its empty probe passes every check is `empty_value_admitted` (hunt157). The probes are built without a play here:
the gate's plays are the defect corpus's (`value_admitted_empty`)."""

from __future__ import annotations

import re
import time

from coworkenv.apps import TOOLS
from coworkenv.examples import load_example
from coworkenv.spec import EnvSpec, ToolCallSpec
from coworkenv.validate._emptied_values import _MAX_VALUES, EMPTIED_GROUP, emptied_probes, emptied_reads
from coworkenv.validate.mutations import write_steps


def _spec() -> EnvSpec:
    return load_example("incident_rollback")


def test_pairs_of_changed_and_emptied_text_arguments() -> None:
    spec = _spec()
    probes = list(emptied_probes(spec, write_steps(spec.reference, spec), TOOLS))
    assert probes and len(probes) % 2 == 0
    for control, probe in zip(probes[::2], probes[1::2], strict=True):
        assert control.group == probe.group and control.group.startswith(EMPTIED_GROUP)
        assert probe.code == "empty_value_admitted"
        arg = probe.path.rsplit(".", 1)[-1]
        m = re.match(r"reference\[(\d+)\]\.steps\[(\d+)\]", probe.path)
        assert m is not None
        t, s = int(m.group(1)), int(m.group(2))
        emptied = probe.reference[t].steps[s].call
        changed = control.reference[t].steps[s].call
        assert emptied is not None and changed is not None
        assert emptied.arguments[arg] == ""
        original = spec.reference[t].steps[s].call
        assert original is not None and changed.arguments[arg] not in ("", original.arguments[arg])
    # a closed set of values (a ticket's priority) is not emptied: the tool refuses another spelling
    assert not any(p.path.endswith(".priority") for p in probes)


def test_at_most_max_values_and_long_text_bounded() -> None:
    spec = _spec()
    named = ToolCallSpec(name="tickets_create", arguments={"title": "t", "assignee": "u-jon"})
    writes = [(0, 0, named)] * (_MAX_VALUES + 5)
    assert len(list(emptied_probes(spec, writes, TOOLS))) == 2 * _MAX_VALUES
    # a long text no check names is not probed, and reading it stays linear
    long = ToolCallSpec(name="chat_post_message", arguments={"channel": "#incidents", "text": "svc " * 500_000})
    started = time.perf_counter()
    assert not any(p.path.endswith(".text") for p in emptied_probes(spec, [(0, 0, long)] * 3, TOOLS))
    assert time.perf_counter() - started < 5.0


def test_reads_flag_only_a_read_value_admitted_empty() -> None:
    spec = _spec()
    control, probe = list(emptied_probes(spec, write_steps(spec.reference, spec), TOOLS))[:2]
    group = control.group
    assert [m for m, _ in emptied_reads({group: [(control, False), (probe, True)]})] == [probe]
    assert emptied_reads({group: [(control, True), (probe, True)]}) == []  # the value is not read
    assert emptied_reads({group: [(control, False), (probe, False)]}) == []  # the empty value fails a check
