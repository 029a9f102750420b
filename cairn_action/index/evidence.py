"""Where a case's evidence surfaces in a ranking of chunks (docs/concepts/statistics.md#evidence-rank).

A support quote is a character span of a document. It may lie inside one chunk, inside the overlap of
two (either suffices), or across a chunk boundary (both are needed). The evidence-complete rank is the
smallest k whose top-k chunks together cover every character of every support span: KILT-style AND
across the spans of a multi-document case, with OR for free when one chunk holds a whole span. It gives
each case exactly one "relevant item", so recall@k, MRR and nDCG keep their one-relevant-item formulas.
A document- or section-level support (no quote) is covered by any one chunk that overlaps it.
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn_action.golden.models import ResolvedSupport
from cairn_action.index.chunks import Chunk, ChunkStore


def _subtract(gaps: list[tuple[int, int]], start: int, end: int) -> list[tuple[int, int]]:
    """The parts of `gaps` (disjoint half-open intervals) outside [start, end)."""
    remaining = []
    for gap_start, gap_end in gaps:
        if end <= gap_start or start >= gap_end:
            remaining.append((gap_start, gap_end))
            continue
        if gap_start < start:
            remaining.append((gap_start, start))
        if end < gap_end:
            remaining.append((end, gap_end))
    return remaining


def evidence_ranks(
    spans: Sequence[ResolvedSupport], ranked_chunks: Sequence[Chunk]
) -> tuple[int | None, int | None]:
    """(evidence-complete rank, first-overlap rank), both 1-based, for one case.

    evidence-complete rank: the smallest k such that the union of `ranked_chunks[:k]` covers every
    support span entirely; None when the whole list never does (or there are no spans).
    first-overlap rank: the rank of the first chunk sharing a character with any span; None if none does.
    `ranked_chunks` is best first and should already be deduplicated (a repeat changes nothing here).
    """
    if not spans:
        return None, None
    uncovered = {i: [(span.start, span.end)] for i, span in enumerate(spans)}
    complete: int | None = None
    first_overlap: int | None = None
    for rank, chunk in enumerate(ranked_chunks, start=1):
        for i, span in enumerate(spans):
            if chunk.doc != span.doc_path or chunk.end <= span.start or chunk.start >= span.end:
                continue
            if first_overlap is None:
                first_overlap = rank
            if i in uncovered:
                # Document- or section-level support (the curation guide's `contexts`): one chunk of it
                # is the evidence, as context_recall counts a retrieved document.
                end = span.end if span.any_chunk else chunk.end
                start = span.start if span.any_chunk else chunk.start
                uncovered[i] = _subtract(uncovered[i], start, end)
                if not uncovered[i]:
                    del uncovered[i]
        if not uncovered:
            complete = rank
            break
    return complete, first_overlap


def support_chunk_ids(store: ChunkStore, spans: Sequence[ResolvedSupport]) -> tuple[list[str], bool]:
    """Ids of the chunks overlapping any span (over the whole store), and whether every span has one."""
    ids: dict[str, None] = {}
    every_span = True
    for span in spans:
        chunks = store.overlapping(span.doc_path, span.start, span.end)
        every_span = every_span and bool(chunks)
        for chunk in chunks:
            ids.setdefault(chunk.chunk_id, None)
    return list(ids), every_span
