"""Which name each config is gated under: the name it has on the base branch, not in the pull request.

A config's name picks its baseline (`reports/latest/<name>.json` at the base commit). The name is in the
config file, which the pull request may edit: renamed, the config would find no baseline and pass as
"no baseline yet". So for each config file the workflow gates, its name is read from the file *at the
base commit* (contents API, git as the fallback), and a baseline there must be met under that name. A
config file that does not exist on the base branch is new: it is evaluated and shown without a baseline.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from cairn_action.action.baseline import read_base_copy
from cairn_action.config import DEFAULT_CONFIG_FILE, DEFAULT_CONFIG_NAME, Config, LoadedConfig
from cairn_action.errors import CairnError
from cairn_action.gh.gateway import GitHubGateway


@dataclass(frozen=True, kw_only=True)
class GatedName:
    """One config as the base branch knows it."""

    file: str
    """The config file, from the repository root (`cairn.toml`), or '' for the embedded default."""
    head_name: str
    """Its name in the pull request."""
    base_name: str | None
    """Its name at the base commit; None when the file is new in the pull request."""

    @property
    def renamed(self) -> bool:
        return self.base_name is not None and self.base_name != self.head_name


def config_file(loaded: LoadedConfig, workdir: Path) -> str:
    """The config file relative to the working directory (the embedded default stands for cairn.toml)."""
    if loaded.source is None:
        return DEFAULT_CONFIG_FILE
    return loaded.source.resolve().relative_to(workdir.resolve()).as_posix()


def name_in(data: bytes, where: str) -> str:
    """The `name` a config file's bytes give (the default name when it sets none)."""
    try:
        parsed = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CairnError(
            f"{where}: the config at the base commit is not valid TOML ({exc})",
            "the base branch's config decides which baseline is gated; fix it there first",
        ) from None
    name = parsed.get("name", DEFAULT_CONFIG_NAME)
    return name if isinstance(name, str) and name else DEFAULT_CONFIG_NAME


def parse_config(data: bytes) -> Config | None:
    """A config file's bytes as a Config; None when they are not a valid one (an older or broken base)."""
    try:
        return Config.model_validate(tomllib.loads(data.decode("utf-8")))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, ValidationError):
        return None


@dataclass(frozen=True)
class BaseFile:
    """A config file as the base commit has it, read once: its name picks the baseline, its settings
    decide the judge and where secrets may go."""

    name: str | None
    """None when the pull request adds the file."""
    config: Config | None
    """None when the pull request adds the file, or the base's copy is not a valid config."""
    data: bytes | None = None
    """The file's bytes at the base commit (b"" for the embedded default): the contemporaneous control
    runs the base system from them (action/control.py)."""


def base_file(
    gateway: GitHubGateway, *, repo_path: str, base_sha: str, workspace: Path, embedded_default: bool
) -> BaseFile:
    """The config file at the base commit; for the default cairn.toml missing there, the embedded
    default."""
    copy = read_base_copy(gateway, path=repo_path, ref=base_sha, workspace=workspace)
    if copy.data is not None:
        name = name_in(copy.data, f"{repo_path} at {base_sha[:12]}")
        return BaseFile(name, parse_config(copy.data), copy.data)
    return BaseFile(DEFAULT_CONFIG_NAME, Config(), b"") if embedded_default else BaseFile(None, None)


def base_name(
    gateway: GitHubGateway,
    *,
    repo_path: str,
    base_sha: str,
    workspace: Path,
    embedded_default: bool,
) -> str | None:
    """The config's name at the base commit; for the default cairn.toml missing there, the embedded
    default's name; None for a file new in the pull request."""
    return base_file(
        gateway,
        repo_path=repo_path,
        base_sha=base_sha,
        workspace=workspace,
        embedded_default=embedded_default,
    ).name


def renamed_message(gated: GatedName, base_ref: str) -> tuple[str, str]:
    """The refusal (and its hint) for a config whose name changed while a baseline holds the old one."""
    message = (
        f"{gated.file} is named '{gated.head_name}' in this pull request but '{gated.base_name}' on "
        f"{base_ref or 'the base branch'}, which has a baseline for '{gated.base_name}': a renamed config "
        "would skip its baseline, so it is not gated under the new name"
    )
    hint = (
        f'keep name = "{gated.base_name}"; to rename it, first commit its baseline under the new name '
        f"on {base_ref or 'the base branch'} (reports/latest/{gated.head_name}.json)"
    )
    return message, hint
