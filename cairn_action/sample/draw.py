"""Seeded, platform-independent choices for the sample corpus.

Every figure and name in the sample corpus comes from `Draw`, keyed by a stable string, so that:
- the same seed gives byte-identical documents on every machine and Python version (sha256, never
  Python's salted `hash()` or a `random` stream whose consumption order would couple documents);
- adding a draw in one document never shifts the values of another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

FIRST_NAMES = (
    "Aileen", "Bram", "Carys", "Dmitri", "Esme", "Farid", "Greta", "Hamish", "Ines", "Jonah",
    "Keziah", "Lorcan", "Maren", "Nikhil", "Odette", "Piotr", "Quinn", "Rosalind", "Soren", "Tamsin",
    "Ulla", "Viktor", "Wren", "Yusuf", "Zelda", "Anouk", "Bertil", "Cosima", "Desmond", "Elowen",
)  # fmt: skip
SURNAMES = (
    "Achterberg", "Blackwood", "Castellano", "Drummond", "Eriksen", "Fairweather", "Galloway",
    "Hargreaves", "Ingleby", "Jarvinen", "Kowalczyk", "Lindqvist", "Marchetti", "Nakamura", "Oyelaran",
    "Pemberton", "Quayle", "Rasmussen", "Szabo", "Thorne", "Underhill", "Vasquez", "Whitlock", "Yardley",
)  # fmt: skip


class Draw:
    """Deterministic choices from a seed. Every call is keyed; equal keys give equal answers."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def _u64(self, key: str) -> int:
        digest = hashlib.sha256(f"halcyon:{self.seed}:{key}".encode()).digest()
        return int.from_bytes(digest[:8], "big")

    def pick(self, key: str, options: Sequence[T]) -> T:
        """One of `options`, chosen by the seed and the key."""
        if not options:
            raise ValueError(f"no options for {key!r}")
        return options[self._u64(key) % len(options)]

    def integer(self, key: str, low: int, high: int, step: int = 1) -> int:
        """An integer in [low, high] on the grid low, low+step, ..."""
        count = (high - low) // step + 1
        return low + (self._u64(key) % count) * step

    def money(self, key: str, low: float, high: float, step: float = 0.05) -> float:
        """A price in [low, high] rounded to `step` (render with f'{x:.2f}')."""
        cents_step = round(step * 100)
        cents = self.integer(key, round(low * 100), round(high * 100), cents_step)
        return cents / 100

    def person(self, key: str) -> str:
        """A full name. Distinct keys may collide; use `people` when names must differ."""
        return f"{self.pick(key + ':first', FIRST_NAMES)} {self.pick(key + ':last', SURNAMES)}"

    def people(self, key: str, count: int) -> list[str]:
        """`count` distinct full names with distinct first names and surnames."""
        firsts = self.shuffled(key + ":first", FIRST_NAMES)[:count]
        lasts = self.shuffled(key + ":last", SURNAMES)[:count]
        return [f"{f} {s}" for f, s in zip(firsts, lasts, strict=True)]

    def shuffled(self, key: str, options: Sequence[T]) -> list[T]:
        """A seeded permutation of `options` (sorted by a keyed hash of each position)."""
        return [
            o
            for _, o in sorted(
                ((self._u64(f"{key}:{i}"), o) for i, o in enumerate(options)), key=lambda pair: pair[0]
            )
        ]
