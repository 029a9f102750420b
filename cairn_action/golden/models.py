"""The golden set's persisted shape (golden set reference) and the in-memory set."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

KNOWN_TAGS = ("numeric", "date", "name", "policy", "multi_doc", "unanswerable", "false_premise", "safety")


class SupportQuote(BaseModel):
    """A verbatim quote and the document that contains it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    doc: str = Field(min_length=1)
    """The document's basename when unique in the corpus, else its path relative to the corpus root."""
    quote: str = Field(min_length=1)
    """Verbatim text of the document; how the runner locates the supporting chunk."""


class GoldenCase(BaseModel):
    """One line of golden.jsonl."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    answerable: bool = True
    expected_answer: str | None = None
    support: list[SupportQuote] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    notes: str = ""
    # Optional audit fields from the curation guide: accepted and kept, never scored.
    difficulty: Literal["easy", "medium", "hard"] | None = None
    added: str | None = None
    annotator: str | None = None

    @property
    def is_false_premise(self) -> bool:
        return "false_premise" in self.tags


@dataclass(frozen=True)
class ResolvedSupport:
    """A support quote located in the corpus: the document path and the quote's character span."""

    doc_path: str
    start: int
    end: int


@dataclass(frozen=True)
class GoldenSet:
    """A loaded golden set: the cases in file order, where they came from, and their version."""

    path: Path
    cases: tuple[GoldenCase, ...]
    version: str
    content_hash: str
    """sha256 of golden.jsonl's bytes: catches a set edited without a version bump."""
    version_from_file: bool
    line_of: dict[str, int] = field(default_factory=dict)
    """case id -> 1-based line in golden.jsonl, for messages."""

    def by_id(self) -> dict[str, GoldenCase]:
        return {c.id: c for c in self.cases}
