"""`cairn golden check` and quote matching on a real corpus (the Sourcegraph handbook: in full beside the
clone, else its vendored excerpt): quotes copied from the rendered page, ambiguous `index.md`, slashes,
a forgotten --corpus, errors in file order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from repo_files import handbook_corpus

from cairn_action.cli import main
from cairn_action.golden.load import load_golden
from cairn_action.golden.quotes import locate_quote, nearest_span
from cairn_action.golden.support import resolve_support
from cairn_action.index.corpus import load_corpus

TIME_OFF = "benefits-pay-perks/benefits-perks/time-off/index.md"
EXPENSES = "benefits-pay-perks/pay-expenses/expenses/index.md"


def _write(folder: Path, cases: list[dict[str, object]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "golden.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    (folder / "golden.version").write_text("hb-test-1\n", encoding="utf-8")
    return folder / "golden.jsonl"


def _case(case_id: str, doc: str, quote: str) -> dict[str, object]:
    return {
        "id": case_id,
        "question": "What does the handbook say?",
        "expected_answer": "what it says",
        "support": [{"doc": doc, "quote": quote}],
        "tags": ["policy"],
    }


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["golden", "check", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out + err


def test_quote__copied_from_the_rendered_page__found_with_offsets_into_the_raw_markdown() -> None:
    raw = (handbook_corpus() / TIME_OFF).read_text(encoding="utf-8")
    rendered = "we encourage our teammates to take a minimum of 30 days total paid time off for rest"
    assert rendered not in raw  # the file says **minimum of 30 days**
    span = locate_quote(rendered, raw)
    assert span is not None
    assert raw[span[0] : span[1]] == (
        "we encourage our teammates to take a **minimum of 30 days** total paid time off for rest"
    )


def test_quote__link_text_and_wrapped_lines__matched_on_what_a_reader_sees() -> None:
    raw = "Read the\n[expenses   page](../pay-expenses/expenses/index.md) _before_ you `spend`.\n"
    span = locate_quote("Read the expenses page before you spend.", raw)
    assert span is not None and raw[span[0] : span[1]] == raw.strip()
    assert locate_quote("Read the expenses page after you spend.", raw) is None


def test_quote__nowhere__nearest_span_shows_what_the_document_says_now() -> None:
    raw = (handbook_corpus() / TIME_OFF).read_text(encoding="utf-8")
    drifted = "we encourage our teammates to take a minimum of 25 days total paid time off for rest"
    assert locate_quote(drifted, raw) is None
    near = nearest_span(drifted, raw)
    assert near is not None and "minimum of 30 days" in raw[near[0] : near[1]]


def test_golden_check__quote_as_rendered__passes_and_the_run_uses_the_raw_span(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = handbook_corpus()
    rendered = "we encourage our teammates to take a minimum of 30 days total paid time off for rest"
    golden = _write(tmp_path, [_case("hb-r1", TIME_OFF, rendered)])
    code, output = _check(capsys, "--golden", str(golden), "--corpus", str(corpus))
    assert code == 0, output
    resolved = resolve_support(load_golden(golden), load_corpus(corpus)).resolved["hb-r1"]
    raw = (corpus / TIME_OFF).read_text(encoding="utf-8")
    assert [raw[r.start : r.end] for r in resolved] == [
        rendered.replace("minimum of 30 days", "**minimum of 30 days**")
    ]


def test_golden_check__quote_drifted__stale_with_the_nearest_passage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drifted = "we encourage our teammates to take a minimum of 25 days total paid time off for rest"
    golden = _write(tmp_path, [_case("hb-s1", TIME_OFF, drifted)])
    code, output = _check(capsys, "--golden", str(golden), "--corpus", str(handbook_corpus()))
    assert code == 2
    line = next(x for x in output.splitlines() if "case hb-s1: support[0].quote" in x)
    assert f"; nearest, at {TIME_OFF}:13: " in line and "**minimum of 30 days**" in line


def test_golden_check__ambiguous_index_md__shows_five_paths_and_the_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = handbook_corpus()
    n = sum(1 for p in corpus.rglob("index.md"))
    golden = _write(tmp_path, [_case("hb-a1", "index.md", "Sourcegraph")])
    code, output = _check(capsys, "--golden", str(golden), "--corpus", str(corpus))
    assert code == 2
    line = next(x for x in output.splitlines() if "case hb-a1" in x)
    assert f"'index.md' matches {n} documents: " in line and line.endswith(f" and {n - 5} more")
    assert line.count("index.md") == 1 + 5 and len(line) < 600


def test_golden_check__windows_backslashes__named_with_the_forward_slash_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    windows = EXPENSES.replace("/", "\\")
    golden = _write(tmp_path, [_case("hb-w1", windows, "Itemized receipts must be included")])
    code, output = _check(capsys, "--golden", str(golden), "--corpus", str(handbook_corpus()))
    assert code == 2
    assert f"support[0].doc '{windows}' uses backslashes (did you mean '{EXPENSES}'?)" in output
    assert "hint: support[].doc uses forward slashes on every system" in output


def test_golden_check__errors__listed_in_file_line_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [
        _case("hb-o1", "no-such-page.md", "anything"),  # line 1: a support problem
        {"id": "hb-o2", "question": "?", "answerable": True},  # line 2: the loader's problem
        _case("hb-o3", "also-missing.md", "anything"),  # line 3: a support problem
    ]
    golden = _write(tmp_path, cases)
    code, output = _check(capsys, "--golden", str(golden), "--corpus", str(handbook_corpus()))
    assert code == 2
    errors = [x for x in output.split("\nerrors (")[1].split("\n\n")[0].splitlines() if x.startswith("  ")]
    numbers = [int(x.removeprefix(f"  {golden}:").split(":")[0]) for x in errors]
    assert numbers == sorted(numbers) and set(numbers) == {1, 2, 3}


def test_golden_check__own_golden_set_without_corpus__names_the_corpus_and_generates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no cairn.toml: the embedded default, whose corpus is the sample
    golden = _write(tmp_path / "mine", [_case("hb-c1", TIME_OFF, "a minimum of 30 days")])
    code, output = _check(capsys, "--golden", str(golden))
    assert code == 2
    assert not (tmp_path / "data").exists()  # the sample is generated only for its own golden set
    assert "data/sample: corpus folder not found" in output and "--corpus" in output


def test_golden_check__wrong_corpus__names_it_and_asks_whether_it_is_the_right_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = tmp_path / "sample"
    assert main(["corpus", "generate", "--out", str(sample)]) == 0
    capsys.readouterr()
    cases = [
        _case(f"hb-x{i}", doc, "a quote") for i, doc in enumerate([TIME_OFF, EXPENSES, "parental-leave.md"])
    ]
    golden = _write(tmp_path / "mine", cases)
    code, output = _check(capsys, "--golden", str(golden), "--corpus", str(sample))
    assert code == 2
    assert f"is not a document in the corpus {sample} (16 documents)" in output
    assert (
        f"hint: 3 of the 3 support documents are not in the corpus {sample} (16 documents): is it the"
        in output
    )
