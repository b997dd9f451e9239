"""The text alternative of the figures a code cell draws (output/descriptions.py)."""
from __future__ import annotations

from tabbook.core.language import language_of
from tabbook.output.descriptions import cell_description, code_description, svg_title
from tabbook.source.roles import prose_tokens
from tabbook.source.roles import fence_alt

FRENCH = language_of("fr")[0]
PLOT = """\
figure = Figure()
axes = figure.add_subplot()
axes.plot(sizes, gflops, 'o-', label=name)
axes.set_xlabel('taille n des matrices')
axes.set_ylabel("GFLOP/s")
axes.set_title(pair_name)           # a name: its value is not known here
axes.legend(title='appareil')       # a legend's title names its entries
d2l.show_figure(figure)
"""


def test_the_labels_the_code_writes_describe_the_figure():
    assert code_description(PLOT, FRENCH) == \
        "Graphique : GFLOP/s en fonction de taille n des matrices"
    two = "a.set_title('Avant')\na.set_ylabel('durée (ms)')\nb.set_xlabel('temps (ms)')\n" \
          "board = ProgressBoard(xlabel='époque', ylabel=f'perte {kind}')"
    assert code_description(two, FRENCH) == (
        "Graphique : Avant; durée (ms) en fonction de temps (ms); époque en abscisse")
    assert code_description("%timeit f()\nplt.xlabel('x')", FRENCH) == ""   # not Python
    assert code_description("trainer.fit(model, data)", FRENCH) == ""


def test_the_author_then_the_code_then_the_prose_before_then_generic_words():
    prose = prose_tokens("Mesurons :eval:`n` tailles. La courbe montre la perte.\n")
    assert cell_description(PLOT, "Débit selon la taille", prose, FRENCH) == \
        "Débit selon la taille"
    assert cell_description(PLOT, "", prose, FRENCH).startswith("Graphique : GFLOP/s")
    assert cell_description("trainer.fit(model)", "", prose, FRENCH) == \
        "La courbe montre la perte."
    assert cell_description("trainer.fit(model)", "", (), FRENCH) == \
        "Figure produite par le code"


def test_an_alt_written_in_the_fence_is_read_as_pandoc_writes_attributes():
    assert fence_alt('{.python .input  n=1 alt="Débit \\"GFLOP/s\\" selon n"}') == \
        'Débit "GFLOP/s" selon n'
    assert fence_alt("{.python .input alt=courbe}") == "courbe"
    assert fence_alt("{.python .input n=1}") == ""


def test_a_figure_titled_by_its_svg_keeps_its_title():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg"><title>Perte par époque</title></svg>')
    assert svg_title(svg) == "Perte par époque"
    matplotlib = (
        '<svg xmlns="http://www.w3.org/2000/svg"><metadata><rdf:RDF '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:cc="http://creativecommons.org/ns#"'
        ' xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><cc:Work>'
        '<dc:title>Débit des deux cartes</dc:title><dc:creator><cc:Agent>'
        '<dc:title>Matplotlib v3.11.2</dc:title></cc:Agent></dc:creator></cc:Work>'
        '</rdf:RDF></metadata></svg>')
    assert svg_title(matplotlib) == "Débit des deux cartes"
    assert svg_title(matplotlib.replace("<dc:title>Débit des deux cartes</dc:title>", "")) == ""
    assert svg_title("<svg") == ""
