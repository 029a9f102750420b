"""Reading and validating a golden set: the one loader the run, the checker and the Action share.

Every problem is collected before anything is raised, so a user fixes a broken set in one pass:
`parse_golden` returns the valid cases and the problems side by side (the checker prints both), and
`load_golden` raises one `DataError` listing every problem as `file:line: what is wrong`.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cairn_action.errors import DataError
from cairn_action.files import (
    LIMIT_GOLDEN,
    LIMIT_VERSION,
    JsonProblem,
    decode_utf8,
    exists,
    is_dir,
    not_found,
    parse_json,
    read_bytes,
    read_text,
)
from cairn_action.golden.models import GoldenCase, GoldenSet
from cairn_action.golden.sealed import (
    HINT_NO_KEY,
    HINT_RESEAL,
    KEY_ENV,
    SealedFiles,
    check_questions_match,
    identity_from,
    open_key,
    pair_hash,
    read_questions,
    read_recipients,
    sealed_files,
)

GOLDEN_FILE = "golden.jsonl"
VERSION_FILE = "golden.version"

# The curation guide's floors; below them the set still loads, with a warning.
MIN_CASES = 100
MIN_UNANSWERABLE_SHARE = 0.25
MAX_ANSWER_WORDS = 8

HINT_JSON = "each non-blank line must be one JSON object"
HINT_FIELDS = (
    "the golden set reference lists the fields: id, question, answerable, expected_answer, support "
    "[{doc, quote, section, digest}], tags, notes, difficulty, added, annotator, answer_variants, checks "
    "{must_contain, must_not_contain, must_cite}, status, confirmed_by, deprecated; "
    "`cairn golden import --format curation` reads the curation guide's format"
)
HINT_DUPLICATE = "every case id must be unique: rename one of them"
HINT_ANSWERABLE = (
    "an answerable case needs expected_answer and support; "
    "an unanswerable one (answerable: false) has neither"
)
MAX_VERSION_CHARS = 128
HINT_PATH = "pass --golden PATH: the golden.jsonl file, or the folder that holds it"
HINT_EMPTY = "add cases to the golden set, one JSON object per line"
HINT_VERSION = f"{VERSION_FILE} holds one line, the version string; bump it on any change to the set"

# Field names other schemas use (the curation guide's own example among them), to suggest the right one.
_FIELD_ALIASES = {
    "input": "question",
    "query": "question",
    "expected": "expected_answer",
    "answer": "expected_answer",
    "contexts": "support",
    "quotes": "support",
    "tag": "tags",
    "note": "notes",
    "dataset_version": f"the {VERSION_FILE} file",
    "text": "quote",
    "document": "doc",
}


@dataclass(frozen=True)
class GoldenProblem:
    """One thing wrong with a golden set, at a line of a file (None: the file as a whole)."""

    file: str
    line: int | None
    message: str
    hint: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class ParsedGolden:
    """The valid cases of a golden set (as a GoldenSet) and every problem found reading it."""

    golden: GoldenSet
    problems: tuple[GoldenProblem, ...]


def problems_error(problems: list[GoldenProblem] | tuple[GoldenProblem, ...], what: str) -> DataError:
    """One DataError listing every problem, one `file:line: ...` per line, with their distinct hints."""
    lines = [str(p) for p in problems]
    if len(lines) == 1:
        message = lines[0]
    else:
        message = "\n".join([f"{len(lines)} problems in {what}:", *lines])
    hints = list(dict.fromkeys(p.hint for p in problems if p.hint))
    # CairnError.render prefixes the hint with "hint: "; repeating the prefix keeps one hint per line.
    return DataError(message, "\nhint: ".join(hints))


def golden_files(path: Path) -> tuple[Path, Path]:
    """(golden.jsonl, golden.version) for a path naming the JSONL file or the folder that holds it."""
    if is_dir(path):
        jsonl = path / GOLDEN_FILE
        if not exists(jsonl):
            reason = not_found(jsonl)
            raise DataError(
                f"{path}: no {GOLDEN_FILE} in this folder" if reason == "not found" else f"{jsonl}: {reason}",
                "pass --golden PATH: the golden.jsonl file, or the folder that holds it",
            )
        return jsonl, path / VERSION_FILE
    if not exists(path):
        raise DataError(
            f"{path}: golden set {not_found(path)}",
            "pass --golden PATH: the golden.jsonl file, or the folder that holds it",
        )
    return path, path.parent / VERSION_FILE


def load_golden(path: Path, env: Mapping[str, str] | None = None) -> GoldenSet:
    """Load and validate a golden set (a sealed one opened with the key in `env`, the process's
    environment by default); raise one DataError listing every problem."""
    parsed = parse_golden(path, env)
    if parsed.problems:
        raise problems_error(parsed.problems, str(parsed.golden.path))
    return parsed.golden


def parse_golden(path: Path, env: Mapping[str, str] | None = None) -> ParsedGolden:
    """Read a golden set, keeping the valid cases and collecting every problem instead of stopping.

    Raises DataError only when there is nothing to read (no file, not UTF-8, a sealed set whose key is
    not in `env`: golden/sealed.py).
    """
    sealed = sealed_files(Path(path))
    if sealed is not None:
        return _parse_sealed(sealed, env)
    jsonl, version_file = golden_files(Path(path))
    data = read_bytes(jsonl, what="golden set", hint=HINT_PATH, limit=LIMIT_GOLDEN)
    return _parse_bytes(data, str(jsonl), jsonl, version_file, hashlib.sha256(data).hexdigest())


def _parse_sealed(files: SealedFiles, env: Mapping[str, str] | None) -> ParsedGolden:
    """A sealed set opened with the key in `env` (the process's environment by default): the plaintext
    parsed as any golden set (its lines named `golden.key.age (sealed):N`), the questions file checked
    against it, and the pair's hash as the content hash."""
    identity = identity_from(env)
    if identity is None:
        raise DataError(f"{files.questions}: the golden set is sealed and {KEY_ENV} is not set", HINT_NO_KEY)
    questions, _, question_bytes = read_questions(files.questions)
    key_bytes, plain = open_key(files, identity)
    parsed = _parse_bytes(
        plain,
        f"{files.key} (sealed)",
        files.questions,
        files.folder / VERSION_FILE,
        pair_hash(question_bytes, key_bytes),
    )
    if not parsed.problems:
        check_questions_match(files.questions, questions, [(c.id, c.question) for c in parsed.golden.cases])
    recipients = tuple(str(r) for r in read_recipients(files.recipients))
    golden = replace(parsed.golden, sealed=True, recipients=recipients)
    return ParsedGolden(golden=golden, problems=parsed.problems)


def load_questions(path: Path) -> GoldenSet:
    """What the run may hold: a plain set whole, a sealed set's ids and questions only (whatever the
    environment holds: the caller decides whether a key there is allowed)."""
    files = sealed_files(Path(path))
    if files is None:
        return load_golden(path)
    questions, lines, question_bytes = read_questions(files.questions)
    key_bytes = read_bytes(files.key, what="sealed answer key", hint=HINT_RESEAL, limit=2 * LIMIT_GOLDEN)
    content_hash = pair_hash(question_bytes, key_bytes)
    version, from_file, problem = _read_version(files.folder / VERSION_FILE, content_hash)
    if problem is not None:
        raise problems_error([problem], str(files.folder / VERSION_FILE))
    return GoldenSet(
        path=files.questions,
        cases=tuple(GoldenCase(id=q.id, question=q.question) for q in questions),
        version=version,
        content_hash=content_hash,
        version_from_file=from_file,
        line_of=lines,
        sealed=True,
        answers_held=False,
    )


def _parse_bytes(data: bytes, shown: str, jsonl: Path, version_file: Path, content_hash: str) -> ParsedGolden:
    text = decode_utf8(data, shown)

    problems: list[GoldenProblem] = []
    cases: list[GoldenCase] = []
    line_of: dict[str, int] = {}
    seen_lines = 0
    # split("\n"), not splitlines(): U+2028 and friends may sit unescaped inside a JSON string.
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        seen_lines += 1
        case, line_problems = _parse_line(line, number, shown)
        problems.extend(line_problems)
        if case is None:
            continue
        if case.id in line_of:
            problems.append(
                GoldenProblem(
                    shown,
                    number,
                    f"case {case.id}: duplicate id (first on line {line_of[case.id]})",
                    HINT_DUPLICATE,
                )
            )
            continue
        line_of[case.id] = number
        cases.append(case)
    if seen_lines == 0:
        problems.append(GoldenProblem(shown, None, "the golden set has no cases", HINT_EMPTY))

    version, from_file, version_problem = _read_version(version_file, content_hash)
    if version_problem is not None:
        problems.append(version_problem)
    golden = GoldenSet(
        path=jsonl,
        cases=tuple(c for c in cases if c.is_active),
        inactive=tuple(c for c in cases if not c.is_active),
        version=version,
        content_hash=content_hash,
        version_from_file=from_file,
        line_of=line_of,
    )
    return ParsedGolden(golden=golden, problems=tuple(problems))


def hash_version(content_hash: str) -> str:
    """The version a golden set without a golden.version file gets: a prefix of its content hash."""
    return f"sha256:{content_hash[:16]}"


def golden_warnings(golden: GoldenSet) -> list[str]:
    """What the curation guide advises against, as `file[:line]: ...` lines; none of it stops a run."""
    shown = str(golden.path)
    warnings: list[str] = []
    if not golden.version_from_file:
        warnings.append(
            f"{shown}: no {VERSION_FILE} beside it, so the content hash {golden.version} is the version "
            f"(any edit changes it); write a {VERSION_FILE} to name the version"
        )
    n = len(golden.cases)
    if n == 0:
        return warnings
    if n < MIN_CASES:
        warnings.append(
            f"{shown}: {n} cases; a golden set needs at least {MIN_CASES} "
            "(fewer cannot detect a paired regression, and calibration holds a share of them out)"
        )
    unanswerable = sum(1 for c in golden.cases if not c.answerable)
    if unanswerable < MIN_UNANSWERABLE_SHARE * n:
        warnings.append(
            f"{shown}: {unanswerable} of {n} cases are unanswerable ({unanswerable / n:.0%}); include about "
            "a quarter, or abstention cannot be measured"
        )
    if not any(c.is_false_premise for c in golden.cases):
        warnings.append(
            f"{shown}: no false-premise cases (tag false_premise); questions whose premise the documents "
            "contradict are where confident wrong answers come from"
        )
    for case in golden.cases:
        words = len((case.expected_answer or "").split())
        if words > MAX_ANSWER_WORDS:
            warnings.append(
                f"{shown}:{golden.line_of.get(case.id, '?')}: case {case.id}: expected_answer has {words} "
                f"words; keep it to a number, a date, a name or a short phrase (about {MAX_ANSWER_WORDS} "
                "words at most) so token F1 measures the fact, not the wording"
            )
        if case.answerable and "unanswerable" in case.tags:
            warnings.append(
                f"{shown}:{golden.line_of.get(case.id, '?')}: case {case.id}: tagged unanswerable but "
                "answerable is true"
            )
    return warnings


def _read_version(version_file: Path, content_hash: str) -> tuple[str, bool, GoldenProblem | None]:
    fallback = hash_version(content_hash)
    if not exists(version_file) and not version_file.is_symlink():
        return fallback, False, None
    shown = str(version_file)
    try:
        version = read_text(version_file, what=VERSION_FILE, hint=HINT_VERSION, limit=LIMIT_VERSION).strip()
    except DataError as exc:
        message = exc.message.removeprefix(f"{shown}: ")
        return fallback, False, GoldenProblem(shown, None, message, HINT_VERSION)
    if not version:
        return fallback, False, GoldenProblem(shown, 1, "empty", HINT_VERSION)
    if "\n" in version:
        return fallback, False, GoldenProblem(shown, 2, "more than one line", HINT_VERSION)
    if len(version) > MAX_VERSION_CHARS or not version.isprintable():
        problem = GoldenProblem(
            shown,
            1,
            f"not a version string (printable, at most {MAX_VERSION_CHARS} characters)",
            HINT_VERSION,
        )
        return fallback, False, problem
    return version, True, None


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):  # rare: only then count (a Counter per object was 40 % of parsing)
        counts = Counter(key for key, _ in pairs)
        raise _DuplicateKeyError(next(key for key, count in counts.items() if count > 1))
    return obj


