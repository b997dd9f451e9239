"""What the site is made from: the whole site's fingerprint, and each page's key, so
that pages are rendered again only when what they are made from changed.

A site whose fingerprint and files are unchanged is kept whole. Otherwise, a page's HTML
depends on what every page shares (the build's code and assets, the config, the book's
titles and reference targets, the tabs, the PDFs the site offers) and on what is its
own (its source, images and bibliography, its notebooks, the numbers of its headings,
figures, tables and equations). The site's stamp keeps each page's key;
when the site is made again, a page whose key is the same and whose file is intact is
copied from the previous site instead of being rendered: a sentence edited on one page
renders that page alone.
"""
from __future__ import annotations

from pathlib import Path

from ..bootstrap.records import FINGERPRINT, file_hash, fingerprint, tree_hashes
from ..core.config import CONFIG_FILE, Config
from ..core.files import tool_files
from ..core.layout import Layout
from ..core.model import Book, Section
from ..features.registry import FEATURES
from ..source.numbering import Numbers
from ..source.rst_blocks import automodules

INPUTS_STAMP = ".inputs"
"""In the site folder: the fingerprint of what the site was made from, the hash of each
of its files, the key of each page."""
PAGES = "pages"
"""The field of the site's stamp: each page's file (relative to the site) -> its key."""


def source_files(book: Book, section: Section) -> set[Path]:
    """A page's source and the files it shows (images, the features' files: its
    bibliography…)."""
    source = book.source_root / section.path
    return {source, *(source.parent / image.path for image in section.images),
            *(source.parent / written for feature in FEATURES
              for written in feature.page_files(section))}


def book_files(book: Book, config: Config) -> set[Path]:
    """What any rendering of the book reads besides notebooks: the build's code and
    assets, the config, every page's source and the files it shows."""
    return {*tool_files(), config.root / CONFIG_FILE,
            *(file for section in book.pages() for file in source_files(book, section))}


def site_fingerprint(book: Book, config: Config, tabs: tuple[str, ...], layout: Layout) -> str:
    """A hash of everything a site is made from: `book_files`, the executed and launch
    notebooks, the PDFs it offers."""
    files = book_files(book, config)
    files.update(config.html.files)
    for tab in tabs:
        files.update(layout.shown_notebooks(tab).rglob("*.ipynb"))
        files.update((layout.launch / tab).rglob("*.ipynb"))
        files.add(layout.pdf(config.project.name, tab))
    return fingerprint(config.root, files, repr(tabs))


def site_kept(folder: Path, record: dict | None, inputs: str) -> bool:
    """Whether the site in `folder`, whose stamp is `record`, was made from `inputs` and
    every file of it is still the one written (none deleted, truncated, edited or added
    since)."""
    return record is not None and record[FINGERPRINT] == inputs and \
        record["files"] == tree_hashes(folder, leave_out=(INPUTS_STAMP,))


def page_file(section: Section) -> str:
    """A page's file in the site."""
    return section.path.with_suffix(".html").as_posix()


def page_keys(config: Config, book: Book, numbers: Numbers, tabs: tuple[str, ...],
              layout: Layout, pdfs: dict[str, str], package: str = "",
              reference: Section | None = None,
              decks: dict[str, dict[str, str]] | None = None) -> dict[str, str]:
    """Page file -> the hash of everything that page is made from. `package`: the d2l
    package's reference as text, which the `reference` page and the pages with automodule
    blocks show (it changes with the #@save code of any section); `decks`: the slide decks
    the pages link to."""
    pages = book.pages() + ([reference] if reference else [])
    shared = fingerprint(
        config.root, {*tool_files(), config.root / CONFIG_FILE, *config.html.files},
        repr(tabs), repr(sorted(pdfs.items())), repr(sorted((decks or {}).items())),
        repr([(page.name, page.title, page.tabs) for page in pages]),
        repr((numbers.sections, sorted(numbers.targets.items()), numbers.features)))
    own = _numbers_by_page(numbers)
    keys = {page_file(section): _page_key(section, shared, book, tabs, layout,
                                          own.get(section.name, []),
                                          package if automodules(section) else "")
            for section in book.pages()}
    if reference:
        keys[page_file(reference)] = fingerprint(config.root, (), shared, package)
    return keys


def _numbers_by_page(numbers: Numbers) -> dict[str, list[tuple[str, int, str]]]:
    """Page name -> its own numbers, (kind, .md line, number) each: keyed by its lines, a
    line added on another page does not move them."""
    own: dict[str, list[tuple[str, int, str]]] = {}
    for kind, table in (("heading", numbers.headings), ("figure", numbers.figures),
                        ("table", numbers.tables), ("equation", numbers.equations)):
        for (page, line), number in sorted(table.items()):
            own.setdefault(page, []).append((kind, line, number))
    return own


def _page_key(section: Section, shared: str, book: Book, tabs: tuple[str, ...],
              layout: Layout, own: list[tuple[str, int, str]], package: str) -> str:
    files = source_files(book, section)
    for tab in tabs:
        files.update((layout.shown_notebook(tab, section), layout.launch_notebook(tab, section)))
    return fingerprint(book.source_root, files, shared, repr(own), package)


def kept_pages(site: Path, record: dict | None) -> dict[str, str]:
    """Page file -> its key, for the pages of the site in `site` (whose stamp is `record`)
    whose file is still the one written."""
    if record is None or not isinstance(record.get(PAGES), dict):
        return {}
    written = record.get("files") or {}
    return {name: key for name, key in record[PAGES].items()
            if name in written and file_hash(site / name) == written[name]}
