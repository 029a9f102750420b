"""The parsers of the commands that run against GitHub: release-stamp and action."""

from __future__ import annotations

import argparse
from pathlib import Path

from cairn_action.cli.shared_args import lazy


def add_release_stamp(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    rel = sub.add_parser(
        "release-stamp",
        help="stamp a release with its accuracy, or refuse it (back to draft)",
        description="The release gate outside GitHub Actions. Reads reports/latest/<config>.json at the "
        "release's tag, compares each critical tag's recall with the last stamped release, and writes the "
        "accuracy stamp into the release notes. A fall (or a tag never evaluated) puts the release back to "
        "draft and exits 1, unless someone with write access or above gives a reason (--reason, or a "
        "`cairn-override: <reason>` line in the notes). A stamped release gets the served stamp as two "
        "assets, cairn-stamp-<config>.json and .txt (what `cairn stamp` prints). The token comes from "
        "$GITHUB_TOKEN.",
    )
    rel.add_argument("--repo", help="OWNER/NAME (default: $GITHUB_REPOSITORY)")
    rel.add_argument("--tag", help="the release's tag (drafts are found too)")
    rel.add_argument("--release-id", type=int, help="the release's id, instead of --tag")
    rel.add_argument(
        "--actor",
        help="who published the release: their role decides whether a reason counts (default: $GITHUB_ACTOR)",
    )
    rel.add_argument("--reason", help="publish over a regression, for this reason (kept in the release)")
    rel.add_argument(
        "--config",
        action="append",
        help="a config file, relative to the repository root; "
        "repeat for several (default: cairn.toml, else the embedded default)",
    )
    rel.add_argument(
        "--reports-dir",
        default="reports",
        help="the reports folder, relative to the repository root (default: reports)",
    )
    rel.add_argument(
        "--branch",
        help="where merged reports and their overrides are (default: the repository's default branch)",
    )
    rel.add_argument(
        "--override-prefix",
        default="cairn-override",
        help="the notes line that carries a reason: '<prefix>: <reason>' (default: cairn-override)",
    )
    rel.add_argument("--api-url", help="GitHub API URL (default: $GITHUB_API_URL or https://api.github.com)")
    rel.add_argument(
        "--server-url", help="GitHub URL for links (default: $GITHUB_SERVER_URL or https://github.com)"
    )
    rel.add_argument(
        "--token-env",
        default="GITHUB_TOKEN",
        help="the environment variable holding the token (default: GITHUB_TOKEN)",
    )
    rel.add_argument("--summary", type=Path, help="also write the stamp section's markdown here")
    rel.set_defaults(handler=lazy("github", "cmd_release_stamp"))


def add_action(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    action = sub.add_parser(
        "action",
        help="run as the GitHub Action (inside a workflow; reads INPUT_* and GITHUB_*)",
        description="The Docker action's entrypoint: reads the inputs (INPUT_<NAME>) and the runner's "
        "variables, gates the pull request, refreshes the baseline or posts a fork's comment, and exits "
        "0 pass, 1 gate failed, 2 usage or refused, 3 GitHub unreachable.",
    )
    action.set_defaults(handler=lazy("github", "cmd_action"))
