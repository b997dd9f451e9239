"""The PDF of one framework's book, printed by Debian's Chromium and read back.

pypdf reads the text, the bookmarks, the links and the images of each page;
pypdfium2 gives the position of every character and renders a few pages to
PNG under _build/pdf-pages/ for a person to look at.
"""
from __future__ import annotations

import ctypes
import datetime
import io
import re
import shutil
import struct
import subprocess
import tempfile
import unicodedata
import zlib
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pypdfium2
import pypdfium2.raw as pdfium_c
import pytest
from pypdf import PdfReader

from conftest import DECLARE, INDEX, REPO, build, md, site_pages, write_book, write_executed
from tabbook.bootstrap.errors import BookError, MachineError
from tabbook.core.config import load_config
from tabbook.bootstrap.environments import ensure_test_tools
from tabbook.core.layout import Layout
from tabbook.core.model import CellKind
from tabbook.source.numbering import number_book
from tabbook.source.parse import parse_book
from tabbook.output import pdf
from tabbook.output.pdf import PdfError, write_pdfs
from tabbook.output.pdf_assembly import PartPrint, assembled
from tabbook.output.print_layout import CROSS_PART
from tabbook.output.print_fit import LANDSCAPE_MARGINS, MARGINS
from tabbook.notebooks.split import code_cells, split_section
from tabbook.output.typography import french
from test_html import parse_page

PAGES = REPO / "_build" / "pdf-pages"
MM = 72 / 25.4   # PDF points per millimetre
PIXEL = 72 / 96   # PDF points per CSS pixel


# -- reading a PDF back ------------------------------------------------------------
def _plain(text: str) -> str:
    """Text with its no-break spaces as spaces, ligatures (« ﬁ ») as letters and runs of
    spaces as one."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


@dataclass
class Bookmark:
    title: str
    page: int
    children: list[Bookmark]


class Pdf:
    """A printed PDF as a reader sees it; pages are numbered from 1."""

    def __init__(self, path: Path):
        self.path = path
        self.reader = PdfReader(path)
        self.texts = [page.extract_text() for page in self.reader.pages]
        self.lines = [[_plain(line) for line in text.split("\n") if line.strip()]
                      for text in self.texts]
        self.destinations = {name.lstrip("/"): self.reader.get_destination_page_number(d) + 1
                             for name, d in self.reader.named_destinations.items()}

    def bookmarks(self, outline=None) -> list[Bookmark]:
        outline = self.reader.outline if outline is None else outline
        found: list[Bookmark] = []
        for item in outline:
            if isinstance(item, list):
                found[-1].children = self.bookmarks(item)
            else:
                found.append(Bookmark(_plain(item.title),
                                      self.reader.get_destination_page_number(item) + 1, []))
        return found

    def links(self, number: int) -> list[dict]:
        """The link annotations of a page: {"dest": name} or {"uri": address}."""
        found = []
        for annotation in self.reader.pages[number - 1].get("/Annots") or []:
            annotation = annotation.get_object()
            if annotation.get("/Subtype") != "/Link":
                continue
            if "/Dest" in annotation:
                found.append({"dest": str(annotation["/Dest"]).lstrip("/"),
                              "rect": [float(v) for v in annotation["/Rect"]]})
            elif "/A" in annotation and "/URI" in annotation["/A"]:
                found.append({"uri": str(annotation["/A"]["/URI"])})
        return found

    def contents(self) -> list[tuple[str, int]]:
        """(entry, page number) of the table of contents: the pages from the second one
        to the one before its first entry's page."""
        def entries(number: int) -> list[tuple[str, int]]:
            matches = [re.fullmatch(r"(.+?) (\d+)", line) for line in self.lines[number - 1]]
            return [(match.group(1), int(match.group(2))) for match in matches if match]
        first_page = entries(2)[0][1]
        return [entry for number in range(2, first_page) for entry in entries(number)]

    def first_page_with_line(self, line: str, after: int) -> int | None:
        """The first page after `after` that prints `line`, on one line or wrapped over
        several (a long heading)."""
        return next((number for number in range(after + 1, len(self.lines) + 1)
                     if line in self.lines[number - 1]
                     or line in " ".join(self.lines[number - 1])), None)

    def raster_images(self) -> int:
        """Image XObjects (pixels) on every page, inside forms included."""
        def count(resources) -> int:
            total = 0
            for xobject in ((resources or {}).get("/XObject") or {}).values():
                xobject = xobject.get_object()
                if xobject.get("/Subtype") == "/Image":
                    total += 1
                elif xobject.get("/Subtype") == "/Form":
                    total += count(xobject.get("/Resources"))
            return total
        return sum(count(page.get("/Resources")) for page in self.reader.pages)

    def characters_beyond(self) -> list[str]:
        """Characters (page: text) whose box ends right of the page width minus the right
        margin of the page (a landscape page has narrower margins)."""
        document = pypdfium2.PdfDocument(self.path)
        beyond = []
        for number, page in enumerate(document, start=1):
            landscape = page.get_width() > page.get_height()
            limit = page.get_width() - right_margin(landscape) + 1   # a point of tolerance
            text = page.get_textpage()
            for index in range(text.count_chars()):
                char = text.get_text_range(index, 1)
                # pdfium adds line breaks of its own, with boxes that are not ink.
                if not char.isspace() and text.get_charbox(index)[2] > limit:
                    beyond.append(f"p. {number}: {char!r}")
            text.close()
        document.close()
        return beyond

    def font_sizes(self, number: int) -> list[tuple[str, str, float]]:
        """(character, font name, size in points) of each character printed on a page.
        Chromium draws in CSS pixels scaled to points: pdfium reads sizes in pixels."""
        document = pypdfium2.PdfDocument(self.path)
        text = document[number - 1].get_textpage()
        name = ctypes.create_string_buffer(256)
        found = []
        for index in range(text.count_chars()):
            char = text.get_text_range(index, 1)
            if char.isspace():
                continue
            pdfium_c.FPDFText_GetFontInfo(text.raw, index, name, len(name), None)
            found.append((char, name.value.decode(errors="replace").split("+")[-1],
                          pdfium_c.FPDFText_GetFontSize(text.raw, index) * PIXEL))
        text.close()
        document.close()
        return found

    def footer(self, number: int) -> str:
        """The text printed in the bottom margin of a page."""
        return self._margin(number, bottom=True)

    def header(self, number: int) -> str:
        """The text printed in the top margin of a page (its running head)."""
        return self._margin(number, bottom=False)

    def _margin(self, number: int, bottom: bool) -> str:
        document = pypdfium2.PdfDocument(self.path)
        page = document[number - 1]
        text = page.get_textpage()
        height = page.get_height()
        low, high = (0, 18 * MM) if bottom else (height - 16 * MM, height)
        found = text.get_text_bounded(0, low, page.get_width(), high).strip()
        text.close()
        document.close()
        return found

    def fonts(self) -> set[str]:
        """The base names of the fonts embedded in the document (subset prefixes dropped)."""
        names = set()
        for page in self.reader.pages:
            for font in (page.get("/Resources") or {}).get("/Font", {}).values():
                font = font.get_object()
                descriptor = font.get("/FontDescriptor")
                for descendant in font.get("/DescendantFonts", []):
                    descriptor = descendant.get_object().get("/FontDescriptor") or descriptor
                if descriptor is not None and any(key in descriptor.get_object() for key in
                                                  ("/FontFile", "/FontFile2", "/FontFile3")):
                    names.add(str(font["/BaseFont"]).lstrip("/").split("+")[-1])
        return names


