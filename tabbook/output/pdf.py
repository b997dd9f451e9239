"""PDF stage: one framework's book, printed by Chromium part by part and assembled.

The print layout (`print_layout`) is a document per part: the front (title page and
contents), then each chapter. A part is printed only if its document (and the images,
style sheet and code it is made with) changed: its print is kept under
``_build/cache/pdf-<tab>-parts/`` by the hash of all that. After a prose edit, one
chapter is printed again; the parts are then joined (`pdf_assembly`).

Chromium has no CSS ``target-counter()``: the contents are printed with the page numbers
of the previous PDF (recorded in its stamp), and the page where each entry landed is read
back from the chapters' named destinations. Where they are the numbers printed (the
usual case after an edit), the front was printed right; else it is printed again with
those found. Their boxes have a fixed width, so the front's pages do not move, nor,
numbered after it, the chapters'.

Before each print the document is fitted to the page (`print_fit`); the PDF assembled
gets its bookmarks' whole titles and is written with compressed object streams
(`finished`).
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import datetime
import hashlib
import io
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from ..bootstrap.environments import CHROMIUM, CHROMIUM_ARGS
from ..bootstrap.errors import BookError
from ..bootstrap.records import (FINGERPRINT, atomic_write, file_hash, fingerprint, read_record,
                                 write_stamp)
from ..core.config import Config
from ..core.files import tool_files
from ..core.layout import Layout
from ..core.model import Book
from ..source.numbering import Numbers
from .bookmarks import outline_items, whole_titles
from .chromium import full_temp_folder_reported, temp_room_error
from .pdf_assembly import PartPrint, assembled, named_destinations
from .print_fit import MARGINS, TEXT_WIDTH_PX, fit_to_page
from .print_layout import (DESTINATIONS, FRONT, Part, PrintLayout, local_files, plain_name,
                           print_layout)
from .site_inputs import book_files

MAX_ROUNDS = 4
"""Rounds of printing the parts at most: the second one normally finds every page in place."""


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
    """Documents Chromium printed for it; 0 when the PDF was kept (nothing it is made
    from changed)."""
    seconds: float
    parts: int = 0
    """Documents it is assembled from; 0 when it was kept."""


def read_part(data: bytes, headings: list[str]) -> PartPrint:
    """What a printed part holds: its pages before its destinations block, where each of
    its named destinations landed."""
    import pikepdf

    with pikepdf.open(io.BytesIO(data)) as document:
        numbers = {page.objgen: number for number, page in enumerate(document.pages, 1)}
        destinations = {name: numbers.get(dest[0].objgen, 0)
                        for name, dest in named_destinations(document)}
        total = len(document.pages)
    kept = destinations.pop(DESTINATIONS, total + 1) - 1
    return PartPrint(data, kept, {name: page for name, page in destinations.items()
                                  if 0 < page <= kept}, headings)


def finished(document, headings: list[str]) -> bytes:
    """The assembled pikepdf `document` as written: its bookmarks titled as its headings
    (`whole_titles`), its objects in compressed object streams and its cross-reference a
    stream (PDF 1.5): Chromium writes the structure tree of a tagged PDF as tens of
    thousands of small uncompressed objects, two thirds of the file. Tags, bookmarks,
    links and named destinations stay."""
    import pikepdf

    written = io.BytesIO()
    whole_titles(document, headings)
    document.save(written, object_stream_mode=pikepdf.ObjectStreamMode.generate,
                  compress_streams=True)
    return written.getvalue()


def _print(page, document: Path) -> tuple[bytes, list[str]]:
    """Chromium's PDF of `document`, and the text of its headings."""
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
    return page.pdf(format="A4", margin=MARGINS, print_background=True,
                    prefer_css_page_size=True, outline=True, tagged=True), headings


