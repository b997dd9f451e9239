"""A prose edit rewrites only the executed notebooks of the edited section: the others are
left as they are, not even read, and what is written is what a full eval writes."""
from __future__ import annotations

import shutil

from conftest import md
from test_evaluate import Book, ran_record
from tabbook.execution import written
from tabbook.execution.execute import write_executed
from tabbook.execution.record import write_cache
from tabbook.execution.tasks import Status

OTHER = md("# Autre", "Autre texte.", "```{.python .input}\ny = 1\nprint(y)\n```")
INDEX = "# Chapitre\n\n```toc\nsec\nother\n```\n"


def cached_book(root) -> Book:
    """Two sections with code, their results in the cache, their notebooks written."""
    book = Book(root, {"chap/other.md": OTHER, "chap/index.md": INDEX})
    plan = book.plan()
    for name in ("chap/sec", "chap/other"):
        planned = book.section(plan, name)
        write_cache(book.layout.cache_record("pytorch", planned.task.section),
                    ran_record(planned))
    assert book.evaluate(book.plan()).count(Status.CACHED) == 2
    return book


def identities(book: Book) -> dict[str, tuple[int, int]]:
    return {path.name: (path.stat().st_ino, path.stat().st_mtime_ns)
            for path in (book.layout.eval / "pytorch").rglob("*.ipynb")}


def contents(book: Book) -> dict[str, bytes]:
    return {path.relative_to(book.layout.eval).as_posix(): path.read_bytes()
            for path in (book.layout.eval / "pytorch").rglob("*.ipynb")}


def test_a_prose_edit_rewrites_only_its_section_s_notebook_as_a_full_eval_would(
        tmp_path, monkeypatch):
    book = cached_book(tmp_path)
    before = identities(book)
    merged = []   # the notebooks merged from their record and serialised again
    monkeypatch.setattr(written, "write_executed", lambda layout, planned, *rest: (
        merged.append(planned.task.section.name), write_executed(layout, planned, *rest)))
    source = book.root / "chapters" / "chap" / "sec.md"
    source.write_text(source.read_text() + "\nUne phrase de plus.\n")
    assert book.evaluate(book.plan()).count(Status.CACHED) == 2
    after = identities(book)
    assert merged == ["chap/sec"]
    assert {name for name in before if after[name] != before[name]} == {"sec.ipynb"}
    assert "Une phrase de plus." in (book.layout.eval / "pytorch" / "chap" / "sec.ipynb"
                                     ).read_text()
    incremental = contents(book)
    shutil.rmtree(book.layout.eval)
    book.layout.executed_record.unlink()
    book.evaluate(book.plan())
    assert contents(book) == incremental


def test_an_executed_notebook_changed_since_it_was_written_is_written_again(tmp_path):
    book = cached_book(tmp_path)
    good = book.executed_path.read_bytes()
    book.executed_path.write_bytes(good.replace(b"42", b"43"))   # same size
    book.evaluate(book.plan())
    assert book.executed_path.read_bytes() == good
    book.executed_path.unlink()
    book.evaluate(book.plan())
    assert book.executed_path.read_bytes() == good


def test_new_outputs_under_the_same_key_are_written(tmp_path):
    book = cached_book(tmp_path)
    planned = book.section(book.plan())
    record = ran_record(planned)
    (cell,) = record.cells.values()
    cell["outputs"][0]["text"] = "quarante-deux\n"
    write_cache(book.record_path, record)
    book.evaluate(book.plan())
    assert "quarante-deux" in book.executed_path.read_text()


def test_a_damaged_record_of_written_notebooks_writes_them_again(tmp_path):
    book = cached_book(tmp_path)
    good = contents(book)
    book.layout.executed_record.write_bytes(b"\xff{not json")
    book.executed_path.write_text("{}")
    book.evaluate(book.plan())
    assert contents(book) == good
