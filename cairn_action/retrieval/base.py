"""The retriever protocol."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from cairn_action.index.chunks import Chunk


@dataclass(frozen=True)
class Hit:
    chunk: Chunk
    rank: int
    """1-based; strictly ordered, ties broken deterministically."""
    score: float


class Retriever(Protocol):
    mode: str

    def retrieve(self, query: str, depth: int) -> list[Hit]:
        """The `depth` best chunks for `query`, best first, no duplicates."""
        ...
