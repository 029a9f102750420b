"""The golden-set loader and `cairn golden check` on small broken sets: exact messages, exit codes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from cairn_action.cli import main
from cairn_action.errors import DataError, ExitCode
from cairn_action.golden.load import golden_warnings, load_golden, parse_golden

POLICY = (
    "# Returns policy\n\n"
    "A customer has 14 days from delivery to request a credit.\n\n"
    "Credits are paid within 5 working days of approval.\n"
)
QUOTE = "A customer has 14 days from delivery to request a credit"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "archive").mkdir(parents=True)
    (root / "returns-policy.md").write_text(POLICY, encoding="utf-8")
    (root / "archive" / "returns-policy-2023.md").write_text("Customers had 7 days.\n", encoding="utf-8")
    return root


def answerable(case_id: str = "ret-001", **fields: object) -> dict[str, object]:
    case: dict[str, object] = {
        "id": case_id,
        "question": "How long does a customer have to request a credit?",
        "answerable": True,
        "expected_answer": "14 days",
        "support": [{"doc": "returns-policy.md", "quote": QUOTE}],
        "tags": ["numeric", "policy"],
    }
    case.update(fields)
    return case


def unanswerable(case_id: str = "una-001", **fields: object) -> dict[str, object]:
    case: dict[str, object] = {
        "id": case_id,
        "question": "Who is the chief executive?",
        "answerable": False,
        "support": [],
        "tags": ["unanswerable"],
    }
    case.update(fields)
    return case


def write_set(folder: Path, lines: list[object], version: str | None = "1") -> Path:
    """golden.jsonl from dicts (dumped) and strings (written as they are), with golden.version."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "golden.jsonl"
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    if version is not None:
        (folder / "golden.version").write_text(version + "\n", encoding="utf-8")
    return path


