"""HTML of the pieces of a page: outputs of every kind, equations, references."""
from __future__ import annotations

import base64
from dataclasses import replace

import nbformat
import pytest

from conftest import LINEAR_GROWTH, growth, write_book
from tabbook.features.bibliography import (BibError, bibliography_errors, latex_text,
                                         read_bibliography)
from tabbook.source.latex import to_mathml
from tabbook.core.config import load_config
from tabbook.core.language import language_of
from tabbook.output.markup import PageContext, render_prose
from tabbook.source.numbering import number_book
from tabbook.output.outputs import ansi_to_html, render_outputs
from tabbook.source.parse import parse_book
from tabbook.source.roles import located_tokens, prose_tokens

PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000185d0a4b00000000049454e44ae426082")).decode()
SECTION = """\
# Équations
:label:`sec_eq`

$$y = Xw + b$$
:eqlabel:`eq_linear`

Voir :eqref:`eq_linear` et :numref:`sec_eq`, ou :numref:`la même <sec_eq>`.
"""


def context(tmp_path):
    root = write_book(tmp_path, {"chap/index.md": "# Chapitre\n\n```toc\nsec\n```\n",
                                 "chap/sec.md": SECTION})
    config = load_config(root)
    book, problems = parse_book(config)
    assert not problems
    section = book.chapters[0].sections[0]
    ctx = PageContext(section.name, section.display_path, number_book(book), tmp_path / "site", root,
                      config.project.language)
    return ctx, section


def test_outputs_of_every_kind(tmp_path):
    ctx, _ = context(tmp_path)
    outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="bonjour <monde>\n"),
        nbformat.v4.new_output("stream", name="stderr", text="attention\n"),
        nbformat.v4.new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"}),
        nbformat.v4.new_output("display_data", data={"image/svg+xml": "<svg></svg>",
                                                     "text/plain": "<Figure>"}),
        nbformat.v4.new_output("execute_result", execution_count=1,
                               data={"text/html": "<table><tr><td>1</td></tr></table>",
                                     "text/plain": "df"}),
        nbformat.v4.new_output("error", ename="ValueError", evalue="non",
                               traceback=["\x1b[0;31mValueError\x1b[0m: non"]),
    ]
    html = render_outputs(outputs, ctx, "Graphique : perte")
    assert '<pre class="output">bonjour &lt;monde&gt;\n</pre>' in html
    assert '<pre class="output stderr">attention' in html
    assert html.count('<img class="output"') == 2
    assert html.count('alt="Graphique\u202f: perte"') == 2
    assert len(list((tmp_path / "site" / "_images").glob("*.png"))) == 1
    assert len(list((tmp_path / "site" / "_images").glob("*.svg"))) == 1
    assert "<table><tr><td>1</td></tr></table>" in html
    assert '<span class="ansi-fg-red">ValueError</span>: non' in html
    assert "\x1b" not in html


def test_results_and_tracebacks_too_long_are_shown_cut(tmp_path):
    """Every output a reader sees is cut past 100 000 characters, a result's HTML too:
    cut in the middle, it would be no HTML, so its plain text is shown instead."""
    ctx, _ = context(tmp_path)
    rows = "".join(f"<tr><td>{number}</td></tr>" for number in range(20_000))
    outputs = [
        nbformat.v4.new_output("execute_result", execution_count=1, data={
            "text/html": f"<table>{rows}</table>",
            "text/plain": "".join(f"rang {number}\n" for number in range(20_000))}),
        nbformat.v4.new_output("error", ename="RecursionError", evalue="trop",
                               traceback=[f"appel {number}" for number in range(20_000)])]
    html = render_outputs(outputs, ctx, "")
    assert "<table>" not in html and "<td>" not in html
    assert html.count('<span class="output-cut">[… sortie tronquée\u202f: ') == 2
    for first, middle, last in (("rang 0", "rang 10000", "rang 19999"),
                                ("appel 0", "appel 10000", "appel 19999")):
        assert first in html and last in html and middle not in html
    assert len(html) < 30_000


