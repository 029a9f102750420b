"""The lexical tokenizer shared by BM25 and the stub answerer.

Business documents are full of figures and codes, and a generic word tokenizer mangles them. Rules:
- numbers keep their decimal point and lose thousands separators: "2.5" → `2.5`, "1,000" → `1000`;
- a currency sign is dropped, so "£12.40" and "12.40 pounds" share `12.40`; "15%" gives `15` and `percent`;
- clock times stay whole: "16:30" → `16:30`;
- hyphenated words and codes give the whole and its parts: "HP-DAI-0142" → `hp-dai-0142`, `hp`, `dai`,
  `0142`, so a query can match a SKU exactly or by its category letters;
- light English stopword removal (function words only: negations and numbers are kept);
- English Snowball stemming (PyStemmer) of plain alphabetic words; codes and numbers are never stemmed.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from itertools import chain

import Stemmer

TOKENIZER_VERSION = "cairn-lexical-1"

# Money and plain numbers (with optional thousands separators and decimals), clock times, then words
# made of letters/digits joined by hyphens, apostrophes or slashes.
_TOKEN = re.compile(
    r"""
    (?P<time>\b\d{1,2}:\d{2}\b)
  | [£$€]?(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w-])(?P<pct>%)?
  | (?P<word>[^\W_]+(?:[-'\u2019/][^\W_]+)*)
    """,
    re.VERBOSE,
)
# Whitespace is never inside a `_TOKEN` match and is neither a word character nor "-", so `\b` and
# `(?![\w-])` see the same thing at a whitespace-delimited piece's ends as at the text's ends: the
# matches of a text are the matches of its pieces, each found on its own. `str.split` finds the pieces in
# C, and a piece seen before is a dictionary hit; the alternation above, tried at every position of the
# text, was most of the cost of indexing.

STOPWORDS = frozenset(
    """
    a an the and or but if then so as of at by for from in into on onto to with within without about
    above below over under up down out off than too very can could may might must shall should will
    would do does did done doing be is am are was were been being have has had having i me my we our
    ours us you your yours he him his she her hers it its they them their theirs this that these those
    there here what which who whom whose when where why how any some each every all both either such
    also just only own same other another s t d ll re ve m o y get gets got let lets please tell
    """.split()
)


class _Stemmers(threading.local):
    """PyStemmer objects are not shareable across threads; the runner may answer cases concurrently."""

    def __init__(self) -> None:
        self.english = Stemmer.Stemmer("english")


_stemmers = _Stemmers()


def stem(word: str) -> str:
    """The Snowball English stem of a lower-case alphabetic word."""
    return _stemmers.english.stemWord(word)


def _split_word(word: str) -> list[str]:
    if word.isalpha():
        # Letters only (most words): no apostrophe or joiner to split at, so what the lines below would
        # give without the string replace, `re.split` and lists (each new word of a cold run comes here).
        return [] if word in STOPWORDS else [stem(word)]
    word = word.replace("\u2019", "'")
    if "'" in word:
        # Clitics: "customer's" is "customer", "they're" is "they", "don't" keeps its "not".
        head, _, tail = word.partition("'")
        negation = ["not"] if tail == "t" and head.endswith("n") else []
        if negation:
            word = {"can": "can", "won": "will", "shan": "shall"}.get(head, head[:-1])
        else:
            word = head
        return [*_split_word(word), *negation] if word else negation
    parts = [p for p in re.split(r"[-/]", word) if p]
    if len(parts) == 1:
        return [] if word in STOPWORDS else [_normal(word)]
    tokens = [word]
    tokens.extend(_normal(p) for p in parts if p not in STOPWORDS)
    return tokens


def _normal(word: str) -> str:
    return stem(word) if word.isalpha() else word


_PLAIN_PUNCTUATION = '.,;:!?()[]"'
"""Characters that are never part of a `_TOKEN` match beside letters alone: not word characters, not
joiners (hyphen, apostrophes, slash), not currency or %; ':' belongs to a clock time only between digits."""


def _piece_tokens(piece: str) -> tuple[str, ...]:
    """Tokens of one whitespace-free piece of lower-cased text, in order."""
    word = piece.strip(_PLAIN_PUNCTUATION)
    if word.isalpha():
        # Letters only, once plain punctuation is off its ends ("policy", "(policy.)"): `_TOKEN` would
        # match it whole as a word (letters are word characters) and nothing else: the regex skipped.
        return _word_cache[word]
    return _matched_tokens(piece)


def _matched_tokens(piece: str) -> tuple[str, ...]:
    """`_piece_tokens` by the `_TOKEN` regex alone, for any piece."""
    tokens: list[str] = []
    for match in _TOKEN.finditer(piece):
        if match.group("time"):
            tokens.append(match.group("time"))
        elif match.group("number"):
            tokens.append(match.group("number").replace(",", ""))
            if match.group("pct"):
                tokens.append("percent")
        else:
            tokens.extend(_word_cache[match.group("word")])
    return tuple(tokens)


class _Memo(dict[str, tuple[str, ...]]):
    """text -> `compute(text)`, filled on first sight. A corpus repeats its vocabulary, so nearly every
    lookup is a hit and `tokenize` stays in C (map over `str.split`) for all but new pieces; words are
    memoised too, as "policy", "policy." and "(policy" are three pieces but one word to stem."""

    LIMIT = 1_000_000

    def __init__(self, compute: Callable[[str], tuple[str, ...]]) -> None:
        super().__init__()
        self.compute = compute

    def __missing__(self, text: str) -> tuple[str, ...]:
        if len(self) >= self.LIMIT:  # bounded: a corpus of endless unique codes cannot grow it forever
            self.clear()
        tokens = self[text] = self.compute(text)
        return tokens


_word_cache = _Memo(lambda word: tuple(_split_word(word)))
_piece_cache = _Memo(_piece_tokens)


def tokenize(text: str) -> list[str]:
    """Lexical tokens of `text`, in order, with repeats (see the module docstring for the rules)."""
    return list(chain.from_iterable(map(_piece_cache.__getitem__, text.lower().split())))
