"""A mail the task wants sent through a declared mail tool, checked without its folder: a draft of it passes.

A spec may give the agent its own mail tools (`tool_decls`: an imported `gmail_send_message` bound to `mail_send`,
`gmail_save_draft` to `mail_save_draft`, arguments renamed or converted: `reply_to_message_id` -> `in_reply_to`, a
comma list `to` split). Either tool writes the same `messages` table, the draft in `drafts`. A check that finds the
sent reply by its recipient, thread and words and leaves out `folder` equals `sent` credits an agent that saves the
mail through whichever drafting tool it is given (declared, or the built-in one beside a declared send) and never
sends it. The sound twin is the same spec whose check wants the mail in `sent`.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference
from tests.defects.draft_credited import _unfoldered

CLASS = "declared_draft_credited"
DETECTION = (
    "replay each needed message sent through any tool bound to mail_send (built-in or declared) as the same message "
    "saved through a drafting tool the agent is given (built-in or declared, the arguments carried through the "
    "bindings): a verifier that passes it credits a mail nobody received"
)
GATE, CODE = "mutations", "draft_credited"

_ARGS = {"to": "to", "cc": "cc", "subject": "subject", "body": "body", "attachments": "attachments",
         "reply_to_message_id": "in_reply_to"}
_LIST = {"type": "array", "items": {"type": "string"}}


def _decl(name: str, op: str, split: bool) -> dict[str, Any]:
    props: dict[str, Any] = {a: {"type": "string"} for a in _ARGS}
    args: dict[str, Any] = dict(_ARGS)
    props["attachments"] = _LIST
    if split:  # `to`, `cc` as a comma list, as the imported Gmail service takes them
        args["to"] = {"to": "to", "convert": ["split"]}
        args["cc"] = {"to": "cc", "convert": ["split"]}
    else:
        props["to"] = props["cc"] = _LIST
    return {"name": name, "description": f"Calls {op} in the mail service's own words.",
            "parameters": {"type": "object", "properties": props, "required": ["to", "subject", "body"]},
            "bind": {"op": op, "args": args}}


def _declared_args(arguments: dict[str, Any], split: bool) -> dict[str, Any]:
    back = {v: k for k, v in _ARGS.items()}
    out = {back[k]: v for k, v in arguments.items()}
    if split:
        out.update({k: ", ".join(out[k]) for k in ("to", "cc") if k in out})
    return out


def matcher_args(node: dict[str, Any], split: bool) -> None:
    """A call matcher's `args` on a mail tool moved to the declared tool's words: with `split`, a recipient list it
    pins matched item by item with `contains` on the comma list (its exact text would miss the same person among
    others: `guard_declared_route`)."""
    args = _declared_args(node.get("args") or {}, split=False)
    if split:
        for field in [k for k in ("to", "cc") if k in args]:
            items = args.pop(field)
            node["where"] = [*(node.get("where") or []), *({"field": field, "op": "contains", "value": str(v)}
                                                          for v in (items if isinstance(items, list) else [items]))]
    node["args"] = args


def _renamed(rule: Any, tool: str, name: str) -> None:
    """Every call matcher of `rule` (guards, orders) on `tool` renamed to the declared `name` (same arguments)."""
    if isinstance(rule, dict):
        if rule.get("tool") == tool:
            rule["tool"] = name
        for value in rule.values():
            _renamed(value, tool, name)
    elif isinstance(rule, list):
        for value in rule:
            _renamed(value, tool, name)


def _declare(send: bool, draft: bool, split: bool, unfoldered: bool):  # type: ignore[no-untyped-def]
    """The spec's mail tools declared (`send`: gmail_send_message in place of mail_send, the reference calling it;
    `draft`: gmail_save_draft in place of mail_save_draft, the checks' guards following); `unfoldered`: the
    sent-mail check without `folder`."""

    def edit(spec: Spec) -> None:
        if unfoldered:
            _unfoldered(spec)
        decls = spec.setdefault("tool_decls", [])
        if send:
            decls.append(_decl("gmail_send_message", "mail_send", split))
            spec["tools"].remove("mail_send")
            _renamed(spec["checks"], "mail_send", "gmail_send_message")
            calls = [st["call"] for turn in spec["reference"] for st in turn["steps"]
                     if st.get("call") and st["call"]["name"] == "mail_send"]
            if not calls:
                raise CorpusError(f"{spec['capability']}: the reference sends no mail")
            for call in calls:
                call["name"], call["arguments"] = "gmail_send_message", _declared_args(call["arguments"], split)
        if draft:
            decls.append(_decl("gmail_save_draft", "mail_save_draft", split))
            spec["tools"].remove("mail_save_draft")
            _renamed(spec["checks"], "mail_save_draft", "gmail_save_draft")
    return edit


def _drafted(spec: Spec) -> list[dict[str, Any]]:
    """The reference with its sent mail saved through the drafting tool the spec gives (the same message)."""
    ref = reference(spec)
    decls = {d["name"]: d for d in spec.get("tool_decls", [])}
    split = any(isinstance(a, dict) for d in decls.values() for a in d["bind"]["args"].values())
    for turn in ref:
        for st in turn["steps"]:
            call = st.get("call")
            if not call or call["name"] not in ("mail_send", "gmail_send_message"):
                continue
            declared = call["name"] == "gmail_send_message"
            if "gmail_save_draft" in decls:
                call["arguments"] = call["arguments"] if declared else _declared_args(call["arguments"], split)
                call["name"] = "gmail_save_draft"
            else:
                args = call["arguments"]
                if declared:
                    args = {_ARGS[k]: v for k, v in args.items()}
                    if split:
                        args.update({k: [p.strip() for p in args[k].split(",")] for k in ("to", "cc") if k in args})
                call["name"], call["arguments"] = "mail_save_draft", args
    return ref


def _defect(name: str, base: str, send: bool, draft: bool, split: bool, what: str) -> Defect:
    return Defect(CLASS, name, base, f"saves {what} as a draft through {'gmail_save_draft' if draft else 'mail_save_draft'} "
                  "and never sends it, and passes: the check on the mail finds it by its recipient and words, not its "
                  "folder", breaks=_declare(send, draft, split, True), fix=_declare(send, draft, split, False),
                  witness=_drafted, witness_kind="cheat", gate=GATE, code=CODE)


_REPLY, _DOCUMENT = "the answer to the customer", "the mail with the document to the right namesake"
# (name, base, declared send, declared draft, comma-list recipients, what the agent drafts)
_CASES = [
    ("both-declared-reply-1", "inbox_triage_reply@1", True, True, False, _REPLY),
    ("both-declared-split-reply-2", "inbox_triage_reply@2", True, True, True, _REPLY),
    ("declared-send-builtin-draft-reply-3", "inbox_triage_reply@3", True, False, False, _REPLY),
    ("builtin-send-declared-draft-split-reply-1", "inbox_triage_reply@1", False, True, True, _REPLY),
    ("builtin-send-declared-draft-reply-2", "inbox_triage_reply@2", False, True, False, _REPLY),
    ("builtin-send-declared-draft-split-reply-3", "inbox_triage_reply@3", False, True, True, _REPLY),
    ("builtin-send-declared-draft-document-1", "clarify_ambiguous_request@1", False, True, False, _DOCUMENT),
    ("declared-send-builtin-draft-document-2", "clarify_ambiguous_request@2", True, False, False, _DOCUMENT),
    ("builtin-send-declared-draft-document-3", "clarify_ambiguous_request@3", False, True, False, _DOCUMENT),
]
DEFECTS = [_defect(name, f"synth:{base}", send, draft, split, what) for name, base, send, draft, split, what in _CASES]
