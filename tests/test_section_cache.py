"""The section cache (source/section_cache.py): a book read from the cache is the book
parsed and checked from scratch, problems and warnings included, and an entry that no
longer matches its inputs, or cannot be read, is made again."""
from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from conftest import CONFIG, DECLARE, build, md, with_build_system, write_book
from tabbook.core import parallel
from tabbook.core.config import load_config
from tabbook.core.layout import Layout
from tabbook.core.model import Book
from tabbook.notebooks.split import code_cells
from tabbook.source import pycode, section_cache
from tabbook.source.check import check_book
from tabbook.source.parse import parse_book, source_files

SECTION = md(
    "# Section",
    DECLARE,
    "Renvoi vers :numref:`fig_absente` et $\\frac{1}{$ formule cassée.",
    "```{.python .input}\nclass A:  #@save\n    pass\n```",
    "```{.python .input}\n@d2l.add_to_class(B)  #@save\ndef f(self):\n    pass\n```")
OTHER = md("# Autre", DECLARE, "![figure](img/absente.png)\n:label:`fig_autre`",
           "Un rôle :inconnu:`x`.")
FILES = {"chap/sec.md": SECTION, "chap/other.md": "\ufeff" + OTHER,
         "chap/index.md": "# Chapitre\n\n```toc\nsec\nother\n```\n"}


def from_scratch(root: Path) -> tuple[Book, list]:
    config = load_config(root)
    book, problems = parse_book(config)
    return book, [*problems, *check_book(book, config)]


def cached(root: Path) -> tuple[Book, list]:
    """The book and its problems as `build.py` loads them, through the section cache."""
    config = load_config(root)
    sections = section_cache.SectionCache(config, Layout(root))
    book, problems = parse_book(config, sections.read)
    sections.save()
    return book, [*problems, *check_book(book, config, sections.checks)]


