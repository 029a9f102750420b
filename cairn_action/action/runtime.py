"""What every mode of the Action is handed (the collaborators), and what each config's gate produced.

`action.main` builds a `Runtime` from the environment; tests build one around the loopback fake. The
modes (`pr_mode`, `refresh`, `comment_stage`) take it and return one `ConfigResult` per config, which
`publish` turns into the step's outputs.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Protocol

from cairn_action.action.handoff import RESULTS_DIR, Verdict
from cairn_action.action.trust import Trusted
from cairn_action.config import LoadedConfig, load_config
from cairn_action.errors import CairnError, ConfigError
from cairn_action.gh.context import ActionContext, PullRequestEvent
from cairn_action.gh.gateway import GitHubGateway
from cairn_action.gh.inputs import ActionConfig
from cairn_action.gh.workflow import Workflow
from cairn_action.report.leaderboard import primary_metric
from cairn_action.report.models import Report
from cairn_action.score.metrics import get_metric


class Evaluate(Protocol):
    """Evaluate one config; with the base branch's baseline report, the run confirms what changed.
    `trusted`: the config whose judge judges and whose endpoints may receive secrets (action/trust.py)."""

    def __call__(self, loaded: LoadedConfig, baseline: Path | None = None, *, trusted: Trusted) -> Report: ...


"""Runs and scores one config in the working directory, returning its report."""
AttackRun = Callable[[LoadedConfig], Path]
"""Runs `cairn attack` for one config (input `attack: true`), returning the attack report's path."""


class ControlRun(Protocol):
    """Re-ask the base system (or, failing that, the drift probe of the candidate) for one config; the
    control report, or None when nothing needs one (no changed case, or a deterministic system)."""

    def __call__(
        self,
        loaded: LoadedConfig,
        baseline: Report,
        candidate: Report,
        *,
        trusted: Trusted,
        base_data: bytes | None,
        seed: str,
        base_sha: str | None = None,
    ) -> Report | None: ...


OUTPUT_METRICS = ("recall_at_5", "token_f1", "judge_score", "answer_rate", "error_rate_answered")
"""Metrics published as step outputs (named with hyphens: `token-f1`)."""
_SEVERITY: dict[str, int] = {
    "pass": 0,
    "no-baseline": 1,
    "overridden": 2,
    "incomplete": 3,
    "regression": 4,
    "refused": 5,
}


@dataclass(frozen=True, kw_only=True)
class Runtime:
    inputs: ActionConfig
    context: ActionContext
    gateway: GitHubGateway
    workflow: Workflow
    evaluate: Evaluate
    now: Callable[[], datetime]
    workdir: Path
    """GITHUB_WORKSPACE joined with `working-directory`."""
    attack: AttackRun | None = None
    """Set when the `attack` input is true (PR mode adds the attack section to the comment)."""
    control: ControlRun | None = None
    """Set in PR mode: the contemporaneous control (action/control.py)."""

    @property
    def results_dir(self) -> Path:
        return self.context.workspace / RESULTS_DIR

    def can_write(self, pull: PullRequestEvent) -> bool:
        """The token may comment and set statuses: a same-repository pull request's run, or a run in the
        base repository started by `workflow_run` (a fork's `pull_request` run gets a read-only token)."""
        return not pull.is_fork or self.context.event_name == "workflow_run"

    def repo_path(self, relative: str) -> str:
        """`relative` (to the working directory) as a path from the repository root, for the API."""
        joined = posixpath.normpath(posixpath.join(self.inputs.working_directory, relative))
        return joined.removeprefix("./")

    def display(self, path: Path) -> str:
        """A path as the workflow sees it: relative to GITHUB_WORKSPACE (the container's paths differ
        from the runner's, so an absolute path would mean nothing to the next step)."""
        try:
            return path.resolve().relative_to(self.context.workspace.resolve()).as_posix()
        except ValueError:
            return str(path)


