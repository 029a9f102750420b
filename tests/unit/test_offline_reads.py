"""What `cairn eval` reads once (issue 27, the offline floor): the run and its scoring share one process, so
the golden set the run read and validated is the one the report scores, not a second read of the file.

The eval runs in a fresh interpreter; an audit hook there counts the opens of golden.jsonl by the golden
set's loader (`golden/load.py`; the check that the project's set is the shipped one compares bytes apart).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from repo_files import sample_project

_CHILD = """
import json, sys
opened = []
def hook(event, args):
    if event == "open" and str(args[0]).endswith("golden.jsonl"):
        frame = sys._getframe(1)
        while frame is not None and not frame.f_code.co_filename.endswith("golden/load.py"):
            frame = frame.f_back
        if frame is not None:
            opened.append(str(args[0]))
sys.addaudithook(hook)
from cairn_action.cli import main
code = main(sys.argv[2:])
json.dump({"code": code, "opened": opened}, open(sys.argv[1], "w"))
"""


def _golden_opens(project: Path, out: Path, *args: str) -> list[str]:
    subprocess.run(
        [sys.executable, "-c", _CHILD, str(out), *args],
        cwd=project,
        check=True,
        capture_output=True,
        timeout=300,
    )
    result = json.loads(out.read_text())
    assert result["code"] == 0
    return result["opened"]


def test_eval__run_then_report__golden_set_read_once(tmp_path: Path) -> None:
    project = sample_project(tmp_path / "project")

    opened = _golden_opens(project, tmp_path / "eval.json", "eval", "--no-progress")

    assert len(opened) == 1 and opened[0].endswith("golden/golden.jsonl")
    assert list((project / "reports" / "latest").glob("*.json"))  # scored and reported from that read

    # `cairn score` of the run's artifact has no run in its process: it reads the set itself.
    artifact = next((project / "reports" / "runs").glob("*.jsonl"))
    opened = _golden_opens(project, tmp_path / "score.json", "score", str(artifact))
    assert len(opened) == 1
