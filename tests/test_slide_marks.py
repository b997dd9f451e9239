"""Slide marks (source/slide_marks.py): found as d2lbook's `_match_slide_marks` finds them,
wrong ones located, `~~` marks dropped from the book; and the slide notebooks made from a
tab's notebook (output/slides.py), without kernels."""
from __future__ import annotations

import nbformat
import pytest

from conftest import DECLARE, TWO_TABS, md, write_book
from tabbook.core.config import load_config
from tabbook.core.model import METADATA_KEY
from tabbook.notebooks.split import split_section
from tabbook.output.slides import slide_notebook, slide_text
from tabbook.source.numbering import number_book
from tabbook.source.parse import parse_book, parse_section
from tabbook.source.slide_marks import (SLIDES_KEY, SlideMarkError, book_text, book_tokens,
                                        slide_marks)


def marks(text: str) -> list[tuple[str, str]]:
    return [(mark.opener, mark.text) for mark in slide_marks(text)]


def test_the_four_marks_and_links():
    text = "Un [**début**] et (**suite\nsur deux lignes**), [~~diapo~~] (~~seule~~) fin."
    assert marks(text) == [("[**", "début"), ("(**", "suite\nsur deux lignes"),
                           ("[~~", "diapo"), ("(~~", "seule")]
    assert [m.new_slide for m in slide_marks(text)] == [True, False, True, False]
    # A bold link is no mark, and no text left open either.
    assert marks("Voir [**le site**](https://d2l.ai) et [**ceci**].") == [("[**", "ceci")]
    assert marks("Du *gras* **ici** et `a ~ b`.") == []


def test_the_book_keeps_the_text_of_bold_marks_and_drops_the_others():
    assert book_text("a [**b c**] d (**e\nf**) g")[0] == "a b c d e\nf g"
    # No doubled space, no space before the punctuation, no line left empty.
    assert book_text("Le modèle (~~linéaire~~) apprend (~~vite~~).")[0] == \
        "Le modèle apprend."
    shown, origins = book_text("Avant\n(~~seule sur sa ligne~~)\naprès.\n\n[~~titre~~]\n\nFin.")
    assert shown == "Avant\naprès.\n\n\nFin."
    assert origins == [0, 2, 3, 5, 6]   # the .md line of each line shown
    assert book_text("[**lien**](u) reste")[0] == "[**lien**](u) reste"
    # Wrong marks are left as written (the check reports them).
    assert book_text("a [**b")[0] == "a [**b"


def test_tokens_keep_the_lines_of_the_source():
    tokens = book_tokens("Un\n(~~retiré~~)\ndeux.\n\n[~~aussi~~]\n\n# Titre")
    assert [(t.type, t.map) for t in tokens if t.type.endswith("_open")] == [
        ("paragraph_open", [0, 3]), ("heading_open", [6, 7])]


@pytest.mark.parametrize("text, offset, message", [
    ("a [**b", 2, "slide mark `[**` is never closed by `**]`"),
    ("a b**] c", 3, "`**]` closes no slide mark `[**`"),
    ("[**a [**b**]", 0, "slide mark `[**` is not closed by `**]` before the next `[**`"),
    ("[**a (**b**) c**]", 5, "slide mark `(**` is inside the slide mark `[**` before it"),
    ("(~~a [**b~~) c**]", 5, "slide mark `[**` is inside the slide mark `(~~` before it"),
    ("[**]", 1, "`**]` closes no slide mark `[**`"),
])
def test_wrong_marks_are_errors_at_the_offending_mark(text, offset, message):
    with pytest.raises(SlideMarkError) as raised:
        slide_marks(text)
    assert (raised.value.offset, raised.value.message) == (offset, message)
    assert raised.value.fix


def test_a_wrong_mark_is_a_located_check_problem(tmp_path):
    chapters = tmp_path / "chapters"
    chapters.mkdir()
    (chapters / "sec.md").write_text(md(DECLARE, "# Titre", """
        Un texte [**correct**].

        Puis
        un [**oubli sans fin.
        """), encoding="utf-8")
    _, problems = parse_section(chapters / "sec.md", chapters, tmp_path,
                                ("pytorch", "mxnet", "tensorflow"))
    assert [(p.line, p.message, p.warning) for p in problems] == [
        (11, "slide mark `[**` is never closed by `**]`", False)]
    assert "close it with `**]`" in problems[0].fix


def test_labels_after_a_dropped_line_keep_their_line(tmp_path):
    chapters = tmp_path / "chapters"
    chapters.mkdir()
    (chapters / "sec.md").write_text(md("# Titre", """
        Avant
        (~~seulement sur les diapositives~~)
        après.

        ![Une figure](img/a.png)
        :label:`fig_a`
        """), encoding="utf-8")
    section, problems = parse_section(chapters / "sec.md", chapters, tmp_path, ("pytorch",))
    assert problems == []
    assert [(label.name, label.line) for label in section.labels] == [("fig_a", 8)]


