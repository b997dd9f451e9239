"""The slide decks (output/decks.py): two hand-written slide notebooks, one per tab, with
different outputs, rendered to reveal.js decks; shown and printed by Chromium."""
from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

import nbformat
import pytest
from pypdf import PdfReader

from tabbook.core.language import language_of
from tabbook.output import decks
from tabbook.output.decks import Deck, DeckBook, render_deck, render_deck_index, write_decks
from tabbook.source.numbering import Numbers

FRENCH, _ = language_of("fr")
LONG_CODE = "\n".join(f"valeur_{i} = torch.arange({i}) * {i}  # ligne {i} d'un long calcul"
                      for i in range(60))


def _png() -> bytes:
    """A 2 × 2 red PNG."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _markdown(text: str, kind: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(text, metadata={"slideshow": {"slide_type": kind}})


def _code(source: str, *outputs: dict) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(source, outputs=[nbformat.from_dict(o) for o in outputs])


def _notebook(cells: list) -> nbformat.NotebookNode:
    return nbformat.v4.new_notebook(cells=cells, metadata={
        "celltoolbar": "Slideshow", "rise": {"autolaunch": True, "enable_chalkboard": True,
                                             "overlay": "", "scroll": True}})


def stream(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def rich(data: dict) -> dict:
    return {"output_type": "display_data", "data": data, "metadata": {}}


PYTORCH = _notebook([
    _markdown("# Utiliser un GPU\nUn GPU calcule vite : voyons comment.", "slide"),
    _code("import torch\nx = torch.ones(3)"),
    _code("print(x.sum())", stream("tensor(3.) sur le processeur\n")),
    _markdown("La perte :\n\n$$\\ell(x) = \\sum_i x_i^2$$", "slide"),
    _code("afficher(x)", rich({"image/png": base64.b64encode(_png()).decode(),
                               "text/plain": "<Figure>"})),
    _markdown("Un long calcul", "slide"),
    _code(LONG_CODE, {"output_type": "execute_result", "execution_count": 3, "metadata": {},
                      "data": {"text/plain": "tensor([0, 59])"}}),
])
TENSORFLOW = _notebook([
    _markdown("# Utiliser un GPU\nUn GPU calcule vite : voyons comment.", "slide"),
    _code("import tensorflow as tf\nprint(tf.reduce_sum(tf.ones(3)))",
          stream("tf.Tensor(3.0, shape=(), dtype=float32)\n")),
    _markdown("Un tableau et un dessin", "slide"),
    _code("tableau()", rich({"text/html": "<table><tr><th>couche</th><td>Dense</td></tr>"
                                          "</table>", "text/plain": "couche Dense"})),
    _code("dessin()", rich({"image/svg+xml": '<svg xmlns="http://www.w3.org/2000/svg" '
                                             'width="40" height="20"><title>Un rectangle'
                                             '</title><rect width="40" height="20"/></svg>'})),
])
SLIDES = {"pytorch": 3, "tensorflow": 2}
"""The slides of each notebook, the title slide left out."""


def _decks() -> list[Deck]:
    return [Deck(lambda: PYTORCH, "chapter_gpu/use-gpu", "chapters/chapter_gpu/use-gpu.md",
                 "3.1 Utiliser un GPU", "3 Calculer sur GPU", "pytorch"),
            Deck(lambda: TENSORFLOW, "chapter_gpu/use-gpu", "chapters/chapter_gpu/use-gpu.md",
                 "3.1 Utiliser un GPU", "3 Calculer sur GPU", "tensorflow")]


@pytest.fixture
def book(tmp_path) -> DeckBook:
    return DeckBook("Le calcul sur GPU", FRENCH, Numbers(), tmp_path, site="..")


def test_slides_group_cells_by_slide_type():
    grouped = decks.slides(PYTORCH)
    assert [len(cells) for cells in grouped] == [3, 2, 2]
    assert [cell.cell_type for cell in grouped[0]] == ["markdown", "code", "code"]
    hidden = _notebook([_markdown("vue", "slide"), _markdown("cachée", "skip"),
                        _markdown("à dire", "notes"), _markdown("suite", "subslide")])
    assert [[cell.source for cell in cells] for cells in decks.slides(hidden)] == \
        [["vue"], ["suite"]]


def test_a_deck_renders_prose_math_code_and_the_outputs_of_its_tab(book, tmp_path):
    folder = tmp_path / "slides"
    html = render_deck(_decks()[0], book, folder)
    assert html.count("<section") == 1 + SLIDES["pytorch"]
    assert html.count("Utiliser un GPU") == 2   # the <title> and the title slide, not again
    assert "Un GPU calcule vite\u202f: voyons comment." in html   # French typography
    assert 'display="block" displaystyle="true"' in html and "<munder>" in html
    assert '<pre class="code highlight"' in html and '<span class="kn">import</span>' in html
    assert "tensor(3.) sur le processeur" in html and "tensor([0, 59])" in html
    images = list((folder / "_images").glob("*.png"))
    assert [image.read_bytes() for image in images] == [_png()]
    assert f'src="../../_images/{images[0].name}"' in html
    assert 'href="../../../chapter_gpu/use-gpu.html"' in html   # the section in the site
    assert 'href="../../_static/reveal/dist/reveal.css"' in html
    assert "tf.Tensor" not in html


def test_the_index_lists_the_decks_by_chapter_and_tab(book):
    html = render_deck_index(_decks(), book)
    assert "Diapositives du livre" in html and "3 Calculer sur GPU" in html
    assert html.count("3.1 Utiliser un GPU") == 1
    assert 'href="pytorch/chapter_gpu/use-gpu.html"' in html
    assert 'href="tensorflow/chapter_gpu/use-gpu.html?print-pdf"' in html
    assert "Aucune section" in render_deck_index([], book)


def test_write_decks_writes_each_deck_and_the_assets_once(book, tmp_path):
    folder = tmp_path / "slides"
    written = write_decks(folder, _decks(), book)
    assert written == [folder / "pytorch/chapter_gpu/use-gpu.html",
                       folder / "tensorflow/chapter_gpu/use-gpu.html"]
    assert all(path.is_file() for path in written)
    static = folder / "_static"
    for asset in ("reveal/dist/reveal.js", "reveal/dist/theme/white.css", "reveal/LICENSE",
                  "decks.css", "decks.js", "fonts/STIXTwoMath-Regular.woff2"):
        assert (static / asset).is_file(), asset
    assert ".highlight .kn" in (static / "decks.css").read_text()
    assert "Un rectangle" in written[1].read_text()   # the SVG's own title as its alt
    assert "couche</th>" in written[1].read_text()
    assert not (tmp_path / "slides.new").exists()


def test_a_failed_write_leaves_the_previous_decks(book, tmp_path, monkeypatch):
    folder = tmp_path / "slides"
    write_decks(folder, _decks()[:1], book)
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))

    def failing(deck, *args):
        raise RuntimeError("rendering failed")
    monkeypatch.setattr(decks, "render_deck", failing)
    with pytest.raises(RuntimeError, match="rendering failed"):
        write_decks(folder, _decks(), book)
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before
    assert not (tmp_path / "slides.new").exists()


def test_two_decks_for_one_section_and_tab_are_refused(book, tmp_path):
    with pytest.raises(ValueError, match="pytorch/chapter_gpu/use-gpu.html"):
        write_decks(tmp_path / "slides", _decks()[:1] * 2, book)


# -- in Chromium -----------------------------------------------------------------------
@pytest.fixture
def written(book, tmp_path) -> dict[str, Path]:
    folder = tmp_path / "slides"
    write_decks(folder, _decks(), book)
    return {deck.tab: folder / deck.path for deck in _decks()}


def _open(visitor, path: Path, query: str = ""):
    seen = visitor(viewport={"width": 1280, "height": 720})
    seen.page.goto(path.as_uri() + query)
    return seen


@pytest.mark.parametrize("tab", SLIDES)
def test_chromium_shows_every_slide_with_its_tabs_outputs_offline(visitor, written, tab):
    seen = _open(visitor, written[tab])
    seen.page.wait_for_function("window.Reveal && Reveal.isReady()")
    assert seen.page.evaluate("Reveal.getTotalSlides()") == 1 + SLIDES[tab]
    text = seen.page.text_content(".slides")
    shown = {"pytorch": "tensor(3.) sur le processeur", "tensorflow": "dtype=float32"}
    assert [words in text for words in shown.values()] == [t == tab for t in shown]
    if tab == "pytorch":   # its formula is drawn with the book's math font
        assert seen.page.evaluate("document.fonts.check('16px \"STIX Two Math\"')")
    assert seen.outside == [] and seen.errors == []


def test_a_long_code_slide_shrinks_then_scrolls(visitor, written):
    seen = _open(visitor, written["pytorch"], "#/3")
    seen.page.wait_for_function("window.Reveal && Reveal.isReady()")
    zoom = seen.page.evaluate("Number(Reveal.getCurrentSlide().querySelector('.slide-body')"
                              ".style.zoom)")
    assert zoom == pytest.approx(0.6)
    assert seen.page.evaluate("Reveal.getCurrentSlide().classList.contains('scrolls')")
    assert seen.page.evaluate("getComputedStyle(Reveal.getCurrentSlide()).overflowY") == "auto"


@pytest.mark.parametrize("tab", SLIDES)
def test_the_print_view_prints_one_page_per_slide(visitor, written, tab, tmp_path):
    seen = _open(visitor, written[tab], "?print-pdf")
    seen.page.wait_for_selector("html.deck-printable", state="attached")
    pdf = tmp_path / f"{tab}.pdf"
    seen.page.pdf(path=str(pdf), prefer_css_page_size=True, print_background=True)
    pages = PdfReader(pdf).pages
    assert len(pages) == 1 + SLIDES[tab]
    if tab == "pytorch":   # the long code slide shrinks to its page, its output included
        assert all(words in pages[3].extract_text() for words in ("valeur_59", "tensor([0,"))
    assert seen.outside == [] and seen.errors == []


def test_the_books_own_images_are_copied_into_the_decks(tmp_path):
    # Slide notebooks point to the published book for its images (Colab has no copy);
    # a deck is offline: it takes them from the project.
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "ring.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    book = DeckBook("Livre", FRENCH, Numbers(), tmp_path, site="..",
                    published_url="https://owner.github.io/book/")
    notebook = _notebook([_markdown("Une phrase\n![L'anneau](https://owner.github.io/book/img/"
                                    "ring.svg)\n\n![Ailleurs](https://example.org/a.svg)",
                                    "slide")])
    deck = Deck(lambda: notebook, "chap/sec", "chapters/chap/sec.md", "1.1 Sec", "1 Chap",
                "pytorch")
    html = render_deck(deck, book, tmp_path / "slides")
    assert 'src="../../img/ring.svg"' in html and "owner.github.io" not in html
    assert (tmp_path / "slides" / "img" / "ring.svg").is_file()
    assert 'src="https://example.org/a.svg"' in html   # not the book's: left as written


def test_a_kept_deck_is_copied_with_the_files_it_shows(book, tmp_path, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    write_decks(first, _decks(), book)
    rendered = []
    monkeypatch.setattr(decks, "render_deck",
                        lambda deck, *args: rendered.append(deck.tab) or "<html></html>")
    write_decks(second, _decks(), book,
                kept=lambda deck: first if deck.tab == "pytorch" else None)
    assert rendered == ["tensorflow"]
    kept = second / "pytorch/chapter_gpu/use-gpu.html"
    assert kept.read_bytes() == (first / "pytorch/chapter_gpu/use-gpu.html").read_bytes()
    images = [p.relative_to(first) for p in (first / "_images").glob("*.png")]
    assert images and all((second / image).is_file() for image in images)
