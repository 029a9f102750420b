"""Judging an answer so that a grading judge's model call is paid once and shows on the record.

The lexical judge is a pure function and is simply called. A grading judge (the LLM judge) goes
through Cairn's cache like the answerer: `request_key` addresses the grade, a hit makes no call, a
fresh grade is stored before it is used, and the call lands on the case record as a `judge`
`ProviderCall` with its tokens, cost and prompt-prefix hash. A judge that stays unreachable, or a grade
that cannot be read, makes the case an `error` (its answer is already cached, so a rerun only asks
the judge again).

Every sample is its own judge draw. A judge that does not declare itself deterministic (the LLM judge,
at any temperature) is keyed by the sample index as well as the answer, so a case answered with the same
text in all its samples is graded once per sample: caching by text alone copied one grade into every
sample, and one unlucky grade read as "wrong in 5 of 5, right in 3 of 3" (29 % false alarms with only
the judge noisy, issue 23). Sample 0 keeps the text-only key, so caches written before stay valid.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from cairn_action.errors import InfrastructureError
from cairn_action.golden.models import GoldenCase
from cairn_action.providers.budget import BudgetExhausted
from cairn_action.providers.llm_judge import JudgeResult, LLMJudge
from cairn_action.run.cache import ResultCache, cached_call, sample_key
from cairn_action.run.models import JudgeVerdict, ProviderCall, Usage

JUDGE_NAMESPACE = "judge"


class PlainJudge(Protocol):
    def judge(self, case: GoldenCase, answer_text: str) -> JudgeVerdict: ...


class GradingJudge(Protocol):
    """A judge whose verdicts cost a model call (the LLM judge)."""

    provider: str
    model: str

    def decided_without_model(self, case: GoldenCase, answer_text: str | None) -> JudgeVerdict | None: ...

    def request_key(self, case: GoldenCase, answer_text: str) -> str: ...

    def grade(self, case: GoldenCase, answer_text: str | None) -> JudgeResult: ...


@dataclass(frozen=True)
class Judged:
    verdict: JudgeVerdict | None
    calls: tuple[ProviderCall, ...] = ()
    error: str | None = None
    raw_output: str | None = None


def judge_answer(
    judge: PlainJudge | GradingJudge,
    cache: ResultCache,
    case: GoldenCase,
    answer_text: str,
    clock: Callable[[], float],
    *,
    sample: int,
) -> Judged:
    """The verdict on `answer_text` in sample `sample` of the case, with the judge's provider call when it
    made (or replayed) one. `sample` is required: a caller that forgot it would copy sample 0's grade into
    every sample of a case (every judging process, the evaluation's or the trusted Action's, passes it)."""
    # A class check, not the runtime Protocol check: that one costs ~0.3 ms a case, on every case.
    if not isinstance(judge, LLMJudge):
        return Judged(verdict=judge.judge(case, answer_text))
    decided = judge.decided_without_model(case, answer_text)
    if decided is not None:
        return Judged(verdict=decided)
    key = judge.request_key(case, answer_text)
    if getattr(judge, "deterministic", False) is not True:
        key = sample_key(key, sample)
    started = clock()
    try:
        result, call = cached_call(
            cache,
            JUDGE_NAMESPACE,
            key,
            JudgeResult,
            lambda: judge.grade(case, answer_text),
            clock=clock,
            started=started,
            role="judge",
            provider=judge.provider,
            model_name=judge.model,
        )
    except BudgetExhausted as exc:
        return Judged(verdict=None, error=exc.message)
    except InfrastructureError as exc:
        return Judged(verdict=None, error=f"judge: {exc.message}")
    if result.error is not None:
        return Judged(verdict=None, calls=(call,), error=result.error, raw_output=result.raw_output)
    return Judged(verdict=result.verdict, calls=(call,))


def total_usage(calls: Sequence[ProviderCall]) -> Usage:
    return Usage(
        input_tokens=sum(c.usage.input_tokens for c in calls),
        output_tokens=sum(c.usage.output_tokens for c in calls),
        cached_input_tokens=sum(c.usage.cached_input_tokens for c in calls),
    )


def total_cost(calls: Sequence[ProviderCall]) -> float | None:
    """The calls' cost, None when any one's price is unknown (unknown is not zero)."""
    costs = [c.cost_usd for c in calls]
    return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
