"""HTTP for providers and targets: one pooled `requests` session, timeouts, bounded retries.

A request is retried on a connection error, a timeout, 429 and 5xx (and 408, 409, 425, Anthropic's
529), at most `max_retries` times. The wait before a retry is the server's `Retry-After` (seconds or an
HTTP date; OpenAI's `retry-after-ms` too) when it sends one, capped at `max_retry_after_s`, otherwise
exponential backoff with jitter: half of `min(max_delay_s, base_delay_s * 2**retry)` plus a random part
up to the other half, so concurrent workers that failed together do not retry together. The rate
limiter, when there is one, is asked again before every attempt.

After the last retry the call raises `InfrastructureError` with one line saying what failed, where and
how often. Any other 4xx is not retried (asking again cannot help) and raises `RequestRejected`, which
carries the vendor's error message and parameter. 401 and 403 (a bad key, no access) are remembered:
every later call fails at once with the same message rather than asking again to learn the same thing.
A 2xx is returned as it came, whatever its body: whether it can be used is the caller's question (a
garbage body is a per-case error, not a retry).

Secrets (the API key) never appear in a message: every text this module produces is scrubbed.
Proxies and a CA bundle come from `NetworkSettings`, built by the composition root from the
environment it passes down; the session itself never reads the process environment (requests would
otherwise scan it on every call, and consult ~/.netrc, which could override the API key header).
"""

from __future__ import annotations

import email.utils
import json
import random
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from cairn_action.errors import InfrastructureError
from cairn_action.providers.ratelimit import Cooldown, RateLimiter

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
STICKY_STATUS = frozenset({401, 403})
_EXCERPT = 300


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    max_retry_after_s: float = 120.0
    """A longer Retry-After is cut to this: a run should not hang on one server's say-so."""


@dataclass(frozen=True)
class NetworkSettings:
    """How to reach the outside: proxies (`http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`, lower
    case first, as curl and requests read them) and a CA bundle (`REQUESTS_CA_BUNDLE`,
    `CURL_CA_BUNDLE`)."""

    http_proxy: str | None = None
    https_proxy: str | None = None
    no_proxy: tuple[str, ...] = ()
    ca_bundle: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> NetworkSettings:
        def get(name: str) -> str | None:
            return env.get(name) or env.get(name.upper()) or None

        no_proxy = get("no_proxy") or ""
        return cls(
            http_proxy=get("http_proxy") or get("all_proxy"),
            https_proxy=get("https_proxy") or get("all_proxy"),
            no_proxy=tuple(h.strip().lstrip(".") for h in no_proxy.split(",") if h.strip()),
            ca_bundle=env.get("REQUESTS_CA_BUNDLE") or env.get("CURL_CA_BUNDLE") or None,
        )

    def proxies_for(self, url: str) -> dict[str, str]:
        """The proxy mapping for one URL: none when `no_proxy` names its host (or is `*`)."""
        parts = urlsplit(url)
        host = parts.hostname or ""
        with_port = f"{host}:{parts.port}" if parts.port else host
        for entry in self.no_proxy:
            if entry == "*" or host == entry or with_port == entry or host.endswith("." + entry):
                return {}
        proxy = self.https_proxy if parts.scheme == "https" else self.http_proxy
        return {parts.scheme: proxy} if proxy else {}


@dataclass(frozen=True)
class HttpReply:
    """A 2xx response."""

    status: int
    text: str
    attempts: int
    """1 when the first attempt succeeded."""

    def json(self) -> Any:
        """The body parsed as JSON; raises ValueError when it is not JSON."""
        return json.loads(self.text)


class RequestRejected(InfrastructureError):
    """The server refused the request itself (a 4xx other than 408/409/425/429): not retried."""

    def __init__(self, message: str, hint: str, *, status: int, error_message: str, error_param: str | None):
        super().__init__(message, hint)
        self.status = status
        self.error_message = error_message
        self.error_param = error_param


def scrub(text: str, secrets: Sequence[str]) -> str:
    """`text` with every secret replaced by `***`."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def parse_retry_after(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait (`retry-after-ms`, then `Retry-After`), or None."""
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _vendor_error(text: str) -> tuple[str, str | None]:
    """(message, parameter) from an OpenAI- or Anthropic-style error body, else an excerpt of it."""
    try:
        body = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:_EXCERPT], None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        param = error.get("param")
        return str(error.get("message") or error.get("type") or "")[:_EXCERPT], (
            str(param) if param else None
        )
    if isinstance(error, str):
        return error[:_EXCERPT], None
    return " ".join(text.split())[:_EXCERPT], None


