"""A message's checked facts left out or stated wrongly, where the message goes through the spec's own declared tool.

The near misses of a write's text are made by what the write is: a message that tells a person several facts gets
one of them stated wrongly at a time (a version `svc-recs@5` that a check reads as `svc-recs@\\w+` cited as `@6`), a
reply gets its facts left out ("the badge desk room for Rotterdam is ." for "... is B-214") and stated wrongly. A
validator that tells a message by its tool's name (`chat_send_dm`) and a reply by its argument's (`in_reply_to`)
makes neither for a declared `acme_chat_send_dm` bound to `chat_send_dm`, or a declared `gmail_send_message` whose
`reply_to_message_id` fills `in_reply_to`: a check that reads the message loosely (any version of the service, the
question's own words in the reply) then passes the agent that cites another version, or answers without the answer.
Each defect is such a loose check on a message sent through a declared tool; the same spec with the built-in tools is
rejected (`content_unchecked`), and the sound twin is the spec itself, declared alike.
"""

from __future__ import annotations

import re
from typing import Any

from coworkenv.apps import TOOLS
from tests.defects import half_pinned
from tests.defects._core import CorpusError, Defect, Edit, Spec, check, reference
from tests.defects.declared_name_misread import _gmail_send
from tests.defects.declared_write_as_read import _renamed, _witness, declare_writes

CLASS = "declared_text_unmutated"
DETECTION = (
    "make a write's text near misses by the op it runs and the op parameter each argument fills (a declared tool "
    "counts as the op it is bound to): one fact of a message stated wrongly at a time, a reply's facts left out or "
    "stated wrongly, whatever the declared tool and its reply argument are called: by the names, a loose check on a "
    "declared message passes another version cited, or the question's words without the answer"
)
GATE, CODE = "mutations", "content_unchecked"


# -- one fact of a declared message stated wrongly (mutations._MESSAGES) ------------------------------------------
def _version_any_word(spec: Spec) -> None:
    """The DM must cite the service's config version written as any word (`svc-recs@\\w+`), not the one it runs."""
    c = check(spec, "answered-with-source", "records")
    for w in c["rule"]["where"]:
        if w["field"] == "text" and w.get("op", "equals") == "contains" and "@" in str(w["value"]):
            w["op"], w["value"] = "matches", re.escape(str(w["value"]).split("@")[0]) + r"@\w+"
            return
    raise CorpusError(f"{spec['capability']}: no config version condition")


def _other_version(spec: Spec) -> list[dict[str, Any]]:
    """Cites the next config version of the service (rolled back, or never active)."""
    c = check(spec, "answered-with-source", "records")
    version = next(str(w["value"]) for w in c["rule"]["where"]
                   if w["field"] == "text" and w.get("op", "equals") == "contains" and "@" in str(w["value"]))
    service, _, n = version.partition("@")
    ref = reference(spec)
    for turn in ref:
        for st in turn["steps"]:
            if st.get("call") and st["call"]["name"] == "chat_send_dm":
                st["call"]["arguments"]["text"] = st["call"]["arguments"]["text"].replace(version, f"{service}@{int(n) + 1}")
    return ref


def _then_declared(edit: Edit | None) -> Edit:
    def both(spec: Spec) -> None:
        if edit is not None:
            edit(spec)
        declare_writes(spec, every=True)
    return both


_SLACK, _SLACK_ARGS = "slack_send_dm", {"person": "user", "text": "message"}  # Slack's own names


def _slack_dm(edit: Edit | None) -> Edit:
    """`edit`, then `chat_send_dm` declared Slack's way (`slack_send_dm(user, message)`, plain renames), the built-in
    one no longer given; the reference and the checks' matchers follow."""
    def both(spec: Spec) -> None:
        if edit is not None:
            edit(spec)
        if "chat_send_dm" not in spec["tools"]:
            raise CorpusError(f"{spec['capability']}: no chat_send_dm given")
        params = TOOLS["chat_send_dm"].openai_schema()["function"]["parameters"]
        spec.setdefault("tool_decls", []).append({
            "name": _SLACK, "description": "Send a direct message to a workspace member.",
            "parameters": {"type": "object", "properties": {_SLACK_ARGS.get(k, k): v for k, v in params["properties"].items()},
                           "required": [_SLACK_ARGS.get(k, k) for k in params.get("required", [])]},
            "bind": {"op": "chat_send_dm", "args": {_SLACK_ARGS.get(k, k): k for k in params["properties"]}}})
        spec["tools"].remove("chat_send_dm")
        for turn in spec["reference"]:
            for st in turn["steps"]:
                if st.get("call") and st["call"]["name"] == "chat_send_dm":
                    st["call"] = {"name": _SLACK, "arguments": {_SLACK_ARGS.get(k, k): v
                                                                for k, v in st["call"]["arguments"].items()}}
        for key in ("checks", "dynamics", "turns"):
            if "chat_send_dm" in str(spec.get(key)) and key != "checks":
                raise CorpusError(f"{spec['capability']}: {key} name chat_send_dm")
        _renamed(spec["checks"], {"chat_send_dm": _SLACK})
    return both


