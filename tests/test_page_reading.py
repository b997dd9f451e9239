"""A page as a reader sees it in Chromium, on a phone (390×844) and a laptop: display
equations and figures wider than the column readable whole, and tab groups that say
honestly what a framework lacks. Small books rendered from unexecuted notebooks: no kernel."""
from __future__ import annotations

import pytest

from conftest import DECLARE, md, write_book
from test_html import render_unexecuted

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 900}

WIDE = (r"s = \frac{\max_i |w_i|}{127}, \qquad q_i = \mathrm{arrondi}(w_i / s), "
        r"\qquad \hat{w}_i = s \, q_i, \qquad |w_i - \hat{w}_i| \leq \frac{s}{2}")
EQUATIONS = md(f"""
    # Formules

    Une formule courte :

    $$y = a x + b$$

    Une formule plus large qu'un téléphone :

    $${WIDE}$$

    La même, numérotée :

    $${WIDE}$$
    :eqlabel:`eq_large`
    """)

# Each equation: how far its content starts left of its box (hidden where no scroll reaches),
# and after scrolling to its end, how far the content still ends right of the box.
EQUATION_EDGES = """() => [...document.querySelectorAll('.equation')].map(e => {
    const kids = () => [...e.children].map(c => c.getBoundingClientRect());
    const box = e.getBoundingClientRect();
    const hiddenLeft = box.left - Math.min(...kids().map(k => k.left));
    const wide = e.scrollWidth > e.clientWidth;
    e.scrollLeft = e.scrollWidth;
    const hiddenRight = Math.max(...kids().map(k => k.right)) - e.getBoundingClientRect().right;
    e.scrollLeft = 0;
    return {hiddenLeft, hiddenRight, wide, focusable: e.tabIndex === 0,
            centred: Math.abs((kids()[0].left - box.left) - (box.right - kids().at(-1).right))};
})"""


def opened(visitor, site, viewport, query=""):
    browse = visitor(viewport=viewport)
    browse.page.goto((site / "chap" / "sec.html").as_uri() + query)
    browse.page.evaluate("document.fonts.ready.then(() => true)")
    return browse


def test_every_equation_is_readable_whole_on_a_phone(tmp_path, visitor):
    site = render_unexecuted(write_book(tmp_path, {"chap/sec.md": DECLARE + EQUATIONS}))
    phone = opened(visitor, site, PHONE)
    edges = phone.page.evaluate(EQUATION_EDGES)
    assert len(edges) == 3
    assert [e["wide"] for e in edges] == [False, True, True]   # the book does test a wide one
    for edge in edges:
        assert edge["hiddenLeft"] <= 0.5, edge    # its left side is on the screen
        assert edge["hiddenRight"] <= 0.5, edge   # its right side is reached by scrolling
        assert edge["focusable"] == edge["wide"]  # and the keyboard scrolls it too
    assert phone.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # On a laptop each fits and stays centred in the column.
    laptop = opened(visitor, site, LAPTOP)
    assert all(not e["wide"] and e["centred"] < 1 for e in laptop.page.evaluate(EQUATION_EDGES))
    assert phone.errors == laptop.errors == []


# A diagram 880 px wide with 13 px text, as img/server-topology.svg; a long caption.
DIAGRAM = ('<svg xmlns="http://www.w3.org/2000/svg" width="880" height="300" '
           'viewBox="0 0 880 300"><rect width="880" height="300" fill="#eee"/>'
           '<text x="10" y="150" style="font-size: 13px">commutateur PCIe</text></svg>')
CAPTION = ("Topologie type d'un serveur à huit GPU. Deux processeurs, chacun avec sa mémoire "
           "vive, sont reliés par un lien entre processeurs, lent, à éviter entre GPU. Chaque "
           "processeur alimente en PCIe deux commutateurs PCIe ; chaque commutateur relie deux "
           "GPU et une carte réseau, qui mène aux autres serveurs du cluster.")
FIGURES = md(f"""
    # Figures

    ![{CAPTION}](../../img/diagram.svg)
    :label:`fig_diagram`

    ![Un schéma court](../../img/diagram.svg)
    """)

