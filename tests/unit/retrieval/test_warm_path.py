"""The warm path reads only what it must: the corpus manifest and the lazily built chunk table."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from cairn_action.errors import DataError
from cairn_action.index.chunks import ChunkStore, ChunkTable
from cairn_action.index.corpus import _RACY_NS, Corpus, Document, _Manifest, load_corpus
from cairn_action.retrieval.index_cache import IndexCache
from cairn_action.retrieval.lexical import BM25Retriever, top_positions

RACY_NS = _RACY_NS  # the module's own, before the fixture below sets it to 0

LEAVE = "# Leave\n\n" + " ".join(f"Rule {i}: tell your manager {i} days before leave {i}." for i in range(30))
EXPENSES = "# Expenses\n\n" + " ".join(f"Receipts over ${i} are filed within {i} days." for i in range(30))


@pytest.fixture(autouse=True)
def _no_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by a test are seconds old at most (their ctime is now, whatever utime says): record
    them anyway, except in the test of the racy window itself."""
    monkeypatch.setattr("cairn_action.index.corpus._RACY_NS", 0)


def _loaded(corpus_dir: Path, manifest: Path) -> Corpus:
    """`load_corpus` with the manifest, saved as a run does once its checks pass."""
    corpus = load_corpus(corpus_dir, manifest=manifest)
    corpus.save_manifest()
    return corpus


def _project(tmp_path: Path) -> tuple[Path, Path]:
    corpus = tmp_path / "corpus"
    (corpus / "hr").mkdir(parents=True)
    (corpus / "hr" / "leave.md").write_text(LEAVE, encoding="utf-8")
    (corpus / "expenses.md").write_text(EXPENSES, encoding="utf-8")
    (corpus / "notes.bin").write_bytes(b"\0")
    (corpus / ".git").mkdir()
    (corpus / ".git" / "HEAD.md").write_text("ref", encoding="utf-8")
    return corpus, tmp_path / "cache" / "corpus.json"


def test_load_corpus__manifest_matches__documents_unread_and_the_same_corpus(tmp_path: Path) -> None:
    corpus_dir, manifest = _project(tmp_path)
    plain = load_corpus(corpus_dir)
    first = _loaded(corpus_dir, manifest)
    assert manifest.is_file()
    second = _loaded(corpus_dir, manifest)
    assert first.corpus_hash == second.corpus_hash == plain.corpus_hash
    assert [d.path for d in second.documents] == ["expenses.md", "hr/leave.md"]
    assert second.skipped == plain.skipped  # the file of another format is still listed
    assert all(d._text is None for d in second.documents)  # nothing read yet
    assert second.documents == plain.documents  # read on demand, and equal
    assert second.by_path()["hr/leave.md"].text == LEAVE


