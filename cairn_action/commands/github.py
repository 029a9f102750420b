"""Handlers for the commands that run against GitHub: release-stamp and action."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from cairn_action.commands.common import utc_now
from cairn_action.errors import CairnError

if TYPE_CHECKING:
    import argparse


def cmd_release_stamp(args: argparse.Namespace) -> int:
    """`mode: release` for other CI systems: the same run, with a token and a repository from the caller."""
    import os
    import re

    from cairn_action.action.release import ReleaseRequest, run_release
    from cairn_action.gh.pygithub_gateway import PyGithubGateway, connect
    from cairn_action.gh.workflow import PlainLog

    repository = args.repo or os.environ.get("GITHUB_REPOSITORY", "")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repository):
        raise CairnError("no repository to stamp a release in", "pass --repo OWNER/NAME")
    if args.tag is None and args.release_id is None:
        raise CairnError("which release? neither --tag nor --release-id was given", "pass --tag v1.2.0")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,39}", args.override_prefix):
        raise CairnError(
            f"--override-prefix '{args.override_prefix}' is not usable",
            "use letters, digits, '.', '_', '/' or '-' (at most 40 characters)",
        )
    token = os.environ.get(args.token_env, "")
    if not token:
        raise CairnError(
            f"${args.token_env} is not set",
            "export a token that may edit releases "
            "(`contents: write`), or name its variable with --token-env",
        )
    api_url = (args.api_url or os.environ.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/")
    server_url = (args.server_url or os.environ.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    request = ReleaseRequest(
        repository=repository,
        server_url=server_url,
        release_id=args.release_id,
        tag=args.tag,
        actor=args.actor or os.environ.get("GITHUB_ACTOR", ""),
        reason=args.reason,
        via="--reason" if args.reason else "release notes",
        config_paths=tuple(args.config or ["cairn.toml"]),
        config_is_default=not args.config,
        reports_dir=args.reports_dir,
        default_branch=args.branch,
        override_prefix=args.override_prefix,
        commit=os.environ.get("GITHUB_SHA") or None,
    )
    gateway = PyGithubGateway(connect(token, api_url), repository)
    return run_release(
        request,
        gateway=gateway,
        workflow=PlainLog(sys.stdout, summary=args.summary),
        now=utc_now,
    )


def cmd_action(args: argparse.Namespace) -> int:
    """The GitHub Action's entrypoint: everything comes from the runner's environment, not argv."""
    from cairn_action.action.entry import main as action_main

    return action_main()
