"""Mathematics and tables as a reader sees them: MathML drawn with the math font the
site ships, large operators at display size, numbered tables with their caption."""
from __future__ import annotations

import hashlib
import io
import re
from pathlib import Path

import pytest

from conftest import raising_on_call, write_book
from test_html import render_unexecuted
from tabbook.output import math_font
from tabbook.output.templating import ASSETS

FONT = "STIXTwoMath-Regular.woff2"
SECTION = """\
# Formules
:label:`sec_formules`

Une somme en ligne $\\sum_{i=1}^{n} x_i$ et $2^{-10} \\approx 0,001$.

$$S = \\sum_{i=1}^{n} x_i$$
:eqlabel:`eq_somme`

$$\\left( \\frac{a}{b} \\right)^2 = \\sqrt{\\left[ \\frac{1}{2} \\right]}$$

: Deux cartes

| Carte | Mémoire |
|:-|-:|
| A100 | 80 |
:label:`tab_cartes`
"""


@pytest.fixture
def math_site(tmp_path):
    return render_unexecuted(write_book(tmp_path, {"chap/sec.md": SECTION}))


def shipped_font(site: Path) -> Path:
    """The math font the site's style sheet names."""
    css = (site / "_static" / "book.css").read_text()
    assert 'math{font-family:"STIX Two Math"' in css
    return site / "_static" / re.search(r"url\((fonts/STIXTwoMath-\w+\.woff2)\)", css).group(1)


def test_the_site_ships_the_math_font_cut_to_its_math(math_site):
    from fontTools.ttLib import TTFont

    shipped = shipped_font(math_site)
    data = shipped.read_bytes()
    assert shipped.name == f"STIXTwoMath-{hashlib.sha256(data).hexdigest()[:12]}.woff2"
    assert not (math_site / "_static" / "fonts" / FONT).exists()   # not the whole font too
    assert len(data) < (ASSETS / "fonts" / FONT).stat().st_size / 10
    assert (math_site / "_static" / "fonts" / "OFL-STIXTwoMath.txt").is_file()   # its licence
    font = TTFont(io.BytesIO(data))
    kept = set(map(chr, font.getBestCmap()))
    # The math's characters, and the italics single-letter identifiers are drawn with
    assert {"∑", "≈", "√", "(", "[", "x", "S", "\U0001D465", "\U0001D446"} <= kept
    assert not {"∫", "Z", "\U0001D467"} & kept   # what no formula shows is left out
    assert "MATH" in font   # stretchy parts and size variants of the kept glyphs


def test_a_site_without_math_ships_no_math_font(tmp_path, monkeypatch):
    monkeypatch.setattr(math_font, "_subset", raising_on_call(0, AssertionError("cut"),
                                                              math_font._subset))
    site = render_unexecuted(write_book(tmp_path, {"chap/sec.md": "# Prose\n\nSans formule.\n"}))
    assert not (site / "_static" / "fonts").exists()   # neither the font nor its licence
    css = (site / "_static" / "book.css").read_text()
    assert "@font-face" not in css and "STIXTwoMath" not in css
    assert 'math{font-family:"STIX Two Math",math}' in css   # the rule stays, harmless


def test_a_new_symbol_is_in_the_next_subset_and_an_unchanged_one_is_not_cut_again(
        tmp_path, monkeypatch):
    root = write_book(tmp_path, {"chap/sec.md": SECTION})
    first = shipped_font(render_unexecuted(root)).name
    # Nothing new: the subset comes from the cache, cut by no one.
    monkeypatch.setattr(math_font, "_subset", raising_on_call(0, AssertionError("cut"),
                                                              math_font._subset))
    (root / "chapters" / "chap" / "sec.md").write_text(SECTION + "\nDe nouveau $x$.\n")
    assert shipped_font(render_unexecuted(root)).name == first
    monkeypatch.undo()
    (root / "chapters" / "chap" / "sec.md").write_text(SECTION + "\nUne intégrale $\\int f$.\n")
    site = render_unexecuted(root)
    assert shipped_font(site).name != first
    from fontTools.ttLib import TTFont
    assert ord("∫") in TTFont(shipped_font(site)).getBestCmap()


@pytest.mark.browser
def test_the_subset_draws_the_math_as_the_whole_font_does(math_site, visitor):
    """Stretched brackets, fractions, radicals and sums: every glyph drawn from the subset
    (no fallback font), each formula the size it has with the whole font (served in its
    place) to a pixel or two."""
    def drawn(whole: bool) -> tuple[list[dict], dict[str, int]]:
        browse = visitor()
        page = browse.page
        if whole:
            page.route("**/STIXTwoMath-*.woff2", lambda route: route.fulfill(
                body=(ASSETS / "fonts" / FONT).read_bytes(), content_type="font/woff2"))
        page.goto((math_site / "chap" / "sec.html").as_uri())
        page.evaluate("document.fonts.ready.then(() => true)")
        boxes = page.eval_on_selector_all("math", "all => all.map(e => {"
                                          " const r = e.getBoundingClientRect();"
                                          " return {width: r.width, height: r.height}; })")
        devtools = page.context.new_cdp_session(page)
        devtools.send("DOM.enable")
        devtools.send("CSS.enable")
        root = devtools.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        fonts: dict[str, int] = {}
        for node in devtools.send("DOM.querySelectorAll", {"nodeId": root,
                                                           "selector": "math *"})["nodeIds"]:
            for font in devtools.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]:
                fonts[font["familyName"]] = fonts.get(font["familyName"], 0) + \
                    font["glyphCount"]
        return boxes, fonts
    (subset, subset_fonts), (whole, whole_fonts) = drawn(whole=False), drawn(whole=True)
    assert list(subset_fonts) == ["STIX Two Math"] and subset_fonts == whole_fonts
    assert len(subset) == 4
    for cut, full in zip(subset, whole):
        assert abs(cut["width"] - full["width"]) <= 2 and \
            abs(cut["height"] - full["height"]) <= 2, (cut, full)


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
