"""`mode: release` of the Action, end to end: the real entrypoint (`python -P -m cairn_action action`) in a
simulated runner (event file, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY), against the loopback fake GitHub."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fakes.github_server import FakeGitHub
from release_builders import release_report
from release_repo import ReleaseRepo

from cairn_action.action.release import asset_names
from cairn_action.report.served import ServedStamp
from cairn_action.report.stamp import extract_stamp

TAG_SHA = "5f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6"
pytestmark = pytest.mark.slow  # a subprocess each, with the Action's real request pacing


@dataclass
class Ran:
    code: int
    stdout: str
    outputs: str
    summary: str


def _action(fake: FakeGitHub, tmp: Path, event_name: str, payload: dict[str, Any], mode: str = "auto") -> Ran:
    workspace, files = tmp / "workspace", tmp / "files"
    workspace.mkdir(exist_ok=True)
    files.mkdir(exist_ok=True)
    event = files / "event.json"
    event.write_text(json.dumps(payload))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp),
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": fake.full_name,
        "GITHUB_API_URL": fake.url,
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(files / "output"),
        "GITHUB_STEP_SUMMARY": str(files / "summary"),
        "GITHUB_RUN_ID": "42",
        "GITHUB_SHA": TAG_SHA,
        "INPUT_GITHUB-TOKEN": "t0k3n",
        "INPUT_MODE": mode,
    }
    done = subprocess.run(
        [sys.executable, "-P", "-m", "cairn_action", "action"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return Ran(done.returncode, done.stdout + done.stderr, _read(files / "output"), _read(files / "summary"))


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else ""


def _repository(payload: dict[str, Any]) -> dict[str, Any]:
    return {**payload, "repository": {"full_name": "acme/rag", "default_branch": "main"}}


@pytest.fixture
def repo(fake_github: FakeGitHub, tmp_path: Path) -> ReleaseRepo:
    fake_github.roles.update({"maintainer1": "maintain", "reader1": "read"})
    repo = ReleaseRepo(fake_github, tmp_path)
    repo.tag("v1.0.0", release_report(created_at="2026-11-01T09:00:00Z"))
    repo.tag("v1.1.0", release_report(created_at="2026-11-20T09:00:00Z", safety=0.5))
    return repo


def _published(rid: int, tag: str, sender: str) -> dict[str, Any]:
    release = {"id": rid, "tag_name": tag, "draft": False, "prerelease": False, "body": ""}
    return _repository({"action": "published", "release": release, "sender": {"login": sender}})


def test_release_action__published_then_regressed__stamped_then_refused(
    repo: ReleaseRepo, tmp_path: Path
) -> None:
    rid1 = repo.release("v1.0.0", "First", at="2026-11-01T10:00:00Z")
    first = _action(repo.fake, tmp_path, "release", _published(rid1, "v1.0.0", "maintainer1"))
    assert first.code == 0, first.stdout
    assert "release-status=stamped" in first.outputs
    assert "### Accuracy (Cairn): default" in first.summary
    assert extract_stamp(str(repo.state(rid1)["body"]), "default") is not None

    rid2 = repo.release("v1.1.0", "Second", at="2026-11-21T10:00:00Z", prerelease=True)
    second = _action(repo.fake, tmp_path, "release", _published(rid2, "v1.1.0", "reader1"))
    assert second.code == 1, second.stdout
    assert "::error title=Cairn release gate::release v1.1.0 (default) refused" in second.stdout
    assert repo.state(rid2)["draft"] is True and repo.state(rid2)["prerelease"] is True


def test_release_action__dispatch_with_a_reason__publishes_the_refused_draft(
    repo: ReleaseRepo, tmp_path: Path
) -> None:
    repo.release("v1.0.0", "First", at="2026-11-01T10:00:00Z")
    assert repo.run(tag="v1.0.0").exit_code == 0
    rid = repo.release("v1.1.0", "Second", at="2026-11-21T10:00:00Z", draft=True)
    payload = _repository(
        {
            "inputs": {"tag": "v1.1.0", "reason": "accepted: new safety cases"},
            "sender": {"login": "maintainer1"},
        }
    )
    ran = _action(repo.fake, tmp_path, "workflow_dispatch", payload, mode="release")
    assert ran.code == 0, ran.stdout
    assert repo.state(rid)["draft"] is False
    stamp = extract_stamp(str(repo.state(rid)["body"]), "default")
    assert stamp is not None and stamp.published_over is not None
    assert (stamp.published_over.actor, stamp.published_over.via) == ("maintainer1", "workflow_dispatch")


def test_release_action__dispatch_without_a_tag__exit_2(repo: ReleaseRepo, tmp_path: Path) -> None:
    payload = _repository({"inputs": {}, "sender": {"login": "maintainer1"}})
    ran = _action(repo.fake, tmp_path, "workflow_dispatch", payload, mode="release")
    assert ran.code == 2
    assert "::error title=Cairn::workflow_dispatch: the `tag` input is empty" in ran.stdout


def _outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT's `name=value` lines (the one-line values Cairn writes)."""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_release_action__stamped_then_refused__the_stamp_travels_as_assets_and_outputs_only_when_stamped(
    repo: ReleaseRepo, tmp_path: Path
) -> None:
    rid1 = repo.release("v1.0.0", "First", at="2026-11-01T10:00:00Z")
    first = _action(repo.fake, tmp_path, "release", _published(rid1, "v1.0.0", "maintainer1"))
    assert first.code == 0, first.stdout
    json_name, line_name = asset_names("default")
    asset = repo.fake.asset_named(rid1, json_name)
    line = repo.fake.asset_named(rid1, line_name)
    assert asset is not None and line is not None, repo.fake.assets
    served = ServedStamp.model_validate_json(asset["data"])
    assert asset["content_type"] == "application/json"
    assert (served.release_tag, served.golden_version, served.commit) == ("v1.0.0", "1", TAG_SHA)
    assert served.safety_recall is not None and served.answer_rate is not None
    assert line["data"].decode() == served.line() + "\n"
    outputs = _outputs(first.outputs)
    assert outputs["stamp"] == served.line()
    assert ServedStamp.model_validate_json(outputs["stamp-json"]) == served

    rid2 = repo.release("v1.1.0", "Second", at="2026-11-21T10:00:00Z")
    second = _action(repo.fake, tmp_path, "release", _published(rid2, "v1.1.0", "reader1"))
    assert second.code == 1, second.stdout
    assert repo.fake.release_assets(rid2) == []  # a refused release carries no stamp to serve
    assert _outputs(second.outputs)["stamp"] == "" and _outputs(second.outputs)["stamp-json"] == ""
