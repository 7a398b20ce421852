"""A spec id and a world hash do not change when an app gains a table or coworkenv gains an app."""

from __future__ import annotations

import json

from pydantic import create_model

from coworkenv.apps import APPS, WorldApps
from coworkenv.apps.mail import MailState
from coworkenv.apps.notes import Note
from coworkenv.examples import example_names, load_example
from coworkenv.spec import EnvSpec, WorldInit
from coworkenv.world import AppDef, AppState, World, parse_time

# coworkenv as it would be after a change: mail gains a table, and a new app `extra` with one table.
MailPlus = create_model("MailPlus", __base__=MailState, archive=(list[Note], []))
ExtraState = create_model("ExtraState", __base__=AppState, items=(list[Note], []))
AppsPlus = create_model("AppsPlus", __base__=WorldApps, mail=(MailPlus, MailPlus()), extra=(ExtraState, ExtraState()))
InitPlus = create_model("InitPlus", __base__=WorldInit, apps=(AppsPlus, AppsPlus()))
SpecPlus = create_model("SpecPlus", __base__=EnvSpec, world=(InitPlus, ...))
APPS_PLUS = {**APPS, "mail": AppDef("mail", MailPlus, APPS["mail"].toolkit, APPS["mail"].description),
             "extra": AppDef("extra", ExtraState, APPS["notes"].toolkit, "a new app")}

NOTE = {"id": "n-1", "title": "kept", "body": "in a new table"}


def _world(apps: dict[str, AppDef], state: WorldApps) -> World:
    return World.from_wire(apps, state, parse_time("2026-03-02T09:00:00Z"), 30)


def test_new_empty_tables_and_apps_keep_every_example_id_and_world_hash() -> None:
    for name in example_names():
        spec = load_example(name)
        plus = SpecPlus.model_validate(json.loads(spec.to_json()))
        assert isinstance(plus.world.apps, AppsPlus) and plus.world.apps.extra.items == []
        assert plus.id == spec.id, name
        before = _world(dict(APPS), spec.world.apps).content_hash()
        assert _world(APPS_PLUS, plus.world.apps).content_hash() == before, name


def test_records_in_a_new_table_change_the_id_and_the_world_hash() -> None:
    spec = load_example(example_names()[0])
    for app, table in (("mail", "archive"), ("extra", "items")):
        raw = json.loads(spec.to_json())
        raw["world"]["apps"].setdefault(app, {})[table] = [NOTE]
        plus = SpecPlus.model_validate(raw)
        assert plus.id != spec.id, (app, table)
        world = _world(APPS_PLUS, plus.world.apps)
        assert world.content_hash() != _world(dict(APPS), spec.world.apps).content_hash()
        world.table(app, table).delete("n-1")  # emptied again: the same state as never having had the record
        assert world.content_hash() == _world(APPS_PLUS, SpecPlus.model_validate(
            json.loads(spec.to_json())).world.apps).content_hash()