def write_png(pdf: Path, number: int, target: Path) -> None:
    """Render a page of `pdf` to a PNG file (pypdfium2 renders, zlib writes the PNG)."""
    document = pypdfium2.PdfDocument(pdf)
    bitmap = document[number - 1].render(scale=1.5, rev_byteorder=True)   # RGB
    width, height, stride = bitmap.width, bitmap.height, bitmap.stride
    pixels = bytes(bitmap.buffer)
    rows = b"".join(b"\0" + pixels[y * stride:y * stride + width * 3] for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"\x89PNG\r\n\x1a\n" +
                       chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
                       chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))
    document.close()


def right_margin(landscape: bool = False) -> float:
    margin = LANDSCAPE_MARGINS.split()[1] if landscape else MARGINS["right"]
    return float(margin.removesuffix("mm")) * MM


def check_contents_and_bookmarks(pdf: Pdf, chapters: list[tuple[str, list[str]]]) -> None:
    """The contents list every chapter and section (« 1.2 Titre ») at the page where its
    title is printed; the bookmarks are the chapters, each with its sections."""
    contents = pdf.contents()
    expected = [title for chapter, sections in chapters for title in (chapter, *sections)]
    assert [entry for entry, _ in contents] == expected
    after = contents[0][1] - 1   # past the contents, which name every title
    for entry, page in contents:
        assert pdf.first_page_with_line(entry, after) == page, (entry, page)
        after = page - 1
    bookmarks = pdf.bookmarks()
    assert [b.title for b in bookmarks] == [chapter for chapter, _ in chapters]
    for bookmark, (chapter, sections) in zip(bookmarks, chapters):
        assert bookmark.page == dict(contents)[chapter]
        children = {child.title: child.page for child in bookmark.children}
        for section in sections:
            assert children.get(section) == dict(contents)[section], (section, children)


def test_bookmark_titles_are_mended_and_the_pdf_read_silently(tmp_path, caplog):
    """A bookmark whose title lost a space is retitled in the PDF as written; reading it
    (pages, bookmarks, named destinations) and writing it log nothing, not even about a
    trailer whose /Size is short, as Chromium's is in a long book (« Object count …
    exceeds defined trailer size » used to reach the console)."""
    from pypdf import PdfWriter
    from pypdf.generic import ArrayObject, DictionaryObject, NameObject, NumberObject

    writer = PdfWriter()
    for _ in range(3):
        writer.add_blank_page(200, 200)
    writer.add_outline_item("1 Uneligne", 0)
    writer.add_outline_item("2 Entière", 2)
    writer._root_object[NameObject("/Dests")] = DictionaryObject({
        NameObject("/sec_two"): ArrayObject([writer.pages[2].indirect_reference,
                                             NameObject("/XYZ"), NumberObject(0),
                                             NumberObject(200), NumberObject(0)])})
    written = tmp_path / "written.pdf"
    writer.write(written)
    data = re.sub(rb"/Size \d+", b"/Size 3", written.read_bytes())
    part = pdf.read_part(data, ["1 Une\nligne", "2 Entière"])
    assert (part.pages, part.destinations) == (3, {"sec_two": 3})
    path = tmp_path / "mended.pdf"
    with assembled([part]) as document:
        path.write_bytes(pdf.finished(document, part.headings))
    assert not caplog.records, caplog.text
    assert [(b.title, b.page) for b in Pdf(path).bookmarks()] == [("1 Une ligne", 1),
                                                                 ("2 Entière", 3)]
    assert len(pypdfium2.PdfDocument(path)) == 3


# -- a small book, written on the fly -----------------------------------------------
LONG_LINE = "valeurs = [" + ", ".join(str(n) for n in range(100, 190)) + "]"
# Wider than the page at the code's size, hyphenated: set smaller on one line, never
# broken at a hyphen.
COMMAND = ("nvidia-smi --query-gpu=index,name,memory.used,memory.total,utilization.gpu "
           "--format=csv,noheader -l 1 -i 0")
# A profiler's table: lines too wide for the portrait page even at the smallest size,
# printed on a landscape page of their own, each whole.
WIDE_TABLE = ["Nom".ljust(40) + "".join(f"Colonne {n}".rjust(13) for n in range(10))] + [
    f"aten::operation_{row}".ljust(40) + "".join(f"{row * n}.{n:03d}us".rjust(13)
                                                for n in range(10)) for row in range(6)]
# A command wider than the page at the smallest size, on one line: it wraps, but not at
# a hyphen.
WRAPPED_COMMAND = ("nvidia-smi --query-gpu=index,pcie.link.gen.current,pcie.link.gen.max,"
                   "pcie.link.width.current,pcie.link.width.max --format=csv")
# Inline code with hyphens, in a paragraph long enough that lines end all along it.
HYPHENATED = ["nvidia-smi", "--query-gpu=index", "torch.cuda.max-memory"]
HYPHENS_PARAGRAPH = " ".join(f"Étape{'x' * (n % 7)} `{HYPHENATED[n % 3]}` puis"
                             for n in range(60))
SECTION_ONE = md(DECLARE, """
    # Première section
    :label:`sec_one`

    Voir la :numref:`sec_two` et l'équation :eqref:`eq_sum`, ou
    [le site du projet](https://example.org/projet). La :numref:`sec_mxnet` n'existe
    qu'en MXNet.

    $$a + b = c$$
    :eqlabel:`eq_sum`

    $$S = \\sum_{i=1}^{n} x_i \\approx 0,001$$

    : Caractéristiques des cartes

    | Carte | Caractéristiques | Mémoire |
    |:-|:-|-:|
    | A100 | Interconnexion haut débit | 80 |
    :label:`tab_cards`

    ```bash
    """ + COMMAND + """
    ```

    ![Un schéma](../../img/schema.svg)
    :label:`fig_schema`

    :begin_tab:`pytorch`
    Texte propre à PyTorch.
    :end_tab:

    :begin_tab:`mxnet`
    Texte propre à MXNet.
    :end_tab:
    """, f"""
    ```{{.python .input}}
    %%tab pytorch
    import torch
    {LONG_LINE}
    ```

    ```{{.python .input}}
    %%tab mxnet
    from mxnet import np
    ```
    """)
