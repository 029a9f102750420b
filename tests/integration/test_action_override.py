"""Audited overrides, end to end: reason labels, roles from the API, the comment form, stale overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from action_sim import PR, WORSE_CONFIG, Sim, Template, new_sim
from fakes.github_server import FakeGitHub

from cairn_action.action.override import read_record

pytestmark = pytest.mark.slow

REASON_LABEL = "cairn-override: prompt rewrite, judged by hand"


@pytest.fixture
def sim(template: Template, tmp_path: Path, fake_github: FakeGitHub) -> Sim:
    sim = new_sim(template, tmp_path, fake_github)
    fake_github.roles.update({"maint": "maintain", "helper": "triage", "admin1": "admin"})
    head = sim.commit({"cairn.toml": WORSE_CONFIG}, "retrieve one chunk")
    sim.open_pull(head)
    return sim


def test_action__labeled__reason_label_by_maintainer__passes_and_is_recorded(sim: Sim) -> None:
    sim.fake.add_label(PR, REASON_LABEL, "maint", at="2026-11-30T11:00:00Z")

    # The payload's sender is not trusted for who applied the label: the events API is.
    result = sim.run("pull_request", sim.pr_event("labeled", sender="someone-else", label=REASON_LABEL))

    assert result.code == 0, result.stdout + result.stderr
    assert result.outputs["verdict"] == "overridden"
    head = sim.fake.pulls[PR]["head"]["sha"]
    [comment] = sim.sticky()
    body = comment["body"]
    assert "Overridden by maint" in body and "prompt rewrite, judged by hand" in body
    assert "2026-11-30T11:00:00Z" in body and head in body
    record = read_record(body)
    assert record is not None
    assert (record.actor, record.label, record.head_sha, record.pr) == ("maint", REASON_LABEL, head, PR)
    assert record.overrode and all(isinstance(r, str) for r in record.overrode)
    assert "Overridden by maint" in result.summary
    assert json.loads(result.outputs["override"])["actor"] == "maint"
    report = json.loads((sim.workspace / result.outputs["report-path"]).read_text(encoding="utf-8"))
    assert report["notes"]["overrides"][0]["reason"] == "prompt rewrite, judged by hand"
    assert any(r.path == "/repos/acme/rag/collaborators/maint/permission" for r in sim.fake.requests)
    assert sim.secrets_in_files() == []


def test_action__labeled__same_label_by_triage_user__ignored(sim: Sim) -> None:
    sim.fake.add_label(PR, REASON_LABEL, "helper")

    result = sim.run("pull_request", sim.pr_event("labeled", sender="helper", label=REASON_LABEL))

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    [comment] = sim.sticky()
    assert "applied by helper does not override: their role is triage" in comment["body"]
    assert "only write, maintain or admin can override" in comment["body"]
    assert read_record(comment["body"]) is None


def test_action__labeled__bare_label__explained(sim: Sim) -> None:
    sim.fake.add_label(PR, "cairn-override", "maint")

    result = sim.run("pull_request", sim.pr_event("labeled", sender="maint", label="cairn-override"))

    assert result.code == 1, result.stdout + result.stderr
    [comment] = sim.sticky()
    assert "does not override: it carries no reason" in comment["body"]
    assert (
        "/cairn-override &lt;reason&gt;" in comment["body"] or "/cairn-override <reason>" in comment["body"]
    )


def test_action__labeled__bare_label_with_reason_comment__passes(sim: Sim) -> None:
    sim.fake.add_comment(
        PR,
        "/cairn-override the judge is wrong on these three, checked by hand",
        "maint",
        at="2026-11-30T10:58:00Z",
    )
    sim.fake.add_comment(PR, "/cairn-override let me through", "contributor", at="2026-11-30T10:59:00Z")
    sim.fake.add_label(PR, "cairn-override", "maint", at="2026-11-30T11:00:00Z")

    result = sim.run("pull_request", sim.pr_event("labeled", sender="maint", label="cairn-override"))

    assert result.code == 0, result.stdout + result.stderr
    record = read_record(sim.sticky()[0]["body"])
    assert record is not None
    assert record.reason == "the judge is wrong on these three, checked by hand"
    assert record.label == "cairn-override" and record.actor == "maint"


def test_action__synchronize__stale_override__label_removed(sim: Sim) -> None:
    sim.fake.add_label(PR, REASON_LABEL, "maint", at="2026-11-30T11:00:00Z")
    first = sim.run("pull_request", sim.pr_event("labeled", sender="maint", label=REASON_LABEL))
    assert first.code == 0, first.stdout + first.stderr
    old_head = sim.fake.pulls[PR]["head"]["sha"]

    new_head = sim.commit({"README.md": "more changes\n"}, "more changes")
    sim.fake.pulls[PR]["head"]["sha"] = new_head
    second = sim.run("pull_request", sim.pr_event("synchronize", sender="contributor"))

    assert second.code == 1, second.stdout + second.stderr
    assert second.outputs["verdict"] == "regression"
    assert REASON_LABEL not in sim.fake.labels[PR]
    assert sim.fake.events[PR][-1]["event"] == "unlabeled"
    [sticky] = sim.sticky()
    assert read_record(sticky["body"]) is None
    assert f"was given for commit {old_head[:7]}" in sticky["body"]
    removal = [c for c in sim.comments() if c["id"] != sticky["id"]]
    assert len(removal) == 1
    assert "removed an override label" in removal[0]["body"]
    assert "covers only the commit it was given for" in removal[0]["body"]


def test_action__labeled__override_on_refused_comparison__not_applied(sim: Sim) -> None:
    # A pull request that changes the corpus cannot be compared with the baseline; no label passes it.
    head = sim.commit({"corpus/extra.md": "# Extra\n\nA new document.\n"}, "add a document")
    sim.fake.pulls[PR]["head"]["sha"] = head
    sim.fake.add_label(PR, REASON_LABEL, "admin1")

    result = sim.run("pull_request", sim.pr_event("labeled", sender="admin1", label=REASON_LABEL))

    assert result.code == 2, result.stdout + result.stderr
    assert result.outputs["verdict"] == "refused"
    assert "an override cannot pass a comparison that was refused" in sim.sticky()[0]["body"]
