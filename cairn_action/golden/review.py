"""A person's word on a case: `cairn golden accept` (a draft becomes part of the exam) and `cairn golden
confirm` (a second person confirms the labels; the passages are recorded as they are now).

Both record each support's passage digest (`passage.py`), so a later change to the document makes the
case stale until someone looks again; `confirm` is also how a stale-by-digest case comes back. Both refuse
what would make the set wrong: a draft without an answer or a support, a quote no longer in its document,
a confirmation by the case's own annotator.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from cairn_action.errors import DataError
from cairn_action.golden.load import HINT_ANSWERABLE
from cairn_action.golden.models import GoldenCase, GoldenSet, SupportQuote
from cairn_action.golden.passage import passage_digest, section_names
from cairn_action.golden.support import HINT_STALE, find_document, is_critical, locate_support
from cairn_action.index.corpus import Corpus

HINT_ID = "`cairn golden check` lists the cases; ids are case-sensitive"
HINT_SELF = "a confirmation is a second person's: ask someone other than the annotator"
NOTE_PROPOSED = (
    "imported question; the answer (if any) and the support are proposals: write or check expected_answer, "
    "check the quote, then `cairn golden accept`"
)
NOTE_NOTHING_FOUND = (
    "imported question; no passage found: write the answer and its quote, or mark it unanswerable"
)
NOTE_KNOWN_VALUE = "known value; the quote is retrieval's proposal: check it"
NOTE_NO_CONTEXTS = "imported without contexts; the quote (if any) is retrieval's proposal: check it"
DRAFT_NOTES = (NOTE_PROPOSED, NOTE_NOTHING_FOUND, NOTE_KNOWN_VALUE, NOTE_NO_CONTEXTS)
"""The notes `cairn golden import` gives a draft; accepting it clears them (they describe the draft)."""


HINT_SECTION = (
    "a section is a heading of the document, by its text or its anchor (`doc.md#policy-compliance`), or "
    "`section-N` for its N-th `##` heading; without `#section` the whole document is the support"
)
_HEADINGS_SHOWN = 8


def _headings_said(text: str, wanted: str) -> str:
    """`(did you mean ...?)` or the document's headings, for a section no heading matches."""
    names = section_names(text)
    if not names:
        return " (it has no headings)"
    close = difflib.get_close_matches(wanted.lower(), names, n=1, cutoff=0.5)
    if close:
        return f" (did you mean '{close[0]}'?)"
    shown = ", ".join(names[:_HEADINGS_SHOWN]) + (" ..." if len(names) > _HEADINGS_SHOWN else "")
    return f"; its headings: {shown}"


def _where(golden: GoldenSet, case_id: str) -> str:
    return f"{golden.path}:{golden.line_of.get(case_id, '?')}: case {case_id}"


def find_case(golden: GoldenSet, case_id: str) -> GoldenCase:
    for case in (*golden.cases, *golden.inactive):
        if case.id == case_id:
            return case
    raise DataError(f"{golden.path}: no case '{case_id}'", HINT_ID)


def with_digests(case: GoldenCase, corpus: Corpus, where: str) -> list[SupportQuote]:
    """The case's supports, each with the digest of its passage as the corpus has it now."""
    out = []
    for index, support in enumerate(case.support):
        doc = find_document(support.doc, corpus)
        span = locate_support(support, doc)
        if span is None and support.quote is None:
            raise DataError(
                f"{where}: support[{index}].section '{support.section}' is not a heading of {doc.path}"
                + _headings_said(doc.text, support.section or ""),
                HINT_SECTION,
            )
        if span is None:
            raise DataError(f"{where}: support[{index}] is not in {doc.path}", HINT_STALE)
        start, end, whole = span
        out.append(support.model_copy(update={"digest": passage_digest(doc.text, start, end, whole=whole)}))
    return out


def accept(golden: GoldenSet, ids: Sequence[str], corpus: Corpus, *, by: str | None) -> dict[str, GoldenCase]:
    """The accepted cases by id: status `accepted`, annotator `by` when it had none, digests recorded."""
    changed: dict[str, GoldenCase] = {}
    for case_id in ids:
        case = find_case(golden, case_id)
        where = _where(golden, case_id)
        if case.status != "draft":
            raise DataError(f"{where}: not a draft (status {case.status or 'unset'})", HINT_ID)
        if case.answerable and not (case.expected_answer and case.support):
            missing = "expected_answer" if not case.expected_answer else "support"
            raise DataError(f"{where}: cannot accept an answerable draft without {missing}", HINT_ANSWERABLE)
        annotator = case.annotator or by
        if annotator is None:
            raise DataError(f"{where}: the draft has no annotator", "pass --by NAME: who labelled it")
        changed[case_id] = case.model_copy(
            update={
                "status": "accepted",
                "annotator": annotator,
                "notes": "" if case.notes in DRAFT_NOTES else case.notes,
                "support": with_digests(case, corpus, where),
            }
        )
    return changed


def confirm(golden: GoldenSet, ids: Sequence[str], corpus: Corpus, *, by: str) -> dict[str, GoldenCase]:
    """The confirmed cases by id: confirmed_by `by` (never the annotator), digests recorded anew."""
    if not by.strip():
        raise DataError("--by is empty", HINT_SELF)
    changed: dict[str, GoldenCase] = {}
    for case_id in ids:
        case = find_case(golden, case_id)
        where = _where(golden, case_id)
        if case.annotator is not None and case.annotator == by:
            raise DataError(f"{where}: {by} is the case's annotator and cannot confirm it", HINT_SELF)
        changed[case_id] = case.model_copy(
            update={"confirmed_by": by, "support": with_digests(case, corpus, where)}
        )
    return changed


AUTHOR_CONFIRMED_MESSAGE = (
    "unconfirmed: a critical case whose only confirmation is by the pull request's own author "
    "(left out of this pull request's scores)"
)


def review_fields_changed(before: GoldenCase | None, after: GoldenCase) -> tuple[bool, bool]:
    """(labels changed, confirmation changed) from `before` (None: the case is new) to `after`. A
    support's digest is bookkeeping, not a label; `status` and `confirmed_by` are the review itself."""
    if before is None:
        return True, after.confirmed_by is not None
    a, b = (c.model_dump(exclude={"confirmed_by", "status"}) for c in (before, after))
    for data in (a, b):
        data["support"] = [{k: v for k, v in s.items() if k != "digest"} for s in data["support"]]
    return a != b, before.confirmed_by != after.confirmed_by


def confirmed_by_author(
    base: GoldenSet | None, head: GoldenSet, critical_tags: Sequence[str], author: str
) -> dict[str, str]:
    """Case id -> why it is left out of a pull request's scores: a critical case the pull request adds,
    relabels or confirms whose `confirmed_by` is the pull request's author (anyone can write any name in
    that field, and the second person cannot be the one asking for the change). A confirmation already on
    the base branch, of unchanged labels, still counts."""
    if not author:
        return {}
    before = {c.id: c for c in (*base.cases, *base.inactive)} if base is not None else {}
    out = {}
    for case in head.cases:
        if not is_critical(case, critical_tags) or case.confirmed_by is None:
            continue
        if case.confirmed_by.strip().casefold() != author.strip().casefold():
            continue
        if any(review_fields_changed(before.get(case.id), case)):
            out[case.id] = AUTHOR_CONFIRMED_MESSAGE
    return out
