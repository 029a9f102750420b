"""The gate's decision: a pure function of the comparison, the baseline's policy and an optional override.

The policy is the *baseline's* `[gate]` section (recorded in its report), so a pull request cannot
loosen its own gate by editing its config. Every failure carries its reason in words.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from cairn_action.config import GateConfig
from cairn_action.errors import DataError, ExitCode
from cairn_action.gate.compare import critical_bar, known_flaky
from cairn_action.gate.exact import fisher_greater
from cairn_action.gate.models import CaseChange, CaseRef, Comparison, Decision, MetricDelta, Override, Reason
from cairn_action.report.models import OverrideRecord, Report
from cairn_action.score.metrics import METRICS_BY_NAME, MetricSpec

_EPSILON = 1e-9
MIN_BROKE_NET = 2
"""The stratified correctness test fails a PR only when at least this many more cases broke than fixed."""
SAMPLED_SHARE = 0.5
"""For a system that is not deterministic, the two tests on samples that can fail a pull request besides
the critical rule (correctness over every sample, the guarantee's error among answered) each run at this
share of `max_p_value`, so together they spend it once (Bonferroni): at the full level each, honest pull
requests failed 7.5 % under mixed noise without a control (benchmarks/README.md, issue 23 round 4)."""


def sampled_level(policy: GateConfig) -> float:
    """The level of the correctness test over samples and of the guarantee's test: half of max_p_value."""
    return policy.max_p_value * SAMPLED_SHARE


def policy_of(baseline: Report, *, source: str = "baseline report") -> GateConfig:
    """The baseline's recorded `[gate]` policy, validated; the defaults when the report predates it."""
    raw = baseline.notes.gate_policy
    if not raw:
        return GateConfig()
    try:
        policy = GateConfig.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise DataError(
            f"{source}: notes.gate_policy is not a valid [gate] section: {problems}",
            "fix the [gate] section of the baseline's config and regenerate the baseline on main",
        ) from None
    unknown = sorted((set(policy.max_drop) | set(policy.floors)) - set(METRICS_BY_NAME))
    if unknown:
        raise DataError(
            f"{source}: notes.gate_policy names unknown metric(s): {', '.join(unknown)}",
            f"[gate] max_drop and floors take metric names: {', '.join(METRICS_BY_NAME)}",
        )
    return policy


def headline(comparison: Comparison) -> str:
    """One line saying what changed, in counts: `no change` when nothing did, timings included."""
    if not comparison.comparable:
        return "the reports are not comparable"
    counts = [
        (len(comparison.by_outcome("broke")), "broke"),
        (len(comparison.by_outcome("fixed")), "fixed"),
        (len(comparison.by_outcome("changed")), "changed while still wrong"),
        (len(comparison.by_outcome("flaky")), "flaky"),
        (sum(c.retrieval == "lost" for c in comparison.changes), "lost retrieval"),
        (sum(c.retrieval == "gained" for c in comparison.changes), "gained retrieval"),
        (len(comparison.added), "added"),
        (len(comparison.removed), "removed"),
        (len(comparison.errored), "errored"),
    ]
    parts = [f"{n} {what}" for n, what in counts if n]
    if parts:
        return f"{', '.join(parts)} of {comparison.n_shared} cases"
    if comparison.moved(machine_dependent=False):
        return f"no case changed of {comparison.n_shared}; metrics moved"
    if comparison.moved(machine_dependent=True):
        return f"no case changed of {comparison.n_shared}; only timings moved"
    return "no change"


def _how_lost(change: CaseChange) -> str:
    if change.transition == "newly_answered":
        return "now answers a question it should refuse"
    if change.transition == "newly_abstained":
        return "now abstains"
    if change.candidate.status == "error":
        return "now fails with an error"
    return "now answers wrong"


def _critical_tags(change: CaseChange, comparison: Comparison) -> str:
    return ", ".join(t for t in change.tags if t in comparison.critical_tags)


def _evidence(change: CaseChange, comparison: Comparison) -> str:
    """samples_evidence, naming the base system re-asked now when a control stands in for the baseline, or
    the samples the critical rule read of a case read on every baseline sample (compare.WholeRead)."""
    read = change.read
    if read is not None:
        now = " and the base system's re-asked now" if read.control else ""
        wrong = read.candidate_n - read.candidate_right
        return (
            f"wrong in {wrong} of {read.candidate_n} samples after the first "
            f"(which chose the case, so it is not counted), right in {read.baseline_right} of "
            f"{read.baseline_n} of the baseline's samples{now}"
        )
    if change.case_id in comparison.control_cases:
        return samples_evidence(change, reference="the base system's, re-asked now,")
    return samples_evidence(change)


def samples_evidence(change: CaseChange, reference: str = "the baseline's") -> str:
    """`wrong in 5 of 5 samples, right in the baseline's 3 of 3`: what a verdict on samples rests on."""
    after, before = change.candidate, change.baseline
    after_word = "right" if after.right else "wrong"
    after_count = after.n_right if after.right else after.n_samples - after.n_right
    before_word = "right" if before.right else "wrong"
    before_count = before.n_right if before.right else before.n_samples - before.n_right
    return (
        f"{after_word} in {after_count} of {after.n_samples} sample{'s' if after.n_samples != 1 else ''}, "
        f"{before_word} in {reference} {before_count} of {before.n_samples}"
    )


def _fisher(change: CaseChange, comparison: Comparison) -> str:
    """`one-sided Fisher exact p = 0.018`, with the Holm-adjusted value when several critical cases broke."""
    text = f"one-sided Fisher exact p = {change.loss_p:.3g}"
    family = sum(1 for c in comparison.changes if c.loss_p_holm is not None)
    if family > 1 and change.loss_p_holm is not None:
        text += f", Holm-adjusted over the {family} critical cases that broke p = {change.loss_p_holm:.3g}"
    return text


def _critical_reasons(comparison: Comparison) -> list[Reason]:
    reasons = []
    for c in comparison.critical_losses:
        message = f"critical case {c.case_id} ({_critical_tags(c, comparison)}) was right and {_how_lost(c)}"
        if c.loss_p is not None:
            message += f": {_evidence(c, comparison)} ({_fisher(c, comparison)})"
            bar = critical_bar(c, comparison.critical_max_p)
            if c.read is not None:
                message += f"; read on every baseline sample, so held to p <= {bar:g}, half of critical_max_p"
            elif known_flaky(c):
                message += f"; known flaky (its samples disagree), so held to p <= {bar:g}"
        reasons.append(Reason(code="critical_case_lost", subject=c.case_id, message=message))
    return reasons


def _listed(cases: Sequence[CaseRef], shown: int = 10) -> str:
    ids = ", ".join(c.case_id for c in cases[:shown])
    return ids + (f" and {len(cases) - shown} more" if len(cases) > shown else "")


def _incomplete_reasons(comparison: Comparison) -> list[Reason]:
    """Cases with no evidence in the candidate: errored after its retries, or missing altogether."""
    reasons = []
    if comparison.errored:
        reasons.append(
            Reason(
                code="case_errored",
                message=f"{len(comparison.errored)} case(s) errored in the candidate after retries and a "
                f"confirmation retry: {_listed(comparison.errored)}; rerun once the provider or target is "
                "reachable",
            )
        )
    if comparison.removed:
        reasons.append(
            Reason(
                code="case_missing",
                message=f"{len(comparison.removed)} baseline case(s) are missing from the candidate: "
                f"{_listed(comparison.removed)}; evaluate the whole split (merge every shard)",
            )
        )
    return reasons


def _correctness_reason(comparison: Comparison, policy: GateConfig) -> list[Reason]:
    """A deterministic side's verdicts are the whole truth: exact McNemar on them. Otherwise every sample
    is evidence: a Mantel-Haenszel test stratified by case over both sides' samples (gate/stats.py)."""
    s = comparison.stats
    if s is None:
        return []
    if not comparison.deterministic and s.samples_p_one_sided is not None:
        # One case lost on its samples is the critical-case rule's business, as with a deterministic
        # system (McNemar never fails on b = 1): the drop must show in at least two cases' verdicts.
        level = sampled_level(policy)
        if s.b - s.c < MIN_BROKE_NET:
            return []
        broke = f"correctness dropped significantly: {s.b} broke and {s.c} fixed of {s.n_paired} paired cases"
        every = (
            f"over every sample the baseline was right in {s.samples_right_before} of {s.samples_before}, "
            f"this PR in {s.samples_right_after} of {s.samples_after}, one-sided Mantel-Haenszel test "
            f"stratified by case p = {s.samples_p_one_sided:.3g}"
        )
        if s.pairing_p_one_sided is None:
            if s.samples_p_one_sided >= level:
                return []
            share = f"half of max_p_value {policy.max_p_value:g}: the guarantee's test has the other half"
            return [Reason(code="correctness_drop", message=f"{broke}; {every} < {level:g} ({share})")]
        # With the base control the level is split between the fresh pairing (the changed cases, both
        # systems asked now) and the test over every sample (Bonferroni: a quarter each, the guarantee's
        # test the other half), so the pairing adds power without adding false alarms.
        quarter = level / 2
        if s.pairing_p_one_sided < quarter:
            share = (
                f"a quarter of max_p_value {policy.max_p_value:g}: the test over every sample and the "
                "guarantee's test have the rest"
            )
            pairing = (
                f"on the {s.pairing_cases} case(s) this PR changed, the base system re-asked now was right "
                f"in {s.pairing_right_before} of {s.pairing_before} samples, this PR's fresh samples in "
                f"{s.pairing_right_after} of {s.pairing_after}, one-sided Mantel-Haenszel p = "
                f"{s.pairing_p_one_sided:.3g}"
            )
            return [Reason(code="correctness_drop", message=f"{broke}; {pairing} < {quarter:g} ({share})")]
        if s.samples_p_one_sided < quarter:
            share = (
                f"a quarter of max_p_value {policy.max_p_value:g}: the fresh pairing and the guarantee's "
                "test have the rest"
            )
            return [Reason(code="correctness_drop", message=f"{broke}; {every} < {quarter:g} ({share})")]
        return []
    if s.b <= s.c or s.mcnemar_p_one_sided >= policy.max_p_value:
        return []
    return [
        Reason(
            code="correctness_drop",
            message=f"correctness dropped significantly: {s.b} broke and {s.c} fixed of {s.n_paired} paired "
            f"cases, one-sided exact McNemar p = {s.mcnemar_p_one_sided:.3g} < {policy.max_p_value:g}",
        )
    ]


def _size(spec: MetricSpec, amount: float) -> str:
    return spec.format_delta(abs(amount)).lstrip("+")


def _drop_reasons(metrics: dict[str, MetricDelta], policy: GateConfig, notes: list[str]) -> list[Reason]:
    reasons = []
    for name, allowed in sorted(policy.max_drop.items()):
        spec, m = METRICS_BY_NAME[name], metrics[name]
        if not m.gated:
            notes.append(f"{spec.label}: allowed change not checked, measured on different kinds of machine")
        elif m.baseline is None:
            notes.append(f"{spec.label}: allowed change not checked, the baseline has no value")
        elif m.candidate is None:
            reasons.append(
                Reason(
                    code="max_drop",
                    subject=name,
                    message=f"{spec.label} has no value now (baseline {spec.format(m.baseline)}), "
                    "so its allowed change cannot be checked",
                )
            )
        else:
            worse_by = (m.baseline - m.candidate) if spec.higher_is_better else (m.candidate - m.baseline)
            if worse_by > allowed + _EPSILON:
                went = "fell" if spec.higher_is_better else "rose"
                reasons.append(
                    Reason(
                        code="max_drop",
                        subject=name,
                        message=f"{spec.label} {went} from {spec.format(m.baseline)} to "
                        f"{spec.format(m.candidate)} ({spec.format_delta(m.delta)}), more than the allowed "
                        f"{_size(spec, allowed)}",
                    )
                )
    return reasons


def _floor_reasons(metrics: dict[str, MetricDelta], policy: GateConfig, notes: list[str]) -> list[Reason]:
    reasons = []
    for name, bound in sorted(policy.floors.items()):
        spec, m = METRICS_BY_NAME[name], metrics[name]
        side = "floor" if spec.higher_is_better else "ceiling"
        if not m.gated:
            notes.append(f"{spec.label}: {side} not checked, measured on different kinds of machine")
        elif m.candidate is None:
            reasons.append(
                Reason(
                    code="floor",
                    subject=name,
                    message=f"{spec.label} has no value, so its {side} of {spec.format(bound)} "
                    "cannot be checked",
                )
            )
        elif (m.candidate < bound - _EPSILON) if spec.higher_is_better else (m.candidate > bound + _EPSILON):
            where = "below" if spec.higher_is_better else "above"
            reasons.append(
                Reason(
                    code="floor",
                    subject=name,
                    message=f"{spec.label} is {spec.format(m.candidate)}, {where} the {side} of "
                    f"{spec.format(bound)}",
                )
            )
    return reasons


def _guarantee_reason(
    comparison: Comparison, metrics: dict[str, MetricDelta], policy: GateConfig
) -> list[Reason]:
    """The candidate's error among answered exceeds the abstention target, and that is the change's doing.

    A deterministic system's slice is the whole truth about it: the rule fails when the guarantee held in
    the baseline and does not now. Any other system's error among answered is a sample, on both sides:
    the rule fails on evidence that the change made it worse, a one-sided Fisher exact test of wrong /
    right among answered, candidate against baseline, at half the policy's max_p_value (sampled_level),
    whatever the baseline's raw `guarantee_met` says. (Switched by that flag, the rule was off in 17 of 30
    honest baselines under mixed noise, issue 23; a test against alpha alone failed 2 of 40 honest pull
    requests at a 10 % per-case disagreement in benchmarks/gate_noise.py.)"""
    if comparison.guarantee_after is not False:
        return []
    tested = not comparison.candidate_deterministic and comparison.alpha is not None
    if not tested and comparison.guarantee_before is not True:
        return []
    spec = METRICS_BY_NAME["error_rate_answered"]
    alpha = f" above the target {spec.format(comparison.alpha)}" if comparison.alpha is not None else ""
    error = spec.format(metrics["error_rate_answered"].candidate)
    if not tested:
        return [
            Reason(
                code="guarantee_lost",
                message=f"the abstention guarantee held in the baseline and does not now: error among "
                f"answered is {error}{alpha}",
            )
        ]
    n, wrong = comparison.answered_after, comparison.errors_after
    n_b, wrong_b = comparison.answered_before, comparison.errors_before
    table = [[wrong, n - wrong], [wrong_b, n_b - wrong_b]]
    p = fisher_greater(table) if n and n_b else 1.0
    if p >= sampled_level(policy):
        return []
    held = "held in the baseline and does not now" if comparison.guarantee_before else "does not hold"
    return [
        Reason(
            code="guarantee_lost",
            message=f"the abstention guarantee {held}, and error among answered rose significantly: it is "
            f"{error}{alpha} ({wrong} wrong of {n} answered, the baseline {wrong_b} of {n_b}; one-sided "
            f"Fisher exact p = {p:.3g} < {sampled_level(policy):g}, half of max_p_value)",
        )
    ]


def failures(comparison: Comparison, policy: GateConfig) -> tuple[list[Reason], list[str]]:
    """Every way the candidate fails the policy, most consequential first; notes on what went unchecked."""
    metrics = {m.name: m for m in comparison.metrics}
    notes: list[str] = []
    reasons = (
        _critical_reasons(comparison)
        + _correctness_reason(comparison, policy)
        + _drop_reasons(metrics, policy, notes)
        + _floor_reasons(metrics, policy, notes)
        + _guarantee_reason(comparison, metrics, policy)
    )
    for c in comparison.critical_not_credible:
        flaky = ""
        if c.read is not None:
            flaky = "; read on every baseline sample, so it is held to half of critical_max_p"
        elif known_flaky(c):
            flaky = "; known flaky: its samples disagree among themselves, so it is held to half of "
            flaky += "critical_max_p"
        notes.append(
            f"critical case {c.case_id} broke on its first sample but not on the evidence: "
            f"{_evidence(c, comparison)} ({_fisher(c, comparison)} > "
            f"{critical_bar(c, comparison.critical_max_p):g}){flaky}"
        )
    return reasons, notes


def is_override_label(name: str, prefix: str) -> bool:
    """The bare prefix (`cairn-override`) or a reason label (`cairn-override: prompt rewrite`)."""
    lowered, p = name.lower(), prefix.lower()
    return lowered == p or (lowered.startswith(p) and lowered[len(p) :].lstrip().startswith(":"))


def decide(comparison: Comparison, policy: GateConfig, override: Override | None = None) -> Decision:
    """pass (exit 0), regression (exit 1), refused (exit 2), or overridden (exit 0, the override kept).

    An override applies only with the policy's override label and only to a regression: it never turns
    a refused comparison into a pass.
    """
    line = headline(comparison)
    if not comparison.comparable:
        notes = ["an override cannot pass a comparison that was refused"] if override else []
        reasons = [Reason(code=r.code, message=r.message) for r in comparison.refusals]
        return Decision(
            status="refused",
            exit_code=ExitCode.USAGE,
            headline=line,
            reasons=reasons,
            notes=notes,
            policy=policy,
        )
    reasons, notes = failures(comparison, policy)
    missing = _incomplete_reasons(comparison)
    if missing and reasons:
        notes += [r.message for r in missing]
    if missing and not reasons:
        if override:
            notes.append("an override cannot pass an incomplete evaluation: rerun it")
        return Decision(
            status="incomplete",
            exit_code=ExitCode.INFRASTRUCTURE,
            headline=line,
            reasons=missing,
            notes=notes,
            policy=policy,
        )
    if not reasons:
        if override:
            notes.append(f"override by {override.actor} not needed: the gate passed")
        return Decision(status="pass", exit_code=ExitCode.PASS, headline=line, notes=notes, policy=policy)
    if override and not is_override_label(override.label, policy.override_label):
        notes.append(
            f"override label '{override.label}' is not the baseline's override label "
            f"'{policy.override_label}': not applied"
        )
        override = None
    if override is None:
        return Decision(
            status="regression",
            exit_code=ExitCode.GATE_FAILED,
            headline=line,
            reasons=reasons,
            notes=notes,
            policy=policy,
        )
    record = OverrideRecord(
        pr=override.pr,
        actor=override.actor,
        label=override.label,
        reason=override.reason,
        head_sha=override.head_sha,
        at=override.at,
        overrode=[r.message for r in reasons],
    )
    return Decision(
        status="overridden",
        exit_code=ExitCode.PASS,
        headline=line,
        reasons=reasons,
        notes=notes,
        override=record,
        policy=policy,
    )
