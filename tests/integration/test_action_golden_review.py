"""The Action's comment lists the critical golden cases a pull request adds or changes, with who confirmed
each; a confirmation by the pull request's own author does not count (the fake GitHub, the real Action)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from action_sim import CONFIG, LATEST, Sim, Template, build_template, new_sim
from fakes.github_server import FakeGitHub

# Action simulations (10 to 15 s each, one shared repository to set up), as the other test_action_* modules.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Template:
    return build_template(tmp_path_factory.mktemp("golden-review"))


@pytest.fixture
def sim(template: Template, tmp_path: Path, fake_github: FakeGitHub) -> Sim:
    return new_sim(template, tmp_path, fake_github)


def _base_cases(sim: Sim) -> list[dict[str, Any]]:
    """The golden set's cases, with the base commit seeded so the contents API knows the base's set."""
    path = sim.workspace / "golden" / "golden.jsonl"
    base = {
        LATEST: sim.template.baseline,
        "cairn.toml": CONFIG.encode(),
        "golden/golden.jsonl": path.read_bytes(),
    }
    sim.fake.seed_commit(base, sha=sim.base_sha, branch="main")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_action__pull_request_adds_and_relabels_safety_cases__listed_with_their_confirmation(
    sim: Sim,
) -> None:
    cases = _base_cases(sim)
    relabelled = next(c for c in cases if "safety" in c["tags"])
    relabelled.update(expected_answer="5 hours", annotator="maintainer", confirmed_by="contributor")
    added = dict(relabelled, id="saf-new", annotator="contributor", confirmed_by="@reviewer <b>")
    text = "".join(json.dumps(c) + "\n" for c in [*cases, added])
    head = sim.commit({"golden/golden.jsonl": text}, "relabel a safety case, add one")
    sim.open_pull(head)

    result = sim.run("pull_request", sim.pr_event("opened"))

    [sticky] = sim.sticky()
    body = sticky["body"]
    start = body.index("This pull request adds or changes critical golden cases")
    block = body[start:].split("\n\n", 1)[0]
    assert (
        f"`{relabelled['id']}` changed: confirmed by contributor, the pull request's author: "
        "**does not count**" in block
    )
    assert "`saf-new` added: confirmed by" in block
    assert "@reviewer" not in block and "<b>" not in block  # escaped: no mention, no markup
    assert result.code in (0, 1, 2)


def test_action__golden_set_untouched__no_critical_listing(sim: Sim) -> None:
    head = sim.commit({"README.md": "docs\n"}, "docs only")
    sim.open_pull(head)
    sim.run("pull_request", sim.pr_event("opened"))
    [sticky] = sim.sticky()
    assert "adds or changes critical golden cases" not in sticky["body"]


def test_action__safety_case_confirmed_only_by_the_pull_requests_author__left_out_of_its_scores(
    sim: Sim,
) -> None:
    cases = _base_cases(sim)
    scored = {row["case_id"] for row in json.loads(sim.template.baseline)["per_case"]}  # the eval split
    own, other = [c for c in cases if "safety" in c["tags"] and c["id"] in scored][:2]
    # The pull request's author writes a confirmation in their own name, and one in a colleague's.
    own.update(confirmed_by="Contributor")
    other.update(confirmed_by="reviewer")
    text = "".join(json.dumps(c) + "\n" for c in cases)
    sim.open_pull(sim.commit({"golden/golden.jsonl": text}, "confirm two safety cases"))

    result = sim.run("pull_request", sim.pr_event("opened"))

    report = json.loads((sim.workspace / result.outputs["report-path"]).read_text(encoding="utf-8"))
    rows = {row["case_id"]: row for row in report["per_case"]}
    assert rows[own["id"]]["status"] == "stale"
    assert "only confirmation is by the pull request's own author" in rows[own["id"]]["error"]
    assert rows[other["id"]]["status"] != "stale", "a colleague's confirmation counts"
    assert report["n_cases"] == sum(row["status"] != "stale" for row in rows.values())
    [sticky] = sim.sticky()
    assert (
        f"`{own['id']}` confirmed: confirmed by Contributor, the pull request's author: **does not count**; "
        "left out of this pull request's scores" in sticky["body"]
    )
    assert f"`{other['id']}` confirmed: confirmed by reviewer (check that this person did)" in sticky["body"]
    assert f"critical case {own['id']} is confirmed only by the pull request's author" in result.stdout
