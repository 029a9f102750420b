"""What the HTTP wire formats (`openai_compat`, `anthropic`) share: their settings, their identity, and
turning a reply's token counts into the recorded usage, its cost and the budget's charge."""

from __future__ import annotations

from typing import ClassVar

from cairn_action.providers.budget import BudgetGuard
from cairn_action.providers.chat import MalformedReply
from cairn_action.providers.http import HttpClient
from cairn_action.providers.prices import Price, TokenCounts, cost_usd
from cairn_action.run.models import Usage


def token_count(value: object) -> int:
    """A count from a vendor's `usage` block; anything that is not a number (absent, null, a bool) is 0."""
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


class HttpChat:
    """The part of a `ChatBackend` that does not depend on the vendor's JSON."""

    name: ClassVar[str]
    default_base_url: ClassVar[str]
    identity_key: ClassVar[str]
    """The attribute naming the endpoint in `identity()` (part of the cache key: never renamed)."""

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
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        self.url = self.endpoint()
        self._http = http
        self._budget = budget
        self._price = price
        self._api_key = api_key
        self.temperature = temperature
        self.max_tokens = max_tokens

    def endpoint(self) -> str:
        """The URL a prompt is posted to, from `self.base_url`."""
        raise NotImplementedError

    def close(self) -> None:
        self._http.close()

    def identity(self) -> dict[str, object]:
        return {
            "provider": self.name,
            "model": self.model,
            self.identity_key: getattr(self, self.identity_key),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def _malformed(self, problem: str, reply_text: str) -> MalformedReply:
        """A reply that could not be read at all: charged as a call of unknown cost."""
        self._budget.charge(None)
        return MalformedReply(problem, reply_text)

    def _settle(self, tokens: TokenCounts, has_usage: bool) -> tuple[Usage, float | None]:
        """The usage to record and the call's cost (None when the reply had no usage), charged to the
        budget. Cache writes count as input (only Anthropic reports them; OpenAI's are always 0)."""
        cost = cost_usd(self._price, tokens) if has_usage else None
        self._budget.charge(cost)
        usage = Usage(
            input_tokens=tokens.input + tokens.cache_write,
            output_tokens=tokens.output,
            cached_input_tokens=tokens.cached_input,
        )
        return usage, cost
