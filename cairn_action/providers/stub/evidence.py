"""The stub answerer's view of the retrieved text: answer units, question-word weights, coverage.

A unit is one sentence, list item or table row of a retrieved chunk, with its context: the heading path
(the document title first, so a sentence under "How it started" still says whose story it is) and, for
a table row, the header row. The same sentence reached through two overlapping chunks is one unit, kept
at the better rank, so that overlap never counts as corroboration.

Question words are weighted by their rarity among the retrieved units (an inverse document frequency
over the evidence the answerer actually has): a word the retrieved text never uses weighs most, which
is what makes a question about something the evidence does not mention score low.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from cairn_action.index.chunks import Chunk, sentence_spans, split_pieces
from cairn_action.retrieval.tokenizer import tokenize

_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}")
CONTEXT_WEIGHT = 0.5  # a word in the heading or table header supports a unit, but less than its own text
PREFIX = 5  # shortest stem that may match by prefix (see `matches`)


@dataclass(frozen=True)
class Unit:
    """One sentence, list item or table row of a retrieved chunk."""

    rank: int
    chunk: Chunk
    start: int  # offsets into chunk.text
    end: int
    context: str  # heading path and table header
    cells: tuple[tuple[int, int], ...] = ()  # table row cells (offsets into chunk.text), () for a sentence
    header: tuple[str, ...] = ()  # the header cells of the row's table, () when unknown
    words: tuple[tuple[int, int, frozenset[str]], ...] = field(default=(), compare=False, repr=False)

    @property
    def text(self) -> str:
        return self.chunk.text[self.start : self.end]

    @cached_property
    def tokens(self) -> frozenset[str]:
        return frozenset(t for _, _, ts in self.words for t in ts)

    @cached_property
    def context_tokens(self) -> frozenset[str]:
        return frozenset(tokenize(self.context))

    def holds(self, token: str) -> float:
        """1 when the unit's text has the token, CONTEXT_WEIGHT when only its headings do, else 0."""
        if matches(token, self.tokens):
            return 1.0
        return CONTEXT_WEIGHT if matches(token, self.context_tokens) else 0.0


def matches(token: str, tokens: frozenset[str]) -> bool:
    """Is `token` among `tokens`, allowing one to extend the other when both have at least PREFIX
    characters? The stemmer leaves "delivered" as `deliv` but "delivery" as `deliveri`, and "complain"
    apart from "complaint"; a shared prefix that long rarely joins unrelated words."""
    if token in tokens:
        return True
    if len(token) < PREFIX or not token.isalpha():
        return False
    for t in tokens:  # a loop, not any() over a generator: most sets are a word's one or two tokens
        if len(t) >= PREFIX and (t.startswith(token) or token.startswith(t)):
            return True
    return False


