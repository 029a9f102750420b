"""Citation verification: does the text an answer cites actually say what the answer claims?

Rule `containment-1` (lexical, for extractive answerers such as the stub; an LLM judge comes later):
1. The answer is split into claims: sentences, then clauses separated by ";". A claim that normalises to
   nothing (punctuation only) is dropped. No answer means no claims.
2. A citation counts as evidence only when its chunk exists in the store and its quote, if it gives
   one, appears in that chunk's text, verbatim or after SQuAD normalisation. A citation of an unknown
   chunk or with an invented quote supports nothing.
3. A claim is verified when its SQuAD-normalised tokens occur contiguously in the normalised text of a
   counted citation's chunk. Every claim lists the chunk ids the answer cited (the answer does not say
   which citation backs which claim).
Citation validity is then verified claims over claims, and an answer is faithful when every claim verified.
"""

from __future__ import annotations

import re

from cairn_action.index.chunks import ChunkStore
from cairn_action.providers.base import AnswerResult
from cairn_action.run.judge import contains_tokens
from cairn_action.run.models import Claim
from cairn_action.squad import normalize_answer

RULE_VERSION = "containment-1"

_SENTENCE_END = re.compile(r"""(?<=[.!?])["')\]]?\s+(?=[A-Z0-9"'(\[£$€])""")


def split_claims(answer_text: str) -> list[str]:
    """Sentences of the answer, then its ";"-separated clauses, stripped; empty ones dropped."""
    claims = []
    for sentence in _SENTENCE_END.split(answer_text.strip()):
        for clause in sentence.split(";"):
            clause = clause.strip()
            if clause and normalize_answer(clause):
                claims.append(clause)
    return claims


def verify_citations(answer: AnswerResult, store: ChunkStore) -> list[Claim]:
    """The answer's claims, each marked verified or not against the chunks it cites (rule above)."""
    if answer.answer_text is None or answer.abstained:
        return []
    cited_ids = list(dict.fromkeys(c.chunk_id for c in answer.citations))
    evidence: list[list[str]] = []
    for citation in answer.citations:
        chunk = store.get(citation.chunk_id)
        if chunk is None:
            continue
        chunk_tokens = normalize_answer(chunk.text).split()
        quote = citation.quote.strip()
        if (
            quote
            and quote not in chunk.text
            and not contains_tokens(chunk_tokens, normalize_answer(quote).split())
        ):
            continue
        evidence.append(chunk_tokens)
    claims = []
    for text in split_claims(answer.answer_text):
        tokens = normalize_answer(text).split()
        verified = any(contains_tokens(chunk_tokens, tokens) for chunk_tokens in evidence)
        claims.append(Claim(text=text, cited_chunk_ids=cited_ids, verified=verified))
    return claims
