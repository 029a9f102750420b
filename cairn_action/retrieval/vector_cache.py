"""Chunk embeddings on disk, one vector per distinct chunk text, per model file.

Keyed by the sha256 of the text the model saw (heading path, table header, chunk text) under a folder
named for the model file's sha256, so a changed document re-embeds only the chunks whose text changed, a
changed chunking re-embeds only the chunks that moved, and another model never reads these vectors.
The folder holds append-only shards (`vectors-<sha256 of its keys>.npz`: `keys`, `vectors`), each
written to a temporary file and moved into place, so a kill mid-write leaves no half shard; a shard
that cannot be read is skipped (its texts are embedded again) and noted. New vectors are written every
`CHECKPOINT` texts, not once at the end: embedding a corpus is the slow step (the handbook's 10,704
chunks take minutes), and a run killed part-way keeps what it had embedded.
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from cairn_action.files import atomic_writer

SHARD_GLOB = "vectors-*.npz"
CHECKPOINT = 512
"""New vectors written per shard: a kill loses at most this many embeddings."""


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def save_npz(path: Path, **arrays: np.ndarray) -> None:
    """Write an .npz (or, given one array named `array`, an .npy) atomically (`files.atomic_writer`). The
    temporary name starts `.tmp-`, which the Action's index-cache copy skips as a torn write."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(path, prefix=".tmp-", suffix=path.suffix) as handle:
        if path.suffix == ".npy":
            np.save(handle, arrays["array"], allow_pickle=False)
        else:
            np.savez(handle, **arrays)  # type: ignore[arg-type]


class VectorCache:
    """The vectors of one model under `root` (see the module docstring)."""

    def __init__(self, root: Path, model_sha256: str) -> None:
        self.folder = Path(root) / model_sha256[:16]
        self.problems: list[str] = []
        self.embedded = 0
        """Texts this process embedded (cache misses)."""
        self._known: dict[str, np.ndarray] | None = None

    def _load(self) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        if not self.folder.is_dir():
            return found
        for shard in sorted(self.folder.glob(SHARD_GLOB)):
            try:
                with np.load(shard, allow_pickle=False) as data:
                    keys, vectors = data["keys"], data["vectors"]
                if len(keys) != len(vectors):
                    raise ValueError("keys and vectors differ in length")
            except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
                self.problems.append(
                    f"{shard}: unreadable embedding shard ({type(exc).__name__}); re-embedded"
                )
                continue
            for key, row in zip(keys.tolist(), vectors, strict=True):
                found[key] = row
        return found

    def vectors_for(
        self,
        texts: Sequence[str],
        embed: Callable[[list[str]], np.ndarray],
        *,
        progress: Callable[[int, int], None] | None = None,
        checkpoint: int = CHECKPOINT,
    ) -> np.ndarray:
        """One row per text: cached rows, and `embed` for the texts never seen (stored every `checkpoint`
        texts; `progress(done, missing)` is called with 0 before the first and after each shard)."""
        keys = [text_key(t) for t in texts]
        if self._known is None:  # read the shards once, however many calls (chunks, then sentences)
            self._known = self._load()
        known = self._known
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in known and key not in missing:
                missing[key] = text
        pending = list(missing)
        done = 0
        if pending and progress is not None:
            progress(0, len(pending))
        for start in range(0, len(pending), max(1, checkpoint)):
            new_keys = pending[start : start + max(1, checkpoint)]
            fresh = np.asarray(embed([missing[k] for k in new_keys]), dtype=np.float32)
            self.embedded += len(new_keys)
            done += len(new_keys)
            digest = hashlib.sha256("\n".join(new_keys).encode()).hexdigest()
            save_npz(self.folder / f"vectors-{digest}.npz", keys=np.asarray(new_keys), vectors=fresh)
            known.update(zip(new_keys, fresh, strict=True))
            if progress is not None:
                progress(done, len(pending))
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([known[k] for k in keys]).astype(np.float32, copy=False)
