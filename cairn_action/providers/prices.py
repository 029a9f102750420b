"""What a call costs: a dated price table per provider and model, config overrides, and the arithmetic.

Prices are USD per million tokens, as each vendor's pricing page listed them on `PRICES_AS_OF`. A model
the table does not know (a local model behind an OpenAI-compatible server, a model released after that
date) has no price: its cost is recorded as unknown (None), never as zero, and the run says so once.
`[prices."<model>"]` in the config adds or corrects a price (`input = 0` for a model you host yourself).

Token classes are billed separately, and each input token belongs to exactly one class:
- OpenAI: `prompt_tokens` includes `prompt_tokens_details.cached_tokens`; the uncached part is billed at
  `input`, the cached part at `cached_input`.
- Anthropic: `input_tokens` excludes both cache classes; `cache_creation_input_tokens` is billed at
  `cache_write` (1.25x input for the default 5-minute cache), `cache_read_input_tokens` at `cached_input`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

PRICES_AS_OF = "2026-11-30"
"""The day the table below was last checked against the vendors' pricing pages."""
PRICE_SOURCES = {
    "openai": "https://platform.openai.com/docs/pricing",
    "anthropic": "https://platform.claude.com/docs/en/about-claude/pricing",
}


@dataclass(frozen=True)
class Price:
    """USD per million tokens of each class."""

    input: float
    output: float
    cached_input: float
    """Cache reads (OpenAI cached tokens, Anthropic cache hits)."""
    cache_write: float | None = None
    """Anthropic cache creation; None bills it as `input` (vendors without a write premium)."""


@dataclass(frozen=True)
class TokenCounts:
    """One call's tokens by billing class (each token in exactly one class)."""

    input: int = 0
    """Uncached input tokens."""
    output: int = 0
    cached_input: int = 0
    cache_write: int = 0


def _anthropic(input_: float, output: float) -> Price:
    # Anthropic's published multipliers: cache hits 0.1x input, 5-minute cache writes 1.25x input.
    return Price(input=input_, output=output, cached_input=round(input_ * 0.1, 6), cache_write=input_ * 1.25)


_TABLE: dict[str, dict[str, Price]] = {
    "openai": {
        "gpt-5": Price(input=1.25, output=10.00, cached_input=0.125),
        "gpt-5-mini": Price(input=0.25, output=2.00, cached_input=0.025),
        "gpt-5-nano": Price(input=0.05, output=0.40, cached_input=0.005),
        "gpt-4.1": Price(input=2.00, output=8.00, cached_input=0.50),
        "gpt-4.1-mini": Price(input=0.40, output=1.60, cached_input=0.10),
        "gpt-4.1-nano": Price(input=0.10, output=0.40, cached_input=0.025),
        "gpt-4o": Price(input=2.50, output=10.00, cached_input=1.25),
        "gpt-4o-mini": Price(input=0.15, output=0.60, cached_input=0.075),
        "o3-mini": Price(input=1.10, output=4.40, cached_input=0.55),
        "o4-mini": Price(input=1.10, output=4.40, cached_input=0.275),
    },
    "anthropic": {
        "claude-opus-4-5": _anthropic(5.00, 25.00),
        "claude-opus-4-1": _anthropic(15.00, 75.00),
        "claude-opus-4": _anthropic(15.00, 75.00),
        "claude-sonnet-4-5": _anthropic(3.00, 15.00),
        "claude-sonnet-4": _anthropic(3.00, 15.00),
        "claude-3-7-sonnet": _anthropic(3.00, 15.00),
        "claude-haiku-4-5": _anthropic(1.00, 5.00),
        "claude-3-5-haiku": _anthropic(0.80, 4.00),
        "claude-3-haiku": Price(input=0.25, output=1.25, cached_input=0.03, cache_write=0.30),
    },
}

# A dated snapshot of a listed model ("gpt-4o-mini-2024-07-18", "claude-sonnet-4-5-20250929") or its
# "-latest" alias costs what the model does; any other suffix is a different model.
_SNAPSHOT = re.compile(r"^-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$")


class PriceTable:
    """The built-in table plus the config's overrides (which win, for any provider)."""

    def __init__(
        self,
        overrides: Mapping[str, Price] | None = None,
        *,
        table: Mapping[str, Mapping[str, Price]] | None = None,
    ) -> None:
        self._table = table if table is not None else _TABLE
        self._overrides = dict(overrides or {})

    def lookup(self, provider: str, model: str) -> Price | None:
        """The price of `model` as served by `provider`, or None when unknown."""
        if model in self._overrides:
            return self._overrides[model]
        prices = self._table.get(provider, {})
        if model in prices:
            return prices[model]
        # Longest listed name first, so "gpt-4o-mini-2024-07-18" is not priced as "gpt-4o".
        for name in sorted(prices, key=len, reverse=True):
            if model.startswith(name) and _SNAPSHOT.match(model[len(name) :]):
                return prices[name]
        return None

    def known_models(self, provider: str) -> list[str]:
        return sorted(set(self._table.get(provider, {})) | set(self._overrides))


def cost_usd(price: Price | None, tokens: TokenCounts) -> float | None:
    """The call's cost in USD, or None when the price is unknown."""
    if price is None:
        return None
    write = price.cache_write if price.cache_write is not None else price.input
    micro = (
        tokens.input * price.input
        + tokens.output * price.output
        + tokens.cached_input * price.cached_input
        + tokens.cache_write * write
    )
    return micro / 1_000_000


def unknown_price_warning(provider: str, model: str) -> str:
    """The one-line warning for a model without a price (its cost is shown as unknown, not zero)."""
    return (
        f"no price for {provider} model '{model}' in the table of {PRICES_AS_OF}: its cost is recorded "
        f'as unknown; add [prices."{model}"] with input, output and cached_input (USD per million '
        "tokens) to the config"
    )
