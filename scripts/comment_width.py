#!/usr/bin/env python3
"""How the pull-request comments lay out at GitHub's comment width: which headings and table cells wrap.

Renders each markdown file as GitHub-flavoured HTML (markdown-it: tables, raw HTML), styled like a GitHub
comment (14 px text, 1.25 em h3, tables as blocks at most the column wide, 6 px 13 px cell padding, every
`<details>` open), lays it out in headless Chromium at `--width` pixels, and prints every h3 that takes
more than one line and every table cell that wraps, with its line count (a `<br>` the comment wrote is
not a wrap). Debian's fonts are wider than GitHub's system fonts, so a line that fits here fits there.
Exit 1 when a title wraps, a cell of a table with a Δ column (the metric tables) wraps at all, or any
other cell takes more than `--max-lines` lines (default: no limit; prose cells wrap as prose does).
`--screenshot DIR` writes one PNG per file, `--height` pixels tall (the README's picture of the comment,
docs/images/comment.png, is `--screenshot` of tests/data/expected/regression_critical.md at
`--width 760 --height 985`; Debian's fonts-noto-color-emoji draws the emoji).

    .venv/bin/python scripts/comment_width.py tests/data/expected/*.md
"""

from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from markdown_it import MarkdownIt

CSS = """
body { margin: 0; background: #fff; }
.markdown-body { box-sizing: border-box; width: %dpx; padding: 0; color: #1f2328;
  font: 14px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
h3 { font-size: 1.25em; font-weight: 600; line-height: 1.25; margin: 24px 0 16px; }
h4 { font-size: 1em; font-weight: 600; }
table { border-spacing: 0; border-collapse: collapse; display: block; width: max-content; max-width: 100%%;
  overflow: auto; }
td, th { padding: 6px 13px; border: 1px solid #d0d7de; }
th { font-weight: 600; }
code { font-size: 85%%; }
"""
# Counts each element's lines: distinct line boxes of its text, minus the breaks the markdown asked for.
SCRIPT = """
document.querySelectorAll('details').forEach(d => d.open = true);
function lines(el) {
  const r = document.createRange(); r.selectNodeContents(el);
  const tops = new Set(); for (const b of r.getClientRects()) if (b.width > 0) tops.add(Math.round(b.top));
  return tops.size - el.querySelectorAll('br').length;
}
const out = [];
document.querySelectorAll('h3, td, th').forEach(el => {
  const n = lines(el);
  const table = el.closest('table');
  const cells = table ? [...table.querySelectorAll('th, td')] : [];
  const metric = cells.some(c => c.textContent.trim().startsWith('Δ'));
  const text = el.textContent.trim().slice(0, 90);
  if (n > 1) out.push({tag: el.tagName.toLowerCase(), lines: n, metric, text});
});
const pre = document.createElement('pre'); pre.id = 'measured'; pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
"""
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--hide-scrollbars",
]


def page(markdown: str, width: int) -> str:
    body = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render(markdown)
    return (
        f"<!doctype html><meta charset='utf-8'><style>{CSS % width}</style>"
        f"<div class='markdown-body'>{body}</div><script>{SCRIPT}</script>"
    )


def measure(
    chromium: str, path: Path, width: int, screenshot: Path | None, height: int = 3000
) -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "comment.html"
        target.write_text(page(path.read_text(encoding="utf-8"), width), encoding="utf-8")
        dom = subprocess.run(
            [chromium, *FLAGS, f"--window-size={width},3000", "--dump-dom", target.as_uri()],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        if screenshot is not None:
            shot = screenshot / f"{path.stem}.png"
            window = f"--window-size={width},{height}"
            subprocess.run(
                [chromium, *FLAGS, window, f"--screenshot={shot}", target.as_uri()],
                capture_output=True,
                check=True,
            )
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    if found is None:
        raise SystemExit(f"{path}: the page did not report its measurements")
    return json.loads(html.unescape(found.group(1)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--width", type=int, default=760)
    parser.add_argument("--max-lines", type=int, default=1000, help="most lines any other cell may take")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--screenshot", type=Path, help="a folder for one PNG per file")
    parser.add_argument("--height", type=int, default=3000, help="the screenshots' height in pixels")
    args = parser.parse_args()
    if args.screenshot:
        args.screenshot.mkdir(parents=True, exist_ok=True)
    failed = False
    for path in args.files:
        wraps = measure(args.chromium, path, args.width, args.screenshot, args.height)
        bad = [w for w in wraps if w["tag"] == "h3" or w["metric"] or int(w["lines"]) > args.max_lines]  # type: ignore[call-overload]
        failed |= bool(bad)
        print(f"{path}: {len(wraps)} wrapped ({len(bad)} over the limit)")
        for w in wraps:
            print(f"  {'!' if w in bad else ' '} {w['tag']} {w['lines']} lines: {w['text']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
