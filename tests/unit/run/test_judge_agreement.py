"""Judge agreement per case: how often the judge graded the same answer the same way across samples."""

from __future__ import annotations

from run_fakes import make_record

from cairn_action.report.samples import judge_agreement
from cairn_action.run.models import CaseRecord, JudgeVerdict


def judged(answer: str | None, correct: bool | None, sample: int = 0) -> CaseRecord:
    verdict = None if correct is None else JudgeVerdict(name="llm", rule_version="r", correct=correct)
    return make_record("q1").model_copy(update={"answer_text": answer, "judge": verdict, "sample": sample})


def test_judge_agreement__same_answer_graded_differently__share_of_the_majority_verdict() -> None:
    records = [
        judged("14 days", True),
        judged("14 days", False),
        judged("14 days", True),
        judged("14 DAYS", True),
    ]
    assert judge_agreement(records) == 3 / 4  # normalised answers are one answer


def test_judge_agreement__only_repeated_answers_count() -> None:
    records = [judged("14 days", True), judged("14 days", True), judged("21 days", False)]
    assert judge_agreement(records) == 1.0


def test_judge_agreement__no_answer_judged_twice__none() -> None:
    assert judge_agreement([judged("14 days", True), judged("21 days", False)]) is None
    assert judge_agreement([judged("14 days", True), judged(None, None)]) is None
    assert judge_agreement([]) is None
