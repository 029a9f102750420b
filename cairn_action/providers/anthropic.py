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

from cairn_action.providers.chat import ChatPrompt, Completion, MalformedReply
from cairn_action.providers.http_chat import HttpChat, token_count
from cairn_action.providers.prices import TokenCounts

DEFAULT_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"


def read_usage(body: dict[str, Any]) -> tuple[TokenCounts, bool]:
    """Token counts from a Messages `usage` block, and whether the block was there."""
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return TokenCounts(), False
    return (
        TokenCounts(
            input=token_count(usage.get("input_tokens")),
            output=token_count(usage.get("output_tokens")),
            cached_input=token_count(usage.get("cache_read_input_tokens")),
            cache_write=token_count(usage.get("cache_creation_input_tokens")),
        ),
        True,
    )


def messages_url(base_url: str | None) -> str:
    """`<root>/v1/messages`, whether `base_url` is the API root or already ends in /v1."""
    root = (base_url or DEFAULT_BASE_URL).rstrip("/")
    return f"{root}/messages" if root.endswith("/v1") else f"{root}/v1/messages"


class AnthropicChat(HttpChat):
    """A `ChatBackend` over the Messages API."""

    name = "anthropic"
    default_base_url = DEFAULT_BASE_URL
    identity_key = "url"

    def endpoint(self) -> str:
        return messages_url(self.base_url)

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
            raise self._malformed(
                "the reply is not a Messages response (no JSON with content)", reply.text
            ) from None
        usage, cost = self._settle(*read_usage(body))
        texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        if not texts:
            raise MalformedReply(
                "the Messages response has no text block", reply.text, usage=usage, cost_usd=cost
            )
        return Completion(
            text="".join(texts), usage=usage, cost_usd=cost, finish_reason=body.get("stop_reason")
        )
