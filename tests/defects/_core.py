"""The defect record, sound base specs, and the small spec-dict edits the defect modules are written with.

A defect is a realistic mistake a spec writer makes, built by one transform of a sound spec; its sound twin
is that spec (or a deliberately fixed variant). A witness, where there is one, is an agent behaviour (an
alternative reference) on which the defect and its twin disagree: the proof that the defect is real.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

import orjson

from coworkenv.agents import NoopPolicy, OraclePolicy, Policy
from coworkenv.checks import VerifierResult, compare
from coworkenv.env import Env
from coworkenv.examples import example_names, load_example
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import ReferenceTurn
from coworkenv.synth import generate_spec, load_taxonomy
from coworkenv.validate import validate_spec

Spec = dict[str, Any]
Edit = Callable[[Spec], None]
WitnessKind = Literal["cheat", "honest", "score", "unscored"]
TAXONOMY_DIR = Path(__file__).resolve().parents[2] / "taxonomy"


class CorpusError(AssertionError):
    """A defect transform did not find the structure it edits (the base spec changed shape)."""


@dataclass(frozen=True)
class Defect:
    """One defective spec and its sound twin.

    `base` names the sound spec: a shipped example ("example:incident_rollback") or a procedural one
    ("synth:ticket_triage_update@1"). `breaks` turns it into the defect, `fix` (optional) into the twin.
    `witness` builds an agent's reference from the spec dict: for `cheat` the defect passes it and the twin
    does not, for `honest` the twin passes it and the defect does not, for `score` the defect scores it at least
    0.5 and at least 0.25 above the twin (a do-nothing agent earning partial credit), for `unscored` the defect fails it
    with full marks and the twin scores it lower (a failure the score does not see).
    `gate`/`code`: the gate (and error code substring) a strict validation must reject the defect with.
    Unless `reference_sound` is False, the defect's own reference passes its own checks: the defect is in
    what the checks miss, not in a broken spec that any gate would reject for another reason.
    """

    cls: str
    name: str
    base: str
    gets_away_with: str
    breaks: Edit | None = None
    fix: Edit | None = None
    witness: Callable[[Spec], list[dict[str, Any]]] | None = None
    witness_kind: WitnessKind = "cheat"
    gate: str | None = None
    code: str | None = None
    # False where the defect is that the reference itself is wrong (it fails its own checks or cannot run).
    reference_sound: bool = True

    @property
    def id(self) -> str:
        return f"{self.cls}/{self.name}"

    @property
    def capability(self) -> str:
        return base_spec(self.base)["capability"]

    def defect_spec(self) -> Spec:
        spec = base_spec(self.base)
        if self.breaks is not None:
            self.breaks(spec)
        return spec

    def twin_spec(self) -> Spec:
        spec = base_spec(self.base)
        if self.fix is not None:
            self.fix(spec)
        return spec


def replay_defect(cls: str, code: str, name: str, base: str, breaks: Edit, away: str,
                  witness: Callable[[Spec], list[dict[str, Any]]] | None = None,
                  witness_kind: WitnessKind = "honest") -> Defect:
    """A defect the mutations gate's replays must reject with `code`; the witness is the twin's reference (the
    honest agent the defect fails) unless given. The base is built first, so a base that is gone fails early."""
    base_spec(base)
    return Defect(cls, name, base, away, breaks=breaks, witness=witness or reference, witness_kind=witness_kind,
                  gate="mutations", code=code)


# -- base specs -----------------------------------------------------------------------------------------------
@cache
def _base_json(base: str) -> bytes:
    source, _, name = base.partition(":")
    if source == "example":
        if name not in example_names():
            raise CorpusError(f"no shipped example {name!r}")
        spec = load_example(name)
    elif source == "synth":
        cap, _, seed = name.partition("@")
        spec = generate_spec(load_taxonomy(TAXONOMY_DIR)[cap], int(seed or 1))
    else:
        raise CorpusError(f"base {base!r}: expected 'example:NAME' or 'synth:CAPABILITY@SEED'")
    return orjson.dumps(spec.model_dump(mode="json", by_alias=True))


def base_spec(base: str) -> Spec:
    """A fresh, mutable copy of a sound base spec."""
    return orjson.loads(_base_json(base))  # type: ignore[no-any-return]


# -- judging --------------------------------------------------------------------------------------------------
def has_policy() -> bool:
    """Whether `validate_spec` takes a `policy` (strict / report)."""
    return "policy" in inspect.signature(validate_spec).parameters


def judge(spec: Spec, policy: str = "strict", gates: tuple[str, ...] | None = None,
          until: tuple[str, str] | None = None) -> Any:
    """Validate a spec under `policy` when the gates support policies, else with the default gates; by the gates
    named in `gates` alone where given (None: all ten); with `until` (a gate and a part of an error code), stopping
    as soon as that gate reports an error whose code holds it (`validate_spec(until=...)`: a partial verdict)."""
    if until is not None:
        gate, code = until
        return validate_spec(spec, policy=policy, gates=gates,
                             until=lambda e: e.gate == gate and code in e.code)
    if gates is not None:
        return validate_spec(spec, policy=policy, gates=gates)
    if has_policy():
        return validate_spec(spec, policy=policy)  # type: ignore[call-arg]
    return validate_spec(spec)


def play(spec: Spec, reference: list[dict[str, Any]] | None) -> VerifierResult:
    """Score one episode of `spec`: the given reference played by the oracle, or the noop agent if None."""
    parsed = parse_spec(spec)
    policy: Policy = NoopPolicy() if reference is None else OraclePolicy(
        parsed, [ReferenceTurn.model_validate(t) for t in reference])
    return run_episode(Env(parsed), policy).result


# -- finding things in a spec dict ----------------------------------------------------------------------------
def checks(spec: Spec, kind: str | None = None, **rule: Any) -> list[dict[str, Any]]:
    """Checks of a kind whose rule has every given (top-level) value."""
    return [c for c in spec["checks"] if (kind is None or c["rule"]["kind"] == kind)
            and all(c["rule"].get(k) == v for k, v in rule.items())]


def check(spec: Spec, check_id: str | None = None, kind: str | None = None,
          where: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
    """The first check with this id, or of this kind meeting `where`; CorpusError if there is none."""
    for c in spec["checks"]:
        if check_id is not None and c["id"] != check_id:
            continue
        if kind is not None and c["rule"]["kind"] != kind:
            continue
        if where is not None and not where(c):
            continue
        return c  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: no check id={check_id} kind={kind} matching the filter")


def drop_checks(spec: Spec, pred: Callable[[dict[str, Any]], bool]) -> None:
    """Remove every check meeting `pred` (CorpusError if none does)."""
    kept = [c for c in spec["checks"] if not pred(c)]
    if len(kept) == len(spec["checks"]):
        raise CorpusError(f"{spec['capability']}: no check to drop")
    spec["checks"] = kept


def kind_is(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda c: c["rule"]["kind"] == kind


def cond(c: dict[str, Any], field: str) -> dict[str, Any]:
    """The `where` condition of a records check on `field`."""
    for w in c["rule"]["where"]:
        if w["field"] == field:
            return w  # type: ignore[no-any-return]
    raise CorpusError(f"check {c['id']!r} has no condition on {field!r}")


def has_cond(field: str, op: str | None = None) -> Callable[[dict[str, Any]], bool]:
    return lambda c: c["rule"]["kind"] == "records" and any(
        w["field"] == field and (op is None or w.get("op", "equals") == op) for w in c["rule"]["where"])


def drop_cond(c: dict[str, Any], field: str) -> None:
    before = len(c["rule"]["where"])
    c["rule"]["where"] = [w for w in c["rule"]["where"] if w["field"] != field]
    if len(c["rule"]["where"]) == before:
        raise CorpusError(f"check {c['id']!r} has no condition on {field!r}")


def calls(spec: Spec, tool: str, **args: Any) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """(turn, step index, call) of every reference call of `tool` whose arguments include `args`."""
    for t, turn in enumerate(spec["reference"]):
        for s, step in enumerate(turn["steps"]):
            call = step.get("call")
            if call and call["name"] == tool and all(call["arguments"].get(k) == v for k, v in args.items()):
                yield t, s, call


def call(spec: Spec, tool: str, **args: Any) -> dict[str, Any]:
    """The first reference call of `tool` with these arguments; CorpusError if there is none."""
    found = next(calls(spec, tool, **args), None)
    if found is None:
        raise CorpusError(f"{spec['capability']}: the reference never calls {tool} with {args}")
    return found[2]


def world(spec: Spec, app: str, table: str) -> list[dict[str, Any]]:
    return spec["world"]["apps"][app][table]  # type: ignore[no-any-return]


def record(spec: Spec, app: str, table: str, record_id: str) -> dict[str, Any]:
    for r in world(spec, app, table):
        if r["id"] == record_id:
            return r
    raise CorpusError(f"{spec['capability']}: no record {record_id!r} in {app}.{table}")


# -- witnesses: agent behaviours built from a spec's reference ------------------------------------------------
def reference(spec: Spec) -> list[dict[str, Any]]:
    return copy.deepcopy(spec["reference"])  # type: ignore[no-any-return]


def swapped(spec: Spec, first: tuple[str, dict[str, Any]], then: tuple[str, dict[str, Any]],
            mode: Literal["then_earlier", "first_later", "exchange"] = "then_earlier") -> list[dict[str, Any]]:
    """The reference with the first `then` call done before the first `first` call (across turns too):
    `then_earlier` moves it just before `first`, `first_later` moves `first` just after it, `exchange` swaps
    the two steps in place."""
    ref = reference(spec)
    view = {"reference": ref, "capability": spec["capability"]}
    t1, s1, _ = next(calls(view, first[0], **first[1]), (None, None, None))
    t2, s2, _ = next(calls(view, then[0], **then[1]), (None, None, None))
    if t1 is None or t2 is None or s1 is None or s2 is None or (t2, s2) < (t1, s1):
        raise CorpusError(f"{spec['capability']}: cannot move {then[0]} before {first[0]}")
    if mode == "then_earlier":
        ref[t1]["steps"].insert(s1, ref[t2]["steps"].pop(s2))
    elif mode == "first_later":
        step = ref[t1]["steps"].pop(s1)
        ref[t2]["steps"].insert(s2 if t1 == t2 else s2 + 1, step)
    else:
        ref[t1]["steps"][s1], ref[t2]["steps"][s2] = ref[t2]["steps"][s2], ref[t1]["steps"][s1]
    return ref


def with_call(spec: Spec, name: str, arguments: dict[str, Any], turn: int = -1,
              ref: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The reference (or `ref`) with one more call before the final message of `turn`."""
    ref = reference(spec) if ref is None else ref
    steps = ref[turn]["steps"]
    at = len(steps) - 1 if steps and "say" in steps[-1] and steps[-1].get("say") else len(steps)
    steps.insert(at, {"call": {"name": name, "arguments": arguments}})
    return ref


