"""The one base of every error a user can cause and fix.

A command reports a `BookError` as a message and exits 1, without a traceback:
it names the file, line, tab or option at fault and how to fix it. Any other
exception is a bug of the build, and its traceback is shown. A machine that
refuses to write (a full disk, a read-only folder, missing permissions) is the
user's to fix too: `machine_errors` turns those OSErrors into `MachineError`.
"""
from __future__ import annotations

import contextlib
import errno
from typing import Iterator


class BookError(Exception):
    """Something in the sources, the config, the options or the machine that the user can
    fix; its message says what and how."""


class MachineError(BookError):
    """The machine refused to write an output: full disk, read-only folder, permissions."""


# errno -> (what could not be done, what went wrong, how to fix it); every other
# OSError is a bug of the build.
PERMISSIONS = ("give yourself read and write access to it and its folder (or build a copy "
               "of the book in a folder of yours)")
REFUSALS = {
    errno.ENOSPC: ("write", "no space left on device",
                   "free some space on that disk (or build in a folder on another one)"),
    errno.EDQUOT: ("write", "disk quota exceeded",
                   "free some space in your quota (or build in a folder outside it)"),
    errno.EROFS: ("write", "read-only file system",
                  "build in a writable folder (copy the book there) or mount it writable"),
    errno.EACCES: ("access", "permission denied", PERMISSIONS),
    errno.EPERM: ("access", "operation not permitted", PERMISSIONS),
}


def machine_error(err: OSError) -> MachineError | None:
    """The user error that `err` is (a full disk, a read-only folder…), or None if it is
    not one a user can fix."""
    if err.errno not in REFUSALS:
        return None
    verb, why, fix = REFUSALS[err.errno]
    # A copy or a rename names its source first: the file written is the second one.
    what = err.filename2 or err.filename or "an output of the build"
    return MachineError(f"cannot {verb} {what}: {why} — {fix}, then run the command again")


@contextlib.contextmanager
def machine_errors() -> Iterator[None]:
    """Raise the OSErrors of the block that a user can fix as `MachineError`s."""
    try:
        yield
    except OSError as err:
        refused = machine_error(err)
        if refused is None:
            raise
        raise refused from err
