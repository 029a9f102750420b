"""The chunker and the chunk store: offsets, boundaries, overlap, headings, lookups, fingerprint."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from cairn_action.index.chunks import ChunkStore, build_store, chunk_document, make_chunk_id
from cairn_action.index.corpus import Corpus, Document, corpus_hash_of

POLICY = """# Returns Policy

Owner: Customer Service. This policy applies to every account.

## Short deliveries

A short delivery is one where a line was not on the van. Please count cases while the driver is on site. \
A shortfall the driver has marked is credited the same evening. If you find a shortfall later, report it \
within 12 hours of delivery. We check the picking record and the loading scan. Confirmed missing cases are \
credited or sent on your next delivery. Short deliveries never attract a restocking fee.

Short deliveries are rare: in 2025 we shorted 0.4% of lines. Most were picking errors on the night shift, \
which we now double-check with a second scan before the van leaves the depot.

## Reporting windows

| Case | Report within | Evidence |
| --- | --- | --- |
| Short delivery | 12 hours | Signed delivery note |
| Damaged on arrival | 48 hours | 2 photos |
| Wrong item | 3 working days | Photo of label |
| Unopened ambient goods | 21 days | Original packaging |
| Chilled goods | 4 hours | Photos and probe reading |
| Frozen goods | 10 hours | Photos and probe reading |

### Exceptions

Recalled products are never subject to these windows.
"""


def corpus_of(**docs: str) -> Corpus:
    documents = tuple(Document(path=p, text=t) for p, t in sorted(docs.items()))
    return Corpus(root=Path("."), documents=documents, corpus_hash=corpus_hash_of(docs))


def test_chunks__text_is_the_document_slice_and_id_names_it() -> None:
    doc = Document("policies/returns.md", POLICY)
    for chunk in chunk_document(doc, size=300, overlap=60):
        assert chunk.text == POLICY[chunk.start : chunk.end]
        assert chunk.chunk_id == make_chunk_id("policies/returns.md", chunk.start, chunk.end)
        assert chunk.chunk_id == f"policies/returns.md#{chunk.start}-{chunk.end}"


def test_chunks__never_longer_than_size_and_cover_every_word() -> None:
    doc = Document("r.md", POLICY)
    chunks = chunk_document(doc, size=300, overlap=60)
    assert all(len(c.text) <= 300 for c in chunks)
    covered = set()
    for c in chunks:
        covered.update(range(c.start, c.end))
    for word in re.finditer(r"\S+", POLICY):
        assert set(range(word.start(), word.end())) <= covered, word.group()


def test_chunks__end_on_sentence_or_line_boundaries() -> None:
    chunks = chunk_document(Document("r.md", POLICY), size=300, overlap=60)
    for c in chunks:
        after = POLICY[c.end : c.end + 1]
        assert c.text[-1] in ".|:" or after in ("\n", ""), repr(c.text[-30:])


def test_chunks__neighbours_in_a_section_share_about_overlap_characters() -> None:
    chunks = chunk_document(Document("r.md", POLICY), size=300, overlap=120)
    shared = [a.end - b.start for a, b in itertools.pairwise(chunks) if b.start < a.end]
    assert shared, "some neighbours must overlap"
    assert all(0 < s <= 120 for s in shared)


def test_chunks__zero_overlap__no_shared_characters() -> None:
    chunks = chunk_document(Document("r.md", POLICY), size=300, overlap=0)
    assert all(b.start >= a.end for a, b in itertools.pairwise(chunks))


def test_chunks__section_start__begins_a_chunk_without_overlap() -> None:
    chunks = chunk_document(Document("r.md", POLICY), size=300, overlap=120)
    starts = {c.start for c in chunks}
    assert POLICY.index("## Reporting windows") in starts


def test_chunks__heading_path_recorded_outside_text() -> None:
    chunks = chunk_document(Document("r.md", POLICY), size=300, overlap=60)
    later = [c for c in chunks if "report it" in c.text and not c.text.startswith("#")]
    assert later and later[0].heading == "Returns Policy > Short deliveries"
    table = next(c for c in chunks if c.text.startswith("## Reporting windows"))
    assert table.heading == "Returns Policy"


def test_chunks__chunk_starting_inside_a_table__keeps_the_header_row() -> None:
    chunks = chunk_document(Document("r.md", POLICY), size=200, overlap=60)
    mid_table = [c for c in chunks if c.text.startswith("| ") and "| --- |" not in c.text]
    assert mid_table
    assert all(c.table_header == "| Case | Report within | Evidence |" for c in mid_table)
    assert all(c.table_header not in c.text for c in mid_table)


def test_chunks__over_long_sentence__hard_split_at_spaces() -> None:
    text = "# T\n\n" + " ".join(["word"] * 200) + ".\n"
    chunks = chunk_document(Document("t.md", text), size=150, overlap=30)
    assert all(len(c.text) <= 150 for c in chunks)
    assert all(not c.text.startswith(" ") and not c.text.endswith(" ") for c in chunks)


def test_store__deterministic_ids_and_fingerprint() -> None:
    corpus = corpus_of(**{"a.md": POLICY, "b/c.md": POLICY.replace("12 hours", "24 hours")})
    one, two = build_store(corpus, 300, 60), build_store(corpus, 300, 60)
    assert one.chunks == two.chunks
    assert one.fingerprint == two.fingerprint
    assert len(one.fingerprint) == 64


def test_store__fingerprint_changes_with_parameters_and_text() -> None:
    corpus = corpus_of(**{"a.md": POLICY})
    base = build_store(corpus, 300, 60).fingerprint
    assert build_store(corpus, 300, 30).fingerprint != base
    assert build_store(corpus, 400, 60).fingerprint != base
    assert build_store(corpus_of(**{"a.md": POLICY.replace("12", "13")}), 300, 60).fingerprint != base


def test_store__get_and_overlapping() -> None:
    store = build_store(corpus_of(**{"a.md": POLICY, "b.md": POLICY}), 300, 60)
    first = store.chunks[0]
    assert store.get(first.chunk_id) is first
    assert store.get("a.md#0-1") is None
    start = POLICY.index("report it within 12 hours")
    end = start + len("report it within 12 hours")
    hits = store.overlapping("a.md", start, end)
    assert hits and all(c.doc == "a.md" and c.start < end and c.end > start for c in hits)
    expected = [c for c in store.chunks if c.doc == "a.md" and c.start < end and c.end > start]
    assert hits == expected
    assert store.overlapping("missing.md", 0, 10) == []


def test_store__hand_built__works_without_parameters() -> None:
    chunks = chunk_document(Document("a.md", POLICY), 300, 0)
    store = ChunkStore(chunks=tuple(chunks))
    assert store.get(chunks[1].chunk_id) == chunks[1]


def test_build_store__overlap_not_below_size__rejected() -> None:
    with pytest.raises(ValueError, match="overlap"):
        build_store(corpus_of(**{"a.md": POLICY}), 300, 300)
