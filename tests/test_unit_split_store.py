"""Unit tests of notebooks/split_store.py: a section's notebooks are split again only when
its entry in the section cache changed."""
from __future__ import annotations

import nbformat

from conftest import md, write_book
from tabbook.core.config import load_config
from tabbook.core.layout import Layout
from tabbook.notebooks import split_store
from tabbook.notebooks.split import split_section
from tabbook.notebooks.split_store import SplitStore
from tabbook.source.parse import parse_book
from tabbook.source.section_cache import SectionCache


def read_book(root):
    """The book in `root` read through the section cache, and the cache's keys."""
    config = load_config(root)
    sections = SectionCache(config, Layout(root))
    book, problems = parse_book(config, sections.read)
    assert problems == []
    return {s.name: s for s in book.pages()}, sections.keys


def counting_splits(monkeypatch) -> list[tuple[str, str]]:
    made = []

    def split(section, tab):
        made.append((section.name, tab))
        return split_section(section, tab)
    monkeypatch.setattr(split_store, "split_section", split)
    return made


def test_a_kept_notebook_is_split_again_only_when_its_section_changed(tmp_path, monkeypatch):
    root = write_book(tmp_path, {"chap/sec.md": md("# Sec", "Du texte.", "```{.python .input}",
                                                   "x = 1", "```")})
    made = counting_splits(monkeypatch)
    pages, keys = read_book(root)
    store = SplitStore(Layout(root), keys)
    first = store.notebook(pages["chap/sec"], "pytorch")
    assert made == [("chap/sec", "pytorch")]
    assert nbformat.v4.writes_json(first) == \
        nbformat.v4.writes_json(split_section(pages["chap/sec"], "pytorch"))
    # Another command, the same sources: the kept notebook, equal, split by no one.
    pages, keys = read_book(root)
    again = SplitStore(Layout(root), keys).notebook(pages["chap/sec"], "pytorch")
    assert made == [("chap/sec", "pytorch")] and again == first
    # Each tab is kept apart.
    SplitStore(Layout(root), keys).notebook(pages["chap/sec"], "mxnet")
    assert made[-1] == ("chap/sec", "mxnet")
    # An edit of the prose: its section only is split again.
    (root / "chapters" / "chap" / "sec.md").write_text(
        md("# Sec", "Un autre texte.", "```{.python .input}", "x = 1", "```"))
    pages, keys = read_book(root)
    edited = SplitStore(Layout(root), keys).notebook(pages["chap/sec"], "pytorch")
    assert made[-1] == ("chap/sec", "pytorch") and len(made) == 3
    assert "Un autre texte." in edited.cells[0].source


def test_a_damaged_entry_is_split_again_and_an_unknown_section_is_not_kept(tmp_path,
                                                                           monkeypatch):
    root = write_book(tmp_path, {"chap/sec.md": md("# Sec", "Du texte.")})
    made = counting_splits(monkeypatch)
    pages, keys = read_book(root)
    layout = Layout(root)
    SplitStore(layout, keys).notebook(pages["chap/sec"], "pytorch")
    kept = layout.kept_split("pytorch", pages["chap/sec"])
    kept.write_bytes(kept.read_bytes()[:-20])   # truncated
    notebook = SplitStore(layout, keys).notebook(pages["chap/sec"], "pytorch")
    assert len(made) == 2 and notebook.cells[0].source.startswith("# Sec")
    # A section the cache did not read has no key: split, nothing kept for it.
    SplitStore(layout, {}).notebook(pages["chap/index"], "pytorch")
    assert len(made) == 3 and not layout.kept_split("pytorch", pages["chap/index"]).exists()
