"""refresh_bytecode: the build system's bytecode written where Python is told not to write
it, for the modules whose bytecode is missing or older than their source only."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from tabbook.bootstrap import bytecode
from tabbook.bootstrap.bytecode import refresh_bytecode


@pytest.fixture
def package(tmp_path, monkeypatch):
    monkeypatch.setattr(bytecode.sys, "dont_write_bytecode", True)
    folder = tmp_path / "pkg"
    (folder / "sub").mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    (folder / "sub" / "__init__.py").write_text("")
    (folder / "sub" / "mod.py").write_text("VALUE = 1\n")
    return folder


def cached(source) -> str:
    return importlib.util.cache_from_source(str(source))


def test_missing_bytecode_is_written_once(package):
    assert refresh_bytecode(package) == 3
    assert os.path.isfile(cached(package / "sub" / "mod.py"))
    assert refresh_bytecode(package) == 0


def test_python_uses_the_bytecode_written(package):
    refresh_bytecode(package)
    # Python would compile the source again if it did not take the bytecode as current:
    # replaced by one that says so, the bytecode is what runs.
    source = package / "sub" / "mod.py"
    stat = source.stat()
    source.write_text("VALUE = 2\n")   # same size, same time: still current for Python
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    shown = subprocess.run(
        [sys.executable, "-B", "-c", "import pkg.sub.mod as m; print(m.VALUE)"],
        cwd=package.parent, capture_output=True, text=True, check=True).stdout
    assert shown.strip() == "1"


def test_an_edited_module_is_compiled_again(package):
    refresh_bytecode(package)
    source = package / "sub" / "mod.py"
    source.write_text("VALUE = 22\n")
    os.utime(source, (source.stat().st_atime + 5, source.stat().st_mtime + 5))
    assert refresh_bytecode(package) == 1
    assert refresh_bytecode(package) == 0


def test_a_syntax_error_is_left_to_the_import(package):
    (package / "broken.py").write_text("def (:\n")
    assert refresh_bytecode(package) == 4   # counted stale, not written, no exception
    assert not os.path.exists(cached(package / "broken.py"))


def test_nothing_is_done_where_python_writes_bytecode_itself(package, monkeypatch):
    monkeypatch.setattr(bytecode.sys, "dont_write_bytecode", False)
    assert refresh_bytecode(package) == 0
    assert not (package / "__pycache__").exists()
