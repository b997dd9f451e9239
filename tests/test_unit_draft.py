"""output/draft.py and cli/preview.py: the live preview's drafts of edited pages, on a small
built book whose executed notebooks are written as eval writes them (no kernel)."""
from __future__ import annotations

import io
import shutil
from pathlib import Path

import nbformat

from conftest import DECLARE, REPO, md, write_book, write_executed
from tabbook.cli.console import Console
from tabbook.cli.preview import draft
from tabbook.core.config import load_config
from tabbook.core.layout import Layout
from tabbook.notebooks.split import split_section
from tabbook.output.draft import draft_pages, shown_files
from tabbook.output.render import render_site
from tabbook.output.site_inputs import INPUTS_STAMP
from tabbook.source.numbering import number_book
from tabbook.source.parse import parse_book

SECTION = "chap/sec.md"
PAGE = "chap/sec.html"


def section(prose: str = "Une phrase de départ.", code: str = "print(6 * 7)",
            value: str = "") -> str:
    return md(DECLARE, "# Une section", prose + value,
              f"```{{.python .input}}\n%%tab all\n{code}\n```",
              "Après le code, :numref:`sec_other` en est le renvoi.")


OTHER = md("# Une autre section\n:label:`sec_other`", "Rien à exécuter ici.")


def with_output(found: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The split notebook as eval writes it: each code cell with an output."""
    for cell in found.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="42\n")]
    return found


def executed(section: object, tab: str) -> nbformat.NotebookNode:
    return with_output(split_section(section, tab))


def built(root: Path) -> Path:
    """The book in `root` executed and rendered; its site folder."""
    write_book(root, {SECTION: section(), "chap/other.md": OTHER})
    (root / "chapters" / "chap" / "index.md").write_text(
        "# Chapitre\n\n```toc\n:maxdepth: 2\n\nsec\nother\n```\n", encoding="utf-8")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    config, book, layout = write_executed(root, executed)
    download(root, "Une phrase de départ.")
    return render_site(book, config, number_book(book), config.build.tabs, layout).folder


def download(root: Path, text: str) -> None:
    """The section's launch notebook for PyTorch, as the launch stage writes it."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
    path = Layout(root).launch / "pytorch" / "chap" / "sec.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)


def drafted(root: Path, text: str) -> list[str]:
    """`text` saved as the section, then its draft made as `serve` makes it."""
    (root / "chapters" / SECTION).write_text(text, encoding="utf-8")
    config = load_config(root)
    book, _ = parse_book(config)
    return draft_pages(book, config, number_book(book), config.build.tabs, Layout(root),
                       [root / "chapters" / SECTION], split_section)


def test_a_prose_edit_is_drafted_as_the_rebuild_then_renders_it(tmp_path):
    site = built(tmp_path)
    before = (site / PAGE).read_text(encoding="utf-8")
    assert drafted(tmp_path, section("Une phrase retouchée, montrée tout de suite.")) == [PAGE]
    page = (site / PAGE).read_text(encoding="utf-8")
    assert "Une phrase retouchée, montrée tout de suite." in page and page != before
    assert "42" in page   # the outputs of the run, which the edit leaves valid
    shown = shown_files(site, [PAGE])
    config = load_config(tmp_path)
    book, _ = parse_book(config)
    render_site(book, config, number_book(book), config.build.tabs, Layout(tmp_path))
    # The draft was the very page the rebuild wrote: the open pages need no second reload.
    assert (site / PAGE).read_text(encoding="utf-8") == page
    assert shown_files(site) == shown


def test_shown_files_are_the_stamps_with_the_drafts_and_without_the_index(tmp_path):
    site = built(tmp_path)
    recorded = shown_files(site)
    assert PAGE in recorded and "search.html" in recorded
    assert not [name for name in recorded if name.startswith(("pagefind/", "notebooks/"))]
    assert any((site / "pagefind").rglob("*"))   # it is there, only left out
    drafted(tmp_path, section("Une autre phrase."))
    after = shown_files(site, [PAGE])
    assert after.keys() == recorded.keys()
    assert [name for name in recorded if after[name] != recorded[name]] == [PAGE]
    (site / INPUTS_STAMP).write_text("{not json", encoding="utf-8")
    assert shown_files(site) is None


def test_an_edit_of_code_or_of_what_the_kernel_computes_waits_for_the_rebuild(tmp_path):
    site = built(tmp_path)
    page = (site / PAGE).read_text(encoding="utf-8")
    # Its outputs would be those of the old code; a new value is not computed yet.
    assert drafted(tmp_path, section(code="print(6 * 8)")) == []
    assert drafted(tmp_path, section(value=" Il vaut :eval:`6 * 7`.")) == []
    assert (site / PAGE).read_text(encoding="utf-8") == page


def test_nothing_is_drafted_in_a_site_never_built_nor_for_a_page_it_lacks(tmp_path):
    write_book(tmp_path, {SECTION: section()})
    write_executed(tmp_path, executed)
    assert drafted(tmp_path, section("Une phrase.")) == []
    assert not (tmp_path / "_build" / "html").exists()
    (tmp_path / "built").mkdir()
    site = built(tmp_path / "built")
    (site / PAGE).unlink()
    assert drafted(tmp_path / "built", section("Une phrase.")) == []
    assert not (site / PAGE).exists()


def rebuilt(root: Path) -> None:
    config = load_config(root)
    book, _ = parse_book(config)
    render_site(book, config, number_book(book), config.build.tabs, Layout(root))


def serve_draft(root: Path, text: str, *changed: str):
    """What `serve` drafts once `text` is saved as the section."""
    (root / "chapters" / SECTION).write_text(text, encoding="utf-8")
    console = Console(io.StringIO(), io.StringIO())
    return draft(root, None, False, [root / name for name in changed or ["chapters/" + SECTION]],
                 console)


def test_the_rebuild_after_a_draft_reloads_the_pages_only_if_it_changed_another_file(tmp_path):
    site = built(tmp_path)
    made = serve_draft(tmp_path, section("Une phrase montrée en brouillon."))
    assert made.pages == [PAGE] and made.seconds > 0
    download(tmp_path, "Une phrase montrée en brouillon.")   # what the launch stage does
    rebuilt(tmp_path)
    # The draft was the page, and a download is fetched when clicked: no second reload.
    assert (site / "notebooks" / "pytorch" / "chap" / "sec.ipynb").is_file()
    assert not made.outdated_by(site)
    # A new title: the next page's links and the chapter's contents change too.
    made = serve_draft(tmp_path, section("Encore une phrase.").replace(
        "# Une section", "# Une section renommée"))
    assert made.pages == [PAGE]
    rebuilt(tmp_path)
    assert made.outdated_by(site)


def test_serve_drafts_nothing_for_another_file_or_a_book_that_fails_its_checks(tmp_path):
    site = built(tmp_path)
    page = (site / PAGE).read_text(encoding="utf-8")
    assert serve_draft(tmp_path, section("Une phrase."), "chapters/" + SECTION,
                       "config.ini") is None
    assert serve_draft(tmp_path, section("Une phrase.\n\n:begin_tab:`pytorch`\nSans fin.")) \
        is None
    assert serve_draft(tmp_path, section("Une phrase."), "img/figure.png") is None
    assert (site / PAGE).read_text(encoding="utf-8") == page
