"""Drafts saved and sent through the spec's own declared draft tools, unseen by validators that know the built-in names.

A spec may give the agent its own draft tools (`tool_decls`:
an imported `gmail_save_draft` bound to `mail_save_draft`, its recipients a comma list and its thread
`reply_to_message_id`, and `gmail_send_draft` bound to `mail_send_draft`, the draft's id `id`; or an
`outlook_save_draft`/`outlook_send_draft` pair carrying the op's own arguments), in place of the built-in ones. The
task asks for the reply drafted and then sent; the writer checks that a mail went to the customer (`folder` equals
`sent`, `to`) and checks its words on the declared saving call. An agent that saves a first version with other words,
then the right draft, and sends the first version passes: the customer receives the wrong mail. A validator that
finds the reference's drafts by the built-in tools' names (`mail_save_draft`, `mail_send_draft`) sees none here and
never replays the earlier version sent (`sent_draft_unchecked`). The sound twin checks the words on the sent
message, declared alike. Likewise a forbidden guard on `mail_send` (a bystander or namesake not to be mailed) with the
draft pair declared with conversions (gmail's comma list): a validator that tries the guarded mail by way of a draft
only through the built-in draft tools, or through declared ones that are the op renamed, never tries it through
`gmail_save_draft` and `gmail_send_draft`, and the guard covers one route (`guard_bypassed`); the twin also forbids
the draft to that person through the declared saving tool.
"""

from __future__ import annotations

import copy
from typing import Any

from coworkenv.agents import OraclePolicy
from coworkenv.env import Env
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import ReferenceTurn
from tests.defects import guard_draft_route, sent_draft_unchecked
from tests.defects._core import CorpusError, Defect, Edit, Spec, reference
from tests.defects.declared_draft_credited import _ARGS, _decl, _declared_args, matcher_args

CLASS = "declared_draft_unseen"
GATE, CODE = sent_draft_unchecked.GATE, sent_draft_unchecked.CODE
DETECTION = (
    "tell the draft tools by the op each runs (a declared tool bound to the drafting or the draft-sending op counts "
    "as that op, its arguments carried through the binding, conversions included): replay each draft the reference "
    "saves and sends with an earlier version of other words sent instead, and send each guarded mail by way of a "
    "draft through every drafting pair the agent is given, the calls written back through the declared tools: a "
    "verifier that passes the first reads the draft's words, not the sent mail's; a guard no call of the second "
    "matches covers one route"
)
_SAVE, _SEND = "mail_save_draft", "mail_send_draft"
# style -> (the declared saving tool, the declared sending tool; None: the built-in one given)
_NAMES: dict[str, tuple[str | None, str | None]] = {
    "gmail": ("gmail_save_draft", "gmail_send_draft"), "outlook": ("outlook_save_draft", "outlook_send_draft"),
    "outlook-save": ("outlook_save_draft", None), "outlook-send": (None, "outlook_send_draft")}


