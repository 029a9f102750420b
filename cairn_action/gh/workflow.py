"""Talking to the runner: workflow commands on stdout, and the GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files.

The escaping follows actions/toolkit (`command.ts`): in a message `%`, CR and LF are percent-encoded; in a
property value `:` and `,` are too. Without it, text that contains a newline followed by `::` (a model's
answer, a label, a PR title) could issue workflow commands of its own.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol, TextIO

from cairn_action.files import append_text, write_text

MAX_SUMMARY_BYTES = 1024 * 1024
"""GitHub refuses a step summary over 1 MiB (docs/action/github-facts.md#outputs)."""


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_output(name: str, value: str) -> str:
    """One `GITHUB_OUTPUT` entry; multi-line values use a delimiter that occurs nowhere in them."""
    if "\n" not in value and "\r" not in value:
        if "=" in name:
            raise ValueError(f"output name {name!r} contains '='")
        return f"{name}={value}\n"
    delimiter = f"ghadelimiter_{uuid.uuid4()}"
    if delimiter in name or delimiter in value:  # as actions/toolkit does: never write an ambiguous entry
        raise ValueError(f"output {name!r}: the value contains the delimiter")
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


class Workflow:
    """The runner's side channels for one step.

    `stream` receives the workflow commands (stdout in the container); `output_file` and `summary_file`
    are the paths from GITHUB_OUTPUT and GITHUB_STEP_SUMMARY, or None outside a runner, in which case
    outputs and summary are printed as plain lines instead of being lost.
    """

    def __init__(self, stream: TextIO, *, output_file: Path | None, summary_file: Path | None) -> None:
        self.stream = stream
        self.output_file = output_file
        self.summary_file = summary_file
        self._masked: set[str] = set()
        self._line_open = False
        """The last raw write did not end its line."""

    def _command(self, name: str, message: str, properties: Mapping[str, str] | None = None) -> None:
        props = ",".join(f"{k}={escape_property(v)}" for k, v in (properties or {}).items() if v)
        self.stream.write(f"::{name}{' ' + props if props else ''}::{escape_data(message)}\n")
        self.stream.flush()

    def mask(self, secret: str | None) -> None:
        """Ask the runner to hide `secret` in every later log line (register before anything prints it)."""
        if not secret or secret in self._masked:
            return
        self._masked.add(secret)
        for line in secret.splitlines() or [secret]:
            if line.strip():
                self._command("add-mask", line)

    def error(self, message: str, *, title: str = "", file: str = "") -> None:
        self._command("error", message, {"title": title, "file": file})

    def warning(self, message: str, *, title: str = "", file: str = "") -> None:
        self._command("warning", message, {"title": title, "file": file})

    def notice(self, message: str, *, title: str = "") -> None:
        self._command("notice", message, {"title": title})

    def info(self, message: str) -> None:
        """A plain log line; escaped like a command message, so it cannot start one."""
        self.stream.write(escape_data(message) + "\n")
        self.stream.flush()

    @contextmanager
    def group(self, title: str) -> Iterator[None]:
        self._command("group", title)
        try:
            yield
        finally:
            self._command("endgroup", "")

    @contextmanager
    def untrusted(self) -> Iterator[None]:
        """Stop the runner from reading workflow commands while text we do not control is printed
        (evaluation logs name the pull request's documents and cases); no command works inside."""
        token = uuid.uuid4().hex
        self._command("stop-commands", token)
        try:
            yield
        finally:
            # On a line of its own whatever came before: output that ends without a newline would
            # otherwise glue the token to its last line, and the runner would never resume commands.
            self.stream.write(f"{chr(10) if self._line_open else ''}::{token}::\n")
            self._line_open = False
            self.stream.flush()

    def write_raw(self, text: str) -> None:
        """Text we do not control, as it is (inside `untrusted()`)."""
        if text:
            self.stream.write(text)
            self._line_open = not text.endswith("\n")

    def set_output(self, name: str, value: str) -> None:
        entry = format_output(name, value)
        if self.output_file is None:
            self.info(f"output {name}: {value}")
            return
        append_text(self.output_file, entry, what="the step's outputs (GITHUB_OUTPUT)")

    def add_summary(self, markdown: str) -> None:
        """Append to the job summary, cut to GitHub's 1 MiB with a note rather than lost entirely."""
        if self.summary_file is None:
            return
        previous = self.summary_file.stat().st_size if self.summary_file.exists() else 0
        room = MAX_SUMMARY_BYTES - previous - 200
        data = markdown.encode("utf-8")
        if len(data) > room:
            cut = data[: max(room, 0)].decode("utf-8", "ignore")
            markdown = (
                cut + "\n\n*(summary cut at GitHub's 1 MiB limit; the full comment is in the artifact)*\n"
            )
            self.warning("the job summary was cut at GitHub's 1 MiB limit")
        text = markdown if markdown.endswith("\n") else markdown + "\n"
        append_text(self.summary_file, text, what="the job summary (GITHUB_STEP_SUMMARY)")


class WorkflowLog(Protocol):
    """Where a run reports: `Workflow` inside GitHub Actions, `PlainLog` in other CI systems."""

    def error(self, message: str, *, title: str = "") -> None: ...

    def warning(self, message: str, *, title: str = "") -> None: ...

    def notice(self, message: str, *, title: str = "") -> None: ...

    def info(self, message: str) -> None: ...

    def set_output(self, name: str, value: str) -> None: ...

    def add_summary(self, markdown: str) -> None: ...


class PlainLog:
    """Plain lines for CI systems that are not GitHub Actions; the section goes to `summary` if given."""

    def __init__(self, stream: TextIO, *, summary: Path | None = None) -> None:
        self.stream, self.summary = stream, summary

    def _line(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()

    def error(self, message: str, *, title: str = "") -> None:
        self._line(f"error: {message}")

    def warning(self, message: str, *, title: str = "") -> None:
        self._line(f"warning: {message}")

    def notice(self, message: str, *, title: str = "") -> None:
        self._line(message)

    def info(self, message: str) -> None:
        self._line(message)

    def set_output(self, name: str, value: str) -> None:
        self._line(f"{name}: {value}")

    def add_summary(self, markdown: str) -> None:
        if self.summary is not None:
            write_text(self.summary, markdown + "\n", what="the summary")
