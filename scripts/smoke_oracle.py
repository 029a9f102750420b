"""The oracle target of `scripts/docker-smoke`'s sealed-set run: a `python:` target from the pull request
that reads every JSON file it can for expected answers and looks for the key in its environment. Inside
the image's evaluation child it must find neither (it prints what it found on one `ORACLE` line, and
an `ORACLE-HIT` line for each question it could answer)."""

import json
import os
from pathlib import Path

_FOUND = {}
for path in Path("/").rglob("*.json*"):
    try:
        for line in path.read_text(errors="ignore").splitlines():
            if '"expected_answer"' in line:
                case = json.loads(line)
                _FOUND[case["question"]] = case["expected_answer"]
    except Exception:  # an attacker reads what it can
        continue
_KEY = any(v.startswith("AGE-SECRET-KEY-1") for v in os.environ.values())
# Public sets (the image ships the sample's) hold expected answers too: what counts is a hit on the
# questions asked, which are the team's own.
print("ORACLE " + json.dumps({"expected_answers_seen": len(_FOUND), "key_in_env": _KEY}), flush=True)


def answer(question):
    if question in _FOUND:
        print("ORACLE-HIT " + json.dumps(question), flush=True)
    return {"answer": _FOUND.get(question), "passages": []}
