"""HTML stage: the executed notebooks of every tab merged into one static site.

Per page, code and outputs that differ between frameworks form a tab group; identical ones
show once. One framework choice drives every group of every page (stored in the browser, or
``?tab=`` in the URL). The site makes no external request: styles, scripts, math (MathML)
and search are all local. A site built for one tab has no tab interface at all. Its pages
offer the launch notebooks and show the book's favicon, logo and style sheets: what the
stage needs of config.ini (`requirements`) is theirs.
"""
from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import rcssmin
from markupsafe import Markup
from pygments.formatters import HtmlFormatter

from ..bootstrap.errors import BookError
from ..bootstrap.records import FINGERPRINT, read_record, tree_hashes, write_stamp
from ..core.config import Config
from ..core.files import link_or_copy, old_folder, read_notebook, remove, replace_folder
from ..core.frameworks import framework
from ..core.language import Language
from .site_inputs import (INPUTS_STAMP, PAGES, kept_pages, page_file, page_keys,
                          site_fingerprint, site_kept)
from .launch import LaunchLinks, has_launch_notebook, launch_links
from .launch import requirements as launch_requirements
from ..core.layout import Layout, published_path, published_pdf
from .markup import PageContext
from ..core.model import Book, Section
from ..source.numbering import Numbers
from .math_font import FONT, FONT_FACE, font_file_name, math_font
from ..execution.provenance import describe, gpu_tabs
from .package_reference import Entry, package, reference_section, render_reference
from .search_index import search_index
from .decks import Deck, book_decks, deck_book, write_decks
from .page_parts import TabGroup, page_parts
from .slides import slide_makers
from ..source.rst_blocks import automodules, module_tabs
from .highlighting import keep_highlighted
from .templating import ASSETS, ENVIRONMENT, say
from .typography import typeset
from .used_files import SHOWN_FILE, copy_kept


def requirements(config: Config, tabs: tuple[str, ...]) -> list[str]:
    """What the site needs of config.ini, for a command to check before it does any work:
    the launch notebooks' repository, and the files [html] names (looked for here, not when
    config.ini is read: `check`, `lib` and `notebooks` run without them, as d2lbook's do)."""
    return launch_requirements(config, tabs) + config.html.missing_files()


DECKS = "slides"
"""The site's folder of slide decks."""


class RenderError(BookError):
    """The site cannot be rendered (an executed notebook is missing)."""


@dataclass
class Site:
    """What every page shares."""
    config: Config
    book: Book
    numbers: Numbers
    tabs: tuple[str, ...]
    folder: Path
    layout: Layout
    pdfs: dict[str, str] = field(default_factory=dict)
    """Tab -> the site path of its PDF (``build.py pdf``), for the tabs that have one."""
    package: dict[str, tuple[Entry, ...]] = field(default_factory=dict)
    """Tab -> the reference of its d2l library, for the tabs that have one."""
    reference: Section | None = None
    """The page of the package reference, after the last chapter (none for a book without
    a library, or whose pages show it in automodule blocks)."""
    decks: dict[str, dict[str, str]] = field(default_factory=dict)
    """Section name -> tab -> the site path of its slide deck, for the sections with slide
    marks."""

    @property
    def tabbed(self) -> bool:
        return len(self.tabs) > 1

    def pages(self) -> list[Section]:
        """The site's pages in order: the book's, then the package reference."""
        return self.book.pages() + ([self.reference] if self.reference else [])


# -- one page --------------------------------------------------------------------
def executed_notebook(layout: Layout, section: Section, tab: str) -> nbformat.NotebookNode:
    """The executed notebook of `section` for `tab`, which the eval stage wrote (the split
    one for a book that is not executed)."""
    path = layout.shown_notebook(tab, section)
    if not path.is_file():
        step = "eval" if layout.executes else "notebooks"
        raise RenderError(f"{section.display_path} [{tab}]: no {'executed ' * layout.executes}"
                          f"notebook in {layout.shown(path)} — run `python3 build.py {step}`")
    return read_notebook(path)


@dataclass(frozen=True)
class _Launch:
    """What the launch buttons of one tab point to."""
    tab: str
    links: LaunchLinks
    download: str
    filename: str
    """The downloaded file's name: the section's and the framework's (``gpu-mxnet.ipynb``)."""
    python: str
    """The newest Python the framework runs on when Colab and Kaggle cannot run it (the
    download only is offered), "" otherwise."""
    readme: Markup
    """A link to the repository's README (where the book's environment is set up)."""


