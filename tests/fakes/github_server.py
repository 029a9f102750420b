"""A stateful fake of the GitHub REST API on loopback, for real PyGithub over real HTTP.

It keeps state (pull requests, comments, labels and their events, collaborators' roles, file contents per
commit, commit statuses, releases), answers the subset of endpoints Cairn uses with GitHub's JSON shapes,
records every request for assertions, and can inject faults (a 502, a secondary rate limit with
Retry-After) for the next matching requests. It binds to 127.0.0.1 only.

Run standalone for the Docker smoke test: `python tests/fakes/github_server.py --state state.json` prints
`listening on http://127.0.0.1:PORT` and serves until killed; `GET /_fake/state` dumps the state.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

BOT = {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}


def _blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _user(login: str) -> dict[str, Any]:
    uid = int(hashlib.sha256(login.encode()).hexdigest()[:6], 16)
    return {"login": login, "id": uid, "type": "Bot" if login.endswith("[bot]") else "User"}


@dataclass
class Fault:
    method: str
    path_pattern: str
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] = field(default_factory=dict)
    times: int = 1


@dataclass
class Barrier:
    """Hold the first `parties` matching requests until all of them have arrived (forces a race)."""

    method: str
    path_pattern: str
    barrier: threading.Barrier
    remaining: int


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


class FakeGitHub:
    """The state, plus a server thread. Use as a context manager or call start()/stop()."""

    def __init__(self, owner: str = "acme", repo: str = "rag", token: str | None = None) -> None:
        self.owner, self.repo = owner, repo
        self.full_name = f"{owner}/{repo}"
        self.token = token
        self.lock = threading.RLock()
        self.pulls: dict[int, dict[str, Any]] = {}
        self.comments: dict[int, dict[str, Any]] = {}  # id -> comment (with "issue_number")
        self.labels: dict[int, list[str]] = {}
        self.events: dict[int, list[dict[str, Any]]] = {}
        self.roles: dict[str, str] = {}  # login -> admin|maintain|write|triage|read
        self.files: dict[str, dict[str, bytes]] = {}  # ref (sha or branch) -> path -> content
        self.statuses: list[dict[str, Any]] = []
        self.pull_files: dict[int, list[str]] = {}  # number -> the paths the pull request changes
        self.releases: dict[int, dict[str, Any]] = {}
        self.assets: dict[int, dict[str, Any]] = {}  # id -> asset (with "release_id" and its "data" bytes)
        self.faults: list[Fault] = []
        self.barriers: list[Barrier] = []
        self.requests: list[Recorded] = []
        # Git data: commits (sha -> {"tree", "parents", "message"}), trees (sha -> {path: bytes}),
        # refs ("heads/main" -> commit sha). The contents API reads through them.
        self.commits: dict[str, dict[str, Any]] = {}
        self.trees: dict[str, dict[str, bytes]] = {}
        self.refs: dict[str, str] = {}
        self.comment_author: dict[str, Any] = BOT
        self.read_only = False
        """A fork pull request's token: every write answers 403 "Resource not accessible by integration"."""
        self._next_id = 100
        self._server: ThreadingHTTPServer | None = None

    # ----- state helpers for tests -----
    def next_id(self) -> int:
        with self.lock:
            self._next_id += 1
            return self._next_id

    def add_pull(
        self,
        number: int,
        *,
        head_sha: str,
        base_sha: str,
        base_ref: str = "main",
        head_ref: str = "feature",
        fork: bool = False,
        author: str = "contributor",
        labels: list[str] | None = None,
        merged: bool = False,
        merge_commit_sha: str | None = None,
    ) -> None:
        head_repo = f"{author}/{self.repo}" if fork else self.full_name
        self.pulls[number] = {
            "number": number,
            "state": "closed" if merged else "open",
            "merged": merged,
            "title": f"PR {number}",
            "user": _user(author),
            "merge_commit_sha": merge_commit_sha,
            "head": {"sha": head_sha, "ref": head_ref, "repo": {"full_name": head_repo, "fork": fork}},
            "base": {"sha": base_sha, "ref": base_ref, "repo": {"full_name": self.full_name, "fork": False}},
        }
        self.labels[number] = list(labels or [])
        self.events.setdefault(number, [])

    def add_label(self, number: int, name: str, actor: str, at: str = "2026-11-30T10:00:00Z") -> None:
        with self.lock:
            if name not in self.labels.setdefault(number, []):
                self.labels[number].append(name)
            self.events.setdefault(number, []).append(
                {
                    "id": self.next_id(),
                    "event": "labeled",
                    "actor": _user(actor),
                    "created_at": at,
                    "label": {"name": name, "color": "ededed"},
                }
            )

    def remove_label_as(self, number: int, name: str, actor: str, at: str = "2026-11-30T10:30:00Z") -> None:
        with self.lock:
            if name in self.labels.get(number, []):
                self.labels[number].remove(name)
            self.events.setdefault(number, []).append(
                {
                    "id": self.next_id(),
                    "event": "unlabeled",
                    "actor": _user(actor),
                    "created_at": at,
                    "label": {"name": name, "color": "ededed"},
                }
            )

    def add_comment(self, number: int, body: str, author: str, at: str = "2026-11-30T10:00:00Z") -> int:
        with self.lock:
            cid = self.next_id()
            self.comments[cid] = self._comment_json(cid, number, body, _user(author))
            self.comments[cid]["created_at"] = self.comments[cid]["updated_at"] = at
            return cid

    def seed_commit(
        self,
        files: dict[str, bytes | str],
        *,
        sha: str | None = None,
        parents: tuple[str, ...] = (),
        branch: str | None = None,
        message: str = "seed",
    ) -> str:
        """A commit whose tree is exactly `files` (use the real git SHAs of a test repository to keep
        the fake and the checkout in step); `branch` points at it."""
        with self.lock:
            tree = {k: (v.encode() if isinstance(v, str) else v) for k, v in files.items()}
            tree_sha = _tree_sha(tree)
            self.trees[tree_sha] = tree
            sha = sha or hashlib.sha1(f"{tree_sha}{parents}{message}".encode()).hexdigest()
            self.commits[sha] = {"tree": tree_sha, "parents": list(parents), "message": message}
            if branch:
                self.refs[f"heads/{branch}"] = sha
            return sha

    def tree_at(self, ref: str) -> dict[str, bytes] | None:
        """The files at a branch or commit known to the git data store."""
        sha = self.refs.get(f"heads/{ref}", ref)
        commit = self.commits.get(sha)
        return None if commit is None else self.trees[commit["tree"]]

    def barrier(self, method: str, path_pattern: str, parties: int = 2, timeout: float = 30.0) -> None:
        self.barriers.append(
            Barrier(method, path_pattern, threading.Barrier(parties, timeout=timeout), parties)
        )

    def put_file(self, ref: str, path: str, content: bytes | str) -> None:
        data = content.encode() if isinstance(content, str) else content
        self.files.setdefault(ref, {})[path] = data

    def add_release(
        self,
        tag: str,
        body: str = "",
        *,
        draft: bool = False,
        prerelease: bool = False,
        author: str = "maintainer",
        target: str = "main",
        created_at: str = "2026-11-01T00:00:00Z",
    ) -> int:
        rid = self.next_id()
        self.releases[rid] = {
            "id": rid,
            "tag_name": tag,
            "name": tag,
            "body": body,
            "draft": draft,
            "prerelease": prerelease,
            "target_commitish": target,
            "author": _user(author),
            "created_at": created_at,
            "published_at": None if draft else created_at,
        }
        return rid

    def blobs_by_sha(self) -> dict[str, bytes]:
        """Every file the fake holds, by its git blob SHA (what the contents API reports as `sha`)."""
        found: dict[str, bytes] = {}
        for files in [*self.trees.values(), *self.files.values()]:
            for data in files.values():
                found[_blob_sha(data)] = data
        return found

    def issue_comments(self, number: int) -> list[dict[str, Any]]:
        return [c for c in self.comments.values() if c["issue_number"] == number]

    def inject(
        self,
        method: str,
        path_pattern: str,
        status: int,
        *,
        times: int = 1,
        headers: dict[str, str] | None = None,
        message: str = "injected fault",
    ) -> None:
        self.faults.append(Fault(method, path_pattern, status, headers or {}, {"message": message}, times))

    # ----- server -----
    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeGitHub:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ----- JSON shapes -----
    def _comment_json(self, cid: int, number: int, body: str, user: dict[str, Any]) -> dict[str, Any]:
        base = f"{self.url}/repos/{self.full_name}"
        return {
            "id": cid,
            "issue_number": number,
            "body": body,
            "user": user,
            "url": f"{base}/issues/comments/{cid}",
            "html_url": f"https://github.example/{self.full_name}/pull/{number}#issuecomment-{cid}",
            "created_at": "2026-11-30T10:00:00Z",
            "updated_at": "2026-11-30T10:00:00Z",
        }

    def repo_json(self) -> dict[str, Any]:
        return {
            "id": 1,
            "name": self.repo,
            "full_name": self.full_name,
            "owner": _user(self.owner),
            "default_branch": "main",
            "url": f"{self.url}/repos/{self.full_name}",
            "private": False,
        }

    def pull_json(self, number: int) -> dict[str, Any]:
        pr = dict(self.pulls[number])
        pr["url"] = f"{self.url}/repos/{self.full_name}/pulls/{number}"
        pr["issue_url"] = f"{self.url}/repos/{self.full_name}/issues/{number}"
        pr["labels"] = [{"name": n} for n in self.labels.get(number, [])]
        return pr

    def issue_json(self, number: int) -> dict[str, Any]:
        pr = self.pulls[number]
        return {
            "number": number,
            "title": pr["title"],
            "state": pr["state"],
            "user": pr["user"],
            "url": f"{self.url}/repos/{self.full_name}/issues/{number}",
            "labels": [{"name": n} for n in self.labels.get(number, [])],
            "pull_request": {"url": f"{self.url}/repos/{self.full_name}/pulls/{number}"},
        }

    def release_json(self, rid: int) -> dict[str, Any]:
        rel = dict(self.releases[rid])
        rel["url"] = f"{self.url}/repos/{self.full_name}/releases/{rid}"
        rel["html_url"] = f"https://github.example/{self.full_name}/releases/tag/{rel['tag_name']}"
        rel["assets_url"] = f"{rel['url']}/assets"
        # GitHub answers with uploads.github.com; here the uploads go to the same loopback server.
        rel["upload_url"] = f"{rel['url']}/assets{{?name,label}}"
        rel["assets"] = [self.asset_json(a) for a in self.release_assets(rid)]
        return rel

    def release_assets(self, rid: int) -> list[int]:
        return sorted(a for a, asset in self.assets.items() if asset["release_id"] == rid)

    def asset_named(self, rid: int, name: str) -> dict[str, Any] | None:
        """A release's asset by name, with its uploaded bytes under "data" (for assertions)."""
        return next(
            (self.assets[a] for a in self.release_assets(rid) if self.assets[a]["name"] == name), None
        )

    def asset_json(self, aid: int) -> dict[str, Any]:
        asset = self.assets[aid]
        tag = self.releases[asset["release_id"]]["tag_name"]
        return {
            "id": aid,
            "url": f"{self.url}/repos/{self.full_name}/releases/assets/{aid}",
            "browser_download_url": f"https://github.example/{self.full_name}/releases/download/{tag}/"
            + asset["name"],
            "name": asset["name"],
            "label": asset["label"],
            "state": "uploaded",
            "content_type": asset["content_type"],
            "size": len(asset["data"]),
            "download_count": 0,
            "created_at": "2026-11-30T12:00:00Z",
            "updated_at": "2026-11-30T12:00:00Z",
            "uploader": BOT,
        }


