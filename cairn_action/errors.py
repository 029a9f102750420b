"""User-facing errors: each carries its message, a hint that says the fix, and its exit code.

`cli.main` prints `error: <message>` and `hint: <hint>` and exits with the code, no traceback.
Anything else that escapes is a bug: it keeps its traceback, says where to report it, and exits 70.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """The exit codes of every entry point (CLI and Action alike)."""

    PASS = 0
    GATE_FAILED = 1
    USAGE = 2  # usage, configuration, data, or a refused comparison
    INFRASTRUCTURE = 3  # GitHub or a provider unreachable after retries
    INTERNAL = 70  # a bug in Cairn (BSD's EX_SOFTWARE): never 1, which would read as "the gate failed"


class InternalError(Exception):
    """A bug seen from outside: a child `cairn` process that exited 70. Deliberately not a CairnError, so
    the entry point reports it as the bug it is (traceback, where to report, exit 70)."""


BUG_REPORT_URL = "https://github.com/owner/cairn/issues"
"""Where an internal error asks to be reported (the repository the README's workflows use)."""


def internal_error_message(exc: BaseException) -> str:
    """The line printed under the traceback of an uncaught exception."""
    from cairn_action import __version__

    return (
        f"internal error: this is a bug in Cairn {__version__}, not in your input "
        f"({type(exc).__name__}). Please report it at {BUG_REPORT_URL} with the traceback above "
        f"and the command you ran (exit code {int(ExitCode.INTERNAL)})."
    )


class CairnError(Exception):
    """Something the user can fix; shown as one line plus a hint."""

    exit_code: ExitCode = ExitCode.USAGE

    def __init__(self, message: str, hint: str = "", *, exit_code: ExitCode | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        if exit_code is not None:
            self.exit_code = exit_code

    def render(self) -> str:
        lines = [f"error: {self.message}"]
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)


class ConfigError(CairnError):
    """The configuration file is missing, malformed or inconsistent."""


class DataError(CairnError):
    """A golden set, corpus, run artifact or report is malformed."""


class RefusedComparison(CairnError):
    """Two reports measured different things (corpus, golden set, split) and must not be compared."""


class InfrastructureError(CairnError):
    """GitHub or a provider could not be reached after retries."""

    exit_code = ExitCode.INFRASTRUCTURE