def readme_link(config: Config, language: Language) -> Markup:
    """The repository's README ([launch] github_repo), as a link."""
    return Markup('<a href="https://github.com/{}#readme">{}</a>').format(
        config.launch.github_repo, say(language, "readme"))


def _launch(site: Site, section: Section, tab: str, ctx: PageContext) -> _Launch:
    path = published_path(tab, section)
    return _Launch(tab, launch_links(site.config, tab, section), ctx.asset("notebooks/" + path),
                   f"{Path(path).stem}-{tab}.ipynb", framework(tab).max_python,
                   readme_link(site.config, site.config.project.language))


def _chapter_sections(book: Book, section: Section) -> list[Section]:
    """The sections of the chapter whose index page `section` is (none for another page)."""
    for chapter in book.chapters:
        if chapter.index.name == section.name:
            return list(chapter.sections)
    return []


def render_page(site: Site, pages: list[Section], position: int) -> str:
    section = pages[position]
    page_tabs = [t for t in site.tabs if t in section.tabs]
    language = site.config.project.language
    ctx = PageContext(section.name, section.display_path, site.numbers, site.folder,
                      site.config.root, language)
    notebooks = {tab: executed_notebook(site.layout, section, tab) for tab in page_tabs}
    parts = page_parts(section, page_tabs, ctx, notebooks,   # fills ctx.outline
                       _automodules(site, section, ctx))
    launches = [_launch(site, section, tab, ctx) for tab in page_tabs
                if has_launch_notebook(section, tab)]
    on_gpus = gpu_tabs(notebooks)
    provenance = [(tab, text) for tab in page_tabs
                  if (text := describe(tab, notebooks[tab], language, on_gpus))]
    number = site.numbers.sections.get(section.name, "")
    return ENVIRONMENT.get_template("page.html").render(
        site=site, ctx=ctx, ui=language, title=typeset(f"{number} {section.title}".strip(),
                                                       language), parts=parts,
        launches=launches, provenance=provenance, page_tabs=page_tabs if launches else [],
        section_tabs=page_tabs, chapter_sections=_chapter_sections(site.book, section),
        previous=pages[position - 1] if position > 0 else None,
        following=pages[position + 1] if position + 1 < len(pages) else None)


def _titles(book: Book) -> dict[str, str]:
    return {page.name: page.title for page in book.pages()}


def _automodules(site: Site, section: Section, ctx: PageContext) -> dict[str, Markup]:
    """Module -> its reference, for the section's automodule blocks of a tab with a
    library (a block naming another module shows nothing: the checks warned)."""
    tabs = module_tabs(site.config)
    return {module: render_reference(site.package[tabs[module]], tabs[module], ctx,
                                     _titles(site.book))
            for module in automodules(section) if tabs.get(module) in site.package}


def render_reference_page(site: Site, pages: list[Section], position: int) -> str:
    """The page of the package reference: one tab group of each tab's reference (shown
    bare on a site built for one tab)."""
    section = pages[position]
    language = site.config.project.language
    ctx = PageContext(section.name, section.display_path, site.numbers, site.folder,
                      site.config.root, language)
    titles = _titles(site.book)
    group = TabGroup({tab: [render_reference(site.package[tab], tab, ctx, titles)]
                      for tab in section.tabs}, runs_code=True)
    heading = Markup("<h1>{}</h1>\n<p>{}</p>").format(
        typeset(section.title, language), say(language, "package_intro"))
    return ENVIRONMENT.get_template("page.html").render(
        site=site, ctx=ctx, ui=language, title=typeset(section.title, language),
        parts=[heading, group], launches=[], provenance=[], page_tabs=[],
        section_tabs=list(section.tabs), chapter_sections=[],
        previous=pages[position - 1] if position > 0 else None, following=None)


def render_site_page(site: Site, pages: list[Section], position: int) -> str:
    """The HTML of `pages[position]`, a page of the site or its package reference."""
    if pages[position] is site.reference:
        return render_reference_page(site, pages, position)
    return render_page(site, pages, position)


# -- the whole site ------------------------------------------------------------
def light_stylesheet() -> str:
    """The book's style sheet with the light colours of highlighted code."""
    return ((ASSETS / "book.css").read_text(encoding="utf-8") + "\n" +
            HtmlFormatter(style="default").get_style_defs(".highlight"))


