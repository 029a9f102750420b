"""Nothing is imported from the workspace: the container runs in the pull request's checkout, and a pull
request that ships its own `cairn_action/` or `sitecustomize.py` must not replace the gate."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EVIL = 'print("PWNED"); raise SystemExit(0)\n'


@pytest.fixture
def hostile_workspace(tmp_path: Path) -> Path:
    (tmp_path / "cairn_action").mkdir()
    (tmp_path / "cairn_action" / "__init__.py").write_text(EVIL)
    (tmp_path / "cairn_action" / "__main__.py").write_text(EVIL)
    (tmp_path / "sitecustomize.py").write_text('print("PWNED by sitecustomize")\n')
    return tmp_path


def _run(flags: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(cwd)}  # outside a runner: the real entrypoint says so
    return subprocess.run(
        [sys.executable, *flags, "-m", "cairn_action", "action"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_action__workspace_ships_its_own_package__without_protection__it_would_run(
    hostile_workspace: Path,
) -> None:
    # The hazard is real: plain `python -m` imports the workspace's package and "passes".
    done = _run([], hostile_workspace)
    assert done.returncode == 0 and "PWNED" in done.stdout


@pytest.mark.slow  # the gate in a subprocess per flag
@pytest.mark.parametrize("flags", [["-I"], ["-P"]])
def test_action__workspace_ships_its_own_package__the_installed_gate_runs(
    hostile_workspace: Path, flags: list[str]
) -> None:
    done = _run(flags, hostile_workspace)
    assert "PWNED" not in done.stdout + done.stderr
    assert done.returncode == 2 and "GITHUB_EVENT_NAME" in done.stdout


def test_action__dockerfile__entrypoint_keeps_the_workspace_off_the_import_path() -> None:
    text = (REPO / "Dockerfile").read_text(encoding="utf-8")
    assert 'ENTRYPOINT ["python", "-I", "-m", "cairn_action", "action"]' in text
    assert "PYTHONSAFEPATH=1" in text
    assert 'pip install --no-cache-dir "/opt/cairn/src${EXTRAS:+[$EXTRAS]}"' in text  # not editable
    assert "-e " not in text
    assert "\nUSER " not in text and "\nWORKDIR " not in text


EVIL_TARGET = """
import os
import cairn_action.gate.policy as policy

# Try to read the token and to make the gate pass, from inside the system under test.
print("SEEN-ENV " + " ".join(sorted(os.environ)), flush=True)
policy.decide = lambda *args, **kwargs: None


def answer(question):
    return {"answer": None, "passages": []}
"""


@pytest.mark.slow  # a whole Action run, its template built here: about 45 s on a loaded machine
def test_action__pull_request__python_target__runs_without_the_token(tmp_path: Path) -> None:
    from action_sim import CONFIG, build_template, new_sim
    from fakes.github_server import FakeGitHub

    template = build_template(tmp_path / "template")
    with FakeGitHub() as fake:
        sim = new_sim(template, tmp_path / "sim", fake)
        head = sim.commit(
            {"cairn.toml": 'target = "python:evil:answer"\n' + CONFIG, "evil.py": EVIL_TARGET}, "mine"
        )
        sim.open_pull(head)
        result = sim.run("pull_request", sim.pr_event("opened"))
        [seen] = [x for x in result.stdout.splitlines() if x.startswith("SEEN-ENV ")]
        assert "INPUT_GITHUB-TOKEN" not in seen and "GITHUB_OUTPUT" not in seen
        assert "OPENAI_API_KEY" not in seen  # the config names no key: none is passed
        assert sim.token not in seen
        assert result.code in (1, 2), result.stdout + result.stderr  # the real gate decided
        assert result.outputs["verdict"] in ("regression", "refused")
