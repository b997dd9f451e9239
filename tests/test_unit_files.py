"""Unit tests of core/files.py: outputs written whole, only when they change; a folder
replaced by renames, or file by file where it cannot be renamed."""
from __future__ import annotations

import copy
import errno
import os
import shutil
from pathlib import Path

import nbformat
import pytest

from tabbook.core import files
from tabbook.core.files import (link_or_copy, notebook_json, old_folder, read_notebook, remove,
                                replace_folder, tool_files, write_if_changed,
                                write_notebook_if_changed)


def folder_with(path: Path, contents: dict[str, str]) -> Path:
    for name, text in contents.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    return path


def contents(path: Path) -> dict[str, str]:
    return {p.relative_to(path).as_posix(): p.read_text()
            for p in sorted(path.rglob("*")) if p.is_file()}


def test_a_file_is_written_only_when_its_content_changes(tmp_path):
    path = tmp_path / "sub" / "page.html"
    assert write_if_changed(path, "é1") and path.read_text(encoding="utf-8") == "é1"
    os.utime(path, ns=(1, 1))
    assert not write_if_changed(path, "é1")
    assert path.stat().st_mtime_ns == 1   # not touched
    assert write_if_changed(path, "é2") and path.read_text(encoding="utf-8") == "é2"
    path.write_bytes(b"\xff\xfe")          # damaged: written again
    assert write_if_changed(path, "é2") and path.read_text(encoding="utf-8") == "é2"
    assert [p.name for p in path.parent.iterdir()] == ["page.html"]   # no temporary left


def test_a_notebook_round_trips_and_is_not_rewritten_unchanged(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    path = tmp_path / "a.ipynb"
    assert write_notebook_if_changed(path, notebook)
    assert path.read_text().endswith("}\n")
    assert read_notebook(path) == notebook
    assert not write_notebook_if_changed(path, read_notebook(path))


def test_replace_folder_puts_the_new_one_in_place_by_renames(tmp_path):
    folder = folder_with(tmp_path / "site", {"old.html": "old", "stamp": "1"})
    new = folder_with(tmp_path / "site.new", {"index.html": "new", "stamp": "2"})
    replace_folder(new, folder, "stamp")
    assert contents(folder) == {"index.html": "new", "stamp": "2"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]   # nothing aside, no new
    replace_folder(folder_with(tmp_path / "first", {"a": "a"}), tmp_path / "absent", "stamp")
    assert contents(tmp_path / "absent") == {"a": "a"}


def test_replace_folder_fills_a_symlinks_target_and_keeps_the_link(tmp_path):
    target = folder_with(tmp_path / "elsewhere" / "_build", {"old": "old"})
    link = tmp_path / "book" / "_build"
    link.parent.mkdir()
    link.symlink_to(target)
    assert old_folder(link) == target.with_name("_build.old")
    replace_folder(folder_with(tmp_path / "book" / "new", {"x": "new"}), link, "stamp")
    assert link.is_symlink() and link.resolve() == target
    assert contents(target) == {"x": "new"}
    assert sorted(p.name for p in target.parent.iterdir()) == ["_build"]


def test_a_folder_that_cannot_be_renamed_is_replaced_file_by_file_stamp_last(tmp_path,
                                                                              monkeypatch):
    folder = folder_with(tmp_path / "mount", {"old": "old", "stamp": "1", "sub/o": "o"})
    new = folder_with(tmp_path / "new", {"a": "a", "stamp": "2", "z/b": "b"})

    def cross_device(self, target):
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), str(self))
    moved = []
    real_move = shutil.move
    monkeypatch.setattr(Path, "rename", cross_device)
    monkeypatch.setattr(shutil, "move", lambda source, to: (moved.append(Path(source).name),
                                                            real_move(source, to)))
    replace_folder(new, folder, "stamp")
    assert contents(folder) == {"a": "a", "stamp": "2", "z/b": "b"}
    assert moved[-1] == "stamp" and sorted(moved) == ["a", "stamp", "z"]
    assert not new.exists()


