"""Nothing changed, nothing done: a command line run again on the same files stops at
once; any change to what it reads or wrote, by content, runs it."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import DECLARE, REPO, build, md, write_book
from tabbook.cli import unchanged
from tabbook.cli.options import parse_command_line

NOTHING = "Nothing changed since this command last succeeded"

SECTION = md(DECLARE, """
    # Section

    Du texte.

    ```{.python .input}
    x = 1
    ```
    """)


@pytest.fixture
def book(tmp_path) -> Path:
    (tmp_path / "book").mkdir()
    root = write_book(tmp_path / "book", {"chap/sec.md": SECTION})
    first = build(REPO, "-C", str(root), "notebooks")
    assert first.returncode == 0, first.stderr
    assert NOTHING not in first.stderr
    return root


def notebook(root: Path) -> Path:
    return root / "_build" / "notebooks" / "pytorch" / "chap" / "sec.ipynb"


def test_the_same_command_on_the_same_files_does_nothing(book):
    written = notebook(book).stat().st_mtime_ns
    again = build(REPO, "-C", str(book), "notebooks")
    assert again.returncode == 0, again.stderr
    assert NOTHING in again.stderr and "notebooks:" not in again.stdout
    assert notebook(book).stat().st_mtime_ns == written
    # Another command line has its own stamp: it runs.
    other = build(REPO, "-C", str(book), "notebooks", "--tab", "pytorch")
    assert other.returncode == 0 and NOTHING not in other.stderr


def test_an_edited_source_runs_the_command(book):
    source = book / "chapters" / "chap" / "sec.md"
    source.write_text(source.read_text().replace("x = 1", "x = 2"))
    again = build(REPO, "-C", str(book), "notebooks")
    assert again.returncode == 0 and NOTHING not in again.stderr
    assert "x = 2" in notebook(book).read_text()


@pytest.mark.parametrize("damage", ["delete", "edit", "add"])
def test_a_changed_output_runs_the_command(book, damage):
    target = notebook(book)
    if damage == "delete":
        target.unlink()
    elif damage == "edit":
        target.write_text(target.read_text().replace("x = 1", "x = 3"))
    else:
        (target.parent / "stray.ipynb").write_text("{}")
    again = build(REPO, "-C", str(book), "notebooks")
    assert again.returncode == 0 and NOTHING not in again.stderr
    assert "x = 1" in target.read_text()


def test_a_copy_with_new_file_times_is_still_unchanged(book, tmp_path):
    """`cp -r`, a restored CI cache: times differ, bytes do not."""
    copy = shutil.copytree(book, tmp_path / "copy", copy_function=shutil.copyfile)
    assert notebook(copy).stat().st_mtime_ns != notebook(book).stat().st_mtime_ns
    again = build(REPO, "-C", str(copy), "notebooks")
    assert again.returncode == 0 and NOTHING in again.stderr


def test_recheck_runs_the_steps_and_a_failure_writes_no_stamp(book):
    again = build(REPO, "-C", str(book), "notebooks", "--recheck")
    assert again.returncode == 0 and NOTHING not in again.stderr
    assert "notebooks:" in again.stdout
    source = book / "chapters" / "chap" / "sec.md"
    good = source.read_text()
    source.write_text(good.replace("x = 1", "x = (1"))
    assert build(REPO, "-C", str(book), "notebooks").returncode == 1
    assert build(REPO, "-C", str(book), "notebooks").returncode == 1   # still broken
    # Back to the files of the last success: that success stands.
    source.write_text(good)
    after = build(REPO, "-C", str(book), "notebooks")
    assert after.returncode == 0 and NOTHING in after.stderr


def test_a_file_changed_while_the_command_ran_is_unknown(tmp_path):
    """Recorded as unknown, it makes the next run build, whatever its bytes."""
    (tmp_path / "book").mkdir()
    root = write_book(tmp_path / "book", {"chap/sec.md": SECTION})
    source = root / "chapters" / "chap" / "sec.md"
    before = unchanged.snapshot(root, unchanged.inputs(root), previous={})
    source.write_text(source.read_text() + "\nUne phrase écrite pendant la construction.\n")
    notebooks = parse_command_line(["notebooks"])
    record = unchanged.record(root, notebooks, before, known={})
    assert record["files"]["chapters/chap/sec.md"][2] is None
    assert record["files"]["config.ini"][2] is not None
    assert not unchanged.unchanged(record, root, notebooks)
    # The next command, which the file did not change under, knows it again.
    again = unchanged.snapshot(root, unchanged.inputs(root), previous=record["files"])
    assert unchanged.record(root, notebooks, again, known=record["files"])["files"][
        "chapters/chap/sec.md"][2] is not None


def test_what_the_build_writes_beside_its_inputs_leaves_the_next_run_unchanged(
        tmp_path, monkeypatch):
    """A first build sets the environments up: it rewrites their stamps and pip leaves the
    d2l package's metadata in the book's folder; the next run must still do nothing."""
    (tmp_path / "book").mkdir()
    root = write_book(tmp_path / "book", {"chap/sec.md": SECTION})
    env_stamp = tmp_path / "envs" / "pytorch" / unchanged.STAMP
    env_stamp.parent.mkdir(parents=True)
    env_stamp.write_text("installed from old pins")
    real_inputs = unchanged.inputs
    monkeypatch.setattr(unchanged, "inputs", lambda folder: real_inputs(folder) + [str(env_stamp)])
    notebooks = parse_command_line(["notebooks"])
    before = unchanged.snapshot(root, unchanged.inputs(root), previous={})
    env_stamp.write_text("installed from the new pins")
    (root / "book_d2l.egg-info").mkdir()
    (root / "book_d2l.egg-info" / "PKG-INFO").write_text("Name: book-d2l\n")
    record = unchanged.record(root, notebooks, before, known={})
    assert record["files"][str(env_stamp)][2] is not None
    assert not any("egg-info" in name for name in record["files"])
    assert unchanged.unchanged(record, root, notebooks)


@pytest.mark.parametrize("argv, runs_always", [
    ([], False), (["html", "--tab", "pytorch"], False), (["eval", "--freeze"], False),
    (["eval", "--force"], True), (["html", "--out", "site"], True), (["lib", "--check"], True),
    (["serve"], True), (["test", "--fast"], True), (["check"], True),
    (["--recheck"], True)])
def test_which_command_lines_a_stamp_stands_for(argv, runs_always):
    assert unchanged.eligible(parse_command_line(argv)) is not runs_always


def test_the_folder_is_not_part_of_the_command_line():
    def asked(*argv: str) -> dict:
        return unchanged.request(parse_command_line(list(argv)))
    assert asked("-C", "/a/b", "html", "--tab", "mxnet") == asked("html", "--tab", "mxnet")
    assert asked("-C/a/b", "pdf") == asked("pdf") != asked("html")
    assert unchanged.book_folder(parse_command_line(["html", "-C", "x"]), Path("/r")) == \
        Path("x").resolve()
    assert unchanged.book_folder(parse_command_line(["html"]), Path("/r")) == Path("/r")
    with pytest.raises(SystemExit):   # refused before anything, as the build refuses it
        parse_command_line(["html", "-C"])
