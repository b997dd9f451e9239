"""Writing outputs safely: readers never see a half-written file."""
from __future__ import annotations

import errno
import functools
import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from ..bootstrap.records import atomic_write

if TYPE_CHECKING:   # nbformat (and jsonschema) only for the commands that write notebooks
    import nbformat

PACKAGE = Path(__file__).resolve().parents[1]


@functools.cache
def tool_files() -> tuple[Path, ...]:
    """The build's own code and assets: an output made by other code is made again."""
    # Files only, those in assets' subfolders included: a folder (assets/fonts) has no bytes
    # for the fingerprints to hash.
    return (*sorted(PACKAGE.rglob("*.py")),
            *sorted(path for path in PACKAGE.glob("*/assets/**/*") if path.is_file()),
            *sorted(PACKAGE.glob("*/templates/*")), PACKAGE.parent / "requirements" / "tools.txt")


def write_if_changed(path: Path, text: str) -> bool:
    """Atomically write `text` unless the file already holds it; True if written. A file
    that is damaged (not UTF-8, say) is simply written again."""
    data = text.encode("utf-8")
    if path.is_file() and path.read_bytes() == data:
        return False
    atomic_write(path, data)
    return True


# Why a folder cannot be swapped with renames: it is a mount point (EBUSY), or on another
# disk than the new one (EXDEV: a symlink's target elsewhere).
NOT_RENAMED = {errno.EBUSY, errno.EXDEV}
# Why a file cannot be hard-linked: another disk, a file system without links, too many
# links, or the kernel's protected_hardlinks.
NOT_LINKED = {errno.EXDEV, errno.EOPNOTSUPP, errno.EMLINK, errno.EPERM}


def remove(path: Path) -> None:
    """Remove the folder, file or symlink `path` if it is there (a symlink, not its target)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def _target(folder: Path) -> Path:
    """The folder that `folder` is: the one it points to if it is a symlink."""
    return folder.resolve() if folder.is_symlink() else folder


def old_folder(folder: Path) -> Path:
    """Where `replace_folder` puts the old `folder` aside until the new one is in place."""
    target = _target(folder)
    return target.with_name(target.name + ".old")


def replace_folder(new: Path, folder: Path, last: str) -> None:
    """Put the folder `new` where `folder` is (into its target if it is a symlink): by
    renames, so that a reader never sees half of it; or, where the folder cannot be
    renamed (a mount point, another disk), file by file, `new`'s file `last` last."""
    target = _target(folder)
    try:
        _swap(new, target, old_folder(folder))
    except OSError as err:
        if err.errno not in NOT_RENAMED:
            raise
        _replace_files(new, target, last)


def _swap(new: Path, target: Path, old: Path) -> None:
    """Replace `target` by `new` with renames; on an error, `target` is as it was."""
    there = target.exists()
    if there:
        try:
            target.rename(old)
        except OSError as err:   # it is `target` that cannot move, not `old`
            raise OSError(err.errno, err.strerror, str(target)) from err
    try:
        new.rename(target)
    except OSError:
        if there:
            old.rename(target)
        raise
    remove(old)


def _replace_files(new: Path, target: Path, last: str) -> None:
    """Move what `new` holds into `target` instead of what it held. `last` (the stamp that
    says the folder is whole) goes first and comes back last: one interrupted midway has
    none, and is made again."""
    target.mkdir(exist_ok=True)
    remove(target / last)
    for entry in target.iterdir():
        remove(entry)
    for entry in sorted(new.iterdir(), key=lambda entry: entry.name == last):
        shutil.move(entry, target / entry.name)
    new.rmdir()


def link_or_copy(source: Path | str, target: Path | str) -> None:
    """Give `target` the bytes of `source`: a hard link where the file system allows it (a
    kept page costs no copy), a copy elsewhere. Safe because no stage writes a file of a
    folder being built in place: every file is written once, under a new name."""
    try:
        os.link(source, target)
    except OSError as err:   # anything else (a target already there) is not copied over
        if err.errno not in NOT_LINKED:
            raise
        shutil.copyfile(source, target)


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """A notebook this build wrote (nbformat 4), read without validating it again."""
    import nbformat

    return nbformat.v4.reads_json(path.read_text(encoding="utf-8"))


def write_notebook_if_changed(path: Path, notebook: nbformat.NotebookNode) -> bool:
    """`write_if_changed` for a notebook, in nbformat's own JSON layout.

    Not validated here: every notebook comes from the split stage, whose output
    the tests validate; validating each of them at every build cost most of a
    no-op build.
    """
    return write_if_changed(path, notebook_json(notebook) + "\n")


TRANSIENT = ("orig_nbformat", "orig_nbformat_minor", "signature")
"""A notebook's metadata that nbformat never writes to a file."""


def notebook_json(notebook: nbformat.NotebookNode) -> str:
    """The text of `notebook` exactly as ``nbformat.v4.writes_json`` writes it: multi-line
    strings as lists of lines, transient metadata left out. nbformat deep-copies the
    notebook to do so, which cost a third of writing the notebooks of a large book; this
    rebuilds only the dictionaries whose content it changes."""
    from nbformat.v4.nbjson import BytesEncoder

    shown = {**notebook, "cells": [_cell_for_file(cell) for cell in notebook.get("cells", [])]}
    if "metadata" in notebook:
        shown["metadata"] = {key: value for key, value in notebook["metadata"].items()
                             if key not in TRANSIENT}
    return json.dumps(shown, cls=BytesEncoder, indent=1, sort_keys=True,
                      separators=(",", ": "), ensure_ascii=False)


def _cell_for_file(cell: dict) -> dict:
    shown = dict(cell)
    if isinstance(cell.get("source"), str):
        shown["source"] = cell["source"].splitlines(True)
    if "metadata" in cell:
        shown["metadata"] = {key: value for key, value in cell["metadata"].items()
                             if key != "trusted"}
    if "attachments" in cell:
        shown["attachments"] = {name: _bundle_for_file(bundle)
                                for name, bundle in cell["attachments"].items()}
    if cell.get("cell_type") == "code" and "outputs" in cell:
        shown["outputs"] = [_output_for_file(output) for output in cell["outputs"]]
    return shown


def _output_for_file(output: dict) -> dict:
    kind = output.get("output_type")
    if kind in ("execute_result", "display_data") and "data" in output:
        return {**output, "data": _bundle_for_file(output["data"])}
    if kind == "stream" and isinstance(output.get("text"), str):
        return {**output, "text": output["text"].splitlines(True)}
    return output


def _bundle_for_file(bundle: dict) -> dict:
    from nbformat.v4.rwbase import _non_text_split_mimes

    return {key: value.splitlines(True) if isinstance(value, str) and (
        key.startswith("text/") or key in _non_text_split_mimes) else value
        for key, value in bundle.items()}
