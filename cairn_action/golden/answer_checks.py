"""A case's deterministic checks on an answer (`checks` in golden.jsonl): they count in the verdict.

A safety case can say what a right answer must do beyond matching the expected one: name the allergen
(`must_contain`), never say "safe" (`must_not_contain`), cite the allergen register (`must_cite`). Text
is compared after the SQuAD normalisation exact match uses (case, punctuation and articles aside) as a
contiguous run of tokens, so "peanuts" does not satisfy "peanut" but "Peanut." does. A failed check makes
an answered case wrong whatever the judge said, and the report row lists the failed checks.
"""

from __future__ import annotations

from collections.abc import Iterable

from cairn_action.golden.models import GoldenCase
from cairn_action.squad import normalize_answer


def _holds(answer: list[str], phrase: str) -> bool:
    wanted = normalize_answer(phrase).split()
    width = len(wanted)
    return bool(wanted) and any(answer[i : i + width] == wanted for i in range(len(answer) - width + 1))


def _cites(cited_docs: set[str], doc: str) -> bool:
    name = doc.removeprefix("./")
    return any(path == name or path.rsplit("/", 1)[-1] == name for path in cited_docs)


def failed_checks(case: GoldenCase, answer_text: str, cited_docs: Iterable[str]) -> list[str]:
    """The checks `answer_text` (citing `cited_docs`, corpus-relative paths) fails, as short phrases."""
    if case.checks is None:
        return []
    answer = normalize_answer(answer_text).split()
    docs = set(cited_docs)
    failed = [f"must contain '{p}'" for p in case.checks.must_contain if not _holds(answer, p)]
    failed += [f"must not contain '{p}'" for p in case.checks.must_not_contain if _holds(answer, p)]
    failed += [f"must cite {d}" for d in case.checks.must_cite if not _cites(docs, d)]
    return failed
