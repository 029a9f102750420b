"""The release gate end to end: real PyGithub over HTTP to the loopback fake GitHub, one repository with
tags, reports, overrides and releases per test."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.github_server import FakeGitHub
from release_builders import GOLDEN_V2, override, release_report
from release_repo import ReleaseRepo

from cairn_action.action.release import asset_names
from cairn_action.report.served import ServedStamp, describe_tool, load_served_stamp
from cairn_action.report.stamp import extract_stamp, section_pattern

pytestmark = pytest.mark.slow  # the release workflow end to end against the fake GitHub, per test

AUTHOR = "## What's new\n\n- Faster retrieval\n- Fixed the allergen answers\r\n\nThanks @contributor!\n"
V1_REPORT = release_report(created_at="2026-11-01T09:00:00Z")


@pytest.fixture
def repo(fake_github: FakeGitHub, tmp_path: Path) -> ReleaseRepo:
    fake_github.roles.update({"maintainer1": "maintain", "reader1": "read", "triager": "triage"})
    return ReleaseRepo(fake_github, tmp_path)


def load_served_stamp_bytes(data: bytes) -> ServedStamp:
    return ServedStamp.model_validate_json(data)


def _sections(body: object) -> int:
    assert isinstance(body, str)
    return len(section_pattern("default").findall(body))


def _stamped_v1(repo: ReleaseRepo) -> int:
    repo.tag("v1.0.0", V1_REPORT)
    rid = repo.release("v1.0.0", AUTHOR, at="2026-11-01T10:00:00Z")
    assert repo.run(release_id=rid).exit_code == 0
    return rid


def _patches(repo: ReleaseRepo, rid: int) -> list[dict[str, object]]:
    return [r.body for r in repo.fake.requests if r.method == "PATCH" and r.path.endswith(f"/releases/{rid}")]


def test_release__first_release__stamped_with_no_previous_stamp(repo: ReleaseRepo) -> None:
    rid = _stamped_v1(repo)
    body = repo.state(rid)["body"]
    assert isinstance(body, str) and body.startswith(AUTHOR)
    stamp = extract_stamp(body, "default")
    assert stamp is not None and stamp.status == "stamped" and stamp.previous is None
    assert "the first stamped release" in body
    assert repo.state(rid)["draft"] is False
    assert "release-status=stamped" in repo.runs[-1].outputs


def test_release__second_release_without_regression__stamped_with_deltas(repo: ReleaseRepo) -> None:
    _stamped_v1(repo)
    repo.tag("v1.1.0", release_report(created_at="2026-11-20T09:00:00Z", unanswerable=1.0))
    rid = repo.release("v1.1.0", "Second", at="2026-11-21T10:00:00Z")
    run = repo.run(release_id=rid)
    assert run.exit_code == 0
    stamp = extract_stamp(str(repo.state(rid)["body"]), "default")
    assert stamp is not None and stamp.previous is not None and stamp.previous.release_tag == "v1.0.0"
    assert "| unanswerable   | 3       | 100.0%   | 66.7%    | +33.3 pp |" in str(repo.state(rid)["body"])


def test_release__critical_recall_fell__back_to_draft_keeps_prerelease(repo: ReleaseRepo) -> None:
    _stamped_v1(repo)
    repo.tag("v1.1.0-rc1", release_report(created_at="2026-11-20T09:00:00Z", safety=0.75))
    rid = repo.release("v1.1.0-rc1", AUTHOR, at="2026-11-21T10:00:00Z", prerelease=True)
    run = repo.run(release_id=rid)
    assert run.exit_code == 1
    state = repo.state(rid)
    assert state["draft"] is True and state["prerelease"] is True
    assert _patches(repo, rid)[-1] == {
        "body": state["body"],
        "draft": True,
        "prerelease": True,
    }, "both flags sent explicitly, nothing else touched"
    body = str(state["body"])
    assert body.startswith(AUTHOR)
    assert "critical tag 'safety': recall fell from 100.0% in v1.0.0 to 75.0%" in body
    assert "::error title=Cairn release gate::release v1.1.0-rc1 (default) refused" in run.log
    assert "release-status=refused" in run.outputs


def test_release__republished_with_a_reason_by_a_maintainer__stamped_with_the_reason(
    repo: ReleaseRepo,
) -> None:
    _stamped_v1(repo)
    repo.tag("v1.1.0", release_report(created_at="2026-11-20T09:00:00Z", safety=0.75))
    rid = repo.release("v1.1.0", AUTHOR, at="2026-11-21T10:00:00Z", prerelease=True)
    assert repo.run(release_id=rid).exit_code == 1
    refused = str(repo.state(rid)["body"])
    notes = refused.replace(AUTHOR, AUTHOR + "\ncairn-override: the new allergen source, checked by hand\n")
    repo.publish(rid, notes, at="2026-11-22T10:00:00Z")

    run = repo.run(release_id=rid, actor="maintainer1")
    assert run.exit_code == 0
    state = repo.state(rid)
    assert state["draft"] is False and state["prerelease"] is True
    stamp = extract_stamp(str(state["body"]), "default")
    assert stamp is not None and stamp.status == "published_over_regression"
    assert stamp.published_over is not None
    assert (stamp.published_over.actor, stamp.published_over.role, stamp.published_over.reason) == (
        "maintainer1",
        "maintain",
        "the new allergen source, checked by hand",
    )
    assert "Reason: the new allergen source, checked by hand" in str(state["body"])
    assert _sections(state["body"]) == 1
    assert "::warning title=Cairn release gate::" in run.log


def test_release__republished_with_a_reason_by_a_read_only_user__still_refused(repo: ReleaseRepo) -> None:
    _stamped_v1(repo)
    repo.tag("v1.1.0", release_report(created_at="2026-11-20T09:00:00Z", safety=0.75))
    rid = repo.release("v1.1.0", AUTHOR + "\ncairn-override: trust me\n", at="2026-11-21T10:00:00Z")
    run = repo.run(release_id=rid, actor="reader1")
    assert run.exit_code == 1
    state = repo.state(rid)
    assert state["draft"] is True
    stamp = extract_stamp(str(state["body"]), "default")
    assert stamp is not None and stamp.status == "refused" and stamp.published_over is None
    assert "reader1 (role read) asked to publish over the gate" in str(state["body"])


def test_release__triage_role__cannot_publish_over_a_regression(repo: ReleaseRepo) -> None:
    _stamped_v1(repo)
    repo.tag("v1.1.0", release_report(created_at="2026-11-20T09:00:00Z", safety=0.75))
    rid = repo.release("v1.1.0", "cairn-override: labels are enough, surely", at="2026-11-21T10:00:00Z")
    assert repo.run(release_id=rid, actor="triager").exit_code == 1


def test_release__rerun__exactly_one_section_and_the_author_notes_untouched(repo: ReleaseRepo) -> None:
    rid = _stamped_v1(repo)
    first = str(repo.state(rid)["body"])
    assert repo.run(release_id=rid).exit_code == 0
    again = str(repo.state(rid)["body"])
    assert again == first, "same inputs, same notes: the rerun changes nothing"
    assert _sections(again) == 1 and again.startswith(AUTHOR)
    assert len(_patches(repo, rid)) == 1, "nothing to write the second time"
    uploads = [
        r for r in repo.fake.requests if r.method == "POST" and r.path.endswith(f"/releases/{rid}/assets")
    ]
    assert len(uploads) == 2, "the stamp's two assets are written once"
    assert sorted(repo.fake.asset_named(rid, n)["name"] for n in asset_names("default")) == [  # type: ignore[index]
        "cairn-stamp-default.json",
        "cairn-stamp-default.txt",
    ]


def test_release__stamp_asset_deleted_by_hand__the_rerun_puts_it_back(repo: ReleaseRepo) -> None:
    rid = _stamped_v1(repo)
    json_name, _ = asset_names("default")
    before = repo.fake.asset_named(rid, json_name)
    assert before is not None
    repo.fake.assets = {k: v for k, v in repo.fake.assets.items() if v["name"] != json_name}
    assert repo.run(release_id=rid).exit_code == 0
    again = repo.fake.asset_named(rid, json_name)
    assert again is not None and again["data"] == before["data"]
    assert load_served_stamp_bytes(again["data"]).release_tag == "v1.0.0"


def test_release__refused_draft_published_over__its_stamp_assets_replaced_not_doubled(
    repo: ReleaseRepo,
) -> None:
    _stamped_v1(repo)
    repo.tag("v1.1.0", release_report(created_at="2026-11-20T09:00:00Z", safety=0.5))
    rid = repo.release("v1.1.0", AUTHOR, at="2026-11-21T10:00:00Z")
    json_name, line_name = asset_names("default")
    # An earlier run's assets on the release (a stamp made before the report was replaced).
    repo.fake.assets[999] = {
        "release_id": rid,
        "name": json_name,
        "label": "",
        "content_type": "x",
        "data": b"{}",
    }
    assert repo.run(release_id=rid).exit_code == 1
    assert repo.fake.release_assets(rid) == [], "a refused draft carries no stamp to serve"
    assert "stamp=\n" in repo.runs[-1].outputs
    run = repo.run(tag="v1.1.0", actor="maintainer1", reason="hotfix", via="workflow_dispatch")
    assert run.exit_code == 0
    served = load_served_stamp_bytes(repo.fake.asset_named(rid, json_name)["data"])  # type: ignore[index]
    assert served.release_tag == "v1.1.0" and served.safety_recall == 0.5
    assert repo.fake.asset_named(rid, line_name)["data"].decode() == served.line() + "\n"  # type: ignore[index]
    assert len(repo.fake.release_assets(rid)) == 2


def test_release__golden_version_changed__stamp_says_not_comparable(repo: ReleaseRepo) -> None:
    _stamped_v1(repo)
    report = release_report(
        created_at="2026-11-20T09:00:00Z", safety=0.25, golden=GOLDEN_V2, golden_version="2"
    )
    repo.tag("v2.0.0", report, golden=GOLDEN_V2, version="2")
    rid = repo.release("v2.0.0", "Golden set v2", at="2026-11-21T10:00:00Z")
    assert repo.run(release_id=rid).exit_code == 0, "numbers that cannot be compared refuse nothing"
    body = str(repo.state(rid)["body"])
    assert "**Not comparable with [v1.0.0]" in body
    assert "golden set version 1 in v1.0.0, 2 now" in body


def test_release__overrides_merged_since_the_last_stamp__listed(repo: ReleaseRepo) -> None:
    before = override(3, "carol", "before v1", "2026-10-30T08:00:00Z")
    repo.merged(release_report(created_at="2026-10-30T09:00:00Z", overrides=(before,)))
    repo.merged(V1_REPORT)
    _stamped_v1(repo)
    first = override(12, "alice", "prompt rewrite", "2026-11-10T08:00:00Z", ("recall@5 fell 6 pp",))
    second = override(15, "bob", "judge flake on ret-006", "2026-11-12T08:00:00Z")
    late = override(20, "dave", "after the tag", "2026-11-25T08:00:00Z")
    repo.merged(release_report(created_at="2026-11-10T09:00:00Z", overrides=(first,)))
    repo.merged(release_report(created_at="2026-11-12T09:00:00Z", overrides=(second, first)))
    current = release_report(created_at="2026-11-20T09:00:00Z")
    repo.merged(current)
    repo.merged(release_report(created_at="2026-11-25T09:00:00Z", overrides=(late,)))
    repo.tag("v1.1.0", current)
    rid = repo.release("v1.1.0", "Notes", at="2026-11-26T10:00:00Z")
    assert repo.run(release_id=rid).exit_code == 0
    stamp = extract_stamp(str(repo.state(rid)["body"]), "default")
    assert stamp is not None and [(o.pr, o.actor, o.reason) for o in stamp.overrides] == [
        (12, "alice", "prompt rewrite"),
        (15, "bob", "judge flake on ret-006"),
    ]
    assert "**Overrides merged since [v1.0.0]" in str(repo.state(rid)["body"])


def test_release__tag_never_evaluated__refused_as_not_evaluated(repo: ReleaseRepo) -> None:
    _stamped_v1(repo)
    repo.tag("v1.1.0", None)
    rid = repo.release("v1.1.0", AUTHOR, at="2026-11-21T10:00:00Z")
    assert repo.run(release_id=rid).exit_code == 1
    state = repo.state(rid)
    assert state["draft"] is True
    assert "reports/latest/default.json does not exist at v1.1.0" in str(state["body"])


def test_release__dispatch_with_a_reason_on_the_refused_draft__published_over_it(repo: ReleaseRepo) -> None:
    _stamped_v1(repo)
    repo.tag("v1.1.0", release_report(created_at="2026-11-20T09:00:00Z", safety=0.5))
    rid = repo.release("v1.1.0", AUTHOR, at="2026-11-21T10:00:00Z", prerelease=True)
    assert repo.run(release_id=rid).exit_code == 1
    run = repo.run(
        tag="v1.1.0", actor="maintainer1", reason="hotfix for a data leak", via="workflow_dispatch"
    )
    assert run.exit_code == 0
    state = repo.state(rid)
    assert state["draft"] is False and state["prerelease"] is True, "dispatch publishes; prerelease kept"
    stamp = extract_stamp(str(state["body"]), "default")
    assert stamp is not None and stamp.published_over is not None
    assert stamp.published_over.via == "workflow_dispatch"
    tag_lookups = [r.path for r in repo.fake.requests if "/releases/tags/" in r.path]
    assert tag_lookups == [], "a draft is not found by tag: the list is searched instead"


def test_release__previous_stamp_unreadable__passed_over_with_a_note(repo: ReleaseRepo) -> None:
    rid1 = _stamped_v1(repo)
    body = str(repo.state(rid1)["body"])
    repo.fake.releases[rid1]["body"] = body.replace('"evaluated":true', '"evaluated":"perhaps"')
    repo.tag("v1.1.0", release_report(created_at="2026-11-20T09:00:00Z", safety=0.5))
    rid = repo.release("v1.1.0", "Notes", at="2026-11-21T10:00:00Z")
    assert repo.run(release_id=rid).exit_code == 0
    stamp = extract_stamp(str(repo.state(rid)["body"]), "default")
    assert stamp is not None and stamp.previous is None
    assert stamp.notes and stamp.notes[0].startswith(
        "release v1.0.0 was passed over: its stamp data is malformed"
    )


def test_release__later_release_exists__not_taken_as_the_previous_one(repo: ReleaseRepo) -> None:
    rid1 = _stamped_v1(repo)
    repo.tag("v1.1.0", release_report(created_at="2026-11-20T09:00:00Z", safety=0.5))
    rid2 = repo.release("v1.1.0", "Later", at="2026-11-21T10:00:00Z")
    repo.run(release_id=rid2, reason="accepted", actor="maintainer1")
    assert repo.run(release_id=rid1).exit_code == 0
    stamp = extract_stamp(str(repo.state(rid1)["body"]), "default")
    assert stamp is not None and stamp.previous is None, "v1.0.0 is compared with what came before it"


def test_release__unknown_tag__one_line_error(repo: ReleaseRepo) -> None:
    from cairn_action.errors import CairnError

    with pytest.raises(CairnError, match=r"no release with tag 'v9\.9\.9'"):
        repo.run(tag="v9.9.9")


def test_release__stamped__the_json_asset_is_what_a_server_puts_in_its_tool_description(
    repo: ReleaseRepo, tmp_path: Path
) -> None:
    rid = _stamped_v1(repo)
    json_name, line_name = asset_names("default")
    downloaded = tmp_path / json_name  # `gh release download v1.0.0 --pattern cairn-stamp-default.json`
    downloaded.write_bytes(repo.fake.asset_named(rid, json_name)["data"])  # type: ignore[index]
    tool = describe_tool(
        {"name": "ask_handbook", "description": "Answers HR questions.", "inputSchema": {}},
        load_served_stamp(downloaded),
    )
    line = repo.fake.asset_named(rid, line_name)["data"].decode().rstrip("\n")  # type: ignore[index]
    assert line.startswith("Accuracy (Cairn): v1.0.0: golden 1 (")
    assert tool["description"] == f"Answers HR questions.\n\n{line}"
