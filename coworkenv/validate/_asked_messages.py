"""Messages the request asks for: a dropped message write is never incidental when the turn's request asks the agent
to write to its recipient ("reply in our DM to Rosa", "tell Omar", "let Kai know") or in a channel ("post in #design
that the next person is on call", "let the owning team know in their chat channel").

A write no check concerns is incidental and the strict policy trims it from the reference. For a message the user
asked for that trims the task's answer: a spec whose checks read only that the agent looked at the conversation (a
`called` check on reading the DM channel) instead of what it wrote there would ship checking nothing of the answer.
"""

from __future__ import annotations

import re

from coworkenv.bindings import spec_catalog
from coworkenv.spec import EnvSpec, ToolCallSpec
from coworkenv.validate._declared_calls import as_op

# Writes to a person; a draft (mail_save_draft) is the message the user asked to have prepared.
_MESSAGES = frozenset({"chat_send_dm", "mail_send", "mail_save_draft"})
_POSTS = frozenset({"chat_post_message"})  # a write to a channel
# Words with which a request asks for a message to someone.
_ASKS = re.compile(r"\b(?:reply|replies|answer|respond|tell|send|message|write|email|mail|dm|ping|notify|inform|"
                   r"draft|let\s+\w+(?:\s+\w+)?\s+know|get\s+back)\b", re.IGNORECASE)
_OUTSIDER = re.compile(r"([a-z]{2,})[._][a-z][\w.-]*@[\w.-]+")  # first.last@domain: the first name
# A channel post asked for: a message word, or posting, announcing, sharing, updating.
_ASKS_POST = re.compile(rf"{_ASKS.pattern}|\b(?:post|announce|share|update)\b", re.IGNORECASE)


def asked_recipient(spec: EnvSpec, turn: int, call: ToolCallSpec) -> str | None:
    """The name of the one person (or the channel) `call` writes to, where turn `turn`'s request names them (a
    person by first name) and asks for a message; None otherwise."""
    if not 0 <= turn < len(spec.turns):
        return None
    request = spec.turns[turn].content
    if spec.tool_decls:  # a declared tool by the op it runs (an imported `gmail_send_message` is a mail_send)
        op, arguments = as_op(spec_catalog(spec), call)
        call = ToolCallSpec(name=op, arguments=arguments)
    if call.name in _POSTS:
        return _asked_channel(spec, request, call)
    if call.name not in _MESSAGES:
        return None
    value = call.arguments.get("person", call.arguments.get("to"))
    refs = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    if len(refs) != 1:
        return None
    ref = str(refs[0]).lower().lstrip("@")
    directory = getattr(spec.world.apps, "directory", None)
    people = getattr(directory, "people", None) or []
    for p in people:
        if ref in {str(r).lower().lstrip("@") for r in (p.id, p.email, p.chat_handle) if r}:
            first = str(p.name).split()[0] if p.name else ""
            if first and re.search(rf"\b{re.escape(first)}\b", request) and _ASKS.search(request):
                return str(p.name)
            return None
    # Someone outside the directory (a customer's address, leon.reyes@hickory.example): the address's first name.
    local = _OUTSIDER.fullmatch(ref)
    first = local.group(1).capitalize() if local else ""
    if first and re.search(rf"\b{re.escape(first)}\b", request) and _ASKS.search(request):
        return first
    return None


def _asked_channel(spec: EnvSpec, request: str, call: ToolCallSpec) -> str | None:
    """The channel a post goes to, where the request names it (`#incidents`) or asks for a post in a chat channel
    ("let the owning team know in their chat channel") with a word asking for a message."""
    target = str(call.arguments.get("channel", "")).lower().lstrip("#")
    if not target or not _ASKS_POST.search(request):
        return None
    chat = getattr(spec.world.apps, "chat", None)
    for c in getattr(chat, "channels", None) or []:
        name = str(c.name).lower().lstrip("#")
        if target in {str(c.id).lower(), name} and not c.is_dm:
            if re.search(rf"(?<![\w-])#{re.escape(name)}(?![\w-])", request, re.IGNORECASE) or \
                    re.search(r"\bchannel\b", request, re.IGNORECASE):
                return f"#{name}"
            return None
    return None


# Context links a request can ask for in so many words: a mail's attachments ("email both to Grace as attachments",
# "attach the document you found the answer in"). Which file is linked is then the task's, not context.
_ASKED_LINKS = {"attachments": re.compile(r"\battach", re.IGNORECASE)}
_LINK_PATH = re.compile(r"^reference\[(\d+)\]\.steps\[\d+\]\.call\.arguments\.(\w+)")


def asked_link(spec: EnvSpec, path: str) -> str | None:
    """The argument a mutant at `path` changes, where it is a context link (an attachment) that turn's request (or
    an earlier one) asks for; None otherwise."""
    found = _LINK_PATH.match(path)
    if found is None or found.group(2) not in _ASKED_LINKS:
        return None
    asked = _ASKED_LINKS[found.group(2)]  # in that turn's request or an earlier one (a clarified request)
    if not any(asked.search(t.content) for t in spec.turns[:int(found.group(1)) + 1]):
        return None
    return found.group(2)