class _DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _parse_line(line: str, number: int, shown: str) -> tuple[GoldenCase | None, list[GoldenProblem]]:
    try:
        obj = parse_json(line, object_pairs_hook=_reject_duplicate_keys)
    except JsonProblem as exc:
        column = f" (column {exc.column})" if exc.column else ""
        return None, [GoldenProblem(shown, number, f"{exc.message}{column}", HINT_JSON)]
    except _DuplicateKeyError as exc:
        return None, [GoldenProblem(shown, number, f"key '{exc.key}' appears twice", HINT_JSON)]
    if not isinstance(obj, dict):
        return None, [
            GoldenProblem(shown, number, f"expected a JSON object, found {_json_kind(obj)}", HINT_JSON)
        ]
    label = f"case {obj['id']}: " if isinstance(obj.get("id"), str) and obj["id"].strip() else ""
    try:
        case = GoldenCase.model_validate(obj, strict=True)
    except ValidationError as exc:
        return None, [
            GoldenProblem(shown, number, label + _describe(err), HINT_FIELDS) for err in exc.errors()
        ]
    problems = [GoldenProblem(shown, number, label + m, HINT_ANSWERABLE) for m in _rule_violations(case)]
    for name in ("id", "question"):
        if not _has_text(getattr(case, name)):
            problems.insert(0, GoldenProblem(shown, number, f"{label}'{name}' is blank", HINT_FIELDS))
    for name in ("id", "question", "expected_answer"):
        value = getattr(case, name)
        if value and any(ch in value for ch in _CONTROL):
            problems.append(
                GoldenProblem(shown, number, f"{label}'{name}' holds a control character", HINT_FIELDS)
            )
    return (None if problems else case), problems