SECTION_TWO = md(DECLARE, """
    # Deuxième section
    :label:`sec_two`

    | Interconnexion | Caractéristiques | Disponibilité | Consommation | Performances | Températures | Fonctionnalités |
    |-|-|-|-|-|-|-|
    | internationalisation | 1 | 2 | 3 | 4 | 5 | 6 |

    ## Une partie

    La :numref:`fig_schema` est dans la :numref:`sec_one`.

    """ + HYPHENS_PARAGRAPH + """

    ```text
    """ + "\n    ".join(WIDE_TABLE) + """
    ```

    ```bash
    """ + WRAPPED_COMMAND + """
    ```

    ```{.python .input}
    %%tab all
    print("commun")
    ```
    """)
MXNET_ONLY = md(DECLARE.replace("'pytorch', 'mxnet', 'tensorflow'", "'mxnet'"), """
    # Seulement MXNet
    :label:`sec_mxnet`

    ```{.python .input}
    %%tab mxnet
    from mxnet import np
    ```
    """)
SCHEMA = ('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="120">'
          '<rect x="10" y="10" width="280" height="100" fill="#cde" stroke="#123"/>'
          '<text x="150" y="65" text-anchor="middle" font-size="20">GPU</text></svg>')


def executed(section, tab: str) -> nbformat.NotebookNode:
    """The split notebook with what the execute stage adds: outputs and provenance."""
    notebook = split_section(section, tab)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout",
                                                   text=f"sortie {tab}\n")]
    notebook.metadata["tabbook"]["provenance"] = {
        "date": "2026-11-21T10:00:00+00:00", "framework": tab, "framework_version": "9.9",
        "python": "3.11.7", "devices": "CPU", "cell_seconds": [0.1], "total_seconds": 0.1}
    return notebook


@pytest.fixture(scope="module")
def small_pdf(tmp_path_factory) -> Pdf:
    ensure_test_tools()
    root = write_book(tmp_path_factory.mktemp("small"), {
        "chap/index.md": "# Chapitre\n\n```toc\nsec\nother\nmxnet\n```\n",
        "chap/sec.md": SECTION_ONE, "chap/other.md": SECTION_TWO, "chap/mxnet.md": MXNET_ONLY})
    (root / "img").mkdir()
    (root / "img" / "schema.svg").write_text(SCHEMA)
    config, book, layout = write_executed(root, executed)
    numbers = number_book(book)
    results = write_pdfs(book, config, numbers, ("pytorch",), layout,
                         today=datetime.date(2026, 11, 1))
    assert [r.path for r in results] == [root / "_build" / "pdf" / "test-book-pytorch.pdf"]
    # The front printed twice (its numbers filled in once), each chapter once.
    assert results[0].prints == results[0].parts + 1
    again = write_pdfs(book, config, numbers, ("pytorch",), layout)
    assert again[0].prints == 0 and again[0].pages == results[0].pages   # kept
    return Pdf(results[0].path)


@pytest.mark.browser
def test_title_page_contents_and_bookmarks_of_a_small_book(small_pdf):
    # The title page has no page number.
    assert small_pdf.lines[0] == ["Un livre de test", "Édition PyTorch",
                                  "Version 1.0.0, 1er novembre 2026"]
    assert small_pdf.reader.metadata.title == "Un livre de test — PyTorch"
    check_contents_and_bookmarks(small_pdf, [
        ("Livre", []), ("1 Chapitre", ["1.1 Première section", "1.2 Deuxième section"])])
    section = small_pdf.bookmarks()[1].children[1]
    assert [child.title for child in section.children] == ["1.2.1 Une partie"]


@pytest.mark.browser
def test_a_prose_edit_is_printed_once_and_its_contents_stay_right(tmp_path, caplog):
    """Printed again after a sentence is edited, the PDF prints only the chapter of that
    sentence: the other parts are kept, the front too, since the contents' page numbers
    of the previous print are still right. One print."""
    ensure_test_tools()
    root = write_book(tmp_path, {"chap/index.md": "# Chapitre\n\n```toc\nsec\nother\n```\n",
                                 "chap/sec.md": SECTION_ONE, "chap/other.md": SECTION_TWO})
    (root / "img").mkdir()
    (root / "img" / "schema.svg").write_text(SCHEMA)

    def printed() -> pdf.PdfResult:
        config, book, layout = write_executed(root, executed)
        result, = write_pdfs(book, config, number_book(book), ("pytorch",), layout)
        return result

    first = printed()
    assert first.prints == first.parts + 1   # a first print: no numbers to start from
    section = root / "chapters" / "chap" / "sec.md"
    section.write_text(section.read_text().replace("Voir la :numref:", "On verra la :numref:"))
    result = printed()
    assert result.prints == 1
    edited = Pdf(result.path)
    assert "On verra la section 1.2" in _plain("\n".join(edited.texts))
    check_contents_and_bookmarks(edited, [
        ("Livre", []), ("1 Chapitre", ["1.1 Première section", "1.2 Deuxième section"])])


def write_two_chapters(root: Path) -> Path:
    """A book of two chapters, whose second refers to the first's section and figure."""
    second = SECTION_TWO.replace("# Deuxième section", "# Autre section").replace(
        "La :numref:`fig_schema` est dans la :numref:`sec_one`.",
        "La :numref:`fig_schema` est dans la :numref:`sec_one`, au chapitre 1.")
    write_book(root, {
        "index.md": INDEX.replace("chap/index", "chap/index\nautre/index"),
        "chap/index.md": "# Chapitre\n\n```toc\nsec\n```\n", "chap/sec.md": SECTION_ONE,
        "autre/index.md": "# Second chapitre\n\n```toc\nother\n```\n",
        "autre/other.md": second.replace(":label:`sec_two`", ":label:`sec_other`")})
    (root / "img").mkdir()
    (root / "img" / "schema.svg").write_text(SCHEMA)
    return root


