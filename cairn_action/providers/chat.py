"""The seam between what Cairn asks a model (answer, grade) and how a vendor's API is spoken.

A `ChatBackend` sends one prompt, a stable system part and a per-call user part, and returns the text
with its tokens and cost. `openai_compat.OpenAIChat` and `anthropic.AnthropicChat` are the two wire
formats; `llm_answerer` and `llm_judge` build prompts and parse replies without knowing which is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Protocol

from cairn_action.run.models import Usage


@dataclass(frozen=True)
class ChatPrompt:
    system: str
    """The stable part (instructions, rubric): first, identical across calls, marked for prompt caching."""
    user: str
    """What changes per call (context and question, or the answer to grade)."""
    want_logprobs: bool = False
    """Ask for token log-probabilities where the API offers them."""


class TokenLogprob(NamedTuple):
    """A named tuple, not a dataclass: a reply has hundreds and they are built on every call."""

    token: str
    logprob: float


@dataclass(frozen=True)
class Completion:
    text: str
    usage: Usage
    cost_usd: float | None
    """None when the model's price is unknown (or the reply carried no usage block)."""
    logprobs: tuple[TokenLogprob, ...] | None = None
    finish_reason: str | None = None


class MalformedReply(ValueError):
    """A 2xx whose body is not the API's response shape (not JSON, no choices, no content)."""

    def __init__(
        self, reason: str, raw: str, *, usage: Usage | None = None, cost_usd: float | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw
        self.usage = usage or Usage()
        """What the call consumed, when the reply said (a paid call stays on the record)."""
        self.cost_usd = cost_usd


class ChatBackend(Protocol):
    name: str
    """The provider name in the config and the run records (`openai`, `anthropic`)."""
    model: str

    def identity(self) -> dict[str, object]:
        """What, besides the prompt, decides the reply: for cache keys. Never holds a secret."""
        ...

    def close(self) -> None:
        """Release the connections (the run's services close every client at the end anyway)."""
        ...

    def complete(self, prompt: ChatPrompt) -> Completion:
        """One call. Raises InfrastructureError (unreachable, refused, over budget), MalformedReply."""
        ...
