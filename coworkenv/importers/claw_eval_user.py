"""A Claw-Eval task's simulated user (`user_agent`) as the spec's `simulated_user`.

Claw-Eval's runner (`runner/loop.py`, `runner/user_agent.py`) answers each reply of the agent's that made no tool
call with an LLM playing the task's `persona` (its own system prompt, temperature 0.7), up to `max_rounds` answers
(3 unless given), each sent as `[user_agent]` and the text; `[DONE]` ends the episode; the task's
`system_prompt_suffix` follows the runner's system prompt. The import carries the persona and the round limit; the
run's user simulator (`coworkenv.rollout.users.ClawEvalUser`) plays it as that runner does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from coworkenv.rollout.users import USER_MODEL_ENV, USER_URL_ENV


class _UserAgent(BaseModel):
    """Claw-Eval's `UserAgentTaskConfig`, as its task model reads it (pydantic's lax types, unknown keys ignored)."""

    model_config = ConfigDict(extra="ignore")
    enabled: bool = False
    persona: str = ""
    max_rounds: int = 3
    system_prompt_suffix: str = ""


def simulated_user(raw: dict[str, Any], notes: list[str],
                   leave: Callable[[str, str], None]) -> dict[str, Any] | None:
    """The spec's `simulated_user` for task.yaml's `user_agent` (None when it is not enabled); a value Claw-Eval's
    task model would refuse is left out, naming the field."""
    try:
        user = _UserAgent.model_validate(raw or {})
    except ValidationError as exc:
        err = exc.errors()[0]
        leave("user_agent", f"user_agent.{'.'.join(str(p) for p in err['loc'])}: {err['msg']} (Claw-Eval's task "
                            "model refuses it too)")
        return None
    if not user.enabled:
        return None
    rounds = max(user.max_rounds, 0)  # the loop asks while its count is under it: none at 0 or less
    notes.append(f"a simulated user: an LLM plays the persona at run time, as Claw-Eval's runner does, answering up "
                 f"to {rounds} of the agent's replies (each opens a turn, `[user_agent]` and the text; `[DONE]` ends "
                 f"the episode); a run needs that model (${USER_URL_ENV}, ${USER_MODEL_ENV}), and its episodes "
                 "differ from run to run as Claw-Eval's do (temperature 0.7)" + (
                     "; its system_prompt_suffix follows the runner's system prompt" if user.system_prompt_suffix
                     else ""))
    return {"form": "claw-eval", "persona": user.persona, "max_rounds": rounds}


def suffix_of(raw: dict[str, Any]) -> str:
    """The text the loop appends to its system prompt for an enabled simulated user ("" for none)."""
    try:
        user = _UserAgent.model_validate(raw or {})
    except ValidationError:
        return ""
    return user.system_prompt_suffix if user.enabled else ""


def reference_note(steps: list[Any]) -> str:
    """What the report says of a `reference.json` beside a task with a simulated user: the validation gates play a
    reference with no user (none answers offline, and a reference step is a call or a message, none the user's
    answer), so its messages are one reply, which ends the episode as a reply no user answers ends Claw-Eval's."""
    said = sum(1 for step in steps if isinstance(step, dict) and step.get("say"))
    return ("reference.json is played by the validation gates with no simulated user (none answers offline, and a "
            "reference has no step for the user's answer): its calls, then its messages as one reply, which ends "
            "the episode" + (f"; its {said} messages are that one reply, so a reference that asks the user and "
                             "answers after the user's answer fails the oracle gate for that, not for its grader"
                             if said > 1 else ""))
