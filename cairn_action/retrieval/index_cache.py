"""The index, built once: chunks and the BM25 matrix on disk, content-addressed by what they depend on.

Under `<run.cache_dir>/index/`:
- `chunks-<key>.npz`: each chunk's document, offsets, heading path and table header (the text itself is
  sliced from the corpus again when the chunk is first used: it is the corpus), keyed by the corpus
  hash, the chunker's version and the chunk size and overlap;
- `bm25-<key>.npz` (with `bm25-<key>.data.npy` and `.indices.npy`, memory-mapped): the BM25 score
  matrix and its vocabulary, keyed by the chunks' key, the tokenizer's version, the indexed-text layout
  and k1, b;
- `embeddings/<model sha256>/`: one vector per distinct chunk or sentence text (`vector_cache.py`), so a
  changed document re-embeds only its own chunks;
- `dense-<key>.npz` (with `.chunks.npy`, `.sentences.npy`, `.owner.npy`, memory-mapped): those vectors
  assembled for one chunk store, keyed by the chunks' key, the model file, the indexed-text layout and
  the sentence split. A warm dense or hybrid run reads three arrays instead of splitting 10,704 chunks
  into sentences and looking up 62,000 vectors by text hash (0.8 s of a 2.2 s warm run on the handbook).

A second `cairn eval` over the same corpus and chunking rebuilds nothing. `seed` names a read-only folder of
prebuilt entries (the package ships the sample corpus's chunks and BM25 entries in `sample/index/`, built by
`scripts/build_sample_index.py`): an entry the cache lacks and the seed holds is copied in and then read as
any cached entry, checks included. The keys are content hashes, so a seed entry is only ever found for the
very corpus, chunking and BM25 settings it was built from. Every file is written whole
(temporary file, then os.replace); one that cannot be read is rebuilt and noted, never trusted. Nothing
here deletes old entries: the folder is a cache, safe to remove.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from cairn_action.files import LIMIT_ARTIFACT, atomic_writer, read_bytes
from cairn_action.index.chunks import CHUNKER_VERSION, ChunkStore, ChunkTable, build_store
from cairn_action.index.corpus import Corpus
from cairn_action.index.sentences import SENTENCES_VERSION
from cairn_action.retrieval.lexical import INDEX_TEXT_VERSION, LexicalIndex, build_lexical_index
from cairn_action.retrieval.tokenizer import TOKENIZER_VERSION
from cairn_action.retrieval.vector_cache import save_npz

INDEX_CACHE_FORMAT = 1


def _key(**parts: object) -> str:
    canonical = json.dumps({"format": INDEX_CACHE_FORMAT, **parts}, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


def _strings(values: list[str]) -> np.ndarray:
    """Strings as one UTF-8 JSON byte array: a fixed-width unicode array would pad every one."""
    return np.frombuffer(json.dumps(values, ensure_ascii=False).encode("utf-8"), dtype=np.uint8)


def _unstrings(raw: np.ndarray) -> list[str]:
    values = json.loads(raw.tobytes().decode("utf-8"))
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ValueError("not a list of strings")
    return values


@dataclass
class IndexStats:
    """What the cache did in this run, for the log line and the benchmark."""

    chunks: str = "built"
    """`built`, `cached`, or `shipped` (copied from the seed folder)."""
    bm25: str = "built"
    dense: str = "built"
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class DenseArrays:
    """A chunk store's vectors: one row per chunk, and the sentence rows with their owning chunk."""

    chunks: np.ndarray
    sentences: np.ndarray
    owner: np.ndarray
    distinct_sentences: int

    def check(self, n_chunks: int) -> None:
        """Raise ValueError unless these arrays fit a store of `n_chunks` chunks."""
        if len(self.chunks) != n_chunks:
            raise ValueError(f"{len(self.chunks)} chunk vectors for {n_chunks} chunks")
        if len(self.sentences) != len(self.owner):
            raise ValueError("sentence vectors and owners of different lengths")
        if len(self.owner) and (
            int(self.owner.min()) < 0 or int(self.owner.max()) >= n_chunks or np.any(np.diff(self.owner) < 0)
        ):
            raise ValueError("sentence owners out of order or out of range")
        if len(self.sentences) and self.sentences.shape[1:] != self.chunks.shape[1:]:
            raise ValueError("sentence and chunk vectors of different dimensions")


