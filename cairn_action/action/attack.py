"""PR mode with `attack: true`: run `cairn attack` on the head, gate it against the base branch's
`reports/attack-<config>.json` (never the pull request's copy), and return the comment's attack section.

No attack baseline at the base commit passes, as a missing main baseline does, and says how to add one.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn_action.action.baseline import read_base_copy
from cairn_action.action.runtime import Runtime
from cairn_action.attack.compare import compare_attacks
from cairn_action.attack.io import read_attack_report
from cairn_action.attack.render import family_table, render_attack_section
from cairn_action.config import LoadedConfig
from cairn_action.errors import ExitCode
from cairn_action.gh.context import PullRequestEvent
from cairn_action.report.io import write_text_atomic


@dataclass(frozen=True)
class AttackSection:
    markdown: str
    exit_code: int
    headline: str


def attack_section(rt: Runtime, pull: PullRequestEvent, loaded: LoadedConfig) -> AttackSection | None:
    """The attack gate's section for this config, or None when the `attack` input is off."""
    if rt.attack is None:
        return None
    name = loaded.config.name
    with rt.workflow.group(f"Cairn: attack {name}"):
        candidate = read_attack_report(rt.attack(loaded))
    base_path = rt.repo_path(f"reports/attack-{name}.json")
    base = read_base_copy(rt.gateway, path=base_path, ref=pull.base_sha, workspace=rt.context.workspace)
    if base.data is None:
        headline = f"no attack baseline: {base_path} does not exist at the base commit"
        rt.workflow.notice(
            f"{headline} {pull.base_sha[:12]}, so the attack gate passes; commit the base branch's "
            f"`cairn attack` report to gate the next pull request",
            title=f"Cairn ({name}): no attack baseline",
        )
        body = f"### Attack probes\n\nNote: {headline} (this change: {candidate.verdict}).\n\n"
        return AttackSection(body + family_table(candidate) + "\n", ExitCode.PASS, headline)
    baseline_file = rt.results_dir / name / "attack-baseline.json"
    write_text_atomic(baseline_file, base.data.decode("utf-8", "replace"))
    gate = compare_attacks(read_attack_report(baseline_file), candidate)
    if gate.status != "pass":
        for reason in gate.reasons[:10]:
            rt.workflow.error(reason, title=f"Cairn ({name}): attack gate {gate.status}")
    return AttackSection(render_attack_section(gate), gate.exit_code, gate.headline)
