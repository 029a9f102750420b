"""Markdown for `cairn attack`: the report file (`reports/attack-<config>.md`), the terminal table, and
the attack section of the pull-request comment. Every probe and answer is hostile text by design, so
each goes through `escape_text` (one inert line, capped) before it reaches markdown."""

from __future__ import annotations

from collections.abc import Sequence

from tabulate import tabulate

from cairn_action.attack.compare import AttackGate
from cairn_action.attack.models import AttackReport, FamilyResult
from cairn_action.render.escape import escape_text

NONE = "—"
_FIELD = 160
_FAILURES_SHOWN = 25


def _rate(value: float | None) -> str:
    return NONE if value is None else f"{value:.0%}"


def _status(fam: FamilyResult) -> str:
    if not fam.applicable:
        return "not applicable"
    return "pass" if fam.meets_policy else "FAIL"


def family_rows(report: AttackReport) -> list[list[str]]:
    return [
        [
            fam.family + (" (critical)" if fam.critical else ""),
            str(fam.n),
            str(fam.n_passed),
            _rate(fam.pass_rate),
            _rate(fam.min_pass_rate),
            _status(fam),
        ]
        for fam in report.families
    ]


_HEADERS = ("family", "n", "passed", "pass rate", "floor", "status")


def family_table(report: AttackReport, *, markdown: bool = True) -> str:
    fmt = "github" if markdown else "simple"
    return tabulate(family_rows(report), headers=list(_HEADERS), tablefmt=fmt, disable_numparse=True)


def _question(text: str, chars: int) -> str:
    shown = escape_text(text, limit=_FIELD, empty="(empty)")
    return shown + (f" ({chars:,} characters)" if chars > _FIELD else "")


def render_attack_report(report: AttackReport) -> str:
    """`reports/attack-<config>.md`: identity, the per-family table, and every failure with its reason."""
    lines = [
        f"# Attack report: {escape_text(report.config_name)}",
        "",
        f"Verdict: **{report.verdict}**. System: {escape_text(report.system)}; suite "
        f"{escape_text(report.suite_version)} (seed {report.seed}, hash `{report.suite_hash}`); golden set "
        f"version {escape_text(report.golden_version)}; corpus `{report.corpus_hash[:16]}`; threshold: "
        f"{escape_text(report.threshold_source)}.",
        "",
        family_table(report),
        "",
    ]
    for reason in report.failures:
        lines.append(f"- policy: {escape_text(reason, limit=400)}")
    if report.failures:
        lines.append("")
    lines.append(
        "A deterministic check catches the failure it names, nothing subtler: a pass is not a safety proof."
    )
    for fam in report.families:
        lines += ["", f"## {fam.family}", "", f"Expected: {fam.expected}."]
        if fam.reason:
            lines.append(f"{'Not applicable' if not fam.applicable else 'Caveat'}: {fam.reason}.")
        if not fam.applicable:
            continue
        failed = [p for p in report.probes if p.family == fam.family and not p.passed]
        lines.append(f"{fam.n_passed} of {fam.n} passed.")
        if not failed:
            continue
        rows = [
            [
                escape_text(p.probe_id),
                _question(p.question, p.question_chars),
                escape_text(p.answer_text, limit=_FIELD, empty=f"({p.status})"),
                escape_text(p.why, limit=_FIELD),
            ]
            for p in failed[:_FAILURES_SHOWN]
        ]
        lines += ["", tabulate(rows, headers=["probe", "question", "answer", "why"], tablefmt="github")]
        if len(failed) > _FAILURES_SHOWN:
            lines.append(f"\n{len(failed) - _FAILURES_SHOWN} more failures are in the JSON report.")
    return "\n".join(lines) + "\n"


def _gate_rows(gate: AttackGate) -> list[list[str]]:
    return [
        [
            f.family + (" (critical)" if f.critical else ""),
            _rate(f.baseline_rate),
            _rate(f.candidate_rate),
            _rate(f.floor),
            str(f.broke),
            str(f.fixed),
            "below floor" if f.below_floor else "ok",
        ]
        for f in gate.families
    ]


def render_attack_section(gate: AttackGate, *, rows: int = 10) -> str:
    """The attack section of the sticky comment (and of `cairn gate --markdown` for attack reports).
    At most `rows` reasons and probes, each field cut to 80 characters: under 25,000 characters escaped."""
    icon = {"pass": "✅", "regression": "❌", "refused": "⛔"}[gate.status]
    lines = ["### Attack probes", "", f"{icon} {escape_text(gate.headline)}", ""]
    lines += [f"- {escape_text(r, limit=300)}" for r in gate.reasons[:rows]]
    if gate.reasons:
        lines.append("")
    if gate.families:
        headers = ["family", "baseline", "this PR", "floor", "broke", "fixed", "status"]
        lines += [tabulate(_gate_rows(gate), headers=headers, tablefmt="github", disable_numparse=True), ""]
    shown = [p for p in gate.probes if p.outcome in ("broke", "missing", "fixed")][:rows]
    if shown:
        table = [
            [
                escape_text(p.probe_id),
                p.outcome,
                escape_text(p.question, limit=80, empty="(empty)"),
                escape_text(p.candidate_answer, limit=80, empty=NONE),
                escape_text(p.candidate_why, limit=80, empty=NONE),
            ]
            for p in shown
        ]
        lines += [
            "<details><summary>Probes that changed</summary>",
            "",
            tabulate(table, headers=["probe", "outcome", "question", "answer now", "why"], tablefmt="github"),
            "",
            "</details>",
            "",
        ]
    return "\n".join(lines)


def summary_lines(report: AttackReport, extra: Sequence[str] = ()) -> list[str]:
    """What `cairn attack` prints: the per-family table and the verdict."""
    lines = [family_table(report, markdown=False), *extra, f"verdict: {report.verdict}"]
    lines += [f"  - {reason}" for reason in report.failures]
    return lines
