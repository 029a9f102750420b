"""`cairn golden check` against the real seed-7 sample corpus, generated in a temporary folder."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from cairn_action.cli import main
from cairn_action.errors import DataError
from cairn_action.golden.load import load_golden
from cairn_action.golden.support import resolve_support
from cairn_action.index.corpus import load_corpus
from cairn_action.sample.generate import ensure_sample_corpus, generate_corpus

SHIPPED = Path(__file__).resolve().parents[2] / "golden" / "golden.jsonl"
POLICY = "returns-and-credits-policy.md"
ARCHIVED = "archive/returns-policy-2024.md"


@pytest.fixture
def corpus(seed7: Path, tmp_path: Path) -> Path:
    """A private copy of the seed-7 corpus, free to edit."""
    return Path(shutil.copytree(seed7, tmp_path / "corpus"))


def first_sentence(document: Path) -> str:
    """A real quote: the first sentence of the document's first long prose line."""
    for line in document.read_text(encoding="utf-8").splitlines():
        if len(line) > 80 and line[0].isalpha():
            return line.split(". ")[0]
    raise AssertionError(f"no prose line in {document}")


def case(case_id: str, *support: tuple[str, str]) -> dict[str, object]:
    return {
        "id": case_id,
        "question": "What does the document say?",
        "expected_answer": "what it says",
        "support": [{"doc": doc, "quote": quote} for doc, quote in support],
        "tags": ["policy"],
    }


