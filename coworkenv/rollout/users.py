"""User simulators: the spec's scripted turns (the embedded default) and an LLM persona, tau2-style.

The scripted user is what `Env` already does: when the agent ends its turn, the next spec turn arrives. An LLM
user answers the agent within a turn (clarifying questions) as a persona with known and hidden facts; it shares
a hidden fact only after the agent asked for it, which is enforced here, not left to the model.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Protocol

from coworkenv.llm import LLMBackend, LLMError, LLMRequest
from coworkenv.spec import EnvSpec

STOP_TOKEN = "###STOP###"
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_FALLBACK_REPLY = "I don't have anything to add. What else do you need from me?"


def user_failure(user: str, exc: Exception) -> str:
    """What a user simulator's failure is said as: which simulator, then the error (its kind and server, for an
    LLMError) or, for any other exception, its type and text."""
    said = str(exc) if isinstance(exc, LLMError) else f"{type(exc).__name__}: {exc}"
    return f"the simulated user ({user}) gave no answer, so the agent's last message went unanswered: {said}"


@dataclass(frozen=True)
class UserReply:
    """What the user says; `content` None means the user is satisfied and the agent's turn ends."""

    content: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0


class UserSimulator(Protocol):
    """Answers the agent within a turn. Non-interactive simulators leave the turn structure to the Env."""

    name: str
    interactive: bool

    async def respond(self, conversation: list[dict[str, Any]], turn: int) -> UserReply:
        """The user's answer to the conversation so far (TRL message structs; the last is the agent's)."""
        ...


class ScriptedUser:
    """The spec's turns in order, with their conditions: exactly what `Env` does by itself."""

    name = "scripted"
    interactive = False

    async def respond(self, conversation: list[dict[str, Any]], turn: int) -> UserReply:
        """Never answers within a turn: the agent's reply ends it and the Env sends the next spec turn."""
        return UserReply(None)


@dataclass(frozen=True)
class HiddenFact:
    """A fact the user knows but shares only when the agent asks about it (any cue in the agent's message)."""

    topic: str
    value: str
    cues: tuple[str, ...] = ()

    def asked_in(self, text: str) -> bool:
        lowered = text.lower()
        return any(cue.lower() in lowered for cue in (self.cues or (self.topic,)))


@dataclass(frozen=True)
class UserPersona:
    """Who the simulated user is, what they asked in each turn and what they know."""

    name: str
    role: str = ""
    goals: tuple[str, ...] = ()
    known_facts: tuple[str, ...] = ()
    hidden_facts: tuple[HiddenFact, ...] = ()
    style: str = "brief and friendly, like a busy colleague in chat"

    @classmethod
    def from_spec(
        cls, spec: EnvSpec, *, known_facts: tuple[str, ...] = (), hidden_facts: tuple[HiddenFact, ...] = ()
    ) -> UserPersona:
        """The persona of the spec's user (name and role from its directory), asking the spec's turns."""
        people = {p.id: p for p in spec.world.apps.directory.people}
        person = people.get(spec.user)
        return cls(
            name=person.name if person else spec.user,
            role=person.role if person else "",
            goals=tuple(t.content for t in spec.turns),
            known_facts=known_facts,
            hidden_facts=hidden_facts,
        )

    def system_prompt(self, turn: int) -> str:
        """Instructions for the model playing this user in `turn`."""
        who = f"{self.name}, {self.role}" if self.role else self.name
        goal = self.goals[min(turn, len(self.goals) - 1)] if self.goals else "get your request done"
        lines = [
            f"You are {who}. You are chatting with an AI assistant that works for you.",
            f"What you asked the assistant: {goal}",
        ]
        if self.known_facts:
            lines.append("Things you know and may mention when relevant:")
            lines += [f"- {fact}" for fact in self.known_facts]
        if self.hidden_facts:
            lines.append("Things you know but share ONLY if the assistant asks for them:")
            lines += [f"- {fact.topic}: {fact.value}" for fact in self.hidden_facts]
        lines += [
            f"Write as {self.name} would: {self.style}; one or two sentences.",
            "Answer what the assistant asks. Do not volunteer facts it did not ask for and never invent facts.",
            f"When your request is handled, or the assistant asks you nothing, reply with exactly {STOP_TOKEN}",
        ]
        return "\n".join(lines)


