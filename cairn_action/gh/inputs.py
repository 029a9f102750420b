"""The Action's inputs, as the runner passes them: `INPUT_<NAME>` with the name upper-cased, hyphens kept.

`action.yml` declares the same names; a test holds the two lists equal. Secrets for providers never come
through here: they arrive in the environment (`env:` in the workflow), and the `env` input names which of
them the evaluation receives (action/trust.py): the config, which a pull request can edit, names none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

from cairn_action.errors import CairnError

Mode = Literal["auto", "pr", "baseline", "release", "comment", "gate"]
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
    """A folder outside the workspace carrying the index cache between jobs (action/child/index_folder.py); ''
    is off."""
    env: tuple[str, ...] = ()
    """The environment variables the evaluation receives (provider keys, the target's own settings)."""
    allowed_endpoints: tuple[str, ...] = ()
    """URL prefixes a secret may be sent to although the base branch's config does not send it there."""
    run_artifact: str = "cairn-run"
    """`mode: gate`: the folder (in the workspace) the evaluate job's run artifacts were downloaded into."""

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
    "env",
    "allowed-endpoints",
    "run-artifact",
)


def _raw(env: Mapping[str, str], name: str) -> str | None:
    """The input's value: the runner keeps hyphens (`INPUT_GITHUB-TOKEN`); some runners are said not to,
    so the underscore form is read too (docs/action/github-facts.md#inputs)."""
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


_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _list(value: str | None) -> list[str]:
    """One item per line, or separated by commas or spaces; `#` starts a comment line."""
    lines = [line for line in (value or "").splitlines() if not line.strip().startswith("#")]
    return [p for p in re.split(r"[\s,]+", " ".join(lines)) if p]


def _variables(value: str | None) -> tuple[str, ...]:
    names = _list(value)
    for name in names:
        if not _VARIABLE.fullmatch(name):
            raise CairnError(
                f"input 'env': '{name[:60]}' is not an environment variable name",
                "list variable names (letters, digits, '_'), one per line; their values come from the "
                "step's `env:`",
            )
    return tuple(dict.fromkeys(names))


def _endpoints(value: str | None) -> tuple[str, ...]:
    urls = _list(value)
    for url in urls:
        if not re.fullmatch(r"(?i)https?://[^/\s?#@]+(/[^\s?#]*)?", url):
            raise CairnError(
                f"input 'allowed-endpoints': '{url[:80]}' is not an http(s) URL prefix",
                "list URL prefixes such as https://llm.internal.example/v1, one per line (no user, "
                "query or fragment)",
            )
    return tuple(dict.fromkeys(urls))


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
        env=_variables(_raw(env, "env")),
        allowed_endpoints=_endpoints(_raw(env, "allowed-endpoints")),
        run_artifact=_raw(env, "run-artifact") or "cairn-run",
    )