@pytest.mark.browser
def test_chapters_are_printed_apart_and_linked_across(tmp_path):
    """Each chapter is a document of its own: a reference to another chapter is a link to
    its target's page, page numbers follow on from one chapter to the next, an edit prints
    its chapter only, and the pages that name a chapter's link targets are not in the PDF."""
    ensure_test_tools()
    root = write_two_chapters(tmp_path)

    def printed() -> pdf.PdfResult:
        config, book, layout = write_executed(root, executed, warnings=True)
        result, = write_pdfs(book, config, number_book(book), ("pytorch",), layout)
        return result

    first = printed()
    assert first.parts == 4 and first.prints == 5   # front, preface, 2 chapters; front again
    book = Pdf(first.path)
    check_contents_and_bookmarks(book, [("Livre", []), ("1 Chapitre", ["1.1 Première section"]),
                                        ("2 Second chapitre", ["2.1 Autre section"])])
    contents = dict(book.contents())
    pages = range(1, len(book.lines) + 1)
    assert [book.footer(page) for page in pages] == ["", *map(str, pages[1:])]
    assert book.header(contents["2.1 Autre section"]) == "2 Second chapitre"
    assert not any(line.strip(". ") == "" for lines in book.lines for line in lines)
    other = contents["2.1 Autre section"]
    page = next(number for number in range(other, len(book.lines) + 1)
                if "au chapitre 1." in " ".join(book.lines[number - 1]))
    targets = {book.destinations[link["dest"]] for link in book.links(page) if "dest" in link}
    assert contents["1.1 Première section"] in targets   # figure 1.1 and section 1.1
    assert not [link for link in book.links(page) if "tabbook.invalid" in link.get("uri", "")]

    section = root / "chapters" / "autre" / "other.md"
    section.write_text(section.read_text().replace("Une partie", "Une partie retouchée"))
    edited = printed()
    assert (edited.parts, edited.prints) == (4, 1)
    assert "2.1.1 Une partie retouchée" in Pdf(edited.path).lines[other - 1]


def test_the_print_layout_renders_again_only_the_pages_that_changed(tmp_path, monkeypatch):
    """A page whose sources, outputs and numbers did not change is taken from the previous
    print layout, with the links it makes to other parts; an image that changed is copied
    again beside the documents."""
    from tabbook.output import print_layout as layouts

    root = write_two_chapters(tmp_path)
    rendered = []
    render = layouts._page_body
    monkeypatch.setattr(layouts, "_page_body", lambda entry, *args: (
        rendered.append(entry.section.name), render(entry, *args))[1])

    def print_layout() -> layouts.PrintLayout:
        rendered.clear()
        config, book, layout = write_executed(root, executed)
        return layouts.print_layout(book, config, number_book(book), "pytorch", layout,
                                    datetime.date(2026, 11, 1))

    stale = Layout(root).print_folder("pytorch") / "_images" / "an-earlier-output.png"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"PNG")
    first = print_layout()
    assert not stale.exists()   # no page shows it any more
    assert sorted(rendered) == ["autre/index", "autre/other", "chap/index", "chap/sec", "index"]
    assert first.targets == {"chap/index": {"fig_schema", "sec_one"}}   # from chapter 2
    again = print_layout()
    assert rendered == [] and again.bodies == first.bodies and again.targets == first.targets
    section = root / "chapters" / "autre" / "other.md"
    section.write_text(section.read_text().replace("Une partie", "Une partie retouchée"))
    edited = print_layout()
    assert rendered == ["autre/other"] and edited.targets == first.targets
    assert "Une partie retouchée" in "".join(edited.bodies.values())
    (root / "img" / "schema.svg").write_text(SCHEMA.replace("GPU", "TPU"))
    print_layout()
    assert rendered == ["chap/sec"]
    bodies = Layout(root).print_bodies("pytorch")
    bodies.write_text(bodies.read_text()[:-100])   # damaged: every page rendered again
    assert print_layout().targets == first.targets and len(rendered) == 5
    assert "TPU" in (Layout(root).print_folder("pytorch") / "img" / "schema.svg").read_text()


def test_a_link_to_no_part_is_a_bug_said_clearly():
    """A link between parts whose target no part names is not left dangling."""
    from pypdf import PdfWriter
    from pypdf.annotations import Link

    writer, written = PdfWriter(), io.BytesIO()
    writer.add_blank_page(200, 200)
    writer.add_annotation(0, Link(rect=(10, 10, 50, 20), url=CROSS_PART + "sec_nowhere"))
    writer.write(written)
    with pytest.raises(BookError, match="links to « sec_nowhere », which no part of it holds"):
        with assembled([PartPrint(written.getvalue(), 1, {}, [])]):
            pass


@pytest.mark.browser
def test_only_the_tabs_code_prose_and_outputs(small_pdf):
    text = "\n".join(small_pdf.texts)
    assert "import torch" in text and "sortie pytorch" in text
    assert "Texte propre à PyTorch." in _plain(text)
    assert 'print("commun")' in text
    for other in ("from mxnet", "sortie mxnet", "sortie tensorflow", "Texte propre à MXNet",
                  "Seulement MXNet"):
        assert other not in _plain(text)
    assert "Code PyTorch exécuté le 21/11/2026" in _plain(text)


@pytest.mark.browser
def test_references_are_french_links_to_the_right_page(small_pdf):
    contents = dict(small_pdf.contents())
    page = contents["1.1 Première section"]
    lines = " ".join(small_pdf.lines[page - 1])
    assert "Voir la section 1.2 et l'équation (1.1)" in lines
    assert "Figure 1.1 — Un schéma" in lines
    links = small_pdf.links(page)
    targets = {small_pdf.destinations[link["dest"]] for link in links if "dest" in link}
    assert contents["1.2 Deuxième section"] in targets
    assert {"uri": "https://example.org/projet"} in links
    # A section the PDF leaves out: a link to it in the published HTML book.
    assert "La section 1.3 n'existe qu'en MXNet." in lines
    assert {"uri": "https://owner.github.io/book/chap/mxnet.html#sec_mxnet"} in links
    two = contents["1.2 Deuxième section"]
    assert {small_pdf.destinations[link["dest"]] for link in small_pdf.links(two)
            if "dest" in link} == {page}   # figure 1.1 and section 1.1


@pytest.mark.browser
def test_code_wraps_figures_are_vectors_pages_are_numbered(small_pdf):
    assert small_pdf.characters_beyond() == []
    code = "".join(_plain(text).replace(" ", "") for text in small_pdf.texts)
    assert LONG_LINE.replace(" ", "") in code   # all of it, on several lines
    assert small_pdf.raster_images() == 0
    assert small_pdf.footer(1) == ""   # the title page
    for number in range(2, len(small_pdf.texts) + 1):
        assert small_pdf.footer(number) == str(number)


