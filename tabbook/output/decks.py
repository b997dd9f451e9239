"""Slide decks: a section's slide notebook (RISE format) as an offline reveal.js deck.

A slide notebook holds markdown cells whose ``metadata.slideshow.slide_type`` is
``"slide"`` (a new slide) or ``"-"`` (the current slide), and code cells, with the
outputs of one tab's run, that belong to the slide of the cell before them (``"skip"``
and ``"notes"`` cells are left out). Its markdown cells' level-1 heading lines are
dropped, since the deck's title slide shows the section's title; a slide left with
nothing is dropped too. Slides are made the way the site makes pages: prose by
`markup.render_prose` (MathML with the book's math font, French typography), code by
`outputs.highlight_code` (Pygments) and outputs by `outputs.render_outputs` (text,
images written under ``_images/`` of the decks' folder, SVG, HTML tables). A slide
taller than the screen shrinks to fit, down to 60 %, then scrolls; printed (reveal's
print view, ``?print-pdf``), it shrinks to its one page (``assets/decks.js``).

The API (the caller builds the `Deck`s and the `DeckBook`):

- ``write_decks(folder, decks, book)``: every deck at ``<folder>/<tab>/<section>.html``,
  the index at ``<folder>/index.html``, reveal.js (``bootstrap.environments.ensure_reveal``,
  downloaded once from the npm registry), the math font and the decks' style sheet and
  script once under ``<folder>/_static/``. The folder is made beside its place and
  swapped in whole: an error leaves the previous one as it was. Returns the decks' paths.
- ``render_deck(deck, book, folder)``: one deck's HTML (its output images written
  under `folder`, the decks' folder).
- ``render_deck_index(decks, book)``: the index page, decks by chapter and tab.

A deck has 1 + its notebook's slides (``Reveal.getTotalSlides()``). What prints one (Chromium
at ``<deck>?print-pdf``) waits for the class ``deck-printable`` on ``<html>``, then prints
at the page size of its CSS (Playwright's ``prefer_css_page_size``): one page per slide.
"""
from __future__ import annotations

import functools
import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat
from markupsafe import Markup
from pygments.formatters import HtmlFormatter

from ..bootstrap.environments import ensure_reveal
from ..core.config import Config
from ..core.files import old_folder, remove, replace_folder
from ..core.language import Language
from ..core.model import Book
from ..source.numbering import Numbers
from .descriptions import cell_description
from .markup import PageContext, render_prose
from .highlighting import highlight_code
from .outputs import render_outputs
from .templating import ASSETS, ENVIRONMENT, MACROS
from .typography import typeset
from .used_files import copy_kept

INDEX = "index.html"
STATIC = "_static"
NEW_SLIDE = ("slide", "subslide")
"""The slide types that start a slide (RISE's sub-slides are slides here)."""
LEFT_OUT = ("skip", "notes")
"""The slide types of cells that no slide shows (a deck has no speaker view)."""
OWN_LINE_IMAGE = re.compile(r"^(!\[[^\]]*\]\([^)\s]+\))[ \t]*$", re.M)
"""An image on its own line of a slide's text (a mark of its own): made a paragraph, it is
shown as the site shows a figure, its file copied into the decks."""
TITLE_LINE = re.compile(r"^# .*(?:\n|$)", re.M)
"""A level-1 heading line of a markdown cell, which the title slide shows already."""


@dataclass(frozen=True)
class Deck:
    """One deck: the slide notebook of a section for one tab."""
    make_notebook: Callable[[], nbformat.NotebookNode]
    """Makes the slide notebook (`output.slides`), only for a deck that is rendered: a site
    copies most of its decks from its previous build."""
    section: str
    """The section's name, e.g. ``chapter_gpu/use-gpu``."""
    display_path: str
    """Its .md path from the project, where the images of its prose are found."""
    title: str
    """Its title as the book shows it, number included (``3.1 Utiliser un GPU``)."""
    chapter: str
    """The title of its chapter, under which the index lists it."""
    tab: str

    @functools.cached_property
    def notebook(self) -> nbformat.NotebookNode:
        return self.make_notebook()

    @property
    def path(self) -> str:
        """The deck's file, relative to the decks' folder."""
        return f"{self.tab}/{self.section}.html"


@dataclass(frozen=True)
class DeckBook:
    """What every deck of a book shares."""
    title: str
    language: Language
    numbers: Numbers
    """The book's numbers, which the references of the slides' prose show."""
    project_root: Path
    site: str = ""
    """The book's site from the decks' folder (``..``): each deck links to its section's
    page and the index to the book's first page; "" for no links."""
    published_url: str = ""
    """The published book's URL, where the slide notebooks' images point: the decks
    carry their own copies (`PageContext.published_url`)."""


def book_decks(makers: Mapping[tuple[str, str], Callable[[], nbformat.NotebookNode]],
               book: Book, numbers: Numbers) -> list[Deck]:
    """The decks of `makers` (`output.slides.slide_makers`: (tab, section name) -> what
    makes its slide notebook), titled as the book titles their sections and chapters."""
    def numbered(section) -> str:
        return f"{numbers.sections.get(section.name, '')} {section.title}".strip()

    sections = {section.name: section for section in book.pages()}
    chapters = {section.name: chapter.index
                for chapter in book.chapters for section in chapter.pages()}
    return [Deck(make, name, sections[name].display_path, numbered(sections[name]),
                 numbered(chapters.get(name, sections[name])), tab)
            for (tab, name), make in makers.items()]