Route = tuple[str, re.Pattern[str], Callable[..., tuple[int, Any]]]


class _Handler(BaseHTTPRequestHandler):
    fake: FakeGitHub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _dispatch(self, method: str) -> None:
        fake = self.fake
        parts = urlsplit(self.path)
        path = unquote(parts.path)
        if path.startswith("/api/v3"):  # GitHub Enterprise style base URL
            path = path[len("/api/v3") :]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", "replace")
        with fake.lock:
            fake.requests.append(Recorded(method, path, parse_qs(parts.query), dict(self.headers), body))
            for fault in fake.faults:
                if fault.times > 0 and fault.method == method and re.fullmatch(fault.path_pattern, path):
                    fault.times -= 1
                    return self._send(fault.status, fault.body, fault.headers)
            waiting = None
            for gate in fake.barriers:
                if gate.remaining > 0 and gate.method == method and re.fullmatch(gate.path_pattern, path):
                    gate.remaining -= 1
                    waiting = gate.barrier
                    break
        if waiting is not None:
            try:
                waiting.wait()
            except threading.BrokenBarrierError:
                pass
        if fake.token is not None and self.headers.get("Authorization") not in (
            f"token {fake.token}",
            f"Bearer {fake.token}",
        ):
            return self._send(401, {"message": "Bad credentials"})
        if fake.read_only and method != "GET":
            return self._send(
                403,
                {"message": "Resource not accessible by integration"},
                {"x-accepted-github-permissions": "issues=write; pull_requests=write"},
            )
        for verb, pattern, func in _ROUTES:
            match = pattern.fullmatch(path) if verb == method else None
            if match:
                with fake.lock:
                    status, payload = func(
                        fake,
                        *match.groups(),
                        body=body,
                        raw=raw,
                        query=parse_qs(parts.query),
                        headers=self.headers,
                    )
                return self._send(status, payload)
        return self._send(404, {"message": "Not Found", "path": path})

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = b"" if status == 204 else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if data:
            self.wfile.write(data)

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def do_PUT(self) -> None:
        self._dispatch("PUT")


