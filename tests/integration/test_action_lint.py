"""The Action's metadata, image and example workflows pass the linters CI runs, and the linters bite.

check-jsonschema validates action.yml against SchemaStore's vendored `github-action` schema; hadolint
checks the Dockerfile (DL3002 ignored in .hadolint.yaml: docker actions run as root); actionlint checks
the example workflows with `owner/cairn@v1` pointed at this checkout, so their inputs are checked
against action.yml too. All offline.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
EXAMPLES = sorted((REPO / "examples" / "workflows").glob("*.yml"))


def _tool(name: str, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    exe = BIN / name
    if not exe.exists():
        pytest.fail(f"{name} is missing: install the dev extra (`pip install -e '.[dev]'`)")
    return subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_action__action_yml__valid_against_the_github_action_schema(tmp_path: Path) -> None:
    assert (
        _tool("check-jsonschema", "--builtin-schema", "vendor.github-actions", "action.yml").returncode == 0
    )
    broken = tmp_path / "action.yml"
    broken.write_text((REPO / "action.yml").read_text().replace("color: 'green'", "color: 'pink'"))
    done = _tool("check-jsonschema", "--builtin-schema", "vendor.github-actions", str(broken))
    assert done.returncode == 1 and "pink" in done.stdout + done.stderr


def test_action__dockerfile__hadolint_clean(tmp_path: Path) -> None:
    done = _tool("hadolint", "--config", ".hadolint.yaml", "Dockerfile")
    assert done.returncode == 0, done.stdout
    loose = tmp_path / "Dockerfile"
    loose.write_text((REPO / "Dockerfile").read_text().replace("git=1:2.39.*", "git"))
    assert "DL3008" in _tool("hadolint", "--config", ".hadolint.yaml", str(loose)).stdout


def _project(tmp_path: Path, edit: str = "") -> Path:
    """A repository with this action at its root and the examples as its workflows (using `./`)."""
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    for name in ("action.yml", "Dockerfile"):
        shutil.copy(REPO / name, tmp_path / name)
    for example in EXAMPLES:
        text = re.sub(r"[\w-]+/cairn@v1", "./", example.read_text(encoding="utf-8"))
        (tmp_path / ".github" / "workflows" / example.name).write_text(
            text.replace(*edit.split("|")) if edit else text
        )
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    return tmp_path


def test_action__example_workflows__actionlint_clean(tmp_path: Path) -> None:
    assert {p.name for p in EXAMPLES} >= {
        "cairn-pr.yml",
        "cairn-fork-comment.yml",
        "cairn-baseline.yml",
        "release-stamp.yml",
        "cairn-shards.yml",
    }
    done = _tool("actionlint", cwd=_project(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr


def test_action__example_workflows__unknown_input__caught(tmp_path: Path) -> None:
    done = _tool(
        "actionlint", cwd=_project(tmp_path, "working-directory: cairn-results|workdir: cairn-results")
    )
    assert done.returncode == 1 and 'input "workdir" is not defined' in done.stdout
