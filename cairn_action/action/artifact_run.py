"""`mode: gate`: decide on a run made in another job, in a job where nothing untrusted runs.

The two-job flow, for a system with its own packages and services: job `evaluate` runs the system in the
team's environment (their Python, service containers, the secrets the workflow names) with a read-only
token, `cairn eval --run-only --judged-by-caller sampled --baseline <base's baseline>`, and uploads the run
artifact; job `gate` (`needs: evaluate`) runs only Cairn's image, on a checkout that is data (nothing in
it is imported or run). It treats the artifact as untrusted, as the fork stage treats its artifact:

- read with the artifact reader's size limit and schema (a malformed line is refused with `file:line`);
- its header must be a run of the checkout's config, golden set and corpus, of the `eval` split, whole
  (a run of another experiment, or one made before an edit, is refused: exit 2);
- every answer is judged here by the base branch's judge (its verdicts are dropped), the re-asks the
  baseline's policy requires are counted (a run short of them is incomplete, exit 3: this job cannot
  ask), and what is decided and posted is PR mode's, from this job's own scoring.

A fork's pull request takes the same path one step later: its `pull_request` run (read-only, no secrets)
is job 1, and the gate runs in the base repository from `workflow_run`, on a checkout of the head as data.
The pull request's number then comes from the artifact (`pr-number`), and is believed only when the API
says that pull request is open with the head and head repository the workflow run built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path

from cairn_action.action.child.sandbox import Scratch
from cairn_action.action.child.supervisor import EVAL_SPLIT, finish, judge_run, sample_corpus
from cairn_action.action.judging import JUDGE_CACHE, TrustedJudge
from cairn_action.action.runtime import ConfigResult, Evaluate, Runtime
from cairn_action.action.trust import Grants, Trusted
from cairn_action.config import Config, LoadedConfig, config_hash
from cairn_action.errors import DataError
from cairn_action.gh.context import PullRequestEvent
from cairn_action.gh.workflow import Workflow
from cairn_action.report.io import read_report
from cairn_action.report.models import Report
from cairn_action.run.artifact import read_artifact
from cairn_action.run.models import RunHeader

RUN_FILE = "run.jsonl"
HINT = (
    "upload the evaluate job's `cairn eval --run-only` artifact as <run-artifact>/<config name>/run.jsonl, "
    "made from this same commit (see the README's two-job workflow)"
)


def check_identity(loaded: LoadedConfig, header: RunHeader, corpus_dir: Path, where: Path) -> None:
    """Refuse (exit 2) an artifact that is not a whole `eval` run of this checkout's experiment."""
    from cairn_action.golden.load import load_golden
    from cairn_action.index.corpus import load_corpus

    name = loaded.config.name
    problems = []
    if header.config_name != name:
        problems.append(f"it is a run of '{header.config_name}', not '{name}'")
    # A sealed set's run holds every case (its split needs the key): the eval split is scored here.
    if header.split != ("all" if header.sealed else EVAL_SPLIT) or header.shard is not None:
        shard = f" (shard {header.shard})" if header.shard else ""
        problems.append(f"it holds the {header.split} split{shard}, not the whole eval split")
    if header.config_hash != config_hash(loaded.config, header.embedding_model):
        mine = config_hash(loaded.config, header.embedding_model)
        problems.append(f"its config_hash {header.config_hash} is not this checkout's {mine}")
    if header.golden_hash != load_golden(loaded.golden_path).content_hash:
        problems.append("its golden set is not this checkout's")
    if header.corpus_hash != load_corpus(corpus_dir).corpus_hash:
        problems.append("its corpus is not this checkout's")
    if problems:
        raise DataError(f"{where}:1: the run artifact is not of this checkout: {'; '.join(problems)}", HINT)


def artifact_folder(workspace: Path, given: str) -> Path:
    """The `run-artifact` input as a folder inside the workspace (where download-artifact puts it)."""
    root = workspace.resolve()
    path = (root / given).resolve()
    if path != root and root not in path.parents:
        raise DataError(
            f"input 'run-artifact': {given} is outside the workspace",
            "download the evaluate job's artifact into the workspace (actions/download-artifact `path:`)",
        )
    if not path.is_dir():
        raise DataError(f"input 'run-artifact': {given} is not a folder in the workspace", HINT)
    return path


