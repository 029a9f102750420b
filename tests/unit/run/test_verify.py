"""Citation verification, rule containment-1: claims checked against the text of the chunks cited."""

from __future__ import annotations

from cairn_action.index.chunks import Chunk, ChunkStore
from cairn_action.providers.base import AnswerResult
from cairn_action.run.models import Citation
from cairn_action.run.verify import split_claims, verify_citations

TEXT = "Report a shortfall within 12 hours of delivery. Chilled claims: within 4 hours. Fees are 15%."
CHUNK = Chunk(chunk_id="r.md#0-93", doc="r.md", start=0, end=len(TEXT), text=TEXT)
OTHER = Chunk(chunk_id="o.md#0-20", doc="o.md", start=0, end=20, text="Orders close at 16:30")
STORE = ChunkStore(chunks=(CHUNK, OTHER))


def answer(text: str | None, *citations: Citation, abstained: bool = False) -> AnswerResult:
    return AnswerResult(answer_text=text, abstained=abstained, citations=list(citations))


def test_split_claims__sentences_then_clauses() -> None:
    assert split_claims("Within 12 hours. Fees are 15%; chilled: 4 hours.") == [
        "Within 12 hours.",
        "Fees are 15%",
        "chilled: 4 hours.",
    ]
    assert split_claims(" ... ; ") == []


def test_verify__claim_in_cited_chunk__verified() -> None:
    claims = verify_citations(answer("within 12 hours", Citation(chunk_id=CHUNK.chunk_id)), STORE)
    assert [(c.text, c.verified, c.cited_chunk_ids) for c in claims] == [
        ("within 12 hours", True, [CHUNK.chunk_id])
    ]


def test_verify__normalised_containment__case_and_punctuation_ignored() -> None:
    claims = verify_citations(
        answer("Within 12 HOURS of delivery!", Citation(chunk_id=CHUNK.chunk_id)), STORE
    )
    assert claims[0].verified


def test_verify__claim_only_in_an_uncited_chunk__not_verified() -> None:
    claims = verify_citations(answer("16:30", Citation(chunk_id=CHUNK.chunk_id)), STORE)
    assert not claims[0].verified


def test_verify__each_claim_judged__partial_support() -> None:
    result = answer("Within 4 hours. Fees are 20%.", Citation(chunk_id=CHUNK.chunk_id))
    assert [c.verified for c in verify_citations(result, STORE)] == [True, False]


def test_verify__invented_quote__citation_supports_nothing() -> None:
    bad = Citation(chunk_id=CHUNK.chunk_id, quote="Report within 48 hours of delivery.")
    assert not verify_citations(answer("within 12 hours", bad), STORE)[0].verified
    good = Citation(chunk_id=CHUNK.chunk_id, quote="Report a shortfall within 12 hours of delivery.")
    assert verify_citations(answer("within 12 hours", good), STORE)[0].verified


def test_verify__unknown_chunk__not_verified_but_listed() -> None:
    claims = verify_citations(answer("within 12 hours", Citation(chunk_id="nope#0-1")), STORE)
    assert claims[0].verified is False
    assert claims[0].cited_chunk_ids == ["nope#0-1"]


def test_verify__no_citation__not_verified() -> None:
    assert not verify_citations(answer("within 12 hours"), STORE)[0].verified


def test_verify__abstained_or_no_answer__no_claims() -> None:
    assert verify_citations(answer(None, abstained=True), STORE) == []
    assert verify_citations(answer(None), STORE) == []
