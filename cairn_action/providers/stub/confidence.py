"""The stub answerer's choice of answer, and how sure of it the evidence lets it be.

Every unit of the evidence (`stub.evidence`) proposes answers (`stub.spans`), scored by the unit's
coverage of the question plus a bonus when the answer is of the asked type. When the best-scoring unit
holds nothing of the asked type, the best unit that surely does takes its place (unless the best one is a
table cell saying there is none). Each proposal then
votes for its answer with weight `exp((score - top score) / VOTE_SCALE)` (times its closeness, for a
second figure of the same sentence), and the answer with the most votes wins, cited from the
best-supported unit that gives it.

The confidence is the product of these factors, each in [0, 1] and each something the evidence shows:

- support: the chosen unit's coverage of the question with each word weighted by the square of its
  rarity in the evidence, so that missing a rare word ("cookies", "Sunday") costs far more than missing
  a common one;
- focus: 0.5 plus half the unit's coverage of the phrase the question is about (`question_focus`);
- type: `0.5 + 0.5 * fit`, 1 for a span surely of the asked type (a date for "when"), less for a weaker
  match (a duration for "when", any figure for an untyped question);
- uniqueness: the chosen answer's share of all votes: a different answer from a unit almost as well
  supported, or from the sentence next to it, or a second figure in the same sentence, lowers it; units
  repeating the answer raise it;
- lead: the chosen unit's coverage over the best coverage of any unit (1 unless a better-supported
  sentence holds nothing of the asked type);
- premise: DENIED when the chosen unit negates a question word the question does not negate itself
  ("mustard-free", "no longer contains"): the question assumes what the evidence denies;
- scope: OTHER_YEAR when the question names a year and the chosen unit is about another;
- rank: 1 for the first retrieved chunk, RANK_STEP less for each rank below.
The constants are round numbers chosen for what they mean, not fitted to any golden set.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from cairn_action.providers.answer_types import AnswerType, content_question, counted_noun
from cairn_action.providers.stub.evidence import (
    Unit,
    coverage,
    evidence_units,
    holdings,
    matches,
    term_weights,
    word_tokens,
)
from cairn_action.providers.stub.question_focus import focus_phrase
from cairn_action.providers.stub.spans import Proposal, answer_key, proposals
from cairn_action.retrieval.base import Hit
from cairn_action.retrieval.tokenizer import stem, tokenize
from cairn_action.squad import normalize_answer

TYPED_BONUS = 0.15  # an answer of the asked type outweighs a little more coverage without one
SURE_FIT = 0.75  # a span of the asked type (or its runner-up kind), not a mere guess
VOTE_SCALE = 0.1  # a proposal 0.1 less supported than the top one votes e^-1 as much
NEIGHBOUR = 0.5  # a sentence borrows half the support of the sentence next to it, to compete
DENIED = 0.1  # a denied premise leaves an answer very unlikely to be what was asked
OTHER_YEAR = 0.5
RANK_STEP = 0.05

# Words that say what kind of answer is wanted, or carry no topic, rather than what it is about.
_QUESTION_WORDS = frozenset(
    stem(w)
    for w in """many much long soon quickly late early often time date get got gone go want
    once still already ever yet actually really after before until during not no""".split()
)
_NEGATOR = re.compile(r"^(?:not|no|never|nor|without|cannot|can't|won't|don't|doesn't|isn't|aren't)$")
_LIMIT = re.compile(r"\b(?:(?:more|less|fewer|later|earlier|longer) than|over|exceed\w*|above|below|under)\b")
_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
_FREE = re.compile(r"-free\b", re.IGNORECASE)


@dataclass(frozen=True)
class Analysis:
    """The chosen proposal and the factors of its confidence."""

    kind: AnswerType
    best: Proposal
    factors: dict[str, float] = field(default_factory=dict)

    @property
    def confidence(self) -> float:
        return math.prod(self.factors[k] for k in sorted(self.factors))

    def explain(self) -> str:
        parts = ", ".join(f"{k}={v:.2f}" for k, v in sorted(self.factors.items()))
        return f"{self.kind.value} {self.best.answer!r} from rank {self.best.unit.rank}: {parts}"


def question_terms(question: str) -> list[str]:
    """The question's topic words: its tokens without the words that only ask (what year, how long)."""
    return [t for t in tokenize(content_question(question)) if t not in _QUESTION_WORDS]


