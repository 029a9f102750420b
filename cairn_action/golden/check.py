"""`cairn golden check`: validate a golden set against its corpus and print what was found.

Everything wrong is reported in one pass: the loader's problems (JSON, fields, duplicate ids, the
answerable rules), support entries naming no document or several, and stale cases (a quote no longer
in its document, as written or as rendered) in a section of their own, so a user sees which cases
drifted. Any error or stale case fails the check (exit 2); the loader's warnings do not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from cairn_action.errors import ExitCode
from cairn_action.golden.balance import balance_lines
from cairn_action.golden.history import MeasuredSet, unbumped_version
from cairn_action.golden.load import VERSION_FILE, golden_warnings, parse_golden
from cairn_action.golden.models import GoldenCase, GoldenSet
from cairn_action.golden.support import HINT_CHANGED, HINT_STALE, HINT_UNCONFIRMED, resolve_support
from cairn_action.index.corpus import Corpus, load_corpus

_DIFFICULTIES = ("easy", "medium", "hard")
NEXT_STEP = "next: `cairn eval` runs these cases through the system and writes the report"


@dataclass(frozen=True)
class GoldenCounts:
    """How a golden set divides: answerable, unanswerable (no answer in the corpus), false premise."""

    cases: int
    answerable: int
    unanswerable: int
    """Unanswerable cases not tagged false_premise."""
    false_premise: int
    """Unanswerable cases tagged false_premise."""
    tags: tuple[tuple[str, int], ...]
    """(tag, cases), most frequent first."""
    difficulty: tuple[tuple[str, int], ...]
    """(difficulty, cases), easy to hard then unset; empty when no case gives one."""


@dataclass(frozen=True)
class GoldenCheck:
    """The outcome of checking a golden set against a corpus."""

    golden: GoldenSet
    corpus: Corpus
    counts: GoldenCounts
    warnings: tuple[str, ...]
    errors: tuple[str, ...]
    stale: tuple[str, ...]
    """One line per quote no longer verbatim in its document."""
    stale_ids: tuple[str, ...]
    hints: tuple[str, ...]
    unconfirmed: tuple[str, ...] = ()
    """One line per critical case awaiting a second person's confirmation (left out of scores)."""
    drafts: tuple[str, ...] = ()
    deprecated: tuple[str, ...] = ()

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.USAGE if self.errors or self.stale else ExitCode.PASS


def count_cases(cases: Iterable[GoldenCase]) -> GoldenCounts:
    """Counts by answerability, tag and difficulty."""
    cases = list(cases)
    unanswerable = [c for c in cases if not c.answerable]
    false_premise = sum(1 for c in unanswerable if c.is_false_premise)
    tags = Counter(tag for c in cases for tag in dict.fromkeys(c.tags))
    difficulty: tuple[tuple[str, int], ...] = ()
    if any(c.difficulty for c in cases):
        levels = Counter(c.difficulty or "unset" for c in cases)
        difficulty = tuple((d, levels[d]) for d in (*_DIFFICULTIES, "unset") if levels[d])
    return GoldenCounts(
        cases=len(cases),
        answerable=len(cases) - len(unanswerable),
        unanswerable=len(unanswerable) - false_premise,
        false_premise=false_premise,
        tags=tuple(sorted(tags.items(), key=lambda kv: (-kv[1], kv[0]))),
        difficulty=difficulty,
    )


def check_golden(
    golden_path: Path,
    corpus: Corpus,
    critical_tags: Sequence[str] = (),
    measured: Sequence[MeasuredSet] = (),
) -> GoldenCheck:
    """Check the golden set at `golden_path` against `corpus`, collecting every problem; `measured` are
    the golden sets committed reports measured (for the unbumped-version warning)."""
    parsed = parse_golden(golden_path)
    golden = parsed.golden
    resolution = resolve_support(golden, corpus, critical_tags)
    hints = [p.hint for p in parsed.problems] + resolution.hints
    if resolution.drifted - resolution.changed:
        hints.append(HINT_STALE)
    if resolution.changed:
        hints.append(HINT_CHANGED)
    if resolution.unconfirmed:
        hints.append(HINT_UNCONFIRMED)
    return GoldenCheck(
        golden=golden,
        corpus=corpus,
        counts=count_cases(golden.cases),
        warnings=tuple(golden_warnings(golden) + unbumped_version(golden, measured)),
        errors=_in_line_order([str(p) for p in parsed.problems] + resolution.errors, str(golden.path)),
        stale=tuple(resolution.stale_details),
        stale_ids=tuple(c.id for c in golden.cases if c.id in resolution.drifted),
        hints=tuple(dict.fromkeys(h for h in hints if h)),
        unconfirmed=tuple(resolution.unconfirmed.values()),
        drafts=tuple(c.id for c in golden.inactive if c.status == "draft"),
        deprecated=tuple(c.id for c in golden.inactive if c.deprecated),
    )


