"""An answerer backed by a chat model: the answer contract over any `ChatBackend`.

Confidence, and where it came from (`confidence_source`):
- `logprob`: when the API returned token log-probabilities (OpenAI and most compatible servers), the
  geometric mean probability of the tokens that spell the answer's value in the JSON reply. It is
  preferred because a model's stated confidence is known to be poorly calibrated.
- `model-reported`: otherwise, the `confidence` the model wrote (Anthropic; servers without logprobs).
- empty when neither exists: the case has no confidence, so no calibrated threshold can keep it.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Sequence
from typing import Protocol, Self, TypeVar

from cairn_action.providers.base import AnswerRequest, AnswerResult
from cairn_action.providers.chat import ChatBackend, ChatPrompt, MalformedReply, TokenLogprob
from cairn_action.providers.prompt import (
    PROMPT_VERSION,
    AnswerParseError,
    AnswerPrompt,
    build_answer_prompt,
    parse_answer,
)
from cairn_action.run.models import Usage

SOURCE_LOGPROB = "logprob"
SOURCE_MODEL = "model-reported"


def answer_logprob_confidence(text: str, answer: str, tokens: Sequence[TokenLogprob]) -> float | None:
    """exp(mean log-probability) of the tokens overlapping the answer's value in `text`, or None when
    the value cannot be found in the tokens (they must spell `text`)."""
    joined = "".join(t.token for t in tokens)
    key = joined.find('"answer"')
    if key < 0:
        return None
    span = None
    for literal in (json.dumps(answer, ensure_ascii=False), json.dumps(answer)):
        start = joined.find(literal, key)
        if start >= 0:
            span = (start + 1, start + len(literal) - 1)  # inside the quotes
            break
    if span is None:
        return None
    picked: list[float] = []
    offset = 0
    for token in tokens:
        end = offset + len(token.token)
        if end > span[0] and offset < span[1]:
            picked.append(token.logprob)
        offset = end
    if not picked:
        return None
    return math.exp(sum(picked) / len(picked))


PARSE_ATTEMPTS = 3
"""Calls per case when the reply cannot be used (not the API's shape, or not the answer contract): a garbled
reply from a proxy or an overloaded server is usually not repeated, and a case lost to it costs a rerun."""


class _Paid(Protocol):
    usage: Usage
    cost_usd: float | None
    error: str | None

    def model_copy(self, *, update: dict[str, object]) -> Self: ...


P = TypeVar("P", bound=_Paid)


def until_usable(once: Callable[[], P], attempts: int, on_unusable: Callable[[bool], None] | None) -> P:
    """`once()` repeated while its result has an error, `attempts` calls at most; the result carries the
    usage and cost of every call, and `on_unusable(recovered)` hears of a retried one."""
    tries = [once()]
    while tries[-1].error is not None and len(tries) < attempts:
        tries.append(once())
    result = tries[-1]
    if len(tries) == 1:
        return result
    if on_unusable is not None:
        on_unusable(result.error is None)
    usage, cost = spent_together(tries)
    update: dict[str, object] = {"usage": usage, "cost_usd": cost}
    if result.error is not None:
        update["error"] = f"{result.error} ({len(tries)} attempts)"
    return result.model_copy(update=update)


def spent_together(results: Sequence[_Paid]) -> tuple[Usage, float | None]:
    """The usage and cost of several paid attempts at one call (cost None when any is unknown)."""
    usage = Usage(
        input_tokens=sum(r.usage.input_tokens for r in results),
        output_tokens=sum(r.usage.output_tokens for r in results),
        cached_input_tokens=sum(r.usage.cached_input_tokens for r in results),
    )
    costs = [r.cost_usd for r in results]
    return usage, None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)


class LLMAnswerer:
    """The `Answerer` protocol over a chat model."""

    def __init__(
        self,
        backend: ChatBackend,
        *,
        attempts: int = PARSE_ATTEMPTS,
        on_unusable: Callable[[bool], None] | None = None,
    ) -> None:
        """`on_unusable(recovered)` is told of every case whose first reply was unusable, and whether a
        retry recovered it (the run's summary counts them)."""
        self.backend = backend
        self.name = backend.name
        self.model = backend.model
        self.attempts = max(1, attempts)
        self._on_unusable = on_unusable

    def request_key(self, request: AnswerRequest) -> str:
        """sha256 of the backend's identity, the contract version and the full prompt (no secrets)."""
        prompt = build_answer_prompt(request.question, request.hits, canary=request.system_canary)
        payload = {
            **self.backend.identity(),
            "prompt_version": PROMPT_VERSION,
            "system": prompt.system,
            "user": prompt.user,
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=True).encode()).hexdigest()

    def answer(self, request: AnswerRequest) -> AnswerResult:
        """One call, repeated (up to `attempts` in all) while the reply is unusable; one still unusable
        after that is an `error` result with the raw text, never an exception. Every attempt is paid for,
        so the result carries their usage and cost together."""
        prompt = build_answer_prompt(request.question, request.hits, canary=request.system_canary)
        return until_usable(lambda: self._answer_once(prompt), self.attempts, self._on_unusable)

    def _answer_once(self, prompt: AnswerPrompt) -> AnswerResult:
        try:
            completion = self.backend.complete(
                ChatPrompt(system=prompt.system, user=prompt.user, want_logprobs=True)
            )
        except MalformedReply as exc:
            return AnswerResult(
                error=f"{self.name}: unusable reply: {exc.reason}",
                raw_output=exc.raw,
                usage=exc.usage,
                cost_usd=exc.cost_usd,
                prompt_prefix_hash=prompt.prefix_hash,
            )
        spent = {
            "usage": completion.usage,
            "cost_usd": completion.cost_usd,
            "prompt_prefix_hash": prompt.prefix_hash,
        }
        try:
            parsed = parse_answer(completion.text)
        except AnswerParseError as exc:
            truncated = (
                " (the reply hit max_tokens)" if completion.finish_reason in ("length", "max_tokens") else ""
            )
            return AnswerResult(
                error=f"{self.name}: unparsable answer: {exc}{truncated}", raw_output=completion.text, **spent
            )
        confidence, source = parsed.confidence, SOURCE_MODEL if parsed.confidence is not None else ""
        if parsed.answer_text is not None and completion.logprobs:
            from_logprobs = answer_logprob_confidence(
                completion.text, parsed.answer_text, completion.logprobs
            )
            if from_logprobs is not None:
                confidence, source = from_logprobs, SOURCE_LOGPROB
        return AnswerResult(
            answer_text=parsed.answer_text,
            abstained=parsed.abstained,
            citations=list(parsed.citations),
            confidence=confidence,
            confidence_source=source,
            **spent,
        )