def analyse(question: str, kind: AnswerType, hits: tuple[Hit, ...]) -> Analysis | str:
    """Choose an answer to `question`, of type `kind`, from `hits`; or say why there is none."""
    terms = question_terms(question)
    units = evidence_units([(h.rank, h.chunk) for h in hits])
    if not terms or not units:
        return "nothing to match: no question words or no retrieved text"
    distinct = sorted(set(terms))
    held = [holdings(distinct, unit) for unit in units]
    weights = term_weights(terms, units, held)
    counted = set(tokenize(counted_noun(question))) if kind is AnswerType.COUNT else set()
    asked = f" {normalize_answer(question)} "

    made: dict[int, list[Proposal]] = {}

    def propose(unit: Unit, support: float) -> list[Proposal]:
        # A unit's readings do not depend on its support: a sentence proposed again at the support its
        # neighbour lends it (`_borrowed`) takes its first proposals with that support and score.
        first = made.get(id(unit))
        if first is None:
            first = made[id(unit)] = proposals(unit, support, kind, weights, asked, counted, TYPED_BONUS)
            return first
        return [replace(p, coverage=support, score=support + TYPED_BONUS * p.fit) for p in first]

    covs = [coverage(weights, unit, found) for unit, found in zip(units, held, strict=True)]
    every = [p for unit, cov in zip(units, covs, strict=True) if cov > 0 for p in propose(unit, cov)]
    if not every:
        return "no retrieved sentence shares a word with the question"
    every.extend(_borrowed(units, covs, propose))

    own = [p for p in every if p.first and not p.borrowed]
    leader = min(own, key=_order)
    typed = [p for p in own if p.fit >= SURE_FIT] if leader.fit == 0 and not leader.denies else []
    top = min(typed, key=_order) if typed else leader
    votes = tally(top, every)
    total = sum(votes[k] for k in sorted(votes))
    winner = max(sorted(votes), key=lambda k: votes[k])
    giving = [
        p for p in every if not p.borrowed and answer_key(p.answer) == winner and (p.fit > 0 or top.fit == 0)
    ]
    best = top if winner == answer_key(top.answer) or not giving else min(giving, key=_order)
    factors = {
        "support": coverage({t: w * w for t, w in weights.items()}, best.unit),
        "focus": focus(question, weights, best.unit),
        "type": 0.5 + 0.5 * best.fit,
        "uniqueness": votes[answer_key(best.answer)] / total if total else 1.0,
        "lead": min(1.0, best.coverage / leader.coverage),
        "premise": DENIED if denied(question, weights, best.unit) else 1.0,
        "scope": OTHER_YEAR if other_year(question, best.unit, units) else 1.0,
        "rank": max(0.0, 1.0 - RANK_STEP * (best.unit.rank - 1)),
    }
    return Analysis(kind, best, factors)


def _order(p: Proposal) -> tuple[float, int, int]:
    return (-p.score, p.unit.rank, p.unit.start)


def _borrowed(
    units: list[Unit], covs: list[float], propose: Callable[[Unit, float], list[Proposal]]
) -> list[Proposal]:
    """Proposals of sentences next to a better-supported sentence of the same chunk, at NEIGHBOUR times
    its support: "A claim on chilled goods must be made within 4 hours. For frozen goods, the window is
    10 hours." The second sentence may be the answer, so it competes; it never answers by itself."""
    found = []
    for i, unit in enumerate(units):
        if unit.cells:
            continue
        near = [
            covs[j]
            for j in (i - 1, i + 1)
            if 0 <= j < len(units) and units[j].chunk == unit.chunk and not units[j].cells
        ]
        support = NEIGHBOUR * max(near, default=0.0)
        if support > covs[i]:
            found.extend(replace(p, borrowed=True) for p in propose(unit, support))
    return found


def tally(top: Proposal, every: list[Proposal]) -> dict[str, float]:
    """Votes per answer (only typed proposals compete when the top one is typed)."""
    votes: dict[str, float] = defaultdict(float)
    for p in every:
        if top.fit > 0 and p.fit == 0:
            continue
        votes[answer_key(p.answer)] += math.exp((p.score - top.score) / VOTE_SCALE) * p.closeness
    return votes


def focus(question: str, weights: dict[str, float], unit: Unit) -> float:
    """0.5 plus half the unit's coverage of the question's focus phrase (1 when it has none)."""
    terms = {t: weights[t] for t in tokenize(focus_phrase(question)) if t in weights}
    return 0.5 + 0.5 * coverage(terms, unit) if terms else 1.0


def denied(question: str, weights: dict[str, float], unit: Unit) -> bool:
    """Does the unit negate a question word the question itself does not negate: the word "-free", or
    a negator up to three words before it ("no longer contains mustard")? A negated limit ("never more
    than 12 hours") states the limit rather than denying anything, so it does not count."""
    asked = question.split()
    negated_in_question = [t for i in sorted(_negated_words(asked)) for t in tokenize(asked[i])]
    words = unit.text.split()
    for i in sorted(_negated_words(words)):
        tokens = word_tokens(words[i])
        agreed = any(matches(t, tokens) for t in negated_in_question)
        if not agreed and any(matches(t, tokens) for t in weights):
            return True
    return False


def _negated_words(words: list[str]) -> set[int]:
    """Indexes of the words a negator up to three words before denies, and of "-free" words."""
    negated = set()
    negators = [_NEGATOR.match(word.lower().strip(".,;:()*")) is not None for word in words]
    for i, word in enumerate(words):
        if _FREE.search(word):
            negated.add(i)
        for j in range(max(0, i - 3), i):
            if negators[j] and not _LIMIT.search(" ".join(words[j + 1 : j + 7]).lower()):
                negated.add(i)
    return negated


def other_year(question: str, unit: Unit, units: list[Unit]) -> bool:
    """Is the unit about another year than the one the question names? Yes when its own text names a
    different year ("How many tonnes in 2024?" is not answered by "In 2025 we donated 89 tonnes"), or when
    no retrieved text names the asked year at all and the unit's headings name another one."""
    asked = set(_YEAR.findall(question))
    if not asked:
        return False
    own = set(_YEAR.findall(unit.text))
    if own:
        return not asked & own
    anywhere = {y for u in units for y in _YEAR.findall(f"{u.text}\n{u.context}")}
    return not asked & anywhere and bool(_YEAR.findall(unit.context))
