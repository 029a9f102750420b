"""What a failed PyGithub call means for the user, and retrying the writes PyGithub does not retry.

PyGithub's `GithubRetry` retries GET, POST, PUT and DELETE on 5xx and rate limits, but not PATCH, so
edits (the sticky comment, a ref, release notes) go through `retrying`; everything else goes through
`guard`, which only maps what still fails after PyGithub's own retries.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import requests
from github import GithubException, RateLimitExceededException

from cairn_action.errors import CairnError, InfrastructureError

T = TypeVar("T")
WRITE_ATTEMPTS = 4
MAX_WAIT_S = 60.0


class PermissionDenied(CairnError):
    """The token may not do this (a fork pull request's read-only token, or missing `permissions:`)."""


class NotFound(CairnError):
    """GitHub answered 404."""


class Conflict(CairnError):
    """GitHub refused a write because the state moved underneath it (422 on a ref update)."""


def _message(exc: GithubException) -> str:
    data = exc.data if isinstance(exc.data, dict) else {}
    message = str(data.get("message") or exc.data or "")
    errors = data.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict) and errors[0].get("message"):
        message += f": {errors[0]['message']}"
    return message[:300]


def _retry_after(exc: GithubException) -> float | None:
    """Seconds to wait before retrying, or None when retrying will not help."""
    headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
    if exc.status >= 500:
        return float(headers.get("retry-after") or 0) or None
    if exc.status in (403, 429) and ("retry-after" in headers or "rate limit" in _message(exc).lower()):
        return float(headers.get("retry-after") or 0) or None
    return None


def _retryable(exc: GithubException) -> bool:
    return exc.status >= 500 or _retry_after(exc) is not None


def translate(exc: Exception, what: str) -> CairnError:
    """A PyGithub or transport failure as the CairnError it means for the user."""
    if isinstance(exc, requests.RequestException | RateLimitExceededException):
        return InfrastructureError(
            f"GitHub API unreachable while trying to {what}: {type(exc).__name__}",
            "GitHub may be degraded; re-run the job. On GHES check GITHUB_API_URL",
        )
    assert isinstance(exc, GithubException)
    if exc.status >= 500 or _retryable(exc):
        return InfrastructureError(
            f"GitHub answered {exc.status} while trying to {what} (after retries): {_message(exc)}",
            "GitHub may be degraded; re-run the job",
        )
    if exc.status == 401:
        return CairnError(
            f"GitHub refused the token (401) while trying to {what}",
            "pass `github-token: ${{ github.token }}` (the default) or a valid token",
        )
    if exc.status == 403:
        return PermissionDenied(
            f"GitHub refused to {what} (403): {_message(exc)}",
            "grant the job `pull-requests: write` (and `statuses: write`, "
            "`contents: write` where used); on fork pull requests use the two-stage workflow in the README",
        )
    kind = {404: NotFound, 409: Conflict, 422: Conflict}.get(exc.status, CairnError)
    return kind(
        f"GitHub answered {exc.status} while trying to {what}: {_message(exc)}",
        "see the message; this request is not retried",
    )


def retrying(call: Callable[[], T], what: str, *, sleep: Callable[[float], None] = time.sleep) -> T:
    """Run a write PyGithub does not retry (PATCH): 5xx, secondary rate limits and dropped connections
    are tried again, up to WRITE_ATTEMPTS times with Retry-After or exponential backoff."""
    for attempt in range(1, WRITE_ATTEMPTS + 1):
        try:
            return call()
        except GithubException as exc:
            if not _retryable(exc) or attempt == WRITE_ATTEMPTS:
                raise translate(exc, what) from None
            sleep(min(_retry_after(exc) or 2.0 ** (attempt - 1), MAX_WAIT_S))
        except (requests.ConnectionError, requests.Timeout) as exc:
            if attempt == WRITE_ATTEMPTS:
                raise translate(exc, what) from None
            sleep(2.0 ** (attempt - 1))
    raise AssertionError("unreachable")


def guard(call: Callable[[], T], what: str) -> T:
    """Run a call PyGithub retries itself; map what still fails."""
    try:
        return call()
    except (GithubException, requests.RequestException) as exc:
        raise translate(exc, what) from None
