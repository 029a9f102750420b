"""Locating each support quote of a golden set in a corpus.

`support[].doc` names a document by its basename when that is unique in the corpus, or by its path
relative to the corpus root (real corpora have many `index.md`). The quote must be the document's text,
verbatim or as the rendered page shows it (markdown emphasis, links and whitespace aside, `quotes.py`);
when it is not, the case is stale: the run leaves it out of every score, `cairn golden check` fails on
it, and the message shows the nearest passage of the document.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from cairn_action.errors import DataError
from cairn_action.golden.models import GoldenCase, GoldenSet, ResolvedSupport, SupportQuote
from cairn_action.golden.passage import digest_holds, section_span
from cairn_action.golden.quotes import locate_quote, nearest_span
from cairn_action.index.corpus import Corpus, Document

HINT_DOC = "support[].doc is the document's basename, or its path relative to the corpus root"
HINT_AMBIGUOUS = "name the document by its path relative to the corpus root (./name.md for one at the root)"
HINT_BACKSLASH = "support[].doc uses forward slashes on every system, like a URL: 'folder/page.md'"
HINT_STALE = (
    "copy the quote from the document (the nearest passage is shown; markdown emphasis, links and line "
    "breaks may differ); if the document changed after the case was labelled, re-check the case and "
    "bump golden.version"
)
HINT_CHANGED = (
    "the passage a label rests on changed since it was labelled: read it again, fix the case if needed, "
    "then `cairn golden confirm ID --by NAME` records the passage as it is now"
)
HINT_UNCONFIRMED = (
    "a case with a critical tag ([gate] critical_tags) needs a second person's confirmation: "
    "`cairn golden confirm ID --by NAME` (NAME is not the annotator)"
)
CHANGED_MESSAGE = (
    "stale: the passage a support rests on changed since the case was labelled (left out of every score)"
)
UNCONFIRMED_MESSAGE = (
    "unconfirmed: a critical case awaiting a second person's confirmation (left out of every score)"
)
AMBIGUOUS_SHOWN = 5  # documents listed for an ambiguous basename (a real corpus has 185 index.md)
_QUOTE_SHOWN = 60  # characters of a quote repeated in a message
_PREFIX_WORTH_SAYING = 10  # a shorter matching start is found by chance in most documents


@dataclass(frozen=True)
class SupportResolution:
    """Where every support quote of a golden set sits in a corpus."""

    resolved: dict[str, list[ResolvedSupport]]
    """Case id -> the located quotes, in support order; every case has an entry (empty when unanswerable).
    A quote that could not be located (unknown document, stale) is left out of its case's list."""
    stale: frozenset[str]
    """Ids of the cases left out of every score: a quote no longer in its document, a passage changed
    since it was labelled (digest), or a critical case not yet confirmed by a second person."""
    errors: list[str] = field(default_factory=list)
    """`file:line: ...` for support entries naming no document or several: the set cannot run."""
    stale_details: list[str] = field(default_factory=list)
    """`file:line: ...` for each quote not found, saying how much of it still matches."""
    hints: list[str] = field(default_factory=list)
    """The distinct hints for `errors`, in order."""
    changed: frozenset[str] = frozenset()
    """Ids of cases whose passage digest differs from the one recorded (`stale_details` says which)."""
    unconfirmed: dict[str, str] = field(default_factory=dict)
    """Critical case id -> `file:line: ...` saying why it is not confirmed (left out of scores)."""
    drifted: frozenset[str] = frozenset()
    """Ids of cases stale because of their documents (quote gone or passage changed)."""
    changed_documents: dict[str, list[str]] = field(default_factory=dict)
    """Case id -> the documents (corpus-relative paths) whose labelled passage changed (`changed`)."""

    def reasons(self) -> dict[str, str]:
        """Case id -> why it is left out, for the cases whose reason is not a missing quote."""
        out = {case_id: UNCONFIRMED_MESSAGE for case_id in self.unconfirmed}
        out.update({case_id: CHANGED_MESSAGE for case_id in self.changed})
        return out

    def raise_for_errors(self) -> None:
        """Raise one DataError listing every error (stale cases are not errors here)."""
        if not self.errors:
            return
        head = self.errors[0] if len(self.errors) == 1 else f"{len(self.errors)} support problems:"
        lines = [head] if len(self.errors) == 1 else [head, *self.errors]
        raise DataError("\n".join(lines), "\nhint: ".join(self.hints))