def _repo_guard(fake: FakeGitHub, owner: str, repo: str) -> bool:
    return f"{owner}/{repo}" == fake.full_name


def _get_repo(fake: FakeGitHub, owner: str, repo: str, **_: Any) -> tuple[int, Any]:
    return (200, fake.repo_json()) if _repo_guard(fake, owner, repo) else (404, {"message": "Not Found"})


def _get_pull(fake: FakeGitHub, owner: str, repo: str, number: str, **_: Any) -> tuple[int, Any]:
    n = int(number)
    return (200, fake.pull_json(n)) if n in fake.pulls else (404, {"message": "Not Found"})


def _get_issue(fake: FakeGitHub, owner: str, repo: str, number: str, **_: Any) -> tuple[int, Any]:
    n = int(number)
    return (200, fake.issue_json(n)) if n in fake.pulls else (404, {"message": "Not Found"})


def _list_comments(fake: FakeGitHub, owner: str, repo: str, number: str, **_: Any) -> tuple[int, Any]:
    return 200, sorted(fake.issue_comments(int(number)), key=lambda c: c["id"])


def _create_comment(
    fake: FakeGitHub, owner: str, repo: str, number: str, body: Any, **_: Any
) -> tuple[int, Any]:
    text = (body or {}).get("body", "")
    if len(text) > 65536:
        return 422, {
            "message": "Validation Failed",
            "errors": [{"message": "body is too long (maximum is 65536 characters)"}],
        }
    n = int(number)
    if n not in fake.pulls:
        return 404, {"message": "Not Found"}
    cid = fake.next_id()
    fake.comments[cid] = fake._comment_json(cid, n, text, fake.comment_author)
    return 201, fake.comments[cid]