def artifact_evaluator(
    env: Mapping[str, str], workflow: Workflow, now: Callable[[], datetime], folder: Path
) -> Callable[[Path, Path, Scratch, Grants], Evaluate]:
    """An `Evaluate` that runs nothing: it reads `<folder>/<config>/run.jsonl` and judges, checks and
    scores it here."""

    def bind(workdir: Path, results_dir: Path, scratch: Scratch, grants: Grants) -> Evaluate:
        del grants  # nothing runs here, so nothing is granted

        def evaluate(loaded: LoadedConfig, baseline: Path | None = None, *, trusted: Trusted) -> Report:
            name = loaded.config.name
            artifact = folder / name / RUN_FILE
            if not artifact.is_file() or artifact.is_symlink():
                raise DataError(f"{artifact}: no run artifact for {name}", HINT)
            header = read_artifact(artifact).header
            corpus = sample_corpus(loaded, workdir, scratch) or loaded.corpus_dir
            check_identity(loaded, header, corpus, artifact)
            judge = TrustedJudge(config=trusted.config or Config(), where=trusted.where)
            cache_dir = scratch.root / JUDGE_CACHE
            run = judge_run(
                loaded,
                artifact,
                judge,
                env=env,
                cache_dir=cache_dir,
                workflow=workflow,
                left_out=trusted.left_out,
                corpus_dir=corpus,
            )
            return finish(
                loaded,
                run,
                read_report(baseline) if baseline is not None else None,
                created=now().strftime("%Y-%m-%dT%H:%M:%SZ"),
                reports_dir=scratch.root / name / "reports",
                results_dir=results_dir,
            )

        return evaluate

    return bind


PR_NUMBER = "pr-number"


def _number(folder: Path) -> int:
    from cairn_action.files import read_text

    path = folder / PR_NUMBER
    text = read_text(path, what="pull request number", limit=64).strip() if path.is_file() else ""
    if not text.isdigit() or not 0 < int(text) < 10**9:
        raise DataError(
            f"{path}:1: not a pull request number", "the evaluate job writes it (evaluate/action.yml)"
        )
    return int(text)


def run_gate_mode(rt: Runtime, configs: list[LoadedConfig], folder: Path) -> list[ConfigResult]:
    """`mode: gate`: PR mode on the artifact; from `workflow_run` (a fork), on the pull request the
    artifact names, verified against the API and the workflow run."""
    from dataclasses import replace

    from cairn_action.action.pr import run_pr_mode

    run = rt.context.workflow_run
    if run is None:
        return run_pr_mode(rt, configs)
    if run.event != "pull_request":
        raise DataError(
            f"mode 'gate' from workflow_run gates a pull_request run, and this one ran on '{run.event}'",
            "trigger it with `on: workflow_run: workflows: [<the evaluate workflow>] types: [completed]`",
        )
    number = _number(folder)
    pull = rt.gateway.pull(number)
    if run.pull_numbers and number not in run.pull_numbers:
        raise DataError(f"the artifact names pull request #{number}, which the workflow run is not for", HINT)
    if (
        pull.state != "open"
        or pull.head_sha != run.head_sha
        or (run.head_repo and pull.head_repo != run.head_repo)
    ):
        raise DataError(
            f"pull request #{number} is {pull.state} at {pull.head_sha[:12]} from {pull.head_repo}, but the "
            f"workflow run built {run.head_sha[:12]} from {run.head_repo}: not gating",
            "a newer push starts a newer run, whose gate posts its own result",
        )
    event = PullRequestEvent(
        number=number,
        head_sha=pull.head_sha,
        base_sha=pull.base_sha,
        base_ref="",
        head_ref="",
        head_repo=pull.head_repo,
        base_repo=pull.base_repo,
        labels=pull.labels,
        author=pull.author,
    )
    return run_pr_mode(replace(rt, context=replace(rt.context, pull=event)), configs)
