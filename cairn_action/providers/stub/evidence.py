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
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, fields

from cairn_action.index.chunks import Chunk, sentence_spans, split_pieces
from cairn_action.retrieval.tokenizer import tokenize

_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}")
CONTEXT_WEIGHT = 0.5  # a word in the heading or table header supports a unit, but less than its own text
PREFIX = 5  # shortest stem that may match by prefix (see `matches`)


@dataclass(frozen=True, slots=True)
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
    tokens: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    """The words' tokens (computed from `words` when not given)."""
    context_tokens: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    """The tokens of `context` (computed when not given)."""

    def __post_init__(self) -> None:
        # Given when a chunk's units are reused at another rank (`units_of`), computed otherwise.
        if not self.tokens and self.words:
            object.__setattr__(self, "tokens", frozenset(t for _, _, ts in self.words for t in ts))
        if not self.context_tokens and self.context:
            object.__setattr__(self, "context_tokens", _context_tokens(self.context))

    @property
    def text(self) -> str:
        return self.chunk.text[self.start : self.end]

    def holds(self, token: str) -> float:
        """1 when the unit's text has the token, CONTEXT_WEIGHT when only its headings do, else 0."""
        if matches(token, self.tokens):
            return 1.0
        return CONTEXT_WEIGHT if matches(token, self.context_tokens) else 0.0


_CONTEXTS: dict[str, frozenset[str]] = {}


def _context_tokens(context: str) -> frozenset[str]:
    """The tokens of a heading path (and table header), one shared set per distinct context: the units
    of a section share theirs, and a shared set shares its `_prefix_index`."""
    found = _CONTEXTS.get(context)
    if found is None:
        if len(_CONTEXTS) >= _MEMO_LIMIT // 10:
            _CONTEXTS.clear()
        found = _CONTEXTS[context] = frozenset(tokenize(context))
    return found


def matches(token: str, tokens: frozenset[str]) -> bool:
    """Is `token` among `tokens`, allowing one to extend the other when both have at least PREFIX
    characters? The stemmer leaves "delivered" as `deliv` but "delivery" as `deliveri`, and "complain"
    apart from "complaint"; a shared prefix that long rarely joins unrelated words."""
    if token in tokens:
        return True
    if len(token) < PREFIX or not token.isalpha():
        return False
    if len(tokens) > _INDEXED:
        # The loop below in lookups: a longer token starts with `token` when the first of the sorted
        # tokens from `token` on does; a shorter one when it is one of `token`'s prefixes.
        longer, ordered = _prefix_index(tokens)
        i = bisect_left(ordered, token)
        if i < len(ordered) and ordered[i].startswith(token):
            return True
        return any(token[:k] in longer for k in range(PREFIX, len(token)))
    for t in tokens:  # a loop, not any() over a generator: most sets are a word's one or two tokens
        if len(t) >= PREFIX and (t.startswith(token) or token.startswith(t)):
            return True
    return False


_INDEXED = 8
"""Sets of more tokens than this (a sentence's, a heading's) are matched through `_prefix_index`."""
_PREFIX_INDEX: dict[frozenset[str], tuple[frozenset[str], tuple[str, ...]]] = {}


