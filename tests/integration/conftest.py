"""Fixtures the integration tests share: the Action simulations' template (action_sim.py) and the sample."""

from __future__ import annotations

from pathlib import Path

import pytest
from action_sim import Template, build_template

from cairn_action.sample.generate import generate_corpus


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Template:
    """The simulated repository, built once per session (two `cairn eval` runs) and shared by every
    Action simulation: `new_sim` copies it, and no test writes to it."""
    return build_template(tmp_path_factory.mktemp("action-template"))


@pytest.fixture(scope="session")
def seed7(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed-7 sample corpus, generated once; read only (copy it to edit)."""
    root = tmp_path_factory.mktemp("seed7") / "sample"
    generate_corpus(root, 7)
    return root