class PartPrinter:
    """Prints the documents of a print layout, or takes their print from the store
    (``_build/cache/pdf-<tab>-parts/``: ``<hash>.pdf``, and ``<hash>.json``: its hash,
    pages, headings and destinations)."""

    def __init__(self, folder: Path, store: Path, made_with: str,
                 new_page: Callable[[], object]):
        self.folder, self.store, self.made_with = folder, store, made_with
        self.new_page, self.page = new_page, None
        self.prints, self.used = 0, set()

    def print(self, name: str, html: str) -> PartPrint:
        document = self.folder / (plain_name(name) + ".html")
        key = self._key(html)
        self.used.add(key)
        pdf, meta = self.store / f"{key}.pdf", self.store / f"{key}.json"
        if kept := self._kept(pdf, meta):
            return kept
        atomic_write(document, html)
        if self.page is None:
            self.page = self.new_page()
        part = read_part(*_print(self.page, document))
        self.prints += 1
        self.store.mkdir(parents=True, exist_ok=True)
        atomic_write(pdf, part.data)
        atomic_write(meta, json.dumps({"pdf": hashlib.sha256(part.data).hexdigest(),
                                       "pages": part.pages, "headings": part.headings,
                                       "destinations": part.destinations}))
        return part

    @staticmethod
    def _kept(pdf: Path, meta: Path) -> PartPrint | None:
        """The part printed before, if its print is there as it was written."""
        record = read_record(meta, {"pdf": str, "pages": int, "headings": list,
                                    "destinations": dict})
        try:
            data = pdf.read_bytes() if record else b""
        except OSError:
            return None
        if not record or hashlib.sha256(data).hexdigest() != record["pdf"]:
            return None
        return PartPrint(data, record["pages"], record["destinations"], record["headings"])

    def _key(self, html: str) -> str:
        """A hash of the document, the images it shows and what prints it."""
        found = hashlib.sha256((self.made_with + "\0" + html).encode())
        for source in local_files(html):
            image = self.folder / source
            if image.is_file():
                found.update(source.encode() + b"\0" + image.read_bytes())
        return found.hexdigest()

    def forget_others(self) -> None:
        """Delete the prints that this PDF was not made of (an earlier edit's)."""
        for path in self.store.glob("*.*"):
            if path.stem not in self.used:
                path.unlink(missing_ok=True)


def print_parts(printer: PartPrinter, draft: PrintLayout,
                pages: dict[str, int]) -> tuple[list[PartPrint], dict[str, int]]:
    """The parts of the book printed, the front first with `pages` (entry anchor -> page
    number: a guess, such as the previous print's), until the numbers in its contents
    are the pages its entries are on; the parts, and those pages."""
    for _ in range(MAX_ROUNDS):
        front = printer.print(FRONT, draft.front(pages))
        first, chapters, found = front.pages + 1, [], {}
        for part in draft.parts:
            printed = printer.print(part.name, draft.chapter(part, first))
            found.update(_landed(printer, part, printed, first))
            chapters.append(printed)
            first += printed.pages
        if found == pages:
            return [front, *chapters], found
        pages = found
    raise PdfError(f"{printer.folder}: the page numbers of the contents did not settle after "
                   f"{MAX_ROUNDS} rounds of prints")


def _landed(printer: PartPrinter, part: Part, printed: PartPrint,
            first: int) -> dict[str, int]:
    """The page of the book each entry of `part` is on."""
    pages = {unquote(name): page for name, page in printed.destinations.items()}
    missing = [entry.anchor for entry in part.entries if entry.anchor not in pages]
    if missing:   # its destinations block links to each: a bug of the print layout
        raise PdfError(f"{printer.folder}: no page of {part.name} holds "
                       f"{', '.join(missing)}, an entry of the contents")
    return {entry.anchor: first - 1 + pages[entry.anchor] for entry in part.entries}


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


def _require_chromium() -> None:
    if not CHROMIUM.is_file():
        raise PdfError(f"Chromium prints the PDF, and {CHROMIUM} is missing — install it "
                       "(`sudo apt-get install chromium` on Debian) and retry")


def _launch_chromium(stack: contextlib.ExitStack):
    """Chromium, driven by Playwright; both stop when `stack` closes."""
    _require_chromium()
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
    the thread that made them), started only if a part has to be printed."""
    started = time.monotonic()
    _require_chromium()   # said before the print layout is rendered, not after
    path, record_path = layout.pdf(config.project.name, tab), layout.print_record(tab)
    draft = print_layout(book, config, numbers, tab, layout, today)
    made_with = fingerprint(config.root, tool_files(), draft.stylesheet)
    with contextlib.ExitStack() as stack:
        printer = PartPrinter(layout.print_folder(tab), layout.print_parts(tab), made_with,
                              lambda: _launch_chromium(stack).new_page())
        parts, contents = print_parts(printer, draft, _previous_pages(record_path))
    with assembled(parts) as document:
        data = finished(document, [heading for part in parts for heading in part.headings])
        pages, bookmarks = len(document.pages), sum(1 for _ in outline_items(document))
    atomic_write(path, data)
    write_stamp(record_path, inputs, pages=pages, bookmarks=bookmarks, pdf=file_hash(path),
                contents=contents)
    printer.forget_others()
    return PdfResult(tab, path, pages, bookmarks, len(data), printer.prints,
                     time.monotonic() - started, len(parts))
