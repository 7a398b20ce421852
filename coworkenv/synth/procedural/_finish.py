"""The last step of a procedural spec: checks tuned against the reference and the do-nothing episode.

- A frame selector that allows a whole message table (chat, mail) is narrowed to what the reference did there:
  new messages in the same channel from the same sender, or in the same folder to the same recipients, and the
  existing messages it changed (those fields only). An extra post in another channel, a mail to someone else
  or a message moved to the trash then fails the frame.
- A completion check that already holds when the agent does nothing is no evidence of the task: it guards what
  must be kept (an attendee stays invited, a ticket stays open), so it becomes a guard and earns no credit.
"""

from __future__ import annotations

from typing import Any

import orjson

from coworkenv.agents import NoopPolicy, OraclePolicy, Policy
from coworkenv.checks import Reply, VerifierResult, field_value
from coworkenv.env import Env
from coworkenv.spec import Check, EnvSpec
from coworkenv.world import World

Wire = dict[str, Any]

# Message tables and the fields that say where a new message went.
MESSAGE_TABLES: dict[tuple[str, str], tuple[str, ...]] = {
    ("chat", "messages"): ("channel", "sender"),
    ("mail", "messages"): ("folder", "to"),
}


def finish_spec(data: Wire) -> EnvSpec:
    """Validate the spec data, narrow its broad message frames and turn checks that hold untouched into guards."""
    spec = EnvSpec.model_validate_json(orjson.dumps(data))
    env = Env(spec)  # one env for both episodes: building the world is the costly part
    if spec.multi_turn:
        untouched = _play(env, NoopPolicy())
    else:  # the noop episode of one turn is one reply and no call: score the untouched state directly
        reply = NoopPolicy().act(env).content or ""
        untouched = env.verifier.score(env.state, [], [Reply(0, reply)])
    held = {c.id for c in untouched.checks if c.passed and not c.is_guard}
    broad = any(_broad(sel) for c in data["checks"] if c["rule"]["kind"] == "frame" for sel in c["rule"]["allow"])
    if not held and not broad:
        return spec
    checks = list(spec.checks)
    if broad:
        if env.steps:
            env.reset()
        _play(env, OraclePolicy(spec))
        checks = [Check.model_validate(_narrowed(c.model_dump(mode="json"), env.state)) if c.rule.kind == "frame"
                  else c for c in checks]
    checks = [c.model_copy(update={"role": "guard"}) if c.id in held else c for c in checks]
    # Only the checks changed, and each was validated: the spec is assembled without validating it again.
    return EnvSpec.model_construct(**{**dict(spec), "checks": checks})


def _play(env: Env, policy: Policy) -> VerifierResult:
    """Play one episode in a fresh or reset env (without `reset`'s prompt and tool list, unused here)."""
    while not env.done:
        env.step(policy.act(env))
    return env.score()


def _broad(sel: Wire) -> bool:
    """A selector allowing every message of a message table (or its whole app)."""
    if sel.get("id") is not None or sel.get("fields") is not None or sel.get("where"):
        return False
    return any(sel["app"] == app and sel.get("table") in (None, table) for app, table in MESSAGE_TABLES)


def _narrowed(check: Wire, world: World) -> Wire:
    rule = check["rule"]
    if rule["kind"] != "frame" or not any(_broad(s) for s in rule["allow"]):
        return check
    allow: list[Wire] = []
    for sel in rule["allow"]:
        allow.extend(_what_the_reference_did(sel, world) if _broad(sel) else [sel])
    unique = list({orjson.dumps(s, option=orjson.OPT_SORT_KEYS): s for s in allow}.values())
    return {**check, "rule": {**rule, "allow": unique}}


def _what_the_reference_did(sel: Wire, world: World) -> list[Wire]:
    out: list[Wire] = []
    for change in world.changes():
        if change.app != sel["app"] or (sel.get("table") is not None and change.table != sel["table"]):
            continue
        keys = MESSAGE_TABLES.get((change.app, change.table))
        record = world.table(change.app, change.table).get(change.id)
        if change.kind == "added" and keys is not None and record is not None:
            where = []
            for key in keys:
                value = field_value(record, key)
                where.append({"field": key, "op": "contains" if isinstance(value, list) else "equals", "value": value})
            out.append({"app": change.app, "table": change.table, "id": None, "fields": None, "where": where})
        else:
            fields = list(change.fields) if change.kind == "changed" else None
            out.append({"app": change.app, "table": change.table, "id": change.id, "fields": fields, "where": []})
    return out
