"""What a .bib file gives, kept between commands in the build's cache (keep_parsed)."""
from __future__ import annotations

import pytest

from tabbook.features import bibliography
from tabbook.features.bibliography import bibliography_errors, keep_parsed, read_bibliography

BIB = """@article{Knuth.1984,
  author = {Donald E. Knuth},
  title = {Literate Programming},
  journal = {The Computer Journal},
  year = {1984}
}
@book{Knuth.1984,
  title = {Twice}
}
"""


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    """Nothing kept, nothing memorised, before and after each test."""
    monkeypatch.setattr(bibliography, "_kept_in", None)
    bibliography._kept_parse.cache_clear()
    yield
    bibliography._kept_parse.cache_clear()


def unread(monkeypatch):
    """A later command: its memory empty, and pybtex not to be called."""
    bibliography._kept_parse.cache_clear()

    def refused(filename, text):
        raise AssertionError("read again")
    monkeypatch.setattr(bibliography, "_parse_text", refused)


def test_a_later_command_takes_entries_and_errors_from_the_cache(tmp_path, monkeypatch):
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB, encoding="utf-8")
    keep_parsed(tmp_path / "cache")
    entries, errors = read_bibliography(bib), bibliography_errors(bib)
    assert entries["Knuth.1984"].fields["title"] == "Literate Programming"
    assert [error.line for error in errors] == [7]   # the key given twice
    unread(monkeypatch)
    assert read_bibliography(bib) == entries and bibliography_errors(bib) == errors


def test_a_changed_file_is_read_again_and_replaces_its_entry(tmp_path, monkeypatch):
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB, encoding="utf-8")
    keep_parsed(tmp_path / "cache")
    read_bibliography(bib)
    bib.write_text(BIB.replace("Literate", "Structured"), encoding="utf-8")
    assert read_bibliography(bib)["Knuth.1984"].fields["title"] == "Structured Programming"
    assert len(list((tmp_path / "cache").iterdir())) == 1
    unread(monkeypatch)
    assert read_bibliography(bib)["Knuth.1984"].fields["title"] == "Structured Programming"


def test_a_cache_that_cannot_be_written_or_read_only_costs_the_reading(tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB, encoding="utf-8")
    (tmp_path / "cache").write_text("a file, not a folder")
    keep_parsed(tmp_path / "cache")
    assert read_bibliography(bib)["Knuth.1984"].names[0].last == "Knuth"
