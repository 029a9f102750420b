"""The user's own RAG service as the target (`target = "http://..."`), end to end to a report."""

from __future__ import annotations

from pathlib import Path

import pytest
from eval_kit import TINY_CASES, evaluate, files_containing, write_config
from loopback import Step
from rag_service import FakeRagService

TOKEN = "rag-token-5f4dcc3b5aa765d61d83"


def _config(folder: Path, name: str, service: FakeRagService, extra: str = "", *, auth: bool = False) -> None:
    key = 'api_key_env = "TINY_RAG_TOKEN"' if auth else ""
    body = f"""
target = "{service.endpoint}"

[provider]
{key}
max_retries = 3
timeout_s = 5
{extra}
"""
    write_config(folder, name, body)


def test_http_target__tiny_rag_service__evaluated_end_to_end_and_its_token_written_nowhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TINY_RAG_TOKEN", TOKEN)
    with FakeRagService(token=TOKEN) as service:
        _config(tmp_path, "tiny-http", service, auth=True)
        run = evaluate(tmp_path, "tiny-http", capsys, monkeypatch)
    assert run.code == 0, run.err

    assert len(service.requests) == TINY_CASES
    sent = service.requests[0]
    assert sent.headers["authorization"] == f"Bearer {TOKEN}"
    assert set(sent.json) == {"question", "case_id", "top_k"} and sent.json["top_k"] == 10
    report = run.report
    assert report["n_cases"] == TINY_CASES
    assert report["notes"]["models_seen"] == [service.endpoint]
    # The service collapsed the passages' whitespace; Cairn still located them in the corpus, so the
    # quote that spans a line break (t-02) is found exactly like the others.
    assert report["retrieval"]["recall_at_k"]["1"] == 1.0
    t02 = next(r for r in run.records if r.case_id == "t-02")
    assert (t02.retrieved_support_rank, t02.retrieved[0].doc) == (1, "returns.md")
    assert files_containing(tmp_path, TOKEN) == []
    assert TOKEN not in run.out and TOKEN not in run.err


def test_http_target__service_unavailable_then_back__retried_and_no_case_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeRagService() as service:
        service.script(Step(status=503, headers={"Retry-After": "0"}), Step(status=500))
        _config(tmp_path, "tiny-flaky", service, "\n[run]\nmax_concurrency = 1")
        run = evaluate(tmp_path, "tiny-flaky", capsys, monkeypatch)
    assert run.code == 0, run.err
    assert len(service.requests) == TINY_CASES + 2
    assert run.report["notes"]["counts"]["error"] == 0
    assert "provider retries: 2" in run.err


def test_http_target__garbage_reply__that_case_is_an_error_with_the_raw_reply_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeRagService() as service:
        service.script(Step(body="<html>upstream hiccup</html>"), Step(content='{"passages": 7}'))
        _config(tmp_path, "tiny-garbage", service, "\n[run]\nmax_concurrency = 1")
        run = evaluate(tmp_path, "tiny-garbage", capsys, monkeypatch)
    assert run.code == 0, run.err

    failed = {r.case_id: r for r in run.records if r.status == "error"}
    assert set(failed) == {"t-01", "t-02"}
    assert failed["t-01"].error == "target reply is not JSON"
    assert failed["t-01"].raw_output == "<html>upstream hiccup</html>"
    assert failed["t-02"].error is not None and failed["t-02"].error.startswith("target reply does not fit")
    assert failed["t-02"].raw_output == '{"passages": 7}'


def test_http_target__service_down__every_case_error_and_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeRagService() as service:
        endpoint = service.endpoint
        _config(tmp_path, "tiny-down", service, "")
    # The service has stopped: nothing listens at its port any more.
    (tmp_path / "cairn.toml").write_text(
        (tmp_path / "cairn.toml").read_text().replace("max_retries = 3", "max_retries = 1"), encoding="utf-8"
    )
    run = evaluate(tmp_path, "tiny-down", capsys, monkeypatch)
    assert run.code == 3
    assert "every case failed" in run.err and "Traceback" not in run.err
    records = run.records
    assert len(records) == TINY_CASES and all(r.status == "error" for r in records)
    assert all("connection failed" in (r.error or "") and endpoint in (r.error or "") for r in records)


def test_http_target__service_reports_a_new_version__target_hash_changes_config_hash_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TINY_RAG_TOKEN", TOKEN)
    hashes: list[tuple[str, str]] = []
    with FakeRagService(token=TOKEN) as service:
        for version in ("2026.11.0", "2026.11.0", "2026.12.1"):
            service.version = version
            folder = tmp_path / f"run{len(hashes)}"
            folder.mkdir()
            write_config(
                folder,
                "tiny-versioned",
                f'target = "{service.endpoint}"\ntarget_version_url = "{service.version_url}"\n\n'
                '[provider]\napi_key_env = "TINY_RAG_TOKEN"\n',
            )
            run = evaluate(folder, "tiny-versioned", capsys, monkeypatch)
            assert run.code == 0, run.err
            hashes.append((run.report["config_hash"], run.report["target_hash"]))
            assert f"target reports version {version} (target_hash {hashes[-1][1]})" in run.err
        gets = [r for r in service.requests if r.method == "GET"]
    assert [g.path for g in gets] == ["/version"] * 3  # once a run
    assert all("authorization" not in g.headers for g in gets)  # the key goes only to the target
    (c0, t0), (c1, t1), (c2, t2) = hashes
    assert c0 == c1 == c2  # the same settings
    assert t0 == t1 != t2  # the uptime beside the version does not count; the redeploy does
    with FakeRagService() as plain:
        write_config(tmp_path / "run0", "tiny-versioned", f'target = "{plain.endpoint}"\n')
        unversioned = evaluate(tmp_path / "run0", "tiny-versioned", capsys, monkeypatch)
    assert unversioned.code == 0 and unversioned.report["target_hash"] not in (t0, t2)


def test_http_target__version_url_unreachable_or_on_a_python_target__refused_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeRagService() as service:
        write_config(
            tmp_path,
            "tiny-versioned",
            f'target = "{service.endpoint}"\ntarget_version_url = "{service.url}/nowhere"\n'
            "\n[provider]\nmax_retries = 0\n",
        )
        run = evaluate(tmp_path, "tiny-versioned", capsys, monkeypatch)
    assert run.code == 3, run.err  # as when the target itself cannot be reached
    assert "target_version_url: target: " in run.err and "/nowhere refused the request: HTTP 404" in run.err
    write_config(
        tmp_path,
        "tiny-versioned",
        'target = "python:tiny_rag:answer"\ntarget_version_url = "http://127.0.0.1:9/version"\n',
    )
    run = evaluate(tmp_path, "tiny-versioned", capsys, monkeypatch)
    assert run.code == 2, run.err
    assert "cairn.toml:3: target_version_url: is for an http(s) target" in run.err