def _get_comment(fake: FakeGitHub, owner: str, repo: str, cid: str, **_: Any) -> tuple[int, Any]:
    c = fake.comments.get(int(cid))
    return (200, c) if c else (404, {"message": "Not Found"})


def _edit_comment(fake: FakeGitHub, owner: str, repo: str, cid: str, body: Any, **_: Any) -> tuple[int, Any]:
    c = fake.comments.get(int(cid))
    if c is None:
        return 404, {"message": "Not Found"}
    text = (body or {}).get("body", "")
    if len(text) > 65536:
        return 422, {
            "message": "Validation Failed",
            "errors": [{"message": "body is too long (maximum is 65536 characters)"}],
        }
    c["body"] = text
    c["updated_at"] = "2026-11-30T10:05:00Z"
    return 200, c


def _delete_comment(fake: FakeGitHub, owner: str, repo: str, cid: str, **_: Any) -> tuple[int, Any]:
    return (204, None) if fake.comments.pop(int(cid), None) else (404, {"message": "Not Found"})


def _list_events(fake: FakeGitHub, owner: str, repo: str, number: str, **_: Any) -> tuple[int, Any]:
    return 200, list(fake.events.get(int(number), []))


def _pull_files(fake: FakeGitHub, owner: str, repo: str, number: str, **_: Any) -> tuple[int, Any]:
    n = int(number)
    if n not in fake.pulls:
        return 404, {"message": "Not Found"}
    files = []
    for path in fake.pull_files.get(n, []):
        data = path.encode()
        files.append(
            {
                "sha": _blob_sha(data),
                "filename": path,
                "status": "modified",
                "additions": 1,
                "deletions": 0,
                "changes": 1,
                "blob_url": f"https://github.example/{fake.full_name}/blob/x/{path}",
                "raw_url": f"https://github.example/{fake.full_name}/raw/x/{path}",
                "contents_url": f"{fake.url}/repos/{fake.full_name}/contents/{path}",
            }
        )
    return 200, files


