"""What a user sees when the machine refuses to write, or when they press Ctrl-C: one
clear message, no traceback, nothing half-written."""
from __future__ import annotations

import builtins
import errno
import io
import os
import stat
from pathlib import Path

import pytest

from conftest import REPO, with_build_system, write_book
from tabbook.bootstrap.errors import MachineError, machine_error, machine_errors
from tabbook.bootstrap.records import atomic_write
from tabbook.cli.main import main
from test_launch import filling_the_disk

FRAMEWORK_PYTHONS = [arg for tab in ("pytorch", "mxnet", "tensorflow")
                     for arg in ("--python", f"{tab}={REPO / '.envs' / tab / 'bin' / 'python'}")]


@pytest.mark.parametrize("code, why, fix", [
    (errno.ENOSPC, "no space left on device", "free some space"),
    (errno.EDQUOT, "disk quota exceeded", "free some space in your quota"),
    (errno.EROFS, "read-only file system", "build in a writable folder"),
    (errno.EACCES, "permission denied", "give yourself read and write access"),
    (errno.EPERM, "operation not permitted", "give yourself read and write access"),
])
def test_a_refusal_of_the_machine_says_which_file_why_and_how_to_fix_it(code, why, fix):
    refused = machine_error(OSError(code, os.strerror(code), "/book/_build/html/index.html"))
    assert isinstance(refused, MachineError)
    assert f" /book/_build/html/index.html: {why} — {fix}" in str(refused)
    copied = machine_error(OSError(code, os.strerror(code), "/book/img/a.png", None,
                                   "/book/_build/html/a.png"))
    assert "/book/_build/html/a.png:" in str(copied) and "img" not in str(copied)


def test_any_other_os_error_stays_a_bug():
    assert machine_error(FileNotFoundError(errno.ENOENT, "No such file", "x")) is None
    with pytest.raises(FileNotFoundError), machine_errors():
        raise FileNotFoundError(errno.ENOENT, "No such file", "x")
    with pytest.raises(MachineError, match="cannot write an output of the build: no space"), \
            machine_errors():
        raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("data", ["the next version, longer\n", b"the next version, longer\n"])
def test_a_full_disk_keeps_the_previous_file_and_leaves_no_temporary(tmp_path, monkeypatch,
                                                                     data):
    path = tmp_path / "launch.json"
    atomic_write(path, "previous\n")
    for method in ("write_text", "write_bytes"):
        monkeypatch.setattr(Path, method, filling_the_disk(getattr(Path, method)))
    with pytest.raises(OSError) as raised:
        atomic_write(path, data)
    assert raised.value.filename == str(path)   # the file meant, not its temporary
    assert path.read_text() == "previous\n" and sorted(tmp_path.iterdir()) == [path]


@pytest.fixture
def built_book(tmp_path) -> Path:
    """A book without code, built (no kernel starts): its folder."""
    root = write_book(with_build_system(tmp_path), {"chap/sec.md": "# Section\n\nDu texte.\n"})
    assert main(["html", *FRAMEWORK_PYTHONS], root) == 0
    return root


def refuse_writes_under(folder: Path, monkeypatch) -> None:
    """As a read-only file system does: opening a file under `folder` to write fails."""
    real_open = builtins.open

    def read_only(file, mode="r", *args, **kwargs):
        if any(c in mode for c in "wax+") and Path(file).resolve().is_relative_to(folder):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", read_only)
    monkeypatch.setattr(io, "open", read_only)   # pathlib opens through io.open


def test_a_read_only_build_folder_is_a_clear_error(built_book, monkeypatch, capsys):
    build = built_book / "_build"
    site = {p: p.read_bytes() for p in (build / "html").rglob("*") if p.is_file()}
    section = built_book / "chapters" / "chap" / "sec.md"
    section.write_text(section.read_text() + "\nUne phrase de plus.\n")
    capsys.readouterr()
    folders = [build, *(p for p in build.rglob("*") if p.is_dir())]
    if os.geteuid() == 0:   # root writes whatever the modes: the file system refuses instead
        refuse_writes_under(build, monkeypatch)
    else:
        for path in [*folders, *(p for p in build.rglob("*") if p.is_file())]:
            path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        status = main(["html", *FRAMEWORK_PYTHONS], built_book)
    finally:
        for folder in folders:
            folder.chmod(folder.stat().st_mode | stat.S_IWUSR)
    err = capsys.readouterr().err
    assert status == 1 and "Traceback" not in err, err
    assert f"error: cannot write {build / '.lock'}: read-only file system" in err or \
        f"error: cannot access {build / '.lock'}: permission denied" in err, err
    assert {p: p.read_bytes() for p in (build / "html").rglob("*") if p.is_file()} == site


def test_ctrl_c_during_check_is_a_short_message(tmp_path, monkeypatch, capsys):
    root = write_book(tmp_path, {"chap/sec.md": "# Section\n\nDu texte.\n"})
    read_bytes = Path.read_bytes

    def interrupted(self):
        if self.suffix == ".md":
            raise KeyboardInterrupt
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", interrupted)
    assert main(["check"], root) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "Traceback" not in err and "KeyboardInterrupt" not in err
    assert not (root / "_build").exists()
