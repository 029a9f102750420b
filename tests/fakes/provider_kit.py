"""Builders for the provider tests: real backends pointed at the loopback fakes, with recorded waits."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from cairn_action.index.chunks import Chunk
from cairn_action.providers.anthropic import AnthropicChat
from cairn_action.providers.base import AnswerRequest
from cairn_action.providers.budget import BudgetGuard
from cairn_action.providers.http import HttpClient, RetryPolicy
from cairn_action.providers.openai_compat import OpenAIChat
from cairn_action.providers.prices import Price, PriceTable
from cairn_action.retrieval.base import Hit

POLICY = "Returns. A customer has 14 days from delivery to request a credit. Credits post within 5 days."
HOURS = "Hours. The depot opens at 06:00 on weekdays. It closes at 14:00 on Saturdays."


@dataclass
class Waits:
    """A `sleep` that records instead of sleeping: what the retry loop and the rate limiter asked for."""

    seconds: list[float] = field(default_factory=list)

    def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


def request(question: str = "How many days does a customer have to request a credit?") -> AnswerRequest:
    chunks = [
        Chunk(
            chunk_id="policy.md#0-94",
            doc="policy.md",
            start=0,
            end=len(POLICY),
            text=POLICY,
            heading="Returns",
        ),
        Chunk(chunk_id="hours.md#0-77", doc="hours.md", start=0, end=len(HOURS), text=HOURS),
    ]
    hits = tuple(Hit(chunk=c, rank=i, score=10.0 - i) for i, c in enumerate(chunks, start=1))
    return AnswerRequest(case_id="q1", question=question, hits=hits)


def http_client(
    provider: str, *, waits: Waits | None = None, max_retries: int = 3, timeout_s: float = 5.0, secrets=()
) -> HttpClient:
    return HttpClient(
        provider=provider,
        timeout_s=timeout_s,
        policy=RetryPolicy(max_retries=max_retries, base_delay_s=0.2, max_delay_s=2.0),
        secrets=secrets,
        sleep=waits if waits is not None else Waits(),
        rng=random.Random(7),
    )


def openai_chat(
    base_url: str,
    *,
    model: str = "gpt-4o-mini",
    api_key: str | None = None,
    budget: BudgetGuard | None = None,
    price: Price | str | None = "table",
    **client: object,
) -> OpenAIChat:
    resolved = PriceTable().lookup("openai", model) if price == "table" else price
    return OpenAIChat(
        model=model,
        http=http_client("openai", secrets=(api_key,) if api_key else (), **client),  # type: ignore[arg-type]
        budget=budget or BudgetGuard(),
        price=resolved,  # type: ignore[arg-type]
        base_url=base_url,
        api_key=api_key,
    )


def anthropic_chat(
    base_url: str,
    *,
    model: str = "claude-haiku-4-5",
    api_key: str | None = None,
    budget: BudgetGuard | None = None,
    **client: object,
) -> AnthropicChat:
    return AnthropicChat(
        model=model,
        http=http_client("anthropic", secrets=(api_key,) if api_key else (), **client),  # type: ignore[arg-type]
        budget=budget or BudgetGuard(),
        price=PriceTable().lookup("anthropic", model),
        base_url=base_url,
        api_key=api_key,
    )
