"""`build.py slides` on a two-tab book, executed: each tab's slide notebooks, with its own
prose, inline values and outputs; the marks nowhere else."""
from __future__ import annotations

import json

import nbformat
import pytest

from conftest import DECLARE, md, two_tab_book
from tabbook.core.config import load_config
from tabbook.core.model import CellKind
from tabbook.source.parse import parse_book

SECTION = md(DECLARE.replace("'pytorch', 'mxnet', 'tensorflow'", "'pytorch', 'mxnet'"), """
    # Débits
    """, """
    ```{.python .input}
    %%tab pytorch
    rate = 13195.4
    ```

    ```{.python .input}
    %%tab mxnet
    rate = 9040.7
    ```
    """, """
    [**ce modèle traite :eval:`f'{rate:.0f}'` images par seconde.**]
    (~~seulement sur les diapositives~~)
    :check:`rate > 1000`
    """, """
    ```{.python .input}
    %%tab all
    double = 2 * rate
    ```

    ```{.python .input}
    %%tab all
    print(f"double : {double:.1f}")
    ```
    """, """
    :begin_tab:`pytorch`
    (**PyTorch en premier.**)
    :end_tab:

    :begin_tab:`mxnet`
    (**MXNet ensuite.**)
    :end_tab:
    """)
OTHER = md(DECLARE.replace("'pytorch', 'mxnet', 'tensorflow'", "'pytorch', 'mxnet'"),
           "# Sans marques", "```{.python .input}\n%%tab all\nx = 1\n```")


@pytest.fixture(scope="module")
def project(tmp_path_factory, framework_pythons):
    run = two_tab_book(tmp_path_factory.mktemp("slides"), {
        "chap/sec.md": SECTION, "chap/other.md": OTHER}, framework_pythons)
    result = run("slides")
    assert result.returncode == 0, result.stdout + result.stderr
    run.stdout = result.stdout
    return run


def slides(root, tab: str) -> nbformat.NotebookNode:
    return nbformat.read(root / "_build" / "slides" / tab / "chap" / "sec.ipynb", 4)


def test_each_tab_has_its_slides(project):
    assert "slides: 1 slide notebooks for pytorch, 1 slide notebooks for mxnet" in project.stdout
    assert not (project.root / "_build" / "slides" / "pytorch" / "chap" / "other.ipynb").exists()
    for tab, rate, own in (("pytorch", "13195", "PyTorch en premier"),
                           ("mxnet", "9041", "MXNet ensuite")):
        notebook = slides(project.root, tab)
        assert notebook.metadata["celltoolbar"] == "Slideshow"
        cells = [(c.cell_type, c.source) for c in notebook.cells]
        # The heading alone (no marks before the first code cell), then the marked text
        # with the tab's own value, the claim hidden.
        assert cells[0] == ("markdown", "# Débits")
        assert cells[2] == ("markdown", f"Ce modèle traite {rate} images par seconde.\n"
                                        "Seulement sur les diapositives")
        assert [c.metadata["slideshow"]["slide_type"] for c in notebook.cells
                if c.cell_type == "markdown"] == ["-", "slide", "-"]
        # The code without outputs is merged into the cell that prints.
        code = [c for c in notebook.cells if c.cell_type == "code"]
        assert [c.source for c in code] == [
            "rate = 13195.4" if tab == "pytorch" else "rate = 9040.7",
            'double = 2 * rate\n\nprint(f"double : {double:.1f}")']
        assert code[1].outputs[0]["text"] == f"double : {2 * float(code[0].source[7:]):.1f}\n"
        assert cells[-1] == ("markdown", own)
        assert ":check:" not in json.dumps(notebook) and ":eval:" not in json.dumps(notebook)


def test_decks_beside_the_notebooks_and_in_the_site(project):
    built = project.root / "_build"
    for tab, rate in (("pytorch", "13195"), ("mxnet", "9041")):
        deck = (built / "slides" / "html" / tab / "chap" / "sec.html").read_text(encoding="utf-8")
        assert f"{rate}" in deck and "Seulement sur les diapositives" in deck
        assert "double : " in deck   # the executed output
    assert not (built / "slides" / "html" / "pytorch" / "chap" / "other.html").exists()
    assert "chap/sec.html" in (built / "slides" / "html" / "index.html").read_text("utf-8")
    result = project("html")
    assert result.returncode == 0, result.stdout + result.stderr
    page = (built / "html" / "chap" / "sec.html").read_text(encoding="utf-8")
    for tab in ("pytorch", "mxnet"):
        assert f'href="../slides/{tab}/chap/sec.html"' in page
        deck = built / "html" / "slides" / tab / "chap" / "sec.html"
        assert 'href="../../../chap/sec.html"' in deck.read_text(encoding="utf-8")
    other = (built / "html" / "chap" / "other.html").read_text(encoding="utf-8")
    assert "slides/pytorch" not in other and 'href="../slides/index.html"' in other


def test_no_mark_shows_anywhere_else(project):
    built = project.root / "_build"
    shown = [*(p for p in built.glob("html/**/*.html") if "slides" not in p.parts),
             *built.glob("launch/**/*.ipynb")]
    for path in [*shown, *built.glob("eval/**/*.ipynb")]:
        if path.suffix == ".ipynb":
            text = "".join(c["source"] for c in nbformat.read(path, 4).cells)
        else:
            text = path.read_text(encoding="utf-8")
        assert "[**" not in text and "(**" not in text and "~~" not in text, path
        assert "seulement sur les diapositives" not in text, path
    page = (built / "html" / "chap" / "sec.html").read_text(encoding="utf-8")
    assert "images par seconde." in page and "en premier" in page


def test_the_sites_decks_in_chromium_offline(project, visitor):
    # Each tab's deck: the title slide (the heading's cell has nothing else), the code
    # before the first mark, the marked slide; its own value.
    built = project.root / "_build" / "html"
    if not (built / "slides").is_dir():
        assert project("html").returncode == 0
    for tab, rate in (("pytorch", "13195"), ("mxnet", "9041")):
        seen = visitor(viewport={"width": 1280, "height": 720})
        seen.page.goto((built / "slides" / tab / "chap" / "sec.html").as_uri())
        seen.page.wait_for_function("window.Reveal && Reveal.isReady()")
        assert seen.page.evaluate("Reveal.getTotalSlides()") == 3
        assert rate in seen.page.text_content(".slides")
        assert seen.outside == [] and seen.errors == []


def test_our_book_has_a_deck_per_section_with_code_and_tab(built_repository):
    """Every section of the book with code: a deck of 8 to 20 slides (title slide
    included) in each of its tabs, linked from its page."""
    config = load_config(built_repository)
    site = built_repository / "_build" / "html"
    with_code = [section for section in parse_book(config)[0].pages()
                 if any(cell.kind is CellKind.CODE for cell in section.cells)]
    assert len(with_code) >= 20
    for section in with_code:
        page = (site / f"{section.name}.html").read_text(encoding="utf-8")
        for tab in section.tabs:
            deck = site / "slides" / tab / f"{section.name}.html"
            assert 8 <= deck.read_text(encoding="utf-8").count("<section") <= 20, deck
            assert f'slides/{tab}/{section.name}.html"' in page, (section.name, tab)