LONG_TITLE = ("Des blocs de code courts qui ne sont jamais coupés par un saut de page, "
              "même quand le titre de leur section est long")


@pytest.mark.browser
def test_short_code_blocks_are_never_cut_by_a_page_break(tmp_path):
    """Twenty blocks of 14 lines, one short paragraph apart, run over several pages:
    without the rule, page breaks would fall inside some of them."""
    ensure_test_tools()
    blocks = [[f"bloc_{b:02d}_ligne_{i:02d} = {b} * {i}" for i in range(14)]
              for b in range(20)]
    long_block = [f"long_{i:02d} = {i}" for i in range(60)]
    body = "\n".join(f"Paragraphe {b}.\n\n```python\n" + "\n".join(lines) + "\n```\n"
                     for b, lines in enumerate(blocks + [long_block]))
    root = write_book(tmp_path, {"chap/index.md": "# Chapitre\n\n```toc\nsec\n```\n",
                                 "chap/sec.md": md(DECLARE, f"# {LONG_TITLE}\n") + body})
    config, book, layout = write_executed(root, executed)
    result, = write_pdfs(book, config, number_book(book), ("pytorch",), layout)
    printed = Pdf(result.path)

    def pages_of(lines: list[str]) -> set[int]:
        return {number for number, page in enumerate(printed.lines, 1)
                for line in lines if _plain(line) in page}

    block_pages = [pages_of(lines) for lines in blocks]
    assert all(len(pages) == 1 for pages in block_pages), block_pages
    assert len(set().union(*block_pages)) >= 3   # the blocks did meet page breaks
    assert len(pages_of(long_block)) >= 2        # a long block still flows over pages
    # The title wraps on the page; its bookmark keeps every space (Chromium drops the
    # one at the line break).
    assert any(line.startswith("1.1 Des blocs") and not line.endswith(LONG_TITLE.split()[-1])
               for page in printed.lines[2:] for line in page), "make the title longer"
    assert [child.title for child in printed.bookmarks()[-1].children] == [
        f"1.1 {LONG_TITLE}"]


@pytest.mark.browser
def test_tables_math_code_and_running_heads_in_print(small_pdf):
    page = dict(small_pdf.contents())["1.1 Première section"]
    lines = small_pdf.lines[page - 1]
    # A labelled table has its numbered caption, from its caption line.
    assert "Tableau 1.1 — Caractéristiques des cartes" in lines
    # A hyphenated command wider than the page is one line, set smaller: never broken.
    assert _plain(COMMAND) in lines
    # Its words whole in the table (hyphenated at most, never cut without a hyphen).
    assert "Interconnexion haut débit" in " ".join(lines).replace("- ", "")
    # A table too wide for the page at its size is set smaller: no word cut.
    wide = " ".join(small_pdf.lines[dict(small_pdf.contents())["1.2 Deuxième section"] - 1])
    assert ("Interconnexion Caractéristiques Disponibilité Consommation Performances "
            "Températures Fonctionnalités") in wide and "internationalisation" in wide
    # The chapter's title at the top of its pages; none on the title page and contents.
    assert small_pdf.header(page) == "1 Chapitre"
    assert small_pdf.header(1) == "" and small_pdf.header(2) == ""
    # Math in the math font the book ships, embedded; the text fonts too.
    fonts = small_pdf.fonts()
    assert any("STIXTwoMath" in name for name in fonts), fonts
    assert any("DejaVuSerif" in name for name in fonts), fonts
    text = _plain(small_pdf.texts[page - 1])
    assert "0,001" in text and "0, 001" not in text


@pytest.mark.browser
def test_wide_outputs_keep_a_floor_size_and_a_table_goes_landscape(small_pdf):
    """No code is set below 7 pt (the text is 10.5 pt): a table too wide for the
    page at the floor is printed whole on a landscape page with its chapter's head and
    page number; a single long line wraps where it is."""
    sizes = [(number, char, font, size) for number in range(1, len(small_pdf.texts) + 1)
             for char, font, size in small_pdf.font_sizes(number)]
    assert {round(size, 1) for _, _, font, size in sizes if font == "DejaVuSerif"} >= {10.5}
    code = [(number, size) for number, _, font, size in sizes
            if font.startswith("DejaVuSansMono")]
    assert min(size for _, size in code) >= 7 - 0.05, sorted(code)[:5]
    page = small_pdf.first_page_with_line(_plain(WIDE_TABLE[0]), 0)
    assert page is not None, "the table's lines were wrapped"
    box = small_pdf.reader.pages[page - 1].mediabox
    assert box.width > box.height   # landscape
    assert all(_plain(line) in small_pdf.lines[page - 1] for line in WIDE_TABLE)
    assert small_pdf.header(page) == "1 Chapitre" and small_pdf.footer(page) == str(page)
    assert [number for number, reader_page in enumerate(small_pdf.reader.pages, 1)
            if reader_page.mediabox.width > reader_page.mediabox.height] == [page]
    long_line = next(number for number, text in enumerate(small_pdf.texts, 1)
                     if "valeurs = [" in text)
    assert min(size for number, size in code if number == long_line) >= 7 - 0.05


@pytest.mark.browser
def test_inline_code_is_never_broken_at_its_hyphens(small_pdf):
    """Chromium breaks a line after any hyphen: `nvidia-|smi` used to be cut, and a
    wrapped command after `--query-`."""
    lines = [line for page in small_pdf.lines for line in page if "Étape" in line]
    assert len(lines) > 10
    assert [line for line in lines if line.endswith("-")] == []
    # A word of code may break after its dots, as `torch.cuda.` here.
    text = " ".join(lines).replace(". ", ".")
    for word in HYPHENATED:
        assert text.count(f" {word} ") == 20, word
    # Nor a command of a block that wraps.
    lines = [line for page in small_pdf.lines for line in page]
    start = next(number for number, line in enumerate(lines)
                 if WRAPPED_COMMAND.startswith(line) and "pcie" in lines[number + 1])
    wrapped = lines[start]
    for line in lines[start + 1:]:
        if len(wrapped) >= len(WRAPPED_COMMAND):
            break
        assert not wrapped.endswith("-"), wrapped
        wrapped += ("" if wrapped.endswith((".", "/")) else " ") + line
    assert wrapped == WRAPPED_COMMAND