def deck_book(book: Book, config: Config, numbers: Numbers, site: str = "") -> DeckBook:
    """What the decks of `book` share; `site` as `DeckBook.site`."""
    return DeckBook(config.project.title, config.project.language, numbers, config.root, site,
                    config.launch.site_url if config.launch else "")


def slides(notebook: nbformat.NotebookNode) -> list[list[nbformat.NotebookNode]]:
    """The cells of each slide, in order; cells before the first slide start one."""
    grouped: list[list[nbformat.NotebookNode]] = []
    for cell in notebook.cells:
        kind = cell.get("metadata", {}).get("slideshow", {}).get("slide_type", "-")
        if kind in LEFT_OUT:
            continue
        if not grouped or (cell.cell_type == "markdown" and kind in NEW_SLIDE):
            grouped.append([])
        grouped[-1].append(cell)
    return grouped


def _context(deck: Deck, book: DeckBook, folder: Path) -> PageContext:
    """The deck as a page of the decks' folder: its images are written there."""
    return PageContext(f"{deck.tab}/{deck.section}", deck.display_path, book.numbers, folder,
                       book.project_root, book.language, published_url=book.published_url)


def _cell(cell: nbformat.NotebookNode, ctx: PageContext) -> Markup:
    if cell.cell_type == "markdown":
        text = OWN_LINE_IMAGE.sub(r"\n\1\n", TITLE_LINE.sub("", cell.source))
        return Markup(render_prose(text, 1, ctx))
    if cell.cell_type != "code":
        return Markup()
    figures = cell_description(cell.source, "", [], ctx.language)
    return MACROS.cell(
        highlight_code(cell.source), render_outputs(cell.get("outputs", []), ctx, figures))


def render_deck(deck: Deck, book: DeckBook, folder: Path) -> str:
    """The HTML of `deck`, a file of the decks' folder `folder` (where its output images
    are written): a title slide, then one slide per slide of its notebook."""
    ctx = _context(deck, book, folder)
    rendered = [Markup("").join(_cell(cell, ctx) for cell in cells)
                for cells in slides(deck.notebook)]
    page = ctx.asset(f"{book.site}/{deck.section}.html") if book.site else ""
    return ENVIRONMENT.get_template("deck.html").render(
        deck=deck, book=book, ui=book.language, slides=[s for s in rendered if s],
        static=ctx.asset(STATIC), page=page, title=typeset(deck.title, book.language))


def render_deck_index(decks: Sequence[Deck], book: DeckBook) -> str:
    """The index of the decks: per chapter, each section with a link per tab."""
    chapters: dict[str, dict[str, dict[str, str]]] = {}
    for deck in decks:
        sections = chapters.setdefault(deck.chapter, {})
        sections.setdefault(deck.title, {})[deck.tab] = deck.path
    return ENVIRONMENT.get_template("deck_index.html").render(
        book=book, ui=book.language, chapters=chapters,
        home=f"{book.site}/index.html" if book.site else "")


def _stylesheet() -> str:
    """The decks' style sheet, with the light colours of the site's highlighted code."""
    return ((ASSETS / "decks.css").read_text(encoding="utf-8") + "\n" +
            HtmlFormatter(style="default").get_style_defs(".highlight"))


def _write_static(static: Path) -> None:
    reveal = ensure_reveal()
    shutil.copytree(reveal / "dist", static / "reveal" / "dist")
    shutil.copy(reveal / "LICENSE", static / "reveal" / "LICENSE")
    shutil.copytree(ASSETS / "fonts", static / "fonts",
                    ignore=shutil.ignore_patterns("README.md"))
    (static / "decks.css").write_text(_stylesheet(), encoding="utf-8")
    shutil.copy(ASSETS / "decks.js", static / "decks.js")


def write_decks(folder: Path, decks: Sequence[Deck], book: DeckBook,
                kept: Callable[[Deck], Path | None] = lambda deck: None) -> list[Path]:
    """Write `decks`, their index and their assets into `folder` (see the module's
    docstring); the previous folder stays until the new one is whole. A deck for which
    `kept` gives a decks' folder is copied from there instead of rendered (its inputs did
    not change)."""
    paths = [deck.path for deck in decks]
    twice = sorted({path for path in paths if paths.count(path) > 1})
    if twice:
        raise ValueError(f"two decks for {', '.join(twice)}: one per section and tab")
    staging = folder.with_name(folder.name + ".new")
    for leftover in (staging, old_folder(folder)):   # what a write killed midway left
        remove(leftover)
    try:
        staging.mkdir(parents=True)
        _write_static(staging / STATIC)
        for deck in decks:
            target = staging / deck.path
            target.parent.mkdir(parents=True, exist_ok=True)
            previous = kept(deck)
            if previous is not None:
                copy_kept(deck.path, previous, staging)
            else:
                target.write_text(render_deck(deck, book, staging), encoding="utf-8")
        (staging / INDEX).write_text(render_deck_index(decks, book), encoding="utf-8")
        replace_folder(staging, folder, last=INDEX)
    except BaseException:   # a failure or Ctrl-C leaves no half-written folder
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return [folder / path for path in paths]
