"""The build system's own bytecode, kept even where Python is told not to write any.

With PYTHONDONTWRITEBYTECODE set (Docker images, CI machines), Python compiles every
module of `tabbook` from source on each command: 16 000 lines, about 0.2 s a command,
more than the work of a command after a one-sentence edit. Python still reads bytecode
that is there, so the build writes its own, as pip does for the packages it installs:
beside the sources (`__pycache__`, ignored by git), only for modules whose bytecode is
missing or older than their source. A folder that cannot be written only leaves the
command as slow as before.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

HEADER = 16
"""Bytes of a .pyc header: magic number, flags, source time, source size."""


def refresh_bytecode(package: Path) -> int:
    """Compile the modules of `package` whose bytecode Python would not use; how many.
    Nothing to do where Python writes bytecode itself as it imports."""
    if not sys.dont_write_bytecode:
        return 0
    stale = [source for source in _sources(package) if not _current(source)]
    if stale:
        import py_compile   # only when a module changed
        for source in stale:
            try:
                py_compile.compile(source, doraise=True)
            except (OSError, py_compile.PyCompileError):
                # A read-only folder, or a syntax error that the import will report.
                continue
    return len(stale)


def _sources(package: Path) -> list[str]:
    return [os.path.join(here, name) for here, _, names in os.walk(package)
            for name in names if name.endswith(".py")]


def _current(source: str) -> bool:
    """Whether the bytecode of `source` is the one Python's import would accept: this
    interpreter's magic number, checked by the source's time and size."""
    try:
        stat = os.stat(source)
        with open(importlib.util.cache_from_source(source), "rb") as cached:
            header = cached.read(HEADER)
    except OSError:
        return False
    expected = (importlib.util.MAGIC_NUMBER + bytes(4)
                + (int(stat.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
                + (stat.st_size & 0xFFFFFFFF).to_bytes(4, "little"))
    return header == expected
