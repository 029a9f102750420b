"""The pull request's checkout is data: secrets, endpoints, the judge and overrides come only from the trusted
side. Each test is an attack a pull request made on the Action (issue 22's table), end to end through the
real entrypoint, PyGithub and the loopback fake GitHub; each worked before the fix the security model
(docs/action/security.md) names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from action_sim import CONFIG, PR, REPOSITORY, WORSE_CONFIG, Sim, Template, new_sim
from fakes.github_server import FakeGitHub
from fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.slow


@pytest.fixture
def sim(template: Template, tmp_path: Path, fake_github: FakeGitHub) -> Sim:
    return new_sim(template, tmp_path, fake_github)


@pytest.fixture
def attacker() -> Any:
    """The pull request author's server: it records whatever reaches it."""
    with FakeOpenAIServer() as server:
        yield server


def _pull(sim: Sim, files: dict[str, str], **run: Any) -> Any:
    sim.open_pull(sim.commit(files, "my change"))
    return sim.run("pull_request", sim.pr_event("opened"), **run)


@pytest.mark.parametrize("variable", ["INPUT_GITHUB-TOKEN", "ACTIONS_RUNTIME_TOKEN"])
def test_attack__config_names_a_runner_token_as_its_api_key__refused_before_anything_runs(
    sim: Sim, variable: str
) -> None:
    target = 'target = "python:leak:answer"\n'
    leak = "import os\nprint('LEAK', sorted(os.environ))\ndef answer(q):\n    return {'answer': None}\n"
    config = target + CONFIG + f'\n[provider]\napi_key_env = "{variable}"\n'
    result = _pull(sim, {"cairn.toml": config, "leak.py": leak})

    assert result.code == 2, result.stdout + result.stderr
    assert f"cairn.toml:11: provider.api_key_env names {variable}, which is one of the runner's own" in (
        result.stdout
    )
    assert "LEAK" not in result.stdout  # the target never ran
    assert sim.secrets_in_files() == []


@pytest.mark.parametrize("variable", ["OPENAI_API_KEY", "INPUT_GITHUB-TOKEN"])
def test_attack__provider_pointed_at_the_authors_server_with_a_key__refused_and_nothing_sent(
    sim: Sim, attacker: FakeOpenAIServer, variable: str
) -> None:
    # No code at all: the built-in OpenAI client would send `Authorization: Bearer <key>` on every case.
    provider = f'\n[provider]\nname = "openai"\nmodel = "gpt-4.1-mini"\nbase_url = "{attacker.base_url}"\n'
    config = CONFIG + provider + f'api_key_env = "{variable}"\n'
    result = _pull(sim, {"cairn.toml": config}, inputs={"env": "OPENAI_API_KEY"})

    assert result.code == 2, result.stdout + result.stderr
    assert attacker.requests == []
    if variable == "OPENAI_API_KEY":
        assert f"would send OPENAI_API_KEY to {attacker.base_url}; cairn.toml at" in result.stdout
        assert "allowed-endpoints" in result.stdout
    else:
        assert "is one of the runner's own variables" in result.stdout


def test_workflow__allowed_endpoints_lists_the_new_server__the_key_goes_there(
    sim: Sim, attacker: FakeOpenAIServer
) -> None:
    # The way forward the refusal names: a maintainer allows the endpoint in the workflow.
    provider = f'\n[provider]\nname = "openai"\nmodel = "gpt-4.1-mini"\nbase_url = "{attacker.base_url}"\n'
    config = CONFIG + provider + 'api_key_env = "OPENAI_API_KEY"\n'
    inputs = {"env": "OPENAI_API_KEY", "allowed-endpoints": attacker.url}
    result = _pull(sim, {"cairn.toml": config}, inputs=inputs)

    assert result.outputs.get("verdict") in ("pass", "regression"), result.stdout + result.stderr
    assert attacker.requests and all(
        r.headers.get("authorization") == f"Bearer {sim.api_key}" for r in attacker.requests
    )


@pytest.mark.parametrize(
    ("listed", "why"),
    [
        ("GITHUB_TOKEN", "is one of the runner's own variables"),
        ("RUNNER_TEMP", "is one of the runner's own variables"),
        ("COPIED_TOKEN", "holds the GitHub token"),
    ],
)
def test_workflow__env_input_grants_a_runner_variable_or_the_token__refused(
    sim: Sim, listed: str, why: str
) -> None:
    sim.open_pull(sim.commit({"README.md": "docs\n"}, "docs"))
    copied = {"COPIED_TOKEN": "x-" + sim.token}  # the step's env copies the token under another name
    result = sim.run("pull_request", sim.pr_event("opened"), inputs={"env": listed}, extra_env=copied)

    assert result.code == 2, result.stdout + result.stderr
    assert f"input 'env': {listed} {why}" in result.stdout
    assert sim.sticky() == []


