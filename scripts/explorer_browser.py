#!/usr/bin/env python3
"""Open case explorer pages in headless Chromium, drive them over the DevTools protocol, check them.

For each page: it loads from file:// with no console error (a blocked fetch, a CSP violation or an
exception counts), shows the report's cases in the report's order, sorts by confidence on a real click
(ascending, then descending, blanks last), narrows to the wrong cases on a click of "wrong only", opens
a case's detail, and restores the same view from its URL fragment. The expected rows are computed here
from the report, not read from the page. A screenshot of the first page is written. Exit 0 when every
check passed, 1 otherwise. `scripts/explorer-browser-check` installs Chromium and runs this.

    .venv/bin/python scripts/explorer_browser.py --chromium /usr/bin/chromium \
        --screenshot .cairn/ci-artifacts/explorer.png PAGE.html=REPORT.json [...]
"""

from __future__ import annotations

import argparse
import base64
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.request import urlopen

from websockets.sync.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cairn_action.gate.outcome import is_right  # noqa: E402
from cairn_action.report.io import read_report  # noqa: E402
from cairn_action.report.models import PerCase  # noqa: E402

# The flags this machine's Chromium needs (no sandbox as root, and nothing that phones home).
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--remote-debugging-port=0",
    "--window-size=1280,900",
]
PAGE_SIZE = 100
TIMEOUT = 30.0


class CheckFailed(Exception):
    pass