def format_check(check: GoldenCheck) -> str:
    """The printed report: header, counts per tag and difficulty, warnings, errors, stale cases."""
    golden, counts = check.golden, check.counts
    source = VERSION_FILE if golden.version_from_file else f"content hash, no {VERSION_FILE}"
    lines = [
        f"{golden.path}: version {golden.version} ({source}), {counts.cases} cases: "
        f"{counts.answerable} answerable, {counts.unanswerable} unanswerable, "
        f"{counts.false_premise} false premise",
        f"corpus {check.corpus.root}: {len(check.corpus.documents)} documents, "
        f"corpus_hash {check.corpus.corpus_hash[:16]}",
        *(f"note: {line}" for line in check.corpus.skipped_lines()),
    ]
    if check.drafts or check.deprecated:
        lines.append(
            f"not scored: {len(check.drafts)} draft (`cairn golden accept ID`), "
            f"{len(check.deprecated)} deprecated"
        )
    lines += _table("per tag", counts.tags)
    lines += _table("per difficulty", counts.difficulty)
    lines += balance_lines(check.golden.cases)
    lines += _section(f"warnings ({len(check.warnings)})", check.warnings)
    lines += _section(f"errors ({len(check.errors)})", check.errors)
    if check.stale:
        lines += _section(
            f"stale cases ({len(check.stale_ids)}: {', '.join(check.stale_ids)}): the quote is not in its "
            "document (as written or as rendered), or the passage it rests on changed since it was "
            "labelled; a run leaves these cases out of every score",
            check.stale,
        )
    lines += _section(
        f"awaiting confirmation ({len(check.unconfirmed)}): left out of every score until a second "
        "person confirms them",
        check.unconfirmed,
    )
    failed = check.exit_code != ExitCode.PASS
    lines += [f"hint: {hint}" for hint in check.hints] if failed else [NEXT_STEP]
    n_errors, n_stale = len(check.errors), len(check.stale_ids)
    outcome = "failed" if failed else "ok"
    lines.append(
        f"\n{outcome}: {n_errors} error{'s' * (n_errors != 1)}, {n_stale} stale case{'s' * (n_stale != 1)}, "
        f"{len(check.warnings)} warning{'s' * (len(check.warnings) != 1)}"
    )
    return "\n".join(lines)


def run_golden_check(
    golden_path: Path,
    corpus_dir: Path,
    out: TextIO,
    critical_tags: Sequence[str] = (),
    measured: Sequence[MeasuredSet] = (),
) -> int:
    """Load the corpus, check the golden set against it, print the report to `out`; the exit code."""
    check = check_golden(golden_path, load_corpus(corpus_dir), critical_tags, measured)
    print(format_check(check), file=out)
    return int(check.exit_code)


def _in_line_order(errors: list[str], path: str) -> tuple[str, ...]:
    """Errors as the file reads, top to bottom: the loader's and the support problems interleaved by line
    (the file-wide ones first); the sort is stable, so one line's problems keep their order."""

    def line(error: str) -> int:
        head = error.removeprefix(path).partition(": ")[0]
        return int(head[1:]) if head.startswith(":") and head[1:].isdigit() else 0

    return tuple(sorted(errors, key=line))


def _table(title: str, rows: tuple[tuple[str, int], ...]) -> list[str]:
    if not rows:
        return []
    width = max(len(name) for name, _ in rows)
    return [f"\n{title}:", *(f"  {name:<{width}}  {n:>4}" for name, n in rows)]


def _section(title: str, items: tuple[str, ...]) -> list[str]:
    if not items:
        return []
    return [f"\n{title}:", *(f"  {item}" for item in items)]