def _slack_other_version(spec: Spec) -> list[dict[str, Any]]:
    """half_pinned's cheat through the Slack DM: the next config version cited in its `message`."""
    c = check(spec, "answered-with-source", "records")
    version = next(str(w["value"]) for w in c["rule"]["where"]
                   if w["field"] == "text" and w.get("op", "equals") == "contains" and "@" in str(w["value"]))
    service, _, n = version.partition("@")
    ref = reference(spec)
    for turn in ref:
        for st in turn["steps"]:
            if st.get("call") and st["call"]["name"] == _SLACK:
                st["call"]["arguments"]["message"] = st["call"]["arguments"]["message"].replace(
                    version, f"{service}@{int(n) + 1}")
    return ref


def _slack(name: str) -> Defect:
    """half_pinned's defect `name` (a DM citing any version of the service) with the DM declared Slack's way: its
    text in `message`, so the checks' patterns on the record's `text` were never read for it."""
    found = next(d for d in half_pinned.DEFECTS if d.name == name)
    return Defect(CLASS, f"slack-{name}", found.base, f"{found.gets_away_with} (through slack_send_dm's `message`)",
                  breaks=_slack_dm(found.breaks), fix=_slack_dm(found.fix), witness=_slack_other_version,
                  gate=GATE, code=CODE)


def _version(seed: int) -> Defect:
    return Defect(CLASS, f"version-any-word-lookup_answer_source-{seed}", f"synth:lookup_answer_source@{seed}",
                  "cites a config version the service does not run through the declared DM tool (any 'svc@word' "
                  "passes)", breaks=_then_declared(_version_any_word), fix=_then_declared(None),
                  witness=_witness(_other_version), gate=GATE, code=CODE)


# -- a declared reply's facts left out (the in_reply_to reads of mutations._text_mutations) --------------------------
_MAIL = ("mail_send", "mail_save_draft")


def _reply(spec: Spec) -> dict[str, Any]:
    """The reference's first reply mail (sent or drafted) in the thread."""
    found = next((st["call"] for turn in spec["reference"] for st in turn["steps"] if st.get("call")
                  and st["call"]["name"] in _MAIL and st["call"]["arguments"].get("in_reply_to")), None)
    if found is None:
        raise CorpusError(f"{spec['capability']}: no reply mail")
    return found  # type: ignore[no-any-return]


def _topic(args: dict[str, Any]) -> str:
    """The longest run of two or more of the question's words (the reply's subject) that the reply's body repeats, as
    the body writes it: what the reply is about, not what it answers."""
    subject = re.sub(r"^(?:(?:re|fwd?):\s*)+", "", str(args["subject"]), flags=re.I).split(":", 1)[-1]
    words, body = subject.split(), str(args["body"])
    runs = [" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 2, len(words) + 1)]
    found = [m.group(0) for run in runs if (m := re.search(re.escape(run), body, re.I))]
    if not found:
        raise CorpusError(f"the reply {args['subject']!r} repeats none of its question's words")
    return max(found, key=len)


def _topic_only(spec: Spec) -> None:
    """The check on the reply reads its body for the question's words (`contains` them) instead of the answer."""
    topic = _topic(_reply(spec)["arguments"])
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "records" and rule.get("table") == "messages" and \
                any(w["field"] == "in_reply_to" for w in rule.get("where", [])):
            for w in rule["where"]:
                if w["field"] == "body":
                    w["op"], w["value"] = "contains", topic
                    return
    raise CorpusError(f"{spec['capability']}: no check reads the reply's body")


def _unanswered(spec: Spec) -> list[dict[str, Any]]:
    """The reply (through the declared Gmail tool) names what was asked and answers nothing."""
    ref = reference(spec)
    for turn in ref:
        for st in turn["steps"]:
            if st.get("call") and st["call"]["name"] in ("gmail_send_message", "gmail_save_draft") \
                    and st["call"]["arguments"].get("reply_to_message_id"):
                args = st["call"]["arguments"]
                args["body"] = f"Thanks for asking about the {_topic(args)}; I will get back to you on it."
                return ref
    raise CorpusError(f"{spec['capability']}: no declared reply")


def _reply_topic(base: str) -> Defect:
    return Defect(CLASS, f"reply-topic-only-{base.split(':', 1)[1].replace('@', '-')}", base,
                  "replies through the declared Gmail tool (its `reply_to_message_id`) naming what was asked and "
                  "answering nothing", breaks=_gmail_send(_topic_only), fix=_gmail_send(None), witness=_unanswered,
                  gate=GATE, code=CODE)


DEFECTS = [
    _version(1),
    _version(3),
    # (also measured, outside the corpus for test time: inbox_triage_reply 5 and half_pinned's seed 3 through Slack,
    # accepted on main, rejected on the branch, twins kept)
    *(_reply_topic(f"synth:inbox_triage_reply@{seed}") for seed in (3, 4)),
    _reply_topic("synth:draft_only_reply@2"),
    # the declared DM's text in an argument of another name (Slack's `message`): the patterns a check reads the
    # record's `text` with (a digit class), and the message's facts one at a time, never tried on it
    _slack("lookup-any-version-cited"),
]
