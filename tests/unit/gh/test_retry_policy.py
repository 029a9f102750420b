"""PyGithub's retry as the Action and `cairn release-stamp` use it: how many times, and how long between.

The Action simulations (tests/integration/test_action_pr.py) answer their outages with 503 and
`Retry-After: 1`, which urllib3 honours instead of the back-off; the back-off itself is pinned here.
"""

from __future__ import annotations

import pytest
from fakes.github_server import FakeGitHub
from urllib3.response import HTTPResponse

from cairn_action.errors import ExitCode, InfrastructureError
from cairn_action.gh.pygithub_gateway import PyGithubGateway, connect, retry_policy


def _failed(status: int, headers: dict[str, str] | None = None) -> HTTPResponse:
    return HTTPResponse(body=b"", status=status, headers=headers or {}, preload_content=False)


def test_retry_policy__502_without_retry_after__six_retries_backing_off_0_1_2_4_8_16_s() -> None:
    retry = retry_policy()
    waits = []
    for _ in range(6):
        assert retry.is_retry("GET", 502, has_retry_after=False)
        retry = retry.increment(method="GET", url="/repos/acme/rag/pulls/7", response=_failed(502))
        waits.append(retry.get_backoff_time())
    assert waits == [0, 1.0, 2.0, 4.0, 8.0, 16.0]
    assert retry.is_exhausted() is False
    with pytest.raises(Exception, match="Max retries exceeded"):
        retry.increment(method="GET", url="/repos/acme/rag/pulls/7", response=_failed(502))


def test_retry_policy__503_with_retry_after__waits_what_github_asks_not_the_back_off() -> None:
    retry = retry_policy()
    answer = _failed(503, {"Retry-After": "1"})
    assert retry.is_retry("GET", 503, has_retry_after=True)
    assert retry.get_retry_after(answer) == 1
    # A zero is taken as absent (urllib3 backs off instead), which is why the simulations ask for 1 s.
    assert retry.get_retry_after(_failed(503, {"Retry-After": "0"})) == 0


def test_gateway__github_keeps_answering_502__every_retry_made_over_real_http_then_exit_3(
    fake_github: FakeGitHub,
) -> None:
    fake_github.add_pull(7, head_sha="a" * 40, base_sha="b" * 40)
    fake_github.inject("GET", r"/repos/acme/rag/pulls/7", 502, times=100)
    # The real back-off path, with waits of 0 to 0.32 s instead of 0 to 16 s.
    client = connect("t", fake_github.url, throttle=False, retry=retry_policy(backoff_factor=0.01))

    with pytest.raises(InfrastructureError) as caught:
        PyGithubGateway(client, "acme/rag").pull(7)

    assert caught.value.exit_code == ExitCode.INFRASTRUCTURE
    assert "GitHub API unreachable while trying to read pull request #7" in caught.value.message
    assert len([r for r in fake_github.requests if r.path == "/repos/acme/rag/pulls/7"]) == 7