class Page:
    """One tab, over its DevTools websocket: `call` a method, collect console errors as they come."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.next_id = 0
        self.errors: list[str] = []
        self.events: list[dict[str, Any]] = []

    def _note(self, message: dict[str, Any]) -> None:
        method, params = message.get("method", ""), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.errors.append(
                f"exception: {details.get('exception', {}).get('description') or details['text']}"
            )
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert", "warning"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            self.errors.append(f"console.{params['type']}: {text}")
        elif method == "Log.entryAdded" and params["entry"].get("level") in ("error", "warning"):
            self.errors.append(f"log {params['entry']['level']}: {params['entry'].get('text')}")
        self.events.append(message)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        mine = self.next_id
        self.ws.send(json.dumps({"id": mine, "method": method, "params": params}))
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if message.get("id") == mine:
                if "error" in message:
                    raise CheckFailed(f"{method}: {message['error']}")
                return message.get("result", {})
            self._note(message)

    def wait_for(self, method: str) -> None:
        if any(e.get("method") == method for e in self.events):
            return
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            message = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            self._note(message)
            if message.get("method") == method:
                return
        raise CheckFailed(f"no {method} within {TIMEOUT:.0f} s")

    def eval(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise CheckFailed(f"{expression[:60]}: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def goto(self, url: str) -> None:
        """Load `url` afresh (by way of about:blank, so that a change of fragment alone reloads too)."""
        for target in ("about:blank", url):
            self.events.clear()
            self.call("Page.navigate", url=target)
            self.wait_for("Page.loadEventFired")
        self.until("document.documentElement.getAttribute('data-ready') === '1'", "the page's script to run")

    def until(self, expression: str, what: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.eval(expression):
                return
            time.sleep(0.05)
        raise CheckFailed(f"timed out waiting for {what}")

    def click(self, selector: str) -> None:
        """A real mouse click at the element's centre (press and release), as a person would."""
        box = self.eval(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        if box is None:
            raise CheckFailed(f"nothing matches {selector}")
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def rows(self) -> list[str]:
        return self.eval("[...document.querySelectorAll('#case-table tbody tr.case')].map(r => r.dataset.id)")


def start_browser(chromium: str, profile: Path) -> tuple[subprocess.Popen[bytes], int]:
    process = subprocess.Popen(
        [chromium, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    port_file = profile / "DevToolsActivePort"
    deadline = time.monotonic() + TIMEOUT
    while not port_file.is_file() or not port_file.read_text().strip():
        if process.poll() is not None or time.monotonic() > deadline:
            raise CheckFailed(f"chromium did not start (exit {process.poll()})")
        time.sleep(0.05)
    return process, int(port_file.read_text().split()[0])


def page_socket(port: int) -> str:
    with urlopen(f"http://127.0.0.1:{port}/json/list", timeout=TIMEOUT) as response:
        targets = json.load(response)
    return next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")


def sort_by_confidence(rows: list[PerCase], descending: bool) -> list[str]:
    """The order the page must show: by confidence, ties in report order, cases without one last."""
    order = {c.case_id: i for i, c in enumerate(rows)}
    known = [c for c in rows if c.confidence is not None]
    known.sort(key=lambda c: ((-c.confidence if descending else c.confidence), order[c.case_id]))  # type: ignore[operator]
    return [c.case_id for c in known] + [c.case_id for c in rows if c.confidence is None]


def check_page(page: Page, html: Path, report_path: Path, log: Callable[[str], None]) -> None:
    rows = read_report(report_path).per_case
    ids = [c.case_id for c in rows]
    url = html.resolve().as_uri()
    page.goto(url)

    def expect(what: str, got: object, want: object) -> None:
        if got != want:
            raise CheckFailed(f"{html.name}: {what}: got {got!r}, expected {want!r}")
        log(f"  ok: {what}")

    expect("the report's cases in its order", page.rows(), ids[:PAGE_SIZE])
    page.click("#case-table th[data-key=confidence] button")
    expect("sorted by confidence, ascending", page.rows(), sort_by_confidence(rows, False)[:PAGE_SIZE])
    page.click("#case-table th[data-key=confidence] button")
    descending = sort_by_confidence(rows, True)
    expect("sorted by confidence, descending", page.rows(), descending[:PAGE_SIZE])
    page.click("#f-wrong")
    wrong = {c.case_id for c in rows if is_right(c) is False}
    shown = page.rows()
    expect(
        "'wrong only' keeps the wrong cases, still sorted",
        shown,
        [i for i in descending if i in wrong][:PAGE_SIZE],
    )
    if shown == descending[:PAGE_SIZE]:
        raise CheckFailed(f"{html.name}: the filter did not change the visible rows")
    count = page.eval("document.getElementById('count').textContent")
    expect("the count line", f"of {len(wrong)} matching" in count, True)
    if shown:
        page.click(f"#case-table tr.case[data-id={json.dumps(shown[0])}]")
        expect(
            "a click opens the case's detail",
            page.eval("document.querySelectorAll('tr.detail-row').length"),
            1,
        )
        question = page.eval("document.querySelector('tr.detail-row .field .value').textContent")
        expect(
            "the detail shows the question", question, next(c.question for c in rows if c.case_id == shown[0])
        )
        data = page.eval("JSON.parse(document.getElementById('cairn-data').textContent)")
        chunks = next(c["retrieved"] for c in data["cases"] if c["id"] == shown[0])
        table = page.eval("document.querySelectorAll('tr.detail-row table.retrieved tbody tr').length")
        expect("the detail lists the retrieved chunks", table, len(chunks) if chunks else 0)
        if data["diff"]:
            diff_rows = page.eval("document.querySelectorAll('#diff-table tbody tr').length")
            expect("the item diff's first rows", diff_rows, min(10, len(data["diff"]["order"])))
    fragment = page.eval("location.hash")
    expect(
        "the view is in the URL fragment",
        all(p in fragment for p in ("sort=confidence", "dir=desc", "wrong=1")),
        True,
    )
    page.goto(url + fragment)
    expect("the fragment restores the view", page.rows(), shown)
    if page.errors:
        raise CheckFailed(f"{html.name}: console errors: {page.errors}")
    log("  ok: no console error, exception or blocked request")


def screenshot(page: Page, html: Path, out: Path) -> None:
    """The page with a sorted, filtered table and one case open: what docs/concepts/explorer.md shows."""
    page.call("Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False)
    page.goto(html.resolve().as_uri() + "#sort=confidence&dir=desc")
    first = page.rows()[0]
    page.click(f"#case-table tr.case[data-id={json.dumps(first)}]")
    height = min(4000, int(page.eval("document.documentElement.scrollHeight")))
    shot = page.call(
        "Page.captureScreenshot",
        format="png",
        captureBeyondViewport=True,
        clip={"x": 0, "y": 0, "width": 1280, "height": height, "scale": 1},
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(base64.b64decode(shot["data"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="+", metavar="PAGE.html=REPORT.json")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--screenshot", type=Path, help="write a PNG of the first page here")
    parser.add_argument(
        "--time", nargs="*", default=[], metavar="PAGE.html", help="also time these pages' load"
    )
    args = parser.parse_args(argv)
    pairs = [tuple(Path(p) for p in item.split("=", 1)) for item in args.pages]
    with tempfile.TemporaryDirectory(prefix="cairn-chromium-", ignore_cleanup_errors=True) as profile:
        process, port = start_browser(args.chromium, Path(profile))
        try:
            with connect(page_socket(port), max_size=None, open_timeout=TIMEOUT) as ws:
                page = Page(ws)
                for domain in ("Page", "Runtime", "Log"):
                    page.call(f"{domain}.enable")
                for html, report in pairs:
                    print(f"{html}:")
                    check_page(page, html, report, print)
                    page.errors.clear()
                if args.screenshot:
                    screenshot(page, pairs[0][0], args.screenshot)
                    print(f"screenshot: {args.screenshot}")
                for html in map(Path, args.time):
                    start = time.monotonic()
                    page.goto(html.resolve().as_uri())
                    took = time.monotonic() - start
                    print(f"{html}: {html.stat().st_size / 1e6:.1f} MB, ready in {took:.2f} s")
                    page.click("#case-table th[data-key=confidence] button")
                    start = time.monotonic()
                    page.click("#f-wrong")
                    print(f"  'wrong only' after a sort: {(time.monotonic() - start) * 1000:.0f} ms")
                    if page.errors:
                        raise CheckFailed(f"{html.name}: console errors: {page.errors}")
        except (CheckFailed, TimeoutError) as exc:
            print(f"explorer browser check FAILED: {exc}", file=sys.stderr)
            return 1
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    print("explorer browser check: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
