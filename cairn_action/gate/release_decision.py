"""The release gate: may this release be published, measured against the last stamped release?

Pure: the caller reads the report at the tag, the last stamp and the publisher's role; this decides and
builds the stamp the release will carry. Refused when the tag's commit was not evaluated with its own
config and golden set, or when any critical tag's recall fell below the last stamped release. A person
with write access or above can publish anyway by giving a reason, and the stamp keeps who and why.

Releases that measured different golden sets, corpora or splits are not comparable: the stamp says so
and nothing is refused on numbers that cannot be compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cairn_action.config import GateConfig
from cairn_action.errors import ExitCode
from cairn_action.gate.policy import policy_of
from cairn_action.report.models import OverrideRecord, Report
from cairn_action.report.stamp import PreviousStamp, Publication, Stamp, StampStatus, TagFigure, figures_of

_EPSILON = 1e-9
"""Recalls are k/n fractions of the same cases: anything below this is float noise, not a fall."""


@dataclass(frozen=True, kw_only=True)
class Evaluation:
    """The report at the release's tag, and what it ought to have measured (None: could not tell)."""

    report: Report | None
    report_path: str
    expected_config_hash: str | None = None
    """config_hash of the config file at the tag."""
    expected_golden_hash: str | None = None
    """sha256 of golden.jsonl at the tag."""
    expected_golden_version: str | None = None


@dataclass(frozen=True, kw_only=True)
class PreviousRelease:
    """The newest earlier release whose notes carry a comparable stamp."""

    release_tag: str
    url: str
    stamp: Stamp


@dataclass(frozen=True, kw_only=True)
class OverrideClaim:
    """Someone asked to publish over the gate: who, with what role, and why."""

    actor: str
    role: str
    allowed: bool
    """The role may publish over a regression (write, maintain, admin), as the GitHub side judged it."""
    reason: str
    at: str
    via: str


@dataclass(frozen=True, kw_only=True)
class ReleaseDecision:
    stamp: Stamp

    @property
    def status(self) -> StampStatus:
        return self.stamp.status

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.GATE_FAILED if self.status == "refused" else ExitCode.PASS


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


def not_evaluated(evaluation: Evaluation, release_tag: str) -> list[str]:
    """Why the report at the tag does not measure this release's system, one sentence each."""
    report, path = evaluation.report, evaluation.report_path
    if report is None:
        return [f"not evaluated: {path} does not exist at {release_tag}, so this commit was never evaluated"]
    reasons = []
    expected = evaluation.expected_config_hash
    if expected and report.config_hash != expected:
        reasons.append(
            f"not evaluated: {path} at {release_tag} measured config {report.config_hash}, but the config at "
            f"{release_tag} is {expected}: the system changed after its last evaluation"
        )
    golden_hash = evaluation.expected_golden_hash
    if golden_hash and report.notes.golden_hash and report.notes.golden_hash != golden_hash:
        reasons.append(
            f"not evaluated: {path} at {release_tag} measured golden set {report.notes.golden_hash[:12]}, "
            f"but golden.jsonl at {release_tag} is {golden_hash[:12]}: evaluate with the current golden set"
        )
    version = evaluation.expected_golden_version
    if version and report.golden_version != version:
        reasons.append(
            f"not evaluated: {path} at {release_tag} measured golden set version {report.golden_version}, "
            f"but the golden set at {release_tag} is version {version}"
        )
    return reasons


def incomparable(report: Report, previous: PreviousRelease) -> list[str]:
    """Why this report cannot be compared with the previous stamp (empty: it can)."""
    old, tag = previous.stamp, previous.release_tag
    reasons = []
    if old.golden_version != report.golden_version:
        reasons.append(f"golden set version {old.golden_version} in {tag}, {report.golden_version} now")
    elif old.golden_hash and report.notes.golden_hash and old.golden_hash != report.notes.golden_hash:
        reasons.append(
            f"golden set {old.golden_version} was edited without a version bump since {tag} "
            f"({old.golden_hash[:12]} then, {report.notes.golden_hash[:12]} now)"
        )
    if old.corpus_hash != report.corpus_hash:
        reasons.append(f"corpus {old.corpus_hash[:12]} in {tag}, {report.corpus_hash[:12]} now")
    if old.split and old.split != report.split:
        reasons.append(f"split {old.split} in {tag}, {report.split} now")
    return reasons