def check(capsys: pytest.CaptureFixture[str], golden: Path, corpus: Path) -> tuple[int, str]:
    code = main(["golden", "check", "--golden", str(golden), "--corpus", str(corpus)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out + err


def error_lines(output: str) -> list[str]:
    """The lines of the report's errors section."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("errors ("))
    section = []
    for line in lines[start + 1 :]:
        if not line.startswith("  "):
            break
        section.append(line.strip())
    return section


BROKEN_LINES = [
    pytest.param("not json", "invalid JSON: Expecting value (column 1)", id="invalid-json"),
    pytest.param('{"id": "x", "id": "y"}', "key 'id' appears twice", id="duplicate-key"),
    pytest.param("[1, 2]", "expected a JSON object, found a list", id="not-an-object"),
    pytest.param(
        json.dumps({k: v for k, v in answerable().items() if k != "question"}),
        "case ret-001: missing field 'question'",
        id="missing-field",
    ),
    pytest.param(
        json.dumps(answerable(answerable="yes")),
        "case ret-001: 'answerable' must be true or false, not a string",
        id="mistyped-bool",
    ),
    pytest.param(json.dumps(answerable(id=14)), "'id' must be a string, not a number", id="mistyped-id"),
    pytest.param(
        json.dumps(answerable(tags="policy")),
        "case ret-001: 'tags' must be a list, not a string",
        id="mistyped-list",
    ),
    pytest.param(
        json.dumps(answerable(support=["returns-policy.md"])),
        "case ret-001: 'support[0]' must be an object with doc and quote, not a string",
        id="mistyped-support",
    ),
    pytest.param(
        json.dumps(
            answerable(support=[{"doc": "returns-policy.md", "quote": "14 days", "section": "Credits"}])
        ),
        "case ret-001: support[0] has a section and a quote; a section is for document-level support "
        "(no quote)",
        id="section-and-quote",
    ),
    pytest.param(
        json.dumps(answerable(input="How long?")),
        "case ret-001: unknown field 'input' (did you mean 'question'?)",
        id="unknown-field",
    ),
    pytest.param(
        json.dumps(answerable(difficulty="trivial")),
        "case ret-001: 'difficulty' must be 'easy', 'medium' or 'hard', not \"trivial\"",
        id="bad-difficulty",
    ),
    pytest.param(
        json.dumps(answerable(question="   ")), "case ret-001: 'question' is blank", id="blank-question"
    ),
    pytest.param(
        json.dumps(answerable(expected_answer=None)),
        "case ret-001: answerable case without expected_answer",
        id="answerable-no-answer",
    ),
    pytest.param(
        json.dumps(answerable(support=[])),
        "case ret-001: answerable case without support",
        id="answerable-no-support",
    ),
    pytest.param(
        json.dumps(unanswerable(expected_answer="Nobody")),
        "case una-001: unanswerable case (answerable: false) has expected_answer",
        id="unanswerable-with-answer",
    ),
    pytest.param(
        json.dumps(unanswerable(support=[{"doc": "returns-policy.md", "quote": QUOTE}])),
        "case una-001: unanswerable case (answerable: false) has support",
        id="unanswerable-with-support",
    ),
]


@pytest.mark.parametrize(("line", "message"), BROKEN_LINES)
def test_load_golden__broken_line__raises_one_data_error_with_file_and_line(
    tmp_path: Path, line: str, message: str
) -> None:
    path = write_set(tmp_path / "golden", [answerable("ok-001"), line])
    with pytest.raises(DataError) as raised:
        load_golden(path)
    assert raised.value.message == f"{path}:2: {message}"
    assert raised.value.hint
    assert raised.value.exit_code == ExitCode.USAGE


@pytest.mark.parametrize(("line", "message"), BROKEN_LINES)
def test_golden_check__broken_line__prints_message_and_exits_2(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str], line: str, message: str
) -> None:
    path = write_set(tmp_path / "golden", [answerable("ok-001"), line])
    code, output = check(capsys, path, corpus)
    assert code == 2
    assert error_lines(output) == [f"{path}:2: {message}"]
    assert "hint: " in output


def test_golden_check__duplicate_id__names_the_first_line(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_set(tmp_path / "golden", [answerable("ret-001"), unanswerable(), answerable("ret-001")])
    code, output = check(capsys, path, corpus)
    assert code == 2
    assert error_lines(output) == [f"{path}:3: case ret-001: duplicate id (first on line 1)"]
    assert "hint: every case id must be unique: rename one of them" in output


@pytest.mark.parametrize("lines", [[], ["", "   "]], ids=["empty", "blank-lines-only"])
def test_golden_check__no_cases__is_an_error(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str], lines: list[object]
) -> None:
    path = write_set(tmp_path / "golden", lines)
    code, output = check(capsys, path, corpus)
    assert code == 2
    assert error_lines(output) == [f"{path}: the golden set has no cases"]


def test_load_golden__several_problems__lists_every_one_in_line_order(tmp_path: Path) -> None:
    path = write_set(
        tmp_path / "golden",
        ["{oops", answerable("ret-001"), "", answerable("ret-001"), unanswerable(expected_answer="No")],
    )
    with pytest.raises(DataError) as raised:
        load_golden(path)
    assert raised.value.message.splitlines() == [
        f"3 problems in {path}:",
        f"{path}:1: invalid JSON: Expecting property name enclosed in double quotes (column 2)",
        f"{path}:4: case ret-001: duplicate id (first on line 2)",
        f"{path}:5: case una-001: unanswerable case (answerable: false) has expected_answer",
    ]
    assert raised.value.hint.splitlines() == [
        "each non-blank line must be one JSON object",
        "hint: every case id must be unique: rename one of them",
        "hint: an answerable case needs expected_answer and support; "
        "an unanswerable one (answerable: false) has neither",
    ]


def test_load_golden__blank_lines__are_allowed_and_lines_keep_their_numbers(tmp_path: Path) -> None:
    path = write_set(tmp_path / "golden", ["", answerable("ret-001"), "  ", "", unanswerable("una-001")])
    golden = load_golden(path)
    assert [c.id for c in golden.cases] == ["ret-001", "una-001"]
    assert golden.line_of == {"ret-001": 2, "una-001": 5}


def test_load_golden__version_file__is_the_version(tmp_path: Path) -> None:
    path = write_set(tmp_path / "golden", [answerable()], version="2026.11")
    golden = load_golden(tmp_path / "golden")  # the folder works as well as the file
    assert golden.path == path
    assert golden.version == "2026.11"
    assert golden.version_from_file
    assert golden.content_hash == hashlib.sha256(path.read_bytes()).hexdigest()
    assert not any("golden.version" in w for w in golden_warnings(golden))


def test_load_golden__no_version_file__uses_the_content_hash_and_warns(tmp_path: Path) -> None:
    path = write_set(tmp_path / "golden", [answerable()], version=None)
    golden = load_golden(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert golden.version == f"sha256:{digest[:16]}"
    assert not golden.version_from_file
    assert golden_warnings(golden)[0] == (
        f"{path}: no golden.version beside it, so the content hash sha256:{digest[:16]} is the version "
        "(any edit changes it); write a golden.version to name the version"
    )


def test_load_golden__empty_version_file__is_an_error(tmp_path: Path) -> None:
    write_set(tmp_path / "golden", [answerable()], version="  ")
    with pytest.raises(DataError) as raised:
        load_golden(tmp_path / "golden")
    assert raised.value.message == f"{tmp_path / 'golden' / 'golden.version'}:1: empty"


def test_golden_check__missing_golden_file__exits_2_without_traceback(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere" / "golden.jsonl"
    code, output = check(capsys, missing, corpus)
    assert code == 2
    assert output.splitlines()[0] == f"error: {missing}: golden set not found"
    assert output.splitlines()[1].startswith("hint: pass --golden PATH")


def test_golden_check__support_doc_missing__suggests_the_closest_name(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = answerable(support=[{"doc": "return-policy.md", "quote": QUOTE}])
    path = write_set(tmp_path / "golden", [case])
    code, output = check(capsys, path, corpus)
    assert code == 2
    assert error_lines(output) == [
        f"{path}:1: case ret-001: support[0].doc 'return-policy.md' is not a document in the corpus "
        f"{corpus} (2 documents) (did you mean 'returns-policy.md'?)"
    ]
    assert "hint: support[].doc is the document's basename, or its path relative to the corpus root" in output


def test_golden_check__quote_not_verbatim__lists_the_case_as_stale_and_exits_2(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    still_there = "A customer has 14 days from delivery to "
    quote = still_there + "claim a credit"
    path = write_set(
        tmp_path / "golden", [answerable(support=[{"doc": "returns-policy.md", "quote": quote}])]
    )
    code, output = check(capsys, path, corpus)
    assert code == 2
    assert "errors (" not in output
    assert output.count("stale cases (1: ret-001)") == 1
    assert (
        f"  {path}:1: case ret-001: support[0].quote is not in returns-policy.md: "
        f'"{quote}" (its first {len(still_there)} of {len(quote)} characters are); '
        "nearest, at returns-policy.md:"
    ) in output
    assert output.splitlines()[-1] == "failed: 0 errors, 1 stale case, 3 warnings"


def test_golden_check__quote_differs_in_line_breaks__matched_on_the_visible_text(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quote = "request a credit.\nCredits are paid"  # the document has a blank line between them
    path = write_set(
        tmp_path / "golden", [answerable(support=[{"doc": "returns-policy.md", "quote": quote}])]
    )
    code, output = check(capsys, path, corpus)
    assert code == 0, output
    assert "stale" not in output.split("\n\n")[-1].replace("0 stale", "")


def test_golden_check__valid_small_set__passes_with_curation_warnings(
    tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long_answer = "fourteen calendar days counted from the day of the delivery"
    path = write_set(tmp_path / "golden", [answerable(), answerable("ret-002", expected_answer=long_answer)])
    code, output = check(capsys, path, corpus)
    assert code == 0
    assert output.splitlines()[0] == (
        f"{path}: version 1 (golden.version), 2 cases: 2 answerable, 0 unanswerable, 0 false premise"
    )
    warnings = [line.strip() for line in output.splitlines() if line.startswith(f"  {path}")]
    assert warnings == [
        f"{path}: 2 cases; a golden set needs at least 100 (fewer cannot detect a paired "
        "regression, and calibration holds a share of them out)",
        f"{path}: 0 of 2 cases are unanswerable (0%); include about a quarter, or abstention cannot be "
        "measured",
        f"{path}: no false-premise cases (tag false_premise); questions whose premise the documents "
        "contradict are where confident wrong answers come from",
        f"{path}:2: case ret-002: expected_answer has 10 words; keep it to a number, a date, a name or a "
        "short phrase (about 8 words at most) so token F1 measures the fact, not the wording",
    ]
    assert output.splitlines()[-1] == "ok: 0 errors, 0 stale cases, 4 warnings"


def test_golden_warnings__set_that_follows_the_guide__has_none(tmp_path: Path) -> None:
    cases: list[object] = [answerable(f"ret-{i:03}") for i in range(75)]
    cases += [unanswerable(f"una-{i:03}") for i in range(20)]
    cases += [unanswerable(f"fp-{i:03}", tags=["unanswerable", "false_premise"]) for i in range(5)]
    golden = load_golden(write_set(tmp_path / "golden", cases))
    assert golden_warnings(golden) == []


def test_golden_warnings__99_cases_or_under_a_quarter_unanswerable__warn(tmp_path: Path) -> None:
    cases: list[object] = [answerable(f"ret-{i:03}") for i in range(76)]
    cases += [unanswerable(f"fp-{i:03}", tags=["false_premise"]) for i in range(23)]
    warnings = golden_warnings(load_golden(write_set(tmp_path / "golden", cases)))
    assert [w.split(": ", 1)[1] for w in warnings] == [
        "99 cases; a golden set needs at least 100 (fewer cannot detect a paired regression, "
        "and calibration holds a share of them out)",
        "23 of 99 cases are unanswerable (23%); include about a quarter, or abstention cannot be measured",
    ]


def test_parse_golden__broken_lines__keeps_the_valid_cases(tmp_path: Path) -> None:
    path = write_set(tmp_path / "golden", [answerable("ret-001"), "nope", unanswerable("una-001")])
    parsed = parse_golden(path)
    assert [c.id for c in parsed.golden.cases] == ["ret-001", "una-001"]
    assert [str(p) for p in parsed.problems] == [f"{path}:2: invalid JSON: Expecting value (column 1)"]


def test_golden_warnings__answerable_case_tagged_unanswerable__warns(tmp_path: Path) -> None:
    path = write_set(tmp_path / "golden", [answerable(tags=["unanswerable"])])
    warnings = golden_warnings(load_golden(path))
    assert f"{path}:1: case ret-001: tagged unanswerable but answerable is true" in warnings
