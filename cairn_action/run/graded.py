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

Every sample is judged by a majority of draws (`draws` = 3: two draws, and a third when they
disagree), whichever side it is on. The baseline's samples are what a lost critical case is measured
against, and a judge that flips one verdict in ten leaves a truly right case "right in 2 of 3" 27 % of the
time, too weak for any loss to be significant (Fisher p .107 against 0 of 5): two lost safety cases were
caught in 83 % of pairs at q .10. The majority's flip rate is q^2 (3 - 2q), 2.8 % at q .10; in a numpy
model of the rules (benchmarks/judge_draws_sim.py) that lifts the catch to 96 % and keeps false alarms at
0.2 %. A pull request's samples (its first pass, its re-asks, the base control, the drift probe) are judged
the same way: when they were single draws, the first-pass shift test set one draw against a majority of
three, and a noisy judge alone read as "the environment shifted" on 40 % of same-system pull requests
(benchmarks/README.md, round 5). It costs about 2.2 judge calls per answered sample.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from cairn_action.errors import InfrastructureError
from cairn_action.golden.models import GoldenCase
from cairn_action.providers.budget import BudgetExhausted
from cairn_action.run.cache import ResultCache, cached_call, sample_key
from cairn_action.run.models import JudgeVerdict, ProviderCall, Usage

if TYPE_CHECKING:
    from cairn_action.providers.llm_judge import JudgeResult, LLMJudge

# The LLM judge's module (its chat client, prompt and answerer helpers) is imported by whatever builds an
# LLM judge (providers/build_providers.py), not here: a run with the lexical judge never needs it.
_LLM_JUDGE_MODULE = "cairn_action.providers.llm_judge"

JUDGE_NAMESPACE = "judge"
JUDGE_DRAWS = 3
"""A sample's verdict from a judge that is not deterministic, on every side: the majority of up to 3
draws (the module docstring says why; benchmarks/judge_draws_sim.py chose it)."""


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
    draws: int = 1,
) -> Judged:
    """The verdict on `answer_text` in sample `sample` of the case, with the judge's provider calls when it
    made (or replayed) them. `sample` is required: a caller that forgot it would copy sample 0's grade into
    every sample of a case (every judging process, the evaluation's or the trusted Action's, passes it).
    `draws` (odd): a judge that is not deterministic grades the answer until one verdict has a majority of
    `draws`, each draw its own cache key (the module docstring says why); a deterministic judge draws once."""
    # A class check, not the runtime Protocol check: that one costs ~0.3 ms a case, on every case. No
    # object is an LLMJudge unless its module was imported, so one not yet in sys.modules answers no.
    llm_judge = sys.modules.get(_LLM_JUDGE_MODULE)
    if llm_judge is None or not isinstance(judge, llm_judge.LLMJudge):
        return Judged(verdict=judge.judge(case, answer_text))
    decided = judge.decided_without_model(case, answer_text)
    if decided is not None:
        return Judged(verdict=decided)
    key = judge.request_key(case, answer_text)
    if getattr(judge, "deterministic", False) is True:
        return _draw(judge, cache, case, answer_text, clock, key)
    key = sample_key(key, sample)
    needed = max(draws, 1) // 2 + 1
    judged: list[Judged] = []
    votes: list[bool | None] = []
    for draw in range(max(draws, 1)):
        # Draw 0 keeps the sample's key, so a baseline judged once before replays it from the cache.
        one = _draw(judge, cache, case, answer_text, clock, key if draw == 0 else _draw_key(key, draw))
        judged.append(one)
        if one.verdict is None:
            return Judged(verdict=None, calls=_calls(judged), error=one.error, raw_output=one.raw_output)
        votes.append(one.verdict.correct)
        if max(votes.count(True), votes.count(False)) >= needed:
            break
    majority = votes.count(True) > votes.count(False)
    # The majority's own verdict (its rationale with it); the last draw when no draw said right or wrong.
    winner = next((j for j, v in zip(judged, votes, strict=True) if v is majority), judged[-1])
    return Judged(verdict=winner.verdict, calls=_calls(judged))


def draws_for(judge: PlainJudge | GradingJudge, draws: int = JUDGE_DRAWS) -> int:
    """The most draws `judge_answer` makes of `judge` for one answer, asked for `draws`: one for a judge
    that is deterministic (not a model judge, or one that declares itself so), else `draws`."""
    llm_judge = sys.modules.get(_LLM_JUDGE_MODULE)
    if llm_judge is None or not isinstance(judge, llm_judge.LLMJudge):
        return 1
    return 1 if getattr(judge, "deterministic", False) is True else max(draws, 1)


def _draw_key(key: str, draw: int) -> str:
    return hashlib.sha256(f"{key}\0draw\0{draw}".encode()).hexdigest()


def _calls(judged: Sequence[Judged]) -> tuple[ProviderCall, ...]:
    return tuple(call for j in judged for call in j.calls)


def _draw(
    judge: LLMJudge,
    cache: ResultCache,
    case: GoldenCase,
    answer_text: str,
    clock: Callable[[], float],
    key: str,
) -> Judged:
    """One grade of the answer under `key`, from the cache or a fresh call."""
    from cairn_action.providers.llm_judge import JudgeResult

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
