"""PDF stage: one framework's book, printed by Chromium from a print layout.

The print layout is one HTML document (``templates/print.html``): a title page,
the table of contents, then every page of the book that the framework has, made
by the HTML book's own renderers (`markup.render_prose`, `render.page_parts`):
the same numbers, references and executed outputs, for this tab only, in the book's
language.
Chapters are <h1> and their sections <h2>, so that Chromium's outline (the PDF's
bookmarks) nests them; references and the table of contents are links inside
the document.

Chromium has no CSS ``target-counter()``: the document is printed with the
page numbers of the previous print (recorded in the PDF's stamp), and the page
where each entry of the table of contents landed is read back from the PDF's
named destinations (the ids the links point to). Where they are the numbers
printed, one print was enough (the usual case after an edit); else it is printed
again with those found. Their boxes have a fixed width, so the pages do not move.

Before each print the document is fitted to the page (`print_fit`); the PDF that
settled gets its bookmarks' whole titles and is rewritten with compressed object
streams (`finished`).
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import datetime
import io
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from markupsafe import Markup

from ..bootstrap.environments import CHROMIUM, CHROMIUM_ARGS
from ..bootstrap.errors import BookError
from ..bootstrap.records import (FINGERPRINT, atomic_write, file_hash, fingerprint, read_record,
                                 write_stamp)
from ..core.config import Config
from ..core.layout import Layout
from .chromium import full_temp_folder_reported, temp_room_error
from .bookmarks import outline_items, whole_titles
from .markup import PageContext
from .print_fit import LANDSCAPE, MARGINS, TEXT_WIDTH_PX, fit_to_page
from .typography import typeset
from ..core.language import Language
from ..core.model import Book, Section
from ..source.numbering import Numbers
from ..execution.provenance import describe
from .page_parts import TabGroup, page_parts
from .render import executed_notebook, light_stylesheet
from .templating import ASSETS, ENVIRONMENT
from .site_inputs import book_files

MAX_PRINTS = 4
"""Prints of one PDF at most: the second one normally finds every page in place."""
DOCUMENT = "index.html"
STYLESHEET = "print.css"


class PdfError(BookError):
    """A PDF cannot be printed (no Chromium, Chromium failed, pages that do not settle)."""


@dataclass
class PdfResult:
    tab: str
    path: Path
    pages: int
    bookmarks: int
    size: int
    """Bytes."""
    prints: int
    """Times Chromium printed it; 0 when the PDF was kept (nothing it is made from changed)."""
    seconds: float


@dataclass(frozen=True)
class Entry:
    """A line of the table of contents: a chapter (level 1) or a section (level 2)."""
    section: Section
    level: int
    number: str
    anchor: str
    """The id of the page in the document, which the entry links to."""


@dataclass
class PrintContext(PageContext):
    """A page's context inside the one-document print layout: every page is an anchor of
    the document, and images are files beside it."""
    anchors: dict[str, str] = field(default_factory=dict)
    """Page name -> its id in the document, for the pages this PDF holds."""
    online: str = ""
    """The published HTML book (for a page this PDF lacks), or ""."""
    code_anchors: bool = False

    def url(self, page: str, anchor: str = "") -> str:
        if page in self.anchors:
            return "#" + (anchor or self.anchors[page])
        if not self.online:
            return ""
        return f"{self.online}{page}.html" + (f"#{anchor}" if anchor else "")

    def asset(self, site_path: str) -> str:
        return site_path


def page_anchor(section: Section) -> str:
    return "page-" + re.sub(r"[^\w-]", "-", section.name)


def contents(book: Book, numbers: Numbers, tab: str) -> list[Entry]:
    """The pages of the book that `tab` has, in book order, as entries of the contents:
    the preface and chapter indexes at level 1, sections at level 2."""
    entries = []
    for chapter_pages in ([book.index], *(chapter.pages() for chapter in book.chapters)):
        for position, section in enumerate(chapter_pages):
            if tab in section.tabs:
                entries.append(Entry(section, 1 if position == 0 else 2,
                                     numbers.sections.get(section.name, ""),
                                     page_anchor(section)))
    return entries


def _page_body(entry: Entry, tab: str, base: PrintContext, layout: Layout) -> Markup:
    """One page of the book for `tab`: its prose, code cells and outputs, then where
    they were produced."""
    section = entry.section
    ctx = dataclasses.replace(base, page=section.name, display_path=section.display_path,
                              outline=[], heading_offset=entry.level - 1)
    notebook = executed_notebook(layout, section, tab)
    parts = page_parts(section, [tab], ctx, {tab: notebook})
    # One tab: a tab group is that tab's fragments, shown bare.
    body = Markup("").join(Markup("").join(part.fragments[tab])
                           if isinstance(part, TabGroup) else part for part in parts)
    provenance = describe(tab, notebook, ctx.language)
    if provenance:
        body += Markup('<p class="provenance">{}</p>').format(provenance)
    return body


@dataclass
class PrintLayout:
    """The document a PDF is printed from, but for the pages of its contents."""
    entries: list[Entry]
    bodies: dict[str, Markup]
    """Page anchor -> the page's HTML."""
    values: dict
    """What else the template shows (title page)."""

    def html(self, pages: dict[str, int]) -> str:
        """The document, with `pages` (anchor -> page number) in the contents."""
        return ENVIRONMENT.get_template("print.html").render(
            entries=self.entries, bodies=self.bodies, pages=pages, **self.values)


