"""Fixtures the integration tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn_action.sample.generate import generate_corpus


@pytest.fixture(scope="session")
def seed7(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed-7 sample corpus, generated once; read only (copy it to edit)."""
    root = tmp_path_factory.mktemp("seed7") / "sample"
    generate_corpus(root, 7)
    return root
