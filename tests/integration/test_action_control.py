"""The contemporaneous control in the Action's PR mode (issue 23, action/control.py), end to end through the
real entrypoint, the sandboxed child, PyGithub and the loopback fake GitHub.

The system under test is not deterministic (a python: target, or an HTTP service), answers every case right
on the day the baseline was committed, and on the pull request's day its provider "drifts", whatever the
code: the python target gets every other call wrong, the HTTP service every call to half of the questions.
The pull request itself changes nothing that answers."""

from __future__ import annotations

import json
import shutil
import zlib
from pathlib import Path

import pytest
from action_sim import CONFIG, LATEST, REPO, Sim, Template, cairn, new_sim
from fakes.github_server import FakeGitHub
from loopback import LoopbackServer, Recorded, Reply, Step

pytestmark = pytest.mark.slow

GOLDEN = {
    json.loads(line)["question"]: json.loads(line)
    for line in (REPO / "golden" / "golden.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip()
}


def reply(question: str, wrong: bool) -> dict[str, object]:
    """The golden answer (or an abstention), or, on a wrong call, a wrong figure (or an answer)."""
    case = GOLDEN[question]
    quote = case["support"][0]["quote"] if case.get("support") else ""
    passages = [{"id": f"{case['id']}-p", "text": quote}] if quote else []
    if case.get("expected_answer") is None:
        return (
            {"answer": "Yes, it is.", "passages": passages} if wrong else {"answer": None, "abstained": True}
        )
    return {"answer": "It is 9999 units." if wrong else case["expected_answer"], "passages": passages}


DRIFTING_TARGET = """
import itertools, json, os
from pathlib import Path

GOLDEN = {
    json.loads(line)["question"]: json.loads(line)
    for line in Path("golden/golden.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip()
}
CALLS = itertools.count()


def answer(question):
    case = GOLDEN[question]
    # The provider's bad day: every other call wrong, whatever the code.
    wrong = os.environ.get("DRIFT") == "1" and next(CALLS) % 2 == 0
    quote = case["support"][0]["quote"] if case.get("support") else ""
    passages = [{"id": case["id"] + "-p", "text": quote}] if quote else []
    if case.get("expected_answer") is None:
        return {"answer": "Yes, it is." if wrong else None, "abstained": not wrong, "passages": passages}
    return {"answer": "It is 9999 units." if wrong else case["expected_answer"], "passages": passages}
"""


class DriftingService(LoopbackServer):
    """The user's RAG service behind HTTP (`POST /answer`): right on every call until `drift` is set, then
    wrong on every call for half of the questions (by a stable hash), whoever asks: the base system too."""

    def __init__(self) -> None:
        super().__init__()
        self.drift = False

    def respond(self, request: Recorded, step: Step | None) -> Reply:
        question = request.json["question"]
        wrong = self.drift and zlib.crc32(question.encode()) % 2 == 0
        return Reply(200, json.dumps(reply(question, wrong)))


@pytest.fixture
def sim(template: Template, tmp_path: Path, fake_github: FakeGitHub) -> Sim:
    return new_sim(template, tmp_path, fake_github)


def _baseline(sim: Sim, config: str, files: dict[str, str]) -> None:
    """The base commit: `config` and `files`, with the baseline that config measured (every case asked
    `baseline_samples` times, with no drift), as GitHub serves the base commit."""
    scratch = sim.root / "baseline-run"
    shutil.copytree(sim.workspace, scratch, ignore=shutil.ignore_patterns(".git", ".cairn", "reports"))
    for name, text in {"cairn.toml": config, **files}.items():
        (scratch / name).write_text(text, encoding="utf-8")
    cairn(scratch, "eval", "--no-progress")
    sim.fake.seed_commit(
        {LATEST: (scratch / LATEST).read_bytes(), "cairn.toml": config, **files},
        sha=sim.base_sha,
        branch="main",
    )


def _control(sim: Sim) -> dict[str, object]:
    [path] = (sim.workspace / "cairn-results").glob("*/control.json")
    return json.loads(path.read_text(encoding="utf-8"))["notes"]["control"]


def test_action__python_target_on_a_drifting_provider__probe_moves_as_a_block__incomplete_not_blamed(
    sim: Sim,
) -> None:
    config = 'target = "python:drifting:answer"\n' + CONFIG
    _baseline(sim, config, {"drifting.py": DRIFTING_TARGET})
    sim.open_pull(
        sim.commit({"cairn.toml": config, "drifting.py": DRIFTING_TARGET, "NOTES.md": "x\n"}, "docs")
    )
    result = sim.run(
        "pull_request", sim.pr_event("opened"), inputs={"env": "DRIFT"}, extra_env={"DRIFT": "1"}
    )

    assert (result.code, result.outputs.get("verdict")) == (3, "incomplete"), result.stdout + result.stderr
    [comment] = sim.sticky()
    assert "the environment shifted since the baseline" in comment["body"]
    # The base commit's tree is extracted and its python: target run from there; in this simulation the
    # base commit in git is the template's, which has no drifting.py, so that run fails and the Action
    # falls back to the drift probe, saying why.
    assert (
        "The base system could not be run (its run failed: the evaluation of default failed"
        in comment["body"]
    )
    assert "critical_case_lost" not in json.dumps(
        json.loads((sim.workspace / "cairn-results/default/decision.json").read_text())["decision"]["reasons"]
    )
    note = _control(sim)
    assert note["kind"] == "probe" and note["cases"] == []
    assert sum(not a for row in note["probe"] for a in row["now"]) >= 2
    changed = sum(
        1
        for c in json.loads((sim.workspace / "cairn-results/default/report.json").read_text())["per_case"]
        if c["n_samples"] > 1
    )
    assert 0 < len(note["probe"]) <= 3 * changed  # the probe's cost is bounded by the changed cases
    assert sim.secrets_in_files() == []


def test_action__http_target_on_a_drifting_provider__base_system_reasked__shift_said_and_pr_not_blamed(
    sim: Sim,
) -> None:
    with DriftingService() as service:
        config = f'target = "{service.url}/answer"\n' + CONFIG
        _baseline(sim, config, {})
        before = len(service.requests)
        service.drift = True
        sim.open_pull(sim.commit({"cairn.toml": config, "NOTES.md": "x\n"}, "docs"))
        result = sim.run("pull_request", sim.pr_event("opened"))
        asked = len(service.requests) - before

    assert result.outputs.get("verdict") == "pass", result.stdout + result.stderr
    [comment] = sim.sticky()
    assert "the environment shifted since the baseline" in comment["body"]
    assert "the environment shifted since the baseline, not this PR" in comment["body"]
    note = _control(sim)
    assert note["kind"] == "base" and note["cases"]
    report = json.loads((sim.workspace / "cairn-results/default/report.json").read_text())
    changed = sum(1 for c in report["per_case"] if c["n_samples"] > 1)
    # Every extra call is stated: the candidate's re-asks, the control's asks of the base system (3 per
    # changed case) and the probe's, which takes only what is left of 10 per changed case.
    extra = asked - len(report["per_case"])
    assert note["samples"] == 3 * len(note["cases"]) and len(note["cases"]) == changed
    assert extra == report["notes"]["extra_samples"]["samples"] + note["samples"] + len(note["probe"])
    assert len(note["probe"]) <= max(0, 10 * changed - extra + len(note["probe"]))


def _check(kappa_labels: tuple[list[bool], list[bool]]) -> str:
    from cairn_action.score.judge_check import measure

    human, judge = kappa_labels
    return measure(
        human, judge, judge_name="lexical", labels="labels.jsonl", sha256="0" * 64
    ).model_dump_json()


def test_action__judge_check_at_the_base_commit__shown_and_the_pull_requests_forged_copy_ignored(
    sim: Sim,
) -> None:
    honest = _check(([True, True, True, False, False, False], [True, True, False, False, True, False]))
    forged = _check(([True, False], [True, False]))
    sim.fake.seed_commit(
        {LATEST: sim.template.baseline, "cairn.toml": CONFIG, "cairn.judge-check.json": honest},
        sha=sim.base_sha,
        branch="main",
    )
    sim.open_pull(
        sim.commit({"cairn.judge-check.json": forged, "NOTES.md": "x\n"}, "a better judge, says me")
    )
    result = sim.run("pull_request", sim.pr_event("opened"))

    assert result.outputs.get("verdict") == "pass", result.stdout + result.stderr
    [comment] = sim.sticky()
    assert "judge: lexical, kappa 0.33 on 6 labels" in comment["body"]
    assert "kappa 1.00" not in comment["body"]


# The base system's code reads a file by a relative path; the pull request breaks that file (and stops
# reading it itself) while its own code really gets every other call wrong.
BASE_READS_A_FILE = DRIFTING_TARGET.replace(
    'wrong = os.environ.get("DRIFT") == "1" and next(CALLS) % 2 == 0',
    'wrong = Path("mode.txt").read_text(encoding="utf-8").strip() == "broken" and next(CALLS) % 2 == 0',
)
REALLY_WORSE = DRIFTING_TARGET.replace(
    'wrong = os.environ.get("DRIFT") == "1" and next(CALLS) % 2 == 0', "wrong = next(CALLS) % 2 == 0"
)


def test_attack__pr_breaks_a_file_the_python_base_code_reads__base_runs_in_its_own_tree_loss_blamed(
    sim: Sim, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = 'target = "python:drifting:answer"\n' + CONFIG
    base_files = {"cairn.toml": config, "drifting.py": BASE_READS_A_FILE, "mode.txt": "ok\n"}
    base = sim.commit(base_files, "the system, reading its mode from a file")
    monkeypatch.setattr(Sim, "base_sha", property(lambda self: base))  # this test's base commit, in git
    _baseline(sim, config, {"drifting.py": BASE_READS_A_FILE, "mode.txt": "ok\n"})
    # Were the base system run in the checkout, it would read "broken", move with the candidate, and the
    # control would clear the pull request ("the environment shifted, not this PR").
    sim.open_pull(sim.commit({"drifting.py": REALLY_WORSE, "mode.txt": "broken\n"}, "faster answers"))
    result = sim.run("pull_request", sim.pr_event("opened"))

    assert (result.code, result.outputs.get("verdict")) == (1, "regression"), result.stdout + result.stderr
    note = _control(sim)
    assert note["kind"] == "base" and note["cases"]  # the base system was re-asked, from the base tree
    [comment] = sim.sticky()
    assert "not this PR" not in comment["body"]
    assert sim.secrets_in_files() == []
