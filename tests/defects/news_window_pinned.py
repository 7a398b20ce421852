"""A window on when a write came that ends at the reference's pace, not at the news: the manager's approval, the
delegate's answer, the user's answer to the agent's question or an announced leave reaches the agent only with the
user's next turn (or the world's delayed reaction to its earlier calls), and a guard holds the write to after it: no
ticket change, config version, mail or DM stamped inside a window that opens with the task. The writer ends the window
when the reference's first turn ended (its calls and its reply, a tick each) instead of when the news came. An agent
that acts at once, at the reference's pace, still falls inside the window and fails; one that reads a few times more
(a minute or more of the world's clock), then guesses and acts, still in the earlier turn and still before the news,
is past the window's end and passes whenever its guess was right. The sound twin (the generated spec) ends the window
at the next turn's start, when the news is there.
"""

from __future__ import annotations

from typing import Any

from coworkenv.loading import parse_spec
from coworkenv.validate._pace import quiet_read
from coworkenv.validate.mutations import is_write
from coworkenv.world import format_time, parse_time
from tests.defects._core import CorpusError, Defect, Spec, check, reference

CLASS = "news_window_pinned"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "replay each write of a turn that brings news (an answer, an announced change, a delayed reaction) in the earlier "
    "turn after the quiet read made as many times as the clock leaves before the news; where that passes and the same "
    "write made early at the reference's pace fails, a window on the write's stamp ends at the reference's pace"
)
READS = 10  # five minutes of the world's clock at 30 s a call: before every news of the bases below
# The tool whose write a window guard on each app's records holds back.
_WRITERS = {"tickets": "tickets_update", "chat": "chat_send_dm", "mail": "mail_send",
            "services": "services_update_config"}


def _window_end(spec: Spec, guard: dict[str, Any]) -> dict[str, Any]:
    """The guard's `lt` condition on its stamp (CorpusError if it has none)."""
    for w in guard["rule"]["where"]:
        if w.get("op") == "lt":
            return w  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: check {guard['id']!r} has no window end")


def _pinned(guard_id: str) -> Any:
    """The guard's window, and every other window of the spec that ends when it does, ended when the reference's first
    turn did: its start, plus a tick per reference message of that turn (each call and the reply move the clock)."""
    def edit(spec: Spec) -> None:
        guard = check(spec, guard_id)
        start = next(w for w in guard["rule"]["where"] if w.get("op") == "gte")["value"]
        end = _window_end(spec, guard)["value"]
        pinned = format_time(parse_time(start) + len(spec["reference"][0]["steps"]) * spec["world"]["tick_s"])
        for c in spec["checks"]:
            for w in c["rule"].get("where") or [] if c["rule"]["kind"] == "records" else []:
                if w.get("op") == "lt" and w.get("value") == end:
                    w["value"] = pinned
    return edit


def _slow_early(guard_id: str) -> Any:
    """The reference with turn 1's writes up to the guarded one (the first of the guarded app's writing tool) made in
    turn 0, after the quiet read made READS times more, before turn 0's closing reply: still before the news."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        tool = _WRITERS[check(spec, guard_id)["rule"]["app"]]
        steps = ref[1]["steps"]
        at = next((j for j, s in enumerate(steps) if s.get("call") and s["call"]["name"] == tool), None)
        read = quiet_read(parse_spec(spec))
        closing = max((j for j, s in enumerate(ref[0]["steps"]) if s.get("say")), default=None)
        if at is None or read is None or read.call is None or closing is None or not is_write(tool):
            raise CorpusError(f"{spec['capability']}: no {tool} in turn 1 to make early, or no quiet read")
        moved = [s for s in steps[:at + 1] if s.get("call") and is_write(s["call"]["name"])]
        ref[1]["steps"] = [s for s in steps if not any(s is m for m in moved)]
        quiet = {"call": {"name": read.call.name, "arguments": dict(read.call.arguments)}, "say": None}
        ref[0]["steps"][closing:closing] = [quiet] * READS + moved
        return ref
    return witness


def _defect(name: str, base: str, guard: str, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_pinned(guard), witness=_slow_early(guard), witness_kind="cheat",
                  gate="mutations", code="acts_before_answer")


DEFECTS = [
    _defect("handed-window-at-pace", "synth:adapt_announced_change@1", "handed-after-news",
            "reads five minutes more in the first turn, then gives the ticket to the backup, before the leave is known"),
    _defect("backup-told-window-at-pace", "synth:adapt_announced_change@4", "backup-told-after-news",
            "reads five minutes more in the first turn, then DMs the backup the ticket, before the leave is known"),
    _defect("handed-window-at-pace-6", "synth:adapt_announced_change@6", "handed-after-news",
            "reads five minutes more in the first turn, then gives the ticket to the backup, before the leave is known"),
    _defect("in-progress-window-at-pace", "synth:delegate_and_follow_up@1", "acted-after-answer",
            "reads five minutes more, then sets the ticket in progress, before the delegate accepted"),
    _defect("handed-on-window-at-pace", "synth:delegate_and_follow_up@2", "acted-after-answer",
            "reads five minutes more, then hands the ticket to the suggested colleague, before the delegate declined"),
    _defect("suggested-asked-window-at-pace", "synth:delegate_and_follow_up@5", "suggested-asked-after-answer",
            "reads five minutes more, then asks the suggested colleague by DM, before the delegate declined"),
    _defect("granted-window-at-pace", "synth:access_request_approval@1", "granted-after-answer",
            "reads five minutes more, then grants the access, before the manager approved"),
    _defect("told-window-at-pace", "synth:access_request_approval@3", "told-after-answer",
            "reads five minutes more, then tells the requester 'not approved', before the manager answered"),
    _defect("told-window-at-pace-6", "synth:access_request_approval@6", "told-after-answer",
            "reads five minutes more, then tells the requester, before the manager answered (the grant still waits)"),
    _defect("sent-window-at-pace", "synth:clarify_ambiguous_request@1", "acted-after-answer",
            "reads five minutes more, then mails the file to one of the two people, before the user said which"),
    _defect("dm-window-at-pace", "synth:clarify_ambiguous_request@4", "acted-after-answer",
            "reads five minutes more, then DMs one of the two people, before the user said which"),
]
