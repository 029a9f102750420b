"""The Action's inputs, as the runner passes them: `INPUT_<NAME>` with the name upper-cased, hyphens kept.

`action.yml` declares the same names; a test holds the two lists equal. Secrets for providers never come
through here: they arrive in the environment (`env:` in the workflow), named by each config.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

from cairn_action.errors import CairnError

Mode = Literal["auto", "pr", "baseline", "release", "comment"]
MODES: tuple[str, ...] = get_args(Mode)
DEFAULT_CONFIG = "cairn.toml"
DEFAULT_OVERRIDE_PREFIX = "cairn-override"

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


@dataclass(frozen=True, kw_only=True)
class ActionConfig:
    """What the workflow chose, validated. Field names are the input names with `_` for `-`."""

    github_token: str = field(repr=False)
    config: tuple[str, ...] = (DEFAULT_CONFIG,)
    """Config files, relative to `working_directory`; each is gated on its own and gets its own comment."""
    mode: Mode = "auto"
    override_label: str = DEFAULT_OVERRIDE_PREFIX
    """The prefix of override labels: `cairn-override: <reason>`, or the bare prefix plus a comment."""
    comment: bool = True
    status: bool = False
    working_directory: str = "."
    attack: bool = False
    """PR mode also runs `cairn attack` and gates it against the base branch's attack report."""
    index_cache: str = ""
    """A folder outside the workspace carrying the index cache between jobs (gh/index_folder.py); ''
    is off."""

    @property
    def config_is_default(self) -> bool:
        """True when the workflow named no config, so a missing cairn.toml means the embedded default."""
        return self.config == (DEFAULT_CONFIG,)


INPUT_NAMES: tuple[str, ...] = (
    "github-token",
    "config",
    "mode",
    "override-label",
    "comment",
    "status",
    "working-directory",
    "attack",
    "index-cache",
)


def _raw(env: Mapping[str, str], name: str) -> str | None:
    """The input's value: the runner keeps hyphens (`INPUT_GITHUB-TOKEN`); some runners are said not to,
    so the underscore form is read too (github.md §1.2)."""
    for key in (f"INPUT_{name.upper()}", f"INPUT_{name.upper().replace('-', '_')}"):
        value = env.get(key)
        if value is not None:
            return value.strip()
    return None


def _bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = _raw(env, name)
    if not value:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise CairnError(
        f"input '{name}': '{value}' is not a boolean",
        f"set `{name}: true` or `{name}: false` (on/off and yes/no work too)",
    )


def _configs(value: str | None) -> tuple[str, ...]:
    if not value:
        return (DEFAULT_CONFIG,)
    parts = [p.strip() for p in re.split(r"[\n,]", value)]
    configs = tuple(dict.fromkeys(p for p in parts if p and not p.startswith("#")))
    return configs or (DEFAULT_CONFIG,)


def read_inputs(env: Mapping[str, str]) -> ActionConfig:
    """Validate the inputs; a bad one is a CairnError naming it (exit 2)."""
    mode = (_raw(env, "mode") or "auto").lower()
    if mode not in MODES:
        raise CairnError(f"input 'mode': unknown mode '{mode}'", f"use one of: {', '.join(MODES)}")
    prefix = _raw(env, "override-label") or DEFAULT_OVERRIDE_PREFIX
    if len(prefix) > 40 or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/-]*", prefix):
        raise CairnError(
            f"input 'override-label': '{prefix}' is not a usable label prefix",
            "use letters, digits, '.', '_', '/' or '-' (at most 40 characters; GitHub labels hold 50)",
        )
    return ActionConfig(
        github_token=_raw(env, "github-token") or "",
        config=_configs(_raw(env, "config")),
        mode=mode,  # type: ignore[arg-type]
        override_label=prefix,
        comment=_bool(env, "comment", True),
        status=_bool(env, "status", False),
        working_directory=_raw(env, "working-directory") or ".",
        attack=_bool(env, "attack", False),
        index_cache=_raw(env, "index-cache") or "",
    )