def _user_view(conversation: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The conversation from the user's side: roles swapped, tool traffic and empty messages left out."""
    view = []
    for m in conversation:
        text = m.get("content") or ""
        if m["role"] == "assistant" and text:
            view.append({"role": "user", "content": text})
        elif m["role"] == "user":
            view.append({"role": "assistant", "content": text})
    return view


class LLMUser:
    """A persona played by an LLM backend; hidden facts come out only after the agent asked for them."""

    interactive = True

    def __init__(
        self, backend: LLMBackend, persona: UserPersona, *, temperature: float = 0.0, max_tokens: int = 256,
        seed: int | None = None,
    ) -> None:
        self.backend = backend
        self.persona = persona
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.seed = seed
        self.name = f"llm-user:{backend.name}"

    async def respond(self, conversation: list[dict[str, Any]], turn: int) -> UserReply:
        """Ask the model for the persona's answer; re-ask once, then redact, if it leaks an unasked hidden fact."""
        agent_text = " ".join(m["content"] for m in conversation if m["role"] == "assistant" and m.get("content"))
        withheld = [f for f in self.persona.hidden_facts if not f.asked_in(agent_text)]
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.persona.system_prompt(turn)}, *_user_view(conversation),
        ]
        prompt_tokens = completion_tokens = 0
        text = ""
        for attempt in range(2):
            response = await self.backend.complete(LLMRequest(
                messages=messages, temperature=self.temperature, max_tokens=self.max_tokens, seed=self.seed,
            ))
            prompt_tokens += response.prompt_tokens
            completion_tokens += response.completion_tokens
            text = (response.content or "").strip()
            leaked = [f for f in withheld if f.value.lower() in text.lower()]
            if not leaked:
                break
            if attempt == 0:  # one correction; a model that keeps leaking is redacted below
                topics = ", ".join(f.topic for f in leaked)
                messages = [*messages, {"role": "system", "content":
                            f"The assistant has not asked for: {topics}. Answer again without sharing it."}]
        text = _redact(text, withheld)
        if not text or STOP_TOKEN in text:
            return UserReply(None, prompt_tokens, completion_tokens)
        return UserReply(text, prompt_tokens, completion_tokens)


def _redact(text: str, withheld: list[HiddenFact]) -> str:
    """Drop the sentences of `text` that state a withheld fact."""
    if not any(f.value.lower() in text.lower() for f in withheld):
        return text
    kept = [s for s in _SENTENCE.split(text) if not any(f.value.lower() in s.lower() for f in withheld)]
    return " ".join(kept).strip() or _FALLBACK_REPLY



# -- a source benchmark's own simulated user (the spec's `simulated_user`) ------------------------------------------
USER_URL_ENV = "COWORKENV_USER_URL"
USER_MODEL_ENV = "COWORKENV_USER_MODEL"
CLAW_EVAL_USER_TAG = "[user_agent]"  # Claw-Eval sends each answer as this line, then the text
# How long Claw-Eval's runner waits on its user's model (`runner/user_agent.py`): 30 tries of a request, waiting
# min(2^(try+1), 16) s and up to 1 s more between them (7 min in all), each request under the `openai` client's
# default timeout of 600 s. A user model named by $COWORKENV_USER_URL gets the same budget: with the LLM backends'
# own default (4 retries over about 5 s, 60 s a request) a user model that was down for a minute, or that took over
# a minute to write an answer (Claw-Eval asks for up to 65,536 tokens), failed the episode where Claw-Eval's went on.
CLAW_EVAL_USER_RETRIES = 29  # retries after the first try: 30 tries
CLAW_EVAL_USER_TIMEOUT_S = 600.0
CLAW_EVAL_USER_BACKOFF_S = (4.0, 16.0)  # base and cap: retry n waits 2^(n+1) to 2^(n+2) s, at most 16 s
# Claw-Eval's `runner/user_agent.py`, word for word: its system prompt over the persona and its request
CLAW_EVAL_USER_PROMPT = """\
你是一个模拟用户。你的任务是根据以下人设与AI助手进行对话。

## 你的人设
{persona}

## 规则
1. 始终保持人设角色，用自然口语回复，不要暴露你是AI
2. 根据助手的提问如实回答（基于你的人设信息）
3. 如果助手问了你人设中没有的信息，说"不太清楚具体数字"或类似自然回复
4. 如果助手已经给出了完整的计算结果和建议，且你没有更多问题，输出 [DONE]
5. 如果你对回答满意或助手已充分回答了你的问题，输出 [DONE]
6. 回复要简短自然，像真实用户一样（1-3句话）
"""
CLAW_EVAL_USER_ASK = "以下是到目前为止的对话：\n\n{transcript}\n\n请根据你的人设回复助手的最新消息。如果你满意了就输出 [DONE]。"