def test_ansi_bold_and_bright_colours():
    assert ansi_to_html("\x1b[1;92mok\x1b[0m <") == '<span class="ansi-bold ansi-fg-green">ok</span> &lt;'


def test_numbered_equation_and_french_references(tmp_path):
    ctx, section = context(tmp_path)
    html = "".join(render_prose(c.source, c.line, ctx) for c in section.cells)
    assert '<div class="equation" id="eq_linear"><math' in html and "(1.1.1)" not in html
    assert '<span class="eqno">(1.1)</span>' in html
    assert '<a class="reference" href="#eq_linear">(1.1)</a>' in html
    assert '<a class="reference" href="#sec_eq">section 1.1</a>' in html
    assert '<a class="reference" href="#sec_eq">la même</a>' in html
    assert '<h1 id="sec_eq"><span class="number">1.1</span> Équations' in html


def test_a_role_in_code_stays_text(tmp_path):
    ctx, _ = context(tmp_path)
    text = ("Écrire `` :numref:`sec_eq` `` donne :numref:`sec_eq`.\n\n"
            "- liste\n\n  ```\n  :numref:`sec_eq`\n  ```\n\nTexte\n\n    :eqref:`eq_linear`\n")
    html = render_prose(text, 1, ctx)
    assert "<code>:numref:`sec_eq`</code> donne" in html
    assert "<pre><code>:numref:`sec_eq`\n</code></pre>" in html
    assert "<pre><code>:eqref:`eq_linear`\n</code></pre>" in html
    assert html.count('<a class="reference"') == 1


def test_roles_in_code_are_no_references(tmp_path):
    root = write_book(tmp_path, {"chap/index.md": "# Chapitre\n\n```toc\nsec\n```\n",
                                 "chap/sec.md": "# Code\n\nLe rôle ``:numref:`inconnu` ``.\n"})
    book, problems = parse_book(load_config(root))
    assert not problems and not book.chapters[0].sections[0].references


def test_ids_from_labels_are_escaped(tmp_path):
    ctx, _ = context(tmp_path)
    (ctx.project_root / "chapters" / "chap" / "x.png").write_bytes(b"")
    html = render_prose('## Titre\n:label:`a"<b`\n\n![Image](x.png)\n:label:`c"<d`\n\n'
                        'Texte :label:`e"<f`\n', 1, ctx)
    for escaped in ("a&quot;&lt;b", "c&quot;&lt;d", "e&quot;&lt;f"):
        assert f'id="{escaped}"' in html
    assert '"<' not in html


FRENCH = language_of("fr")[0]