SETTINGS = """
import os

SEEN = {name: os.environ.get(name) for name in ("RAG_MODEL_URL", "RAG_FLAG", "NOT_GRANTED")}
print("SETTINGS " + repr(sorted((k, v) for k, v in SEEN.items())), flush=True)


def answer(question):
    return {"answer": None, "passages": []}
"""


def test_action__python_target_receives_the_settings_the_env_input_grants_and_no_others(sim: Sim) -> None:
    config = 'target = "python:mysystem:answer"\n' + CONFIG
    sim.open_pull(sim.commit({"cairn.toml": config, "mysystem.py": SETTINGS}, "my system"))
    extra = {"RAG_MODEL_URL": "http://127.0.0.1:9/v1", "RAG_FLAG": "on", "NOT_GRANTED": "x"}
    result = sim.run(
        "pull_request", sim.pr_event("opened"), inputs={"env": "RAG_MODEL_URL\nRAG_FLAG"}, extra_env=extra
    )

    [line] = [x for x in result.stdout.splitlines() if x.startswith("SETTINGS ")]
    assert line == (
        "SETTINGS [('NOT_GRANTED', None), ('RAG_FLAG', 'on'), ('RAG_MODEL_URL', 'http://127.0.0.1:9/v1')]"
    )
    assert result.code in (0, 1), result.stdout + result.stderr


def test_attack__pull_request_points_the_judge_at_its_own_server__base_judge_decides(
    sim: Sim, attacker: FakeOpenAIServer
) -> None:
    # The author's "judge" would grade every answer right; the base branch's judge is the lexical one.
    judge = (
        f'\n[judge]\nname = "llm"\nprovider = "openai"\nmodel = "yes-man"\nbase_url = "{attacker.base_url}"\n'
    )
    result = _pull(sim, {"cairn.toml": WORSE_CONFIG + judge})

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    assert result.outputs["primary-metric"] == "token_f1"  # no grading judge: the base's is lexical
    assert attacker.requests == []
    [sticky] = sim.sticky()
    assert "This pull request changes the judge" in sticky["body"]
    assert "`judge.name`" in sticky["body"] and "applies after merge" in sticky["body"]


PATCHES_THE_LLM_JUDGE = """
# Runs in the evaluation child: every grade the LLM judge gives there would be 1.0.
import cairn_action.providers.llm_judge as llm_judge

llm_judge.LLMJudge.grade = lambda *args, **kwargs: (_ for _ in ()).throw(SystemExit("never judged here"))


def answer(question):
    return {"answer": "42", "passages": []}
"""


def test_attack__target_patches_the_llm_judge_in_its_process__judging_happens_elsewhere(sim: Sim) -> None:
    # The child never judges (the trusted process does), so the patch has nothing to act on: the run
    # completes and "42" is wrong everywhere.
    judge = '\n[judge]\nname = "llm"\nprovider = "openai"\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n'
    config = 'target = "python:patcher:answer"\n' + CONFIG + judge
    result = _pull(sim, {"cairn.toml": config, "patcher.py": PATCHES_THE_LLM_JUDGE})

    assert result.code == 1, result.stdout + result.stderr
    assert "never judged here" not in result.stdout
    assert result.outputs["verdict"] == "regression"


def _workflow_run(sim: Sim, head_sha: str, *, conclusion: str) -> dict[str, Any]:
    return {
        "action": "completed",
        "workflow_run": {
            "id": 555,
            "event": "pull_request",
            "head_sha": head_sha,
            "head_repository": {"full_name": "contributor/rag"},
            "conclusion": conclusion,
            "created_at": "2026-11-30T11:01:00Z",
            "run_attempt": 1,
            "triggering_actor": {"login": "maint"},
            "pull_requests": [],
        },
        "repository": {"full_name": REPOSITORY, "default_branch": "main"},
        "sender": {"login": "maint"},
    }


def _fork_stage(sim: Sim, head: str, *, conclusion: str = "failure") -> Any:
    """The fork's read-only run on `head`, then the trusted comment stage on its artifact."""
    import shutil

    sim.move_head(head)
    sim.fake.read_only = True
    sim.run("pull_request", sim.pr_event("synchronize"))
    sim.fake.read_only = False
    base = sim.root / f"base-{head[:7]}"
    shutil.copytree(sim.workspace / "cairn-results", base / "artifact")
    return sim.run(
        "workflow_run",
        _workflow_run(sim, head, conclusion=conclusion),
        workspace=base,
        inputs={"working-directory": "artifact", "status": "true"},
    )