def critical_tags(report: Report | None, previous: PreviousRelease | None, source: str) -> list[str]:
    """The report's critical tags plus the last stamp's: a tag critical then stays compared, so a release
    cannot escape the gate by dropping a tag from its own config."""
    policy = policy_of(report, source=source) if report is not None else GateConfig()
    tags = list(policy.critical_tags)
    if previous is not None:
        tags += [t.tag for t in previous.stamp.critical]
    return list(dict.fromkeys(tags))


def tag_figures(
    report: Report, tags: Sequence[str], previous: PreviousRelease | None, comparable: bool
) -> list[TagFigure]:
    before = {t.tag: t for t in previous.stamp.critical} if previous is not None and comparable else {}
    figures = []
    for tag in tags:
        stats = report.by_tag.get(tag)
        recall = stats.correct_rate if stats is not None else None
        old = before.get(tag)
        prev = old.recall if old is not None else None
        fell = prev is not None and (recall is None or recall < prev - _EPSILON)
        figures.append(
            TagFigure(
                tag=tag,
                n=stats.n if stats is not None else 0,
                recall=recall,
                recall_at_5=stats.recall_at_5 if stats is not None else None,
                previous=prev,
                fell=fell,
            )
        )
    return figures


def _fell(figure: TagFigure, previous_tag: str) -> str:
    if figure.recall is None:
        return (
            f"critical tag '{figure.tag}' is no longer measured (recall {_share(figure.previous)} in "
            f"{previous_tag})"
        )
    return (
        f"critical tag '{figure.tag}': recall fell from {_share(figure.previous)} in {previous_tag} to "
        f"{_share(figure.recall)}"
    )


def decide_release(
    *,
    release_tag: str,
    config_name: str,
    evaluation: Evaluation,
    previous: PreviousRelease | None,
    overrides: Sequence[OverrideRecord],
    claim: OverrideClaim | None,
    report_url: str,
    stamped_at: str,
    notes: Sequence[str] = (),
) -> ReleaseDecision:
    """Decide the release and build its stamp. `notes` are carried into the stamp as they are."""
    report = evaluation.report
    extra = list(notes)
    refusals = not_evaluated(evaluation, release_tag)
    evaluated = not refusals
    fields: dict[str, Any] = {}
    comparable = False  # an unevaluated release has nothing to compare
    if evaluated:
        assert report is not None  # not_evaluated says so when it is None
        why_not = incomparable(report, previous) if previous is not None else []
        comparable = previous is not None and not why_not
        tags = critical_tags(report, previous, evaluation.report_path)
        critical = tag_figures(report, tags, previous, comparable)
        if previous is not None:
            refusals += [_fell(f, previous.release_tag) for f in critical if f.fell]
        fields = {
            "config_hash": report.config_hash,
            "golden_version": report.golden_version,
            "golden_hash": report.notes.golden_hash,
            "corpus_hash": report.corpus_hash,
            "split": report.split,
            "n_cases": report.n_cases,
            "report_created_at": report.created_at,
            "threshold_source": report.notes.threshold_source,
            "alpha": report.abstention.alpha,
            "guarantee_met": report.abstention.guarantee_met,
            "figures": figures_of(report),
            "critical": critical,
            "not_comparable": why_not,
        }
    if previous is not None:
        fields["previous"] = PreviousStamp(
            release_tag=previous.release_tag,
            url=previous.url,
            golden_version=previous.stamp.golden_version,
            corpus_hash=previous.stamp.corpus_hash,
            figures=previous.stamp.figures,
            comparable=comparable,
        )

    status: StampStatus = "stamped"
    published_over = None
    if refusals:
        status = "refused"
        if claim is not None and claim.allowed and claim.reason.strip():
            status = "published_over_regression"
            published_over = Publication(
                actor=claim.actor, role=claim.role, reason=claim.reason.strip(), at=claim.at, via=claim.via
            )
        elif claim is not None:
            extra.append(
                f"{claim.actor} (role {claim.role}) asked to publish over the gate, but only write, maintain "
                "or admin can publish over a regression"
                if not claim.allowed
                else f"{claim.actor} asked to publish over the gate without a reason; a reason is required"
            )
    elif claim is not None:
        extra.append(f"{claim.actor} gave an override reason, but nothing needed overriding")

    stamp = Stamp(
        status=status,
        release_tag=release_tag,
        config_name=config_name,
        stamped_at=stamped_at,
        evaluated=evaluated,
        report_path=evaluation.report_path,
        report_url=report_url if report is not None else "",
        reasons=refusals,
        overrides=list(overrides),
        published_over=published_over,
        notes=extra,
        **fields,
    )
    return ReleaseDecision(stamp=stamp)
