"""Writing outputs safely: readers never see a half-written file."""
from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

import nbformat

from ..bootstrap.records import atomic_write

PACKAGE = Path(__file__).resolve().parents[1]


@functools.cache
def tool_files() -> tuple[Path, ...]:
    """The build's own code and assets: an output made by other code is made again."""
    return (*sorted(PACKAGE.rglob("*.py")), *sorted(PACKAGE.glob("*/assets/*")),
            *sorted(PACKAGE.glob("*/templates/*")), PACKAGE.parent / "requirements" / "tools.txt")


def digest(files, *texts: str) -> str:
    """A hash of `texts` and of the existing `files` (their paths and bytes)."""
    found = hashlib.sha256("\0".join(texts).encode())
    for file in sorted({Path(f).resolve() for f in files}):
        if file.is_file():
            found.update(str(file).encode() + b"\0" + file.read_bytes())
    return found.hexdigest()


def write_if_changed(path: Path, text: str) -> bool:
    """Atomically write `text` unless the file already holds it; True if written."""
    # Bytes, not text: a damaged file (not UTF-8) is simply different, and rewritten.
    if path.is_file() and path.read_bytes() == text.encode("utf-8"):
        return False
    atomic_write(path, text)
    return True


def read_json(path: Path) -> dict:
    """A record this build wrote; {} if there is none yet or it cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """A notebook this build wrote (nbformat 4), read without validating it again."""
    return nbformat.v4.reads_json(path.read_text(encoding="utf-8"))


def write_notebook_if_changed(path: Path, notebook: nbformat.NotebookNode) -> bool:
    """`write_if_changed` for a notebook, in nbformat's own JSON layout.

    Not validated here: every notebook comes from the split stage, whose output
    the tests validate; validating each of them at every build cost most of a
    no-op build.
    """
    return write_if_changed(path, nbformat.v4.writes_json(notebook) + "\n")