def write_set(folder: Path, cases: list[dict[str, object]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "golden.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    (folder / "golden.version").write_text("test-1\n", encoding="utf-8")
    return folder / "golden.jsonl"


def run_check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["golden", "check", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out + err


def test_golden_check__shipped_set_on_seed_7__passes_with_120_cases_and_tag_counts(
    seed7: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert SHIPPED.is_file(), f"{SHIPPED} is not assembled yet"
    code, output = run_check(capsys, "--golden", str(SHIPPED), "--corpus", str(seed7))
    assert code == 0, output
    version = (SHIPPED.parent / "golden.version").read_text(encoding="utf-8").strip()
    assert output.splitlines()[0] == (
        f"{SHIPPED}: version {version} (golden.version), 120 cases: 90 answerable, 15 unanswerable, "
        "15 false premise"
    )
    assert "failed" not in output
    assert re.search(r"^ok: 0 errors, 0 stale cases, \d+ warnings?$", output, re.MULTILINE)
    rows = [json.loads(line) for line in SHIPPED.read_text(encoding="utf-8").splitlines() if line.strip()]
    tags = Counter(tag for row in rows for tag in set(row.get("tags", [])))
    for tag, count in tags.items():
        assert re.search(rf"^  {re.escape(tag)} +{count}$", output, re.MULTILINE), f"{tag} {count}"


def test_golden_check__no_flags__generates_the_sample_corpus_and_checks_the_shipped_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert SHIPPED.is_file(), f"{SHIPPED} is not assembled yet"
    monkeypatch.chdir(tmp_path)
    code, output = run_check(capsys)
    assert code == 0, output
    assert "generated the sample corpus (seed 7) in data/sample" in output
    assert (
        load_corpus(tmp_path / "data" / "sample").corpus_hash
        == generate_corpus(tmp_path / "again").corpus_hash
    )


def test_ensure_sample_corpus__present_and_intact__is_left_as_it_is(tmp_path: Path) -> None:
    sample = tmp_path / "data" / "sample"
    assert ensure_sample_corpus(sample) == f"generated the sample corpus (seed 7) in {sample}"
    before = (sample / POLICY).stat().st_mtime_ns
    assert ensure_sample_corpus(sample) is None
    assert (sample / POLICY).stat().st_mtime_ns == before


def test_ensure_sample_corpus__edited_by_hand__is_regenerated_to_the_pinned_digest(tmp_path: Path) -> None:
    # data/sample is generated output: a stale or edited copy would quietly change what "the sample" means.
    sample = tmp_path / "data" / "sample"
    ensure_sample_corpus(sample)
    original = (sample / POLICY).read_text(encoding="utf-8")
    (sample / POLICY).write_text("edited by hand\n", encoding="utf-8")
    message = ensure_sample_corpus(sample)
    assert message is not None and message.startswith("regenerated the sample corpus (seed 7)")
    assert (sample / POLICY).read_text(encoding="utf-8") == original


def test_golden_check__config_names_a_missing_corpus__is_not_generated(
    tmp_path: Path, seed7: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_set(tmp_path / "golden", [case("ret-001", (POLICY, first_sentence(seed7 / POLICY)))])
    (tmp_path / "cairn.toml").write_text(
        'name = "mine"\n[corpus]\npath = "docs"\n[golden]\npath = "golden"\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    code, output = run_check(capsys)
    assert code == 2
    # the config's line that names it, and the folder it resolved to
    assert output.splitlines()[0].endswith(
        f"cairn.toml:3: corpus.path = 'docs': corpus folder not found ({tmp_path.resolve() / 'docs'})"
    )
    assert not (tmp_path / "docs").exists()


def test_golden_check__ambiguous_basename__lists_matches(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for folder in ("guides", "faq"):
        (corpus / folder).mkdir()
        (corpus / folder / "index.md").write_text(
            f"# {folder}\n\nThe {folder} start here.\n", encoding="utf-8"
        )
    golden = write_set(tmp_path / "golden", [case("idx-001", ("index.md", "The guides start here."))])
    code, output = run_check(capsys, "--golden", str(golden), "--corpus", str(corpus))
    assert code == 2
    assert (
        f"  {golden}:1: case idx-001: support[0].doc 'index.md' matches 2 documents: faq/index.md, "
        "guides/index.md"
    ) in output.splitlines()
    assert "hint: name the document by its path relative to the corpus root" in output

    resolution = resolve_support(load_golden(golden), load_corpus(corpus))
    with pytest.raises(DataError) as raised:  # how the run refuses a set it cannot locate
        resolution.raise_for_errors()
    assert raised.value.message == (
        f"{golden}:1: case idx-001: support[0].doc 'index.md' matches 2 documents: "
        "faq/index.md, guides/index.md"
    )


def test_golden_check__relative_paths__resolve_to_the_named_document(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for folder in ("guides", "faq"):
        (corpus / folder).mkdir()
        (corpus / folder / "index.md").write_text(
            f"# {folder}\n\nThe {folder} start here.\n", encoding="utf-8"
        )
    archived_quote = first_sentence(corpus / ARCHIVED)
    policy_quote = first_sentence(corpus / POLICY)
    golden = write_set(
        tmp_path / "golden",
        [
            case("idx-001", ("faq/index.md", "The faq start here.")),
            case("arc-001", (ARCHIVED, archived_quote), (f"./{POLICY}", policy_quote)),
        ],
    )
    code, output = run_check(capsys, "--golden", str(golden), "--corpus", str(corpus))
    assert code == 0, output

    resolution = resolve_support(load_golden(golden), load_corpus(corpus))
    assert resolution.errors == [] and resolution.stale == frozenset()
    texts = {d.path: d.text for d in load_corpus(corpus).documents}
    located = [(r.doc_path, texts[r.doc_path][r.start : r.end]) for r in resolution.resolved["arc-001"]]
    assert located == [(ARCHIVED, archived_quote), (POLICY, policy_quote)]
    assert resolution.resolved["idx-001"][0].doc_path == "faq/index.md"


def test_golden_check__document_edited_after_labelling__lists_the_case_as_stale(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quote = first_sentence(corpus / POLICY)
    other = first_sentence(corpus / ARCHIVED)
    golden = write_set(
        tmp_path / "golden", [case("ret-001", (POLICY, quote)), case("arc-001", (ARCHIVED, other))]
    )
    args = ("--golden", str(golden), "--corpus", str(corpus))
    assert run_check(capsys, *args)[0] == 0

    document = corpus / POLICY
    first_word = quote.split()[0]
    edited = quote.replace(first_word, "Formerly", 1)  # a word changed, not just its layout
    document.write_text(document.read_text(encoding="utf-8").replace(quote, edited), encoding="utf-8")
    code, output = run_check(capsys, *args)
    assert code == 2
    assert "stale cases (1: ret-001):" in output
    shown = quote if len(quote) <= 60 else quote[:59] + "…"
    line = next(x for x in output.splitlines() if "case ret-001: support[0].quote" in x)
    assert line.startswith(f'  {golden}:1: case ret-001: support[0].quote is not in {POLICY}: "{shown}"')
    assert f"; nearest, at {POLICY}:" in line and "Formerly" in line  # what the document says now
    assert output.splitlines()[-1].startswith("failed: 0 errors, 1 stale case")

    resolution = resolve_support(load_golden(golden), load_corpus(corpus))
    assert resolution.stale == frozenset({"ret-001"})
    assert resolution.errors == []  # a stale case is not an error for the run: it is left out of scores
    assert resolution.resolved["ret-001"] == []
    assert len(resolution.resolved["arc-001"]) == 1
