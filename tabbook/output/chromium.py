"""Chromium's temporary folder: the room it needs there to print, checked before it
starts and again when it fails.

Chromium keeps its profile in the temporary folder (TMPDIR), and the shared memory
of the pages it prints too (Playwright starts it with --disable-dev-shm-usage).
Short of room there, it crashes, answers « Printing failed », or never answers: in
its words, nothing says that a disk is full.
"""
from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator

from ..bootstrap.errors import BookError, MachineError

TEMP_ROOM = 64 * 2**20
"""Bytes that Chromium needs free in the temporary folder (about 20 MB for a small book)."""


def temp_room_error() -> MachineError | None:
    """The error to report when Chromium's temporary folder (TMPDIR, as Chromium reads it)
    has less than `TEMP_ROOM` free; None when it has room (or is missing, which Chromium
    says itself)."""
    folder = os.environ.get("TMPDIR") or "/tmp"
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return None
    if free >= TEMP_ROOM:
        return None
    return MachineError(f"the temporary folder {folder} has only {free / 2**20:.1f} MB free, "
                        f"and Chromium needs about {TEMP_ROOM // 2**20} MB there to print — "
                        "free some space on its disk, or set TMPDIR to a folder on a disk "
                        "with room, then run the command again")


@contextlib.contextmanager
def full_temp_folder_reported() -> Iterator[None]:
    """Chromium's own words for a temporary folder filled up while it printed become the
    `MachineError` that says so."""
    try:
        yield
    except Exception as err:
        full = None if isinstance(err, (BookError, OSError)) else temp_room_error()
        if full is None:
            raise
        raise full from err
