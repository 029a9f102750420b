"""The simulated runner's Python for the evaluation user: packages in a private folder (a clone in a 0700
`mktemp -d`, root's home) are given to that user as a readable copy, and the environment is left as it was."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from action_sim import _readable_site

SYSTEM_PYTHON = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not SYSTEM_PYTHON.is_file(), reason="as root, with the system's Python"
)


def _as_nobody(site: Path) -> subprocess.CompletedProcess[str]:
    code = (
        f"import site; site.addsitedir({str(site)!r}); import plain_pkg, editable_pkg; print(editable_pkg.X)"
    )
    return subprocess.run(
        [str(SYSTEM_PYTHON), "-I", "-c", code],
        user="nobody",
        extra_groups=[],
        cwd="/",
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_sim_python__packages_in_a_private_folder__readable_copy_imports_as_nobody_and_env_untouched(
    request: pytest.FixtureRequest,
) -> None:
    private = Path(tempfile.mkdtemp())  # mode 0700, as `mktemp -d`
    request.addfinalizer(lambda: shutil.rmtree(private, ignore_errors=True))
    site = private / "site-packages"
    (site / "plain_pkg").mkdir(parents=True)
    (site / "plain_pkg" / "__init__.py").write_text("")
    source = private / "clone"  # an editable install: the .pth names the checkout
    (source / "editable_pkg").mkdir(parents=True)
    (source / "editable_pkg" / "__init__.py").write_text("X = 'from the checkout'\n")
    (source / "tests").mkdir()  # not a package: not copied
    pth = site / "_editable_impl_editable_pkg.pth"
    pth.write_text(f"{source}\n")
    for path in [private, *private.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    private.chmod(0o700)

    assert "No module named" in _as_nobody(site).stderr  # what the evaluation user saw before

    folder = Path(tempfile.mkdtemp())  # outside pytest's own 0700 folder, as interpreter() makes it
    request.addfinalizer(lambda: shutil.rmtree(folder, ignore_errors=True))
    folder.chmod(0o755)
    readable = _readable_site(site, folder)
    done = _as_nobody(readable)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "from the checkout"
    # the copy's .pth is a file of its own: the environment's still names the checkout
    assert pth.read_text() == f"{source}\n"
    assert not (readable.parent / "readable-editable" / pth.stem / "tests").exists()
    # a folder others can read is used as it is
    assert _readable_site(readable, folder) == readable
