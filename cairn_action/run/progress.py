"""Progress of a run on stderr: a redrawn bar on a terminal, a plain periodic line in CI logs."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol, TextIO

from cairn_action.run.models import CaseRecord

BAR_WIDTH = 30
BAR_REDRAW_S = 0.1
LINE_EVERY_CASES = 25
LINE_EVERY_S = 10.0


class Progress(Protocol):
    def start(self, total: int, done: int) -> None:
        """`total` cases in the run, `done` of them already finished (resumed)."""
        ...

    def advance(self, record: CaseRecord) -> None: ...

    def finish(self) -> None: ...


class NoProgress:
    """`--no-progress`."""

    def start(self, total: int, done: int) -> None:
        pass

    def advance(self, record: CaseRecord) -> None:
        pass

    def finish(self) -> None:
        pass


class _Counting:
    def __init__(self, stream: TextIO, clock: Callable[[], float]) -> None:
        self.stream = stream
        self.clock = clock
        self.total = 0
        self.done = 0
        self.errors = 0
        self.started = clock()

    def start(self, total: int, done: int) -> None:
        self.total, self.done, self.started = total, done, self.clock()

    def _count(self, record: CaseRecord) -> None:
        self.done += 1
        if record.status == "error":
            self.errors += 1

    def _status(self) -> str:
        share = self.done / self.total if self.total else 1.0
        errors = f", {self.errors} error{'s' if self.errors != 1 else ''}" if self.errors else ""
        return f"{self.done}/{self.total} cases ({share:.0%}){errors}, {self.clock() - self.started:.1f}s"


class BarProgress(_Counting):
    """A bar redrawn in place (carriage return), at most every BAR_REDRAW_S seconds."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(stream, clock)
        self._drawn_at: float | None = None

    def _draw(self) -> None:
        filled = int(BAR_WIDTH * self.done / self.total) if self.total else BAR_WIDTH
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        self.stream.write(f"\r[{bar}] {self._status()}")
        self.stream.flush()
        self._drawn_at = self.clock()

    def start(self, total: int, done: int) -> None:
        super().start(total, done)
        self._draw()

    def advance(self, record: CaseRecord) -> None:
        self._count(record)
        if self._drawn_at is None or self.clock() - self._drawn_at >= BAR_REDRAW_S:
            self._draw()

    def finish(self) -> None:
        self._draw()
        self.stream.write("\n")
        self.stream.flush()


class LineProgress(_Counting):
    """A plain line every `every_cases` cases or `every_s` seconds, whichever comes first (CI logs)."""

    def __init__(
        self,
        stream: TextIO,
        clock: Callable[[], float] = time.monotonic,
        every_cases: int = LINE_EVERY_CASES,
        every_s: float = LINE_EVERY_S,
    ) -> None:
        super().__init__(stream, clock)
        self.every_cases = every_cases
        self.every_s = every_s
        self._last_done = 0
        self._last_at = self.started

    def _line(self) -> None:
        self.stream.write(f"cairn eval: {self._status()}\n")
        self.stream.flush()
        self._last_done, self._last_at = self.done, self.clock()

    def start(self, total: int, done: int) -> None:
        super().start(total, done)
        self._last_done, self._last_at = done, self.started

    def advance(self, record: CaseRecord) -> None:
        self._count(record)
        if self.done - self._last_done >= self.every_cases or self.clock() - self._last_at >= self.every_s:
            self._line()

    def finish(self) -> None:
        if self.done != self._last_done:
            self._line()


def make_progress(stream: TextIO, *, enabled: bool, is_tty: bool) -> Progress:
    """The progress display for `stream`: none, a bar (terminal) or periodic lines (not a terminal)."""
    if not enabled:
        return NoProgress()
    return BarProgress(stream) if is_tty else LineProgress(stream)


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


class EmbeddingRate:
    """The index build's embedding lines: texts done, the rate so far and the time left at that rate.

    Called as `(kind, done, of)` by the vector cache: `done` 0 when it starts on a kind (chunks, then
    sentences), then after each checkpoint."""

    def __init__(self, write: Callable[[str], None], clock: Callable[[], float] = time.monotonic) -> None:
        self._write = write
        self._clock = clock
        self._started = clock()

    def __call__(self, kind: str, done: int, of: int) -> None:
        now = self._clock()
        if done == 0:
            self._started = now
            self._write(f"embedding {of} new {kind} (cached as they go)\n")
            return
        elapsed = now - self._started
        rate = done / elapsed if elapsed > 0 else 0.0
        left = f", about {_duration((of - done) / rate)} left" if rate and done < of else ""
        speed = f" ({rate:.1f}/s{left})" if rate else ""
        self._write(f"embedded {done} of {of} new {kind}{speed}\n")
