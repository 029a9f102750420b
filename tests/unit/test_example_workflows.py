"""The workflows users copy (examples/workflows/) say only true things: configs that exist, an install
that works, one placeholder, and no paid evaluation rerun by an unrelated label."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples" / "workflows").glob("*.yml"))


def _load(name: str) -> dict[str, Any]:
    return YAML(typ="safe").load((REPO / "examples" / "workflows" / name).read_text(encoding="utf-8"))


def _steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_workflow__configs_it_names__exist_in_this_repository(path: Path) -> None:
    for step in _steps(_load(path.name)):
        for config in str(step.get("with", {}).get("config", "")).split():
            assert (REPO / config).is_file(), (
                f"{path.name} names {config}, which this repository does not have"
            )


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_workflow__installs_cairn_from_the_actions_own_source(path: Path) -> None:
    runs = " ".join(str(step.get("run", "")) for step in _steps(_load(path.name)))
    assert "pip install cairn-action" not in runs  # not published on any package index
    if "CAIRN_SOURCE" in runs:  # (a team's own `pip install -r requirements.txt` is not Cairn)
        source = _load(path.name)["env"]["CAIRN_SOURCE"]
        assert source == "git+https://github.com/owner/cairn@v1"  # the ref `uses:` pins


def test_example_workflows__one_placeholder_for_the_action() -> None:
    found = {m for p in EXAMPLES for m in re.findall(r"([\w-]+)/cairn@v1", p.read_text(encoding="utf-8"))}
    assert found == {"owner"}
    assert "`uses: owner/cairn@v1`" in (REPO / "README.md").read_text(encoding="utf-8")


def test_example_pr_workflow__label_events__only_override_labels_run_the_gate() -> None:
    job = _load("cairn-pr.yml")["jobs"]["gate"]
    assert "labeled" in _load("cairn-pr.yml")["on"]["pull_request"]["types"]
    condition = " ".join(job["if"].split())
    assert condition == (
        "(github.event.action != 'labeled' && github.event.action != 'unlabeled') "
        "|| startsWith(github.event.label.name, 'cairn-override')"
    )
    assert job["concurrency"]["cancel-in-progress"] is True
    assert "github.event.pull_request.number" in job["concurrency"]["group"]
    assert "concurrency" not in _load("cairn-pr.yml")  # workflow-level would let any label cancel a run


def test_example_shards_workflow__a_new_push_cancels_the_old_shards() -> None:
    assert _load("cairn-shards.yml")["concurrency"]["cancel-in-progress"] is True
