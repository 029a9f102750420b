"""Which converter reads HTML and PDF documents best: quote match rate and time per file.

Not a test: it prints medians and rates. For HTML, the reference is what a labeller copies from the page:
every paragraph (`<p>`, 40+ characters) of every file, its text content with whitespace collapsed (lxml).
A converter's output is good when each such paragraph is found in it, verbatim or on Cairn's visible text
(golden/quotes.py, the rule support quotes are matched by). For PDF there is no markup to take a
reference from, so it prints time and words, and the words only one converter produced (hyphenation).

    .venv/bin/python benchmarks/document_readers.py [--html DIR ...] [--pdf FILE ...]

The candidates that are not installed are skipped (pip install inscriptis html2text markdownify
beautifulsoup4 html-text pypdf pypdfium2).
"""

from __future__ import annotations

import argparse
import glob
import statistics
import time
from collections.abc import Callable

from cairn_action.golden.quotes import visible

HTML_DIRS = ["/usr/share/doc/nodejs/api", "/usr/share/doc/valgrind/html", "/usr/share/doc/libxslt1-dev/html"]
PDFS = [
    "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
    "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
]


def _norm(text: str) -> str:
    return " ".join(text.split())


def _inscriptis(html: str) -> str:
    from inscriptis import get_text

    return get_text(html)


def _html2text(html: str) -> str:
    import html2text

    converter = html2text.HTML2Text()
    converter.body_width = 0
    return converter.handle(html)


def _markdownify(html: str) -> str:
    from markdownify import markdownify

    return markdownify(html)


def _bs4(html: str) -> str:
    from bs4 import BeautifulSoup

    return BeautifulSoup(html, "lxml").get_text("\n")


def _html_text(html: str) -> str:
    import html_text

    return html_text.extract_text(html)


HTML_CONVERTERS: dict[str, Callable[[str], str]] = {
    "inscriptis": _inscriptis,
    "html2text": _html2text,
    "markdownify": _markdownify,
    "bs4 get_text": _bs4,
    "html-text": _html_text,
}


def _pypdf(path: str) -> str:
    from pypdf import PdfReader

    return "\n\n".join(page.extract_text() or "" for page in PdfReader(path).pages)


def _pypdfium2(path: str) -> str:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(path)
    try:
        return "\n\n".join(page.get_textpage().get_text_range() for page in document).replace("\ufffe", "")
    finally:
        document.close()


PDF_CONVERTERS: dict[str, Callable[[str], str]] = {"pypdf": _pypdf, "pypdfium2": _pypdfium2}


def bench_html(dirs: list[str]) -> None:
    from lxml import html as lxml_html

    files = sorted(f for d in dirs for f in glob.glob(f"{d}/*.html"))
    pages = [open(f, encoding="utf-8", errors="replace").read() for f in files]
    references = []
    for page in pages:
        paragraphs = (_norm(p.text_content()) for p in lxml_html.fromstring(page.encode()).iter("p"))
        references.append([p for p in paragraphs if len(p) >= 40])
    total = sum(map(len, references))
    print(
        f"HTML: {len(files)} files, {sum(map(len, pages)) / 1e6:.1f} MB, {total} paragraphs of 40+ characters"
    )
    for name, convert in HTML_CONVERTERS.items():
        try:
            convert("<p>warm</p>")
        except ImportError:
            print(f"  {name:14s} not installed")
            continue
        times, found = [], 0
        for page, paragraphs in zip(pages, references, strict=True):
            started = time.perf_counter()
            out = convert(page)
            times.append(time.perf_counter() - started)
            flat, seen = _norm(out), visible(out).text
            found += sum(1 for p in paragraphs if p in flat or visible(p).text in seen)
        print(
            f"  {name:14s} median {statistics.median(times) * 1000:6.1f} ms/file, total {sum(times):6.2f} s, "
            f"paragraphs found {found}/{total} = {found / total:.1%}"
        )


def bench_pdf(files: list[str], runs: int = 3) -> None:
    print(f"PDF: {len(files)} files, {runs} runs each")
    for path in files:
        outputs = {}
        for name, convert in PDF_CONVERTERS.items():
            try:
                times = []
                for _ in range(runs):
                    started = time.perf_counter()
                    outputs[name] = convert(path)
                    times.append(time.perf_counter() - started)
            except ImportError:
                print(f"  {name:10s} not installed")
                continue
            words = outputs[name].split()
            median_ms = statistics.median(times) * 1000
            print(f"  {path.rsplit('/', 1)[-1]:28s} {name:9s} median {median_ms:7.1f} ms, {len(words)} words")
        if len(outputs) == 2:
            a, b = (set(o.split()) for o in outputs.values())
            only_a = sorted(a - b)[:4]
            print(f"    only in pypdf: {len(a - b)} distinct words, e.g. {only_a}; pypdfium2: {len(b - a)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--html", nargs="*", default=HTML_DIRS, help="folders of .html files")
    parser.add_argument("--pdf", nargs="*", default=PDFS, help="PDF files")
    args = parser.parse_args()
    bench_html(args.html)
    bench_pdf(args.pdf)


if __name__ == "__main__":
    main()