def locate_support(support: SupportQuote, doc: Document) -> tuple[int, int, bool] | None:
    """(start, end, document-level) of a support in its document; None when the quote (or the section)
    is not there."""
    if support.quote is not None:
        span = locate_quote(support.quote, doc.text)
        return None if span is None else (span[0], span[1], False)
    if support.section is None:
        return 0, len(doc.text), True
    section = section_span(doc.text, support.section)
    return None if section is None else (section[0], section[1], True)


def tracks_review(golden: GoldenSet) -> bool:
    """Whether the set records review (some case has `status` or `confirmed_by`): then every critical
    case needs a confirmation. A set written before review existed (the shipped one) is left as it is."""
    return any(c.status is not None or c.confirmed_by is not None for c in (*golden.cases, *golden.inactive))


def is_critical(case: GoldenCase, critical_tags: Sequence[str]) -> bool:
    return any(tag in critical_tags for tag in case.tags)


def confirmation_problem(case: GoldenCase, critical_tags: Sequence[str]) -> str | None:
    """Why a critical case does not count as confirmed, or None (confirmed, or not critical)."""
    if not is_critical(case, critical_tags):
        return None
    if case.confirmed_by is None:
        return "critical case not confirmed by a second person"
    if case.annotator is not None and case.confirmed_by == case.annotator:
        return f"critical case confirmed by its own annotator {case.confirmed_by}"
    return None


def resolve_support(
    golden: GoldenSet, corpus: Corpus, critical_tags: Sequence[str] = ()
) -> SupportResolution:
    """Resolve each case's `support[].doc` to a document and find each quote's first occurrence.

    With `critical_tags` and a set that tracks review, a critical case not confirmed by a second
    person is left out of scores too (`unconfirmed`)."""
    by_path = corpus.by_path()
    by_basename: dict[str, list[Document]] = {}
    for doc in corpus.documents:
        by_basename.setdefault(doc.basename, []).append(doc)

    resolved: dict[str, list[ResolvedSupport]] = {}
    stale: set[str] = set()
    changed: set[str] = set()
    changed_docs: dict[str, list[str]] = {}
    unconfirmed: dict[str, str] = {}
    review = tracks_review(golden)
    errors: list[str] = []
    hints: list[str] = []
    details: list[str] = []
    shown = str(golden.path)
    named = missing = 0
    for case in golden.cases:
        where = f"{shown}:{golden.line_of.get(case.id, '?')}: case {case.id}: "
        problem = confirmation_problem(case, critical_tags) if review else None
        if problem is not None:
            unconfirmed[case.id] = where + problem
        located: list[ResolvedSupport] = []
        for index, support in enumerate(case.support):
            named += 1
            doc, problem, hint = _find_document(support.doc, by_path, by_basename)
            if doc is None:
                missing += problem.startswith(f"'{support.doc}' is not a document")
                problem = problem.replace(NOT_IN, f"is not a document in {_corpus_name(corpus)}")
                errors.append(f"{where}support[{index}].doc {problem}")
                if hint not in hints:
                    hints.append(hint)
                continue
            span = locate_support(support, doc)
            if span is None:
                stale.add(case.id)
                details.append(where + _describe_stale(index, support, doc))
                continue
            start, end, whole = span
            if support.digest is not None and not digest_holds(
                support.digest, doc.text, start, end, whole=whole
            ):
                stale.add(case.id)
                changed.add(case.id)
                if doc.path not in changed_docs.setdefault(case.id, []):
                    changed_docs[case.id].append(doc.path)
                details.append(where + _describe_changed(index, support, doc, start))
            located.append(ResolvedSupport(doc_path=doc.path, start=start, end=end, any_chunk=whole))
        resolved[case.id] = located
    if missing >= 3 and missing * 2 >= named:
        hints.insert(
            0,
            f"{missing} of the {named} support documents are not in {_corpus_name(corpus)}: is it the corpus "
            "this golden set was written for? Pass --corpus DIR or set [corpus] path",
        )
    return SupportResolution(
        resolved=resolved,
        stale=frozenset(stale | set(unconfirmed)),
        errors=errors,
        stale_details=details,
        hints=hints,
        changed=frozenset(changed),
        unconfirmed=unconfirmed,
        drifted=frozenset(stale),
        changed_documents=changed_docs,
    )