def test_attack__fork_pushes_a_worse_head_after_the_label__override_stays_with_the_named_head(
    sim: Sim,
) -> None:
    label = "cairn-override: known flake"
    head_a = sim.commit({"cairn.toml": CONFIG + "\n[retrieval]\ntop_k = 4\n"}, "a small change")
    sim.open_pull(head_a, fork=True)
    sim.fake.roles["maint"] = "maintain"
    sim.fake.add_label(PR, label, "maint", at="2026-11-30T11:00:00Z")
    sim.fake.add_comment(PR, f"/cairn-override {head_a} known flake", "maint", at="2026-11-30T11:00:30Z")
    first = _fork_stage(sim, head_a)
    assert first.outputs["verdict"] in ("overridden", "pass"), first.stdout

    head_b = sim.commit({"cairn.toml": WORSE_CONFIG}, "much worse")
    # Any later event the maintainer triggers (the fork's workflow picks its triggers) within minutes.
    second = _fork_stage(sim, head_b, conclusion="success")  # continue-on-error in the fork's workflow

    assert second.outputs["verdict"] == "regression", second.stdout
    statuses = [s for s in sim.fake.statuses if s["sha"] == head_b]
    assert statuses and statuses[-1]["state"] == "failure"
    assert "the status follows the gate" in second.stdout
    [sticky] = sim.sticky()
    body = sticky["body"]
    assert f"/cairn-override {head_b}" in body, body[body.find("label") :][:1500]


def test_attack__author_with_write_role_overrides_their_own_pull_request__refused_by_default(
    sim: Sim,
) -> None:
    label = "cairn-override: trust me"
    sim.open_pull(sim.commit({"cairn.toml": WORSE_CONFIG}, "worse"))
    sim.fake.roles["contributor"] = "write"
    sim.fake.add_label(PR, label, "contributor", at="2026-11-30T11:00:00Z")

    result = sim.run("pull_request", sim.pr_event("labeled", sender="contributor", label=label))

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    [sticky] = sim.sticky()
    assert "forbids a self-override" in sticky["body"]
    assert json.dumps(result.outputs.get("override", "")) == '""'


def _base_config(sim: Sim, config: str) -> None:
    """The base commit's cairn.toml, as GitHub serves it (the baseline beside it is unchanged)."""
    from action_sim import LATEST

    files = {LATEST: sim.template.baseline, "cairn.toml": config}
    sim.fake.seed_commit(files, sha=sim.base_sha, branch="main")


def test_action__llm_system_with_its_key__runs_against_the_base_branchs_endpoint(sim: Sim) -> None:
    with FakeOpenAIServer(api_key=sim.api_key) as llm:
        provider = f'\n[provider]\nname = "openai"\nmodel = "gpt-4.1-mini"\nbase_url = "{llm.base_url}"\n'
        config = CONFIG + provider + 'api_key_env = "OPENAI_API_KEY"\n'
        _base_config(sim, config)
        result = _pull(
            sim, {"cairn.toml": config + "\n[retrieval]\ntop_k = 4\n"}, inputs={"env": "OPENAI_API_KEY"}
        )

    assert result.outputs.get("verdict") in ("pass", "regression"), result.stdout + result.stderr
    assert len(llm.requests) >= 72  # every case answered by the model, with the granted key
    assert sim.secrets_in_files() == []


ENV_NAMES = """
import os

print("ENV " + ",".join(sorted(k for k in os.environ if k.endswith("_KEY"))), flush=True)


def answer(question):
    return {"answer": "42", "passages": []}
"""


def test_action__base_branchs_llm_judge__judges_in_the_trusted_process_with_a_key_the_target_never_sees(
    sim: Sim,
) -> None:
    judge_key = "sk-judge-" + "9" * 24
    with FakeOpenAIServer(api_key=judge_key) as judge_api:
        judge = (
            '\n[judge]\nname = "llm"\nprovider = "openai"\nmodel = "judge-m"\n'
            f'base_url = "{judge_api.base_url}"\napi_key_env = "JUDGE_KEY"\n'
        )
        _base_config(sim, CONFIG + judge)
        config = 'target = "python:mysystem:answer"\n' + CONFIG + judge
        sim.open_pull(sim.commit({"cairn.toml": config, "mysystem.py": ENV_NAMES}, "my system"))
        result = sim.run(
            "pull_request",
            sim.pr_event("opened"),
            inputs={"env": "OPENAI_API_KEY"},
            extra_env={"JUDGE_KEY": judge_key},
        )
        graded = len(judge_api.requests)

    [line] = {x for x in result.stdout.splitlines() if x.startswith("ENV ")}
    assert line == "ENV OPENAI_API_KEY"  # the judge's key stayed with the trusted process
    assert graded > 0, result.stdout + result.stderr  # "42" was graded by the base branch's LLM judge
    assert result.outputs["primary-metric"] == "judge_score"
    assert result.code == 1 and result.outputs["verdict"] == "regression"
    assert sim.secrets_in_files() == []
