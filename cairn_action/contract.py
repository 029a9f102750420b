"""The target contract as types: what Cairn sends your system and what your system returns.

A `python:` target is a function `answer(question: str) -> TargetReply` (or a plain string, or None to
abstain); an HTTP target receives `TargetRequest` as JSON and replies with `TargetReply`. These are
TypedDicts, so annotating your function costs nothing at run time; Cairn validates the reply with the
pydantic model in `providers/target.py` (`TargetResponse`), and a test pins both to the same keys.
"""

# No `from __future__ import annotations` here: TypedDict reads Required[...] from evaluated annotations.
from typing import NotRequired, Required, TypedDict

__all__ = ["TargetCitation", "TargetPassage", "TargetReply", "TargetRequest", "TargetUsage"]


class TargetRequest(TypedDict):
    """The JSON body an HTTP target receives (a python target receives `question` alone)."""

    question: str
    case_id: str
    top_k: int


class TargetPassage(TypedDict, total=False):
    """A passage your system retrieved, best first; a bare string is accepted too."""

    id: str | int | None
    text: Required[str]
    doc: str | None
    """The document's path or basename, to locate the passage there first."""
    score: float | None


class TargetCitation(TypedDict, total=False):
    id: Required[str | int]
    """The `id` of a returned passage."""
    quote: str


class TargetUsage(TypedDict, total=False):
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int


class TargetReply(TypedDict, total=False):
    """What a target returns. Only `answer` matters (None to abstain); everything else is optional."""

    answer: Required[str | int | float | None]
    abstained: bool
    confidence: float | str | None
    """A probability in [0, 1] (or a string holding one): what the calibrated threshold is applied to."""
    passages: list[TargetPassage | str]
    citations: list[TargetCitation | str | int] | None
    """Without it, every passage counts as cited."""
    used: list[str | int] | None
    """Ids of the passages your answerer was given; without it Cairn never assumes `top_k`."""
    usage: TargetUsage | None
    cost_usd: NotRequired[float | None]
