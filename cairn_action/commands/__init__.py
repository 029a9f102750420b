"""The `cairn` commands' handlers, one module per group of commands.

`cli.py` builds the parser, names a handler for each command and turns a `CairnError` into its message,
hint and exit code; a handler here is the composition root of its command (paths, config, providers,
clock) and passes them down. Like `cli.py`, these are entry points: they may read argv and the
environment, and nothing below them does.
"""