def _stylesheet(site: Site, math_font_name: str | None) -> str:
    """The site's style sheet, its math font the subset named `math_font_name` (none when
    the site has no math)."""
    dark = HtmlFormatter(style="github-dark").get_style_defs(".highlight")
    # data-scheme is the theme in effect ("auto" resolved), set before the first paint.
    dark_scoped = "\n".join(f"html[data-scheme=dark] {rule}" for rule in dark.splitlines()
                            if rule.startswith(".highlight"))
    # Every framework-specific element is hidden unless its tab is the chosen one.
    tab_rules = "\n".join(f'html[data-tab="{tab}"] [data-tab]:not([data-tab="{tab}"]) '
                          "{ display: none; }" for tab in site.tabs)
    # The book's own style sheets ([html] include_css) come last, so that they win.
    own = "\n".join(path.read_text(encoding="utf-8", errors="replace")
                    for path in site.config.html.style_sheets)
    # Comments and spacing out: every page loads this sheet (budget 200 KB a page).
    sheet = light_stylesheet()
    sheet = sheet.replace(f"fonts/{FONT.name}", f"fonts/{math_font_name}") if math_font_name \
        else FONT_FACE.sub("", sheet)
    return rcssmin.cssmin(f"{sheet}\n{dark_scoped}\n{tab_rules}\n{own}\n") + "\n"


def _search_page(site: Site, folder: str) -> str:
    """The search page; `folder` is the site's folder in _build, as the reader serves it."""
    language = site.config.project.language
    ctx = PageContext("search", "search.md", site.numbers, site.folder, site.config.root,
                      language)
    return ENVIRONMENT.get_template("search.html").render(
        site=site, ctx=ctx, ui=language, title=say(language, "search"), page_tabs=[],
        folder=folder)


@dataclass
class RenderResult:
    folder: Path
    pages: int
    rendered: bool = True
    """False when the site was already made from the same inputs and was kept."""


def render_site(book: Book, config: Config, numbers: Numbers, tabs: tuple[str, ...],
                layout: Layout, progress=None) -> RenderResult:
    """Render the book for `tabs` into its site folder; the old site stays until done.

    A site made from the very same inputs, and intact, is kept as it is
    (`RenderResult.rendered` False).
    """
    final = layout.site(tabs, config.build.tabs)
    staging = final.with_name(final.name + ".new")
    for leftover in (staging, old_folder(final)):   # what a render killed midway left
        remove(leftover)
    inputs = site_fingerprint(book, config, tabs, layout)
    record = read_record(final / INPUTS_STAMP, {FINGERPRINT: str, "files": dict})
    if site_kept(final, record, inputs):   # its pages counted as a render counts them
        reference = reference_section(config, book, tabs)
        return RenderResult(final, len(book.pages()) + (reference is not None), rendered=False)
    keep_highlighted(layout.highlighted)
    try:
        site, decks = prepared_site(book, config, numbers, tabs, layout, staging)
        keys = _write_site(site, decks, final, kept_pages(final, record), progress)
        write_stamp(staging / INPUTS_STAMP, inputs, files=tree_hashes(staging), **{PAGES: keys})
        # Published only now: a failure above leaves the previous site intact.
        replace_folder(staging, final, last=INPUTS_STAMP)
    except BaseException as err:   # a failure or Ctrl-C leaves no half-written site
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(err, OSError) and not err.filename:   # a full disk names no file
            err.filename = str(staging)
        raise
    return RenderResult(final, len(site.pages()))


def prepared_site(book: Book, config: Config, numbers: Numbers, tabs: tuple[str, ...],
                  layout: Layout, folder: Path) -> tuple[Site, list[Deck]]:
    """What the pages written into `folder` share: the PDFs they offer, the package
    reference, the slide decks they link to (returned, made only when written)."""
    site = Site(config, book, numbers, tabs, folder, layout, package=package(book, config, tabs),
                reference=reference_section(config, book, tabs))
    site.pdfs = {tab: published_pdf(path) for tab in tabs
                 if (path := layout.pdf(config.project.name, tab)).is_file()}
    return site, _decks(site)


