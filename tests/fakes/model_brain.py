"""What the fake models "think": deterministic replies under Cairn's answer contract and judge rubric.

Answering: the passage and sentence sharing most words with the question; the answer is that sentence,
cited with itself as the quote. No shared word means abstain. Grading: the candidate contains the
reference (case and punctuation aside) → 1.0, else 0.0. Good enough to drive a run end to end; the
numbers are not the point, the wire is.
"""

from __future__ import annotations

import json
import math
import re

_PASSAGE = re.compile(r'<passage id="([^"]*)"[^>]*>\n(.*?)\n</passage>', re.DOTALL)
_WORD = re.compile(r"[a-z0-9£$%]+")
_STOP = frozenset(
    "a an the of to in on for is are was be do does how what when which who many much by and or".split()
)


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def tokens(text: str) -> int:
    """A stand-in tokenizer: four characters a token, as the vendors' rule of thumb."""
    return math.ceil(len(text) / 4)


def answer(user: str) -> str:
    question = user.rsplit("Question:", 1)[-1].strip()
    wanted = words(question)
    best: tuple[int, str, str] | None = None
    for chunk_id, text in _PASSAGE.findall(user):
        for sentence in re.split(r"(?<=[.!?])\s+", text.strip()):
            overlap = len(wanted & words(sentence))
            if overlap and (best is None or overlap > best[0]):
                best = (overlap, chunk_id, sentence.strip())
    if best is None:
        return json.dumps(
            {"answer": None, "citations": [], "confidence": 0, "abstain": True, "reason": "no match"}
        )
    overlap, chunk_id, sentence = best
    confidence = round(min(1.0, overlap / max(1, len(wanted))), 3)
    reply = {
        "answer": sentence,
        "citations": [{"chunk_id": chunk_id, "quote": sentence}],
        "confidence": confidence,
        "abstain": False,
    }
    return json.dumps(reply)


def grade(user: str) -> str:
    fields = dict(re.findall(r"^(Question|Reference answer|Candidate answer): (.*)$", user, re.MULTILINE))
    reference = " ".join(sorted(words(fields.get("Reference answer", ""))))
    candidate = words(fields.get("Candidate answer", ""))
    hit = bool(reference) and set(reference.split()) <= candidate
    return json.dumps(
        {
            "score": 1.0 if hit else 0.0,
            "correct": hit,
            "rationale": "contains the reference" if hit else "does not",
        }
    )


# What the fake "knows" about a corpus's vocabulary when asked to rewrite a question (query rewriting):
# an employee's words on the left, a handbook's on the right.
THESAURUS = {
    "heads-up": "inform notice",
    "disappear": "leave absence",
    "boss": "manager",
    "refund": "reimbursement",
}
_NUMBERED = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)


def rewrite(user: str) -> str:
    """A 'hypothetical passage': the question with every known word replaced by the corpus's words."""
    question = user.rsplit("Question:", 1)[-1].strip()
    return " ".join(THESAURUS.get(w.strip("?.,").lower(), w) for w in question.split())


def rerank(user: str) -> str:
    """Passage numbers by words shared with the question, most first (ties: the lower number first)."""
    question = user.split("Question:", 1)[-1].split("\nPassages:", 1)[0]
    wanted = words(question)
    scored = [(-len(wanted & words(text)), int(n)) for n, text in _NUMBERED.findall(user)]
    return json.dumps({"ranking": [n for _, n in sorted(scored)]})


def reply_for(system: str, user: str) -> str:
    if system.startswith("You rank passages"):
        return rerank(user)
    if system.startswith("You help search"):
        return rewrite(user)
    return grade(user) if "Reference answer:" in user else answer(user)
