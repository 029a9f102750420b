"""The price table, the budget guard and the rate limiter: the arithmetic behind every cost and wait."""

from __future__ import annotations

import threading

import pytest

from cairn_action.config import parse_config
from cairn_action.providers.budget import BUDGET_ERROR_PREFIX, BudgetExhausted, BudgetGuard
from cairn_action.providers.prices import PRICES_AS_OF, Price, PriceTable, TokenCounts, cost_usd
from cairn_action.providers.ratelimit import RateLimiter
from cairn_action.providers.services import ProviderServices, price_overrides


@pytest.mark.parametrize(
    ("provider", "model", "input_price"),
    [
        ("openai", "gpt-4o-mini", 0.15),
        ("openai", "gpt-4o-mini-2024-07-18", 0.15),  # a dated snapshot is not priced as gpt-4o
        ("openai", "gpt-4o-2024-08-06", 2.50),
        ("anthropic", "claude-sonnet-4-5-20250929", 3.00),
        ("anthropic", "claude-3-5-haiku-latest", 0.80),
    ],
)
def test_price_table__listed_models_and_their_snapshots(
    provider: str, model: str, input_price: float
) -> None:
    price = PriceTable().lookup(provider, model)
    assert price is not None and price.input == input_price


@pytest.mark.parametrize(
    ("provider", "model"),
    [
        ("openai", "gpt-4o-audio-preview"),
        ("openai", "llama3.1:8b"),
        ("anthropic", "gpt-4o"),
        ("vllm", "gpt-4o"),
    ],
)
def test_price_table__unknown_model_or_variant__none(provider: str, model: str) -> None:
    assert PriceTable().lookup(provider, model) is None


def test_price_table__config_override__wins_and_fills_cached_input(tmp_path) -> None:
    config = parse_config(
        {"prices": {"gpt-4o-mini": {"input": 1.0, "output": 2.0}, "llama3.1:8b": {"input": 0, "output": 0}}},
        tmp_path / "c.toml",
    )
    table = PriceTable(price_overrides(config))
    assert table.lookup("openai", "gpt-4o-mini") == Price(input=1.0, output=2.0, cached_input=1.0)
    assert table.lookup("openai", "llama3.1:8b") == Price(input=0.0, output=0.0, cached_input=0.0)


def test_cost__each_token_class_at_its_own_price() -> None:
    price = Price(input=3.0, output=15.0, cached_input=0.3, cache_write=3.75)
    tokens = TokenCounts(input=1000, output=200, cached_input=5000, cache_write=2000)
    assert cost_usd(price, tokens) == pytest.approx((1000 * 3 + 200 * 15 + 5000 * 0.3 + 2000 * 3.75) / 1e6)
    assert cost_usd(None, tokens) is None
    assert PRICES_AS_OF.count("-") == 2


def test_services__unknown_price_warning__said_once() -> None:
    said: list[str] = []
    services = ProviderServices(warn=said.append)
    for _ in range(3):
        services.warn("no price for openai model 'x'")
    assert said == ["no price for openai model 'x'"]


def test_budget__refuses_once_spent_reaches_the_limit() -> None:
    budget = BudgetGuard(max_cost_usd=0.01)
    budget.check()
    budget.charge(0.006)
    budget.check()
    budget.charge(0.006)
    with pytest.raises(BudgetExhausted) as caught:
        budget.check()
    assert caught.value.message.startswith(BUDGET_ERROR_PREFIX)
    assert budget.refused == 1
    assert budget.summary()[:2] == [
        "spent $0.0120 on 2 provider calls (limit $0.01)",
        "budget reached: 1 call not made",
    ]


def test_budget__unknown_prices__counted_apart_and_warned() -> None:
    budget = BudgetGuard(max_cost_usd=1.0)
    budget.charge(None)
    assert budget.spent_usd == 0.0
    assert any("no known price" in line for line in budget.summary())


class _VirtualTime:
    """A clock that only moves when someone sleeps."""

    def __init__(self) -> None:
        self.now = 0.0

    def clock(self) -> float:
        return self.now


def test_rate_limiter__burst_of_requests__spaced_evenly_not_refused() -> None:
    time = _VirtualTime()
    waits: list[float] = []
    limiter = RateLimiter(60, clock=time.clock, sleep=waits.append)
    for _ in range(5):
        limiter.acquire()
    assert waits == pytest.approx([1.0, 2.0, 3.0, 4.0])  # the first goes at once
    time.now = 100.0  # idle for a long while: no debt carried over
    assert limiter.acquire() == 0.0


def test_rate_limiter__threads__every_slot_taken_exactly_once() -> None:
    time = _VirtualTime()
    waits: list[float] = []
    lock = threading.Lock()

    def record(seconds: float) -> None:
        with lock:
            waits.append(seconds)

    limiter = RateLimiter(600, clock=time.clock, sleep=record)
    threads = [threading.Thread(target=lambda: [limiter.acquire() for _ in range(5)]) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(round(w / 0.1) for w in waits) == list(range(1, 40))


def test_rate_limiter__burst_allowance__first_requests_free() -> None:
    time = _VirtualTime()
    waits: list[float] = []
    limiter = RateLimiter(60, burst=3, clock=time.clock, sleep=waits.append)
    for _ in range(4):
        limiter.acquire()
    assert waits == pytest.approx([1.0])
