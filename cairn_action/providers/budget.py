"""The budget guard: once `budget.max_cost_usd` has been spent, no new provider call is made.

Every paid call (answerer and LLM judge alike) asks `check()` before it goes out and reports its cost
with `charge()` when it comes back. A refused call raises `BudgetExhausted`, an `InfrastructureError`,
so the case becomes an `error` record whose message starts with `BUDGET_ERROR_PREFIX`; rerunning the
same command retries it (each invocation may spend up to the limit again, on purpose: raising the limit
and rerunning finishes the run without paying twice for what the cache already holds).

What the guard counts is what this process paid: a call replayed from Cairn's cache costs nothing now.
Calls already in flight when the limit is reached still land, so the overshoot is at most
`run.max_concurrency - 1` calls. A call whose price is unknown cannot be counted; the guard says so once.
"""

from __future__ import annotations

import threading

from cairn_action.errors import InfrastructureError
from cairn_action.run.models import BUDGET_ERROR_PREFIX


class BudgetExhausted(InfrastructureError):
    """`budget.max_cost_usd` was reached before this call; the call was not made."""


class BudgetGuard:
    """Thread-safe spend counter with an optional ceiling."""

    def __init__(self, max_cost_usd: float | None = None) -> None:
        if max_cost_usd is not None and max_cost_usd < 0:
            raise ValueError(f"max_cost_usd must not be negative, got {max_cost_usd}")
        self.max_cost_usd = max_cost_usd
        self._lock = threading.Lock()
        self._spent = 0.0
        self._paid_calls = 0
        self._unpriced_calls = 0
        self._refused = 0

    def check(self) -> None:
        """Raise `BudgetExhausted` when the limit has been reached; otherwise the call may go out."""
        if self.max_cost_usd is None:
            return
        with self._lock:
            if self._spent < self.max_cost_usd:
                return
            self._refused += 1
            spent = self._spent
        raise BudgetExhausted(
            f"{BUDGET_ERROR_PREFIX}: budget.max_cost_usd is ${self.max_cost_usd:g} and this run has spent "
            f"${spent:.4f}; the provider call was not made",
            "raise [budget] max_cost_usd, then rerun the same command: cached answers are not paid again",
        )

    def charge(self, cost_usd: float | None) -> None:
        """Record a call that was made; None means its price is unknown."""
        with self._lock:
            self._paid_calls += 1
            if cost_usd is None:
                self._unpriced_calls += 1
            else:
                self._spent += cost_usd

    @property
    def spent_usd(self) -> float:
        with self._lock:
            return self._spent

    @property
    def refused(self) -> int:
        """Calls refused because the limit had been reached."""
        with self._lock:
            return self._refused

    def summary(self) -> list[str]:
        """Lines for the end of the run: what was spent, what was refused, what could not be counted."""
        with self._lock:
            spent, paid, unpriced, refused = (
                self._spent,
                self._paid_calls,
                self._unpriced_calls,
                self._refused,
            )
        if paid == 0 and refused == 0:
            return []
        limit = "no limit" if self.max_cost_usd is None else f"limit ${self.max_cost_usd:g}"
        lines = [f"spent ${spent:.4f} on {paid} provider call{'s' if paid != 1 else ''} ({limit})"]
        if refused:
            lines.append(f"budget reached: {refused} call{'s' if refused != 1 else ''} not made")
        if unpriced and self.max_cost_usd is not None:
            lines.append(
                f"warning: {unpriced} call{'s' if unpriced != 1 else ''} had no known price and "
                "could not count against the budget"
            )
        return lines