def test_load_corpus__document_rewritten_same_size_and_mtime__read_again(tmp_path: Path) -> None:
    corpus_dir, manifest = _project(tmp_path)
    before = _loaded(corpus_dir, manifest)
    leave = corpus_dir / "hr" / "leave.md"
    stat = leave.stat()
    leave.write_text(LEAVE.replace("Rule 1:", "Rule 9:"), encoding="utf-8")  # same size
    os.utime(leave, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # as cp -p or rsync -t would leave it
    after = _loaded(corpus_dir, manifest)
    assert after.corpus_hash != before.corpus_hash
    assert after.corpus_hash == load_corpus(corpus_dir).corpus_hash
    assert after.by_path()["hr/leave.md"].text.startswith(LEAVE.replace("Rule 1:", "Rule 9:")[:40])


def test_load_corpus__document_changed_after_the_check__refused_when_read(tmp_path: Path) -> None:
    corpus_dir, manifest = _project(tmp_path)
    _loaded(corpus_dir, manifest)
    corpus = _loaded(corpus_dir, manifest)
    (corpus_dir / "expenses.md").write_text(EXPENSES + " More.", encoding="utf-8")
    with pytest.raises(DataError, match=r"expenses.md: the document changed while Cairn was running"):
        _ = corpus.by_path()["expenses.md"].text


def test_load_corpus__file_changed_within_the_racy_window__not_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus_dir, manifest = _project(tmp_path)
    monkeypatch.setattr("cairn_action.index.corpus._RACY_NS", RACY_NS)
    time.sleep(0.05)
    now = time.time_ns()
    (corpus_dir / "expenses.md").write_text(EXPENSES, encoding="utf-8")  # changed just now
    # ctime cannot be set back; move the clock of the rule instead: leave.md is older than the window
    monkeypatch.setattr("cairn_action.index.corpus.time.time_ns", lambda: now + RACY_NS - 10**6)
    corpus = _loaded(corpus_dir, manifest)
    recorded = _Manifest.read(manifest)
    assert recorded is not None
    assert sorted(recorded.files) == ["hr/leave.md"]
    assert _loaded(corpus_dir, manifest).corpus_hash == corpus.corpus_hash


@pytest.mark.parametrize("content", [b"", b"{not json", b'{"format": 2, "files": {}}'])
def test_load_corpus__manifest_torn_or_foreign__everything_read_and_rewritten(
    tmp_path: Path, content: bytes
) -> None:
    corpus_dir, manifest = _project(tmp_path)
    manifest.parent.mkdir(parents=True)
    manifest.write_bytes(content)
    corpus = _loaded(corpus_dir, manifest)
    assert all(d._text is not None for d in corpus.documents)
    assert corpus.corpus_hash == load_corpus(corpus_dir).corpus_hash
    recorded = _Manifest.read(manifest)
    assert recorded is not None and len(recorded.files) == 2


def test_load_corpus__document_removed__gone_from_the_corpus(tmp_path: Path) -> None:
    corpus_dir, manifest = _project(tmp_path)
    _loaded(corpus_dir, manifest)
    (corpus_dir / "expenses.md").unlink()
    corpus = _loaded(corpus_dir, manifest)
    assert [d.path for d in corpus.documents] == ["hr/leave.md"]
    assert corpus.corpus_hash == load_corpus(corpus_dir).corpus_hash


def _stores(tmp_path: Path) -> tuple[ChunkStore, ChunkStore]:
    corpus_dir, manifest = _project(tmp_path)
    cache = IndexCache(tmp_path / "index")
    built = cache.store(_loaded(corpus_dir, manifest), 200, 40)
    cached = IndexCache(tmp_path / "index").store(_loaded(corpus_dir, manifest), 200, 40)
    return built, cached


def test_chunk_table__from_the_cache__same_chunks_and_lookups_as_the_built_store(tmp_path: Path) -> None:
    built, cached = _stores(tmp_path)
    assert isinstance(cached.chunks, ChunkTable) and not isinstance(built.chunks, ChunkTable)
    assert len(cached.chunks) == len(built.chunks) > 10
    for position, chunk in enumerate(built.chunks):
        assert cached.chunk_id(position) == chunk.chunk_id
        assert cached.position(chunk.chunk_id) == built.position(chunk.chunk_id) == position
        assert cached.get(chunk.chunk_id) == chunk
    for doc in ("hr/leave.md", "expenses.md", "missing.md"):
        for start, end in ((0, 1), (150, 420), (0, 10_000), (5_000, 5_001)):
            assert cached.overlapping(doc, start, end) == built.overlapping(doc, start, end)
    assert cached.get("hr/leave.md#0-1") is None and cached.get("no-hash") is None
    assert cached.chunks == built.chunks and cached.chunks[-1] == built.chunks[-1]
    with pytest.raises(KeyError):
        cached.position("hr/leave.md#0-1")


def test_chunk_table__one_lookup__builds_that_chunk_and_reads_only_its_document(tmp_path: Path) -> None:
    _, cached = _stores(tmp_path)
    table = cached.chunks
    assert isinstance(table, ChunkTable)
    first_leave = table.chunk_id(table.doc_range("hr/leave.md")[0])
    chunk = cached.get(first_leave)
    assert chunk is not None and chunk.text.startswith("# Leave")
    assert list(table._built.values()) == [chunk]
    assert [d.path for d in table._documents if d._text is not None] == ["hr/leave.md"]


def test_chunk_table__arrays_out_of_order_or_range__refused() -> None:
    doc = np.asarray([1, 0])
    offsets = np.asarray([0, 5])
    with pytest.raises(ValueError, match="out of order or out of range"):
        ChunkTable([], doc, offsets, offsets + 1, doc * 0, doc * 0, [""])
    documents = [Document("a.md", "aaaaaaa"), Document("b.md", "bbbbbbb")]
    with pytest.raises(ValueError, match="contexts out of range"):
        ChunkTable(documents, np.asarray([0, 1]), offsets, offsets + 1, np.asarray([0, 1]), doc * 0, [""])
    with pytest.raises(ValueError, match="different lengths"):
        ChunkTable(documents, np.asarray([0, 1]), offsets, offsets[:1], doc * 0, doc * 0, [""])


def test_top_positions__ties__ordered_by_chunk_id_like_a_full_sort(tmp_path: Path) -> None:
    built, cached = _stores(tmp_path)
    rng = np.random.default_rng(7)
    for _ in range(20):
        scores = rng.integers(0, 4, size=len(built.chunks)).astype(np.float64)  # many ties
        full = sorted(range(len(scores)), key=lambda i: (-scores[i], built.chunks[i].chunk_id))
        for depth in (1, 3, 10, len(scores) + 5):
            expected = [(i, float(scores[i])) for i in full[:depth]]
            assert top_positions(cached, scores, depth) == expected
            assert top_positions(built, scores, depth) == expected


def test_bm25__over_the_cached_table__same_hits_as_over_the_built_store(tmp_path: Path) -> None:
    built, cached = _stores(tmp_path)
    for query in ("tell your manager before leave", "receipts filed", "rule 7 days", "nothing matches zzz"):
        a = [(h.chunk, h.rank, h.score) for h in BM25Retriever(built).retrieve(query, 5)]
        b = [(h.chunk, h.rank, h.score) for h in BM25Retriever(cached).retrieve(query, 5)]
        assert a == b


def test_load_corpus__with_a_manifest__writes_nothing_until_the_run_saves_it(tmp_path: Path) -> None:
    corpus_dir, manifest = _project(tmp_path)
    corpus = load_corpus(corpus_dir, manifest=manifest)
    assert not manifest.exists()  # a run refused after loading (bad input) leaves no file behind
    corpus.save_manifest()
    assert manifest.is_file()
