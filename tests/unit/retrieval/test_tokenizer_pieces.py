"""The tokenizer's letters-only shortcut gives the tokens the `_TOKEN` regex gives."""

from __future__ import annotations

from cairn_action.retrieval import tokenizer
from cairn_action.sample.generate import render_corpus

EDGES = [
    "policy",
    "(policy.)",
    "Policy,",
    '"refund"',
    "[see]",
    "don't.",
    "customer's",
    "naïve",
    "Æsir:",
    "ǅemal",
    "Ⅻ",
    "x²",
    "snake_case",
    "a.b",
    "16:30.",
    "(15%)",
    "£12.40,",
    "hp-dai-0142.",
    "and/or",
    "...",
    "()",
    "the.",
    "e-mail!",
    "über?",
    "straße",
    "ﬁle",
    "İstanbul",
    "co-op)",
    "\u2019tis",
]


def test_piece_tokens__sample_corpus_and_edge_cases__as_the_regex_alone() -> None:
    pieces = {p for text in render_corpus(7).values() for p in text.lower().split()}
    pieces.update(p.lower() for p in EDGES)
    shortcut = 0
    for piece in sorted(pieces):
        assert tokenizer._piece_tokens(piece) == tokenizer._matched_tokens(piece), piece
        shortcut += piece.strip(tokenizer._PLAIN_PUNCTUATION).isalpha()
    assert shortcut > len(pieces) // 2  # most pieces take the shortcut: the test exercises it
