"""A repository on the loopback fake GitHub for the release gate's tests: tags holding a config, a golden
set and a report, kept reports on main with their overrides, releases; and one call that runs the release
stamp against it with real PyGithub over HTTP."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

from fakes.github_server import FakeGitHub
from release_builders import CONFIG_TOML, GOLDEN_V1

from cairn_action.action.release import ReleaseRequest, run_release
from cairn_action.gh.pygithub_gateway import PyGithubGateway, connect
from cairn_action.gh.workflow import Workflow
from cairn_action.report.io import dumps, timestamp_slug
from cairn_action.report.models import Report

NOW = "2026-11-30T12:00:00Z"
SERVER = "https://github.example"


@dataclass
class Run:
    exit_code: int
    log: str
    outputs: str
    summary: str


@dataclass
class ReleaseRepo:
    fake: FakeGitHub
    tmp: Path
    runs: list[Run] = field(default_factory=list)

    def tag(
        self,
        tag: str,
        report: Report | None,
        *,
        golden: bytes = GOLDEN_V1,
        version: str = "1",
        config: str = CONFIG_TOML,
    ) -> None:
        """The files at `tag`: the config, the golden set it names and (unless None) the latest report."""
        self.fake.put_file(tag, "cairn.toml", config)
        self.fake.put_file(tag, "golden/golden.jsonl", golden)
        self.fake.put_file(tag, "golden/golden.version", version + "\n")
        if report is not None:
            self.fake.put_file(tag, "reports/latest/default.json", dumps(report))

    def merged(self, report: Report) -> None:
        """A kept report on main, as the baseline mode commits it after a merge."""
        self.fake.put_file("main", f"reports/default-{timestamp_slug(report.created_at)}.json", dumps(report))
        self.fake.put_file("main", "reports/latest/default.json", dumps(report))

    def release(self, tag: str, body: str, *, at: str, prerelease: bool = False, draft: bool = False) -> int:
        return self.fake.add_release(tag, body, created_at=at, prerelease=prerelease, draft=draft)

    def state(self, rid: int) -> dict[str, object]:
        return self.fake.releases[rid]

    def publish(self, rid: int, body: str, *, at: str) -> None:
        """A person publishes the (drafted) release again, with these notes."""
        rel = self.fake.releases[rid]
        rel.update(body=body, draft=False, published_at=at)

    def run(
        self,
        *,
        release_id: int | None = None,
        tag: str | None = None,
        actor: str = "maintainer1",
        reason: str | None = None,
        via: str = "release notes",
    ) -> Run:
        request = ReleaseRequest(
            repository=self.fake.full_name,
            server_url=SERVER,
            release_id=release_id,
            tag=tag,
            actor=actor,
            reason=reason,
            via=via,
            default_branch="main",
        )
        n = len(self.runs)
        out, summary = self.tmp / f"out-{n}", self.tmp / f"summary-{n}"
        stream = io.StringIO()
        workflow = Workflow(stream, output_file=out, summary_file=summary)
        gateway = PyGithubGateway(
            connect("t0k3n", self.fake.url, throttle=False), self.fake.full_name, sleep=lambda _: None
        )
        code = run_release(request, gateway=gateway, workflow=workflow, now=lambda: NOW)
        run = Run(
            exit_code=code,
            log=stream.getvalue(),
            outputs=out.read_text() if out.exists() else "",
            summary=summary.read_text() if summary.exists() else "",
        )
        self.runs.append(run)
        return run
