"""The index-cache folder's copies: regular files only, nothing followed, bounded; the folder kept out of
the workspace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cairn_action.action.child import index_folder
from cairn_action.action.child.index_folder import Owner, SourceRule, copy_index, resolve_folder
from cairn_action.errors import CairnError


def _tree(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def _listing(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def test_copy_index__regular_files__copied_with_their_folders(tmp_path: Path) -> None:
    src = _tree(tmp_path / "src", {"chunks-a.npz": b"c", "embeddings/m/vectors-1.npz": b"v" * 10})

    done = copy_index(src, tmp_path / "new" / "index", rule=SourceRule(), owner=None)

    assert _listing(tmp_path / "new" / "index") == {
        "chunks-a.npz": b"c",
        "embeddings/m/vectors-1.npz": b"v" * 10,
    }
    assert (done.files, done.bytes, done.kept, done.skipped) == (2, 11, 0, [])


def test_copy_index__same_name_and_size_at_the_destination__kept_untouched(tmp_path: Path) -> None:
    src = _tree(tmp_path / "src", {"bm25-k.npz": b"new", "chunks-k.npz": b"longer"})
    dst = _tree(tmp_path / "dst", {"bm25-k.npz": b"old", "chunks-k.npz": b"short"})
    mtime = (dst / "bm25-k.npz").stat().st_mtime_ns

    done = copy_index(src, dst, rule=SourceRule(), owner=None)

    assert (done.files, done.kept) == (1, 1)
    assert (dst / "bm25-k.npz").read_bytes() == b"old"  # content-addressed: the same entry
    assert (dst / "bm25-k.npz").stat().st_mtime_ns == mtime
    assert (dst / "chunks-k.npz").read_bytes() == b"longer"


def test_copy_index__links_fifos_and_half_written_files__not_copied(tmp_path: Path) -> None:
    secret = _tree(tmp_path / "secret", {"shadow": b"root only"})
    src = _tree(tmp_path / "src", {"ok.npz": b"ok", ".tmp-abc.npz": b"torn"})
    (src / "link.npz").symlink_to(secret / "shadow")
    (src / "embeddings").symlink_to(secret, target_is_directory=True)
    os.mkfifo(src / "pipe.npz")

    done = copy_index(src, tmp_path / "dst", rule=SourceRule(), owner=None)

    assert sorted(os.listdir(tmp_path / "dst")) == ["ok.npz"]
    assert done.skipped == [
        "embeddings: a symbolic link, not followed",
        "link.npz: a symbolic link, not followed",
        "pipe.npz: not a regular file",
    ]


def test_copy_index__copying_back__hard_links_and_other_users_files__skipped(tmp_path: Path) -> None:
    src = _tree(tmp_path / "src", {"mine.npz": b"m", "linked.npz": b"l"})
    os.link(src / "linked.npz", tmp_path / "elsewhere")

    back = copy_index(src, tmp_path / "dst", rule=SourceRule(uid=os.getuid(), single_link=True), owner=None)
    foreign = copy_index(src, tmp_path / "dst2", rule=SourceRule(uid=os.getuid() + 1), owner=None)

    assert sorted(os.listdir(tmp_path / "dst")) == ["mine.npz"]
    assert back.skipped == ["linked.npz: a hard link"]
    assert not os.listdir(tmp_path / "dst2")
    assert len(foreign.skipped) == 2 and all("not the evaluation user's file" in s for s in foreign.skipped)


def test_copy_index__a_link_at_the_destination__replaced_or_refused_never_followed(tmp_path: Path) -> None:
    outside = _tree(tmp_path / "outside", {"target": b"keep"})
    src = _tree(tmp_path / "src", {"chunks-k.npz": b"fresh entry", "embeddings/m/v.npz": b"v"})
    dst = tmp_path / "dst"
    dst.mkdir()
    (dst / "chunks-k.npz").symlink_to(outside / "target")
    (dst / "embeddings").symlink_to(outside, target_is_directory=True)

    done = copy_index(src, dst, rule=SourceRule(), owner=None)

    assert (outside / "target").read_bytes() == b"keep"
    assert sorted(os.listdir(outside)) == ["target"]
    assert not (dst / "chunks-k.npz").is_symlink()
    assert (dst / "chunks-k.npz").read_bytes() == b"fresh entry"
    assert done.skipped == ["embeddings/: the destination holds something else than a folder there"]


def test_copy_index__over_the_limits__the_rest_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = _tree(tmp_path / "src", {"a": b"1", "b": b"22", "c": b"333", "d/e/f/g/i/h": b"deep"})
    monkeypatch.setattr(index_folder, "MAX_BYTES", 3)  # the message names the shipped limit

    done = copy_index(src, tmp_path / "dst", rule=SourceRule(), owner=None)

    assert _listing(tmp_path / "dst") == {"a": b"1", "b": b"22"}
    assert done.skipped == ["c: over the limit (20000 files, 4 GiB)", "d/e/f/g/i/: deeper than 4 levels"]


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
def test_copy_index__as_root__files_and_new_folders_belong_to_the_owner(tmp_path: Path) -> None:
    src = _tree(tmp_path / "src", {"embeddings/m/v.npz": b"v"})

    copy_index(src, tmp_path / "made" / "index", rule=SourceRule(), owner=Owner(uid=65534, gid=65534))

    for path in (
        tmp_path / "made",
        tmp_path / "made/index/embeddings/m",
        tmp_path / "made/index/embeddings/m/v.npz",
    ):
        assert (path.stat().st_uid, path.stat().st_gid) == (65534, 65534)
    assert (tmp_path / "made/index/embeddings/m/v.npz").stat().st_mode & 0o777 == 0o644


def test_resolve_folder__empty__off(tmp_path: Path) -> None:
    assert resolve_folder("", tmp_path) is None


def test_resolve_folder__outside_the_workspace__resolved(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "home")

    assert resolve_folder(str(tmp_path / "alias" / "cache"), tmp_path / "ws") == tmp_path / "home" / "cache"


@pytest.mark.parametrize("value", ["cache", "{ws}/.cache/x", "{ws}", "{root}", "{root}/link/x"])
def test_resolve_folder__relative_or_in_the_workspace__refused(tmp_path: Path, value: str) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "link").symlink_to(workspace)  # a link outside that points in

    with pytest.raises(CairnError) as caught:
        resolve_folder(value.format(ws=workspace, root=tmp_path), workspace)

    assert caught.value.message.startswith("input 'index-cache': ")
    assert "/github/home/.cache/cairn-index" in caught.value.hint
