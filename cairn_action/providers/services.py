"""What the paid providers of one run share: the budget, the price table, rate limiters, HTTP clients.

Built once by the composition root and handed to every provider factory. Two providers that reach the
same endpoint (an answerer and a judge on the same API) share one rate limiter, so the limit holds for
the endpoint, not for each of them. `close()` releases the HTTP connections at the end of the run.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping

from cairn_action.config import Config
from cairn_action.errors import ConfigError
from cairn_action.providers.budget import BudgetGuard
from cairn_action.providers.http import HttpClient, NetworkSettings, RetryPolicy
from cairn_action.providers.prices import Price, PriceTable
from cairn_action.providers.ratelimit import Cooldown, RateLimiter


def price_overrides(config: Config) -> dict[str, Price]:
    """The config's `[prices."<model>"]` tables as prices (missing cache prices default to input)."""
    return {
        model: Price(
            input=p.input,
            output=p.output,
            cached_input=p.cached_input if p.cached_input is not None else p.input,
            cache_write=p.cache_write,
        )
        for model, p in config.prices.items()
    }


class ProviderServices:
    """Shared, thread-safe run services for providers (module docstring)."""

    def __init__(
        self,
        *,
        budget: BudgetGuard | None = None,
        prices: PriceTable | None = None,
        warn: Callable[[str], None] | None = None,
        max_concurrency: int = 4,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        retry_policy: Callable[[int], RetryPolicy] | None = None,
        network: NetworkSettings | None = None,
    ) -> None:
        self.budget = budget or BudgetGuard()
        self.prices = prices or PriceTable()
        self._warn = warn
        self.max_concurrency = max_concurrency
        self._sleep = sleep
        self._rng = rng
        self._retry_policy = retry_policy or (lambda retries: RetryPolicy(max_retries=retries))
        self.network = network or NetworkSettings()
        self._lock = threading.Lock()
        self._limiters: dict[str, RateLimiter] = {}
        self._cooldowns: dict[str, Cooldown] = {}
        self._clients: list[HttpClient] = []
        self._warned: list[str] = []
        self._unusable = {True: 0, False: 0}  # retried replies, by whether a retry recovered them

    @classmethod
    def from_config(
        cls,
        config: Config,
        *,
        env: Mapping[str, str] | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> ProviderServices:
        """The services for a run of `config`; `env` (passed in, never read here) gives the proxies."""
        return cls(
            budget=BudgetGuard(config.budget.max_cost_usd),
            prices=PriceTable(price_overrides(config)),
            warn=warn,
            max_concurrency=config.run.max_concurrency,
            network=NetworkSettings.from_env(env or {}),
        )

    def warn(self, message: str) -> None:
        """Say `message` once per run (an unknown price is worth one line, not one per case)."""
        with self._lock:
            if message in self._warned:
                return
            self._warned.append(message)
        if self._warn is not None:
            self._warn(message)

    def note_unusable(self, recovered: bool) -> None:
        """A call whose reply could not be used was asked again (`recovered`: a retry gave a usable one)."""
        with self._lock:
            self._unusable[recovered] += 1

    @property
    def warnings(self) -> list[str]:
        with self._lock:
            return list(self._warned)

    def limiter(self, endpoint: str, requests_per_minute: int | None) -> RateLimiter | None:
        """The endpoint's limiter (created by the first provider that names a limit), or None."""
        with self._lock:
            if endpoint in self._limiters:
                return self._limiters[endpoint]
            if requests_per_minute is None:
                return None
            limiter = RateLimiter(requests_per_minute, sleep=self._sleep)
            self._limiters[endpoint] = limiter
            return limiter

    def cooldown(self, endpoint: str) -> Cooldown:
        """The endpoint's shared Retry-After pause: the answerer and the judge on one API share it."""
        with self._lock:
            if endpoint not in self._cooldowns:
                self._cooldowns[endpoint] = Cooldown(sleep=self._sleep)
            return self._cooldowns[endpoint]

    def http_client(
        self,
        *,
        provider: str,
        endpoint: str,
        timeout_s: float,
        max_retries: int,
        requests_per_minute: int | None,
        secrets: tuple[str, ...] = (),
    ) -> HttpClient:
        client = HttpClient(
            provider=provider,
            timeout_s=timeout_s,
            policy=self._retry_policy(max_retries),
            limiter=self.limiter(endpoint, requests_per_minute),
            cooldown=self.cooldown(endpoint),
            secrets=secrets,
            pool_size=max(10, self.max_concurrency),
            network=self.network,
            sleep=self._sleep,
            rng=self._rng,
        )
        with self._lock:
            self._clients.append(client)
        return client

    def summary(self) -> list[str]:
        """End-of-run lines: spend and budget, retries, rate-limit waits."""
        lines = self.budget.summary()
        with self._lock:
            retries = sum(c.retries for c in self._clients)
            waited = sum(limiter.waited_s for limiter in self._limiters.values())
            unusable = dict(self._unusable)
        if retries:
            lines.append(f"provider retries: {retries}")
        if unusable[True] or unusable[False]:
            lines.append(
                f"unusable replies asked again: {unusable[True] + unusable[False]} call(s), "
                f"{unusable[True]} recovered, {unusable[False]} still unusable (recorded as errors)"
            )
        if waited >= 0.05:
            lines.append(f"rate limit: calls waited {waited:.1f}s in total")
        return lines

    def close(self) -> None:
        with self._lock:
            clients = list(self._clients)  # kept: summary() still counts their retries
        for client in clients:
            client.close()


def require_key(env: Mapping[str, str], variable: str | None, where: str, needed: bool) -> str | None:
    """The API key from the environment variable the config names (None when none is named and the
    endpoint does not need one). The key itself is never part of a message."""
    if variable is None:
        if needed:
            raise ConfigError(
                f"{where}.api_key_env is not set, and this API needs a key",
                f'set {where}.api_key_env = "OPENAI_API_KEY" (the name of the variable, never the key)',
            )
        return None
    value = env.get(variable, "")
    if not value.strip():
        raise ConfigError(
            f"{where}.api_key_env: the environment variable {variable} is not set or empty",
            f"export {variable} before running (in GitHub Actions, from a secret)",
        )
    return value.strip()
