"""Query rewriting and reranking with the configured chat model (`retrieval.rewrite` / `rerank = "llm"`).

Rewriting: people ask in their own words ("how much heads-up before I disappear"), documents say
"inform your Manager a minimum of 5 business days before your upcoming leave". The model writes a short
passage that could answer the question in the words a handbook would use (a hypothetical document,
HyDE), and retrieval searches for the question and that passage together.

Reranking: the model sees the question and the retrieved chunks, numbered, and returns the numbers best
first. Chunks it leaves out keep their retrieval order after the ones it ranked; a number it invents is
ignored. A reply with no usable ranking is an `error` (the run then records the case as an error; a
rerun asks again, as for an unusable answer).

Both go through the run's cache, budget, rate limits and retries like answering (run/retrieve.py): these
classes only build prompts and read replies. Their prompt versions are part of every cache key.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

from cairn_action.index.chunks import Chunk
from cairn_action.providers.chat import ChatBackend, ChatPrompt, MalformedReply
from cairn_action.providers.prompt import extract_json_object, prefix_hash
from cairn_action.run.models import Usage

REWRITE_VERSION = "rewrite-passage-1"
RERANK_VERSION = "rerank-list-1"
RERANK_CHUNK_CHARS = 1200
"""Characters of each chunk shown to the reranker (chunks are ~800 by default; this bounds the prompt)."""

REWRITE_SYSTEM = """\
You help search an organisation's internal documents (handbooks, policies, procedures). People ask in \
their own words; the documents use formal, specific wording. Write a short passage (two or three \
sentences) that could appear in such a document and answer the question, using the vocabulary a \
policy or handbook would use: the likely section title, terms and phrasing. Invent plausible details \
if you must; the passage is only used to search. Reply with the passage only."""

RERANK_SYSTEM = """\
You rank passages from an organisation's documents by how well each one answers a question. A passage \
that states the answer ranks above one that is merely on the same topic. Reply with exactly one JSON \
object and nothing else: {"ranking": [<passage numbers, best first>]}"""


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid")

    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = 0.0
    prompt_prefix_hash: str | None = None
    raw_output: str | None = None
    error: str | None = None


R = TypeVar("R", bound=_Result)


class RewriteResult(_Result):
    """A rewritten query, as cached and recorded."""

    passage: str = ""


class RerankResult(_Result):
    """A reranking: positions (0-based) into the chunks the reranker was shown, best first."""

    order: list[int] = Field(default_factory=list)


def _unusable(result: type[R], what: str, provider: str, prefix: str, exc: MalformedReply) -> R:
    """A reply that could not be read at all, as a result with `error` (a paid call stays on the record)."""
    return result(
        usage=exc.usage,
        cost_usd=exc.cost_usd,
        prompt_prefix_hash=prefix,
        raw_output=exc.raw,
        error=f"{what} {provider}: unusable reply: {exc.reason}",
    )


def _key(backend: ChatBackend, version: str, prompt: ChatPrompt) -> str:
    payload = {**backend.identity(), "version": version, "system": prompt.system, "user": prompt.user}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


class LLMQueryRewriter:
    """Rewrites a question into the corpus's vocabulary (module docstring)."""

    version = REWRITE_VERSION

    def __init__(self, backend: ChatBackend) -> None:
        self.backend = backend
        self.provider = backend.name
        self.model = backend.model

    def prompt(self, question: str) -> ChatPrompt:
        return ChatPrompt(system=REWRITE_SYSTEM, user=f"Question: {question.strip()}")

    def request_key(self, question: str) -> str:
        return _key(self.backend, REWRITE_VERSION, self.prompt(question))

    def rewrite(self, question: str) -> RewriteResult:
        """One model call. Raises InfrastructureError; an unusable reply is a result with `error`."""
        prompt = self.prompt(question)
        prefix = prefix_hash(REWRITE_VERSION, prompt.system)
        try:
            completion = self.backend.complete(prompt)
        except MalformedReply as exc:
            return _unusable(RewriteResult, "rewrite", self.provider, prefix, exc)
        passage = completion.text.strip()
        spent = {"usage": completion.usage, "cost_usd": completion.cost_usd, "prompt_prefix_hash": prefix}
        if not passage:
            return RewriteResult(error=f"rewrite {self.provider}: empty reply", raw_output="", **spent)
        return RewriteResult(passage=passage[:2000], **spent)


def search_text(question: str, rewritten: RewriteResult | None) -> str:
    """What retrieval searches for: the question, then the rewritten passage (the question's own words
    still count, so a good question is not lost to a poor rewrite)."""
    if rewritten is None or not rewritten.passage:
        return question
    return f"{question}\n{rewritten.passage}"


def _passage(chunk: Chunk) -> str:
    text = " ".join(chunk.text.split())[:RERANK_CHUNK_CHARS]
    context = f"[{chunk.doc}{' > ' + chunk.heading if chunk.heading else ''}] "
    return context + text


_NUMBER = re.compile(r"\d+")


def parse_ranking(text: str, n: int) -> list[int] | None:
    """0-based positions from a reply `{"ranking": [1-based numbers]}` (or a bare list of numbers)."""
    data = extract_json_object(text, ("ranking",))
    raw: list[object]
    if data is not None and isinstance(data.get("ranking"), list):
        raw = list(data["ranking"])
    else:
        found = _NUMBER.findall(text)
        if not found:
            return None
        raw = [int(x) for x in found]
    order: list[int] = []
    for item in raw:
        try:
            number = int(str(item).strip())
        except ValueError:
            continue
        if 1 <= number <= n and number - 1 not in order:
            order.append(number - 1)
    return order or None


class LLMReranker:
    """Re-orders retrieved chunks with a chat model (module docstring)."""

    version = RERANK_VERSION

    def __init__(self, backend: ChatBackend) -> None:
        self.backend = backend
        self.provider = backend.name
        self.model = backend.model

    def prompt(self, question: str, chunks: Sequence[Chunk]) -> ChatPrompt:
        numbered = "\n\n".join(f"[{i}] {_passage(c)}" for i, c in enumerate(chunks, start=1))
        return ChatPrompt(system=RERANK_SYSTEM, user=f"Question: {question.strip()}\n\nPassages:\n{numbered}")

    def request_key(self, question: str, chunks: Sequence[Chunk]) -> str:
        return _key(self.backend, RERANK_VERSION, self.prompt(question, chunks))

    def rerank(self, question: str, chunks: Sequence[Chunk]) -> RerankResult:
        """One model call. Raises InfrastructureError; an unusable reply is a result with `error`."""
        prompt = self.prompt(question, chunks)
        prefix = prefix_hash(RERANK_VERSION, prompt.system)
        try:
            completion = self.backend.complete(prompt)
        except MalformedReply as exc:
            return _unusable(RerankResult, "rerank", self.provider, prefix, exc)
        spent = {"usage": completion.usage, "cost_usd": completion.cost_usd, "prompt_prefix_hash": prefix}
        order = parse_ranking(completion.text, len(chunks))
        if order is None:
            return RerankResult(
                error=f"rerank {self.provider}: no ranking in the reply", raw_output=completion.text, **spent
            )
        return RerankResult(order=order, **spent)
