"""The explorer page as a test reads it: an HTML parser that collects the embedded data and the tags, the
check that a page is self-contained (no network, no outside script or style), and the scoring fixture's
report and run records. Shared by the explorer's unit tests and the `cairn view` / `cairn demo` CLI tests."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from cairn_action.config import Config
from cairn_action.golden.load import load_golden
from cairn_action.golden.split import split_golden
from cairn_action.report.build_report import build_report
from cairn_action.run.artifact import read_artifact

DATA = Path(__file__).resolve().parents[1] / "data"
SCORING = DATA / "scoring"
REPO = Path(__file__).resolve().parents[2]
ALLOWED_TAGS = frozenset(
    """html head meta title style body header h1 h2 dl div dt dd main section p span ul li details summary
    table thead tbody tr th td svg rect line text circle form label input select option button nav noscript
    script code""".split()
)


class Page(HTMLParser):
    """The page as a browser's parser reads it: its elements, their attributes and the two scripts."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._in_script: dict[str, str | None] | None = None
        self._in_h1 = False
        self.h1 = ""
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = dict(attrs)
        self._in_h1 = self._in_h1 or tag == "h1"

    def handle_data(self, data: str) -> None:
        if self._in_script is not None:
            self.scripts.append((self._in_script, data))
        if self._in_h1:
            self.h1 += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = None
        if tag == "h1":
            self._in_h1 = False

    @property
    def data(self) -> dict[str, Any]:
        [blob] = [text for attrs, text in self.scripts if attrs.get("type") == "application/json"]
        return json.loads(blob)


def _scoring_report_and_records():
    run = read_artifact(SCORING / "run.jsonl")
    golden = load_golden(SCORING / "golden.jsonl")
    config = Config(name="fixture")
    built = build_report(
        header=run.header,
        records=run.records,
        golden=golden,
        config=config,
        split=split_golden(golden, seed=config.calibration.seed, fraction=config.calibration.fraction),
        which="all",
        calibration=None,
        created_at="2026-01-02T03:04:05Z",
        cairn_version="0.1.0",
        where="run.jsonl",
    )
    return built, {r.case_id: r for r in run.records}


def assert_self_contained(html: str) -> Page:
    """One document that loads nothing: no URL, no src or href, no CSS import, a CSP that forbids fetches,
    exactly two scripts (the data and the code), and only the elements the template writes."""
    assert "://" not in html and "url(" not in html and "@import" not in html
    assert "default-src 'none'" in html
    page = Page(html)
    assert {tag for tag, _ in page.tags} <= ALLOWED_TAGS
    names = [tag for tag, _ in page.tags]
    assert names.count("h1") == 1 and names.count("details") <= 2 and names.count("summary") <= 2
    for _, attrs in page.tags:
        assert not {"src", "href", "srcset", "action", "formaction", "xlink:href"} & set(attrs)
        assert not [a for a in attrs if a.startswith("on")]
    assert [attrs for attrs, _ in page.scripts] == [{"type": "application/json", "id": "cairn-data"}, {}]
    assert html.count("</script>") == 2 and html.count("<script") == 2
    return page
