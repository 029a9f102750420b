"""The OpenAI chat-completions wire format, for OpenAI and every server that speaks it.

`base_url` is the API root (`https://api.openai.com/v1`, vLLM's `http://host:8000/v1`, Ollama's
`http://localhost:11434/v1`, llama.cpp server, LM Studio, hosted compatible APIs); the request goes to
`<base_url>/chat/completions` with `Authorization: Bearer <key>` when a key is configured.

Usage: `prompt_tokens` includes `prompt_tokens_details.cached_tokens` (DeepSeek-style servers report
`prompt_cache_hit_tokens` instead); the uncached part is recorded as input, the cached part as cached
input. OpenAI caches prompt prefixes of 1024 tokens and more by itself, so there is nothing to mark.

Servers differ in what they accept. When one refuses a request (HTTP 400) because it does not support
`logprobs` or a `temperature` other than its default, or wants `max_completion_tokens` instead of
`max_tokens` (newer OpenAI models), the backend adapts for the rest of the run and asks again at once;
any other 400 is the caller's error.
"""

from __future__ import annotations

import threading
from typing import Any

from cairn_action.providers.chat import ChatPrompt, Completion, MalformedReply, TokenLogprob
from cairn_action.providers.http import RequestRejected
from cairn_action.providers.http_chat import HttpChat, token_count
from cairn_action.providers.prices import TokenCounts

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_UNSUPPORTED = ("not supported", "unsupported", "not allowed", "only the default", "does not support")


def read_usage(body: dict[str, Any]) -> tuple[TokenCounts, bool]:
    """Token counts from a chat-completions `usage` block, and whether the block was there."""
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return TokenCounts(), False
    prompt = token_count(usage.get("prompt_tokens"))
    details = usage.get("prompt_tokens_details")
    cached = token_count(details.get("cached_tokens")) if isinstance(details, dict) else 0
    cached = cached or token_count(usage.get("prompt_cache_hit_tokens"))
    cached = min(cached, prompt)
    return TokenCounts(
        input=prompt - cached, cached_input=cached, output=token_count(usage.get("completion_tokens"))
    ), True


def _content(message: object) -> str | None:
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    refusal = message.get("refusal")
    return refusal if isinstance(refusal, str) else None


def _logprobs(choice: dict[str, Any]) -> tuple[TokenLogprob, ...] | None:
    block = choice.get("logprobs")
    content = block.get("content") if isinstance(block, dict) else None
    if not isinstance(content, list) or not content:
        return None
    try:
        return tuple(TokenLogprob(str(item["token"]), float(item["logprob"])) for item in content)
    except (TypeError, KeyError, ValueError):
        return None  # a server that half-implements logprobs: fall back to the model's own confidence


class OpenAIChat(HttpChat):
    """A `ChatBackend` over `<base_url>/chat/completions`."""

    name = "openai"
    default_base_url = DEFAULT_BASE_URL
    identity_key = "base_url"

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self._adapted: set[str] = set()
        self._lock = threading.Lock()

    def endpoint(self) -> str:
        return f"{self.base_url}/chat/completions"

    def _payload(self, prompt: ChatPrompt, adapted: set[str]) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user},
            ],
        }
        if "temperature" not in adapted:
            payload["temperature"] = self.temperature
        payload["max_completion_tokens" if "max_tokens" in adapted else "max_tokens"] = self.max_tokens
        if prompt.want_logprobs and "logprobs" not in adapted:
            payload["logprobs"] = True
        return payload

    def _adaptation(self, exc: RequestRejected, adapted: set[str]) -> str | None:
        """The parameter a 400 refuses that we can do without (or rename), if any."""
        if exc.status != 400:
            return None
        message = exc.error_message.lower()
        refused = exc.error_param or ""
        unsupported = any(phrase in message for phrase in _UNSUPPORTED)
        # Only OpenAI's own message names the replacement; "max_tokens is too large" must not match.
        if "max_tokens" not in adapted and "max_completion_tokens" in message:
            return "max_tokens"
        for param in ("logprobs", "temperature"):
            if param not in adapted and (refused == param or (param in message and unsupported)):
                return param
        return None

    def complete(self, prompt: ChatPrompt) -> Completion:
        self._budget.check()
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        with self._lock:
            adapted = set(self._adapted)
        while True:
            try:
                reply = self._http.post(self.url, self._payload(prompt, adapted), headers)
                break
            except RequestRejected as exc:
                param = self._adaptation(exc, adapted)
                if param is None:
                    raise
                adapted.add(param)
                with self._lock:
                    self._adapted.add(param)
        try:
            body = reply.json()
            choice = body["choices"][0]
        except (ValueError, KeyError, IndexError, TypeError):
            raise self._malformed(
                "the reply is not a chat completion (no JSON with choices)", reply.text
            ) from None
        usage, cost = self._settle(*read_usage(body))
        text = _content(choice.get("message")) if isinstance(choice, dict) else None
        if text is None:
            raise MalformedReply(
                "the chat completion has no message content", reply.text, usage=usage, cost_usd=cost
            )
        return Completion(
            text=text,
            usage=usage,
            cost_usd=cost,
            logprobs=_logprobs(choice),
            finish_reason=choice.get("finish_reason"),
        )
