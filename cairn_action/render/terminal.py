"""`cairn show`: a report's cases in the terminal, each with what was asked, expected and answered, how
confident, where the support ranked, and why it was judged wrong. Pure: the caller says whether to colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn_action.gate.outcome import is_right
from cairn_action.report.models import PerCase, Report
from cairn_action.report.summary import abstention_line
from cairn_action.report.why import seen_by_answerer, setting_of, support_phrase

_COLOURS = {"right": "32", "wrong": "31", "stale": "33", "error": "33", "dim": "2"}
_ANSWER_SHOWN = 200  # characters of an answer or question on one line


@dataclass(frozen=True)
class Paint:
    """ANSI colour when `enabled` (a terminal, and NO_COLOR unset), plain text otherwise."""

    enabled: bool

    def __call__(self, kind: str, text: str) -> str:
        return f"\x1b[{_COLOURS[kind]}m{text}\x1b[0m" if self.enabled else text


def _short(text: str | None) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= _ANSWER_SHOWN else flat[: _ANSWER_SHOWN - 1] + "…"


def why(case: PerCase, report: Report) -> str:
    """One sentence: why the case is right, wrong, stale or an error, from what the record shows."""
    setting = setting_of(report)
    retrieval = support_phrase(case, setting)  # the comment's phrase for the same evidence (report.why)
    if case.status == "error":
        return f"error: {case.error or 'no message'} (a rerun retries it)"
    if case.status == "stale":
        return "stale: a support quote is not in its document; left out of every score"
    false_premise = "false_premise" in case.tags
    if not case.answerable:
        if case.status == "abstained":
            return "right: abstained, and the documents do not answer it"
        if false_premise:
            return "wrong: answered a question whose premise the documents contradict"
        return "wrong: answered a question the documents do not answer"
    if case.status == "abstained":
        threshold = setting.threshold
        if case.abstained_by_threshold and threshold is not None and case.confidence is not None:
            head = f"wrong: abstained, confidence {case.confidence:.3f} below the calibrated threshold "
            return f"{head}{threshold:g}; {retrieval}"
        seen = seen_by_answerer(case, setting)
        return f"wrong: abstained although {retrieval}" if seen else f"wrong: abstained; {retrieval}"
    if case.correct:
        return f"right; {retrieval}"
    f1 = "" if case.token_f1 is None else f" (token F1 {case.token_f1:.2f})"
    return f"wrong: the answer does not match the expected one{f1}; {retrieval}"


def case_lines(case: PerCase, report: Report, paint: Paint) -> list[str]:
    right = is_right(case)
    kind = case.status if case.status in ("stale", "error") else ("right" if right else "wrong")
    mark = {"right": "✓", "wrong": "✗", "stale": "~", "error": "!"}[kind]
    tags = f"  [{', '.join(case.tags)}]" if case.tags else ""
    answered = _short(case.answer_text) if case.status == "answered" else f"({case.status})"
    confidence = "" if case.confidence is None else f"   confidence {case.confidence:.3f}"
    rank = case.retrieved_support_rank
    lines = [
        paint(kind, f"{mark} {case.case_id}  {case.status}") + paint("dim", tags),
        f"  asked:     {_short(case.question)}",
        f"  expected:  {_short(case.expected_answer) if case.answerable else '(no answer: abstain)'}",
        f"  answered:  {answered}{confidence}",
    ]
    if case.answerable:
        lines.append(f"  support:   {'not retrieved' if rank is None else f'ranked {rank}'}")
    if case.n_samples > 1 and case.n_right is not None:  # the first sample is shown; the verdict is on all
        lines.append(f"  samples:   right in {case.n_right} of {case.n_samples} (the first is shown)")
    lines.append(f"  why:       {paint(kind, why(case, report))}")
    return lines


def show_lines(report: Report, cases: list[PerCase], paint: Paint) -> list[str]:
    """The report's headline, then each of `cases` (already chosen by the caller)."""
    right = sum(1 for c in report.per_case if is_right(c))
    head = (
        f"{report.config_name}: split {report.split}, {report.n_cases} cases scored, {right} right; "
        f"golden set {report.golden_version}, corpus {report.corpus_hash[:12]}, made {report.created_at}"
    )
    lines = [head, abstention_line(report)]
    for case in cases:
        lines += ["", *case_lines(case, report, paint)]
    return lines


def case_json(case: PerCase, report: Report) -> dict[str, object]:
    """A case as `cairn show --json` prints it: the report's row plus the verdict and the reason."""
    return {**case.model_dump(mode="json"), "right": is_right(case), "why": why(case, report)}
