"""A batch write's overreach (`task_mutations._batch_target`, defects156): a write whose required list argument names
existing records of one table is tried once more on one record the task does not concern."""

from __future__ import annotations

from coworkenv.env import base_world
from coworkenv.loading import parse_spec
from coworkenv.spec import ToolCallSpec
from coworkenv.validate.task_mutations import _batch_target
from tests.defects._core import base_spec


def _world():  # type: ignore[no-untyped-def]
    return base_world(parse_spec(base_spec("synth:todo_track_mail_requests@1")))


def test_a_list_of_existing_ids_is_a_batch_target() -> None:
    world = _world()
    ids = sorted(m.id for m in world.table("mail", "messages"))[:2]
    call = ToolCallSpec(name="mail_label", arguments={"message_ids": ids, "add": ["tracked"]})
    assert _batch_target(call, world, set()) == (("mail", "messages", ids[0]), "message_ids")


def test_a_list_naming_a_missing_or_created_record_is_not() -> None:
    world = _world()
    ids = sorted(m.id for m in world.table("mail", "messages"))[:2]
    missing = ToolCallSpec(name="mail_label", arguments={"message_ids": [*ids, "msg-none"], "add": ["tracked"]})
    assert _batch_target(missing, world, set()) == (None, None)
    made = ToolCallSpec(name="mail_label", arguments={"message_ids": ids, "add": ["tracked"]})
    assert _batch_target(made, world, {("mail", "messages", ids[1])}) == (None, None)
    single = ToolCallSpec(name="mail_move", arguments={"message_id": ids[0], "folder": "archive"})
    assert _batch_target(single, world, set()) == (None, None)
