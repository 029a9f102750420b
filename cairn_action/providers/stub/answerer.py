"""The stub answerer: an offline, deterministic, free extractive baseline.

For each question it
1. types the question (how long, how many, how much, when, what time, what year, how cold, who, which,
   yes/no, what...); it declines "why" questions and yes/no questions, whose answers are an explanation
   or a verdict, not a span of the evidence it could cite;
2. splits the top-k chunks into sentences, table rows and list items, and scores each by how much of the
   question it covers (`stub.evidence`: question words weighted by their rarity in the retrieved text,
   heading and table-header words at half weight);
3. proposes from each unit the spans of the asked type (a figure with its unit, money, a percentage, a
   temperature, a time with its day, a date, a name, a phone number or a code; for "how many X" a figure
   followed by X; the cell of the column a table row's header names), never a value the question itself
   contains, the one the question's words lead up to first (`stub.spans`);
4. answers with the span most of the well-supported evidence gives, cites the unit it took it from, and
   reports the confidence of `stub.confidence`: the product of the unit's support (rare question words
   counting most), its coverage of the question's focus, the type match, the answer's share among
   competing answers, and penalties for a denied premise, another year and a low retrieval rank;
5. abstains (the reason in `raw_output`) when no unit covers `min_support` of the question, or the best
   one holds no span of the asked type (an untyped "what" question may still get a short phrase when the
   support is clearly higher).
"""

from __future__ import annotations

import hashlib
import json

from cairn_action.providers.answer_types import AnswerType, question_type
from cairn_action.providers.base import AnswerRequest, AnswerResult
from cairn_action.providers.stub.confidence import Analysis, analyse
from cairn_action.run.models import Citation, Usage

PROMPT_VERSION = "stub-extractive-2"
CONFIDENCE_SOURCE = "stub-support-score"
DEFAULT_MODEL = "stub-extractive-v1"
_PHRASE_MARGIN = 0.15  # an untyped phrase needs this much support above min_support


class StubAnswerer:
    """Extractive baseline answerer (`provider.name = "stub"`): no network, no tokens, no cost."""

    name = "stub"
    deterministic = True
    """The same question and chunks always give the same answer: one sample is the whole truth."""

    def __init__(self, model: str = DEFAULT_MODEL, *, min_support: float = 0.35) -> None:
        self.model = model
        self.min_support = min_support

    def request_key(self, request: AnswerRequest) -> str:
        """sha256 of provider, model, parameters, prompt version, question and every chunk's id and text."""
        payload = {
            "provider": self.name,
            "model": self.model,
            "params": {"min_support": self.min_support},
            "prompt_version": PROMPT_VERSION,
            "question": request.question,
            "chunks": [
                [h.chunk.chunk_id, h.chunk.heading, h.chunk.table_header, h.chunk.text] for h in request.hits
            ],
        }
        return hashlib.sha256(json.dumps(payload, ensure_ascii=True).encode()).hexdigest()

    def _abstain(self, confidence: float, why: str) -> AnswerResult:
        return AnswerResult(
            answer_text=None,
            abstained=True,
            confidence=round(confidence, 6),
            confidence_source=CONFIDENCE_SOURCE,
            raw_output=why,
        )

    def analyse(self, request: AnswerRequest) -> Analysis | str:
        """The chosen answer with its evidence and confidence, or why there is none."""
        kind = question_type(request.question)
        if kind is AnswerType.REASON:
            return "an explanation question has no short extractive answer"
        if kind is AnswerType.YES_NO:
            return "a yes/no question asks for a verdict, not a span the evidence holds"
        return analyse(request.question, kind, request.hits)

    def answer(self, request: AnswerRequest) -> AnswerResult:
        """Answer from the request's chunks only (see the module docstring)."""
        analysis = self.analyse(request)
        if isinstance(analysis, str):
            return self._abstain(0.0, analysis)
        best = analysis.best
        confidence = analysis.confidence
        if best.coverage < self.min_support:
            return self._abstain(confidence, f"best support {best.coverage:.2f} < {self.min_support}")
        phrase_ok = analysis.kind is AnswerType.PHRASE and best.coverage >= self.min_support + _PHRASE_MARGIN
        if best.fit == 0 and not phrase_ok:
            why = f"no {analysis.kind.value} answer in the best-supported sentence"
            return self._abstain(confidence, why)
        return AnswerResult(
            answer_text=best.answer,
            abstained=False,
            citations=[Citation(chunk_id=best.unit.chunk.chunk_id, quote=best.unit.text)],
            confidence=round(confidence, 6),
            confidence_source=CONFIDENCE_SOURCE,
            usage=Usage(),
            cost_usd=0.0,
        )