NOT_IN = "is not a document in the corpus"


def _corpus_name(corpus: Corpus) -> str:
    return f"the corpus {corpus.root} ({len(corpus.documents)} documents)"


def find_document(name: str, corpus: Corpus) -> Document:
    """The document `name` (basename or corpus-relative path) refers to; DataError when none or several."""
    by_basename: dict[str, list[Document]] = {}
    for doc in corpus.documents:
        by_basename.setdefault(doc.basename, []).append(doc)
    doc, problem, hint = _find_document(name, corpus.by_path(), by_basename)
    if doc is None:
        raise DataError(problem.replace(NOT_IN, f"is not a document in {_corpus_name(corpus)}"), hint)
    return doc


def _find_document(
    name: str, by_path: dict[str, Document], by_basename: dict[str, list[Document]]
) -> tuple[Document | None, str, str]:
    """The document `name` refers to, or None with what is wrong and the hint."""
    if "\\" in name:
        posix = name.replace("\\", "/")
        found = by_path.get(posix.removeprefix("./"))
        mean = f" (did you mean '{posix}'?)" if found is not None else ""
        return None, f"'{name}' uses backslashes{mean}", HINT_BACKSLASH
    if "/" in name:
        path = name.removeprefix("./")
        if path in by_path:
            return by_path[path], "", ""
        close = difflib.get_close_matches(path, list(by_path), n=1)
        suggestion = f" (did you mean '{close[0]}'?)" if close else ""
        return None, f"'{name}' {NOT_IN}{suggestion}", HINT_DOC
    matches = by_basename.get(name, [])
    if len(matches) == 1:
        return matches[0], "", ""
    if matches:
        listed = ", ".join(d.path for d in matches[:AMBIGUOUS_SHOWN])
        more = f" and {len(matches) - AMBIGUOUS_SHOWN} more" if len(matches) > AMBIGUOUS_SHOWN else ""
        return None, f"'{name}' matches {len(matches)} documents: {listed}{more}", HINT_AMBIGUOUS
    close = difflib.get_close_matches(name, list(by_basename), n=1)
    suggestion = f" (did you mean '{close[0]}'?)" if close else ""
    return None, f"'{name}' {NOT_IN}{suggestion}", HINT_DOC


def _describe_changed(index: int, support: SupportQuote, doc: Document, start: int) -> str:
    line = doc.text.count("\n", 0, start) + 1
    what = "passage around the quote" if support.quote is not None else (support.section or "document")
    return (
        f"support[{index}]: the {what} at {doc.path}:{line} changed since the case was labelled "
        f"(digest {support.digest}); the quote alone does not show what else changed"
    )


def _describe_stale(index: int, support: SupportQuote, doc: Document) -> str:
    if support.quote is None:
        return f"support[{index}].section '{support.section}' is not a heading of {doc.path}"
    quote = support.quote
    shown = quote if len(quote) <= _QUOTE_SHOWN else quote[: _QUOTE_SHOWN - 1] + "…"
    message = f'support[{index}].quote is not in {doc.path}: "{shown}"'
    matched = _longest_present_prefix(quote, doc.text)
    if matched >= _PREFIX_WORTH_SAYING:
        message += f" (its first {matched} of {len(quote)} characters are)"
    nearest = nearest_span(quote, doc.text)
    if nearest is not None:
        line = doc.text.count("\n", 0, nearest[0]) + 1
        text = _collapse(doc.text[nearest[0] : nearest[1]])
        message += f'; nearest, at {doc.path}:{line}: "{text}"'
    return message


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _longest_present_prefix(quote: str, text: str) -> int:
    """Length of the longest start of `quote` found in `text` (presence is monotone in the length)."""
    low, high = 0, len(quote)
    while low < high:
        mid = (low + high + 1) // 2
        if quote[:mid] in text:
            low = mid
        else:
            high = mid - 1
    return low
