"""Turning a document file into the text a reader sees: the one place that knows document formats.

Markdown and plain text are read as they are (quotes are matched on markdown's visible text, see
golden/quotes.py). Every other format is *rendered* to plain text by a well-kept converter, and that
rendered text is the document from then on: chunks, retrieval, support quotes, the corpus hash and the
explorer all see it, so a quote copied from the page in a browser or a PDF viewer is found verbatim.

The converters are an optional extra, chosen by measurement (benchmarks/document_readers.py):
- HTML (`.html`, `.htm`): inscriptis, which lays text out as a browser does (block elements on lines of
  their own, no markup). 99.9 % of the paragraphs of 139 real HTML manuals were found verbatim in its
  output, at a median of 16-25 ms a file.
- PDF: pypdfium2 (PDFium, the engine of Chromium's viewer): ten times faster than pypdf on the same
  manuals, and it marks words hyphenated at a line end, so "vari-/ous" is read as "various".
- reStructuredText (`.rst`): docutils renders HTML (no file inclusion, no raw passthrough: a document
  cannot make Cairn read another file), then the HTML path above.
- AsciiDoc (`.adoc`, `.asciidoc`): asciidoc (the Python implementation) renders HTML, then the same.
  It is GPL-2.0-licensed, so it is its own extra, `[asciidoc]`, apart from `[documents]`.

A file whose format needs a converter that is not installed, or that the converter cannot read (a
damaged or encrypted PDF), is `Unreadable`: the corpus lists it, never drops it without a word.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass

MARKDOWN_SUFFIXES = (".md", ".markdown", ".txt")
"""Read as they are (UTF-8 text)."""
MARKUP_SUFFIXES = (".md", ".markdown")
"""Text whose `*`, `_` and backticks are markup the rendered page does not show; elsewhere (a .txt file,
the text an HTML or PDF reader rendered) they are the document's own characters: `ffi_prep_cif`."""


def has_markdown(path: str) -> bool:
    return path.lower().endswith(MARKUP_SUFFIXES)


HTML_SUFFIXES = (".html", ".htm")
DOCUMENTS_EXTRA = "documents"
ASCIIDOC_EXTRA = "asciidoc"


class Unreadable(Exception):
    """This file cannot be turned into text here; `reason` says why in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Reader:
    kind: str
    """What the format is called in messages."""
    extra: str | None
    """The pip extra that brings its converter; None for the formats read as they are."""
    read: Callable[[bytes, str], str]
    """(file bytes, file name for messages) -> text; raises Unreadable."""


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not UTF-8 (byte {exc.start})") from None


def _tidy(text: str) -> str:
    """Rendered text with the layout's indentation and trailing blanks removed and at most one blank
    line between blocks: quotes are matched with any run of whitespace as one space anyway, and the
    chunker splits on blank lines."""
    lines = [line.strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


def _needs(module: str, extra: str) -> Unreadable:
    return Unreadable(f"needs {module}: pip install 'cairn-action[{extra}]'")


def html_to_text(html: str) -> str:
    """HTML as a browser shows it, as plain text (inscriptis)."""
    try:
        from inscriptis import get_text
    except ImportError:
        raise _needs("inscriptis", DOCUMENTS_EXTRA) from None
    return _tidy(get_text(html))


def _html(data: bytes, name: str) -> str:
    # A page that says another charset is rare in documentation; bytes that are not UTF-8 are read as
    # the replacement character rather than refusing the page.
    return html_to_text(data.decode("utf-8", errors="replace"))


def _pdf(data: bytes, name: str) -> str:
    try:
        import pypdfium2 as pdfium
    except ImportError:
        raise _needs("pypdfium2", DOCUMENTS_EXTRA) from None
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise Unreadable(f"PDF not readable ({exc})") from None
    try:
        pages = []
        for page in document:
            textpage = page.get_textpage()
            pages.append(textpage.get_text_range())
            textpage.close()
            page.close()
    finally:
        document.close()
    # U+FFFE marks a word PDFium joined across a line-end hyphen: the reader sees the whole word.
    text = "\n\n".join(pages).replace("\ufffe", "")
    if not text.strip():
        raise Unreadable("PDF has no text layer (a scan?)")
    return _tidy(text)


def _rst(data: bytes, name: str) -> str:
    try:
        from docutils.core import publish_string
    except ImportError:
        raise _needs("docutils", DOCUMENTS_EXTRA) from None
    html = publish_string(
        _decode(data, name),
        writer="html5",
        settings_overrides={
            "report_level": 5,  # no warnings into the text or onto stderr
            "halt_level": 5,
            "file_insertion_enabled": False,  # `.. include::` must not read files outside the corpus
            "raw_enabled": False,
            "output_encoding": "unicode",
            "embed_stylesheet": False,
        },
    )
    return html_to_text(str(html))


def _asciidoc(data: bytes, name: str) -> str:
    try:
        from asciidoc.api import AsciiDocAPI
    except ImportError:
        raise _needs("asciidoc", ASCIIDOC_EXTRA) from None
    api = AsciiDocAPI()
    # No footer ("Last updated <today>": the corpus hash would change every day), no scripts, no
    # stylesheet, and safe mode (the default) refuses includes outside the document's folder.
    api.attributes["footer-style"] = "none"
    api.attributes["linkcss"] = ""
    api.attributes["disable-javascript"] = ""
    out = io.StringIO()
    try:
        api.execute(io.StringIO(_decode(data, name)), out, backend="html5")
    except Exception as exc:  # asciidoc raises its own error types, and SystemExit-free ones at that
        raise Unreadable(f"AsciiDoc not readable ({type(exc).__name__})") from None
    return html_to_text(out.getvalue())


READERS: dict[str, Reader] = {
    **{s: Reader("text", None, _decode) for s in MARKDOWN_SUFFIXES},
    **{s: Reader("HTML", DOCUMENTS_EXTRA, _html) for s in HTML_SUFFIXES},
    ".pdf": Reader("PDF", DOCUMENTS_EXTRA, _pdf),
    ".rst": Reader("reStructuredText", DOCUMENTS_EXTRA, _rst),
    ".adoc": Reader("AsciiDoc", ASCIIDOC_EXTRA, _asciidoc),
    ".asciidoc": Reader("AsciiDoc", ASCIIDOC_EXTRA, _asciidoc),
}
DOCUMENT_SUFFIXES = tuple(READERS)


def render(data: bytes, name: str) -> str:
    """The text of a document file as a reader sees it (module docstring); raises Unreadable.

    `name` is the file's name (its suffix picks the reader). Line ends are `\\n` whatever the file had.
    """
    suffix = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
    reader = READERS.get(suffix)
    if reader is None:
        raise Unreadable(f"no reader for {suffix or 'files without a suffix'}")
    text = reader.read(data, name)
    return text.replace("\r\n", "\n").replace("\r", "\n")
