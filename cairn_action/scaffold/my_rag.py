"""The system Cairn evaluates (`target = "python:my_rag:answer"` in cairn.toml), written by `cairn init`.

A stand-in to start from: it ranks the paragraphs of docs/ by the question's words and answers with the
sentence that shares most of them, abstaining when none shares enough. Replace the body of `answer`
with a call to your own retriever and generator, and keep the shape of what it returns (Cairn's README,
"Your own RAG system"; a key outside it is an error that names it).
"""

from __future__ import annotations

import re
from pathlib import Path

# Read the documents the way Cairn does (markdown and text as they are; HTML, PDF, reStructuredText and
# AsciiDoc rendered, with the `documents` extra), so every file Cairn evaluates against is searched here.
from cairn_action.index.readers import DOCUMENT_SUFFIXES, Unreadable, render

DOCS = Path(__file__).resolve().parent / "docs"
WORD = re.compile(r"[a-z0-9]+")
COMMON = "a an and are be by can do does for how in is it many much of on or the to what when which who with"
STOP = frozenset(COMMON.split())
MIN_SHARE = 0.6  # abstain unless the best sentence holds this share of the question's words


def _words(text: str) -> set[str]:
    """The question's or passage's words, lower-cased, a plural's `s` dropped, common words left out."""
    return {w.removesuffix("s") for w in WORD.findall(text.lower())} - STOP


def _passages() -> list[dict[str, str]]:
    """Every paragraph of every document, with an id and the document's path under docs/."""
    found = []
    for path in sorted(DOCS.rglob("*")):
        if path.suffix.lower() not in DOCUMENT_SUFFIXES or not path.is_file():
            continue
        try:
            text = render(path.read_bytes(), path.name)
        except Unreadable:
            continue  # Cairn lists these files too (`cairn golden check`)
        paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
        doc = path.relative_to(DOCS).as_posix()
        found += [{"id": f"{doc}#{i}", "text": p, "doc": doc} for i, p in enumerate(paragraphs)]
    return found


def answer(question: str) -> dict[str, object]:
    asked = _words(question)
    ranked = sorted(_passages(), key=lambda p: -len(asked & _words(p["text"])))
    hits = [p for p in ranked if asked & _words(p["text"])][:5]  # best first
    sentences = [
        (len(asked & _words(s)) / max(1, len(asked)), s.strip(), p["id"])
        for p in hits
        for s in re.split(r"(?<=[.!?])\s+", p["text"])
    ]
    share, sentence, cited = max(sentences, default=(0.0, "", ""))
    if share < MIN_SHARE:
        return {"answer": None, "passages": hits}  # abstain: nothing here answers it
    return {
        "answer": sentence,
        "confidence": round(share, 3),
        "passages": hits,
        "citations": [{"id": cited, "quote": sentence}],
    }
