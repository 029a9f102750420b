"""The Action's composition root: environment → `ActionConfig` and context → collaborators → exit code.

`main()` is what the container runs (`python -P -m cairn_action action`). It reads the inputs and the
runner's variables, masks the secrets before anything is printed, builds the PyGithub gateway for
`GITHUB_API_URL` (github.com or GHES), the clock and the paths, and hands them to `run_action`, which
picks the mode and runs it. Everything below takes its collaborators as arguments.
"""

from __future__ import annotations

import os
import re
import sys
import traceback
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from cairn_action.action.artifact_run import artifact_evaluator, artifact_folder, run_gate_mode
from cairn_action.action.child.index_folder import resolve_folder, restore_index, save_index
from cairn_action.action.child.sandbox import Identity, Scratch, eval_identity
from cairn_action.action.child.supervisor import attack_runner, evaluator
from cairn_action.action.control import control_runner
from cairn_action.action.handoff import RESULTS_DIR
from cairn_action.action.runtime import (
    AttackRun,
    ControlRun,
    Evaluate,
    Runtime,
    load_configs,
    publish,
    resolve_workdir,
)
from cairn_action.action.trust import Grants, passed_variables
from cairn_action.errors import CairnError, ExitCode, internal_error_message
from cairn_action.gh.context import ActionContext, load_context, read_event
from cairn_action.gh.gateway import GitHubGateway
from cairn_action.gh.inputs import ActionConfig, Mode, read_inputs
from cairn_action.gh.workflow import Workflow

RunMode = Literal["pr", "baseline", "release", "comment", "gate"]
PR_EVENTS = ("pull_request",)
BASELINE_EVENTS = ("push", "workflow_dispatch", "schedule")
_AUTO: dict[str, RunMode] = {
    "pull_request": "pr",
    "push": "baseline",
    "release": "release",
    "workflow_run": "comment",
}
_EVENTS: dict[RunMode, tuple[str, ...]] = {
    "pr": PR_EVENTS,
    "baseline": BASELINE_EVENTS,
    "release": ("release", "workflow_dispatch"),
    "comment": ("workflow_run",),
    "gate": ("pull_request", "workflow_run"),
}
# Environment variables whose values are secrets by their name: masked before anything is printed.
_SECRET_NAME = re.compile(r"(?i)(^|_)(api_?key|token|secret|password|passwd|credentials?)($|_)")
_MIN_SECRET_LEN = 8


def select_mode(requested: Mode, event_name: str) -> RunMode:
    """The mode to run: the one asked for, or the event's (`auto`); a mode on the wrong event is an error.

    `pull_request_target` is refused: it runs with a write token and secrets, and gating the pull
    request's code there is the "pwn request" pattern. Forks get the two-stage design instead.
    """
    if event_name == "pull_request_target":
        raise CairnError(
            "Cairn does not run on pull_request_target: it would evaluate untrusted code with a "
            "write token and secrets",
            "use `on: pull_request`, plus the README's `mode: comment` workflow for fork pull requests",
        )
    mode: RunMode | None = _AUTO.get(event_name) if requested == "auto" else requested
    if mode is None:
        raise CairnError(
            f"no mode for the '{event_name}' event", "set `mode:` (pr, baseline, release, comment)"
        )
    if event_name not in _EVENTS[mode]:
        raise CairnError(
            f"mode '{mode}' does not run on the '{event_name}' event (it runs on {', '.join(_EVENTS[mode])})",
            "see the README's example workflows",
        )
    return mode


def secrets_to_mask(inputs: ActionConfig, env: Mapping[str, str]) -> list[str]:
    """The token and every value of a secret-looking variable (`*_API_KEY`, `*_TOKEN`, ...)."""
    found = [inputs.github_token]
    found += [v for k, v in env.items() if _SECRET_NAME.search(k) and len(v) >= _MIN_SECRET_LEN]
    return [s for s in dict.fromkeys(found) if s]


