"""Gate integrity: each test is an attack by a pull request on the gate, through the real entrypoint, real
PyGithub and the loopback fake GitHub, and pins that it fails. Each one passed the gate (or leaked the
token) before the fix that names it in the security model (docs/action/security.md)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from action_sim import CONFIG, LATEST, PR, WORSE_CONFIG, Sim, Template, new_sim
from fakes.github_server import FakeGitHub

pytestmark = pytest.mark.slow


@pytest.fixture
def sim(template: Template, tmp_path: Path, fake_github: FakeGitHub) -> Sim:
    return new_sim(template, tmp_path, fake_github)


def _newest_run(folder: Path) -> list[str]:
    return sorted(folder.glob("default-*.jsonl"))[-1].read_text(encoding="utf-8").splitlines()


def test_attack__committed_run_artifact_is_resumed__refused(sim: Sim) -> None:
    # The pull request regresses, and force-adds the file the Action writes its run to: the header of a
    # genuine run of its own (worse) config, followed by the base config's records.
    worse_header = _newest_run(sim.template.path.parent / "worse" / "reports" / "runs")[0]
    base_records = _newest_run(sim.template.path / "reports" / "runs")[1:]
    forged = "\n".join([worse_header, *base_records]) + "\n"
    head = sim.commit(
        {"cairn.toml": WORSE_CONFIG, "cairn-results/default/run.jsonl": forged},
        "regress, and bring answers",
        force=True,
    )
    sim.open_pull(head)

    result = sim.run("pull_request", sim.pr_event("opened"))

    assert result.code == 2, result.stdout + result.stderr
    assert "cairn-results/ exists in the checkout before the run" in result.stdout
    assert "resumed" not in result.stdout
    assert result.outputs.get("verdict") is None  # nothing was gated, nothing passed
    assert sim.sticky() == []


def test_attack__committed_response_cache_answers_the_prompts__not_read(sim: Sim) -> None:
    # A committed cache folder (and a config pointing the cache at it) must not serve the run: every
    # provider call of the pull request's run is made afresh, in a folder outside the checkout.
    head = sim.commit({"cairn.toml": CONFIG + '\n[run]\ncache_dir = ".cairn/cache"\n'}, "same config")
    sim.open_pull(head)
    assert any((sim.workspace / ".cairn" / "cache").rglob("*.json"))  # the base run's entries are there

    result = sim.run("pull_request", sim.pr_event("opened"))

    assert result.code == 0, result.stdout + result.stderr
    served = re.search(r"provider calls this run: (\d+) made, (\d+) served from the cache", result.stdout)
    assert served is not None and int(served.group(1)) > 0 and served.group(2) == "0", result.stdout


SNOOP = """
import json, os, sys

COMMAND_FILES = {command_files}
SECRETS = {secrets}


def _read(path):
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return "denied: " + type(exc).__name__
    return "read: " + data.decode("utf-8", "replace").replace("\\0", " ")


def _append(path):
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("pwned=1\\n")
    except OSError as exc:
        return "denied: " + type(exc).__name__
    return "wrote"


findings = {{
    "uid": os.getuid(),
    "groups": os.getgroups(),
    "env": sorted(os.environ),
    "env_secrets": [s for s in SECRETS if any(s in v for v in os.environ.values())],
    "parent_environ": _read(f"/proc/{{os.getppid()}}/environ"),
    "pid1_environ": _read("/proc/1/environ"),
    "command_files": {{name: _append(path) for name, path in COMMAND_FILES.items()}},
}}
print("SNOOP " + json.dumps(findings), flush=True)


def answer(question):
    return {{"answer": None, "passages": []}}