def _list_labels(fake: FakeGitHub, owner: str, repo: str, number: str, **_: Any) -> tuple[int, Any]:
    return 200, [{"name": n, "color": "ededed"} for n in fake.labels.get(int(number), [])]


def _remove_label(
    fake: FakeGitHub, owner: str, repo: str, number: str, name: str, **_: Any
) -> tuple[int, Any]:
    labels = fake.labels.get(int(number), [])
    if name not in labels:
        return 404, {"message": "Label does not exist"}
    labels.remove(name)
    fake.events.setdefault(int(number), []).append(
        {
            "id": fake.next_id(),
            "event": "unlabeled",
            "actor": BOT,
            "created_at": "2026-11-30T10:06:00Z",
            "label": {"name": name, "color": "ededed"},
        }
    )
    return 200, [{"name": n} for n in labels]


def _permission(fake: FakeGitHub, owner: str, repo: str, login: str, **_: Any) -> tuple[int, Any]:
    role = fake.roles.get(login, "read")
    permission = {"maintain": "write", "triage": "read"}.get(role, role)
    return 200, {"permission": permission, "role_name": role, "user": _user(login)}


def _contents(
    fake: FakeGitHub, owner: str, repo: str, path: str, query: dict[str, list[str]], **_: Any
) -> tuple[int, Any]:
    ref = (query.get("ref") or ["main"])[0]
    tree = fake.tree_at(ref)
    data = tree.get(path) if tree is not None else fake.files.get(ref, {}).get(path)
    if data is None:
        return 404, {"message": "Not Found"}
    big = len(data) > 1024 * 1024  # over 1 MB GitHub leaves content empty: use the blob API
    return 200, {
        "type": "file",
        "encoding": "none" if big else "base64",
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "size": len(data),
        "sha": _blob_sha(data),
        "content": "" if big else base64.b64encode(data).decode(),
        "url": f"{fake.url}/repos/{fake.full_name}/contents/{path}?ref={ref}",
    }


def _create_status(fake: FakeGitHub, owner: str, repo: str, sha: str, body: Any, **_: Any) -> tuple[int, Any]:
    status = {"id": fake.next_id(), "sha": sha, **(body or {})}
    fake.statuses.append(status)
    return 201, status


def _get_commit(fake: FakeGitHub, owner: str, repo: str, sha: str, **_: Any) -> tuple[int, Any]:
    return 200, {
        "sha": sha,
        "url": f"{fake.url}/repos/{fake.full_name}/commits/{sha}",
        "commit": {"message": "commit"},
        "files": [],
        "parents": [],
    }


def _list_releases(fake: FakeGitHub, owner: str, repo: str, **_: Any) -> tuple[int, Any]:
    ordered = sorted(fake.releases.values(), key=lambda r: (r["created_at"], r["id"]), reverse=True)
    return 200, [fake.release_json(r["id"]) for r in ordered]