def print_layout(book: Book, config: Config, numbers: Numbers, tab: str, layout: Layout,
                 today: datetime.date) -> PrintLayout:
    """Render the print layout of `tab` into its folder (images beside the document)."""
    folder = layout.print_folder(tab)
    if folder.exists():   # images are copied only where missing: none may be stale
        shutil.rmtree(folder)
    entries = contents(book, numbers, tab)
    online = config.launch_settings.site_url if config.launch_settings else ""
    language = config.project.language
    base = PrintContext("", "", numbers, folder, config.root, language,
                        anchors={e.section.name: e.anchor for e in entries}, online=online)
    bodies = {entry.anchor: _page_body(entry, tab, base, layout) for entry in entries}
    chapters, heads = page_rules(entries, language)
    shutil.copytree(ASSETS / "fonts", folder / "fonts")   # the math font, beside the sheet
    atomic_write(folder / STYLESHEET, light_stylesheet() + "\n" +
                 (ASSETS / STYLESHEET).read_text(encoding="utf-8"))
    return PrintLayout(entries, bodies, {"project": config.project, "ui": language, "tab": tab,
                                         "date": language.date(today), "stylesheet": STYLESHEET,
                                         "chapters": chapters, "heads": heads})


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


HEAD_STYLE = 'font: 7.5pt "DejaVu Sans", sans-serif; color: #4f5866;'


def page_rules(entries: list[Entry], language: Language) -> tuple[dict[str, str], Markup]:
    """The named page of each entry's pages (its chapter's: anchor -> name) and the
    @page rules that show each chapter's number and title at the top of its pages, the
    portrait ones and the landscape ones (``<name>-wide``)."""
    chapters: dict[str, str] = {}
    rules = [f"@page wide {{ {LANDSCAPE} }}"]
    name = ""
    for position, entry in enumerate(entries):
        if entry.level == 1:
            name = f"chapter-{position}"
            title = f"{entry.number} {entry.section.title}".strip()
            head = f"@top-center {{ content: {_css_string(typeset(title, language))}; {HEAD_STYLE} }}"
            rules += [f"@page {name} {{ {head} }}", f"@page {name}-wide {{ {LANDSCAPE} {head} }}"]
        chapters[entry.anchor] = name
    return chapters, Markup("\n".join(rules))


# -- printing -----------------------------------------------------------------------
@dataclass(frozen=True)
class Printed:
    data: bytes
    """Chromium's PDF, as printed."""
    pages: int
    bookmarks: int
    destinations: dict[str, int]
    """Named destination (an id that a link points to) -> its page number, from 1."""
    headings: list[str]
    """The text of the document's headings, which its bookmarks are titled after."""


def _named_destinations(document) -> Iterator[tuple[str, object]]:
    """(name, destination) of each named destination of the pikepdf `document`: in the
    catalogue's /Dests (Chromium's) or its /Names tree."""
    import pikepdf

    if "/Dests" in document.Root:
        yield from ((name.lstrip("/"), dest) for name, dest in document.Root.Dests.items())
    names = document.Root.get("/Names")
    if names is not None and "/Dests" in names:
        yield from pikepdf.NameTree(names.Dests).items()