"""


def test_attack__target_reads_parent_environ_and_writes_command_files__denied(sim: Sim) -> None:
    runner = sim.root / "runner" / f"run{sim.runs + 1}"  # the folder the next run's files are in
    command_files = {
        var: str(runner / name)
        for var, name in {
            "GITHUB_OUTPUT": "set_output",
            "GITHUB_STEP_SUMMARY": "step_summary",
            "GITHUB_ENV": "set_env",
            "GITHUB_PATH": "add_path",
            "GITHUB_STATE": "save_state",
        }.items()
    }
    snoop = SNOOP.format(
        command_files=repr(command_files), secrets=repr([sim.token, sim.runtime_token, sim.api_key])
    )
    config = 'target = "python:snoop:answer"\n' + CONFIG + '\n[provider]\napi_key_env = "OPENAI_API_KEY"\n'
    head = sim.commit({"cairn.toml": config, "snoop.py": snoop}, "my system")
    sim.open_pull(head)

    result = sim.run("pull_request", sim.pr_event("opened"), inputs={"env": "OPENAI_API_KEY"})

    [line] = [x for x in result.stdout.splitlines() if x.startswith("SNOOP ")]
    found = json.loads(line.removeprefix("SNOOP "))
    assert result.code in (1, 2), result.stdout + result.stderr  # the real gate decided
    # What the workflow's `env` input grants reaches the target; nothing else of the runner's does.
    assert found["env_secrets"] == [sim.api_key]
    assert not [k for k in found["env"] if k.startswith(("GITHUB_", "INPUT_", "ACTIONS_", "RUNNER_"))]
    if os.geteuid() != 0:
        assert "Cairn%3A evaluation not isolated" in result.stdout
        pytest.skip("the uid separation needs a root parent (the Docker action, or CI)")
    assert found["uid"] != 0 and found["groups"] == []
    assert found["parent_environ"].startswith("denied"), found["parent_environ"][:200]
    assert found["pid1_environ"].startswith("denied"), found["pid1_environ"][:200]
    assert set(found["command_files"].values()) == {"denied: PermissionError"}, found["command_files"]
    for path in command_files.values():
        assert "pwned" not in Path(path).read_text(encoding="utf-8")
    assert "evaluation not isolated" not in result.stdout
    outside_masks = [x for x in result.stdout.splitlines() if not x.startswith("::add-mask::")]
    assert not [x for x in outside_masks if sim.token in x or sim.runtime_token in x]


TAIL = """
import atexit, sys

# The last thing the run prints has no newline: a resume token written right after it is lost.
atexit.register(lambda: (sys.stdout.write("and no newline at the end"), sys.stdout.flush()))


def answer(question):
    return {"answer": None, "passages": []}
