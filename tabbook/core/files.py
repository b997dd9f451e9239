"""Writing outputs safely: readers never see a half-written file."""
from __future__ import annotations

import functools
from pathlib import Path

import nbformat

from ..bootstrap.records import atomic_write

PACKAGE = Path(__file__).resolve().parents[1]


@functools.cache
def tool_files() -> tuple[Path, ...]:
    """The build's own code and assets: an output made by other code is made again."""
    return (*sorted(PACKAGE.rglob("*.py")), *sorted(PACKAGE.glob("*/assets/*")),
            *sorted(PACKAGE.glob("*/templates/*")), PACKAGE.parent / "requirements" / "tools.txt")


def write_if_changed(path: Path, text: str) -> bool:
    """Atomically write `text` unless the file already holds it; True if written. A file
    that is damaged (not UTF-8, say) is simply written again."""
    data = text.encode("utf-8")
    if path.is_file() and path.read_bytes() == data:
        return False
    atomic_write(path, data)
    return True


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
