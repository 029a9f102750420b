"""The oracle target of `scripts/docker-smoke`'s sealed-set run: a `python:` target from the pull request
that reads every JSON file it can for expected answers and looks for the key in its environment. Inside
the image's evaluation child it must find neither (it prints what it found on one `ORACLE` line)."""

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
print("ORACLE " + json.dumps({"answers_found": len(_FOUND), "key_in_env": _KEY}), flush=True)


def answer(question):
    return {"answer": _FOUND.get(question), "passages": []}