class HttpClient:
    """POSTs JSON with the retry policy above; thread-safe (one shared, pooled session)."""

    def __init__(
        self,
        *,
        provider: str,
        timeout_s: float,
        policy: RetryPolicy | None = None,
        limiter: RateLimiter | None = None,
        secrets: Sequence[str] = (),
        pool_size: int = 32,
        network: NetworkSettings | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        cooldown: Cooldown | None = None,
    ) -> None:
        self.provider = provider
        self.cooldown = cooldown
        self.timeout_s = timeout_s
        self.policy = policy or RetryPolicy()
        self.limiter = limiter
        self._secrets = tuple(s for s in secrets if s)
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._rng_lock = threading.Lock()
        self._network = network or NetworkSettings()
        # requests (with urllib3 and charset detection) is imported by the first client, not with this
        # module: the run's shared services import it, and an offline run never opens a connection.
        import requests
        from requests.adapters import HTTPAdapter

        self._requests = requests
        self._session = requests.Session()
        self._session.trust_env = False  # see the module docstring: settings are passed in, never read here
        if self._network.ca_bundle:
            self._session.verify = self._network.ca_bundle
        # Our own retry loop decides; urllib3 must not retry behind its back. The pool holds one
        # connection per concurrent worker so keep-alive connections are reused, not discarded.
        adapter = HTTPAdapter(pool_connections=4, pool_maxsize=pool_size, max_retries=0)
        self._session.mount("http://", adapter)
        self._session.mount("https://", adapter)
        # Closed when the client is, or when it is dropped: a pooled socket never outlives its client.
        self._close = weakref.finalize(self, self._session.close)
        self._sticky: InfrastructureError | None = None
        self._lock = threading.Lock()
        self.retries = 0
        """Retries made so far (all calls)."""

    def close(self) -> None:
        self._close()

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _backoff(self, retry: int) -> float:
        ceiling = min(self.policy.max_delay_s, self.policy.base_delay_s * (2**retry))
        with self._rng_lock:
            return ceiling / 2 + self._rng.uniform(0, ceiling / 2)

    def _fail(self, url: str, attempts: int, reason: str) -> InfrastructureError:
        return InfrastructureError(
            scrub(
                f"{self.provider}: {url} failed after {attempts} attempt{'s' if attempts > 1 else ''}: "
                f"{reason}",
                self._secrets,
            ),
            "check that the provider is reachable and the key is valid; rerun the same command to retry "
            "the failed cases (finished ones are not called again)",
        )

    def post(self, url: str, payload: Mapping[str, Any], headers: Mapping[str, str]) -> HttpReply:
        """POST `payload` as JSON; a 2xx reply, or InfrastructureError after the retries (see module)."""
        return self._request("POST", url, payload, headers)

    def get(self, url: str, headers: Mapping[str, str]) -> HttpReply:
        """GET `url`, with the same retries, limits and errors as `post`."""
        return self._request("GET", url, None, headers)

    def _request(
        self, method: str, url: str, payload: Mapping[str, Any] | None, headers: Mapping[str, str]
    ) -> HttpReply:
        with self._lock:
            if self._sticky is not None:
                raise self._sticky
        attempts = self.policy.max_retries + 1
        reason = ""
        for attempt in range(attempts):
            if attempt:
                with self._lock:
                    self.retries += 1
            if self.cooldown is not None:
                self.cooldown.wait()
            if self.limiter is not None:
                self.limiter.acquire()
            retry_after: float | None = None
            try:
                response = self._session.request(
                    method,
                    url,
                    json=payload,
                    headers=dict(headers),
                    timeout=(min(10.0, self.timeout_s), self.timeout_s),
                    proxies=self._network.proxies_for(url),
                )
            except self._requests.Timeout:
                reason = f"no response within {self.timeout_s:g}s"
            except self._requests.ConnectionError as exc:
                reason = f"connection failed ({type(exc).__name__})"
            else:
                status = response.status_code
                text = scrub(response.text, self._secrets)  # nothing a server echoes can carry the key on
                if 200 <= status < 300:
                    return HttpReply(status=status, text=text, attempts=attempt + 1)
                message, param = _vendor_error(text)
                message = scrub(message, self._secrets)
                if status not in RETRYABLE_STATUS:
                    rejected = RequestRejected(
                        scrub(
                            f"{self.provider}: {url} refused the request: HTTP {status}: {message}",
                            self._secrets,
                        ),
                        "check [provider] model, base_url and the API key variable (api_key_env)",
                        status=status,
                        error_message=message,
                        error_param=param,
                    )
                    if status in STICKY_STATUS:
                        with self._lock:
                            self._sticky = rejected
                    raise rejected
                retry_after = parse_retry_after(response.headers)
                reason = f"HTTP {status}" + (f": {message}" if message else "")
            if attempt + 1 == attempts:
                break
            if retry_after is not None:
                wait = min(retry_after, self.policy.max_retry_after_s)
                if self.cooldown is not None:  # every caller of this endpoint waits it out, not just us
                    self.cooldown.hold(wait)
                with self._rng_lock:
                    wait += self._rng.uniform(0, min(1.0, 0.1 * wait))  # do not retry in lockstep
            else:
                wait = self._backoff(attempt)
            self._sleep(wait)
        raise self._fail(url, attempts, reason)