@pytest.mark.browser
def test_the_pdf_is_compact_and_keeps_its_tags_bookmarks_and_links(small_pdf):
    """Written with object streams: the structure tree (the tags) is compressed, not gone;
    bookmarks and links are read back by the other tests of this PDF."""
    data = small_pdf.path.read_bytes()
    assert b"/ObjStm" in data and b"/XRef" in data and b"\nxref\n" not in data
    assert b"/StructElem" not in data   # every structure element sits in an object stream
    root = small_pdf.reader.trailer["/Root"]
    assert bool(root["/MarkInfo"]["/Marked"])
    tree = root["/StructTreeRoot"]
    assert tree["/K"] and "/ParentTree" in tree
    kinds = set()
    pending = [tree["/K"]]
    while pending:
        element = pending.pop()
        element = element.get_object() if hasattr(element, "get_object") else element
        if isinstance(element, list):
            pending += element
        elif isinstance(element, dict) and "/S" in element:
            kinds.add(str(element["/S"]))
            pending.append(element.get("/K", []))
    assert {"/H1", "/H2", "/P", "/Link", "/Table"} <= kinds, kinds
    assert small_pdf.bookmarks() and small_pdf.links(dict(small_pdf.contents())[
        "1.1 Première section"])


def test_no_chromium_is_a_clear_error(tmp_path, monkeypatch):
    import tabbook.output.pdf

    root = write_book(tmp_path, {"chap/sec.md": SECTION_TWO})
    config = load_config(root)
    book, _ = parse_book(config)
    monkeypatch.setattr(tabbook.output.pdf, "CHROMIUM", tmp_path / "no-chromium")
    with pytest.raises(PdfError, match=r"no-chromium is missing — install it"):
        write_pdfs(book, config, number_book(book), ("pytorch",), Layout(root))
    assert not (root / "_build" / "pdf").exists()


@pytest.fixture
def tiny_tmpdir(monkeypatch):
    """TMPDIR on a tmpfs of its own, as big as the test asks; a function of the size."""
    # A short path: Chromium's sockets in TMPDIR must fit in 108 bytes (not pytest's tmp_path).
    folder = Path(tempfile.mkdtemp())

    def mounted(megabytes: int) -> Path:
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs",
                        str(folder)], check=True)
        monkeypatch.setenv("TMPDIR", str(folder))
        return folder

    yield mounted
    if folder.is_mount():
        subprocess.run(["umount", "--lazy", str(folder)], check=True)
    folder.rmdir()


def fill(folder: Path) -> None:
    """Write into `folder` until its disk is full."""
    with open(folder / "filler", "wb") as filler:
        try:
            while True:
                filler.write(b"\0" * 2**16)
                filler.flush()
        except OSError:
            pass


def printed_with_tmpdir(root: Path) -> str:
    """Print the PyTorch PDF of the book in `root`; the error it gives."""
    config, book, layout = write_executed(root, executed)
    with pytest.raises(MachineError) as raised:
        write_pdfs(book, config, number_book(book), ("pytorch",), layout)
    assert not layout.pdf("test-book", "pytorch").exists()
    return str(raised.value)


@pytest.mark.browser
def test_a_full_tmpdir_is_a_clear_error_before_chromium_starts(tmp_path, tiny_tmpdir):
    ensure_test_tools()
    folder = tiny_tmpdir(16)
    message = printed_with_tmpdir(write_book(tmp_path, {"chap/sec.md": SECTION_TWO}))
    assert message.startswith(f"the temporary folder {folder} has only 16.0 MB free, and "
                              "Chromium needs about 64 MB there to print — free some space on "
                              "its disk, or set TMPDIR to a folder on a disk with room")
    assert list(folder.iterdir()) == []   # Chromium never started


@pytest.mark.browser
def test_a_tmpdir_filled_while_chromium_prints_is_a_clear_error(tmp_path, tiny_tmpdir,
                                                                   monkeypatch):
    ensure_test_tools()
    folder = tiny_tmpdir(80)
    prints = []

    def print_on_a_full_disk(page, document):
        prints.append(document)
        if len(prints) == 2:   # the contents' numbers are known: the disk fills up now
            fill(folder)
        return print_pdf(page, document)

    print_pdf = pdf._print
    monkeypatch.setattr(pdf, "_print", print_on_a_full_disk)
    message = printed_with_tmpdir(write_book(tmp_path, {"chap/sec.md": SECTION_TWO}))
    assert len(prints) == 2, message
    assert re.match(fr"the temporary folder {re.escape(str(folder))} has only [\d.]+ MB free, "
                    "and Chromium needs about 64 MB there", message), message


class FakeChromium:
    """Stands for Chromium where what is tested is when a PDF is printed, not how."""

    def new_page(self):
        return self

    def close(self) -> None:
        pass


def blank_pdf(pages: int) -> bytes:
    """A PDF of blank pages with two bookmarks, as the fake Chromium prints it (it is
    assembled and compacted as a real one)."""
    from pypdf import PdfWriter

    writer, written = PdfWriter(), io.BytesIO()
    for _ in range(pages):
        writer.add_blank_page(200, 200)
    writer.add_outline_item("1 Chapitre", 0)
    writer.add_outline_item("2 Chapitre", 2)
    writer.write(written)
    return written.getvalue()


def printed_again(root: Path, monkeypatch) -> int:
    """Prints of the PyTorch PDF of the book in `root` (0: kept), by a fake Chromium."""
    prints = []

    def fake_print(printer, draft, pages):
        prints.append(draft)
        return [PartPrint(blank_pdf(3), 3, {}, [])], {}

    monkeypatch.setattr(pdf, "_launch_chromium", lambda stack: FakeChromium())
    monkeypatch.setattr(pdf, "print_parts", fake_print)
    config = load_config(root)
    book, _ = parse_book(config)
    results = write_pdfs(book, config, number_book(book), ("pytorch",), Layout(root))
    assert results[0].pages == 3 and results[0].bookmarks == 2
    return len(prints)


def test_a_part_is_printed_again_when_its_print_is_damaged_or_gone(tmp_path, monkeypatch):
    """A part's print is taken from the store only as it was written, with its record."""
    monkeypatch.setattr(pdf, "_print", lambda page, document: (blank_pdf(3), ["1 Chapitre"]))
    store = tmp_path / "parts"
    printer = pdf.PartPrinter(tmp_path, store, "code", lambda: FakeChromium())

    def prints(html: str = "<p>Chapitre</p>") -> int:
        before = printer.prints
        part = printer.print("chap/index", html)
        assert (part.pages, part.headings) == (3, ["1 Chapitre"])
        return printer.prints - before

    assert prints() == 1 and prints() == 0 and prints("<p>Autre</p>") == 1
    pdf_file = store / (printer._key("<p>Chapitre</p>") + ".pdf")
    pdf_file.write_bytes(pdf_file.read_bytes()[:100])
    assert prints() == 1 and prints() == 0
    pdf_file.with_suffix(".json").write_text("{not json")
    assert prints() == 1 and prints() == 0
    pdf_file.unlink()
    assert prints() == 1
    printer.used = {pdf_file.stem}
    printer.forget_others()   # the other document's print, an earlier edit's, is gone
    assert {path.name for path in store.iterdir()} == {pdf_file.name,
                                                       pdf_file.stem + ".json"}