SECTION = md(DECLARE.replace("'pytorch', 'mxnet', 'tensorflow'", "'pytorch', 'mxnet'"), """
    # Les diapositives
    :label:`sec_slides`

    [**les modèles linéaires. ils apprennent vite.**]
    (~~seulement ici,~~)
    """, """
    ```{.python .input}
    %%tab all
    x = 1  #@save
    ```

    ```{.python .input}
    %%tab all
    #@save
    y = 2
    ```

    ```{.python .input}
    %%tab all
    print(x + y)
    ```
    """, """
    :begin_tab:`pytorch`
    (**PyTorch seulement : voir :numref:`sec_slides`**).
    :end_tab:

    :begin_tab:`mxnet`
    [**MXNet seulement,$$x = 1.$$**]
    :end_tab:

    Sans marque : cette cellule n'est pas une diapositive.
    """)


@pytest.fixture
def slides_book(tmp_path):
    write_book(tmp_path, {"chap/sec.md": SECTION}, TWO_TABS)
    config = load_config(tmp_path)
    book, problems = parse_book(config)
    assert [p for p in problems if not p.warning] == []
    return config, book


def executed(split: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The split notebook with the outputs a run gives its last code cell."""
    notebook = nbformat.from_dict(split)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    code[-1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="3\n")]
    return notebook


def test_slide_notebooks_of_each_tab(slides_book):
    config, book = slides_book
    section = book.pages()[-1]
    numbers = number_book(book)
    torch_split = split_section(section, "pytorch")
    # The split notebook keeps the marks of each Markdown cell in its metadata only.
    assert [c.metadata[METADATA_KEY][SLIDES_KEY] for c in torch_split.cells
            if SLIDES_KEY in c.metadata.get(METADATA_KEY, {})] == [
        [["[**", "les modèles linéaires. ils apprennent vite."], ["(~~", "seulement ici,"]],
        [["(**", "PyTorch seulement : voir :numref:`sec_slides`"]]]
    assert all("**" not in c.source and "~~" not in c.source for c in torch_split.cells)
    torch = slide_notebook(executed(torch_split), config, section, numbers)
    mxnet = slide_notebook(executed(split_section(section, "mxnet")), config, section, numbers)
    assert torch.metadata["celltoolbar"] == "Slideshow"
    assert torch.metadata["rise"] == {
        "autolaunch": True, "enable_chalkboard": True,
        "overlay": "<div class='my-top-right'></div><div class='my-top-left'></div>"}
    cells = [(c.cell_type, c.source, c.metadata.get("slideshow", {}).get("slide_type"))
             for c in torch.cells]
    # Heading first, sentences capitalised, trailing punctuation gone; code without
    # outputs merged into the next cell with outputs, #@save gone; French typography and
    # the reference rendered as the published notebooks render it.
    assert cells[0] == ("markdown", "# Les diapositives\n\nLes modèles linéaires. Ils "
                        "apprennent vite.\nSeulement ici", "slide")
    assert cells[1] == ("code", "x = 1\n\ny = 2\n\nprint(x + y)", None)
    assert cells[2][0] == "markdown" and cells[2][2] == "-"
    assert cells[2][1] == ("PyTorch seulement\u202f: voir [section 1.1]"
                           "(https://owner.github.io/book/chap/sec.html#sec_slides)")
    assert len(cells) == 3 and torch.cells[1].outputs[0]["text"] == "3\n"
    assert "MXNet" not in str(torch.cells) and "Sans marque" not in str(torch.cells)
    assert [c.source for c in mxnet.cells if c.cell_type == "markdown"][1] == \
        "MXNet seulement$$x = 1$$"
    assert METADATA_KEY not in mxnet.cells[1].metadata


def test_a_section_without_marks_has_no_slides(slides_book):
    config, book = slides_book
    chapter = book.pages()[0]
    assert slide_notebook(split_section(chapter, "pytorch"), config, chapter,
                          number_book(book)) is None


def test_slide_text_as_d2lbook_writes_it():
    # Only after ". " and ".\n" (`a.text()` is code); ",$$" and ".$$" lose their mark.
    assert slide_text([["[**", "un. deux.\ntrois a.b"], ["(**", "quatre,$$a.$$"]]) == \
        "Un. Deux.\nTrois a.b\nquatre$$a$$"
    assert slide_text([["[**", "fin :"]]) == "Fin"
    assert slide_text([["[**", "a. "]]) == "A"


def test_each_opening_mark_of_a_cell_opens_its_own_slide(slides_book):
    # d2lbook would make one slide of the whole cell; here `[` opens a slide wherever it is.
    config, book = slides_book
    section = book.pages()[-1]
    marks = [["(**", "avant."], ["[**", "un."], ["(**", "un bis."], ["[~~", "deux"]]
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Titre\n\navant. un. un bis.",
                                      metadata={METADATA_KEY: {SLIDES_KEY: marks}})])
    slides = slide_notebook(notebook, config, section, number_book(book))
    assert [(c.source, c.metadata["slideshow"]["slide_type"]) for c in slides.cells] == [
        ("# Titre\n\nAvant", "-"), ("Un.\nUn bis", "slide"), ("Deux", "slide")]
