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
from collections.abc import Sequence

from cairn_action.providers.base import AnswerRequest, AnswerResult
from cairn_action.providers.chat import ChatBackend, ChatPrompt, MalformedReply, TokenLogprob
from cairn_action.providers.prompt import PROMPT_VERSION, AnswerParseError, build_answer_prompt, parse_answer

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


class LLMAnswerer:
    """The `Answerer` protocol over a chat model."""

    def __init__(self, backend: ChatBackend) -> None:
        self.backend = backend
        self.name = backend.name
        self.model = backend.model

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
        """One call; an unusable reply is an `error` result with the raw text, never an exception."""
        prompt = build_answer_prompt(request.question, request.hits, canary=request.system_canary)
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