class FakeDraft:
    """Stands for a print layout of two chapters, the second on pages of its own; the
    front takes `front_pages(contents)` pages."""

    def __init__(self, front_pages=lambda contents: 2):
        from tabbook.output.print_layout import Entry, Part

        section = SimpleNamespace(name="chap", title="Chapitre")
        self.parts = [Part("one", (Entry(section, 1, "1", "page-one"),)),
                      Part("two", (Entry(section, 1, "2", "page-two"),
                                   Entry(section, 2, "2.1", "page-two-sec")))]
        self.front_pages = front_pages

    def front(self, contents):
        return ("front", self.front_pages(contents), {})

    def chapter(self, part, first_page):
        places = {"one": {"page-one": 1}, "two": {"page-two": 1, "page-two-sec": 3}}
        return (part.name, 4, places[part.name])


class FakePrinter:
    folder = Path("print")

    def __init__(self):
        self.printed = []

    def print(self, name, document):
        self.printed.append(name)
        _, pages, destinations = document
        return PartPrint(b"", pages, destinations, [])


def test_the_contents_are_printed_again_until_their_numbers_settle():
    printer = FakePrinter()
    parts, contents = pdf.print_parts(printer, FakeDraft(), {})
    assert contents == {"page-one": 3, "page-two": 7, "page-two-sec": 9}
    assert printer.printed == ["front", "one", "two"] * 2 and len(parts) == 3
    printer = FakePrinter()
    pdf.print_parts(printer, FakeDraft(), contents)   # the previous numbers: right at once
    assert printer.printed == ["front", "one", "two"]
    # A front whose length follows its numbers never settles: a clear error, not a loop.
    with pytest.raises(PdfError, match="did not settle after 4 rounds of prints"):
        pdf.print_parts(FakePrinter(), FakeDraft(lambda contents: 2 + sum(contents.values()) % 2), {})


def test_an_entry_that_lands_nowhere_is_an_error_not_a_page_0():
    draft = FakeDraft()
    draft.chapter = lambda part, first: (part.name, 4, {})
    with pytest.raises(PdfError, match="no page of one holds page-one, an entry of the "
                                       "contents"):
        pdf.print_parts(FakePrinter(), draft, {})


@pytest.fixture
def printed_book(tmp_path, monkeypatch) -> Path:
    """A book printed once (by the fake Chromium); its folder."""
    root = tmp_path / "book"
    root.mkdir()
    write_executed(write_book(root, {"chap/sec.md": SECTION_TWO}), executed)
    assert printed_again(root, monkeypatch) == 1 and printed_again(root, monkeypatch) == 0
    return root


@pytest.mark.parametrize("stamp", [b"\xff\xfe not UTF-8", b"{not json", b"[]", b"null",
                                   b'{"inputs": "an old stamp"}'])
def test_a_damaged_pdf_stamp_is_a_missing_one(printed_book, monkeypatch, stamp):
    Layout(printed_book).print_record("pytorch").write_bytes(stamp)
    assert printed_again(printed_book, monkeypatch) == 1
    assert printed_again(printed_book, monkeypatch) == 0


def test_a_pdf_deleted_or_truncated_is_printed_again(printed_book, monkeypatch):
    path = Layout(printed_book).pdf("test-book", "pytorch")
    path.write_bytes(path.read_bytes()[:100])
    assert printed_again(printed_book, monkeypatch) == 1
    path.unlink()
    assert printed_again(printed_book, monkeypatch) == 1 and path.is_file()


def test_a_moved_book_keeps_its_pdf(printed_book, monkeypatch, tmp_path):
    shutil.move(printed_book, tmp_path / "moved")
    assert printed_again(tmp_path / "moved", monkeypatch) == 0


# -- this repository's book, PyTorch -------------------------------------------------
@pytest.fixture(scope="module")
def book_pdf(built_copy, framework_pythons) -> tuple[Path, Pdf]:
    """`build.py pdf --tab pytorch`, then `build.py html --tab pytorch`, on a copy of the
    built repository."""
    ensure_test_tools()
    root = built_copy()
    python = ("--python", f"pytorch={framework_pythons['pytorch']}")
    result = build(root, "pdf", "--tab", "pytorch", *python)
    assert result.returncode == 0, result.stdout + result.stderr
    path = root / "_build" / "pdf" / "gpu-dl-book-pytorch.pdf"
    assert re.search(r"^pdf \[pytorch\]: \d+ pages, \d+ bookmarks, [\d.]+ MB \(\d+ prints?, \d+ "
                     r"parts, [\d.]+ s\)", result.stdout, re.M), result.stdout
    again = build(root, "pdf", "--tab", "pytorch", *python, "--recheck")
    assert "pdf [pytorch]:" in again.stdout and "unchanged" in again.stdout
    site = build(root, "html", "--tab", "pytorch", *python)
    assert site.returncode == 0, site.stdout + site.stderr
    return root, Pdf(path)


