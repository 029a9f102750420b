"""A tiny RAG system of the kind a user brings to Cairn: keyword retrieval and an extractive answer.

`answer(question)` is a `python:` target; `rag_service.FakeRagService` serves the same function over
HTTP. The corpus is `tests/data/tiny_rag/corpus` (paragraphs are the passages). Deterministic.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[1] / "data" / "tiny_rag" / "corpus"
_WORD = re.compile(r"[a-z0-9£:]+")
_STOP = frozenset(
    "a an the of to in on for is are was be do does did how what when which who why many much by and or at "
    "it its within long".split()
)


def _words(text: str) -> set[str]:
    return {w.strip(":") for w in _WORD.findall(text.lower())} - _STOP


@cache
def _passages() -> tuple[tuple[str, int, str], ...]:
    """(document, paragraph number, text) for every paragraph that is not a heading."""
    found = []
    for path in sorted(CORPUS.glob("*.md")):
        for number, paragraph in enumerate(path.read_text(encoding="utf-8").split("\n\n")):
            text = paragraph.strip()
            if text and not text.startswith("#"):
                found.append((path.name, number, text))
    return tuple(found)


def answer(question: str) -> dict[str, Any]:
    """Retrieve the three paragraphs sharing most words with the question; answer with the best sentence."""
    wanted = _words(question)
    scored = sorted(
        ((len(wanted & _words(text)), doc, number, text) for doc, number, text in _passages()),
        key=lambda item: (-item[0], item[1], item[2]),
    )
    top = [item for item in scored if item[0] > 0][:3]
    passages = [{"id": f"{doc}#{n}", "text": text, "doc": doc, "score": float(s)} for s, doc, n, text in top]
    if not top or top[0][0] < 2:
        return {
            "answer": None,
            "abstained": True,
            "confidence": 0.1,
            "passages": passages,
            "cost_usd": 0.0001,
        }
    _, doc, number, text = top[0]
    sentences = re.split(r"(?<=[.!?])\s+", text)
    best = max(sentences, key=lambda s: len(wanted & _words(s)))
    return {
        "answer": " ".join(best.split()),
        "confidence": round(min(1.0, len(wanted & _words(best)) / len(wanted)), 3),
        "passages": passages,
        "citations": [{"id": f"{doc}#{number}", "quote": best}],
        "usage": {"input_tokens": 100 + len(question), "output_tokens": len(best) // 4},
        "cost_usd": 0.0001,
    }


def failing_answer(question: str) -> dict[str, Any]:
    """The same system with a bug that bites on questions about drivers."""
    if "driver" in question.lower():
        raise KeyError("drivers")
    return answer(question)


def answer_from_the_last_passage(question: str) -> dict[str, Any]:
    """The same system, whose answerer is given only the last passage it retrieved, and says so (`used`)."""
    reply = answer(question)
    if reply["passages"]:
        reply["used"] = [reply["passages"][-1]["id"]]
    return reply


def answer_using_passages(question: str) -> dict[str, Any]:
    """The same system, saying its answerer used every passage it retrieved."""
    reply = answer(question)
    reply["used"] = [p["id"] for p in reply["passages"]]
    return reply


def returns_nothing(question: str) -> dict[str, Any]:
    """A system pointed at the wrong folder: it finds nothing, so it retrieves nothing and abstains."""
    return {"answer": None, "abstained": True, "passages": []}
