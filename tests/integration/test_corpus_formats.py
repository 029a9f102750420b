"""Documents as teams have them: HTML, PDF, reStructuredText and AsciiDoc read as rendered text, quotes
copied from the rendered page found, and every file that is not read listed, never skipped silently."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from pdf_maker import make_pdf

from cairn_action.cli import main
from cairn_action.errors import DataError
from cairn_action.index.corpus import load_corpus
from cairn_action.index.readers import render

HTML = """<!DOCTYPE html><html><head><title>Returns</title><style>p { color: red }</style>
<script>var hidden = "not text";</script></head><body>
<h1>Returns policy</h1>
<p>A customer has <b>14 days</b> from delivery to
   request a <a href="credits.html">credit</a>.</p>
<ul><li>Chilled goods: <em>48 hours</em>.</li></ul>
</body></html>
"""
RST = """Driver handbook
===============

Drivers start the **morning round** at `6:30 <https://example.com/times>`_ sharp.
"""
ADOC = """= Holiday calendar

The depot is *closed on 26 December* and opens again on 27 December.
"""
PDF_LINES = ["Payment terms", "Invoices are due within 30 days of the invoice date."]
CASES = [
    ("returns.html", "A customer has 14 days from delivery to request a credit", "14 days"),
    ("drivers.rst", "Drivers start the morning round at 6:30 sharp", "6:30"),
    ("holidays.adoc", "The depot is closed on 26 December", "26 December"),
    ("payment.pdf", "Invoices are due within 30 days of the invoice date", "30 days"),
    ("notes.txt", "Plain notes are read as they are", "as they are"),
]


def _corpus(folder: Path) -> Path:
    corpus = folder / "docs"
    corpus.mkdir(parents=True)
    (corpus / "returns.html").write_text(HTML, encoding="utf-8")
    (corpus / "drivers.rst").write_text(RST, encoding="utf-8")
    (corpus / "holidays.adoc").write_text(ADOC, encoding="utf-8")
    (corpus / "payment.pdf").write_bytes(make_pdf(PDF_LINES))
    (corpus / "notes.txt").write_text("Plain notes are read as they are.\n", encoding="utf-8")
    return corpus


def _golden(folder: Path, cases: list[tuple[str, str, str]]) -> Path:
    lines = [
        {
            "id": f"c-{i}",
            "question": f"What does {doc} say?",
            "answerable": True,
            "expected_answer": answer,
            "support": [{"doc": doc, "quote": quote}],
        }
        for i, (doc, quote, answer) in enumerate(cases)
    ]
    path = folder / "golden.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in lines), encoding="utf-8")
    (folder / "golden.version").write_text("formats-1\n", encoding="utf-8")
    return path


def test_corpus__html_rst_adoc_pdf_and_text__each_read_as_its_rendered_text(tmp_path: Path) -> None:
    corpus = load_corpus(_corpus(tmp_path))
    texts = corpus.by_path()
    assert sorted(texts) == ["drivers.rst", "holidays.adoc", "notes.txt", "payment.pdf", "returns.html"]
    html = texts["returns.html"].text
    assert "A customer has 14 days from delivery to request a credit." in html  # as the browser shows it
    assert "<b>" not in html and "credits.html" not in html and "not text" not in html and "color" not in html
    assert "Drivers start the morning round at 6:30 sharp." in texts["drivers.rst"].text
    assert "https://example.com" not in texts["drivers.rst"].text  # a link's target is not visible
    assert "The depot is closed on 26 December and opens again" in texts["holidays.adoc"].text
    assert "Last updated" not in texts["holidays.adoc"].text  # no date: the corpus hash stays put
    assert texts["payment.pdf"].text == "\n".join(PDF_LINES) + "\n"
    assert corpus.skipped == ()


def test_corpus__rendering__deterministic_so_the_corpus_hash_is_stable(tmp_path: Path) -> None:
    first = load_corpus(_corpus(tmp_path / "a")).corpus_hash
    assert load_corpus(_corpus(tmp_path / "b")).corpus_hash == first


def test_golden_check__quotes_copied_from_the_rendered_pages__all_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path)
    golden = _golden(tmp_path, CASES)
    code = main(["golden", "check", "--golden", str(golden), "--corpus", str(corpus)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "5 documents" in out and "ok: 0 errors, 0 stale cases" in out


def test_golden_check__quote_not_on_the_page__nearest_rendered_text_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path)
    golden = _golden(
        tmp_path, [("returns.html", "A customer has 21 days from delivery to request a credit", "x")]
    )
    main(["golden", "check", "--golden", str(golden), "--corpus", str(corpus)])
    out = capsys.readouterr().out
    assert "stale" in out and "A customer has 14 days from delivery to" in out and "<b>" not in out


def test_corpus__files_not_read__listed_with_count_reason_and_examples(tmp_path: Path) -> None:
    corpus_dir = _corpus(tmp_path)
    for name in ("logo.png", "diagram.png", "style.css"):
        (corpus_dir / name).write_bytes(b"\x89PNG")
    (corpus_dir / "scan.pdf").write_bytes(b"%PDF-1.4 not really")
    (corpus_dir / ".git").mkdir()
    (corpus_dir / ".git" / "HEAD").write_text("ref\n", encoding="utf-8")  # hidden: not the corpus
    corpus = load_corpus(corpus_dir)
    lines = corpus.skipped_lines()
    assert len(corpus.documents) == 5 and len(lines) == 2
    other = next(line for line in lines if "not a format Cairn reads" in line)
    assert "3 files not read" in other and "2 .png, 1 .css" in other and "logo.png" in other
    damaged = next(line for line in lines if "scan.pdf" in line)
    assert "1 file not read (PDF: " in damaged


def test_eval__files_not_read__noted_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "logo.png").write_bytes(b"\x89PNG")
    _golden(tmp_path, CASES)
    (tmp_path / "cairn.toml").write_text(
        'name = "formats"\n[corpus]\npath = "docs"\n[golden]\npath = "golden.jsonl"\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "--split", "all", "--no-progress", "--run-only"]) == 0
    err = capsys.readouterr().err
    assert "1 file not read (not a format Cairn reads: 1 .png), e.g. logo.png" in err


def test_corpus__nothing_readable__names_the_extensions_found_and_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "site"
    corpus.mkdir()
    (corpus / "index.html").write_text(HTML, encoding="utf-8")
    (corpus / "about.htm").write_text(HTML, encoding="utf-8")
    (corpus / "logo.png").write_bytes(b"\x89PNG")
    monkeypatch.setitem(sys.modules, "inscriptis", None)  # an install without the [documents] extra
    with pytest.raises(DataError) as raised:
        load_corpus(corpus)
    message = raised.value.message + " " + (raised.value.hint or "")
    assert "no document Cairn can read" in message
    assert "1 .html" in message and "1 .htm" in message and "1 .png" in message
    assert "pip install 'cairn-action[documents]'" in message


def test_render__converter_missing__unreadable_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from cairn_action.index.readers import Unreadable

    monkeypatch.setitem(sys.modules, "pypdfium2", None)
    with pytest.raises(Unreadable, match=r"needs pypdfium2: pip install 'cairn-action\[documents\]'"):
        render(make_pdf(["x"]), "a.pdf")


def test_render__rst_include__does_not_read_files_outside_the_corpus(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET VALUE\n", encoding="utf-8")
    text = render(f".. include:: {secret}\n\nVisible text.\n".encode(), "x.rst")
    assert "TOP SECRET VALUE" not in text and "Visible text." in text


def test_golden_quote__html_and_text_with_underscores_and_asterisks__offered_as_the_page_shows_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The libffi manual (HTML) of the issue-24 walk-through: "ffi_prep_cif" was offered as "ffiprepcif",
    # and "ffi_cif *cif" as "ffi_cif cif": markdown's emphasis rule applied to text that is not markdown.
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "basics.html").write_text(
        "<html><body><p>To prepare a call interface object, use the function <code>ffi_prep_cif</code>."
        "</p><p>Function: ffi_status ffi_prep_cif (ffi_cif *<var>cif</var>, ffi_abi <var>abi</var>)</p>"
        "</body></html>",
        encoding="utf-8",
    )
    (corpus / "notes.txt").write_text("Set MAX_OPEN_FILES to 1_024 before the snake_case step.\n")
    (corpus / "guide.md").write_text("Call it within **two** days of the [init](init.md) step.\n")
    golden = _golden(tmp_path, [("notes.txt", "Set MAX_OPEN_FILES", "x")])
    offered = {}
    asked = {
        "ffi_prep_cif": "Which function prepares a call interface object?",
        "ffi_abi": "What is the type of the abi argument?",
        "MAX_OPEN_FILES": "What must be set first?",
        "two": "Within how many days?",
    }
    for answer, question in asked.items():
        argv = ["golden", "quote", answer, "--question", question, "--json", "--corpus", str(corpus)]
        assert main([*argv, "--golden", str(golden)]) == 0
        offered[answer] = json.loads(capsys.readouterr().out)[0]["quote"]
    assert offered["ffi_prep_cif"] == "To prepare a call interface object, use the function ffi_prep_cif."
    assert offered["ffi_abi"] == "Function: ffi_status ffi_prep_cif (ffi_cif *cif, ffi_abi abi)"
    assert offered["MAX_OPEN_FILES"] == "Set MAX_OPEN_FILES to 1_024 before the snake_case step."
    assert offered["two"] == "Call it within two days of the init step."  # markdown: its markup goes
    # each offered quote is one `cairn golden check` finds
    cases = [
        (doc, offered[a], a)
        for doc, a in [
            ("basics.html", "ffi_prep_cif"),
            ("basics.html", "ffi_abi"),
            ("notes.txt", "MAX_OPEN_FILES"),
            ("guide.md", "two"),
        ]
    ]
    assert main(["golden", "check", "--golden", str(_golden(tmp_path, cases)), "--corpus", str(corpus)]) == 0
