"""The evaluation behind every mode: the run in a child process, the scoring and the gate in this one.

The run executes the system under test, which may be the pull request's own code (`target =
"python:..."` imports it). In the Action's process that code could replace the gate's functions and
read the token. So the run is `python -I -m cairn_action eval --run-only` in a child whose environment
has no token (no `INPUT_*`, no `ACTIONS_*` runtime or OIDC credentials) but keeps the provider keys it
needs; this process reads the run artifact, scores it and gates, importing nothing from the workspace.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path

from cairn_action import __version__
from cairn_action.config import LoadedConfig
from cairn_action.errors import CairnError, ExitCode, InfrastructureError, InternalError
from cairn_action.gh.runtime import AttackRun, Evaluate
from cairn_action.gh.workflow import Workflow
from cairn_action.report.models import Report
from cairn_action.report.pipeline import LoadedRun, report_from_run
from cairn_action.run.artifact import read_artifact

EVAL_SPLIT = "eval"
"""The split `cairn eval` measures by default, so the Action's reports compare with hand-made ones."""
_WITHHELD_PREFIXES = ("INPUT_", "ACTIONS_")
_WITHHELD = frozenset({"GITHUB_TOKEN", "GH_TOKEN"})


def run_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The child's environment: everything but the GitHub credentials."""
    return {k: v for k, v in env.items() if k not in _WITHHELD and not k.startswith(_WITHHELD_PREFIXES)}


def _run(
    loaded: LoadedConfig, artifact: Path, *, workdir: Path, env: Mapping[str, str], workflow: Workflow
) -> None:
    argv = ["eval", "--run-only", "--no-progress", "--split", EVAL_SPLIT, "--artifact", str(artifact)]
    if loaded.source is not None:
        argv += ["--config", str(loaded.source)]
    code, last = run_child(argv, workdir=workdir, env=env, workflow=workflow)
    _raise_for(code, last, f"the evaluation of {loaded.config.name}")


def _raise_for(code: int, last: str, what: str) -> None:
    if code == ExitCode.PASS:
        return
    message = f"{what} failed (exit {code}): {last[:300]}"
    if code == ExitCode.USAGE:
        raise CairnError(message, "see the evaluation's log above")
    if code == ExitCode.INTERNAL:  # a bug, not an outage: the step fails as an internal error
        raise InternalError(message)
    raise InfrastructureError(message, "see the evaluation's log above; a rerun resumes from the artifact")


def run_child(
    argv: list[str], *, workdir: Path, env: Mapping[str, str], workflow: Workflow
) -> tuple[int, str]:
    """`python -I -m cairn_action ARGV...` in the token-less child; (exit code, its last output line)."""
    last = ""
    with workflow.untrusted():  # the log names the pull request's documents and cases
        with subprocess.Popen(
            [sys.executable, "-I", "-m", "cairn_action", *argv],
            cwd=workdir,
            env=run_environment(env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        ) as child:
            assert child.stdout is not None
            for line in child.stdout:
                workflow.stream.write(line)
                last = line.strip() or last
            code = child.wait()
        workflow.stream.flush()
    return code, last


def attack_runner(
    env: Mapping[str, str], workflow: Workflow, now: Callable[[], datetime]
) -> Callable[[Path, Path], AttackRun]:
    """`cairn attack` for the Action (`attack: true`): the probes are asked in the same token-less child
    as the evaluation (`attack --run-only`), and checked and scored here from its artifact, so the pull
    request's code supplies answers, never verdicts. The report goes to `cairn-results/<config>/`."""

    def bind(workdir: Path, results_dir: Path) -> AttackRun:
        def attack(loaded: LoadedConfig) -> Path:
            from cairn_action.attack.execute import score_attack_artifact
            from cairn_action.attack.io import write_attack_report
            from cairn_action.attack.score import build_attack_report

            scratch = results_dir / loaded.config.name
            artifact = scratch / "attack-run.jsonl"
            argv = ["attack", "--run-only", "--no-progress", "--artifact", str(artifact)]
            if loaded.source is not None:
                argv += ["--config", str(loaded.source)]
            code, last = run_child(argv, workdir=workdir, env=env, workflow=workflow)
            _raise_for(code, last, f"the attack run of {loaded.config.name}")
            families = list(loaded.config.attack.families)
            run = score_attack_artifact(loaded, families, artifact)
            report = build_attack_report(
                run,
                config=loaded.config.attack,
                families=families,
                created_at=now().strftime("%Y-%m-%dT%H:%M:%SZ"),
                cairn_version=__version__,
            )
            return write_attack_report(report, scratch)[0]

        return attack

    return bind


def evaluator(
    env: Mapping[str, str], workflow: Workflow, now: Callable[[], datetime]
) -> Callable[[Path, Path], Evaluate]:
    """`cairn eval` for the Action: the run artifact goes to `cairn-results/<config>/run.jsonl` (to be
    uploaded), and the report is built without touching `reports/` (each mode decides what to write)."""

    def bind(workdir: Path, results_dir: Path) -> Evaluate:
        def evaluate(loaded: LoadedConfig) -> Report:
            scratch = results_dir / loaded.config.name
            artifact = scratch / "run.jsonl"
            _run(loaded, artifact, workdir=workdir, env=env, workflow=workflow)
            found = read_artifact(artifact)
            failed = [r for r in found.records if r.status == "error" and r.sample == 0]
            first_pass = [r for r in found.records if r.sample == 0]
            if first_pass and len(failed) == len(first_pass):
                raise InfrastructureError(
                    f"every case of {loaded.config.name} failed; the run artifact lists why",
                    "check the provider's settings and its API key secret (`env:`)",
                )
            run = LoadedRun(
                header=found.header,
                records=found.records,
                where=f"run of {loaded.config.name}",
                sources=(str(artifact),),
            )
            created = now().strftime("%Y-%m-%dT%H:%M:%SZ")
            written = report_from_run(
                loaded,
                run,
                which=EVAL_SPLIT,
                reports_dir=scratch / "reports",
                created_at=created,
                cairn_version=__version__,
            )
            return written.report

        return evaluate

    return bind
