"""A per-provider request rate limit that slows calls down instead of failing them.

The limiter spaces request starts evenly, `60 / requests_per_minute` seconds apart (the generic cell
rate algorithm, with a burst of one by default). Vendors enforce "per minute" limits over much shorter
windows (60 RPM behaves like one request a second), so even spacing is what keeps a concurrent run
clear of 429s. Each caller reserves its slot under a lock and sleeps outside it, so waiting threads
start in the order they asked and no thread holds the lock while it sleeps.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class RateLimiter:
    """Blocking and thread-safe: `acquire()` returns once this request may start."""

    def __init__(
        self,
        requests_per_minute: float,
        *,
        burst: int = 1,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if requests_per_minute <= 0:
            raise ValueError(f"requests_per_minute must be positive, got {requests_per_minute}")
        if burst < 1:
            raise ValueError(f"burst must be at least 1, got {burst}")
        self.requests_per_minute = requests_per_minute
        self.interval_s = 60.0 / requests_per_minute
        self._tolerance_s = (burst - 1) * self.interval_s
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next: float | None = None  # the theoretical start time of the next request
        self.waited_s = 0.0
        """Total time callers spent waiting (for the run's summary)."""

    def acquire(self) -> float:
        """Wait for this request's slot; returns the seconds waited."""
        with self._lock:
            now = self._clock()
            due = now if self._next is None else max(self._next, now)
            start = max(now, due - self._tolerance_s)
            self._next = due + self.interval_s
            wait = start - now
            self.waited_s += wait
        if wait > 0:
            self._sleep(wait)
        return wait


class Cooldown:
    """An endpoint's "not before" time, set by a server's Retry-After and kept by every caller.

    A 429 with `Retry-After: 1` asks the *client* to wait, not one request: when only the worker that
    got it waits, the other workers (and the judge, on the same endpoint) keep sending, and the server
    sees a request 0.2 s later. So the wait is shared: `hold(s)` pushes the endpoint's not-before time
    out (never in), and `wait()` sleeps until it before a request starts. The worker that got the reply
    sleeps its own (jittered) wait and does not wait a second time for the hold it set itself.
    """

    def __init__(
        self, *, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._not_before = 0.0
        self._holder: int | None = None

    def hold(self, seconds: float) -> None:
        with self._lock:
            until = self._clock() + seconds
            if until > self._not_before:
                self._not_before = until
                self._holder = threading.get_ident()

    def wait(self) -> float:
        """Sleep until the endpoint may be called again; returns the seconds slept."""
        with self._lock:
            if self._holder == threading.get_ident():
                return 0.0
            left = self._not_before - self._clock()
        if left <= 0:
            return 0.0
        self._sleep(left)
        return left
