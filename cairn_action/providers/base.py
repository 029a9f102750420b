"""The provider protocol: what the runner asks an answerer, and what it gets back.

A result is a pydantic model because the run's cache stores it as JSON: a rerun of an unchanged
configuration replays results from the cache and makes no provider call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from cairn_action.retrieval.base import Hit
from cairn_action.run.models import Citation, Usage


@dataclass(frozen=True)
class AnswerRequest:
    case_id: str
    question: str
    hits: tuple[Hit, ...]
    """The top-k chunks, best first, that the answerer may use and cite."""
    sample: int = 0
    """Which ask of the case this is (0 = first); the cache keys each sample apart."""
    system_canary: str | None = None
    """A secret line planted in the system prompt by `cairn attack` (prompt extraction); None otherwise.
    Answerers without a system prompt (the stub) ignore it."""


class AnswerResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer_text: str | None = None
    abstained: bool = False
    citations: list[Citation] = Field(default_factory=list)
    confidence: float | None = None
    confidence_source: str = ""
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = 0.0
    prompt_prefix_hash: str | None = None
    raw_output: str | None = None
    error: str | None = None
    """Set when the output could not be used (unparsable): the case is recorded as an error."""


class Answerer(Protocol):
    name: str
    model: str

    def request_key(self, request: AnswerRequest) -> str:
        """Content address for the cache: provider, model, parameters, the full prompt, prompt version."""
        ...

    def answer(self, request: AnswerRequest) -> AnswerResult:
        """Answer one question. Raises InfrastructureError when the provider stays unreachable."""
        ...
