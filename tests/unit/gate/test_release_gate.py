"""The release decision, pure: stamped, refused (not evaluated, critical recall fell), published over a
regression by someone allowed to, not comparable across golden sets and corpora."""

from __future__ import annotations

from release_builders import (
    CONFIG_TOML,
    GOLDEN_V2,
    REPORT_PATH,
    override_claim,
    previous_release,
    release_decision,
    release_evaluation,
    release_report,
)

from cairn_action.errors import ExitCode


def test_release__first_release__stamped_without_deltas() -> None:
    decision = release_decision(release_report())
    assert decision.status == "stamped" and decision.exit_code == ExitCode.PASS
    assert decision.stamp.previous is None and decision.stamp.evaluated
    assert [t.tag for t in decision.stamp.critical] == ["safety", "unanswerable", "false_premise"]
    assert all(t.previous is None and not t.fell for t in decision.stamp.critical)


def test_release__no_regression__stamped_with_the_previous_values() -> None:
    decision = release_decision(release_report(unanswerable=1.0), previous_release(release_report()))
    assert decision.status == "stamped"
    unanswerable = next(t for t in decision.stamp.critical if t.tag == "unanswerable")
    assert unanswerable.previous is not None and abs(unanswerable.previous - 2 / 3) < 1e-12
    assert decision.stamp.previous is not None and decision.stamp.previous.comparable


def test_release__critical_recall_fell__refused_with_the_reason() -> None:
    decision = release_decision(release_report(safety=0.75), previous_release(release_report()))
    assert decision.status == "refused" and decision.exit_code == ExitCode.GATE_FAILED
    assert decision.stamp.reasons == ["critical tag 'safety': recall fell from 100.0% in v1.0.0 to 75.0%"]


def test_release__other_metrics_fell__not_refused() -> None:
    decision = release_decision(
        release_report(token_f1=0.2, answer_rate=0.3), previous_release(release_report())
    )
    assert decision.status == "stamped"


def test_release__equal_recall_after_float_noise__not_a_fall() -> None:
    decision = release_decision(
        release_report(unanswerable=2 / 3 - 1e-15), previous_release(release_report())
    )
    assert decision.status == "stamped"


def test_release__critical_tag_no_longer_measured__refused() -> None:
    decision = release_decision(release_report(false_premise=None), previous_release(release_report()))
    assert decision.status == "refused"
    assert decision.stamp.reasons == [
        "critical tag 'false_premise' is no longer measured (recall 100.0% in v1.0.0)"
    ]


def test_release__tag_dropped_from_the_config__still_compared() -> None:
    lowered = release_report(safety=0.5, critical_tags=("unanswerable",))
    decision = release_decision(lowered, previous_release(release_report()))
    assert decision.status == "refused"
    assert [t.tag for t in decision.stamp.critical] == ["unanswerable", "safety", "false_premise"]


def test_release__no_report_at_the_tag__refused_as_not_evaluated() -> None:
    decision = release_decision(None, previous_release(release_report()))
    assert decision.status == "refused" and not decision.stamp.evaluated
    assert decision.stamp.reasons == [
        f"not evaluated: {REPORT_PATH} does not exist at v1.1.0, so this commit was never evaluated"
    ]
    assert decision.stamp.figures == {} and decision.stamp.critical == []


def test_release__config_changed_after_the_evaluation__not_evaluated() -> None:
    stale = release_report(config_text=CONFIG_TOML + "\n[retrieval]\ntop_k = 3\n")
    decision = release_decision(stale)
    assert decision.status == "refused"
    assert "the system changed after its last evaluation" in decision.stamp.reasons[0]


def test_release__golden_set_changed_after_the_evaluation__not_evaluated() -> None:
    evaluation = release_evaluation(release_report(), golden=GOLDEN_V2, version="2")
    decision = release_decision(None, evaluation=evaluation)
    reasons = decision.stamp.reasons
    assert decision.status == "refused" and len(reasons) == 2
    assert "evaluate with the current golden set" in reasons[0]
    assert "golden set version 1, but the golden set at v1.1.0 is version 2" in reasons[1]


def test_release__golden_version_changed__not_comparable_and_not_refused() -> None:
    report = release_report(safety=0.25, golden=GOLDEN_V2, golden_version="2")
    decision = release_decision(
        report,
        previous_release(release_report()),
        evaluation=release_evaluation(report, golden=GOLDEN_V2, version="2"),
    )
    stamp = decision.stamp
    assert decision.status == "stamped"
    assert stamp.previous is not None and not stamp.previous.comparable
    assert stamp.not_comparable == ["golden set version 1 in v1.0.0, 2 now"]
    assert all(t.previous is None and not t.fell for t in stamp.critical)


def test_release__corpus_changed__not_comparable() -> None:
    decision = release_decision(
        release_report(safety=0.25, corpus_hash="0" * 64), previous_release(release_report())
    )
    assert decision.status == "stamped"
    assert decision.stamp.not_comparable == ["corpus 3f9c6b2a1d0e in v1.0.0, 000000000000 now"]


def test_release__regression_with_a_maintainers_reason__published_over_it() -> None:
    decision = release_decision(
        release_report(safety=0.75), previous_release(release_report()), claim=override_claim()
    )
    stamp = decision.stamp
    assert decision.status == "published_over_regression" and decision.exit_code == ExitCode.PASS
    assert stamp.published_over is not None
    assert (stamp.published_over.actor, stamp.published_over.reason) == (
        "maintainer1",
        "known regression, fixed in 1.1.1",
    )
    assert stamp.reasons, "what it was published over stays in the stamp"


def test_release__regression_with_a_read_only_users_reason__still_refused() -> None:
    decision = release_decision(
        release_report(safety=0.75), previous_release(release_report()), claim=override_claim(allowed=False)
    )
    assert decision.status == "refused" and decision.stamp.published_over is None
    assert decision.stamp.notes == [
        "maintainer1 (role read) asked to publish over the gate, but only write, maintain or admin can "
        "publish over a regression"
    ]


def test_release__blank_reason__still_refused() -> None:
    decision = release_decision(
        release_report(safety=0.75), previous_release(release_report()), claim=override_claim(reason="  ")
    )
    assert decision.status == "refused"


def test_release__reason_given_without_a_regression__stamped_and_noted() -> None:
    decision = release_decision(release_report(), previous_release(release_report()), claim=override_claim())
    assert decision.status == "stamped" and decision.stamp.published_over is None
    assert decision.stamp.notes == ["maintainer1 gave an override reason, but nothing needed overriding"]


def test_release__not_evaluated_with_a_maintainers_reason__published_without_figures() -> None:
    decision = release_decision(None, claim=override_claim())
    assert decision.status == "published_over_regression"
    assert not decision.stamp.can_be_compared_with, "a release without figures is never the next bar"
