"""Fixtures shared by the Action simulations (action_sim.py)."""

from __future__ import annotations

import pytest
from action_sim import Template, build_template


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Template:
    """The simulated repository, built once per session (two `cairn eval` runs) and shared by every
    Action simulation: `new_sim` copies it, and no test writes to it."""
    return build_template(tmp_path_factory.mktemp("action-template"))