def _save_args(style: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """`mail_save_draft`'s arguments as the declared saving tool of `style` takes them."""
    return _declared_args(arguments, split=True) if style == "gmail" else dict(arguments)


def _send_key(style: str) -> str:
    return "id" if style == "gmail" else "draft_id"


def _matcher(node: Any, style: str) -> None:
    """Every call matcher in `node` (checks, rules, turns) on the built-in draft tools moved to the declared ones
    (their arguments and `where` fields renamed as the declared tool names them)."""
    save, send = _NAMES[style]
    if isinstance(node, dict):
        if node.get("tool") == _SAVE and save is not None:
            node["tool"] = save
            for cond in node.get("where") or []:
                if style == "gmail" and cond["field"] in ("to", "cc"):
                    raise CorpusError(f"a condition on {cond['field']} of a comma list")
                if style == "gmail":
                    cond["field"] = {v: k for k, v in _ARGS.items()}[cond["field"]]
            if node.get("args") and style == "gmail":  # its recipients by `contains` on the comma list (its exact
                matcher_args(node, split=True)  # text misses a batch)
        elif node.get("tool") == _SEND and send is not None:
            node["tool"] = send
            node["args"] = {_send_key(style) if k == "draft_id" else k: v for k, v in (node.get("args") or {}).items()}
        for value in node.values():
            _matcher(value, style)
    elif isinstance(node, list):
        for value in node:
            _matcher(value, style)


def _declare(edit: Edit, style: str) -> Edit:
    """`edit`, then the spec's draft tools declared in `style` (the built-in ones no longer given), the reference,
    checks, dynamics rules and turns following."""
    save, send = _NAMES[style]

    def both(spec: Spec) -> None:
        edit(spec)
        decls = spec.setdefault("tool_decls", [])
        if save is not None and style == "gmail":
            decls.append(_decl(save, _SAVE, split=True))
        elif save is not None:
            params = {"type": "object", "properties": {a: {"type": "string"} for a in ("subject", "body", "in_reply_to")}
                      | {a: {"type": "array", "items": {"type": "string"}} for a in ("to", "cc", "attachments")},
                      "required": ["to", "subject", "body"]}
            decls.append({"name": save, "description": "Saves a mail as a draft in the mailbox.", "parameters": params,
                          "bind": {"op": _SAVE, "args": {a: a for a in params["properties"]}}})
        if save is not None:
            spec["tools"].remove(_SAVE)
        if send is not None:
            key = _send_key(style)
            decls.append({"name": send, "description": "Sends a saved draft.",
                          "parameters": {"type": "object", "properties": {key: {"type": "string"}}, "required": [key]},
                          "bind": {"op": _SEND, "args": {key: "draft_id"}}})
            spec["tools"].remove(_SEND)
        for turn in spec["reference"]:
            for st in turn["steps"]:
                call = st.get("call")
                if call and call["name"] == _SAVE and save is not None:
                    call["name"], call["arguments"] = save, _save_args(style, call["arguments"])
                elif call and call["name"] == _SEND and send is not None:
                    call["name"], call["arguments"] = send, {_send_key(style): call["arguments"]["draft_id"]}
        for key in ("checks", "dynamics", "turns"):
            _matcher(spec.get(key), style)
    return both


def _saved_ids(spec: Spec, ref: list[dict[str, Any]]) -> list[str]:
    """The ids of the drafts `ref` saves through any tool bound to mail_save_draft, in order (played once)."""
    parsed = parse_spec({**spec, "reference": ref})
    env = Env(parsed)
    run_episode(env, OraclePolicy(parsed, [ReferenceTurn.model_validate(t) for t in ref]))
    return [e.result["id"] for e in env.audit if (e.op or e.tool) == _SAVE and e.ok]


def _other_draft_sent(spec: Spec) -> list[dict[str, Any]]:
    """The reference with a first version of the draft (other words, the same recipients, no thread) saved before
    it through the spec's saving tool, and that version sent: the agent corrects the draft, then sends the old one."""
    ops = {d["name"]: d["bind"]["op"] for d in spec.get("tool_decls", [])}
    ref = reference(spec)
    found = [(t, s) for t, turn in enumerate(ref) for s, st in enumerate(turn["steps"])
             if st.get("call") and ops.get(st["call"]["name"], st["call"]["name"]) == _SAVE]
    if len(found) != 1:
        raise CorpusError(f"{spec['capability']}: {len(found)} draft saves")
    t, s = found[0]
    save = ref[t]["steps"][s]["call"]
    other = {k: v for k, v in {**save["arguments"], **copy.deepcopy(sent_draft_unchecked.OTHER)}.items()
             if k not in ("in_reply_to", "reply_to_message_id")}
    ref[t]["steps"].insert(s, {"call": {"name": save["name"], "arguments": other}})
    send = next(st["call"] for st in ref[t]["steps"][s:]
                if st.get("call") and ops.get(st["call"]["name"], st["call"]["name"]) == _SEND)
    key = next(iter(send["arguments"]))
    send["arguments"][key] = _saved_ids(spec, ref)[0]
    return ref


def _defect(base: str, style: str) -> Defect:
    save, send = _NAMES[style]
    return Defect(CLASS, f"{style}-first-version-sent-{base.replace('_', '-').replace('@', '-')}", f"synth:{base}",
                  f"saves a first version of the reply with other words through {save or _SAVE}, then the right draft, and "
                  f"sends the first version through {send or _SEND}, and passes: the checks find the words in the "
                  "draft saved and a mail in the sent folder, not the words in the mail sent",
                  breaks=_declare(sent_draft_unchecked._words_on_the_draft, style),
                  fix=_declare(sent_draft_unchecked._drafted_then_sent, style),
                  witness=_other_draft_sent, witness_kind="cheat", gate=GATE, code=CODE)


def _guard_route(name: str) -> Defect:
    """guard_draft_route's defect `name` with the draft pair declared gmail's way (the twin's draft guards follow)."""
    found = next(d for d in guard_draft_route.DEFECTS if d.name == name)

    def noop(spec: Spec) -> None:
        return None

    return Defect(CLASS, f"gmail-draft-route-{name}", found.base, f"{found.gets_away_with} (through gmail_save_draft "
                  "and gmail_send_draft, declared with a comma-list `to`)", breaks=_declare(found.breaks or noop, "gmail"),
                  fix=_declare(found.fix or noop, "gmail"), gate=found.gate, code=found.code)


# _refused_calls.sent_drafts_unchecked: the draft pair found by the built-in names only (also measured, outside the
# corpus for test time: outlook on mail_ticket_chat_coordination@1, gmail on inbox_triage_reply@2; accepted on main,
# rejected with this code on the branch, twins kept)
DEFECTS = [
    _defect("inbox_triage_reply@1", "outlook"),
    _defect("report_from_data@1", "outlook-save"),
    _defect("inbox_triage_reply@3", "outlook-send"),
    _defect("mail_ticket_chat_coordination@2", "gmail"),
    _defect("report_from_data@2", "gmail"),
    # _guard_routes._drafted: a guarded mail sent by way of a draft tried through the built-in draft tools (or declared
    # ones that are the op renamed) only (also measured, outside the corpus: the other three of guard_draft_route's
    # six, and the outlook pair, which the view already made its ops: rejected on main)
    _guard_route("namesake-drafted"),
    _guard_route("bystander-drafted-contact"),
    _guard_route("bystander-drafted-data"),
]