"""


def test_attack__output_without_final_newline_swallows_the_resume_token__resumed_on_its_own_line(
    sim: Sim,
) -> None:
    config = 'target = "python:tail:answer"\n' + CONFIG
    head = sim.commit({"cairn.toml": config, "tail.py": TAIL}, "my system")
    sim.open_pull(head)

    result = sim.run("pull_request", sim.pr_event("opened"))

    lines = result.stdout.splitlines()
    tokens = [x.removeprefix("::stop-commands::") for x in lines if x.startswith("::stop-commands::")]
    assert tokens, result.stdout
    for token in tokens:
        assert f"::{token}::" in lines, f"the runner would stay in stop-commands mode after {token}"
    assert any(x.endswith("and no newline at the end") for x in lines)
    after = lines[lines.index(f"::{tokens[-1]}::") :]
    assert any(x.startswith("::error title=Cairn (default)") for x in after), result.stdout
    assert LATEST and PR  # the sim's constants: the gate ran on this pull request's baseline


def test_attack__renamed_config_skips_its_baseline__refused(sim: Sim) -> None:
    # With a new name there is no reports/latest/<name>.json at the base commit: "no baseline", green.
    head = sim.commit({"cairn.toml": WORSE_CONFIG.replace('name = "default"', 'name = "default2"')}, "rename")
    sim.open_pull(head)

    result = sim.run("pull_request", sim.pr_event("opened"))

    assert result.code == 2, result.stdout + result.stderr
    assert result.outputs["verdict"] == "refused"
    assert "cairn.toml is named 'default2' in this pull request but 'default' on main" in result.stdout
    [comment] = sim.sticky()  # the base name's sticky comment says so
    assert "the config was renamed" in comment["body"] and "default2" in comment["body"]


def test_action__config_file_new_in_the_pull_request__evaluated_without_baseline_and_says_so(
    sim: Sim,
) -> None:
    extra = CONFIG.replace('name = "default"', 'name = "extra"').replace('"corpus"', '"../corpus"')
    extra = extra.replace('"golden/golden.jsonl"', '"../golden/golden.jsonl"')
    head = sim.commit({"configs/extra.toml": extra}, "a second config")
    sim.open_pull(head)

    result = sim.run(
        "pull_request", sim.pr_event("opened"), inputs={"config": "cairn.toml\nconfigs/extra.toml"}
    )

    assert result.code == 0, result.stdout + result.stderr
    verdicts = {r["config"]: r["verdict"] for r in json.loads(result.outputs["results"])}
    assert verdicts == {"default": "pass", "extra": "no-baseline"}
    [extra_comment] = [c for c in sim.comments() if c["body"].startswith("<!-- cairn:gate config=extra -->")]
    assert "configs/extra.toml is new in this pull request" in extra_comment["body"]


REASON_LABEL = "cairn-override: prompt rewrite, judged by hand"


def test_attack__stale_override_comes_back_on_reopen__not_overridden(sim: Sim) -> None:
    from cairn_action.action.override import read_record

    sim.fake.roles.update({"maint": "maintain"})
    first = sim.commit({"cairn.toml": WORSE_CONFIG}, "A: regresses")
    sim.open_pull(first)
    sim.fake.add_label(PR, REASON_LABEL, "maint", at="2026-11-30T11:00:00Z")
    labeled = sim.run("pull_request", sim.pr_event("labeled", sender="maint", label=REASON_LABEL))
    assert labeled.code == 0 and labeled.outputs["verdict"] == "overridden", labeled.stdout
    # B passes, so the label stays; then the pull request is closed, C (regressing) pushed, reopened.
    sim.move_head(sim.commit({"cairn.toml": CONFIG}, "B: back to the base config"))
    assert sim.run("pull_request", sim.pr_event("synchronize")).code == 0
    regressing = sim.commit({"cairn.toml": WORSE_CONFIG, "notes.md": "again\n"}, "C: regresses again")
    sim.move_head(regressing)

    result = sim.run("pull_request", sim.pr_event("reopened"))

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    [sticky] = sim.sticky()
    assert read_record(sticky["body"]) is None
    assert f"was given for commit {first[:7]}" in sticky["body"]
    assert REASON_LABEL not in sim.fake.labels[PR]  # removed, with the explanation
    assert any("removed an override label" in c["body"] for c in sim.comments())


def _self_label(sim: Sim) -> Any:
    sim.fake.roles.update({"contributor": "write"})
    head = sim.commit({"cairn.toml": WORSE_CONFIG}, "regresses")
    sim.open_pull(head)
    sim.fake.add_label(PR, REASON_LABEL, "contributor", at="2026-11-30T11:00:00Z")
    return sim.run("pull_request", sim.pr_event("labeled", sender="contributor", label=REASON_LABEL))


def _base_policy(sim: Sim, **policy: object) -> None:
    """The base branch's baseline with these `[gate]` settings (the policy every pull request gets)."""
    baseline = json.loads(sim.template.baseline)
    baseline["notes"]["gate_policy"].update(policy)
    files = {LATEST: json.dumps(baseline).encode(), "cairn.toml": CONFIG.encode()}
    sim.fake.seed_commit(files, sha=sim.base_sha, branch="main")


def test_attack__author_overrides_their_own_pull_request__recorded_as_self_override(sim: Sim) -> None:
    from cairn_action.action.override import read_record

    _base_policy(sim, allow_self_override=True)  # a small team's choice; off by default
    result = _self_label(sim)

    assert result.code == 0, result.stdout + result.stderr
    assert result.outputs["verdict"] == "overridden"
    [sticky] = sim.sticky()
    assert "**Self-override:** contributor opened this pull request" in sticky["body"]
    record = read_record(sticky["body"])
    assert record is not None and record.self_override
    report = json.loads((sim.workspace / result.outputs["report-path"]).read_text(encoding="utf-8"))
    assert report["notes"]["overrides"][0]["self_override"] is True
    assert json.loads(result.outputs["override"])["self_override"] is True


def test_attack__author_overrides_their_own_pull_request__forbidden_by_the_baseline(sim: Sim) -> None:
    _base_policy(sim, allow_self_override=False)  # the base branch forbids it (the default)

    result = _self_label(sim)

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    [sticky] = sim.sticky()
    assert "forbids a self-override" in sticky["body"]


