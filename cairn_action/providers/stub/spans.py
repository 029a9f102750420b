"""What one evidence unit proposes as the answer: its spans of the asked type, nearest the question first.

A sentence proposes every span of the asked type it holds (never a value the question itself contains),
ordered by how closely the question's words surround it (`stub.evidence.proximity`); the first is the
unit's answer, the others stay as competing readings of the same sentence, each counted by its
closeness relative to the first. A table row proposes the cell of the column the question names. A unit
with nothing of the asked type proposes a short phrase, at fit 0.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from cairn_action.providers.answer_types import KINDS, RANKED_KINDS, AnswerType, Span, candidates
from cairn_action.providers.stub.evidence import Unit, matched_by, proximity
from cairn_action.retrieval.tokenizer import tokenize
from cairn_action.squad import normalize_answer

_QUALIFIER = re.compile(
    r"^(?:within|at least|at most|up to|more than|less than|fewer than|no more than|no later than|over|"
    r"under|after|before|about|around|only|every|each|by)\s+"
)

_TIME_UNITS = frozenset("minute hour day week month year".split())
_NOTHING = re.compile(r"^(?:no|none|nil|never|closed|n/?a|not \w+|-|\u2013|\u2014)\.?$", re.IGNORECASE)


@dataclass(frozen=True)
class Proposal:
    """One answer a unit offers, with what the unit says for it."""

    unit: Unit
    answer: str
    fit: float  # how surely the answer is of the asked type: 1 sure, 0.5 plausible, 0 a mere phrase
    coverage: float
    score: float  # coverage + bonus * fit: what ranks units
    first: bool = True  # the unit's own answer, not a competing reading of it
    closeness: float = 1.0  # proximity to the question's words, relative to the unit's first proposal
    borrowed: bool = False  # support lent by the sentence next to it: a competitor, never the answer
    denies: bool = False  # a table cell saying there is none ("No" under "Restocking fee")


_KEYS: dict[str, str] = {}
_KEYS_LIMIT = 50_000


def answer_key(answer: str) -> str:
    """What makes two answers the same: their figures, each with the time unit right after it ("within
    12 hours" = "12 hours of delivery", "16:30" = "16:30 the previous working day"); an answer without
    figures is its normalised text without a leading qualifier. Kept per answer: every vote asks again."""
    found = _KEYS.get(answer)
    if found is None:
        if len(_KEYS) >= _KEYS_LIMIT:
            _KEYS.clear()
        found = _KEYS[answer] = _answer_key(answer)
    return found


def _answer_key(answer: str) -> str:
    words = normalize_answer(answer).split()
    key = []
    for i, word in enumerate(words):
        if any(ch.isdigit() for ch in word):
            key.append(word)
            unit = words[i + 1].rstrip("s") if i + 1 < len(words) else ""
            if unit in _TIME_UNITS:
                key.append(unit)
    return " ".join(key) if key else _QUALIFIER.sub("", " ".join(words))


def proposals(
    unit: Unit,
    coverage: float,
    kind: AnswerType,
    weights: dict[str, float],
    asked: str,
    counted: set[str],
    bonus: float,
) -> list[Proposal]:
    """The unit's proposals, its own answer first. `coverage` sets only their coverage and score (the
    stub reuses a unit's proposals at another support: `confidence.analyse`)."""

    def fresh(span: str) -> bool:  # the question's own figures and names are never the answer
        return f" {normalize_answer(span)} " not in asked

    def make(answer: str, fit: float, first: bool = True, closeness: float = 1.0) -> Proposal:
        return Proposal(unit, answer, fit, coverage, coverage + bonus * fit, first, closeness)

    if unit.cells:
        answer, fit = _cell_answer(unit, kind, weights, fresh, counted)
        return [replace(make(answer, fit), denies=_NOTHING.match(answer) is not None)]
    spans, fit = _typed_spans(unit.text, kind, fresh, counted)
    if not spans:
        return [make(_phrase(unit, weights), 0.0)]
    by_token = matched_by(weights, unit.tokens)  # once for all the unit's spans
    near = sorted(
        ((proximity(weights, unit, s.start, s.end, by_token), s) for s in spans),
        key=lambda x: (-x[0], x[1].start),
    )
    top = near[0][0]
    return [make(s.text, fit, i == 0, (p / top if top else 1.0)) for i, (p, s) in enumerate(near)]


def _typed_spans(
    text: str, kind: AnswerType, fresh: Callable[[str], bool], counted: set[str]
) -> tuple[list[Span], float]:
    """The spans of the asked type in `text`, and how surely they fit it."""
    spans = [s for s in candidates(text, kind) if fresh(s.text)]
    if not spans:
        return [], 0.0
    # An untyped question ("what is the line for...") makes any salient figure only plausible.
    fit = 0.5 if kind is AnswerType.PHRASE else 1.0
    if kind in RANKED_KINDS:
        order = KINDS[kind]
        best = min(order.index(s.kind) for s in spans)
        spans = [s for s in spans if s.kind == order[best]]
        fit = max(0.5, 1.0 - 0.25 * best)  # "when" is best a date, less surely a time, least a duration
    if kind is AnswerType.COUNT and counted:
        # "how many X": a figure followed by X is the count; any other figure is only a guess.
        counting = [s for s in spans if counted & set(tokenize(" ".join(text[s.end :].split()[:3])))]
        spans, fit = (counting, 1.0) if counting else (spans, 0.5)
    return spans, fit


def _cell_answer(
    unit: Unit, kind: AnswerType, weights: dict[str, float], fresh: Callable[[str], bool], counted: set[str]
) -> tuple[str, float]:
    """The cell of the column the question names (by its header), else the first cell of the asked type
    (for "how many X" only a guess, as in a sentence: the table never said the figure counts X)."""
    text = unit.chunk.text
    cells = [text[s:e] for s, e in unit.cells]
    best, best_weight = None, 0.0
    for i, cell in enumerate(cells[1:], start=1):
        if i >= len(unit.header) or not fresh(cell):
            continue
        weight = sum(weights.get(t, 0.0) for t in sorted(set(tokenize(unit.header[i]))))
        if weight > best_weight:
            best, best_weight = cell, weight
    if best is not None:
        if _NOTHING.match(best):
            return best, 0.0  # "No" under "Restocking fee": the table says there is nothing to give
        # The named column's cell is the answer; surely so when it also holds a value of the asked type.
        typed = not KINDS[kind] or any(fresh(s.text) for s in candidates(best, kind))
        return best, 1.0 if typed else 0.5
    for cell in cells[1:]:
        spans = [s for s in candidates(cell, kind) if fresh(s.text)]
        if spans:
            return spans[0].text, 0.5 if counted else 0.75
    return (cells[-1] if cells else unit.text), 0.0


def _phrase(unit: Unit, weights: dict[str, float]) -> str:
    """A short phrase for a question with no typed answer: the clause after the question's last word."""
    words = unit.text.split()
    hits = matched_by(weights, unit.tokens).keys()
    # The last word holding a question word: looked for from the end.
    last = next((i for i in range(len(unit.words) - 1, -1, -1) if not hits.isdisjoint(unit.words[i][2])), -1)
    tail = []
    for word in words[last + 1 :]:
        tail.append(word.rstrip(".,;:"))
        if word[-1] in ".,;:" or len(tail) == 10:
            break
    if len(tail) < 2:
        tail = words[:10]
    return " ".join(tail).strip(" .,;:")