def _claw_eval_transcript(conversation: list[dict[str, Any]]) -> str:
    """The conversation as Claw-Eval's simulated user reads it (`_format_transcript`): each user and assistant text,
    the user's without its `[user_agent]` tag; system messages, tool results and empty texts left out."""
    lines = []
    for m in conversation:
        text = m.get("content") or ""
        if m["role"] not in ("user", "assistant") or not isinstance(text, str) or not text:
            continue
        if m["role"] == "user":
            if text.startswith(CLAW_EVAL_USER_TAG):
                text = text[len(CLAW_EVAL_USER_TAG):].strip()
            lines.append(f"[用户]: {text}")
        else:
            lines.append(f"[助手]: {text}")
    return "\n".join(lines)


class ClawEvalUser:
    """Claw-Eval's simulated user (`user_agent`), played by an LLM backend as its runner plays it: each reply of the
    agent's that made no tool call is answered, up to `max_rounds` answers (then the reply ends the episode, with no
    request), from its system prompt over the persona and one request holding the conversation's texts, at
    temperature 0.7; an answer holding `[DONE]`, or empty, ends the episode. Each answer opens a new turn
    (`Env.hear`), sent as `[user_agent]` and the text."""

    interactive = True
    opens_turns = True

    def __init__(self, backend: LLMBackend, persona: str, max_rounds: int, *, temperature: float = 0.7,
                 max_tokens: int = 65536) -> None:
        self.backend = backend
        self.persona = persona
        self.max_rounds = max_rounds
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.name = f"claw-eval-user:{backend.name}"

    async def respond(self, conversation: list[dict[str, Any]], turn: int) -> UserReply:
        """The user's answer to the agent's last message, or None (satisfied, or out of rounds)."""
        said = [m.get("content") for m in conversation if m["role"] == "user"][1:]  # after the task's own prompt
        answered = sum(1 for text in said if isinstance(text, str) and text.startswith(CLAW_EVAL_USER_TAG))
        if answered >= self.max_rounds:
            return UserReply(None)
        response = await self.backend.complete(LLMRequest(messages=[
            {"role": "system", "content": CLAW_EVAL_USER_PROMPT.format(persona=self.persona)},
            {"role": "user", "content": CLAW_EVAL_USER_ASK.format(transcript=_claw_eval_transcript(conversation))},
        ], temperature=self.temperature, max_tokens=self.max_tokens))
        text = (response.content or "").strip()
        if not text or "[DONE]" in text:
            return UserReply(None, response.prompt_tokens, response.completion_tokens)
        return UserReply(f"{CLAW_EVAL_USER_TAG}\n{text}", response.prompt_tokens, response.completion_tokens)


def spec_user(spec: EnvSpec, backend: LLMBackend | None = None) -> ClawEvalUser | None:
    """The simulator of the spec's `simulated_user` (None when it has none), played by `backend`, else by the model
    $COWORKENV_USER_URL and $COWORKENV_USER_MODEL name; ValueError when none is given."""
    user = spec.simulated_user
    if user is None:
        return None
    if backend is None:
        from coworkenv.llm import NoLLMBackend, OpenAICompatibleBackend, backend_from_config

        url, model = os.environ.get(USER_URL_ENV, "").strip(), os.environ.get(USER_MODEL_ENV, "").strip()
        made = backend_from_config(url, model, max_retries=CLAW_EVAL_USER_RETRIES,
                                   timeout_s=CLAW_EVAL_USER_TIMEOUT_S) if url and model else None
        if isinstance(made, OpenAICompatibleBackend):  # Claw-Eval's waits between tries
            made.backoff_base_s, made.max_backoff_s = CLAW_EVAL_USER_BACKOFF_S
        if made is None or isinstance(made, NoLLMBackend):
            raise ValueError(f"{spec.metadata.title or spec.capability}: its user is simulated by an LLM "
                             f"({user.form}'s simulated user, up to {user.max_rounds} answers), and none is named: "
                             f"set ${USER_URL_ENV} and ${USER_MODEL_ENV} (an OpenAI-compatible server and its model), "
                             "or pass user_sim=spec_user(spec, backend)")
        backend = made
    return ClawEvalUser(backend, user.persona, user.max_rounds)