def assert_same(found: tuple[Book, list], expected: tuple[Book, list]) -> None:
    (book, problems), (expected_book, expected_problems) = found, expected
    assert book == expected_book
    # Cell equality leaves the prose tokens out: they are compared here.
    assert [cell.tokens for page in book.pages() for cell in page.cells] == \
        [cell.tokens for page in expected_book.pages() for cell in page.cells]
    assert problems == expected_problems


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The files the section cache parses (those it does not take from an entry)."""
    parsed = []
    real = section_cache.section_of

    def counting(data, relative, source, book_tabs):
        parsed.append(relative.as_posix())
        return real(data, relative, source, book_tabs)
    monkeypatch.setattr(section_cache, "section_of", counting)
    return parsed


def test_cached_book_is_the_book_parsed_from_scratch(tmp_path, parses):
    root = write_book(tmp_path, FILES)
    expected = from_scratch(root)
    messages = " ".join(str(p) for p in expected[1])
    for shown in ("fig_absente", "add_to_class(B)", "byte-order mark", "img/absente.png",
                  ":inconnu:", "math"):
        assert shown in messages   # the book has problems of each kind, warnings too
    assert_same(cached(root), expected)   # cold: every file parsed, entries written
    assert sorted(parses) == ["chap/index.md", "chap/other.md", "chap/sec.md", "index.md"]
    parses.clear()
    assert_same(cached(root), expected)   # warm: nothing parsed again
    assert parses == []


def test_cached_cells_keep_their_code_per_tab_and_the_split_resolves_nothing(tmp_path,
                                                                           monkeypatch):
    root = write_book(tmp_path, FILES)
    cached(root)   # cold: the check resolves each cell for each tab, the entries keep it
    book, _ = cached(root)
    section = next(page for page in book.pages() if page.name == "chap/sec")
    cell = next(cell for cell in section.code_cells() if "class A" in cell.source)
    assert list(cell.resolved) == [tab for tab in section.tabs if cell.in_tab(tab)] != []
    assert cell.resolved["pytorch"] == pycode.resolve_code(cell.source, "pytorch")

    def resolving(source, tab):
        raise AssertionError(f"resolved again for {tab}: {source!r}")
    monkeypatch.setattr(pycode, "resolve_code", resolving)
    assert any("class A:" in code.source for code in code_cells(section, "pytorch").values())


def test_edited_section_is_parsed_again_and_its_new_problem_shows(tmp_path, parses):
    root = write_book(tmp_path, FILES)
    cached(root)
    parses.clear()
    (root / "chapters/chap/other.md").write_text(
        OTHER + "\nVoir :numref:`fig_autre` et :numref:`fig_nouvelle`.\n", encoding="utf-8")
    found = cached(root)
    assert parses == ["chap/other.md"]
    assert any("fig_nouvelle" in str(p) for p in found[1])
    # The label the edit refers to was read from the cache of sec.md's neighbour: resolved.
    assert not any("'fig_autre'" in str(p) for p in found[1])
    assert_same(found, from_scratch(root))


def test_changed_config_value_or_build_code_invalidates(tmp_path, parses, monkeypatch):
    root = write_book(tmp_path, FILES)
    cached(root)
    parses.clear()
    # Another default tab: the section's tabs and the undeclared-tab warnings change.
    (root / "config.ini").write_text(
        CONFIG.replace("tabs = pytorch, mxnet, tensorflow", "tabs = mxnet, pytorch, tensorflow"),
        encoding="utf-8")
    found = cached(root)
    assert len(parses) == 4
    assert_same(found, from_scratch(root))
    parses.clear()
    code = tmp_path / "stand-in.py"
    code.write_text("# the build's code\n")
    monkeypatch.setattr(section_cache, "tool_files", lambda: (code,))
    cached(root)
    assert len(parses) == 4
    parses.clear()
    code.write_text("# the build's code, edited\n")
    cached(root)
    assert len(parses) == 4


@pytest.mark.parametrize("damage", [b"", b"not a pickle", b"\x80\x05garbage"])
def test_unreadable_entry_is_made_again(tmp_path, parses, damage):
    root = write_book(tmp_path, FILES)
    cached(root)
    entry = Layout(root).parsed_section(Path("chap/sec.md"))
    written = entry.read_bytes()
    entry.write_bytes(damage)
    parses.clear()
    assert_same(cached(root), from_scratch(root))
    assert parses == ["chap/sec.md"]
    assert stored(entry.read_bytes()) == stored(written)


def stored(entry: bytes) -> tuple:
    """What an entry holds: its key, and its section (with the prose tokens, which Cell
    equality leaves out), problems and check. Not its bytes: pickle writes a string once
    and then refers to it, so they depend on which equal strings the process shared (a
    token's text is its cell's source object, or not, after an earlier parse)."""
    key, _, pickled = entry.partition(b"\n")
    section, problems, check = pickle.loads(pickled)
    return key, section, [cell.tokens for cell in section.cells], problems, check


def test_check_prints_the_same_warnings_from_the_cache(tmp_path):
    root = with_build_system(write_book(tmp_path, FILES, CONFIG.replace(
        "warning_is_error = True", "warning_is_error = False")))
    cold = build(root, "check")
    # Kept by a check of a book never built: the next command does not parse it again.
    assert Layout(root).parsed_section(Path("chap/sec.md")).is_file()
    warm = build(root, "--recheck", "check")
    assert "fig_absente" in cold.stderr and "add_to_class(B)" in cold.stderr
    assert (warm.returncode, warm.stdout, warm.stderr) == \
        (cold.returncode, cold.stdout, cold.stderr)


def test_entries_made_by_parallel_workers_are_those_of_one_process(tmp_path, parses,
                                                                    monkeypatch):
    sections = {f"chap/sec{n}.md": SECTION.replace("# Section", f"# Section {n}")
                for n in range(6)}
    toc = "\n".join(name[5:-3] for name in sections)
    root = write_book(tmp_path, {**FILES, **sections,
                                 "chap/index.md": f"# Chapitre\n\n```toc\nsec\nother\n{toc}\n```\n"})
    monkeypatch.setattr(section_cache, "PARALLEL_FROM", 2)
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1})
    config = load_config(root)
    cache = section_cache.SectionCache(config, Layout(root))
    cache.prefill(source_files(config))
    assert parses == []   # all parsed by the workers
    cache.save()
    entries = Layout(root).parsed_section(Path("any.md")).parent
    assert len(list(entries.rglob("*.pickle"))) == 10
    assert_same(cached(root), from_scratch(root))
    assert parses == []
