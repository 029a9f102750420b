"""Evidence-complete and first-overlap ranks (docs/concepts/statistics.md#evidence-rank)."""

from __future__ import annotations

from cairn_action.golden.models import ResolvedSupport
from cairn_action.index.chunks import Chunk
from cairn_action.index.evidence import evidence_ranks


def chunk(name: str, start: int, end: int, doc: str = "d.md") -> Chunk:
    return Chunk(chunk_id=name, doc=doc, start=start, end=end, text="x" * (end - start))


C01 = chunk("c01", 0, 200)
C02 = chunk("c02", 150, 350)
C03 = chunk("c03", 300, 500)
C07 = chunk("c07", 900, 1100)
C08 = chunk("c08", 1050, 1250)


def test_evidence__worked_example_spanning_quote__complete_at_5_first_overlap_at_2() -> None:
    # docs/concepts/statistics.md#evidence-rank: quote [1000, 1150) spans c07 = [900, 1100) and c08 = [1050,
    # 1250).
    ranking = [C03, C08, C01, C02, C07]
    assert evidence_ranks([ResolvedSupport("d.md", 1000, 1150)], ranking) == (5, 2)


def test_evidence__quote_inside_overlap__either_chunk_suffices() -> None:
    span = ResolvedSupport("d.md", 1060, 1090)
    assert evidence_ranks([span], [C03, C08, C07]) == (2, 2)
    assert evidence_ranks([span], [C07, C03, C08]) == (1, 1)


def test_evidence__spanning_quote_only_one_half_retrieved__never_complete() -> None:
    assert evidence_ranks([ResolvedSupport("d.md", 1000, 1150)], [C01, C08, C03]) == (None, 2)


def test_evidence__multi_doc__needs_every_span() -> None:
    other = chunk("o1", 0, 300, doc="e.md")
    spans = [ResolvedSupport("d.md", 10, 50), ResolvedSupport("e.md", 100, 120)]
    assert evidence_ranks(spans, [C01, C03, other]) == (3, 1)
    assert evidence_ranks(spans, [C01, C03]) == (None, 1)


def test_evidence__same_offsets_other_document__no_overlap() -> None:
    other = chunk("o1", 0, 300, doc="e.md")
    assert evidence_ranks([ResolvedSupport("d.md", 10, 50)], [other]) == (None, None)


def test_evidence__span_edges_are_half_open() -> None:
    # [200, 250) starts where c01 ends: c01 shares no character with it.
    assert evidence_ranks([ResolvedSupport("d.md", 200, 250)], [C01, C02]) == (2, 2)


def test_evidence__no_spans_or_no_chunks__none() -> None:
    assert evidence_ranks([], [C01]) == (None, None)
    assert evidence_ranks([ResolvedSupport("d.md", 0, 10)], []) == (None, None)
