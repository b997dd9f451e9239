"""Mathematics and tables as a reader sees them: MathML drawn with the math font the
site ships, large operators at display size, numbered tables with their caption."""
from __future__ import annotations

import re

import pytest

from conftest import write_book
from test_html import render_unexecuted
from tabbook.output.render import ASSETS

FONT = "STIXTwoMath-Regular.woff2"
SECTION = """\
# Formules
:label:`sec_formules`

Une somme en ligne $\\sum_{i=1}^{n} x_i$ et $2^{-10} \\approx 0,001$.

$$S = \\sum_{i=1}^{n} x_i$$
:eqlabel:`eq_somme`

: Deux cartes

| Carte | Mémoire |
|:-|-:|
| A100 | 80 |
:label:`tab_cartes`
"""


@pytest.fixture
def math_site(tmp_path):
    return render_unexecuted(write_book(tmp_path, {"chap/sec.md": SECTION}))


def test_the_site_ships_the_math_font_and_uses_it_for_math(math_site):
    shipped = math_site / "_static" / "fonts" / FONT
    assert shipped.read_bytes() == (ASSETS / "fonts" / FONT).read_bytes()
    assert (ASSETS / "fonts" / "OFL-STIXTwoMath.txt").is_file()   # its licence beside it
    css = (math_site / "_static" / "book.css").read_text()
    assert f"url(fonts/{FONT})" in css and 'math{font-family:"STIX Two Math"' in css


@pytest.mark.browser
def test_math_is_drawn_in_the_math_font_with_display_size_operators(math_site, visitor):
    browse = visitor()
    browse.page.goto((math_site / "chap" / "sec.html").as_uri())
    page = browse.page
    page.evaluate("document.fonts.ready.then(() => true)")
    assert page.evaluate("document.fonts.check('16px \"STIX Two Math\"')")
    assert page.evaluate("[...document.fonts].some(f => f.family.includes('STIX Two Math')"
                         " && f.status === 'loaded')")

    def box(selector: str) -> dict:
        return page.eval_on_selector(selector, "e => { const r = e.getBoundingClientRect();"
                                               " return {top: r.top, bottom: r.bottom,"
                                               " height: r.height}; }")
    # Display math: Σ is much taller than the letter after it, its limits below and above.
    display = ".equation math munderover"
    sigma, letter = box(f"{display} > mo"), box(".equation math msub > mi")
    assert sigma["height"] > 1.6 * letter["height"], (sigma, letter)
    below, above = box(f"{display} > :nth-child(2)"), box(f"{display} > :nth-child(3)")
    assert below["top"] >= sigma["bottom"] - 1 and above["bottom"] <= sigma["top"] + 1
    # The table: its caption is the first thing in it, numbered.
    caption = page.text_content("table#tab_cartes > caption")
    assert caption.replace("\u00a0", " ") == "Tableau 1.1 — Deux cartes"
    browse.close()


def test_a_framework_without_its_pdf_says_how_to_make_it(math_site):
    page = (math_site / "chap" / "sec.html").read_text(encoding="utf-8")
    for tab, name in (("pytorch", "PyTorch"), ("mxnet", "MXNet"), ("tensorflow", "TensorFlow")):
        notice = re.search(f'<span class="missing-pdf" data-tab="{tab}">(.*?)</span>', page)
        assert notice, tab
        assert notice.group(1).startswith(f"Le PDF ({name}) n")
        assert notice.group(1).endswith(f"<code>python3 build.py pdf --tab {tab}</code>")
    assert 'download>' not in page