def test_a_failed_swap_leaves_the_folder_as_it_was(tmp_path):
    folder = folder_with(tmp_path / "site", {"index.html": "old"})
    with pytest.raises(FileNotFoundError):   # not a machine's refusal: raised as it is
        replace_folder(tmp_path / "missing", folder, "stamp")
    assert contents(folder) == {"index.html": "old"}
    assert not old_folder(folder).exists()


def test_link_or_copy_links_on_one_disk_and_copies_where_it_cannot(tmp_path, monkeypatch):
    source = folder_with(tmp_path, {"kept.html": "<p>page</p>"}) / "kept.html"
    link_or_copy(source, tmp_path / "linked.html")
    assert (tmp_path / "linked.html").samefile(source)
    # Where the file system refuses (another disk: EXDEV), a copy of its own.
    def refused(*args):
        raise OSError(errno.EXDEV, "Invalid cross-device link")
    monkeypatch.setattr(os, "link", refused)
    link_or_copy(str(source), str(tmp_path / "copied.html"))
    copied = tmp_path / "copied.html"
    assert copied.read_text() == "<p>page</p>" and not copied.samefile(source)
    # A target already there is an error, never written through (it may be a link).
    monkeypatch.undo()
    source.write_text("<p>edited</p>")
    with pytest.raises(FileExistsError):
        link_or_copy(source, copied)
    assert copied.read_text() == "<p>page</p>"


def test_remove_takes_a_symlink_not_its_target(tmp_path):
    target = folder_with(tmp_path / "target", {"kept": "yes"})
    (tmp_path / "link").symlink_to(target)
    remove(tmp_path / "link")
    remove(tmp_path / "nothing")   # absent: nothing to do
    remove(folder_with(tmp_path / "tree", {"a/b": "c"}))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["target"]
    assert contents(target) == {"kept": "yes"}


def test_tool_files_cover_the_build_code_assets_and_pins():
    found = tool_files()
    assert Path(files.__file__).resolve() in found
    assert files.PACKAGE.parent / "requirements" / "tools.txt" in found
    # The math font the site and the PDF copy is a file of a subfolder of assets.
    assert files.PACKAGE / "output" / "assets" / "fonts" / "STIXTwoMath-Regular.woff2" in found
    assert all(path.is_file() for path in found)


def test_a_notebook_is_written_as_nbformat_writes_it_and_left_unchanged():
    v4 = nbformat.v4
    notebook = v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"},
                                         "signature": "x",
                                         "orig_nbformat": 3})
    notebook.cells = [
        v4.new_markdown_cell("# Titre\n\nDeux lignes,\nune image : ![a](attachment:a.png)",
                             attachments={"a.png": {"image/png": "iVBOR\nw0K",
                                                    "text/plain": "une\nimage"}}),
        v4.new_code_cell("x = 1\nprint(x)\n", metadata={"trusted": True, "tags": ["t"]},
                         outputs=[
                             v4.new_output("stream", name="stdout", text="1\n2\n"),
                             v4.new_output("execute_result", execution_count=1,
                                           data={"text/plain": "a\nb", "text/html": "<b>\n</b>",
                                                 "application/json": {"k": [1, 2]},
                                                 "image/svg+xml": "<svg>\n</svg>"}),
                             v4.new_output("display_data", data={"image/png": "iVBOR"}),
                             v4.new_output("error", ename="E", evalue="v",
                                           traceback=["ligne 1", "ligne 2"])]),
        v4.new_raw_cell("brut\n« texte »")]
    notebook.cells[1].outputs[2].data["image/png"] = b"iVBOR"   # bytes: written as ASCII
    before = copy.deepcopy(notebook)
    assert notebook_json(notebook) == v4.writes_json(notebook)
    assert notebook == before and notebook.metadata["signature"] == "x"