class IndexCache:
    """The on-disk index under `root` (see the module docstring); `root=None` caches nothing."""

    def __init__(self, root: Path | None, seed: Path | None = None) -> None:
        self.root = None if root is None else Path(root)
        self.seed = seed
        """A read-only folder of prebuilt entries (see the module docstring)."""
        self.stats = IndexStats()

    def _from_seed(self, name: str, *siblings: str) -> bool:
        """Copy entry `name` (after its `siblings`) from the seed into the cache when only the seed has it.

        Copied rather than read in place so that the cache folder stays whole: the Action's index-cache
        stores that folder, and the next run reads it like any entry it built.
        """
        if self.root is None or self.seed is None or (self.root / name).is_file():
            return False
        files = [
            self.seed / f for f in (*siblings, name)
        ]  # `name` last: its presence says the entry is whole
        if not all(f.is_file() for f in files):
            return False
        self.root.mkdir(parents=True, exist_ok=True)
        for source in files:
            # not durable: a cache entry a power cut tears is found unreadable and rebuilt
            with atomic_writer(self.root / source.name, prefix=".tmp-", durable=False) as handle:
                handle.write(read_bytes(source, what="shipped index entry", limit=LIMIT_ARTIFACT))
        return True

    @property
    def embeddings_root(self) -> Path | None:
        return None if self.root is None else self.root / "embeddings"

    def _read(self, path: Path) -> dict[str, np.ndarray] | None:
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                return {name: data[name] for name in data.files}
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            self.stats.problems.append(
                f"{path}: unreadable index cache entry ({type(exc).__name__}); rebuilt"
            )
            return None

    def chunks_key(self, corpus: Corpus, size: int, overlap: int) -> str:
        return _key(corpus=corpus.corpus_hash, chunker=CHUNKER_VERSION, size=size, overlap=overlap)

    def store(self, corpus: Corpus, size: int, overlap: int) -> ChunkStore:
        """The chunk store of `corpus`: from the cache when this corpus was chunked so before."""
        if self.root is None:
            return build_store(corpus, size, overlap)
        path = self.root / f"chunks-{self.chunks_key(corpus, size, overlap)}.npz"
        seeded = self._from_seed(path.name)
        data = self._read(path)
        if data is not None:
            try:
                store = _store_from(corpus, data, size, overlap)
            except (ValueError, IndexError) as exc:  # UnicodeDecodeError and JSON errors are ValueErrors
                self.stats.problems.append(f"{path}: inconsistent index cache entry ({exc}); rebuilt")
            else:
                self.stats.chunks = "shipped" if seeded else "cached"
                return store
        store = build_store(corpus, size, overlap)
        save_npz(path, **_store_arrays(corpus, store))
        return store

    def lexical(self, store: ChunkStore, chunks_key: str, *, k1: float, b: float) -> LexicalIndex:
        """The BM25 index of `store` (whose chunks were cached under `chunks_key`)."""
        if self.root is None:
            return build_lexical_index(store, k1=k1, b=b)
        key = _key(chunks=chunks_key, tokenizer=TOKENIZER_VERSION, text=INDEX_TEXT_VERSION, k1=k1, b=b)
        path = self.root / f"bm25-{key}.npz"
        # The score matrix's two big arrays sit beside the .npz as .npy files, memory-mapped when read: a
        # query touches only its tokens' columns, so most of the matrix never becomes resident.
        big = {name: self.root / f"bm25-{key}.{name}.npy" for name in ("data", "indices")}
        seeded = self._from_seed(path.name, *(file.name for file in big.values()))
        data = self._read(path)
        if data is not None:
            try:
                arrays = {
                    name: np.load(file, mmap_mode="r", allow_pickle=False) for name, file in big.items()
                }
                cached = LexicalIndex(
                    vocabulary=tuple(_unstrings(data["vocabulary"])),
                    data=arrays["data"],
                    indices=arrays["indices"],
                    indptr=data["indptr"],
                    num_docs=int(data["num_docs"]),
                )
                if cached.num_docs != len(store.chunks) or len(cached.indptr) != len(cached.vocabulary) + 1:
                    raise ValueError("written for another chunk store")
                if not len(cached.data) == len(cached.indices) == int(cached.indptr[-1]):
                    raise ValueError("score matrix arrays of different lengths")
            except (OSError, ValueError, KeyError) as exc:  # a missing or torn .npy is an OSError/ValueError
                self.stats.problems.append(f"{path}: inconsistent index cache entry ({exc}); rebuilt")
            else:
                self.stats.bm25 = "shipped" if seeded else "cached"
                return cached
        index = build_lexical_index(store, k1=k1, b=b)
        save_npz(big["data"], array=index.data)
        save_npz(big["indices"], array=index.indices)
        save_npz(  # last: its presence says the entry is complete
            path,
            vocabulary=_strings(list(index.vocabulary)),
            indptr=index.indptr,
            num_docs=np.asarray(index.num_docs),
        )
        return index

    def dense(
        self,
        store: ChunkStore,
        chunks_key: str,
        *,
        model_sha256: str,
        sentences: bool,
        build: Callable[[], DenseArrays],
    ) -> DenseArrays:
        """The assembled vectors of `store` for this model: read back, or `build()` and written."""
        if self.root is None:
            return build()
        key = _key(
            chunks=chunks_key,
            model=model_sha256,
            text=INDEX_TEXT_VERSION,
            sentences=SENTENCES_VERSION if sentences else "none",
        )
        path = self.root / f"dense-{key}.npz"
        big = {name: self.root / f"dense-{key}.{name}.npy" for name in ("chunks", "sentences", "owner")}
        data = self._read(path)
        if data is not None:
            try:
                arrays = {
                    name: np.load(file, mmap_mode="r", allow_pickle=False) for name, file in big.items()
                }
                cached = DenseArrays(**arrays, distinct_sentences=int(data["distinct_sentences"]))
                cached.check(len(store.chunks))
            except (OSError, ValueError, KeyError) as exc:
                self.stats.problems.append(f"{path}: inconsistent index cache entry ({exc}); rebuilt")
            else:
                self.stats.dense = "cached"
                return cached
        built = build()
        for name, file in big.items():
            save_npz(file, array=np.ascontiguousarray(getattr(built, name)))
        save_npz(path, distinct_sentences=np.asarray(built.distinct_sentences))  # last: the entry is whole
        return built


