"""The deterministic lexical judge: is an answer correct, by SQuAD-normalised text alone.

Rule `lexical-1`, applied in order:
1. No answer (`answer_text` None: abstained, error) → `correct=None`: nothing was judged.
2. The case is unanswerable (including false premises) and an answer was given → wrong by definition.
3. Normalise both strings exactly as SQuAD v1.1 (`cairn_action.squad.normalize_answer`). The answer is
   correct when the expected answer's tokens appear contiguously in the answer's tokens (so "within
   14 days" is correct for "14 days", but "140" is not for "14"), or when the SQuAD token F1 reaches
   `f1_threshold` **and** every token of the expected answer that contains a digit also appears in the
   answer: F1 alone would accept "21 days" for "14 days", and a wrong number is the commonest wrong answer.
An expected answer that normalises to nothing can only be matched by an answer that does too.
"""

from __future__ import annotations

from cairn_action.golden.models import GoldenCase
from cairn_action.run.models import JudgeVerdict
from cairn_action.squad import normalize_answer, token_f1

RULE_VERSION = "lexical-1"


def contains_tokens(haystack: list[str], needle: list[str]) -> bool:
    """True when `needle` occurs as a contiguous run of `haystack` (token lists)."""
    if not needle:
        return not haystack
    width = len(needle)
    return any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))


class LexicalJudge:
    """Judges answers against `expected_answer` by containment or token F1 (rule in the module docstring)."""

    name = "lexical"
    rule_version = RULE_VERSION
    deterministic = True

    def __init__(self, f1_threshold: float = 0.5) -> None:
        if not 0.0 <= f1_threshold <= 1.0:
            raise ValueError(f"f1_threshold must be in [0, 1], got {f1_threshold}")
        self.f1_threshold = f1_threshold

    def _verdict(self, correct: bool | None, rationale: str) -> JudgeVerdict:
        return JudgeVerdict(
            name=self.name, rule_version=self.rule_version, correct=correct, rationale=rationale
        )

    def judge(self, case: GoldenCase, answer_text: str | None) -> JudgeVerdict:
        """The verdict on `answer_text` for `case`."""
        if answer_text is None:
            return self._verdict(None, "no answer to judge")
        if not case.answerable:
            kind = "false premise" if case.is_false_premise else "unanswerable"
            return self._verdict(False, f"answered an {kind} case")
        if case.expected_answer is None:
            return self._verdict(None, "the case has no expected answer")
        answer = normalize_answer(answer_text).split()
        expected = normalize_answer(case.expected_answer).split()
        if contains_tokens(answer, expected):
            return self._verdict(True, "the answer contains the expected answer")
        f1 = token_f1(answer_text, case.expected_answer)
        missing = [t for t in expected if any(ch.isdigit() for ch in t) and t not in answer]
        if missing:
            return self._verdict(False, f"token F1 {f1:.2f}; expected number {missing[0]} is missing")
        if f1 >= self.f1_threshold:
            return self._verdict(True, f"token F1 {f1:.2f} >= {self.f1_threshold}")
        return self._verdict(False, f"token F1 {f1:.2f} < {self.f1_threshold}")


class PlaceholderJudge(LexicalJudge):
    """The evaluation's judge when its caller judges (`cairn eval --judged-by-caller`, which the Action
    uses): lexical verdicts that only choose what to re-ask, and a declared determinism that is the
    caller's judge's, so a deterministic answerer is asked again when the real judge samples."""

    label = "lexical (placeholder: the caller judges)"

    def __init__(self, *, deterministic: bool, f1_threshold: float = 0.5) -> None:
        super().__init__(f1_threshold)
        self.deterministic = deterministic