def _write_site(site: Site, decks: list[Deck], final: Path, kept: dict[str, str],
                progress) -> dict[str, str]:
    """Write the whole site into `site.folder`, which will replace `final` in _build: the
    pages whose key is in `kept` are copied from there. Return each page's key."""
    layout, tabs, staging = site.layout, site.tabs, site.folder
    staging.mkdir(parents=True)
    keys = page_keys(site.config, site.book, site.numbers, tabs, layout, site.pdfs,
                     repr(site.package), site.reference, site.decks)
    pages = site.pages()
    for position, section in enumerate(pages):
        started = time.monotonic()
        name = page_file(section)
        (staging / name).parent.mkdir(parents=True, exist_ok=True)
        if kept.get(name) == keys[name]:
            copy_kept(name, final, staging, used=SHOWN_FILE)
        else:
            (staging / name).write_text(render_site_page(site, pages, position),
                                         encoding="utf-8")
        if progress:
            progress(position + 1, len(pages), section, time.monotonic() - started)
    (staging / "search.html").write_text(_search_page(site, final.name), encoding="utf-8")
    # The search index is built meanwhile: from the pages, all written now.
    with search_index(staging, tabs, [page_file(page) for page in pages]):
        _write_shared_files(site, final, kept, keys, decks)
    return keys


def _write_shared_files(site: Site, final: Path, kept: dict[str, str], keys: dict[str, str],
                        decks: list[Deck]) -> None:
    """What the pages use besides themselves: the math font cut to their math, the style
    sheet and script, the downloadable notebooks and PDFs, the decks, the book's files."""
    layout, staging = site.layout, site.folder
    static = staging / "_static"
    # The math font (book.css) cut to the math of the pages, new and kept alike.
    font = math_font((page.read_text(encoding="utf-8") for page in staging.rglob("*.html")),
                     layout.math_font)
    font_name = None
    static.mkdir(exist_ok=True)
    if font:   # with its licence
        font_name = font_file_name(font)
        shutil.copytree(ASSETS / "fonts", static / "fonts", ignore=shutil.ignore_patterns(
            FONT.name))
        (static / "fonts" / font_name).write_bytes(font)
    (static / "book.css").write_text(_stylesheet(site, font_name), encoding="utf-8")
    shutil.copy(ASSETS / "book.js", static / "book.js")
    # The downloadable notebooks of the launch stage and the PDFs of `build.py pdf`, linked:
    # those stages replace their files by renames, never in place.
    for tab in site.tabs:
        source = layout.launch / tab
        if source.is_dir():
            shutil.copytree(source, staging / "notebooks" / tab, copy_function=link_or_copy)
    for tab, site_path in site.pdfs.items():
        (staging / site_path).parent.mkdir(parents=True, exist_ok=True)
        link_or_copy(layout.pdf(site.config.project.name, tab), staging / site_path)
    _write_decks(site, decks, final, kept, keys)
    (staging / ".nojekyll").write_text("")   # GitHub Pages: serve _static and _images as is
    _copy_book_files(site.config, staging)


def _decks(site: Site) -> list[Deck]:
    """The slide decks of the site's sections (made from their executed notebooks), noted
    in `site.decks` for the pages' links."""
    decks = book_decks(slide_makers(site.config, site.numbers, site.layout,
                                    site.book.pages(), site.tabs), site.book, site.numbers)
    for deck in decks:
        site.decks.setdefault(deck.section, {})[deck.tab] = f"{DECKS}/{deck.path}"
    return decks


def _write_decks(site: Site, decks: list[Deck], final: Path, kept: dict[str, str],
                 keys: dict[str, str]) -> None:
    """The site's decks (not in the search index: they have no data-pagefind-body). A
    deck's key is its section page's (made from the same notebooks, sources, titles and
    numbers) and its tab's: added to `keys`; a deck whose key is in `kept` is copied from
    the previous site."""
    if not decks:
        return
    keys.update({f"{DECKS}/{deck.path}": f"{keys[deck.section + '.html']}:{deck.tab}"
                 for deck in decks})
    write_decks(site.folder / DECKS, decks,
                deck_book(site.book, site.config, site.numbers, site=".."),
                kept=lambda deck: final / DECKS if kept.get(
                    f"{DECKS}/{deck.path}") == keys[f"{DECKS}/{deck.path}"] else None)


def _copy_book_files(config: Config, staging: Path) -> None:
    """The favicon and the logo into _static/, d2lbook's [build] resources at their path
    in the sources' folder (what the pages already hold stays)."""
    files = {config.html.static_name(path): path
             for path in (config.html.favicon, config.html.logo) if path}
    for site_path, source in {**config.html.resources, **files}.items():
        target = staging / site_path
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