def _get_release(fake: FakeGitHub, owner: str, repo: str, rid: str, **_: Any) -> tuple[int, Any]:
    return (
        (200, fake.release_json(int(rid))) if int(rid) in fake.releases else (404, {"message": "Not Found"})
    )


def _release_by_tag(fake: FakeGitHub, owner: str, repo: str, tag: str, **_: Any) -> tuple[int, Any]:
    for rel in fake.releases.values():
        if rel["tag_name"] == tag and not rel["draft"]:  # GitHub does not find drafts by tag
            return 200, fake.release_json(rel["id"])
    return 404, {"message": "Not Found"}


def _edit_release(fake: FakeGitHub, owner: str, repo: str, rid: str, body: Any, **_: Any) -> tuple[int, Any]:
    rel = fake.releases.get(int(rid))
    if rel is None:
        return 404, {"message": "Not Found"}
    for key in ("name", "body", "draft", "prerelease", "tag_name", "target_commitish"):
        if key in (body or {}):
            rel[key] = body[key]
    return 200, fake.release_json(int(rid))


def _list_assets(fake: FakeGitHub, owner: str, repo: str, rid: str, **_: Any) -> tuple[int, Any]:
    if int(rid) not in fake.releases:
        return 404, {"message": "Not Found"}
    return 200, [fake.asset_json(a) for a in fake.release_assets(int(rid))]


def _upload_asset(
    fake: FakeGitHub,
    owner: str,
    repo: str,
    rid: str,
    raw: bytes,
    query: dict[str, list[str]],
    headers: Any,
    **_: Any,
) -> tuple[int, Any]:
    """The uploads endpoint: the body is the file's bytes, the name a query parameter; GitHub refuses a
    second asset of one name (422 already_exists)."""
    name = (query.get("name") or [""])[0]
    if int(rid) not in fake.releases:
        return 404, {"message": "Not Found"}
    if not name:
        return 422, {"message": "Validation Failed", "errors": [{"field": "name", "code": "missing"}]}
    if fake.asset_named(int(rid), name) is not None:
        return 422, {
            "message": "Validation Failed",
            "errors": [{"resource": "ReleaseAsset", "code": "already_exists", "field": "name"}],
        }
    aid = fake.next_id()
    fake.assets[aid] = {
        "release_id": int(rid),
        "name": name,
        "label": (query.get("label") or [""])[0],
        "content_type": headers.get("Content-Type") or "application/octet-stream",
        "data": raw,
    }
    return 201, fake.asset_json(aid)


def _delete_asset(fake: FakeGitHub, owner: str, repo: str, aid: str, **_: Any) -> tuple[int, Any]:
    return (204, None) if fake.assets.pop(int(aid), None) is not None else (404, {"message": "Not Found"})


def _tree_sha(files: dict[str, bytes]) -> str:
    digest = hashlib.sha1()
    for path in sorted(files):
        digest.update(path.encode() + b"\0" + hashlib.sha1(files[path]).hexdigest().encode())
    return digest.hexdigest()


def _ref_json(fake: FakeGitHub, ref: str) -> dict[str, Any]:
    base = f"{fake.url}/repos/{fake.full_name}/git"
    sha = fake.refs[ref]
    return {
        "ref": f"refs/{ref}",
        "url": f"{base}/refs/{ref}",
        "object": {"sha": sha, "type": "commit", "url": f"{base}/commits/{sha}"},
    }


def _commit_json(fake: FakeGitHub, sha: str) -> dict[str, Any]:
    base = f"{fake.url}/repos/{fake.full_name}/git"
    commit = fake.commits[sha]
    return {
        "sha": sha,
        "url": f"{base}/commits/{sha}",
        "message": commit["message"],
        "tree": {"sha": commit["tree"], "url": f"{base}/trees/{commit['tree']}"},
        "parents": [{"sha": p, "url": f"{base}/commits/{p}"} for p in commit["parents"]],
    }