def matched_by(question_tokens: Iterable[str], tokens: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """For each of `tokens` that some question token `matches`, those question tokens.

    `matches(q, S)` holds exactly when it holds for one element of S, so a word's matches are the union
    of its tokens' entries here: computed once per unit instead of once per word and question token
    (which was 380,000 calls for the sample's 120 questions)."""
    questions = tuple(question_tokens)
    extendable = tuple((q, len(q) >= PREFIX and q.isalpha()) for q in questions)
    found: dict[str, tuple[str, ...]] = {}
    for x in tokens:
        if len(x) >= PREFIX:
            hits = tuple(
                q for q, ext in extendable if q == x or (ext and (x.startswith(q) or q.startswith(x)))
            )
        else:
            hits = tuple(q for q in questions if q == x)
        if hits:
            found[x] = hits
    return found


_MEMO_LIMIT = 200_000
"""Distinct words kept before the memo starts again: tens of MB at most, however long the run."""
_WORD_TOKENS: dict[str, frozenset[str]] = {}


def word_tokens(word: str) -> frozenset[str]:
    """The lexical tokens of one whitespace-separated word, as one shared frozenset per distinct word."""
    found = _WORD_TOKENS.get(word)
    if found is None:
        if len(_WORD_TOKENS) >= _MEMO_LIMIT:
            _WORD_TOKENS.clear()
        found = _WORD_TOKENS[word] = frozenset(tokenize(word))
    return found


def _words(text: str) -> tuple[tuple[int, int, frozenset[str]], ...]:
    """Each whitespace-separated word of `text` with its offsets and lexical tokens."""
    return tuple((m.start(), m.end(), word_tokens(m.group())) for m in re.finditer(r"\S+", text))


def cells_of(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The non-empty cells of the table row `text[start:end]`, as offsets into `text`."""
    cells = []
    pos = start
    for match in re.finditer(r"\|", text[start:end]):
        bar = start + match.start()
        raw = text[pos:bar]
        if raw.strip():
            lead = len(raw) - len(raw.lstrip())
            cells.append((pos + lead, pos + len(raw.rstrip())))
        pos = bar + 1
    raw = text[pos:end]
    if raw.strip():
        cells.append((pos + len(raw) - len(raw.lstrip()), pos + len(raw.rstrip())))
    return cells


def _heading_path(chunk: Chunk, local: str) -> str:
    """The heading path of a piece: the chunk's, or the document title plus the chunk-local path."""
    if not local:
        return chunk.heading
    title = chunk.heading.split(" > ")[0] if chunk.heading else ""
    return f"{title} > {local}" if title and not local.startswith(title) else local


def units_of(rank: int, chunk: Chunk) -> list[Unit]:
    """The answer units of one retrieved chunk (headings and table rules are not units)."""
    text = chunk.text
    pieces = split_pieces(text, max(len(text), 1))
    units: list[Unit] = []
    for i, piece in enumerate(pieces):
        if piece.is_heading:
            continue
        heading = _heading_path(chunk, piece.heading)
        if piece.is_row:
            row = text[piece.start : piece.end]
            following = text[pieces[i + 1].start : pieces[i + 1].end] if i + 1 < len(pieces) else ""
            if _TABLE_RULE.match(row) or _TABLE_RULE.match(following):  # rule row, or the header above it
                continue
            header_row = piece.table_header or chunk.table_header
            header = tuple(header_row[s:e] for s, e in cells_of(header_row, 0, len(header_row)))
            cells = tuple(cells_of(text, piece.start, piece.end))
            words = _words(row)
            context = f"{heading}\n{header_row}"
            units.append(Unit(rank, chunk, piece.start, piece.end, context, cells, header, words))
            continue
        for s, e in sentence_spans(text, piece.start, piece.end):
            units.append(Unit(rank, chunk, s, e, heading, words=_words(text[s:e])))
    return units


def evidence_units(ranked_chunks: list[tuple[int, Chunk]]) -> list[Unit]:
    """Every unit of the retrieved chunks, each distinct passage once (at its best rank)."""
    seen: set[tuple[str, int, int]] = set()
    units = []
    for rank, chunk in sorted(ranked_chunks, key=lambda rc: rc[0]):
        for unit in units_of(rank, chunk):
            where = (chunk.doc, chunk.start + unit.start, chunk.start + unit.end)
            if where not in seen:
                seen.add(where)
                units.append(unit)
    return units


def term_weights(question_tokens: list[str], units: list[Unit]) -> dict[str, float]:
    """Rarity of each question token among the units; figures count half (questions often invent them)."""
    df: Counter[str] = Counter()
    for unit in units:
        df.update(t for t in sorted(set(question_tokens)) if matches(t, unit.tokens))
    n = len(units)
    weights = {}
    for token in sorted(set(question_tokens)):  # sorted: float sums must not depend on set order
        weight = math.log(1 + (n + 1) / (df[token] + 0.5))
        weights[token] = weight / 2 if any(ch.isdigit() for ch in token) else weight
    return weights


def coverage(weights: dict[str, float], unit: Unit) -> float:
    """Weighted share of the question's words the unit holds (context words at CONTEXT_WEIGHT)."""
    total = sum(weights.values())
    if not total:
        return 0.0
    return sum(w * unit.holds(t) for t, w in sorted(weights.items())) / total


AFTER_DISCOUNT = 0.5


def proximity(weights: dict[str, float], unit: Unit, start: int, end: int) -> float:
    """How closely the question's words lead up to `unit.text[start:end]`: each matched word outside the
    span adds its weight divided by 1 + the number of words between it and the span, at AFTER_DISCOUNT
    when it follows the span (a declarative sentence names its subject and verb, then the figure:
    "accounts ... restart on 2 September")."""
    inside = [i for i, (s, e, _) in enumerate(unit.words) if s < end and e > start]
    if not inside:
        return 0.0
    first, last = inside[0], inside[-1]
    by_token = matched_by(weights, unit.tokens)
    best: dict[str, float] = {}
    for i, (_, _, tokens) in enumerate(unit.words):
        if first <= i <= last:
            continue  # a word of the span itself says nothing about which span is meant
        near = 1 / (first - i) if i < first else AFTER_DISCOUNT / (i - last)
        for x in tokens:
            for token in by_token.get(x, ()):
                best[token] = max(best.get(token, 0.0), near)
    return sum(weights[t] * near for t, near in sorted(best.items()))
