"""Shared fixtures. Being the rootdir conftest also puts `tests/` on sys.path, so helpers such as
`from fakes.github_server import FakeGitHub` import from any test folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakes.github_server import FakeGitHub
from hypothesis import settings

# Property tests run on a 2-core CI machine that is busy with subprocesses: no per-example deadline (a slow
# example is not a failure), a fixed sequence of examples (a red CI run can be reproduced), and no example
# database written into the working tree.
settings.register_profile("cairn", deadline=None, derandomize=True, database=None)
settings.load_profile("cairn")


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    """A stateful loopback fake of the GitHub REST API (repository acme/rag), started and stopped."""
    with FakeGitHub() as fake:
        yield fake


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first, otherwise in collection order (a stable sort): under xdist the long ones then
    start while fast ones remain to fill the other workers, not at the end with the other cores idle (the
    static encoder's distillation, about a minute, was collected among the last unit tests)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
