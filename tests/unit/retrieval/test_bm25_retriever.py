"""BM25 retrieval and its tokenizer: numbers, SKUs, hyphens, stopwords, deterministic strict ranking."""

from __future__ import annotations

import itertools
import math

import numpy as np

from cairn_action.index.chunks import Chunk, ChunkStore
from cairn_action.retrieval.lexical import BM25Retriever, strictly_decreasing
from cairn_action.retrieval.tokenizer import tokenize


def chunk(doc: str, text: str, heading: str = "") -> Chunk:
    return Chunk(chunk_id=f"{doc}#0-{len(text)}", doc=doc, start=0, end=len(text), text=text, heading=heading)


STORE = ChunkStore(
    chunks=(
        chunk("catalogue.md", "HP-DAI-0142 Mature Cheddar, 5 kg block, case price £35.75."),
        chunk("catalogue2.md", "HP-MEA-0114 Premium Pork Sausages, 5 kg, case price £25.15."),
        chunk("delivery.md", "Next-day orders close at 16:30 the previous working day."),
        chunk("returns.md", "Report a short delivery within 12 hours. A restocking fee of 15% applies."),
        chunk("history.md", "The company was founded in 1991 and has 3 depots.", heading="Company history"),
    )
)


def test_tokenize__numbers_money_time_percent() -> None:
    assert tokenize("£12.40") == ["12.40"]
    assert tokenize("1,000 cases") == ["1000", "case"]
    assert tokenize("2.5 kg at 16:30") == ["2.5", "kg", "16:30"]
    assert tokenize("15%") == ["15", "percent"]


def test_tokenize__sku_whole_and_parts__hyphenated_word_too() -> None:
    assert tokenize("HP-DAI-0142") == ["hp-dai-0142", "hp", "dai", "0142"]
    assert tokenize("next-day") == ["next-day", "next", "day"]


def test_tokenize__stopwords_dropped_stems_applied_negation_kept() -> None:
    assert tokenize("What are the deliveries?") == ["deliveri"]
    assert tokenize("The customer's orders don't arrive") == ["custom", "order", "not", "arriv"]


def test_bm25__sku_query__matches_whole_and_parts() -> None:
    retriever = BM25Retriever(STORE)
    assert retriever.retrieve("HP-DAI-0142", 5)[0].chunk.doc == "catalogue.md"
    assert retriever.retrieve("price of DAI 0142", 5)[0].chunk.doc == "catalogue.md"


def test_bm25__money_and_time_queries__match_figures() -> None:
    retriever = BM25Retriever(STORE)
    assert retriever.retrieve("which product costs 35.75", 5)[0].chunk.doc == "catalogue.md"
    assert retriever.retrieve("what closes at 16:30", 5)[0].chunk.doc == "delivery.md"


def test_bm25__heading_is_indexed_context() -> None:
    retriever = BM25Retriever(STORE)
    assert retriever.retrieve("history", 5)[0].chunk.doc == "history.md"


def test_bm25__no_query_term_in_store__empty() -> None:
    assert BM25Retriever(STORE).retrieve("zebra giraffe", 5) == []
    assert BM25Retriever(STORE).retrieve("what is the", 5) == []


def test_bm25__ranks_contiguous_depth_respected_no_duplicates() -> None:
    hits = BM25Retriever(STORE).retrieve("case price kg", 2)
    assert [h.rank for h in hits] == [1, 2]
    assert len({h.chunk.chunk_id for h in hits}) == 2


def test_bm25__ties__broken_by_chunk_id_and_scores_strictly_decreasing() -> None:
    same = "Chilled goods must be kept below 5 degrees."
    store = ChunkStore(
        chunks=(chunk("z.md", same), chunk("a.md", same), chunk("m.md", same), chunk("x.md", "other"))
    )
    hits = BM25Retriever(store).retrieve("chilled goods", 10)
    assert [h.chunk.doc for h in hits] == ["a.md", "m.md", "z.md"]
    scores = [h.score for h in hits]
    assert all(a > b for a, b in itertools.pairwise(scores))
    assert all(a > b for a, b in itertools.pairwise(np.float32(scores)))  # trec_eval reads a C float
    assert scores[0] - scores[-1] < 1e-5  # the nudge is the smallest float32 step, not a re-scoring


def test_bm25__deterministic_across_instances() -> None:
    one = BM25Retriever(STORE).retrieve("case price delivery", 5)
    two = BM25Retriever(STORE).retrieve("case price delivery", 5)
    assert [(h.chunk.chunk_id, h.score) for h in one] == [(h.chunk.chunk_id, h.score) for h in two]


def test_strictly_decreasing__nudges_only_ties() -> None:
    out = strictly_decreasing([3.0, 2.0, 2.0, 2.0, 1.0])
    assert out[0] == 3.0 and out[1] == 2.0 and out[4] == 1.0
    assert out[1] > out[2] > out[3] > out[4]
    assert np.float32(out[1]) > np.float32(out[2]) > np.float32(out[3])


def test_strictly_decreasing__scores_one_float64_step_apart__still_distinct_in_float32() -> None:
    close = [
        7.25,
        math.nextafter(7.25, -math.inf),
        math.nextafter(math.nextafter(7.25, -math.inf), -math.inf),
    ]
    out = [np.float32(x) for x in strictly_decreasing(close)]
    assert out[0] > out[1] > out[2]


def test_bm25__empty_store__returns_nothing() -> None:
    assert BM25Retriever(ChunkStore(chunks=())).retrieve("anything", 5) == []
