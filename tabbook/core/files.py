"""Writing outputs safely: readers never see a half-written file."""
from __future__ import annotations

import errno
import functools
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
    import nbformat

    return write_if_changed(path, nbformat.v4.writes_json(notebook) + "\n")