def _store_arrays(corpus: Corpus, store: ChunkStore) -> dict[str, np.ndarray]:
    doc_of = {d.path: i for i, d in enumerate(corpus.documents)}
    contexts: dict[str, int] = {}
    chunks = store.chunks
    return {
        "doc": np.asarray([doc_of[c.doc] for c in chunks], dtype=np.int32),
        "start": np.asarray([c.start for c in chunks], dtype=np.int64),
        "end": np.asarray([c.end for c in chunks], dtype=np.int64),
        "heading": np.asarray(
            [contexts.setdefault(c.heading, len(contexts)) for c in chunks], dtype=np.int32
        ),
        "table_header": np.asarray(
            [contexts.setdefault(c.table_header, len(contexts)) for c in chunks], dtype=np.int32
        ),
        "contexts": _strings(list(contexts)),
        "n_documents": np.asarray(len(corpus.documents)),
    }


def _store_from(corpus: Corpus, data: dict[str, np.ndarray], size: int, overlap: int) -> ChunkStore:
    """The cached chunks as a `ChunkTable`: each chunk, and its document's text, built when first used."""
    if int(data["n_documents"]) != len(corpus.documents):
        raise ValueError("written for another corpus")
    table = ChunkTable(
        corpus.documents,
        doc=data["doc"],
        start=data["start"],
        end=data["end"],
        heading=data["heading"],
        table_header=data["table_header"],
        contexts=_unstrings(data["contexts"]),
    )
    return ChunkStore(chunks=table, size=size, overlap=overlap)