FIGURE_BOXES = """() => [...document.querySelectorAll('figure')].map(f => {
    const box = e => e.getBoundingClientRect(), frame = f.querySelector('.figure-frame');
    const image = box(f.querySelector('img')), caption = f.querySelector('figcaption');
    return {imageWidth: image.width, imageLeft: image.left - box(frame).left,
            scrolls: frame.scrollWidth > frame.clientWidth, focusable: frame.tabIndex === 0,
            captionAlign: getComputedStyle(caption).textAlign,
            captionRight: box(caption).right, captionHeight: box(caption).height,
            captionLines: box(caption).height / parseFloat(getComputedStyle(caption).lineHeight),
            captionCentred: Math.abs((box(caption).left - box(f).left)
                                     - (box(f).right - box(caption).right))};
})"""


def test_a_wide_figure_keeps_legible_on_a_phone_and_its_caption_is_a_paragraph(tmp_path,
                                                                                visitor):
    root = write_book(tmp_path, {"chap/sec.md": DECLARE + FIGURES})
    (root / "img").mkdir()
    (root / "img" / "diagram.svg").write_text(DIAGRAM, encoding="utf-8")
    site = render_unexecuted(root)
    phone = opened(visitor, site, PHONE)
    phone.page.wait_for_function("[...document.images].every(i => i.complete)")
    long, short = phone.page.evaluate(FIGURE_BOXES)
    # Drawn at 48rem rather than squeezed to 358 px: its 13 px text stays about 11 px.
    assert long["imageWidth"] >= 0.85 * 880, long
    assert long["imageLeft"] == 0 and long["scrolls"] and long["focusable"], long
    # The caption does not scroll with the image: a left-aligned paragraph on the screen.
    assert long["captionAlign"] == "left" and long["captionRight"] <= PHONE["width"], long
    assert phone.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    laptop = opened(visitor, site, LAPTOP)
    # As on the phone: an image not loaded yet has no width (a rehearsal measured 0 once).
    laptop.page.wait_for_function("[...document.images].every(i => i.complete)")
    long, short = laptop.page.evaluate(FIGURE_BOXES)
    assert long["imageWidth"] == 880 and not long["scrolls"], long   # it fits the column
    assert long["captionLines"] > 1.5 and long["captionAlign"] == "left", long
    assert short["captionLines"] < 1.5 and short["captionCentred"] < 1, short
    assert phone.errors == laptop.errors == []


NOTES = md("""
    # Notes par framework

    ```{.python .input}
    %%tab all
    x = 1
    ```

    Une phrase pour tous.

    :begin_tab:`mxnet,tensorflow`
    Une remarque qui ne vaut que pour MXNet et TensorFlow.
    :end_tab:

    La suite, pour tous.

    ```{.python .input}
    %%tab tensorflow
    y = 2
    ```
    """)

SHOWN_GROUPS = """() => [...document.querySelectorAll('.tab-group')].map(g =>
    [...g.querySelectorAll('.tab-panel')].filter(p => p.offsetParent).map(p => ({
        text: p.innerText.trim(), notice: !!p.querySelector('.notice'),
        discreet: !!p.querySelector('.tab-elsewhere')})))"""


def test_notes_for_other_frameworks_do_not_read_as_a_missing_version(tmp_path, visitor):
    site = render_unexecuted(write_book(tmp_path, {"chap/sec.md": DECLARE + NOTES}))
    pytorch = opened(visitor, site, LAPTOP, "?tab=pytorch")
    notes, code = pytorch.page.evaluate(SHOWN_GROUPS)
    # The notes concern the others: a discreet line, no « Pas de version PyTorch ».
    assert notes == [{"text": "Ce passage concerne MXNet et TensorFlow.", "notice": False,
                      "discreet": True}]
    # Code that PyTorch really lacks keeps the notice.
    assert code == [{"text": "Pas de version PyTorch de ce passage.", "notice": True,
                     "discreet": False}]
    mxnet = opened(visitor, site, LAPTOP, "?tab=mxnet")
    notes, code = mxnet.page.evaluate(SHOWN_GROUPS)
    assert notes[0]["text"] == "Une remarque qui ne vaut que pour MXNet et TensorFlow."
    assert code[0]["text"] == "Pas de version MXNet de ce passage."
    assert pytorch.errors == mxnet.errors == []
