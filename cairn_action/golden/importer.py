"""`cairn golden import`: golden cases from what a team already has.

Three sources (release gate spec, "The answer key"; curation guide, "Format"):
- `questions`: real user questions (JSONL or CSV, e.g. exported from tracing), one per row. Each becomes a
  `draft` case with an id, the question and, when retrieval finds one, a proposed support passage; a
  draft is never scored until a person writes the answer and accepts it (`cairn golden accept`).
- `curation`: the curation guide's JSONL (`input`, `expected`, `contexts`, `difficulty`, `added`,
  `annotator`, `dataset_version`). `contexts` name documents or sections (`policy.md#section-4`) and
  become document-level support: retrieval counts any chunk of that document or section as the relevant
  item. An empty `expected` is an unanswerable case. The cases were annotated where they came from, so
  they are `accepted`; `dataset_version` becomes golden.version. An answer without `contexts` (optional
  in the guide) becomes a `draft` with the passage retrieval proposes, for a person to check.
- `values`: a CSV of known values, columns named by flags. A row with a quote is `accepted`; without one,
  the passage retrieval proposes makes it a `draft` for a person to check.

Every problem is collected as `file:line: ...` before anything is written.
"""

from __future__ import annotations

import csv
import io
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from cairn_action.errors import DataError
from cairn_action.files import LIMIT_GOLDEN, JsonProblem, decode_utf8, parse_json, read_bytes
from cairn_action.golden.load import GoldenProblem, problems_error
from cairn_action.golden.models import GoldenCase, SupportQuote
from cairn_action.golden.quotes import visible
from cairn_action.golden.review import (
    NOTE_KNOWN_VALUE,
    NOTE_NO_CONTEXTS,
    NOTE_NOTHING_FOUND,
    NOTE_PROPOSED,
    with_digests,
)
from cairn_action.golden.support import find_document, locate_support
from cairn_action.index.corpus import DOCUMENT_SUFFIXES, Corpus
from cairn_action.squad import normalize_answer

ImportFormat = Literal["questions", "curation", "values"]
Proposer = Callable[[str, str | None, str | None], SupportQuote | None]
"""(question, answer or None, document or None) -> a proposed support, or None."""
AnswerProposer = Callable[[str], str | None]
"""question -> the configured answerer's answer, or None (`--propose-answers`)."""

HINT_QUESTIONS = "each row needs a question: name its field or column with --question-field"
HINT_CURATION = (
    "the curation guide's fields: id, input, expected, contexts (document ids, `doc.md#section`), tags, "
    "difficulty, added, annotator, dataset_version (one value for the whole file)"
)
HINT_VALUES = "name the CSV's columns with --question-field, --answer-field, --doc-field, --quote-field"


CURATION_FIELDS = frozenset(
    {"id", "input", "expected", "contexts", "tags", "difficulty", "added", "annotator", "dataset_version"}
)


@dataclass(frozen=True)
class Columns:
    """Which field or column holds what (flags of `cairn golden import`)."""

    question: str = "question"
    answer: str = "answer"
    doc: str = "doc"
    quote: str = "quote"
    id: str = "id"
    tags: str = "tags"


@dataclass(frozen=True)
class _Rows:
    """What every row of one import shares: the column names, the corpus, the defaults, the proposer."""

    columns: Columns
    corpus: Corpus
    prefix: str
    added: str
    annotator: str | None
    propose: Proposer
    answer: AnswerProposer | None = None

    def case_id(self, row: dict[str, Any], n: int) -> str:
        return _text(row, self.columns.id, required=False) or f"{self.prefix}-{n:04d}"


@dataclass(frozen=True)
class Imported:
    cases: tuple[GoldenCase, ...]
    version: str | None
    """golden.version to write (the curation format's dataset_version), or None."""
    warnings: tuple[str, ...] = ()
    """`file:line: ...` for rows written as they are but worth a look (an answer its contexts lack)."""


