"""The golden set's persisted shape (golden set reference) and the in-memory set."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

KNOWN_TAGS = ("numeric", "date", "name", "policy", "multi_doc", "unanswerable", "false_premise", "safety")


class SupportQuote(BaseModel):
    """A verbatim quote and the document that contains it, or (no quote) a whole document or section."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    doc: str = Field(min_length=1)
    """The document's basename when unique in the corpus, else its path relative to the corpus root."""
    quote: str | None = Field(default=None, min_length=1)
    """Verbatim text of the document; how the runner locates the supporting chunk. Without it the
    support is document-level (the curation guide's `contexts`): any chunk of `doc` (or of `section`)
    counts as the relevant item."""
    section: str | None = Field(default=None, min_length=1)
    """Document-level support only: a heading of `doc`, by its text or its slug (`refunds`,
    `section-4`); any chunk under that heading counts."""
    digest: str | None = Field(default=None, pattern=r"^sha256:[0-9a-f]{16}$")
    """The digest of the passage around the quote (or of the section or document) when the case was
    labelled or confirmed: when the passage changes, the case is stale until confirmed again."""


class AnswerChecks(BaseModel):
    """Deterministic checks on an answer, beside the judge: they count in the verdict."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    must_contain: list[str] = Field(default_factory=list)
    """Each must appear in the answer (case and punctuation aside, as exact match normalises)."""
    must_not_contain: list[str] = Field(default_factory=list)
    """None may appear in the answer (same normalisation)."""
    must_cite: list[str] = Field(default_factory=list)
    """Documents (basename or corpus-relative path) the answer must cite."""


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
    # The set's life (golden set reference, "Reviewing and versioning"): read by check and the run.
    answer_variants: list[str] = Field(default_factory=list)
    """Other acceptable wordings of expected_answer; exact match and token F1 take the best, as the
    SQuAD script does over its gold answers."""
    checks: AnswerChecks | None = None
    status: Literal["draft", "accepted"] | None = None
    """`draft`: written by `cairn golden import`, never scored until a person accepts it."""
    confirmed_by: str | None = None
    """Who confirmed the case's labels, a person other than `annotator` (critical cases need one)."""
    deprecated: bool = False
    """Kept in the file, left out of every score (never delete a case from a published version)."""

    @property
    def is_false_premise(self) -> bool:
        return "false_premise" in self.tags

    @property
    def golds(self) -> list[str]:
        """Every acceptable answer: expected_answer first, then its variants."""
        return [a for a in [self.expected_answer, *self.answer_variants] if a]

    @property
    def is_active(self) -> bool:
        """Scored: neither a draft nor deprecated."""
        return self.status != "draft" and not self.deprecated


@dataclass(frozen=True)
class ResolvedSupport:
    """A support quote located in the corpus: the document path and the quote's character span."""

    doc_path: str
    start: int
    end: int
    any_chunk: bool = False
    """Document- or section-level support: one chunk overlapping the span is the evidence."""


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
    inactive: tuple[GoldenCase, ...] = ()
    """Drafts and deprecated cases: in the file, in no run and no score (`cases` holds the others)."""
    sealed: bool = False
    """Read from a sealed pair (golden/sealed.py): `path` is its questions file."""
    recipients: tuple[str, ...] = ()
    """A sealed set's age public keys (golden.recipients): its reports' cases are sealed to them."""
    answers_held: bool = True
    """False for a sealed set read without its key: the cases hold ids and questions only, enough to run
    the system and never to score it."""

    def by_id(self) -> dict[str, GoldenCase]:
        return {c.id: c for c in self.cases}
