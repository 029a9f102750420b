"""The deterministic lexical judge: is an answer correct, by SQuAD-normalised text alone.

Rule `lexical-1`, applied in order:
1. No answer (`answer_text` None: abstained, error) → `correct=None`: nothing was judged.
2. The case is unanswerable (including false premises) and an answer was given → wrong by definition.
3. Normalise both strings exactly as SQuAD v1.1 (`cairn_action.squad.normalize_answer`). The answer is
   correct when the expected answer's tokens appear contiguously in the answer's tokens (so "within
   14 days" is correct for "14 days", but "140" is not for "14"), or when the SQuAD token F1 reaches
   `f1_threshold` **and** every *distinguishing* token of the expected answer also appears in the answer:
   a token with a digit, a month name, or a Roman numeral written in capitals ("III", "IV"; a lone "I"
   only after a capitalised word, as in "World War I"). F1 alone would accept "21 days" for "14 days",
   "8 March 2026" for "8 February 2026" and "King Charles" for "King Charles III" (F1 0.8); a wrong
   number, date or regnal number is the commonest wrong answer that shares most words.
An expected answer that normalises to nothing can only be matched by an answer that does too.
With `answer_variants`, each acceptable answer is tried in turn and the answer is correct when one is
matched (the SQuAD script's max over gold answers).
"""

from __future__ import annotations

import re

from cairn_action.golden.models import GoldenCase
from cairn_action.run.models import JudgeVerdict
from cairn_action.squad import normalize_answer, token_f1

RULE_VERSION = "lexical-2"
"""lexical-2: months and Roman numerals distinguish, like numbers (lexical-1: numbers only)."""

MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
_ROMAN = re.compile(r"M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})")


def contains_tokens(haystack: list[str], needle: list[str]) -> bool:
    """True when `needle` occurs as a contiguous run of `haystack` (token lists)."""
    if not needle:
        return not haystack
    width = len(needle)
    return any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))


def distinguishing(expected: str) -> list[str]:
    """The normalised tokens of `expected` that an answer must contain (module docstring, rule 3)."""
    raw = expected.split()
    out = []
    for i, word in enumerate(raw):
        bare = word.strip(".,;:!?()[]\"'")
        roman = bool(bare) and _ROMAN.fullmatch(bare) is not None
        if roman and bare == "I":
            roman = i > 0 and raw[i - 1][:1].isupper() and raw[i - 1][:1].isalpha()
        for token in normalize_answer(word).split():
            month = token in MONTHS and (token != "may" or bare[:1] == "M")  # "you may" is no date
            if any(ch.isdigit() for ch in token) or month or roman:
                out.append(token)
    return out


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
        # Each acceptable answer (expected_answer, then its variants) is tried; the first right one wins,
        # else the expected answer's reason is given.
        verdicts = [self._against(answer_text, gold) for gold in case.golds]
        return next((v for v in verdicts if v.correct), verdicts[0])

    def _against(self, answer_text: str, gold: str) -> JudgeVerdict:
        answer = normalize_answer(answer_text).split()
        expected = normalize_answer(gold).split()
        if contains_tokens(answer, expected):
            return self._verdict(True, "the answer contains the expected answer")
        f1 = token_f1(answer_text, gold)
        missing = [t for t in distinguishing(gold) if t not in answer]
        if missing:
            return self._verdict(False, f"token F1 {f1:.2f}; expected {missing[0]} is missing")
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