def _get_ref(fake: FakeGitHub, owner: str, repo: str, ref: str, **_: Any) -> tuple[int, Any]:
    return (200, _ref_json(fake, ref)) if ref in fake.refs else (404, {"message": "Not Found"})


def _get_git_commit(fake: FakeGitHub, owner: str, repo: str, sha: str, **_: Any) -> tuple[int, Any]:
    return (200, _commit_json(fake, sha)) if sha in fake.commits else (404, {"message": "Not Found"})


def _create_tree(fake: FakeGitHub, owner: str, repo: str, body: Any, **_: Any) -> tuple[int, Any]:
    base_sha = (body or {}).get("base_tree")
    if base_sha is not None and base_sha not in fake.trees:
        return 422, {"message": "Invalid tree info"}
    files = dict(fake.trees.get(base_sha, {})) if base_sha else {}
    for entry in (body or {}).get("tree", []):
        if entry.get("content") is not None:
            files[entry["path"]] = entry["content"].encode()
        elif entry.get("sha") is None:
            files.pop(entry["path"], None)
        else:
            files[entry["path"]] = fake.blobs_by_sha().get(entry["sha"], b"")
    sha = _tree_sha(files)
    fake.trees[sha] = files
    return 201, {"sha": sha, "url": f"{fake.url}/repos/{fake.full_name}/git/trees/{sha}", "tree": []}


def _create_git_commit(fake: FakeGitHub, owner: str, repo: str, body: Any, **_: Any) -> tuple[int, Any]:
    body = body or {}
    if body.get("tree") not in fake.trees or any(p not in fake.commits for p in body.get("parents", [])):
        return 422, {"message": "Tree SHA does not exist or parent missing"}
    sha = hashlib.sha1(
        f"{body['tree']}{body.get('parents')}{body.get('message')}{fake.next_id()}".encode()
    ).hexdigest()
    fake.commits[sha] = {
        "tree": body["tree"],
        "parents": list(body.get("parents", [])),
        "message": body["message"],
    }
    return 201, _commit_json(fake, sha)


def _update_ref(fake: FakeGitHub, owner: str, repo: str, ref: str, body: Any, **_: Any) -> tuple[int, Any]:
    new = (body or {}).get("sha")
    if ref not in fake.refs or new not in fake.commits:
        return 422, {"message": "Reference does not exist"}
    if not (body or {}).get("force") and fake.refs[ref] not in fake.commits[new]["parents"]:
        return 422, {"message": "Update is not a fast forward"}
    fake.refs[ref] = new
    return 200, _ref_json(fake, ref)


def _get_blob(fake: FakeGitHub, owner: str, repo: str, sha: str, **_: Any) -> tuple[int, Any]:
    data = fake.blobs_by_sha().get(sha)
    if data is None:
        return 404, {"message": "Not Found"}
    return 200, {
        "sha": sha,
        "size": len(data),
        "encoding": "base64",
        "content": base64.b64encode(data).decode(),
    }


def _commit_pulls(fake: FakeGitHub, owner: str, repo: str, sha: str, **_: Any) -> tuple[int, Any]:
    found = [n for n, pr in fake.pulls.items() if sha in (pr.get("merge_commit_sha"), pr["head"]["sha"])]
    return 200, [fake.pull_json(n) for n in sorted(found)]


def _get_tree(fake: FakeGitHub, owner: str, repo: str, ref: str, **_: Any) -> tuple[int, Any]:
    """A recursive tree listing (blobs only) of a branch, commit, tree SHA or `put_file` ref."""
    files = fake.tree_at(ref) or fake.trees.get(ref) or fake.files.get(ref)
    if files is None:
        return 404, {"message": "Not Found"}
    entries = [
        {"path": p, "mode": "100644", "type": "blob", "sha": _blob_sha(d), "size": len(d)}
        for p, d in sorted(files.items())
    ]
    return 200, {
        "sha": _tree_sha(files),
        "url": f"{fake.url}/repos/{fake.full_name}/git/trees/{ref}",
        "tree": entries,
        "truncated": False,
    }