# C0 controls other than tab, line feed and carriage return, and DEL: never part of a question.
_CONTROL = frozenset(chr(c) for c in [*range(0, 9), 11, 12, *range(14, 32), 127])


def _has_text(value: str) -> bool:
    """Something a person could read: a character that is neither white space nor a control."""
    return any(ch.isprintable() and not ch.isspace() for ch in value)


def _rule_violations(case: GoldenCase) -> list[str]:
    """The answerable/unanswerable field rules of the golden set reference."""
    has = {
        "expected_answer": bool(case.expected_answer and case.expected_answer.strip()),
        "support": bool(case.support),
    }
    problems = [
        f"support[{i}] has a section and a quote; a section is for document-level support (no quote)"
        for i, s in enumerate(case.support)
        if s.section is not None and s.quote is not None
    ]
    if case.confirmed_by is not None and case.confirmed_by == case.annotator:
        problems.append("confirmed_by is the annotator; a confirmation is a second person's")
    if case.answerable:
        if case.status == "draft":  # a draft is a question waiting for its answer: never scored
            return problems
        return problems + [f"answerable case without {name}" for name, present in has.items() if not present]
    has["answer_variants"] = bool(case.answer_variants)
    return problems + [
        f"unanswerable case (answerable: false) has {name}" for name, present in has.items() if present
    ]


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _json_kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _describe(err: Any) -> str:
    """One plain line for one pydantic error."""
    loc = tuple(err["loc"])
    where = _where(loc)
    kind = err["type"]
    got = _json_kind(err.get("input"))
    if kind == "missing":
        return f"missing field '{where}'"
    if kind == "extra_forbidden":
        alias = _FIELD_ALIASES.get(str(loc[-1]))
        return f"unknown field '{where}'" + (f" (did you mean {_quoted(alias)}?)" if alias else "")
    if kind == "string_type":
        return f"'{where}' must be a string, not {got}"
    if kind == "bool_type":
        return f"'{where}' must be true or false, not {got}"
    if kind == "list_type":
        return f"'{where}' must be a list, not {got}"
    if kind in ("model_type", "dict_type"):
        return f"'{where}' must be an object with doc and quote, not {got}"
    if kind == "string_too_short":
        return f"'{where}' is empty"
    if kind == "literal_error":
        return f"'{where}' must be {err['ctx']['expected']}, not {json.dumps(err.get('input'))[:40]}"
    return f"'{where}': {err['msg']}"


def _quoted(alias: str) -> str:
    return alias if alias.startswith("the ") else f"'{alias}'"
