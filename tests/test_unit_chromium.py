"""Unit tests of output/chromium.py: the room Chromium needs in its temporary folder."""
from __future__ import annotations

import shutil
from collections import namedtuple

import pytest

from tabbook.bootstrap.errors import BookError, MachineError
from tabbook.output.chromium import TEMP_ROOM, full_temp_folder_reported, temp_room_error

Usage = namedtuple("Usage", "total used free")


@pytest.fixture
def tmpdir_with(monkeypatch, tmp_path):
    """TMPDIR set to a folder whose disk has `free` bytes free."""
    def set_free(free: int):
        monkeypatch.setenv("TMPDIR", str(tmp_path))
        monkeypatch.setattr(shutil, "disk_usage", lambda folder: Usage(free, 0, free))
        return tmp_path
    return set_free


def test_a_temporary_folder_with_room_is_no_error(tmpdir_with):
    tmpdir_with(TEMP_ROOM)
    assert temp_room_error() is None


def test_a_temporary_folder_short_of_room_says_how_much_and_what_to_do(tmpdir_with):
    folder = tmpdir_with(10 * 2**20 + 2**19)
    error = temp_room_error()
    assert isinstance(error, MachineError)
    assert str(error) == (
        f"the temporary folder {folder} has only 10.5 MB free, and Chromium needs about 64 MB "
        "there to print — free some space on its disk, or set TMPDIR to a folder on a disk "
        "with room, then run the command again")


def test_a_missing_temporary_folder_is_left_to_chromium(monkeypatch, tmp_path):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "absent"))
    assert temp_room_error() is None


def test_chromiums_failure_in_a_full_folder_becomes_the_machine_error(tmpdir_with):
    tmpdir_with(0)
    with pytest.raises(MachineError, match="has only 0.0 MB free") as raised:
        with full_temp_folder_reported():
            raise RuntimeError("Printing failed")
    assert isinstance(raised.value.__cause__, RuntimeError)
    # The user's own errors and the machine's refusals are theirs, room or not.
    for own in (BookError("bad source"), OSError(28, "No space left")):
        with pytest.raises(type(own)) as raised, full_temp_folder_reported():
            raise own
        assert raised.value is own


def test_a_failure_with_room_left_is_raised_as_it_is(tmpdir_with):
    tmpdir_with(TEMP_ROOM * 2)
    with pytest.raises(RuntimeError, match="Target closed"), full_temp_folder_reported():
        raise RuntimeError("Target closed")