def read_pdf(data: bytes, headings: list[str]) -> Printed:
    """What a printed PDF holds: pages, bookmarks, where each link target landed."""
    import pikepdf

    with pikepdf.open(io.BytesIO(data)) as document:
        numbers = {page.objgen: number for number, page in enumerate(document.pages, 1)}
        destinations = {}
        for name, dest in _named_destinations(document):
            target = dest.D if isinstance(dest, pikepdf.Dictionary) else dest
            destinations[name] = numbers.get(target[0].objgen, 0)
        bookmarks = sum(1 for _ in outline_items(document))
        return Printed(data, len(document.pages), bookmarks, destinations, headings)


def finished(printed: Printed) -> bytes:
    """The PDF as written: its bookmarks titled as its headings (`whole_titles`), rewritten
    by qpdf (pikepdf) with its objects in compressed object streams and its
    cross-reference as a stream (PDF 1.5): Chromium writes the structure tree of a tagged
    PDF as tens of thousands of small uncompressed objects, two thirds of the file. The
    objects are the same: tags, bookmarks, links and named destinations stay."""
    import pikepdf

    written = io.BytesIO()
    with pikepdf.open(io.BytesIO(printed.data)) as document:
        whole_titles(document, printed.headings)
        document.save(written, object_stream_mode=pikepdf.ObjectStreamMode.generate,
                      compress_streams=True)
    return written.getvalue()


def _print(page, document: Path) -> Printed:
    # Laid out as printed (print media, the text's width), so that blocks are measured
    # at the width they will have.
    page.emulate_media(media="print")
    page.set_viewport_size({"width": TEXT_WIDTH_PX, "height": 1000})
    page.goto(document.as_uri())
    # Images below the fold are lazy in the HTML; all of them are printed.
    page.evaluate("document.querySelectorAll('img[loading=lazy]')"
                  ".forEach(img => { img.loading = 'eager'; })")
    page.wait_for_function("Array.from(document.images).every(img => img.complete)")
    page.evaluate("document.fonts.ready.then(() => true)")
    fit_to_page(page)
    headings = page.evaluate("Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6'),"
                             " heading => heading.innerText)")
    return read_pdf(page.pdf(format="A4", margin=MARGINS, print_background=True,
                             prefer_css_page_size=True, outline=True, tagged=True), headings)


def landed(printed: Printed, entries: list[Entry]) -> dict[str, int]:
    """The page each entry of the contents is on in `printed` (0: nowhere)."""
    return {entry.anchor: printed.destinations.get(entry.anchor, 0) for entry in entries}


def print_until_settled(page, document: Path, draft: PrintLayout,
                        pages: dict[str, int]) -> tuple[Printed, int]:
    """Print the document, first with `pages` (anchor -> page number: a guess, such as
    the previous print's), until the page numbers in its contents are the pages its
    entries are on; the PDF and the number of prints."""
    for prints in range(1, MAX_PRINTS + 1):
        atomic_write(document, draft.html(pages))
        printed = _print(page, document)
        found = landed(printed, draft.entries)
        if found == pages:
            return printed, prints
        pages = found
    missing = [anchor for anchor, number in pages.items() if not number]
    raise PdfError(f"{document}: the page numbers of the contents did not settle after "
                   f"{MAX_PRINTS} prints" + (f" (no destination for {', '.join(missing)})"
                                             if missing else ""))


# -- the stage ----------------------------------------------------------------------
def _fingerprint(book: Book, config: Config, tab: str, layout: Layout) -> str:
    notebooks = set(layout.shown_notebooks(tab).rglob("*.ipynb"))
    return fingerprint(config.root, book_files(book, config) | notebooks, tab)


# What a PDF's stamp records besides the fingerprint of its inputs; also "contents", the
# page of each entry of its contents (anchor -> number), which the next print starts from.
RECORD_FIELDS = {FINGERPRINT: str, "pages": int, "bookmarks": int, "pdf": str}


