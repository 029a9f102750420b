"""Helpers of `scripts/docker-smoke`'s sealed-set run.

`reword SOURCE OUT`: a golden set of one's own, the shipped one with each question reworded.
`pull EVENT STATE NUMBER BASE HEAD BASELINE`: write the pull request's event and the fake GitHub's state
(the base commit's committed baseline). `check STDOUT API_URL`: the oracle target found no answer and no
key, and the posted comment shows `(sealed)` where expected answers would be."""

import json
import sys
import urllib.request
from pathlib import Path


def pull(event: str, state: str, number: str, base: str, head: str, baseline: str) -> None:
    pr = {
        "number": int(number),
        "head": {"sha": head, "ref": "oracle", "repo": {"full_name": "acme/rag", "fork": False}},
        "base": {"sha": base, "ref": "main", "repo": {"full_name": "acme/rag"}},
        "labels": [],
        "user": {"login": "contributor"},
    }
    payload = {
        "action": "opened",
        "number": int(number),
        "pull_request": pr,
        "sender": {"login": "contributor"},
        "repository": {"full_name": "acme/rag", "default_branch": "main"},
    }
    Path(event).write_text(json.dumps(payload))
    content = Path(baseline).read_text()
    files = [{"ref": base, "path": "reports/latest/default.json", "content": content}]
    Path(state).write_text(
        json.dumps({"pulls": [{"number": int(number), "head_sha": head, "base_sha": base}], "files": files})
    )


def check(stdout: str, api: str) -> None:
    found = [json.loads(x[7:]) for x in Path(stdout).read_text().splitlines() if x.startswith("ORACLE ")]
    assert found and all(f == {"answers_found": 0, "key_in_env": False} for f in found), found
    state = json.load(urllib.request.urlopen(api + "/_fake/state"))
    [body] = [
        c["body"] for c in state["comments"] if c["body"].startswith("<!-- cairn:gate config=default -->")
    ]
    assert "expected: (sealed)" in body and "The golden set is sealed" in body, body[:600]
    print("sealed:", found[0], "| comment:", body.split("\n", 2)[1])


def reword(source: str, out: str) -> None:
    lines = []
    for line in Path(source).read_text().splitlines():
        if line.strip():
            case = json.loads(line)
            case["question"] = case["question"] + " Answer briefly."
            lines.append(json.dumps(case, ensure_ascii=False))
    Path(out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    {"pull": pull, "check": check, "reword": reword}[sys.argv[1]](*sys.argv[2:])
