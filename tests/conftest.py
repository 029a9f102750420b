"""Shared fixtures. Being the rootdir conftest also puts `tests/` on sys.path, so helpers such as
`from fakes.github_server import FakeGitHub` import from any test folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakes.github_server import FakeGitHub


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    """A stateful loopback fake of the GitHub REST API (repository acme/rag), started and stopped."""
    with FakeGitHub() as fake:
        yield fake
