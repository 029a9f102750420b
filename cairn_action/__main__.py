"""`python -m cairn_action` is the same as `cairn` (and the container's entrypoint)."""

from cairn_action.cli import run

raise SystemExit(run())
