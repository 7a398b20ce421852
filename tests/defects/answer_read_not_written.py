"""The answer's message checked as a read: the request asks the agent to reply to someone (answer Rosa's question in
the DM, reply to Chloe's mail), and the check on that message's content becomes a `called` check on reading the
conversation. No check then concerns the message, so the strict policy trims it from the reference as incidental,
and an agent that reads the question and never answers (or answers wrongly) passes (defects69's `state_to_log` on
lookup_answer_source 1-5). A draft the request asks to prepare for someone outside the directory ("prepare a reply
to the mail from Leon") is the same message (the third hunt's `state_to_call_count`, draft_only_reply 3)."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, without

CLASS = "answer_read_not_written"
DETECTION = (
    "a reference message to a person the turn's request names and asks to be written to is never incidental: "
    "if dropping it fails no check, the answer is unchecked"
)
_MESSAGES = {"chat_send_dm": ("chat", "text"), "mail_send": ("mail", "body"),
             "mail_save_draft": ("mail", "body")}
_POST = {"chat_post_message": ("chat", "text")}  # a post to a channel the request names
_READS = ("_read_", "_search")  # a tool that reads: the conversation, the mail, the file the answer is in


def _message(spec: Spec) -> tuple[int, int, dict[str, Any]]:
    """(turn, step, call) of the reference's first message to one person."""
    for t, turn in enumerate(spec["reference"]):
        for s, step in enumerate(turn["steps"]):
            call = step.get("call")
            if call and call["name"] in _MESSAGES:
                return t, s, call
    raise CorpusError(f"{spec['capability']}: the reference sends no message")


def _read_instead(spec: Spec) -> None:
    """The completion records checks on the message's table become one `called` check on the turn's last read
    before the message (of the conversation, the mail or the file the answer comes from)."""
    t, s, call = _message(spec)
    app = _MESSAGES[call["name"]][0]
    reads = [st["call"] for st in spec["reference"][t]["steps"][:s]
             if st.get("call") and any(r in st["call"]["name"] for r in _READS)]
    if not reads:
        raise CorpusError(f"{spec['capability']}: nothing read before the message")
    read = reads[-1]
    hits = [i for i, c in enumerate(spec["checks"]) if c["role"] != "guard" and c["rule"]["kind"] == "records"
            and c["rule"]["app"] == app and c["rule"]["table"] == "messages"]
    if not hits:
        raise CorpusError(f"{spec['capability']}: no records check on the message")
    first = spec["checks"][hits[0]]
    first["rule"] = {"kind": "called", "call": {"tool": read["name"], "args": dict(read["arguments"])}}
    spec["checks"] = [c for i, c in enumerate(spec["checks"]) if i not in hits[1:]]


def _no_message(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
    return without(spec, _message(spec)[2]["name"])


DEFECTS = [
    Defect(CLASS, f"{cap}-read-for-answer-{seed}", f"synth:{cap}@{seed}",
           "reads the question and never answers it: the answer's check is a check that the conversation was read",
           breaks=_read_instead, witness=_no_message)
    for cap, seeds in (("lookup_answer_source", (1, 2, 3, 4, 5, 6)), ("inbox_triage_reply", (1, 2, 3)),
                       ("correct_bad_data", (1, 2, 6)), ("draft_only_reply", (1, 2, 3)))
    for seed in seeds
]


# -- a post to a channel the request names (defects71) ----------------------------------------------------------
def _addressed(spec: Spec, tool: str, turn: int) -> tuple[int, dict[str, Any], str]:
    """(step, call, recipient) of the reference's first `tool` call in `turn`."""
    for s, step in enumerate(spec["reference"][turn]["steps"]):
        call = step.get("call")
        if call and call["name"] == tool:
            to = call["arguments"].get("channel") or call["arguments"].get("person") or call["arguments"].get("to")
            return s, call, str(to[0] if isinstance(to, list) else to)
    raise CorpusError(f"{spec['capability']}: turn {turn} of the reference never calls {tool}")


def _names(spec: Spec, ref: str) -> set[str]:
    """Every way the world writes the person or channel `ref` (id, email, handle; channel id and name)."""
    low = ref.lower().lstrip("#@")
    for p in spec["world"]["apps"].get("directory", {}).get("people", []):
        forms = {str(f).lower() for f in (p["id"], p.get("email"), p.get("chat_handle")) if f}
        if low in forms:
            return forms
    for c in spec["world"]["apps"].get("chat", {}).get("channels", []):
        forms = {c["id"].lower(), c["name"].lower().lstrip("#")}
        if low in forms:
            return forms | {"#" + c["name"].lower().lstrip("#")}
    raise CorpusError(f"{spec['capability']}: {ref!r} is no person or channel")


def _read_instead_of(tool: str, turn: int):  # type: ignore[no-untyped-def]
    """The completion checks on that message (a records condition naming its recipient, its DM channel or its
    channel; an order or `called` check on the tool) become one `called` check on the turn's last read before it."""
    def edit(spec: Spec) -> None:
        s, _, to = _addressed(spec, tool, turn)
        app = {**_MESSAGES, **_POST}[tool][0]
        names = _names(spec, to)
        reads = [st["call"] for st in spec["reference"][turn]["steps"][:s]
                 if st.get("call") and any(r in st["call"]["name"] for r in _READS)]
        if not reads:
            raise CorpusError(f"{spec['capability']}: nothing read before the message")
        def named(v: Any) -> bool:  # the recipient, the channel, or the DM channel with the person
            low = str(v).lower().lstrip("#@")
            return low in names or (low.startswith("dm-") and any(n in low for n in names))

        def concerns(rule: dict[str, Any]) -> bool:
            if rule["kind"] == "records":
                return rule["app"] == app and rule["table"] == "messages" and any(
                    named(v) for w in rule["where"] for v in (w["value"] if isinstance(w["value"], list)
                                                              else [w["value"]]))
            return any(isinstance(rule.get(m), dict) and rule[m].get("tool") == tool for m in ("call", "then"))

        hits = [i for i, c in enumerate(spec["checks"]) if c["role"] != "guard" and concerns(c["rule"])]
        if not hits:
            raise CorpusError(f"{spec['capability']}: no records check on the message to {to}")
        spec["checks"][hits[0]]["rule"] = {"kind": "called", "call": {"tool": reads[-1]["name"],
                                                                      "args": dict(reads[-1]["arguments"])}}
        spec["checks"] = [c for i, c in enumerate(spec["checks"]) if i not in hits[1:]]
    return edit


def _unsent(tool: str, turn: int):  # type: ignore[no-untyped-def]
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = [dict(t, steps=list(t["steps"])) for t in spec["reference"]]
        s, _, _ = _addressed(spec, tool, turn)
        del ref[turn]["steps"][s]
        return ref
    return witness


DEFECTS += [
    Defect(CLASS, f"{cap}-{what}-{seed}", f"synth:{cap}@{seed}", away, breaks=_read_instead_of(tool, turn),
           witness=_unsent(tool, turn), gate="mutations", code="asked_message_unchecked")
    for cap, seeds, tool, turn, what, away in (
        ("mail_ticket_chat_coordination", (1, 4), "chat_post_message", 0, "team-channel-read",
         "never lets the owning team know in their chat channel"),
        ("oncall_handoff", (2, 5), "chat_post_message", 0, "channel-post-read",
         "never posts the handover in the channel the request names"),
    )
    for seed in seeds
]