def test_attack__pull_request_edits_the_exam__listed_under_the_verdict(sim: Sim) -> None:
    golden = (sim.workspace / "golden" / "golden.jsonl").read_text(encoding="utf-8")
    head = sim.commit({"golden/golden.jsonl": golden + "\n", "README.md": "docs\n"}, "touch the exam")
    sim.open_pull(head)

    result = sim.run("pull_request", sim.pr_event("opened"))

    [sticky] = sim.sticky()
    verdict_at = sticky["body"].index("\n### ")
    listed = sticky["body"].index("This pull request changes files the evaluation reads")
    assert verdict_at < listed < verdict_at + 400, sticky["body"][:800]
    line = sticky["body"][listed:].split("\n", 1)[0]
    assert "golden/golden.jsonl" in line and "README.md" not in line
    assert result.code in (0, 1, 2)


SKIPS_CONFIRMATION = """
# Runs inside the evaluation child, like any target: it turns off the re-asks of changed cases (the
# child's own plan, and the trusted process's plan too, by asking every case once whatever it is told),
# so every broken case has one sample, and one sample never makes a critical loss credible.
import cairn_action.gate.confirm as confirm
import cairn_action.run.evaluation as evaluation

confirm.confirmation_plan = lambda *args, **kwargs: {}
evaluation.sample_plan = lambda cases, *args, **kwargs: {c.id: 1 for c in cases}


def answer(question):
    return {"answer": None, "passages": []}
"""


def _pull_request_with_target(sim: Sim, module: str, source: str) -> Any:
    """Open a pull request whose system is `module.py` (a python: target) and run the Action on it."""
    config = f'target = "python:{module}:answer"\n' + CONFIG
    sim.open_pull(sim.commit({"cairn.toml": config, f"{module}.py": source}, "my system"))
    return sim.run("pull_request", sim.pr_event("opened"))


def test_attack__target_turns_off_the_confirmation_re_asks__incomplete_not_passed(sim: Sim) -> None:
    result = _pull_request_with_target(sim, "sneaky", SKIPS_CONFIRMATION)

    assert result.code == 3, result.stdout + result.stderr
    assert "did not re-ask" in result.stdout and "(1 of 5)" in result.stdout, result.stdout


FORGES_VERDICTS = """
# Runs inside the evaluation child, like any target: it replaces the lexical judge there, so every
# answer, even a wrong one, would be recorded as correct.
import cairn_action.run.judge as judge
from cairn_action.run.models import JudgeVerdict

judge.LexicalJudge.judge = lambda self, case, text: JudgeVerdict(
    name="lexical", rule_version="lexical-1", correct=True, rationale="forged"
)


def answer(question):
    return {"answer": "42", "passages": []}
"""


SKIPS_OWN_CONFIRMATION = """
# Turns off the child's own choice of re-asks only: the trusted process, which judged the answers, asks
# the child for the re-asks its plan needs, and the gate decides on them.
import cairn_action.gate.confirm as confirm

confirm.confirmation_plan = lambda *args, **kwargs: {}


def answer(question):
    return {"answer": None, "passages": []}
"""


def test_attack__target_turns_off_the_childs_re_asks__trusted_process_has_them_made(sim: Sim) -> None:
    result = _pull_request_with_target(sim, "sneaky", SKIPS_OWN_CONFIRMATION)

    assert result.code == 1, result.stdout + result.stderr
    assert "more sample(s)" in result.stdout and "did not re-ask" not in result.stdout, result.stdout
    assert result.outputs["verdict"] == "regression"


def test_attack__target_replaces_the_lexical_judge__answers_judged_again_in_the_trusted_process(
    sim: Sim,
) -> None:
    result = _pull_request_with_target(sim, "forger", FORGES_VERDICTS)

    # The child's forged verdicts are dropped: "42" is judged wrong everywhere, so the gate fails.
    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    kept = (sim.workspace / "cairn-results" / "default" / "run.jsonl").read_text(encoding="utf-8")
    assert '"forged"' not in kept and '"correct":true' not in kept.replace(" ", "")
