"""The contemporaneous control in PR mode: provider drift is not blamed on the pull request (issue 23).

After the candidate's evaluation, when some case's verdict differs from the baseline's and the system is
not deterministic, the base system is re-asked at the same time, on the same provider:
- **base**: when it can be run here, i.e. the built-in system with the base commit's config (its file
  written into the scratch folder; the checkout's corpus and golden set, which the gate requires equal to
  the baseline's anyway), an HTTP target whose URL the pull request did not change, or a `python:` target:
  the base commit's tree (`git archive BASE_SHA`, extracted as data into the scratch folder) with the base
  config at its own path there, so the target module is imported from the base code, in the same
  sandboxed child as the candidate. The changed cases are asked `baseline_samples` times (at most 3)
  and the drift probe (gate/control.py: unchanged cases, once each) is asked too; the gate compares the
  pull request with those answers (gate/__init__.py's `run_gate`).
- **probe**: otherwise (a `python:` target whose base commit git cannot give; a changed URL; a base
  config that is missing, invalid, or names a key the workflow does not grant; a base run that failed),
  the drift probe is asked of the candidate. If its cases moved as a block, the verdict is
  `incomplete`, "the environment shifted since the baseline", exit 3, never a regression naming cases.

Both runs are the same isolated child as the candidate's (`eval --run-only --ask-plan`), with a cache of
their own (a cached answer is the old draw again), judged here by the trusted judge. The control report is
kept as `cairn-results/<config>/control.json` and handed to the fork comment stage.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import partial
from pathlib import Path

from cairn_action.action.baseline import git_archive, read_base_copy
from cairn_action.action.child.sandbox import Scratch
from cairn_action.action.child.supervisor import judge_run, sample_corpus, sandboxed
from cairn_action.action.judging import JUDGE_CACHE, TrustedJudge
from cairn_action.action.runtime import ControlRun
from cairn_action.action.trust import Grants, Trusted, check_key_names, check_routes
from cairn_action.config import Config, LoadedConfig
from cairn_action.errors import CairnError
from cairn_action.files import write_bytes, write_text
from cairn_action.gate import policy_of
from cairn_action.gate.control import changed_cases, control_samples, probe_cases, probe_size
from cairn_action.gh.gateway import GitHubGateway
from cairn_action.gh.workflow import Workflow
from cairn_action.golden.load import load_golden
from cairn_action.report.control import control_report, probe_report
from cairn_action.report.io import report_text, write_text_atomic
from cairn_action.report.models import Report
from cairn_action.run.models import CaseRecord
from cairn_action.score.judge_check import JudgeCheck


def why_not_base(
    head: LoadedConfig, base: Config | None, base_data: bytes | None, base_sha: str | None = None
) -> str | None:
    """None when the base system can be run here; otherwise why not, in words for the comment."""
    if base is None or base_data is None:
        return "the base commit has no valid config for this file"
    if base.target is None:
        return None  # the built-in system: the base commit's config says everything about it
    if base.target.startswith(("http://", "https://")):
        if base.target == head.config.target:
            return None
        return "this pull request changes the HTTP target's URL"
    if base_sha is None:
        return "a python: target's code at the base commit is not checked out here"
    return None  # a python: target: run from the base commit's tree (base_tree)


def base_tree(workdir: Path, head: LoadedConfig, base_sha: str, dest: Path) -> Path:
    """The base commit's tree in `dest` and the path the base config takes there (the head config's own
    path in the checkout), so a `python:` target is imported from the base code beside it; CairnError when
    git cannot give the commit (the caller falls back to the drift probe)."""
    git_archive(workdir, base_sha, dest)
    source = head.source.resolve() if head.source is not None else workdir / "cairn.toml"
    try:
        relative = source.relative_to(workdir.resolve())
    except ValueError:
        relative = Path(source.name)
    return dest / relative


def control_runner(
    env: Mapping[str, str], workflow: Workflow, now: Callable[[], datetime]
) -> Callable[[Path, Path, Scratch, Grants], ControlRun]:
    def bind(workdir: Path, results_dir: Path, scratch: Scratch, grants: Grants) -> ControlRun:
        where = dict(workdir=workdir, scratch=scratch, results_dir=results_dir, grants=grants)
        child = partial(sandboxed, env=env, workflow=workflow, **where)  # the candidate's own child

        def ask(
            loaded: LoadedConfig,
            head: LoadedConfig,
            plan: dict[str, int],
            stem: str,
            mode: str,
            cwd: Path | None = None,
        ) -> Path:
            """The child asks `plan` of `loaded`'s system, into a fresh artifact and cache; judged here. `cwd`
            is the child's working folder (the checkout unless given)."""
            name = head.config.name
            plan_file = scratch.run / f"{name}.{stem}-plan.json"
            write_text(plan_file, json.dumps(plan), what="the control plan", durable=False)
            plan_file.chmod(0o644)
            artifact = scratch.artifact(name, f"{stem}.jsonl")
            argv = ["eval", "--run-only", "--no-progress", "--ask-plan", str(plan_file)]
            argv += ["--artifact", str(artifact), "--cache-dir", str(scratch.cache / stem)]
            argv += ["--judged-by-caller", mode, "--golden", str(head.golden_path)]
            corpus = sample_corpus(head, workdir, scratch)
            argv += ["--corpus", str(corpus if corpus is not None else head.corpus_dir)]
            if cwd is None:
                child(argv, loaded, artifact)
            else:
                sandboxed(argv, loaded, artifact, env=env, workflow=workflow, **{**where, "workdir": cwd})
            return artifact

        def control(
            loaded: LoadedConfig,
            baseline: Report,
            candidate: Report,
            *,
            trusted: Trusted,
            base_data: bytes | None,
            seed: str,
            base_sha: str | None = None,
        ) -> Report | None:
            changed = changed_cases(baseline, candidate)
            if candidate.notes.deterministic or not changed:
                return None
            name = loaded.config.name
            judge = TrustedJudge(config=trusted.config or Config(), where=trusted.where)
            mode = "deterministic" if judge.deterministic else "sampled"
            spent = candidate.notes.extra_samples.samples
            wanted = policy_of(baseline, source="the baseline").baseline_samples
            samples = control_samples(wanted, changed=len(changed), spent=spent)

            def probe(control_asks: int) -> list[str]:
                size = probe_size(len(changed), spent + control_asks)
                return probe_cases(baseline, exclude=set(changed), size=size, seed=seed)

            golden = load_golden(loaded.golden_path)
            created = now().strftime("%Y-%m-%dT%H:%M:%SZ")

            corpus = sample_corpus(loaded, workdir, scratch)  # where a sealed run's support is located

            def judged(artifact: Path) -> list[CaseRecord]:
                run = judge_run(
                    loaded,
                    artifact,
                    judge,
                    env=env,
                    cache_dir=scratch.root / JUDGE_CACHE,
                    workflow=workflow,
                    left_out=trusted.left_out,
                    corpus_dir=corpus,
                )
                return list(run.records)

            why = why_not_base(loaded, trusted.config, base_data, base_sha)
            if why is None and trusted.config is not None and base_data is not None:
                probed = probe(samples * len(changed))
                plan = {case: samples for case in changed} | {case: 1 for case in probed}
                try:
                    file = scratch.run / f"{name}.base.toml"
                    target = trusted.config.target or ""
                    cwd = None
                    if target.startswith("python:") and base_sha is not None:
                        # The base code runs in its own tree, not in the checkout: a file it reads by a
                        # relative path is the base commit's, so the pull request cannot make the base
                        # system look worse (and so clear its own losses) by editing what that code reads.
                        cwd = scratch.run / f"{name}.base-tree"
                        file = base_tree(workdir, loaded, base_sha, cwd)
                        file.parent.mkdir(parents=True, exist_ok=True)
                    write_bytes(file, base_data, what="the base config", durable=False)
                    file.chmod(0o644)
                    base = LoadedConfig(config=trusted.config, source=file, base_dir=file.parent)
                    check_key_names(base, list(grants.variables))
                    check_routes(base, trusted.config, grants.allowed_endpoints, trusted_where=trusted.where)
                    with workflow.group(f"Cairn: control for {name} (the base system re-asked)"):
                        records = judged(ask(base, loaded, plan, "control", mode, cwd))
                    report = control_report(baseline, records, golden, created_at=created, probe=set(probed))
                    return _kept(report, results_dir, name)
                except CairnError as exc:
                    why = f"its run failed: {exc.message[:160]}"
                    workflow.warning(f"the base system could not be re-asked: {why}", title=f"Cairn ({name})")
            assert why is not None
            records = []
            probed = probe(0)
            if probed:  # none when no unchanged case qualifies: the note then says 0 were asked
                with workflow.group(f"Cairn: drift probe for {name} ({why})"):
                    records = judged(ask(loaded, loaded, {case: 1 for case in probed}, "probe", mode))
            return _kept(
                probe_report(baseline, records, golden, why=why, created_at=created), results_dir, name
            )

        return control

    return bind


def _kept(report: Report, results_dir: Path, name: str) -> Report:
    """The control report, kept for the upload beside the candidate's (`cairn gate --control` reads it)."""
    write_text_atomic(results_dir / name / "control.json", report_text(report))  # sealed rows stay sealed
    return report


def base_judge_check(
    gateway: GitHubGateway, *, config_file: str, base_sha: str, workspace: Path
) -> JudgeCheck | None:
    """The judge check beside the config as the base commit has it: the base's judge judges the pull
    request, and the pull request's own copy of the check could be forged."""
    path = posixpath.join(
        posixpath.dirname(config_file),
        f"{posixpath.splitext(posixpath.basename(config_file))[0]}.judge-check.json",
    )
    data = read_base_copy(gateway, path=path, ref=base_sha, workspace=workspace).data
    if data is None:
        return None
    try:
        return JudgeCheck.model_validate_json(data)
    except ValueError:
        return None