def _previous_pages(record_path: Path) -> dict[str, int]:
    """The page of each entry in the contents of the last PDF printed, or {} if unknown."""
    record = read_record(record_path, {"contents": dict}) or {"contents": {}}
    return {anchor: number for anchor, number in record["contents"].items()
            if isinstance(number, int)}


def _kept(path: Path, record_path: Path, inputs: str, tab: str) -> PdfResult | None:
    """The PDF already printed from the same inputs, if it is there as it was written."""
    record = read_record(record_path, RECORD_FIELDS)
    if record is None or record[FINGERPRINT] != inputs or file_hash(path) != record["pdf"]:
        return None
    return PdfResult(tab, path, record["pages"], record["bookmarks"], path.stat().st_size, 0, 0.0)


def _launch_chromium(stack: contextlib.ExitStack):
    """Chromium, driven by Playwright; both stop when `stack` closes."""
    if not CHROMIUM.is_file():
        raise PdfError(f"Chromium prints the PDF, and {CHROMIUM} is missing — install it "
                       "(`sudo apt-get install chromium` on Debian) and retry")
    if full := temp_room_error():   # checked first: short of room, new_page() can hang
        raise full
    from playwright.sync_api import sync_playwright

    playwright = stack.enter_context(sync_playwright())
    try:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                             args=list(CHROMIUM_ARGS))
    except Exception as err:   # Playwright raises its own Error with Chromium's words
        raise PdfError(f"{CHROMIUM} did not start: {str(err).strip()[:500]}") from err
    stack.callback(browser.close)
    return browser


def write_pdfs(book: Book, config: Config, numbers: Numbers, tabs: tuple[str, ...],
               layout: Layout, progress: Callable[[PdfResult], None] | None = None,
               today: datetime.date | None = None) -> list[PdfResult]:
    """Print the book of each of `tabs` into ``_build/pdf/<name>-<tab>.pdf``; a PDF made
    from the very same inputs, and intact, is kept (Chromium starts only if one is not).
    The PDFs to print are printed at once, each by its own Chromium, as many as the
    machine has processors and one more: a print waits on Chromium's other processes part
    of the time (three PDFs on two cores: 20.5 to 22.6 s at once, 26.7 to 28.4 s two at a
    time). A failure leaves the previous PDF in place."""
    day = today or datetime.date.today()
    inputs = {tab: _fingerprint(book, config, tab, layout) for tab in tabs}
    kept = {tab: _kept(layout.pdf(config.project.name, tab), layout.print_record(tab),
                       inputs[tab], tab) for tab in tabs}
    to_print = [tab for tab in tabs if kept[tab] is None]
    workers = max(1, min(len(to_print), (os.cpu_count() or 1) + 1))
    results = []
    with full_temp_folder_reported(), \
            concurrent.futures.ThreadPoolExecutor(workers, "pdf") as pool:
        printing = {tab: pool.submit(_print_tab, book, config, numbers, tab, layout,
                                     inputs[tab], day) for tab in to_print}
        try:
            for tab in tabs:   # in the order of the tabs, each as soon as it is there
                result = kept[tab] or printing[tab].result()
                results.append(result)
                if progress:
                    progress(result)
        except BaseException:   # the first failure or Ctrl-C: nothing more is started
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return results


def _print_tab(book: Book, config: Config, numbers: Numbers, tab: str, layout: Layout,
               inputs: str, today: datetime.date) -> PdfResult:
    """Print the book of `tab` with a Chromium of its own (Playwright's objects belong to
    the thread that made them)."""
    started = time.monotonic()
    path, record_path = layout.pdf(config.project.name, tab), layout.print_record(tab)
    with contextlib.ExitStack() as stack:
        browser = _launch_chromium(stack)
        draft = print_layout(book, config, numbers, tab, layout, today)
        page = browser.new_page()
        printed, prints = print_until_settled(page, layout.print_folder(tab) / DOCUMENT, draft,
                                              _previous_pages(record_path))
        page.close()
    data = finished(printed)
    atomic_write(path, data)
    write_stamp(record_path, inputs, pages=printed.pages, bookmarks=printed.bookmarks,
                pdf=file_hash(path), contents=landed(printed, draft.entries))
    return PdfResult(tab, path, printed.pages, printed.bookmarks, len(data), prints,
                     time.monotonic() - started)