def _prefix_index(tokens: frozenset[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The tokens of at least PREFIX characters, as a set and sorted (those that start with a given
    string are a run of the sorted ones). Kept per set: a unit's tokens are one shared set, however many
    questions retrieve its chunk (`units_of`); two objects a set, so that the garbage collector, which
    scans what the run keeps, has little more to scan."""
    found = _PREFIX_INDEX.get(tokens)
    if found is None:
        if len(_PREFIX_INDEX) >= _MEMO_LIMIT // 10:
            _PREFIX_INDEX.clear()
        longer = frozenset(t for t in tokens if len(t) >= PREFIX)
        found = _PREFIX_INDEX[tokens] = (longer, tuple(sorted(longer)))
    return found


def matched_by(question_tokens: Iterable[str], tokens: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """For each of `tokens` that some question token `matches`, those question tokens (in their order).

    `matches(q, S)` holds exactly when it holds for one element of S, so a word's matches are the union
    of its tokens' entries here: computed once per unit instead of once per word and question token
    (which was 380,000 calls for the sample's 120 questions). Each question token finds its matches
    through the set's `_prefix_index` rather than by trying every token."""
    tokens = tokens if isinstance(tokens, frozenset) else frozenset(tokens)
    longer, ordered = _prefix_index(tokens)
    found: dict[str, list[str]] = {}
    for q in question_tokens:
        hits = {q} if q in tokens else set()
        if len(q) >= PREFIX and q.isalpha():
            i = bisect_left(ordered, q)
            while i < len(ordered) and ordered[i].startswith(q):  # tokens that extend q
                hits.add(ordered[i])
                i += 1
            hits.update(q[:k] for k in range(PREFIX, len(q)) if q[:k] in longer)  # tokens q extends
        for x in hits:
            found.setdefault(x, []).append(q)
    return {x: tuple(qs) for x, qs in found.items()}


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


_WORD = re.compile(r"\S+")


def _words(text: str) -> tuple[tuple[int, int, frozenset[str]], ...]:
    """Each whitespace-separated word of `text` with its offsets and lexical tokens."""
    memo = _WORD_TOKENS
    words = []
    for match in _WORD.finditer(text):  # `word_tokens` inlined for the words seen before: most of them
        word = match.group()
        found = memo.get(word)
        words.append((match.start(), match.end(), word_tokens(word) if found is None else found))
    return tuple(words)


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


_CHUNK_UNITS: dict[Chunk, tuple[Unit, ...]] = {}
_CHUNK_LIMIT = 4096
"""Chunks whose units are kept: a chunk retrieved for several questions is cut into units once."""


def units_of(rank: int, chunk: Chunk) -> list[Unit]:
    """The answer units of one retrieved chunk (headings and table rules are not units)."""
    cut = _CHUNK_UNITS.get(chunk)
    if cut is None:
        if len(_CHUNK_UNITS) >= _CHUNK_LIMIT:
            _CHUNK_UNITS.clear()
        cut = _CHUNK_UNITS[chunk] = tuple(_cut(rank, chunk))
    return [unit if unit.rank == rank else _at_rank(unit, rank) for unit in cut]


def _at_rank(unit: Unit, rank: int) -> Unit:
    """`unit` at another rank: its fields copied as they are (`dataclasses.replace` would run `__init__`
    and `__post_init__` again, recomputing its token sets, a visible part of the stub's time)."""
    moved = object.__new__(Unit)
    for name in _UNIT_FIELDS:
        object.__setattr__(moved, name, getattr(unit, name))
    object.__setattr__(moved, "rank", rank)
    return moved


_UNIT_FIELDS = tuple(f.name for f in fields(Unit))


def _cut(rank: int, chunk: Chunk) -> list[Unit]:
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


def holdings(question_tokens: Iterable[str], unit: Unit) -> dict[str, float]:
    """`unit.holds(t)` for each question token: found once per unit and question, for `term_weights`
    (which counts the units whose own text has a token, where `holds` is 1) and `coverage` alike."""
    return {t: unit.holds(t) for t in question_tokens}


def term_weights(
    question_tokens: list[str], units: list[Unit], held: list[dict[str, float]] | None = None
) -> dict[str, float]:
    """Rarity of each question token among the units; figures count half (questions often invent them).
    `held`: each unit's `holdings` of the question tokens, if known."""
    df: Counter[str] = Counter()
    distinct = sorted(set(question_tokens))
    if held is None:
        for unit in units:
            df.update(t for t in distinct if matches(t, unit.tokens))
    else:
        for found in held:
            df.update(t for t in distinct if found[t] == 1.0)
    n = len(units)
    weights = {}
    for token in sorted(set(question_tokens)):  # sorted: float sums must not depend on set order
        weight = math.log(1 + (n + 1) / (df[token] + 0.5))
        weights[token] = weight / 2 if any(ch.isdigit() for ch in token) else weight
    return weights


def coverage(weights: dict[str, float], unit: Unit, held: dict[str, float] | None = None) -> float:
    """Weighted share of the question's words the unit holds (context words at CONTEXT_WEIGHT).
    `held`: the unit's `holdings` of (at least) the weights' tokens, if known."""
    total = sum(weights.values())
    if not total:
        return 0.0
    if held is not None:
        return sum(w * held[t] for t, w in sorted(weights.items())) / total
    return sum(w * unit.holds(t) for t, w in sorted(weights.items())) / total


AFTER_DISCOUNT = 0.5


def proximity(
    weights: dict[str, float],
    unit: Unit,
    start: int,
    end: int,
    by_token: dict[str, tuple[str, ...]] | None = None,
) -> float:
    """How closely the question's words lead up to `unit.text[start:end]`: each matched word outside the
    span adds its weight divided by 1 + the number of words between it and the span, at AFTER_DISCOUNT
    when it follows the span (a declarative sentence names its subject and verb, then the figure:
    "accounts ... restart on 2 September"). `by_token`: `matched_by(weights, unit.tokens)`, if known."""
    inside = [i for i, (s, e, _) in enumerate(unit.words) if s < end and e > start]
    if not inside:
        return 0.0
    first, last = inside[0], inside[-1]
    if by_token is None:
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