def read_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, row) of a JSONL or CSV file (by suffix); DataError at the first unreadable line."""
    text = decode_utf8(read_bytes(path, what="import file", limit=LIMIT_GOLDEN), str(path))
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text, newline=""))
        try:
            for row in reader:
                yield reader.line_num, {k.strip(): (v or "").strip() for k, v in row.items() if k is not None}
        except csv.Error as exc:  # a field over the csv module's limit (128 KiB)
            # line_num counts the lines read before the one the reader choked on
            raise DataError(
                f"{path}:{reader.line_num + 1}: not a CSV row Cairn can read: {exc}",
                "each row is one case: a question, an answer, a document and a quote of it",
            ) from None
        return
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            obj = parse_json(raw.rstrip("\r"))
        except JsonProblem as exc:
            raise DataError(f"{path}:{number}: {exc.message}", "each line must be one JSON object") from None
        if not isinstance(obj, dict):
            raise DataError(f"{path}:{number}: expected a JSON object", "each line must be one JSON object")
        yield number, obj


def import_cases(
    path: Path,
    fmt: ImportFormat,
    corpus: Corpus,
    *,
    columns: Columns,
    prefix: str,
    added: str,
    annotator: str | None,
    propose: Proposer,
    answer: AnswerProposer | None = None,
) -> Imported:
    """The cases `path` holds, in `fmt`; DataError listing every bad row (nothing is written then)."""
    problems: list[GoldenProblem] = []
    cases: list[GoldenCase] = []
    versions: dict[str, int] = {}
    seen: dict[str, int] = {}
    warnings: list[str] = []
    hint = {"questions": HINT_QUESTIONS, "curation": HINT_CURATION, "values": HINT_VALUES}[fmt]
    shared = _Rows(columns, corpus, prefix, added, annotator, propose, answer)
    for number, row in read_rows(path):

        def problem(message: str, line: int = number, why: str = hint) -> None:
            problems.append(GoldenProblem(str(path), line, message, why))

        try:
            if fmt == "curation":
                case, version = _curation_case(row, shared)
                if version is not None:
                    versions.setdefault(version, number)
            elif fmt == "values":
                case = _values_case(row, shared, len(cases) + 1)
            else:
                case = _question_case(row, shared, len(cases) + 1)
        except (DataError, ValidationError, ValueError) as exc:
            # A corpus problem (no such document, no such section) has a hint of its own.
            problem(_reason(exc), why=exc.hint if isinstance(exc, DataError) and exc.hint else hint)
            continue
        if case.id in seen:
            problem(f"case {case.id}: duplicate id (first on line {seen[case.id]})")
            continue
        seen[case.id] = number
        cases.append(case)
        if fmt == "curation" and case.status == "accepted" and case.answerable and not _says_it(case, corpus):
            warnings.append(
                f"{path}:{number}: case {case.id}: its contexts do not contain the expected answer as "
                "written (a paraphrase is judged, never matched); "
                f"`cairn golden quote {_shell_word(case)}` lists the passages that say it"
            )
    if len(versions) > 1:
        listed = ", ".join(f"{v} (line {n})" for v, n in versions.items())
        problems.append(GoldenProblem(str(path), None, f"more than one dataset_version: {listed}", hint))
    if not cases and not problems:
        problems.append(GoldenProblem(str(path), None, "no rows to import", hint))
    if problems:
        raise problems_error(problems, str(path))
    return Imported(cases=tuple(cases), version=next(iter(versions), None), warnings=tuple(warnings))


def _says_it(case: GoldenCase, corpus: Corpus) -> bool:
    """Some support's passage (a section, or a whole document) holds one of the case's answers, as exact
    match normalises them. Held-out check: an answer written without reading the text, under a document
    that did not say it, was imported without a word."""
    wanted = [w for w in (normalize_answer(g).split() for g in case.golds) if w]
    for support in case.support:
        doc = find_document(support.doc, corpus)
        span = locate_support(support, doc)
        if span is None:
            continue
        words = normalize_answer(visible(doc.text[span[0] : span[1]]).text).split()
        if any(_holds(words, w) for w in wanted):
            return True
    return False


def _holds(words: list[str], run: list[str]) -> bool:
    width = len(run)
    return any(words[i : i + width] == run for i in range(len(words) - width + 1))


def _shell_word(case: GoldenCase) -> str:
    return shlex.quote(case.expected_answer or "")


def _reason(exc: Exception) -> str:
    if isinstance(exc, DataError):
        return exc.message
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        return f"'{where}': {err['msg']}" if where else err["msg"]
    return str(exc)


def _text(row: dict[str, Any], field: str, *, required: bool) -> str | None:
    value = row.get(field)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise ValueError(f"no '{field}' (fields: {', '.join(sorted(row)) or 'none'})")
        return None
    if not isinstance(value, str):
        raise ValueError(f"'{field}' must be a string")
    return value.strip()


def _question_case(row: dict[str, Any], shared: _Rows, n: int) -> GoldenCase:
    question = _text(row, shared.columns.question, required=True)
    assert question is not None
    answer = shared.answer(question) if shared.answer is not None else None
    # With a proposed answer, the passage that contains it; else the passage about the question.
    proposed = (shared.propose(question, answer, None) if answer else None) or shared.propose(
        question, None, None
    )
    return GoldenCase(
        id=shared.case_id(row, n),
        question=question,
        expected_answer=answer,
        support=[proposed] if proposed else [],
        notes=NOTE_PROPOSED if proposed else NOTE_NOTHING_FOUND,
        added=shared.added,
        annotator=shared.annotator,
        status="draft",
    )


def _values_case(row: dict[str, Any], shared: _Rows, n: int) -> GoldenCase:
    columns, corpus = shared.columns, shared.corpus
    question = _text(row, columns.question, required=True)
    answer = _text(row, columns.answer, required=True)
    doc = _text(row, columns.doc, required=False)
    quote = _text(row, columns.quote, required=False)
    assert question is not None and answer is not None
    if doc is not None:
        doc = _document_name(doc, corpus)
    support: list[SupportQuote] = []
    status: Literal["draft", "accepted"] = "accepted"
    if quote is not None:
        if doc is None:
            raise ValueError(f"a quote needs its document: no '{columns.doc}'")
        support = [SupportQuote(doc=doc, quote=quote)]
        probe = GoldenCase(id="row", question=question, expected_answer=answer, support=support)
        support = with_digests(probe, corpus, "the quote")
    else:
        proposed = shared.propose(question, answer, doc)
        support = [proposed] if proposed else []
        status = "draft"
    tags = _text(row, columns.tags, required=False)
    return GoldenCase(
        id=shared.case_id(row, n),
        question=question,
        expected_answer=answer,
        support=support,
        tags=[t.strip() for t in (tags or "").replace(";", ",").split(",") if t.strip()],
        notes="" if status == "accepted" else NOTE_KNOWN_VALUE,
        added=shared.added,
        annotator=shared.annotator,
        status=status,
    )


def _curation_case(row: dict[str, Any], shared: _Rows) -> tuple[GoldenCase, str | None]:
    """One row of the curation guide's format. An answer with no `contexts` (the guide makes them optional)
    becomes a draft whose support is the passage retrieval proposes: a person checks it and accepts."""
    unknown = sorted(set(row) - CURATION_FIELDS)
    if unknown:
        raise ValueError(f"unknown field '{unknown[0]}' for the curation format")
    case_id = _text(row, "id", required=True)
    question = _text(row, "input", required=True)
    assert question is not None
    expected = row.get("expected")
    if expected is not None and not isinstance(expected, str):
        raise ValueError("'expected' must be a string (the gold answer)")
    contexts = row.get("contexts", [])
    if not isinstance(contexts, list) or not all(isinstance(c, str) and c.strip() for c in contexts):
        raise ValueError("'contexts' must be a list of document ids")
    version = row.get("dataset_version")
    if version is not None and not isinstance(version, str):
        raise ValueError("'dataset_version' must be a string")
    difficulty = row.get("difficulty")
    answerable = bool(expected and expected.strip())
    support = [_context_support(c, shared.corpus) for c in contexts] if answerable else []
    draft = answerable and not support
    if draft:
        proposed = shared.propose(question, (expected or "").strip(), None)
        support = [proposed] if proposed else []
    case = GoldenCase.model_validate(
        {
            "id": case_id,
            "question": question,
            "answerable": answerable,
            "expected_answer": expected.strip() if answerable and expected else None,
            "support": support,
            "tags": row.get("tags", []),
            "difficulty": difficulty.strip().lower() if isinstance(difficulty, str) else difficulty,
            "added": row.get("added") or shared.added,
            "annotator": row.get("annotator"),
            "status": "draft" if draft else "accepted",
            "notes": NOTE_NO_CONTEXTS if draft else "",
        },
        strict=True,
    )
    if draft:
        return case, version
    # Labelled where it came from, accepted here: the passages are recorded as they are now.
    return case.model_copy(update={"support": with_digests(case, shared.corpus, f"case {case_id}")}), version


def _context_support(context: str, corpus: Corpus) -> SupportQuote:
    """`doc.md#section` (or `doc.md`, or `doc` without its suffix) as document-level support."""
    doc, _, section = context.strip().partition("#")
    return SupportQuote(doc=_document_name(doc, corpus), section=section or None)


def _document_name(name: str, corpus: Corpus) -> str:
    """`name` as the corpus knows it; a name without a suffix may omit `.md` (curation-guide ids)."""
    try:
        find_document(name, corpus)
        return name
    except DataError:
        if "." not in name.rsplit("/", 1)[-1]:
            for suffix in DOCUMENT_SUFFIXES:
                try:
                    find_document(name + suffix, corpus)
                    return name + suffix
                except DataError:
                    continue
        raise