def run_action(
    inputs: ActionConfig,
    context: ActionContext,
    gateway: GitHubGateway,
    workflow: Workflow,
    *,
    evaluate: Callable[[Path, Path, Scratch, Grants], Evaluate],
    now: Callable[[], datetime],
    event: Mapping[str, Any] | None = None,
    attack: Callable[[Path, Path, Scratch, Grants], AttackRun] | None = None,
    identity: Identity | None = None,
    env: Mapping[str, str] | None = None,
    gate: Callable[[Path], Callable[[Path, Path, Scratch, Grants], Evaluate]] | None = None,
    control: Callable[[Path, Path, Scratch, Grants], ControlRun] | None = None,
) -> int:
    """Run the selected mode; the exit code: 0 pass, 1 gate failed, 2 usage or refused, 3 infrastructure.

    `event` is the event payload; release mode reads the release (or the dispatch's inputs) from it.
    `identity`: who the evaluation child runs as (sandbox.py). `env`: this process's environment, from
    which the `env` input's variables are granted to the evaluation (action/trust.py). `gate`: for `mode:
    gate`, the evaluation that reads another job's run artifact from a folder (action/artifact_run.py).
    `control`: PR mode's contemporaneous control (action/control.py)."""
    from cairn_action.action.comment import run_comment_mode
    from cairn_action.action.pr import run_pr_mode
    from cairn_action.action.refresh import run_baseline_mode

    mode = select_mode(inputs.mode, context.event_name)
    workdir = resolve_workdir(context.workspace, inputs.working_directory)
    workflow.info(
        f"Cairn {mode} mode on {context.event_name} ({context.action or '-'}) in {context.repository}"
    )
    index_folder = resolve_folder(inputs.index_cache, context.workspace)
    if index_folder is not None and mode not in ("pr", "baseline"):
        workflow.info(f"index-cache: {mode} mode evaluates nothing; {index_folder} is not used")
    scratch = None
    # Checked before anything runs: a workflow that grants a runner variable is refused whatever the mode.
    grants = Grants(
        variables=passed_variables(inputs.env, env or {}, inputs.github_token),
        allowed_endpoints=inputs.allowed_endpoints,
    )
    if mode == "gate":  # nothing runs here: a scratch folder of this process's own, for the judge
        refuse_committed_results(context.workspace / RESULTS_DIR, context.workspace)
        if gate is None:
            raise CairnError("mode 'gate' needs the artifact evaluation", "report this as a bug")
        evaluate = gate(artifact_folder(context.workspace, inputs.run_artifact))
        own = Identity(uid=os.geteuid(), gid=os.getegid(), name="cairn", isolated=False)
        scratch = Scratch(own, workspace=context.workspace)
    if mode in ("pr", "baseline"):
        refuse_committed_results(context.workspace / RESULTS_DIR, context.workspace)
        identity = identity or eval_identity()
        if not identity.isolated:
            workflow.notice(
                f"the evaluation runs as this process's own user (uid {identity.uid}), not as another "
                "one: code the config runs (a python: target) can read this process's environment, "
                "token included, and write the runner's files. The action's Docker image isolates it",
                title="Cairn: evaluation not isolated",
            )
        scratch = Scratch(identity, workspace=context.workspace)
        if index_folder is not None:
            restore_index(index_folder, scratch, workflow, mode=mode)
    try:
        rt = Runtime(
            inputs=inputs,
            context=context,
            gateway=gateway,
            workflow=workflow,
            evaluate=(
                evaluate(workdir, context.workspace / RESULTS_DIR, scratch, grants) if scratch else _no_run
            ),
            now=now,
            workdir=workdir,
            attack=(
                attack(workdir, context.workspace / RESULTS_DIR, scratch, grants)
                if attack and inputs.attack and scratch and mode == "pr"
                else None
            ),
            control=(
                control(workdir, context.workspace / RESULTS_DIR, scratch, grants)
                if control and scratch and mode == "pr"
                else None
            ),
        )
        if mode == "comment":
            return publish(workflow, run_comment_mode(rt))
        if mode == "release":
            from cairn_action.action.release import run_release_mode

            return run_release_mode(rt, event or {})
        configs = load_configs(inputs, workdir)
        if mode == "gate":
            results = run_gate_mode(rt, configs, artifact_folder(context.workspace, inputs.run_artifact))
        else:
            results = run_pr_mode(rt, configs) if mode == "pr" else run_baseline_mode(rt, configs)
        if index_folder is not None and scratch is not None and mode == "baseline":
            save_index(index_folder, scratch, workflow, [r.exit_code for r in results])
        return publish(workflow, results)
    finally:
        if scratch is not None:
            scratch.close()


def _no_run(loaded: Any) -> Any:
    raise AssertionError("this mode evaluates nothing")


def refuse_committed_results(results: Path, workspace: Path) -> None:
    """Cairn writes cairn-results/ for the artifact upload; finding it already there means the checkout
    brought it (a pull request can commit any file), and nothing in it may pass for this run's results."""
    if results.is_symlink() or (results.exists() and (not results.is_dir() or any(results.iterdir()))):
        raise CairnError(
            f"{results.relative_to(workspace).as_posix()}/ exists in the checkout before the run: Cairn "
            "writes its results there and will not mix them with files it did not write",
            f"remove {RESULTS_DIR}/ from the repository (and add it to .gitignore); run one Cairn step "
            "per job, with every config in `config:`",
        )


def main(env: Mapping[str, str] | None = None) -> int:
    env = dict(os.environ if env is None else env)
    output, summary = env.get("GITHUB_OUTPUT"), env.get("GITHUB_STEP_SUMMARY")
    workflow = Workflow(
        sys.stdout,
        output_file=Path(output) if output else None,
        summary_file=Path(summary) if summary else None,
    )
    try:
        inputs = read_inputs(env)
        for secret in secrets_to_mask(inputs, env):
            workflow.mask(secret)
        context = load_context(env, cwd=Path.cwd())
        from cairn_action.gh.pygithub_gateway import PyGithubGateway, connect

        gateway = PyGithubGateway(connect(inputs.github_token, context.api_url), context.repository)

        def now() -> datetime:
            return datetime.now(UTC)

        return run_action(
            inputs,
            context,
            gateway,
            workflow,
            evaluate=evaluator(env, workflow, now),
            now=now,
            attack=attack_runner(env, workflow, now),
            gate=lambda folder: artifact_evaluator(env, workflow, now, folder),
            control=control_runner(env, workflow, now),
            event=read_event(Path(env["GITHUB_EVENT_PATH"])),
            env=env,
        )
    except CairnError as exc:
        workflow.error(f"{exc.message}" + (f" (hint: {exc.hint})" if exc.hint else ""), title="Cairn")
        return int(exc.exit_code)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug: the check fails as an internal error, never as a regression
        return internal_error(workflow, exc)


def internal_error(workflow: Workflow, exc: Exception) -> int:
    """Report an uncaught exception: the traceback in the log, an `internal error` annotation saying where
    to report it, `verdict: internal-error`, and exit 70, which no verdict uses."""
    traceback.print_exc(file=sys.stderr)
    workflow.error(internal_error_message(exc), title="Cairn: internal error")
    try:
        workflow.set_output("verdict", "internal-error")
    except OSError:
        pass  # the outputs file itself may be what failed
    return int(ExitCode.INTERNAL)