def without(spec: Spec, tool: str, **args: Any) -> list[dict[str, Any]]:
    """The reference without the calls of `tool` matching `args` (CorpusError if there is none)."""
    ref = reference(spec)
    dropped = 0
    for turn in ref:
        kept = []
        for step in turn["steps"]:
            c = step.get("call")
            if c and c["name"] == tool and all(c["arguments"].get(k) == v for k, v in args.items()):
                dropped += 1
            else:
                kept.append(step)
        turn["steps"] = kept
    if not dropped:
        raise CorpusError(f"{spec['capability']}: the reference never calls {tool} with {args}")
    return ref


def with_args(spec: Spec, tool: str, match: dict[str, Any], **changes: Any) -> list[dict[str, Any]]:
    """The reference with the arguments of every matching call of `tool` changed."""
    ref = reference(spec)
    hits = list(calls({"reference": ref, "capability": spec["capability"]}, tool, **match))
    if not hits:
        raise CorpusError(f"{spec['capability']}: the reference never calls {tool} with {match}")
    for _, _, c in hits:
        c["arguments"].update(changes)
    return ref


def with_say(spec: Spec, text: str, turn: int = -1, ref: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The reference (or `ref`) with the final message of `turn` replaced."""
    ref = reference(spec) if ref is None else ref
    steps = [s for s in ref[turn]["steps"] if not s.get("say")]
    ref[turn]["steps"] = [*steps, {"say": text}]
    return ref


def noop_reference(spec: Spec) -> list[dict[str, Any]]:
    """The do-nothing agent as a reference: every turn answered, no tool touched."""
    return [{"steps": [{"say": "Okay."}]} for _ in spec["turns"]]


def witness_holds(defect: Defect) -> tuple[bool, str]:
    """Whether the defect's witness separates it from its twin as its kind says (and the scores seen)."""
    if defect.witness is None:
        return True, "no witness"
    twin = defect.twin_spec()
    behaviour = defect.witness(twin)
    bad, good = play(defect.defect_spec(), behaviour), play(twin, behaviour)
    seen = (f"defect passed={bad.passed} score={bad.score:.2f}; twin passed={good.passed} score={good.score:.2f}; "
            f"twin fails: {[c.id for c in good.checks if not c.passed]}; "
            f"defect fails: {[c.id for c in bad.checks if not c.passed]}")
    if defect.witness_kind == "cheat":
        return bad.passed and not good.passed, seen
    if defect.witness_kind == "honest":
        return good.passed and not bad.passed, seen
    if defect.witness_kind == "unscored":
        return not bad.passed and bad.score >= 0.999 and good.score < bad.score, seen
    return bad.score >= 0.5 and bad.score - good.score >= 0.25, seen


def untouched_id(spec: Spec, app: str, table: str) -> str:
    """A record of the table that no check and no reference step mentions (a bystander to harm)."""
    named = orjson.dumps([spec["checks"], spec["reference"], spec["turns"]]).decode()
    for r in world(spec, app, table):
        if r["id"] not in named:
            return str(r["id"])
    raise CorpusError(f"{spec['capability']}: every record of {app}.{table} is named by the task")


def frame(spec: Spec) -> dict[str, Any]:
    """The spec's frame check."""
    return check(spec, kind="frame")


def field_check(spec: Spec, field: str) -> dict[str, Any]:
    """The first `field` check on a record field named `field` (e.g. the first ticket's assignee)."""
    return check(spec, kind="field", where=lambda c: c["rule"]["target"]["field"] == field)


def unpin(spec: Spec, key: str, value: Any) -> None:
    """Drop argument `key` = `value` (or a `where` condition on `key` that `value` meets) from every call matcher of
    the checks (the writer never pinned it there)."""
    for c in spec["checks"]:
        rule = c["rule"]
        for name in ("call", "first", "then"):
            matcher = rule.get(name)
            if not isinstance(matcher, dict):
                continue
            if matcher.get("args", {}).get(key) == value:
                del matcher["args"][key]
            matcher["where"] = [w for w in matcher.get("where", []) if not (
                w["field"] == key and compare(value, w.get("op", "equals"), w["value"]))]
