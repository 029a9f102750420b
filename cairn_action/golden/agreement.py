"""Two annotators' golden sets compared: `cairn golden agree A B`.

The curation guide: "two annotators per example, disagreements reconciled by a third. Reconciliation rate
under 90% means your task definition is ambiguous." Cases are matched by id. On the cases both labelled:
- answerability: raw agreement and Cohen's kappa (agreement beyond what the two annotators' own rates
  of "answerable" would give by chance; Cohen 1960, kappa = (p_o - p_e) / (1 - p_e));
- expected answers, on the cases both call answerable: the same as exact match (SQuAD normalisation,
  any of either side's variants), else the same by the configured judge: the lexical one (one answer
  contains the other, or token F1 over its threshold with every number present: "14 days" and "within 14
  days"), or the LLM judge where `[judge] name = "llm"`, each answer graded against the other side's case;
- the agreement rate: cases where both hold (answerability, and the answer when answerable).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cairn_action.golden.models import GoldenCase, GoldenSet
from cairn_action.squad import normalize_answer

Judge = Callable[[GoldenCase, str], bool | None]
"""(case, answer) -> the judge's verdict on `answer` for `case`; None when it could not decide (an LLM
judge's call failed), which is no agreement and is counted apart."""

AMBIGUOUS_BELOW = 0.9


@dataclass(frozen=True)
class Disagreement:
    case_id: str
    what: str
    a: str
    b: str


@dataclass(frozen=True)
class Agreement:
    shared: int
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    answerability_agree: int
    kappa: float | None
    """None when undefined (both annotators gave one label to every case: chance agreement is 1)."""
    both_answerable: int
    answers_exact: int
    answers_by_judge: int
    judge_undecided: int
    """Answer pairs the judge could not decide (counted as disagreements, and said)."""
    agree: int
    disagreements: tuple[Disagreement, ...]

    @property
    def rate(self) -> float:
        return self.agree / self.shared if self.shared else 0.0


def cohen_kappa(a: list[bool], b: list[bool]) -> float | None:
    """Cohen's kappa of two binary labelings of the same items; None when chance agreement is 1."""
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1 - expected)


def _same_exact(a: GoldenCase, b: GoldenCase) -> bool:
    left = {normalize_answer(g) for g in a.golds}
    return any(normalize_answer(g) in left for g in b.golds)


def _same_by_judge(a: GoldenCase, b: GoldenCase, judge: Judge) -> bool | None:
    """Either answer judged right for the other annotator's case; None when the judge decided neither."""
    verdicts = []
    for case, answer in ((b, a.expected_answer), (a, b.expected_answer)):
        if answer:
            verdict = judge(case, answer)
            if verdict:
                return True
            verdicts.append(verdict)
    return None if verdicts and all(v is None for v in verdicts) else False


def agreement(first: GoldenSet, second: GoldenSet, judge: Judge) -> Agreement:
    """Agreement of two annotators' sets; `judge` decides answers exact match's normalisation does not."""
    a_cases = {c.id: c for c in (*first.cases, *first.inactive)}
    b_cases = {c.id: c for c in (*second.cases, *second.inactive)}
    shared = [i for i in a_cases if i in b_cases]
    labels_a = [a_cases[i].answerable for i in shared]
    labels_b = [b_cases[i].answerable for i in shared]
    exact = by_judge = agree = both = undecided = 0
    disagreements: list[Disagreement] = []
    for case_id in shared:
        a, b = a_cases[case_id], b_cases[case_id]
        if a.answerable != b.answerable:
            disagreements.append(Disagreement(case_id, "answerable", _answerable(a), _answerable(b)))
            continue
        if not a.answerable:
            agree += 1
            continue
        both += 1
        if _same_exact(a, b):
            exact += 1
            agree += 1
            continue
        same = _same_by_judge(a, b, judge)
        if same:
            by_judge += 1
            agree += 1
        else:
            undecided += same is None
            disagreements.append(
                Disagreement(case_id, "expected_answer", a.expected_answer or "", b.expected_answer or "")
            )
    return Agreement(
        shared=len(shared),
        only_a=tuple(i for i in a_cases if i not in b_cases),
        only_b=tuple(i for i in b_cases if i not in a_cases),
        answerability_agree=sum(x == y for x, y in zip(labels_a, labels_b, strict=True)),
        kappa=cohen_kappa(labels_a, labels_b),
        both_answerable=both,
        answers_exact=exact,
        answers_by_judge=by_judge,
        judge_undecided=undecided,
        agree=agree,
        disagreements=tuple(disagreements),
    )


def _answerable(case: GoldenCase) -> str:
    return "answerable" if case.answerable else "unanswerable"


def format_agreement(
    result: Agreement, a_name: str, b_name: str, judge_name: str = "the lexical judge"
) -> str:
    """The report; `judge_name` says which judge decided the answers exact match did not."""
    n = result.shared
    kappa = "undefined (one label throughout)" if result.kappa is None else f"{result.kappa:.2f}"
    lines = [
        f"{n} cases labelled by both {a_name} and {b_name}",
        f"answerability: {result.answerability_agree} of {n} agree, Cohen's kappa {kappa}",
        f"expected answers: {result.answers_exact + result.answers_by_judge} of {result.both_answerable} "
        f"agree ({result.answers_exact} as exact match normalises, {result.answers_by_judge} by "
        f"{judge_name})",
        f"agreement: {result.agree} of {n} ({result.rate:.0%})",
    ]
    if result.judge_undecided:
        lines.append(
            f"the judge could not decide {result.judge_undecided} answer pair(s) (its calls failed): counted "
            "as disagreements; rerun (answers are cached) or reconcile them by hand"
        )
    if result.only_a or result.only_b:
        lines.append(
            f"not compared: {len(result.only_a)} only in {a_name}, {len(result.only_b)} only in {b_name}"
        )
    if n and result.rate < AMBIGUOUS_BELOW:
        lines.append(
            f"below {AMBIGUOUS_BELOW:.0%}: the task definition is ambiguous; fix the definition before "
            "shipping the set (curation guide), then have a third person reconcile the cases below"
        )
    if result.disagreements:
        lines.append(f"\ndisagreements to reconcile ({len(result.disagreements)}):")
        lines += [
            f"  {d.case_id} {d.what}: {a_name} {d.a!r} / {b_name} {d.b!r}" for d in result.disagreements
        ]
    return "\n".join(lines)