def test_citations_read_author_and_year(tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text("""
@book{Knuth.1984, author = {Knuth, Donald E.}, title = {The TeXbook}, year = {1984}}
@article{Patarasuk.Yuan.2009, author = {Pitch Patarasuk and Yuan, Xin}, title = {T}, year = {2009}}
@misc{Goyal.ea.2017, author = {Goyal, Priya and Dollár, Piotr and He, Kaiming}, year = {2017}}
@misc{Anonymous, title = {Sans auteur}}
""", encoding="utf-8")
    labels = {key: entry.label(FRENCH) for key, entry in read_bibliography(bib).items()}
    assert labels == {"Knuth.1984": "Knuth, 1984", "Patarasuk.Yuan.2009": "Patarasuk et Yuan, 2009",
                      "Goyal.ea.2017": "Goyal et al., 2017", "Anonymous": "Anonymous, s. d."}


@pytest.mark.parametrize("written, shown", [
    (r"Universit{\'e} de Montr{\'e}al", "Université de Montréal"),   # {\'e}
    (r"Montr\'{e}al, Montr\'eal, Montr{\'{e}}al", "Montréal, Montréal, Montréal"),
    (r"Fran{\c{c}}ois, Fran\c{c}ois, Fran{\c c}ois, {\c{C}}a",
     "François, François, François, Ça"),
    (r"\`a \^e \"o \~n \=a \.z \u{g} \v{s} \H{o} \k{a} \r{u} \d{s} \b{t}",
     "à ê ö ñ ā ż ğ š ő ą ů ṣ ṯ"),
    (r"na\"{\i}ve, na{\"\i}ve, \'{\i}", "naïve, naïve, í"),          # dotless i takes it
    (r"Stra\ss e, Stra{\ss}e, {\o}re, \O, {\ae}, \AE, \oe uvre, {\aa}, \AA ngstr\"om",
     "Straße, Straße, øre, Ø, æ, Æ, œuvre, å, Ångström"),
    (r"{\L}ukasiewicz, \l{}\'od\'z", "Łukasiewicz, łódź"),
    (r"\& 50\% \$5 \# \_ \{x\}", "& 50% $5 # _ {x}"),
    (r"pp.~1--10 --- ``quoted'' \emph{vraiment} \textbf{gras} \TeX{} $O(n)$",
     "pp.\u00a01–10 — “quoted” vraiment gras TeX O(n)"),
    (r"{Deep} {L}earning", "Deep Learning"),
    ("{Apprentissage}  profond\n  sur {GPU} (Dollár)", "Apprentissage profond sur GPU (Dollár)"),
])
def test_latex_accents_and_signs_in_bibtex_read_as_unicode(written, shown):
    assert latex_text(written) == shown


def test_bibtex_strings_concatenation_and_names(tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(r"""
@STRING{mtl = {Montr{\'e}al}}
@string(udem = "Universit{\'e} de " # mtl)
@comment{not an entry, really}
@techreport{B.2003, author = {Bengio, Yoshua and {Barnes and Noble} and Fran{\c{c}}ois Chollet},
  institution = udem # ", Qu{\'e}bec", month = nov, year = 2003,
  title = "A {"}quoted{"} title"}
""", encoding="utf-8")
    entry = read_bibliography(bib)["B.2003"]
    assert entry.fields["institution"] == "Université de Montréal, Québec"
    assert entry.fields["month"] == "November" and entry.fields["year"] == "2003"
    assert entry.fields["title"] == 'A "quoted" title'
    assert [(n.first, n.last) for n in entry.names] == [
        ("Yoshua", "Bengio"), ("", "Barnes and Noble"), ("François", "Chollet")]
    assert entry.label(FRENCH) == "Bengio et al., 2003"
    assert entry.text(FRENCH) == ("Yoshua Bengio, Barnes and Noble et François Chollet (2003). "
                                  'A "quoted" title. Université de Montréal, Québec.')
    assert list(read_bibliography(bib)) == ["B.2003"]   # @string and @comment are no entries


def test_bibtex_von_and_jr_parts_of_names(tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text("@book{K.1963, author = {Ludwig van Beethoven and de Jong, Michiel and "
                   "King, Jr, Martin Luther}, year = 1963}\n"
                   "@book{X.2000, author = {a, b, c, d}, year = 2000}\n", encoding="utf-8")
    entry = read_bibliography(bib)["K.1963"]
    assert [str(name) for name in entry.names] == [
        "Ludwig van Beethoven", "Michiel de Jong", "Martin Luther King Jr"]
    assert entry.label(FRENCH) == "van Beethoven et al., 1963"   # as natbib cites it
    assert bibliography_errors(bib) == [BibError(
        2, "in the entry 'X.2000': Too many commas in 'a, b, c, d'; the rest is read as the "
        "first name", "write it « Last, Jr, First »")]


def test_math_is_converted_once_for_the_check_and_the_page(tmp_path):
    ctx, _ = context(tmp_path)
    html = render_prose("Soit $\\left( x$ et $\\frac{a}{b$.\n", 1, ctx)
    # What latex2mathml cannot read is shown as written; what it reads wrongly (an unclosed
    # brace it closes itself) is shown as it reads it. The check reported both.
    assert '<code class="math-error">\\left( x</code>' in html
    assert html.count("<math") == 1
    assert to_mathml("\\left( x", False) == (None, "cannot be read (extra left or missing right)")
    assert to_mathml("\\frac{a}{b", False)[1] == "a '{' is never closed"
    assert to_mathml("\\{a\\} \\\\ b", True)[1] is None


# d2l-en's display equations written inside a paragraph, two or three lines in a row
# (statistics.md:488, gp-inference.md:75-76): pandoc, d2lbook's reader, reads each
# ``$$…$$`` as display math; read as ``$`` pairs, the newline between two was a formula.
D2L_EN_EQUATIONS = {
    "statistics": ("Consider the following estimators of $\\theta$:\n"
                   "$$\\hat{\\theta} = \\max \\{X_1, X_2, \\ldots, X_n \\};$$\n"
                   "$$\\tilde{\\theta} = 2 \\bar{X_n} = \\frac{2}{n} \\sum_{i=1}^n X_i.$$\n",
                   ('<mover accent="true"><mrow><mi>&#x003B8;</mi></mrow><mo>&#x0005E;</mo>',
                    '<mo>max</mo><mo stretchy="false">&#x0007B;</mo>',   # \{ kept
                    '<mo stretchy="false">&#x0007E;</mo>', "<munderover><mo>&#x02211;</mo>")),
    "gp-inference": ("The predictive distribution has the form:\n"
                     "$$p(y_* | x_*, \\textbf{y}, \\theta) = \\mathcal{N}(a_*,v_*)$$\n"
                     "$$a_* = k_{\\theta}(x_*,X)[K_{\\theta}(X,X)+\\sigma^2I]^{-1}"
                     "(\\textbf{y}-\\mu) + \\mu$$\n"
                     "$$v_* = k_{\\theta}(x_*,x_*) - K_{\\theta}(x_*,X)[K_{\\theta}(X,X)+"
                     "\\sigma^2I]^{-1}k_{\\theta}(X,x_*)$$\n",
                     ("<mi>&#x1D4A9;</mi>", "<msub><mi>a</mi><mo>&#x0002A;</mo></msub>",
                      "<msub><mi>v</mi><mo>&#x0002A;</mo></msub>", "<mi>&#x003BC;</mi>")),
}


@pytest.mark.parametrize("source", D2L_EN_EQUATIONS)
def test_display_equations_inside_a_paragraph_are_displayed(tmp_path, source):
    ctx, _ = context(tmp_path)
    text, elements = D2L_EN_EQUATIONS[source]
    formulas = text.count("$$") // 2
    html = render_prose(text, 1, ctx)
    assert html.count('<span class="math display"><math xmlns="http://www.w3.org/1998/Math/'
                      'MathML" display="block" displaystyle="true">') == formulas
    assert "math-error" not in html and "$" not in html
    for element in elements:
        assert element in html
    # The check finds nothing to say (no empty formula between two lines).
    math = [token for token, _ in located_tokens(prose_tokens(text), 1)
            if token.type.startswith("math")]
    assert [token.type for token in math].count("math_inline_double") == formulas
    assert all(to_mathml(token.content, True)[1] is None for token in math)


TABLES = """\
# Tableaux
:label:`sec_tab`

Le :numref:`tab_gpu` compare deux cartes.

: Deux cartes et leur *mémoire*

| Carte | Mémoire |
|:-|-:|
| A100 | 80 |
| H100 | 80 |
:label:`tab_gpu`

| Sans | légende |
|-|-|
| 1 | 2 |
:label:`tab_bare`

| Ni | étiquette |
|-|-|
| 3 | 4 |
"""


def test_a_labelled_table_is_numbered_with_its_caption_and_its_anchor(tmp_path):
    root = write_book(tmp_path, {"chap/index.md": "# Chapitre\n\n```toc\nsec\n```\n",
                                 "chap/sec.md": TABLES})
    config = load_config(root)
    book, problems = parse_book(config)
    assert not problems
    section = book.chapters[0].sections[0]
    ctx = PageContext(section.name, section.display_path, number_book(book), tmp_path / "site",
                      root, config.project.language)
    html = "".join(render_prose(c.source, c.line, ctx) for c in section.cells)
    # The caption line (d2lbook's « : Titre » before the table) is the table's caption,
    # not a paragraph; the anchor is the table itself, not an empty span after it.
    assert ('<table id="tab_gpu"><caption><span class="number">Tableau 1.1</span> — '
            'Deux cartes et leur <em>mémoire</em></caption>') in html
    assert '<a class="reference" href="#tab_gpu">tableau 1.1</a>' in html
    assert '<table id="tab_bare"><caption><span class="number">Tableau 1.2</span></caption>' \
        in html
    assert "<table>\n<thead>" in html   # neither labelled nor captioned: as it was
    assert "<p>: Deux" not in html and '<span id="tab_' not in html


def test_display_math_has_display_style_and_french_decimal_commas(tmp_path):
    ctx, _ = context(tmp_path)
    html = render_prose("On a $2^{-10} \\approx 0,001$ et $f(a, b)$, $1{,}5$.\n\n"
                        "$$\\sum_{i=1}^{n} x_i$$\n", 1, ctx)
    # One number, no space after its comma; a comma between letters is still punctuation.
    assert "<mn>0,001</mn>" in html and "<mn>1,5</mn>" in html
    assert "<mi>a</mi><mo>&#x0002C;</mo>" in html
    assert 'display="block" displaystyle="true"' in html
    assert "<munderover><mo>&#x02211;</mo>" in html   # limits above and below
    english = language_of("en")[0]
    assert "<mn>0</mn><mo>&#x0002C;</mo><mn>001</mn>" in \
        render_prose("$0,001$\n", 1, replace(ctx, language=english))


def test_a_large_operators_scripts_become_limits_but_an_integrals_do_not(tmp_path):
    ctx, _ = context(tmp_path)
    html = render_prose("$$\\left( \\sum_{i \\in A} x_i \\right) + \\max_{j} y_j"
                        " + \\int_0^1 f$$\n", 1, ctx)
    assert "<munder><mo>&#x02211;</mo><mrow><mi>i</mi>" in html   # below it in display
    assert "<munder><mo>max</mo>" in html
    assert "<msubsup><mo>&#x0222B;</mo>" in html   # an integral keeps its scripts
    assert "<msub><mo>" not in html


def test_a_role_this_build_cannot_read_is_shown_as_written(tmp_path):
    """Never gone from the page: a misspelt role (the checks warn) is its text, as Sphinx
    shows a problematic node, without the typography of prose."""
    ctx, _ = context(tmp_path)
    html = render_prose("Voir :numreff:`sec_eq` et :numref:`sec_eq`.", 1, ctx)
    assert html == '<p>Voir <span class="problematic">:numreff:`sec_eq`</span> et ' \
                   '<a class="reference" href="#sec_eq">section 1.1</a>.</p>\n'


def test_the_lines_of_a_long_paragraph_are_found_in_linear_time():
    """The parse, the checks and the pages locate each role, formula and HTML of a paragraph
    at its .md line; counting lines from the paragraph's start for each was quadratic in its
    length (a long paragraph took minutes before the launch and HTML steps)."""
    def paragraph(repetitions: int) -> tuple:
        return prose_tokens(("Voir :numref:`sec_x` et $x$ :\n" + "texte " * 40 + "\n")
                            * repetitions)

    def lines(tokens: tuple) -> list:
        return list(located_tokens(tokens, 1))

    assert growth(lines, paragraph, 150) < LINEAR_GROWTH
    assert [(token.type, line) for token, line in lines(paragraph(2))
            if token.type in ("role", "math_inline")] == \
        [("role", 1), ("math_inline", 1), ("role", 3), ("math_inline", 3)]


def test_a_table_with_an_empty_corner_has_row_headers_and_no_empty_header(tmp_path):
    """An empty first header cell: the first column names the rows (axe: empty-table-header)."""
    ctx, _ = context(tmp_path)
    html = render_prose("| | Grand public | Centre |\n|-|-|-|\n| Mémoire | 32 Go | 192 Go |\n"
                        "| Prix | bas | haut |\n", 1, ctx)
    assert "<th></th>" not in html and "<td></td>" in html
    assert '<th scope="row">Mémoire</th>' in html and '<th scope="row">Prix</th>' in html
    assert "<th>Grand public</th>" in html and "<td>bas</td>" in html
    plain = render_prose("| Carte | Mémoire |\n|-|-|\n| A100 | 80 |\n", 1, ctx)
    assert "<th>Carte</th>" in plain and "<td>A100</td>" in plain and "scope" not in plain