def _state(fake: FakeGitHub, **_: Any) -> tuple[int, Any]:
    return 200, {
        "comments": list(fake.comments.values()),
        "labels": fake.labels,
        "statuses": fake.statuses,
        "releases": list(fake.releases.values()),
        "assets": [
            {**fake.asset_json(a), "release_id": fake.assets[a]["release_id"]} for a in sorted(fake.assets)
        ],
        "requests": [{"method": r.method, "path": r.path} for r in fake.requests],
    }


_R = r"/repos/([^/]+)/([^/]+)"
_ROUTES: list[Route] = [
    ("GET", re.compile(_R), _get_repo),
    ("GET", re.compile(_R + r"/pulls/(\d+)"), _get_pull),
    ("GET", re.compile(_R + r"/pulls/(\d+)/files"), _pull_files),
    ("GET", re.compile(_R + r"/issues/(\d+)"), _get_issue),
    ("GET", re.compile(_R + r"/issues/(\d+)/comments"), _list_comments),
    ("POST", re.compile(_R + r"/issues/(\d+)/comments"), _create_comment),
    ("GET", re.compile(_R + r"/issues/comments/(\d+)"), _get_comment),
    ("PATCH", re.compile(_R + r"/issues/comments/(\d+)"), _edit_comment),
    ("DELETE", re.compile(_R + r"/issues/comments/(\d+)"), _delete_comment),
    ("GET", re.compile(_R + r"/issues/(\d+)/events"), _list_events),
    ("GET", re.compile(_R + r"/issues/(\d+)/labels"), _list_labels),
    ("DELETE", re.compile(_R + r"/issues/(\d+)/labels/(.+)"), _remove_label),
    ("GET", re.compile(_R + r"/collaborators/([^/]+)/permission"), _permission),
    ("GET", re.compile(_R + r"/contents/(.+)"), _contents),
    ("POST", re.compile(_R + r"/statuses/([0-9a-f]+)"), _create_status),
    ("GET", re.compile(_R + r"/commits/([0-9a-f]+)"), _get_commit),
    ("GET", re.compile(_R + r"/commits/([0-9a-f]+)/pulls"), _commit_pulls),
    ("GET", re.compile(_R + r"/git/refs?/(.+)"), _get_ref),
    ("PATCH", re.compile(_R + r"/git/refs/(.+)"), _update_ref),
    ("GET", re.compile(_R + r"/git/commits/([0-9a-f]+)"), _get_git_commit),
    ("POST", re.compile(_R + r"/git/commits"), _create_git_commit),
    ("POST", re.compile(_R + r"/git/trees"), _create_tree),
    ("GET", re.compile(_R + r"/git/trees/(.+)"), _get_tree),
    ("GET", re.compile(_R + r"/git/blobs/([0-9a-f]+)"), _get_blob),
    ("GET", re.compile(_R + r"/releases"), _list_releases),
    ("GET", re.compile(_R + r"/releases/(\d+)"), _get_release),
    ("GET", re.compile(_R + r"/releases/tags/(.+)"), _release_by_tag),
    ("PATCH", re.compile(_R + r"/releases/(\d+)"), _edit_release),
    ("GET", re.compile(_R + r"/releases/(\d+)/assets"), _list_assets),
    ("POST", re.compile(_R + r"/releases/(\d+)/assets"), _upload_asset),
    ("DELETE", re.compile(_R + r"/releases/assets/(\d+)"), _delete_asset),
    ("GET", re.compile(r"/_fake/state"), _state),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--state", help="JSON file with pulls, labels, roles, files to preload")
    parser.add_argument("--port-file", help="write the URL here once listening")
    args = parser.parse_args()
    fake = FakeGitHub()
    if args.state:
        spec = json.loads(open(args.state, encoding="utf-8").read())
        for pr in spec.get("pulls", []):
            fake.add_pull(**pr)
        fake.roles.update(spec.get("roles", {}))
        for f in spec.get("files", []):
            fake.put_file(f["ref"], f["path"], f["content"])
    fake.start()
    print(f"listening on {fake.url}", flush=True)
    if args.port_file:
        with open(args.port_file, "w", encoding="utf-8") as fh:
            fh.write(fake.url)
    threading.Event().wait()


if __name__ == "__main__":
    main()