@pytest.mark.browser
@pytest.mark.kernels
def test_the_pytorch_book_has_every_title_bookmark_and_page_number(book_pdf):
    root, pdf = book_pdf
    book, _ = parse_book(load_config(root))
    numbers = number_book(book)

    def title(section):
        number = numbers.sections[section.name]
        # Titles are printed in French typography, whatever spacing the source used.
        return _plain(french(f"{number} {section.title}" if number else section.title))
    chapters = [(title(book.index), [])] + [
        (title(chapter.index), [title(s) for s in chapter.sections if "pytorch" in s.tabs])
        for chapter in book.chapters]
    check_contents_and_bookmarks(pdf, chapters)
    assert len(pdf.texts) >= 60
    assert pdf.footer(1) == ""   # the title page
    for number in (2, len(pdf.texts) // 2, len(pdf.texts)):
        assert pdf.footer(number) == str(number)
    # Running heads: each chapter's title at the top of its pages.
    for chapter in book.chapters[:3]:
        page = dict(pdf.contents())[title(chapter.index)]
        assert pdf.header(page + 1) == title(chapter.index)


@pytest.mark.browser
@pytest.mark.kernels
def test_the_pytorch_book_numbers_its_tables_and_keeps_commands_whole(book_pdf):
    root, pdf = book_pdf
    lines = [line for page in pdf.lines for line in page]
    assert "Tableau 1.1 — Quelques GPU et leurs valeurs de crête annoncées" in lines
    # Each line of a command in the sources is one line of the PDF, hyphens and all, or,
    # wider than the page at the smallest size, wrapped at a space, a dot or a slash.
    written = {_plain(line.strip()) for path in (root / "chapters").rglob("*.md")
               for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip().startswith("nvidia-smi --query-gpu=")}
    printed = {line for line in lines if line.startswith("nvidia-smi --query-gpu")}
    assert len(written) > 3 and len(written & printed) > 3, written - printed
    assert all(command in " ".join(lines) for command in written)
    # A printed line that starts a command cut short never ends at one of its hyphens.
    cut = {line for line in printed for command in written
           if command != line and command.startswith(line) and line.endswith("-")}
    assert not cut, cut
    # Three editions of about 250 pages, each under 4.5 MB (object streams; each chapter,
    # printed apart, embeds its own subsets of the fonts: 0.9 MB of fonts, 0.2 in one print).
    assert pdf.path.stat().st_size < 4_500_000
    # The math font the site ships is embedded with the text's.
    assert any("STIXTwoMath" in name for name in pdf.fonts())


@pytest.mark.browser
@pytest.mark.kernels
def test_the_pytorch_book_holds_pytorch_code_only_and_wraps_it(book_pdf):
    root, pdf = book_pdf
    book, _ = parse_book(load_config(root))
    # Code wraps and runs across pages: compare it without line breaks and page numbers.
    ink = re.sub(r"\s", "", "".join(text.rstrip().removesuffix(str(number))
                                   for number, text in enumerate(pdf.texts, start=1)))

    def lines(tab: str) -> set[str]:
        """Every line of the code cells of `tab`, without its spaces."""
        return {re.sub(r"\s", "", line) for section in book.pages() if tab in section.tabs
                for cell in code_cells(section, tab).values()
                for line in cell.source.split("\n") if line.strip()}
    pytorch = lines("pytorch")
    # Text of every tab (prose, displayed code), where another tab's line may be quoted.
    shared = re.sub(r"\s", "", "".join(cell.source for section in book.pages()
                                       for cell in section.cells if cell.kind is not CellKind.CODE))
    foreign = {line for line in lines("mxnet") | lines("tensorflow")
               if len(line) > 12 and line not in shared and
               not any(line in own for own in pytorch)}
    assert len(pytorch) > 100 and len(foreign) > 20
    assert [line for line in pytorch if line not in ink] == []
    assert [line for line in foreign if line in ink] == []
    assert "Code PyTorch exécuté le" in _plain("".join(pdf.texts))
    assert pdf.characters_beyond() == []


@pytest.mark.browser
@pytest.mark.kernels
def test_the_pytorch_book_has_vector_figures_and_links(book_pdf):
    root, pdf = book_pdf
    book, _ = parse_book(load_config(root))
    target = number_book(book).targets["fig_copyto"]
    caption = f"Figure {target.number} —"
    figure_page = next(n for n, lines in enumerate(pdf.lines, start=1)
                       if any(line.startswith(caption) for line in lines))
    assert pdf.destinations["fig_copyto"] == figure_page
    referring = [link for number in range(3, len(pdf.texts) + 1)
                 for link in pdf.links(number) if link.get("dest") == "fig_copyto"]
    assert referring, "no link to the figure"
    outputs = [output.get("data", {})
               for path in (root / "_build" / "eval" / "pytorch").rglob("*.ipynb")
               for cell in nbformat.read(path, as_version=4).cells
               for output in cell.get("outputs", [])]
    # Pixels come only from the sources: PNG outputs, and the bitmaps an SVG figure
    # holds (images shown with imshow); every SVG figure and plot stays a vector.
    pixels = sum("image/png" in data and "image/svg+xml" not in data for data in outputs) + \
        sum(str(data.get("image/svg+xml", "")).count("<image") for data in outputs)
    assert pdf.raster_images() <= pixels
    contents = dict(pdf.contents())
    code_page = next(n for n in range(3, len(pdf.texts) + 1)
                     if "class Module(" in pdf.texts[n - 1])
    for number, name in ((1, "title"), (2, "contents"), (figure_page, "figure"),
                         (code_page, "code"), (contents[pdf.contents()[1][0]], "chapter")):
        write_png(pdf.path, number, PAGES / f"pytorch-{name}.png")
        assert (PAGES / f"pytorch-{name}.png").stat().st_size > 10_000


@pytest.mark.browser
@pytest.mark.kernels
def test_the_html_book_offers_the_pdf(book_pdf):
    root, pdf = book_pdf
    site = root / "_build" / "html-pytorch"
    offered = site / "pdf" / pdf.path.name
    assert offered.read_bytes() == pdf.path.read_bytes()
    index = (site / "index.html").read_text(encoding="utf-8")
    assert f'href="pdf/{pdf.path.name}"' in index and "Télécharger le PDF (PyTorch)" in index
    for page in site_pages(site):   # every link of the site resolves, the PDF's included
        for _, _, value in parse_page(site / page).links:
            if value.endswith(".pdf") and "://" not in value:   # not a vendor's paper
                assert ((site / page).parent / value).resolve() == offered.resolve()


@pytest.mark.browser
@pytest.mark.kernels
def test_the_main_build_prints_the_three_pdfs_and_the_site_offers_them(built_copy,
                                                                        framework_pythons):
    """The README's main command (`build.py` alone) prints each framework's PDF before the
    site, which offers all three; built again with nothing changed, it prints nothing."""
    root = built_copy()
    pythons = [arg for tab, python in framework_pythons.items()
               for arg in ("--python", f"{tab}={python}")]
    result = build(root, *pythons)
    assert result.returncode == 0, result.stdout + result.stderr
    tabs = ("pytorch", "mxnet", "tensorflow")
    for tab in tabs:
        assert re.search(rf"^pdf \[{tab}\]: \d+ pages", result.stdout, re.M), result.stdout
    site = root / "_build" / "html"
    index = (site / "index.html").read_text(encoding="utf-8")
    for tab in tabs:
        name = f"gpu-dl-book-{tab}.pdf"
        assert (site / "pdf" / name).read_bytes() == (root / "_build" / "pdf" / name).read_bytes()
        assert f'href="pdf/{name}"' in index
    assert "missing-pdf" not in index
    again = build(root, *pythons, "--recheck")
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.count("unchanged") >= 3, again.stdout   # the three PDFs kept
