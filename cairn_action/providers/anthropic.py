"""The Anthropic Messages wire format: `POST <base_url>/v1/messages`.

Headers: `x-api-key`, `anthropic-version: 2023-06-01`. The system prompt (Cairn's stable prefix: the
answer contract's instructions, the judge's rubric) is sent as a text block marked
`cache_control: {"type": "ephemeral"}`, so every call after the first reads it from Anthropic's prompt
cache (for prefixes above the model's minimum cacheable length; shorter ones are simply not cached).

Usage: `input_tokens` excludes both cache classes. Cairn records `input_tokens +
cache_creation_input_tokens` as input and `cache_read_input_tokens` as cached input; the cost prices
each class on its own (cache writes at the write premium). There are no log-probabilities.
"""

from __future__ import annotations

from typing import Any

from cairn_action.providers.budget import BudgetGuard
from cairn_action.providers.chat import ChatPrompt, Completion, MalformedReply
from cairn_action.providers.http import HttpClient
from cairn_action.providers.prices import Price, TokenCounts, cost_usd
from cairn_action.run.models import Usage

DEFAULT_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"


def _int(value: object) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def read_usage(body: dict[str, Any]) -> tuple[TokenCounts, bool]:
    """Token counts from a Messages `usage` block, and whether the block was there."""
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return TokenCounts(), False
    return (
        TokenCounts(
            input=_int(usage.get("input_tokens")),
            output=_int(usage.get("output_tokens")),
            cached_input=_int(usage.get("cache_read_input_tokens")),
            cache_write=_int(usage.get("cache_creation_input_tokens")),
        ),
        True,
    )


def messages_url(base_url: str | None) -> str:
    """`<root>/v1/messages`, whether `base_url` is the API root or already ends in /v1."""
    root = (base_url or DEFAULT_BASE_URL).rstrip("/")
    return f"{root}/messages" if root.endswith("/v1") else f"{root}/v1/messages"


class AnthropicChat:
    """A `ChatBackend` over the Messages API."""

    name = "anthropic"

    def __init__(
        self,
        *,
        model: str,
        http: HttpClient,
        budget: BudgetGuard,
        price: Price | None,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
    ) -> None:
        self.model = model
        self.url = messages_url(base_url)
        self._http = http
        self._budget = budget
        self._price = price
        self._api_key = api_key
        self.temperature = temperature
        self.max_tokens = max_tokens

    def close(self) -> None:
        self._http.close()

    def identity(self) -> dict[str, object]:
        return {
            "provider": self.name,
            "model": self.model,
            "url": self.url,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def payload(self, prompt: ChatPrompt) -> dict[str, Any]:
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "system": [{"type": "text", "text": prompt.system, "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": prompt.user}],
        }

    def complete(self, prompt: ChatPrompt) -> Completion:
        self._budget.check()
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        reply = self._http.post(self.url, self.payload(prompt), headers)
        try:
            body = reply.json()
            blocks = body["content"]
            if not isinstance(blocks, list):
                raise TypeError("content is not a list")
        except (ValueError, KeyError, TypeError):
            self._budget.charge(None)
            raise MalformedReply(
                "the reply is not a Messages response (no JSON with content)", reply.text
            ) from None
        tokens, has_usage = read_usage(body)
        cost = cost_usd(self._price, tokens) if has_usage else None
        self._budget.charge(cost)
        usage = Usage(
            input_tokens=tokens.input + tokens.cache_write,
            output_tokens=tokens.output,
            cached_input_tokens=tokens.cached_input,
        )
        texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        if not texts:
            raise MalformedReply(
                "the Messages response has no text block", reply.text, usage=usage, cost_usd=cost
            )
        return Completion(
            text="".join(texts), usage=usage, cost_usd=cost, finish_reason=body.get("stop_reason")
        )
