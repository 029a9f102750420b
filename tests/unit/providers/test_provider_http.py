"""The HTTP layer's pure parts: Retry-After, vendor error bodies, proxies from the passed-in environment."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cairn_action.providers.http import NetworkSettings, parse_retry_after, scrub

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"Retry-After": "Thu, 01 Jan 2026 12:00:30 GMT"}, 30.0),
        ({"Retry-After": "Thu, 01 Jan 2026 11:59:00 GMT"}, 0.0),  # already past: go now
        ({"retry-after-ms": "250", "Retry-After": "9"}, 0.25),  # OpenAI's finer header wins
        ({"Retry-After": "soon"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after__seconds_dates_and_milliseconds(
    headers: dict[str, str], seconds: float | None
) -> None:
    assert parse_retry_after(headers, now=NOW) == seconds


def test_scrub__every_secret_replaced() -> None:
    assert scrub("key sk-1 and sk-1 again, not sk-2", ("sk-1", "")) == "key *** and *** again, not sk-2"


def test_network_settings__proxies_from_the_given_environment_with_no_proxy() -> None:
    env = {
        "HTTPS_PROXY": "http://proxy:3128",
        "http_proxy": "http://proxy:3128",
        "no_proxy": "localhost,.internal",
    }
    network = NetworkSettings.from_env(env)
    assert network.proxies_for("https://api.openai.com/v1/chat/completions") == {"https": "http://proxy:3128"}
    assert network.proxies_for("http://localhost:11434/v1/chat/completions") == {}
    assert network.proxies_for("https://rag.internal/answer") == {}
    assert NetworkSettings.from_env({}).proxies_for("https://api.anthropic.com") == {}


def test_network_settings__ca_bundle_and_no_proxy_star() -> None:
    network = NetworkSettings.from_env(
        {"REQUESTS_CA_BUNDLE": "/etc/corp.pem", "all_proxy": "http://p:1", "NO_PROXY": "*"}
    )
    assert network.ca_bundle == "/etc/corp.pem"
    assert network.proxies_for("https://api.openai.com") == {}