@dataclass(frozen=True, kw_only=True)
class ConfigResult:
    config_name: str
    verdict: Verdict
    exit_code: int
    headline: str
    report_path: str = ""
    comment_path: str = ""
    comment_url: str = ""
    metrics: Mapping[str, float | None] = field(default_factory=dict)
    primary_metric: str = ""
    override: str = ""
    """The applied override record as JSON, or ''."""
    explorer_path: str = ""
    """The case explorer page (HTML), relative to the workspace; '' when none was written."""

    @classmethod
    def of(
        cls, report: Report, *, verdict: Verdict, exit_code: int, headline: str, **paths: str
    ) -> ConfigResult:
        """The result for `report`, its metrics filled in; `paths`: report_path, comment_path, ..."""
        return cls(
            config_name=report.config_name,
            verdict=verdict,
            exit_code=exit_code,
            headline=headline,
            metrics=metric_values(report),
            primary_metric=primary_of(report),
            **paths,
        )


def resolve_workdir(workspace: Path, working_directory: str) -> Path:
    """The working directory, which must stay inside the workspace."""
    root = workspace.resolve()
    path = (root / working_directory).resolve()
    if path != root and root not in path.parents:
        raise CairnError(
            f"input 'working-directory': {working_directory} is outside the workspace",
            "give a folder inside the checkout, relative to it",
        )
    if not path.is_dir():
        raise CairnError(
            f"input 'working-directory': {working_directory} is not a folder in the checkout",
            "check the path, relative to the repository root",
        )
    return path


def load_configs(inputs: ActionConfig, workdir: Path) -> list[LoadedConfig]:
    """Each named config; the default `cairn.toml` missing means the embedded default config."""
    loaded: list[LoadedConfig] = []
    for name in inputs.config:
        path = workdir / name
        if inputs.config_is_default and not path.is_file():
            loaded.append(load_config(None, cwd=workdir))
        else:
            loaded.append(load_config(path, cwd=workdir))
    names = [c.config.name for c in loaded]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(
            f"input 'config': two configs are named {duplicates[0]}",
            "each config needs its own `name`: reports and comments are keyed by it",
        )
    return loaded


def metric_values(report: Report) -> dict[str, float | None]:
    return {name: get_metric(name).read(report) for name in OUTPUT_METRICS}


def primary_of(report: Report) -> str:
    """The leaderboard's primary metric for this report (the judge's grade when it has one)."""
    return primary_metric([report]).name


def overall(results: Sequence[ConfigResult]) -> ConfigResult:
    """The result that decides the step: the most severe verdict (a refusal, then a regression)."""
    return max(results, key=lambda r: (r.exit_code, _SEVERITY[r.verdict]))


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def publish(workflow: Workflow, results: Sequence[ConfigResult]) -> int:
    """Write the step outputs (the first config's values; all of them in `results`); the exit code."""
    if not results:
        return 0
    worst, first = overall(results), results[0]
    workflow.set_output("verdict", worst.verdict)
    workflow.set_output("report-path", first.report_path)
    workflow.set_output("comment-path", first.comment_path)
    workflow.set_output("comment-url", first.comment_url)
    workflow.set_output("explorer-path", first.explorer_path)
    workflow.set_output("primary-metric", first.primary_metric)
    workflow.set_output("primary-value", _number(first.metrics.get(first.primary_metric)))
    for name in OUTPUT_METRICS:
        workflow.set_output(name.replace("_", "-"), _number(first.metrics.get(name)))
    workflow.set_output("override", next((r.override for r in results if r.override), ""))
    workflow.set_output(
        "results",
        json.dumps(
            [
                {
                    "config": r.config_name,
                    "verdict": r.verdict,
                    "exit_code": r.exit_code,
                    "headline": r.headline,
                    "report_path": r.report_path,
                    "comment_path": r.comment_path,
                    "comment_url": r.comment_url,
                    "explorer_path": r.explorer_path,
                    "primary_metric": r.primary_metric,
                    "metrics": dict(r.metrics),
                }
                for r in results
            ],
            sort_keys=True,
        ),
    )
    return worst.exit_code
